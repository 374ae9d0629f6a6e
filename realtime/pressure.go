package realtime

import (
	"context"
	"fmt"
	"sync"
	"sync/atomic"
)

// pressure is the real-time write path's back-pressure: a Write waits while
// a prepare of its context is writing data files and the context's stores
// hold more than limit bytes (Usage.BuildingBytes + SealedBytes), so that a
// stream faster than the flushes cannot grow the stores without bound while
// a flush runs. The wait ends when the prepare ends (its rows then wait only
// for their commit) or the Write's context does. Without a prepare running
// nothing waits: a Write and the PrepareCommitWithProgress after it may run
// in one goroutine, and a Write never waits for something that only its
// caller can start. The limit is the table's write-buffer-size (Java
// Paimon's bound on a writer's buffered rows, 256 MiB by default).
type pressure struct {
	limit int64
	waits atomic.Int64 // Writes that waited, for tests and reports

	mu       sync.Mutex
	flushing chan struct{} // while a prepare writes files; closed when it ends
}

// begin marks the start of a prepare's flush; the caller holds the
// context's prepMu, so flushes never overlap.
func (p *pressure) begin() {
	p.mu.Lock()
	p.flushing = make(chan struct{})
	p.mu.Unlock()
}

// end marks the end of the flush begin started and wakes the waiting Writes.
func (p *pressure) end() {
	p.mu.Lock()
	close(p.flushing)
	p.flushing = nil
	p.mu.Unlock()
}

// wait returns once no flush runs or used() is at most the limit. Errors:
// ctx's, wrapped, when it ends first.
func (p *pressure) wait(ctx context.Context, used func() int64) error {
	counted := false
	for {
		p.mu.Lock()
		ch := p.flushing
		p.mu.Unlock()
		if ch == nil {
			return nil
		}
		u := used()
		if u <= p.limit {
			return nil
		}
		if !counted {
			p.waits.Add(1)
			counted = true
		}
		select {
		case <-ch:
		case <-ctx.Done():
			return fmt.Errorf("realtime: waiting for a flush while the stores hold %d bytes, above write-buffer-size %d: %w", u, p.limit, ctx.Err())
		}
	}
}
