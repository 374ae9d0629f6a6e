package paimon_test

import (
	"context"
	"errors"
	"fmt"
	"math/rand/v2"
	"slices"
	"sync"
	"testing"

	"github.com/paimon-go/paimon"
	"github.com/paimon-go/paimon/compaction"
	"github.com/paimon-go/paimon/reader"
)

// TestLookupCacheCounts: a table's point lookups keep the data files they
// read (reader.LookupCache): looking the same key up again reads no file,
// a key outside a file's key range never touches it, a new commit's file is
// read once next to the kept ones, and a compaction's output replaces them.
// Bucket 1, so every key shares the bucket; files by commit: A = (1,10)
// (2,20) (3,30), B = (2,21), C = (1,11), then a full compaction D.
func TestLookupCacheCounts(t *testing.T) {
	ctx := context.Background()
	table := lookupTable(t, map[string]string{"bucket": "1"})
	lc := table.Cache().LookupFiles()
	check := func(step string, key int32, want []string, hits, misses int64, files int) {
		t.Helper()
		if got := lookupKN(t, table, key); !slices.Equal(got, want) {
			t.Errorf("%s: lookup %d = %v, want %v", step, key, got, want)
		}
		st := lc.Stats()
		if st.Hits != hits || st.Misses != misses || st.Files != files {
			t.Errorf("%s: hits %d misses %d files %d, want %d %d %d", step, st.Hits, st.Misses, st.Files, hits, misses, files)
		}
		if st.Bytes <= 0 || st.Bytes > st.MaxBytes || st.MaxBytes != reader.DefaultLookupCacheBytes {
			t.Errorf("%s: bytes %d of %d", step, st.Bytes, st.MaxBytes)
		}
	}
	commitKN(t, table, []int32{1, 2, 3}, []int64{10, 20, 30}, []int8{0, 0, 0})
	commitKN(t, table, []int32{2}, []int64{21}, []int8{0})
	check("first lookup reads A and B", 2, []string{"2 21"}, 0, 2, 2)
	check("again: both kept", 2, []string{"2 21"}, 2, 2, 2)
	check("key 1 is outside B's range", 1, []string{"1 10"}, 3, 2, 2)
	check("a miss by key range reads nothing", 9, nil, 3, 2, 2)
	commitKN(t, table, []int32{1}, []int64{11}, []int8{0})
	check("new file C read once", 1, []string{"1 11"}, 4, 3, 3)
	check("C kept", 1, []string{"1 11"}, 6, 3, 3)
	if _, err := compaction.Compact(ctx, table.FileIO(), table.Schema(), "u", compaction.Options{Full: true}); err != nil {
		t.Fatal(err)
	}
	check("the compaction's output read once", 3, []string{"3 30"}, 6, 4, 4)
	check("only the output is read", 1, []string{"1 11"}, 7, 4, 4)

	// The bound: shrinking evicts down to it; a file above a quarter of it
	// is read, not kept; 0 keeps nothing and reads nothing through it.
	lc.SetMaxBytes(1)
	if st := lc.Stats(); st.Files != 0 || st.Bytes != 0 || st.MaxBytes != 1 {
		t.Errorf("shrunk to 1 byte: %+v, want nothing kept", st)
	}
	if got := lookupKN(t, table, 2); !slices.Equal(got, []string{"2 21"}) {
		t.Errorf("1-byte cache: lookup 2 = %v", got)
	}
	if st := lc.Stats(); st.Hits != 7 || st.Misses != 5 || st.Files != 0 || st.Bytes != 0 {
		t.Errorf("1-byte cache: %+v, want one more miss and nothing kept", st)
	}
	lc.SetMaxBytes(0)
	if got := lookupKN(t, table, 3); !slices.Equal(got, []string{"3 30"}) {
		t.Errorf("no cache: lookup 3 = %v", got)
	}
	if st := lc.Stats(); st.Hits != 7 || st.Misses != 5 {
		t.Errorf("no cache: %+v, want no read through the cache", st)
	}
}

// TestLookupCacheMatchesScan: with the lookup cache on, every lookup after
// each of 40 random commits (upserts and deletes of keys 0..49, the
// writer's compactions on, one Table for the whole run) equals the full
// scan of the same snapshot, for each merge engine and with deletion
// vectors and lookup changelog, whose deletion vectors change the files'
// live rows from commit to commit. Keys are looked up one at a time and all
// 60 at once; 8 goroutines look keys up concurrently after each commit;
// Plan.Narrow of the unfiltered plan keeps the files a WithKeys plan keeps
// (checkNarrow).
func TestLookupCacheMatchesScan(t *testing.T) {
	for _, tc := range []struct {
		name string
		opts map[string]string
	}{
		{"deduplicate", nil},
		{"deletion vectors", map[string]string{"deletion-vectors.enabled": "true"}},
		{"lookup changelog", map[string]string{"changelog-producer": "lookup"}},
		{"aggregation", map[string]string{"merge-engine": "aggregation", "fields.n.aggregate-function": "sum", "aggregation.remove-record-on-delete": "true"}},
		{"first-row", map[string]string{"merge-engine": "first-row", "ignore-delete": "true"}},
		{"partial-update", map[string]string{"merge-engine": "partial-update", "partial-update.remove-record-on-delete": "true"}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			opts := map[string]string{"num-sorted-run.compaction-trigger": "3"}
			for k, v := range tc.opts {
				opts[k] = v
			}
			table := lookupTable(t, opts)
			rng := rand.New(rand.NewPCG(7, 11))
			all := make([]int32, 60)
			for i := range all {
				all[i] = int32(i)
			}
			for c := range 40 {
				n := 1 + rng.IntN(12)
				ks, ns, kinds := make([]int32, n), make([]int64, n), make([]int8, n)
				seen := map[int32]bool{}
				for i := range n {
					k := int32(rng.IntN(50))
					for seen[k] {
						k = int32(rng.IntN(50))
					}
					seen[k] = true
					ks[i], ns[i] = k, int64(c*100+i)
					if rng.IntN(5) == 0 {
						kinds[i] = 3 // -D
					}
				}
				commitKN(t, table, ks, ns, kinds)
				want := scanKN(t, table)
				if got := lookupKN(t, table, all...); !slices.Equal(got, want) {
					t.Fatalf("commit %d: lookup of every key %v, scan %v", c, got, want)
				}
				var single []string
				for _, k := range all {
					single = append(single, lookupKN(t, table, k)...)
				}
				slices.Sort(single)
				if !slices.Equal(single, want) {
					t.Fatalf("commit %d: single lookups %v, scan %v", c, single, want)
				}
				checkNarrow(t, table, all[:1], all[:7], all)
				var wg sync.WaitGroup
				errs := make([]error, 8)
				for g := range 8 {
					wg.Go(func() {
						got := lookupKNErr(table, all...)
						if !slices.Equal(got, want) {
							errs[g] = fmt.Errorf("goroutine %d: %v, scan %v", g, got, want)
						}
					})
				}
				wg.Wait()
				for _, err := range errs {
					if err != nil {
						t.Fatalf("commit %d: %v", c, err)
					}
				}
			}
			if st := table.Cache().LookupFiles().Stats(); st.Hits == 0 || st.Misses == 0 {
				t.Errorf("cache not used: %+v", st)
			}
		})
	}
}

// scanKN reads the whole table (no lookup cache) as sorted "k n" rows.
func scanKN(t *testing.T, table *paimon.Table) []string {
	t.Helper()
	p, err := table.NewScan().Plan(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	return planKN(t, p)
}

// planKN reads every split of p as sorted "k n" rows.
func planKN(t *testing.T, p *reader.Plan) []string {
	t.Helper()
	var out []string
	for rec, err := range p.Records(context.Background()) {
		if err != nil {
			t.Fatal(err)
		}
		out = append(out, knRows(rec)...)
		rec.Release()
	}
	slices.Sort(out)
	return out
}

// lookupKNErr is lookupKN for goroutines: errors come back as a row.
func lookupKNErr(table *paimon.Table, ks ...int32) []string {
	kb := intKeys(ks)
	defer kb.Release()
	rec, err := table.Lookup(context.Background(), kb)
	if err != nil {
		return []string{"error: " + err.Error()}
	}
	defer rec.Release()
	return slices.Sorted(slices.Values(knRows(rec)))
}

// checkNarrow: for each key set, Plan.Narrow of the table's unfiltered plan
// keeps exactly the splits and files a WithKeys plan of the same snapshot
// keeps, and reads the same rows.
func checkNarrow(t *testing.T, table *paimon.Table, keySets ...[]int32) {
	t.Helper()
	ctx := context.Background()
	base, err := table.NewScan().Plan(ctx)
	if err != nil {
		t.Fatal(err)
	}
	files := func(p *reader.Plan) []string {
		var out []string
		for _, sp := range p.Splits {
			for _, f := range sp.Files {
				out = append(out, fmt.Sprintf("%s/%s raw=%v", sp.BucketPath, f.FileName, sp.RawConvertible))
			}
		}
		slices.Sort(out)
		return out
	}
	for _, ks := range keySets {
		kb := intKeys(ks)
		n, err := base.Narrow(ctx, kb)
		if err != nil {
			t.Fatal(err)
		}
		w, err := table.NewScan(reader.WithKeys(kb), reader.WithSnapshot(base.Snapshot.ID)).Plan(ctx)
		if err != nil {
			t.Fatal(err)
		}
		if got, want := files(n), files(w); !slices.Equal(got, want) {
			t.Fatalf("narrowed to %d keys: files %v, WithKeys plan %v", len(ks), got, want)
		}
		if got, want := planKN(t, n), planKN(t, w); !slices.Equal(got, want) {
			t.Fatalf("narrowed to %d keys: rows %v, WithKeys plan %v", len(ks), got, want)
		}
		if _, err := n.Narrow(ctx, kb); !errors.Is(err, reader.ErrInvalidScan) {
			t.Fatalf("narrowing a narrowed plan: %v, want ErrInvalidScan", err)
		}
		kb.Release()
	}
}
