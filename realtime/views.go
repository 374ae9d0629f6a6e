package realtime

import (
	"context"
	"fmt"
	"sync"
	"time"

	"github.com/paimon-go/paimon/progress"
)

// pbView is the read view of one registered partition-bucket.
type pbView struct {
	st   *pbState
	view ReadView
}

// acquireViews fixes the registry and takes one read view per registered
// partition-bucket (paimon-cpp RealtimeContext::AcquireReadViews):
// partition-buckets created later are not part of the result. On error no
// view is held.
func (c *Context) acquireViews(ctx context.Context) ([]pbView, error) {
	c.mu.Lock()
	if c.closed {
		c.mu.Unlock()
		return nil, fmt.Errorf("%w: real-time context", ErrClosed)
	}
	sts := c.sortedLocked()
	c.mu.Unlock()
	out := make([]pbView, 0, len(sts))
	for _, st := range sts {
		v, err := st.store.AcquireReadView(ctx)
		if err != nil {
			for _, pv := range out {
				pv.view.Release()
			}
			return nil, fmt.Errorf("realtime: acquire the read view of %s: %w", st.pb, err)
		}
		out = append(out, pbView{st: st, view: v})
	}
	return out, nil
}

// pin is a read view held for a real-time split until a read consumes it,
// it expires or it is released.
type pin struct {
	id       uint64
	st       *pbState
	view     ReadView
	r        progress.Range // [committed end, memory end) of the split
	deadline time.Time
	timer    *time.Timer
	once     sync.Once
}

// drop releases the view of a pin no read owns.
func (p *pin) drop() {
	p.once.Do(func() {
		if p.timer != nil {
			p.timer.Stop()
		}
		p.view.Release()
	})
}

// pinView pins view for a split of st covering r and returns its ticket
// (paimon-cpp RealtimeContext::PinReadView): single use, valid for the
// context's read-view TTL.
func (c *Context) pinView(st *pbState, view ReadView, r progress.Range) uint64 {
	c.tmu.Lock()
	defer c.tmu.Unlock()
	c.nextID++
	p := &pin{id: c.nextID, st: st, view: view, r: r, deadline: time.Now().Add(c.ttl)}
	c.tickets[p.id] = p
	p.timer = time.AfterFunc(c.ttl, func() { c.releaseTicket(p.id) })
	return p.id
}

// takeTicket removes the ticket of a split from the table of pinned views
// and hands its pin to the caller, who either owns the view from then on
// (a read that started) or gives it back with restoreTicket.
func (c *Context) takeTicket(id uint64, st *pbState, r progress.Range) (*pin, error) {
	c.tmu.Lock()
	defer c.tmu.Unlock()
	p := c.tickets[id]
	if p == nil || id == 0 {
		return nil, fmt.Errorf("%w: ticket %d of %s", ErrTicketExpired, id, st.pb)
	}
	if p.st != st || p.r != r {
		return nil, fmt.Errorf("%w: ticket %d pins %s %s, the split names %s %s", ErrTicketExpired, id, p.st.pb, p.r, st.pb, r)
	}
	if !time.Now().Before(p.deadline) {
		delete(c.tickets, id)
		go p.drop()
		return nil, fmt.Errorf("%w: ticket %d of %s", ErrTicketExpired, id, st.pb)
	}
	delete(c.tickets, id)
	p.timer.Stop()
	return p, nil
}

// restoreTicket puts back a ticket whose read failed to start, for the
// rest of its lifetime.
func (c *Context) restoreTicket(p *pin) {
	left := time.Until(p.deadline)
	if left <= 0 || c.isClosed() {
		p.drop()
		return
	}
	c.tmu.Lock()
	defer c.tmu.Unlock()
	c.tickets[p.id] = p
	p.timer = time.AfterFunc(left, func() { c.releaseTicket(p.id) })
}

// releaseTicket releases the view of an unconsumed ticket (paimon-cpp
// RealtimeContext::ReleaseReadView). It is idempotent.
func (c *Context) releaseTicket(id uint64) {
	c.tmu.Lock()
	p := c.tickets[id]
	delete(c.tickets, id)
	c.tmu.Unlock()
	if p != nil {
		p.drop()
	}
}

// Pinned returns the number of read views pinned by tickets that no read
// has consumed yet.
func (c *Context) Pinned() int {
	c.tmu.Lock()
	defer c.tmu.Unlock()
	return len(c.tickets)
}
