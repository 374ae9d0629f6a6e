package merge

import (
	"context"
	"fmt"
	"math/rand/v2"
	"slices"
	"testing"

	"github.com/apache/arrow-go/v18/arrow/memory"
)

// mergeLeveled merges runs of rows, run i at levels[i], and returns the
// output rows as kvString.
func mergeLeveled(t *testing.T, options map[string]string, lookup bool, levels []int, rows [][]kvRow) []string {
	t.Helper()
	mem := memory.NewCheckedAllocator(memory.DefaultAllocator)
	defer mem.AssertSize(t, 0)
	m, err := NewMerger(mustConfig(t, options), kvSchema, Options{KeyColumns: []int{0}, Layout: LayoutKeyValue, Lookup: lookup, Allocator: mem})
	if err != nil {
		t.Fatal(err)
	}
	runs := make([]Run, len(rows))
	for i, r := range rows {
		runs[i] = AtLevel(RunOf(buildKV(mem, r)), levels[i])
	}
	var got []string
	for rec, err := range m.Merge(context.Background(), runs) {
		if err != nil {
			t.Fatal(err)
		}
		for i := range int(rec.NumRows()) {
			got = append(got, kvString(rec, i))
		}
		rec.Release()
	}
	return got
}

// A sum table whose level 1 already holds the merge of level 3 (as a lookup
// compaction writes it): the lookup merge adds the level-0 records to the
// level-1 record only; a plain merge counts level 3 twice.
func TestLookupPicksLowestLevel(t *testing.T) {
	agg := map[string]string{"merge-engine": "aggregation", "fields.v.aggregate-function": "sum", "fields.s.aggregate-function": "last_non_null_value"}
	levels := []int{0, 0, 1, 3}
	rows := [][]kvRow{
		{{key: 1, seq: 9, kind: 0, v: i64p(100), s: "l0b"}},
		{{key: 1, seq: 7, kind: 0, v: i64p(10), s: "l0a"}, {key: 2, seq: 8, kind: 0, v: i64p(1), s: "x"}},
		{{key: 1, seq: 5, kind: 0, v: i64p(3), s: "l1"}, {key: 3, seq: 6, kind: 2, v: i64p(4), s: "l1"}},
		{{key: 1, seq: 2, kind: 0, v: i64p(2), s: "l3"}, {key: 3, seq: 3, kind: 0, v: i64p(4), s: "l3"}, {key: 4, seq: 4, kind: 0, v: i64p(7), s: "l3"}},
	}
	got := mergeLeveled(t, agg, true, levels, rows)
	want := []string{
		"1 9 +I 1 113 l0b", // 3 (level 1) + 10 + 100; level 3's 2 dropped
		"2 8 +I 2 1 x",
		"3 6 +I 3 4 l1", // level 1 alone, merged: the aggregate's kind is +I
		"4 4 +I 4 7 l3",
	}
	if !slices.Equal(got, want) {
		t.Errorf("lookup merge:\n got %v\nwant %v", got, want)
	}
	plain := mergeLeveled(t, agg, false, levels, rows)
	if want := []string{"1 9 +I 1 115 l0b", "2 8 +I 2 1 x", "3 6 +I 3 8 l1", "4 4 +I 4 7 l3"}; !slices.Equal(plain, want) {
		t.Errorf("plain merge:\n got %v\nwant %v", plain, want)
	}
	// Records not written yet (level -1) count as level 0.
	got = mergeLeveled(t, agg, true, []int{-1, 2, 4}, [][]kvRow{
		{{key: 1, seq: 9, kind: 0, v: i64p(1), s: "new"}},
		{{key: 1, seq: 5, kind: 0, v: i64p(20)}},
		{{key: 1, seq: 2, kind: 0, v: i64p(300)}},
	})
	if want := []string{"1 9 +I 1 21 new"}; !slices.Equal(got, want) {
		t.Errorf("level -1:\n got %v\nwant %v", got, want)
	}
}

// Random leveled runs against the model applied to the records the lookup
// keeps (every level-0 record and each key's lowest-level record above 0).
func TestLookupRandomAgainstModel(t *testing.T) {
	rng := rand.New(rand.NewPCG(3, 4))
	engines := []map[string]string{
		nil,
		{"merge-engine": "aggregation", "fields.v.aggregate-function": "sum", "fields.s.aggregate-function": "last_value"},
		{"merge-engine": "partial-update", "partial-update.remove-record-on-delete": "true"},
	}
	for iter := range 200 {
		options := engines[iter%len(engines)]
		nruns := 1 + rng.IntN(6)
		seq := int64(0)
		levels := make([]int, nruns)
		rows := make([][]kvRow, nruns)
		// deeper levels hold older records: build from the deepest run up
		for i := nruns - 1; i >= 0; i-- {
			if rng.IntN(2) == 0 {
				levels[i] = 0
			} else {
				levels[i] = i + 1 // distinct levels above 0
			}
			key := int64(rng.IntN(4))
			for range rng.IntN(20) {
				if levels[i] == 0 {
					key += int64(rng.IntN(3))
				} else {
					key += 1 + int64(rng.IntN(2)) // a key once per level
				}
				seq++
				r := kvRow{key: key, seq: seq, kind: int8(rng.IntN(2) * 2), s: fmt.Sprint("s", seq)}
				if rng.IntN(4) > 0 {
					r.v = i64p(int64(rng.IntN(100)))
				}
				rows[i] = append(rows[i], r)
			}
		}
		var kept []kvRow
		count := map[int64]int{}
		for i, rs := range rows {
			for _, r := range rs {
				count[r.key]++
				if levels[i] <= 0 || lowestLevel(levels, rows, r.key) == levels[i] {
					kept = append(kept, r)
				}
			}
		}
		mergeOne := map[int64]bool{}
		for k, n := range count {
			mergeOne[k] = n > 1
		}
		want := modelMerging(options, kept, mergeOne)
		got := mergeLeveled(t, options, true, levels, rows)
		// A key of several records left with one is merged: its kind
		// becomes the merge function's.
		if !slices.Equal(got, want) {
			t.Fatalf("iteration %d (%v, levels %v):\n got %v\nwant %v", iter, options, levels, got, want)
		}
	}
}

func lowestLevel(levels []int, rows [][]kvRow, key int64) int {
	low := -1
	for i, rs := range rows {
		if levels[i] <= 0 {
			continue
		}
		for _, r := range rs {
			if r.key == key && (low < 0 || levels[i] < low) {
				low = levels[i]
			}
		}
	}
	return low
}
