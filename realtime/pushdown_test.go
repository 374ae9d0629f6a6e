package realtime_test

import (
	"slices"
	"testing"

	"github.com/paimon-go/paimon/reader"
)

// Primary-key push-down (realtime-design.md section 8.5, paimon-cpp #324):
// the store gets the conjuncts of the filter over trimmed primary-key
// columns as a pruning hint, never a value-column conjunct, and the rows
// stay exactly the merged state. Disk holds 10 and 11; memory holds three
// batches, the middle one updating 10 and deleting 11.
func TestPkKeyPredicatePushdown(t *testing.T) {
	tbl := newFooTable(t, []string{"id"}, nil, map[string]string{"realtime.store.stats-mode": "full"})
	rc, spy := scSpyContext(t, tbl)
	w := newWrite(t, rc, "u")
	cm := newCommit(t, rc, "u")
	write(t, w, kindRows(t, scKV(10, "disk-10", "+I"), scKV(11, "disk-11", "+I")))
	refresh(t, rc, commitProg(t, cm, prepare(t, w, 1), 1))
	write(t, w, kindRows(t, scKV(0, "mem-0", "+I"), scKV(1, "mem-1", "+I"), scKV(2, "mem-2", "+I")))
	write(t, w, kindRows(t, scKV(10, "mem-10", "+U"), scKV(11, "disk-11", "-D"), scKV(12, "mem-12", "+I")))
	write(t, w, kindRows(t, scKV(20, "mem-20", "+I"), scKV(21, "mem-21", "+I"), scKV(22, "mem-22", "+I")))

	const idField = 3 // transport: _VALUE_KIND, _SEQUENCE_NUMBER, _REALTIME_OFFSET, id, payload, pt
	cases := []struct {
		where  string
		rows   []string
		hint   []int // fields of the store's filter; nil for no filter
		stored int64 // memory rows the store yielded
	}{
		{"id = 10", []string{"10|mem-10|x"}, []int{idField}, 3},
		// The -D in the kept batch hides the disk row.
		{"id = 11", nil, []int{idField}, 3},
		{"id > 15", []string{"20|mem-20|x", "21|mem-21|x", "22|mem-22|x"}, []int{idField}, 3},
		{"id IN (0, 10)", []string{"0|mem-0|x", "10|mem-10|x"}, []int{idField}, 6},
		// Only the key conjunct is pushed: the older disk version of 10
		// matches the payload conjunct and must not come back.
		{"id = 10 AND payload = 'disk-10'", nil, []int{idField}, 3},
		{"id = 10 AND payload = 'mem-10'", []string{"10|mem-10|x"}, []int{idField}, 3},
		// Value-column predicates reach no store: pruning the batch of
		// the newest version would resurrect the disk version.
		{"payload = 'disk-10'", nil, nil, 9},
		{"payload = 'disk-11'", nil, nil, 9},
		{"id = 10 OR payload = 'mem-0'", []string{"0|mem-0|x", "10|mem-10|x"}, nil, 9},
		{"pt = 'x' AND payload > 'mem-2'", []string{"20|mem-20|x", "21|mem-21|x", "22|mem-22|x"}, nil, 9},
	}
	for _, c := range cases {
		spy.reset()
		equal(t, c.where, scanRows(t, rc, reader.WithWhere(c.where)), c.rows)
		spy.mu.Lock()
		qs := slices.Clone(spy.queries)
		spy.mu.Unlock()
		if len(qs) != 1 {
			t.Fatalf("%s: %d store queries, want 1", c.where, len(qs))
		}
		var got []int
		if qs[0].Filter != nil {
			got = qs[0].Filter.Fields()
		}
		if !slices.Equal(got, c.hint) {
			t.Errorf("%s: store filter %v on fields %v, want fields %v", c.where, qs[0].Filter, got, c.hint)
		}
		if n := spy.yielded(); n != c.stored {
			t.Errorf("%s: store yielded %d memory rows, want %d", c.where, n, c.stored)
		}
	}

	// The same rows after commit from files alone.
	refresh(t, rc, commitProg(t, cm, prepare(t, w, 2), 2))
	for _, c := range cases {
		equal(t, c.where+" after commit", scDiskRows(t, tbl, reader.WithWhere(c.where)), c.rows)
	}
}

// A composite key pushes conjuncts over any of its columns, none over a
// value column; a partition column is not part of the trimmed primary key,
// so it is not pushed either (every row of a store has the same partition).
func TestCompositePkKeyPredicatePushdown(t *testing.T) {
	type query struct {
		where  string
		rows   []string
		hint   []int
		stored int64
	}
	for _, tc := range []struct {
		name          string
		pk, partition []string
		queries       []query
	}{
		{"key (id, payload)", []string{"id", "payload"}, nil, []query{
			{"id >= 5 AND pt = 'x'", []string{"5|c|x", "6|d|x"}, []int{3}, 2},
			{"payload = 'a'", []string{"1|a|x"}, []int{4}, 2},
			{"pt = 'x'", []string{"1|a|x", "2|b|x", "5|c|x", "6|d|x"}, nil, 4},
			{"payload = 'a' OR id = 6", []string{"1|a|x", "6|d|x"}, []int{3, 4}, 4},
		}},
		{"key (id, pt) partitioned by pt", []string{"id", "pt"}, []string{"pt"}, []query{
			{"id >= 5 AND pt = 'x'", []string{"5|c|x", "6|d|x"}, []int{3}, 2},
			{"pt = 'x'", []string{"1|a|x", "2|b|x", "5|c|x", "6|d|x"}, nil, 4},
			{"payload = 'a' AND id < 3", []string{"1|a|x"}, []int{3}, 2},
		}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			tbl := newFooTable(t, tc.pk, tc.partition, map[string]string{"realtime.store.stats-mode": "full"})
			rc, spy := scSpyContext(t, tbl)
			w := newWrite(t, rc, "u")
			write(t, w, kindRows(t, scKV(1, "a", "+I"), scKV(2, "b", "+I")))
			write(t, w, kindRows(t, scKV(5, "c", "+I"), scKV(6, "d", "+I")))
			for _, c := range tc.queries {
				spy.reset()
				equal(t, c.where, scanRows(t, rc, reader.WithWhere(c.where)), c.rows)
				spy.mu.Lock()
				var got []int
				if len(spy.queries) == 1 && spy.queries[0].Filter != nil {
					got = spy.queries[0].Filter.Fields()
				}
				nq := len(spy.queries)
				spy.mu.Unlock()
				if nq != 1 || !slices.Equal(got, c.hint) {
					t.Errorf("%s: %d queries, filter fields %v, want 1 query on %v", c.where, nq, got, c.hint)
				}
				if n := spy.yielded(); n != c.stored {
					t.Errorf("%s: store yielded %d memory rows, want %d", c.where, n, c.stored)
				}
			}
		})
	}
}
