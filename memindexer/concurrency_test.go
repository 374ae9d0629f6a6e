package memindexer

import (
	"slices"
	"sync"
	"sync/atomic"
	"testing"

	"github.com/apache/arrow-go/v18/arrow/memory"

	"github.com/paimon-go/paimon/realtime"
)

// writeDense writes batches of 1..7 rows with consecutive offsets from 0
// until n rows are written, in one goroutine. Before each write it stores the
// batch's end in started, after it in written.
func writeDense(t *testing.T, s realtime.Store, mem memory.Allocator, n int64, started, written *atomic.Int64) {
	var off int64
	for i := 0; off < n; i++ {
		end := min(n, off+int64(i%7)+1)
		rec := appendRec(mem, span(off, end), nil, nil)
		started.Store(end)
		if err := s.Write(bg, realtime.Batch{Record: rec, Range: rng(off, end)}); err != nil {
			t.Error(err)
			rec.Release()
			return
		}
		rec.Release()
		off = end
		written.Store(off)
	}
}

// Every written row ends up in exactly one sealed segment, whatever the
// interleaving of writes, seals and view acquisitions.
func TestSealExactlyOnceUnderConcurrency(t *testing.T) {
	mem := memory.NewCheckedAllocator(memory.NewGoAllocator())
	defer mem.AssertSize(t, 0)
	s := newAppendStore(t, realtime.StatsFull)
	defer s.Close()
	const n = 3000
	var started, written atomic.Int64
	var mu sync.Mutex
	var segs []realtime.Segment
	done := make(chan struct{})
	var wg sync.WaitGroup
	for range 3 {
		wg.Go(func() {
			for {
				select {
				case <-done:
					return
				default:
				}
				g, err := s.SealForCommit(bg)
				if err != nil {
					t.Error(err)
					return
				}
				if g != nil {
					mu.Lock()
					segs = append(segs, g)
					mu.Unlock()
				}
			}
		})
	}
	for range 2 {
		wg.Go(func() {
			for {
				select {
				case <-done:
					return
				default:
				}
				v, err := s.AcquireReadView(bg)
				if err != nil {
					t.Error(err)
					return
				}
				if r, ok := v.Range(); ok && v.RowCount(r) != r.End-r.Begin {
					t.Errorf("view %s counts %d rows", r, v.RowCount(r))
				}
				v.Release()
			}
		})
	}
	writeDense(t, s, mem, n, &started, &written)
	close(done)
	wg.Wait()
	if g, err := s.SealForCommit(bg); err != nil {
		t.Fatal(err)
	} else if g != nil {
		segs = append(segs, g)
	}
	if len(segs) < 2 {
		t.Logf("only %d segments sealed", len(segs))
	}
	slices.SortFunc(segs, func(a, b realtime.Segment) int { return int(a.Range().Begin - b.Range().Begin) })
	var next, rows int64
	for _, g := range segs {
		if g.Range().Begin != next {
			t.Fatalf("segment %s does not start at %d", g.Range(), next)
		}
		next = g.Range().End
		rows += g.RowCount()
		var off []int64
		for _, b := range drain(t, mustCommit(t, s, g), realtime.OffsetColumn) {
			off = append(off, b...)
		}
		if !slices.Equal(off, span(g.Range().Begin, g.Range().End)) {
			t.Fatalf("segment %s yields %v", g.Range(), off)
		}
	}
	if next != n || rows != n {
		t.Fatalf("segments cover [0,%d) with %d rows, want %d", next, rows, n)
	}
	if u := s.Usage(); u.SealedRows != n || u.BuildingRows != 0 {
		t.Fatalf("usage %+v", u)
	}
}

// A view taken while writes, seals and reclaims run holds exactly the rows
// from some committed end to the end of the last completed write: gap-free,
// duplicate-free, and counted exactly by RowCount.
func TestViewsConsistentUnderWritesSealsReclaim(t *testing.T) {
	mem := memory.NewCheckedAllocator(memory.NewGoAllocator())
	defer mem.AssertSize(t, 0)
	s := newAppendStore(t, realtime.StatsNone)
	defer s.Close()
	const n = 2000
	var started, written atomic.Int64
	done := make(chan struct{})
	var wg sync.WaitGroup
	wg.Go(func() { // sealer + committer: reclaim every sealed segment at once
		for {
			select {
			case <-done:
				return
			default:
			}
			g, err := s.SealForCommit(bg)
			if err != nil {
				t.Error(err)
				return
			}
			if g != nil {
				if err := s.AdvanceCommittedOffset(bg, g.Range().End); err != nil {
					t.Error(err)
					return
				}
			}
		}
	})
	var views atomic.Int64
	for range 3 {
		wg.Go(func() {
			for {
				select {
				case <-done:
					return
				default:
				}
				low := written.Load()
				v, err := s.AcquireReadView(bg)
				if err != nil {
					t.Error(err)
					return
				}
				r, ok := v.Range()
				var off []int64
				rs, err := s.QueryReaders(bg, v, realtime.Query{Columns: []string{realtime.OffsetColumn}, BatchSize: 5})
				if err != nil {
					t.Error(err)
					return
				}
				for _, b := range drain(t, rs, realtime.OffsetColumn) {
					off = append(off, b...)
				}
				if ok {
					if !slices.Equal(off, span(r.Begin, r.End)) || r.End < low || r.End > started.Load() {
						t.Errorf("view %s (writes done before: %d) yields %d rows %v", r, low, len(off), off)
					}
					if c := v.RowCount(r); c != int64(len(off)) {
						t.Errorf("view %s RowCount %d, read %d", r, c, len(off))
					}
				} else if len(off) != 0 {
					t.Errorf("empty view yields %v", off)
				}
				v.Release()
				views.Add(1)
			}
		})
	}
	writeDense(t, s, mem, n, &started, &written)
	close(done)
	wg.Wait()
	g, err := s.SealForCommit(bg)
	if err != nil {
		t.Fatal(err)
	}
	if g != nil {
		if err := s.AdvanceCommittedOffset(bg, g.Range().End); err != nil {
			t.Fatal(err)
		}
	}
	if u := s.Usage(); u != (realtime.Usage{}) {
		t.Fatalf("usage after reclaiming everything %+v", u)
	}
	if views.Load() == 0 {
		t.Fatal("no view was checked")
	}
}
