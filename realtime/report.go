package realtime

import (
	"context"
	"sync"
	"time"

	"github.com/paimon-go/paimon/fileio"
	"github.com/paimon-go/paimon/metrics"
	"github.com/paimon-go/paimon/progress"
)

// prepareTally sums the prepares since the last reported commit: their
// time, and the start of the first.
type prepareTally struct {
	mu    sync.Mutex
	first time.Time
	total time.Duration
}

// add records a prepare that began at start and ends now.
func (p *prepareTally) add(start time.Time) {
	p.mu.Lock()
	if p.first.IsZero() {
		p.first = start
	}
	p.total += time.Since(start)
	p.mu.Unlock()
}

// take returns and resets the tally.
func (p *prepareTally) take() (first time.Time, total time.Duration) {
	p.mu.Lock()
	defer p.mu.Unlock()
	first, total = p.first, p.total
	p.first, p.total = time.Time{}, 0
	return first, total
}

// startReport begins the report of a commit of adv: the ranges and rows it
// advances, and the context's usage now.
func (c *Context) startReport(adv []progress.Advance) *metrics.RealtimeReport {
	u := c.Usage()
	r := &metrics.RealtimeReport{
		Table: fileio.Redact(c.fio.URL()), Ranges: len(adv),
		BuildingBytes: u.BuildingBytes, SealedBytes: u.SealedBytes, BuildingRows: u.BuildingRows, SealedRows: u.SealedRows,
	}
	for _, a := range adv {
		r.CommittedRows += a.Range.End - a.Range.Begin
	}
	return r
}

// finishReport completes r for a commit that began at start and hands it
// to the reporter. A successful commit takes the prepare tally; a failed
// one leaves it for the retry.
func (c *Context) finishReport(ctx context.Context, r *metrics.RealtimeReport, start time.Time) {
	now := time.Now()
	r.Commit = now.Sub(start)
	if r.Err == nil {
		first, total := c.prepared.take()
		r.Prepare = total
		if !first.IsZero() {
			r.Freshness = now.Sub(first)
		}
	}
	c.reporter.Report(ctx, r)
}
