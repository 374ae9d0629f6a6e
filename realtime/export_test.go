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

// SetFlushHook makes every prepare of c call fn after sealing the stores and
// before writing data files (nil: none).
func SetFlushHook(c *Context, fn func()) { c.flushHook = fn }

// WriteWaits returns how many Writes of c waited for a running prepare
// (back-pressure, pressure.wait).
func WriteWaits(c *Context) int64 { return c.press.waits.Load() }
