package memindexer

import (
	"fmt"
	"sort"
	"sync"

	"github.com/paimon-go/paimon/progress"
	"github.com/paimon-go/paimon/realtime"
)

// view is a realtime.ReadView: the batches of a store at one moment, each
// retained until Release.
type view struct {
	owner   *store
	entries []*entry       // offset order; immutable
	rng     progress.Range // envelope; zero when entries is empty

	mu       sync.Mutex
	released bool
}

// Range implements realtime.ReadView: from the first batch's Range.Begin to
// the last batch's Range.End; false for a view without batches. It keeps
// answering after Release.
func (v *view) Range() (progress.Range, bool) { return v.rng, len(v.entries) > 0 }

// RowCount implements realtime.ReadView: the exact number of rows whose
// offset lies in r. AppendOnly batches are binary-searched (their offsets
// are sorted); PrimaryKey batches whose offset bounds lie inside r count
// whole, ones that overlap r are scanned. 0 after Release.
func (v *view) RowCount(r progress.Range) int64 {
	v.mu.Lock()
	defer v.mu.Unlock()
	if v.released || r.Empty() {
		return 0
	}
	var n int64
	for _, e := range v.entries {
		n += e.countIn(r, v.owner.mode)
	}
	return n
}

// countIn counts e's rows with an offset in r.
func (e *entry) countIn(r progress.Range, mode realtime.Mode) int64 {
	switch {
	case e.last < r.Begin || e.first >= r.End:
		return 0
	case e.first >= r.Begin && e.last < r.End:
		return e.rows
	case mode == realtime.AppendOnly:
		lo, hi := e.sortedBounds(r)
		return int64(hi - lo)
	}
	var n int64
	for i := range int(e.rows) {
		if r.Contains(e.offsetAt(i)) {
			n++
		}
	}
	return n
}

// sortedBounds returns the row interval [lo, hi) of e (an AppendOnly batch,
// offsets strictly increasing) whose offsets lie in r.
func (e *entry) sortedBounds(r progress.Range) (int, int) {
	n := int(e.rows)
	lo := sort.Search(n, func(i int) bool { return e.offsetAt(i) >= r.Begin })
	hi := lo + sort.Search(n-lo, func(i int) bool { return e.offsetAt(lo+i) >= r.End })
	return lo, hi
}

// Release implements realtime.ReadView; it is idempotent.
func (v *view) Release() {
	v.mu.Lock()
	if v.released {
		v.mu.Unlock()
		return
	}
	v.released = true
	v.mu.Unlock()
	for _, e := range v.entries {
		e.rec.Release()
	}
}

// pin takes one more reference to each of es (batches of v) for a running
// reader; ErrReleased when v was released.
func (v *view) pin(es []*entry) error {
	v.mu.Lock()
	defer v.mu.Unlock()
	if v.released {
		return fmt.Errorf("%w: query over a released view %s", ErrReleased, v.rng)
	}
	for _, e := range es {
		e.rec.Retain()
	}
	return nil
}
