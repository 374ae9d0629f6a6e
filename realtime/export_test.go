package realtime

import "github.com/paimon-go/paimon/predicate"

// SetPlanFilter makes p behave as if its disk plan's filter
// (reader.Plan.Filter, see planFilter) were f, so that the external tests
// can check store hints and the count fast path for a given filter.
func SetPlanFilter(p *Plan, f predicate.Predicate) {
	p.filter, p.known, p.hint = f, true, nil
	if f != nil {
		p.hint = p.c.storeHint(f, p.Disk)
	}
}
