package paimon

import (
	"fmt"

	"github.com/paimon-go/paimon/memindexer"
	"github.com/paimon-go/paimon/realtime"
	"github.com/paimon-go/paimon/schema"
)

// NewRealtimeContext returns the real-time context of the table (package
// realtime; paimon-cpp RealtimeContext::Create): the process-local state
// its real-time writers, committers and scans share. Stores are the
// built-in memindexer.Factory; realtime.NewContext takes another Factory.
// Its scans share the table's manifest cache (Table.Cache).
//
// Errors: ErrBranchWrite on a branch other than main, and those of
// realtime.NewContext (realtime.ErrNotEnabled unless the table sets
// realtime.enabled=true, realtime.ErrUnsupported without a fixed bucket
// count).
func (t *Table) NewRealtimeContext(opts ...realtime.ContextOption) (*realtime.Context, error) {
	if t.branch != "" && t.branch != schema.MainBranch {
		return nil, fmt.Errorf("%w: %s", ErrBranchWrite, t.branch)
	}
	pre := []realtime.ContextOption{realtime.WithCache(t.Cache())}
	if t.reporter != nil {
		pre = append(pre, realtime.WithReporter(t.reporter))
	}
	return realtime.NewContext(t.fio, t.schema, memindexer.Factory{}, append(pre, opts...)...)
}
