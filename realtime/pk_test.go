package realtime_test

import (
	"context"
	"iter"
	"slices"
	"sync"
	"testing"

	"github.com/apache/arrow-go/v18/arrow"

	"github.com/paimon-go/paimon/commit"
	"github.com/paimon-go/paimon/internal/tabletest"
	"github.com/paimon-go/paimon/memindexer"
	"github.com/paimon-go/paimon/predicate"
	"github.com/paimon-go/paimon/reader"
	"github.com/paimon-go/paimon/realtime"
)

// spyFactory creates built-in stores that record the queries they get.
type spyFactory struct {
	mu      sync.Mutex
	queries []realtime.Query
}

func (f *spyFactory) Create(req realtime.CreateRequest) (realtime.Store, error) {
	s, err := memindexer.Factory{}.Create(req)
	if err != nil {
		return nil, err
	}
	return &spyStore{Store: s, f: f}, nil
}

type spyStore struct {
	realtime.Store
	f *spyFactory
}

func (s *spyStore) QueryReaders(ctx context.Context, v realtime.ReadView, q realtime.Query) ([]iter.Seq2[arrow.RecordBatch, error], error) {
	s.f.mu.Lock()
	s.f.queries = append(s.f.queries, q)
	s.f.mu.Unlock()
	return s.Store.QueryReaders(ctx, v, q)
}

// Scenario 44 (TestPkRead).
func TestPkRead(t *testing.T) {
	tbl := newFooTable(t, []string{"id"}, nil, nil)
	spy := &spyFactory{}
	rc, err := realtime.NewContext(tbl.FileIO, tbl.Schema, spy)
	if err != nil {
		t.Fatal(err)
	}
	defer rc.Close()
	w := newWrite(t, rc, "u")
	cm := newCommit(t, rc, "u")
	write(t, w, kindRows(t,
		[]any{int64(1), "one", "x", "+I"},
		[]any{int64(2), "two", "x", "+I"},
		[]any{int64(1), "one-v2", "x", "+U"}))
	equal(t, "memory only", scanRows(t, rc), []string{"1|one-v2|x", "2|two|x"})
	prog := prepare(t, w, 1)
	equal(t, "ranges", ranges(prog), []string{"{}/bucket-0[0,3)"})
	id := commitProg(t, cm, prog, 1)
	refresh(t, rc, id)
	write(t, w, kindRows(t,
		[]any{int64(1), "latest", "x", "+U"},
		[]any{int64(2), "two", "x", "-D"},
		[]any{int64(3), "three", "x", "+I"}))
	equal(t, "union", scanRows(t, rc), []string{"1|latest|x", "3|three|x"})
	// A predicate on a value column must not resurrect the older disk
	// version, and the store gets no predicate.
	equal(t, "filtered", scanRows(t, rc, reader.WithWhere("payload = 'one-v2'")), nil)
	equal(t, "filtered newest", scanRows(t, rc, reader.WithWhere("payload = 'latest'")), []string{"1|latest|x"})
	equal(t, "projected value only", scanRows(t, rc, reader.WithColumns("payload")), []string{"latest", "three"})
	spy.mu.Lock()
	for _, q := range spy.queries {
		if q.Filter != nil {
			t.Fatalf("store got predicate %v", q.Filter)
		}
	}
	spy.mu.Unlock()

	// A started read keeps its view after the plan is dropped and the
	// context is closed.
	p := plan(t, rc, reader.WithBatchSize(1))
	next, stop := iter.Pull2(p.Records(context.Background()))
	defer stop()
	first, err, ok := next()
	if !ok || err != nil {
		t.Fatalf("first batch: %v %v", ok, err)
	}
	got := recStrings(first)
	first.Release()
	p.Release()
	if err := rc.Close(); err != nil {
		t.Fatal(err)
	}
	for {
		rec, err, ok := next()
		if !ok {
			break
		}
		if err != nil {
			t.Fatal(err)
		}
		got = append(got, recStrings(rec)...)
		rec.Release()
	}
	equal(t, "read across close", got, []string{"1|latest|x", "3|three|x"})
}

// Scenario 52 (TestPkCompositeMerge): disk, a prepared (sealed) segment
// and the building segment merge by key; pt tells which one a row came
// from.
func TestPkCompositeMerge(t *testing.T) {
	tbl := newFooTable(t, []string{"id", "payload"}, nil, nil)
	rc := newContext(t, tbl)
	w := newWrite(t, rc, "u")
	cm := newCommit(t, rc, "u")
	write(t, w, kindRows(t,
		[]any{int64(1), "a", "disk", "+I"},
		[]any{int64(1), "b", "disk", "+I"},
		[]any{int64(2), "a", "disk", "+I"},
		[]any{int64(3), "c", "disk", "+I"}))
	p0 := prepare(t, w, 1)
	id := commitProg(t, cm, p0, 1)
	write(t, w, kindRows(t,
		[]any{int64(1), "a", "sealed", "+U"},
		[]any{int64(1), "b", "sealed", "-D"},
		[]any{int64(2), "b", "sealed", "+I"}))
	p1 := prepare(t, w, 2)
	write(t, w, kindRows(t,
		[]any{int64(1), "a", "active", "+U"},
		[]any{int64(1), "c", "active", "+I"},
		[]any{int64(2), "a", "active", "+U"}))
	equal(t, "ranges", append(ranges(p0), ranges(p1)...), []string{"{}/bucket-0[0,4)", "{}/bucket-0[4,7)"})
	p := plan(t, rc)
	equal(t, "splits", splitInfos(p), []string{"rt {}/bucket-0 disk=1 snap=" + itoa(id) + " C=4 M=10"})
	want := []string{"1|a|active", "1|c|active", "2|a|active", "2|b|sealed", "3|c|disk"}
	equal(t, "merged", readPlan(t, p), want)
	// Memory and disk agree: commit everything, refresh, plain read.
	id = commitProg(t, cm, append(p1, prepare(t, w, 3)...), 3)
	refresh(t, rc, id)
	equal(t, "disk", diskRows(t, tbl), want)
	equal(t, "after refresh", scanRows(t, rc), want)
	if u := rc.Usage(); u != (realtime.Usage{}) {
		t.Fatalf("usage after refresh %+v", u)
	}
}

// Scenario 55 (TestPkRecovery): sequence numbers continue the seed
// commit's, versions merged in the segment leave the file's min sequence
// above the first, deletes are kept, and a new context continues at the
// files' max sequence + 1.
func TestPkRecovery(t *testing.T) {
	tbl := newFooTable(t, []string{"id"}, nil, nil)
	seed := fooRows(t, "x", 0)
	tabletest.WriteCommit(t, tbl, "seed", commit.BatchIdentifier, seed)
	seed.Release()
	rc := newContext(t, tbl)
	w := newWrite(t, rc, "u")
	cm := newCommit(t, rc, "u")
	write(t, w, kindRows(t,
		[]any{int64(1), "a", "x", "+I"},
		[]any{int64(1), "b", "x", "+U"},
		[]any{int64(2), "c", "x", "+I"},
		[]any{int64(0), "value-0", "x", "-D"}))
	prog := prepare(t, w, 1)
	equal(t, "ranges", ranges(prog), []string{"{}/bucket-0[0,4)"})
	files := prog[0].Message.Data.NewFiles
	if len(files) != 1 {
		t.Fatalf("%d files", len(files))
	}
	f := files[0]
	if f.MinSequenceNumber != 2 || f.MaxSequenceNumber != 4 || f.RowCount != 3 || f.DeleteRowCount == nil || *f.DeleteRowCount != 1 || f.Level != 0 {
		t.Fatalf("file seq [%d,%d] rows %d deletes %v level %d", f.MinSequenceNumber, f.MaxSequenceNumber, f.RowCount, f.DeleteRowCount, f.Level)
	}
	commitProg(t, cm, prog, 1)
	rc.Close()

	rc2 := newContext(t, tbl)
	w2 := newWrite(t, rc2, "u")
	cm2 := newCommit(t, rc2, "u")
	write(t, w2, kindRows(t, []any{int64(5), "e", "x", "+I"}))
	prog = prepare(t, w2, 2)
	equal(t, "ranges", ranges(prog), []string{"{}/bucket-0[4,5)"})
	f = prog[0].Message.Data.NewFiles[0]
	if f.MinSequenceNumber != 5 || f.MaxSequenceNumber != 5 {
		t.Fatalf("restart sequence [%d,%d], want 5", f.MinSequenceNumber, f.MaxSequenceNumber)
	}
	id := commitProg(t, cm2, prog, 2)
	equal(t, "committed", committed(t, tbl, id), []string{"{}/bucket-0=5"})
	equal(t, "rows", diskRows(t, tbl), []string{"1|b|x", "2|c|x", "5|e|x"})
}

// A primary-key segment whose rows all merge away (insert then delete of a
// new key) still advances the progress, with an empty commit message when
// no file is written.
func TestPkPrepareWithoutSurvivingRows(t *testing.T) {
	tbl := newFooTable(t, []string{"id"}, nil, nil)
	rc := newContext(t, tbl)
	w := newWrite(t, rc, "u")
	cm := newCommit(t, rc, "u")
	write(t, w, kindRows(t, []any{int64(1), "a", "x", "+I"}))
	write(t, w, kindRows(t, []any{int64(1), "a", "x", "-D"}))
	equal(t, "memory", scanRows(t, rc), nil)
	prog := prepare(t, w, 1)
	equal(t, "ranges", ranges(prog), []string{"{}/bucket-0[0,2)"})
	id := commitProg(t, cm, prog, 1)
	equal(t, "committed", committed(t, tbl, id), []string{"{}/bucket-0=2"})
	refresh(t, rc, id)
	equal(t, "rows", scanRows(t, rc), nil)
}

// Memory and disk agree for each merge engine: a union read before the
// commit equals a plain read after commit and refresh.
func TestPkMemoryAndDiskAgree(t *testing.T) {
	engines := map[string]map[string]string{
		"deduplicate":    nil,
		"partial-update": {"merge-engine": "partial-update"},
		"aggregation": {"merge-engine": "aggregation", "fields.payload.aggregate-function": "max",
			"fields.pt.aggregate-function": "listagg"},
	}
	for name, opts := range engines {
		t.Run(name, func(t *testing.T) {
			tbl := newFooTable(t, []string{"id"}, nil, opts)
			rc := newContext(t, tbl)
			w := newWrite(t, rc, "u")
			cm := newCommit(t, rc, "u")
			rounds := [][][]any{
				{{int64(1), "a", "r0", "+I"}, {int64(2), nil, "r0", "+I"}, {int64(3), "c", nil, "+I"}},
				{{int64(2), "b", nil, "+I"}, {int64(1), nil, "r1", "+I"}, {int64(4), "d", "r1", "+I"}},
				{{int64(3), "z", "r2", "+I"}, {int64(1), "e", "r2", "+I"}, {int64(4), "a", nil, "+I"}},
			}
			var prev int64
			for i, rows := range rounds {
				write(t, w, kindRows(t, rows...))
				union := scanRows(t, rc)
				id := commitProg(t, cm, prepare(t, w, int64(i+1)), int64(i+1))
				if id <= prev {
					t.Fatalf("snapshot %d after %d", id, prev)
				}
				prev = id
				refresh(t, rc, id)
				equal(t, "round "+itoa(int64(i)), union, diskRows(t, tbl))
				equal(t, "after refresh", scanRows(t, rc), union)
			}
		})
	}
}

// Append stores get the scan filter as a pruning hint (reader.Plan.Filter
// rewritten to transport fields) and counts read no memory row.
func TestAppendStoreHintAndCount(t *testing.T) {
	tbl := newFooTable(t, nil, nil, map[string]string{"realtime.store.stats-mode": "full"})
	spy := &spyFactory{}
	rc, err := realtime.NewContext(tbl.FileIO, tbl.Schema, spy)
	if err != nil {
		t.Fatal(err)
	}
	defer rc.Close()
	w := newWrite(t, rc, "u")
	write(t, w, fooRows(t, "p0", 0, 1, 2))
	write(t, w, fooRows(t, "p0", 10, 11, 12))
	p := plan(t, rc, reader.WithWhere("id > 5"))
	equal(t, "filtered", readPlan(t, p), fooStrings("p0", 10, 11, 12))
	spy.mu.Lock()
	if len(spy.queries) != 1 {
		t.Fatalf("%d queries", len(spy.queries))
	}
	hint := spy.queries[0].Filter
	spy.queries = nil
	spy.mu.Unlock()
	if hint == nil || !slices.Equal(hint.Fields(), []int{1}) || hint.String() != p.Disk.Filter().String() {
		t.Fatalf("hint %v, want %v on transport field 1", hint, p.Disk.Filter())
	}
	n, err := plan(t, rc).Count(context.Background())
	if err != nil || n != 6 {
		t.Fatalf("count %d %v", n, err)
	}
	spy.mu.Lock()
	defer spy.mu.Unlock()
	if len(spy.queries) != 0 {
		t.Fatalf("count ran %d queries", len(spy.queries))
	}
}

// The hint and count paths with a known filter (SetPlanFilter stands in for
// reader.Plan.Filter).
func TestAppendStoreHintAndCountWithKnownFilter(t *testing.T) {
	tbl := newFooTable(t, nil, nil, map[string]string{"realtime.store.stats-mode": "full"})
	spy := &spyFactory{}
	rc, err := realtime.NewContext(tbl.FileIO, tbl.Schema, spy)
	if err != nil {
		t.Fatal(err)
	}
	defer rc.Close()
	w := newWrite(t, rc, "u")
	cm := newCommit(t, rc, "u")
	write(t, w, fooRows(t, "p0", 0, 1, 2))
	commitProg(t, cm, prepare(t, w, 1), 1)
	write(t, w, fooRows(t, "p0", 3, 4))
	write(t, w, fooRows(t, "p0", 10, 11, 12))
	f, err := predicate.Parse("id > 5", tbl.Schema.Fields)
	if err != nil {
		t.Fatal(err)
	}
	p := plan(t, rc, reader.WithFilter(f))
	realtime.SetPlanFilter(p, f)
	equal(t, "filtered", readPlan(t, p), fooStrings("p0", 10, 11, 12))
	spy.mu.Lock()
	if len(spy.queries) != 1 || spy.queries[0].Filter == nil || !slices.Equal(spy.queries[0].Filter.Fields(), []int{1}) {
		t.Fatalf("queries %+v", spy.queries)
	}
	spy.queries = nil
	spy.mu.Unlock()

	p = plan(t, rc)
	realtime.SetPlanFilter(p, nil)
	n, err := p.Count(context.Background())
	if err != nil || n != 8 {
		t.Fatalf("count %d %v", n, err)
	}
	if rc.Pinned() != 0 {
		t.Fatalf("count left %d tickets", rc.Pinned())
	}
	_, err = tryReadSplits(p, p.Splits...)
	wantErr(t, err, realtime.ErrTicketExpired)
	spy.mu.Lock()
	defer spy.mu.Unlock()
	if len(spy.queries) != 0 {
		t.Fatalf("count ran %d queries", len(spy.queries))
	}
}

// clipSpyFactory is spyFactory whose stores clip to the visible range
// themselves (the built-in store's realtime.ClipsVisible).
type clipSpyFactory struct{ spyFactory }

func (f *clipSpyFactory) Create(req realtime.CreateRequest) (realtime.Store, error) {
	s, err := f.spyFactory.Create(req)
	if err != nil {
		return nil, err
	}
	return clipSpyStore{s.(*spyStore)}, nil
}

type clipSpyStore struct{ *spyStore }

func (clipSpyStore) ClipsVisible() bool { return true }

// TestUnionReadColumns checks the transport columns the framework asks a
// store for: a union read of a store that clips to the visible range
// leaves out the offset column (the merge with the disk rows does not read
// it), one of a store that does not clip asks for it to clip the rows
// itself, and ReadMemory (a portion's rows) always asks for every column.
// Both read the same rows.
func TestUnionReadColumns(t *testing.T) {
	all := []string{realtime.KindColumn, realtime.SequenceColumn, realtime.OffsetColumn, "id", "payload", "pt"}
	noOffset := []string{realtime.KindColumn, realtime.SequenceColumn, "id", "payload", "pt"}
	for _, c := range []struct {
		name  string
		clips bool
		union []string
	}{{"clipping store", true, noOffset}, {"store that does not clip", false, all}} {
		t.Run(c.name, func(t *testing.T) {
			tbl := newFooTable(t, []string{"id"}, nil, nil)
			var spy *spyFactory
			var f realtime.Factory
			if c.clips {
				cf := &clipSpyFactory{}
				spy, f = &cf.spyFactory, cf
			} else {
				spy = &spyFactory{}
				f = spy
			}
			rc, err := realtime.NewContext(tbl.FileIO, tbl.Schema, f)
			if err != nil {
				t.Fatal(err)
			}
			defer rc.Close()
			w := newWrite(t, rc, "u")
			cm := newCommit(t, rc, "u")
			write(t, w, kindRows(t, []any{int64(1), "one", "x", "+I"}, []any{int64(2), "two", "x", "+I"}))
			refresh(t, rc, commitProg(t, cm, prepare(t, w, 1), 1))
			write(t, w, kindRows(t, []any{int64(1), "one-v2", "x", "+U"}, []any{int64(3), "three", "x", "+I"}))
			equal(t, "union", scanRows(t, rc), []string{"1|one-v2|x", "2|two|x", "3|three|x"})
			spy.mu.Lock()
			got := spy.queries
			spy.queries = nil
			spy.mu.Unlock()
			if len(got) != 1 || !slices.Equal(got[0].Columns, c.union) {
				t.Fatalf("union read asked %d queries, first for %v; want one for %v", len(got), columnsOf(got), c.union)
			}
			p := plan(t, rc)
			var rows int64
			for _, sp := range p.Splits {
				for rec, err := range p.ReadMemory(context.Background(), sp) {
					if err != nil {
						t.Fatal(err)
					}
					rows += rec.NumRows()
					rec.Release()
				}
			}
			spy.mu.Lock()
			got = spy.queries
			spy.mu.Unlock()
			if rows != 2 || len(got) != 1 || !slices.Equal(got[0].Columns, all) {
				t.Fatalf("ReadMemory read %d rows in %d queries, first for %v; want 2 rows in one for %v", rows, len(got), columnsOf(got), all)
			}
		})
	}
}

func columnsOf(qs []realtime.Query) []string {
	if len(qs) == 0 {
		return nil
	}
	return qs[0].Columns
}
