package realtime

import "github.com/paimon-go/paimon/predicate"

// SetPlanFilter makes p behave as if package reader had exposed f as the
// filter of its disk plan (see planFilter), so that the external tests can
// check store hints and the count fast path before reader.Plan has a Filter
// method.
func SetPlanFilter(p *Plan, f predicate.Predicate) {
	p.filter, p.known, p.hint = f, true, nil
	if f != nil && p.c.lay.mode == AppendOnly {
		p.hint = p.c.storeHint(f, p.Disk)
	}
}
