package realtime_test

import (
	"context"
	"errors"
	"fmt"
	"maps"
	"math/rand/v2"
	"slices"
	"sync"
	"testing"

	"github.com/apache/arrow-go/v18/arrow"

	"github.com/paimon-go/paimon/compaction"
	"github.com/paimon-go/paimon/expire"
	"github.com/paimon-go/paimon/reader"
	"github.com/paimon-go/paimon/realtime"
)

// lookupRows looks keys (id, pt) up in rc and renders the rows.
func lookupRows(t *testing.T, lookup func(context.Context, arrow.RecordBatch, ...reader.Option) (arrow.RecordBatch, error), keys [][]any, opts ...reader.Option) []string {
	t.Helper()
	kb := batch(t, []arrow.Field{idField, ptField}, keys...)
	defer kb.Release()
	rec, err := lookup(context.Background(), kb, opts...)
	if err != nil {
		t.Fatal(err)
	}
	defer rec.Release()
	return recStrings(rec)
}

// TestLookup: point lookups on a real-time context see rows once their
// Write returned (memory merged with the committed files by the merge
// engine), and a missing key gives no row; the committed table's own
// lookup sees only what was committed.
func TestLookup(t *testing.T) {
	tbl := newFooTable(t, []string{"id", "pt"}, []string{"pt"}, map[string]string{"bucket": "2"})
	rc := newContext(t, tbl)
	w := newWrite(t, rc, "u")
	cm := newCommit(t, rc, "u")
	write(t, w, kindRows(t,
		[]any{int64(1), "one", "p0", "+I"},
		[]any{int64(2), "two", "p0", "+I"},
		[]any{int64(3), "three", "p1", "+I"}))
	keys := [][]any{{int64(1), "p0"}, {int64(3), "p1"}, {int64(3), "p0"}, {int64(9), "p1"}}
	equal(t, "memory", lookupRows(t, rc.Lookup, keys), []string{"1|one|p0", "3|three|p1"})
	id := commitProg(t, cm, prepare(t, w, 1), 1)
	refresh(t, rc, id)
	write(t, w, kindRows(t,
		[]any{int64(1), "uno", "p0", "+U"},
		[]any{int64(3), "three", "p1", "-D"},
		[]any{int64(9), "nine", "p1", "+I"}))
	equal(t, "union", lookupRows(t, rc.Lookup, keys), []string{"1|uno|p0", "9|nine|p1"})
	equal(t, "projected", lookupRows(t, rc.Lookup, keys[:1], reader.WithColumns("payload")), []string{"uno"})
	equal(t, "committed only", lookupRows(t, func(ctx context.Context, k arrow.RecordBatch, opts ...reader.Option) (arrow.RecordBatch, error) {
		return reader.NewScan(tbl.FileIO, opts...).Lookup(ctx, k)
	}, keys), []string{"1|one|p0", "3|three|p1"})
	// Keys that do not fit the table.
	for name, kb := range map[string]arrow.RecordBatch{
		"missing column": batch(t, []arrow.Field{idField}, []any{int64(1)}),
		"wrong type":     batch(t, []arrow.Field{{Name: "id", Type: arrow.BinaryTypes.String}, ptField}, []any{"1", "p0"}),
		"null key":       batch(t, []arrow.Field{idField, ptField}, []any{int64(1), nil}),
		"no key":         batch(t, []arrow.Field{idField, ptField}),
		"extra column":   batch(t, []arrow.Field{idField, ptField, payloadField}, []any{int64(1), "p0", "x"}),
	} {
		_, err := rc.Lookup(context.Background(), kb)
		kb.Release()
		if !errors.Is(err, reader.ErrInvalidScan) {
			t.Errorf("%s: %v, want ErrInvalidScan", name, err)
		}
	}
	// No key batch at all is refused, not read as the whole table.
	for _, opts := range [][]reader.Option{nil, {reader.WithColumns("payload")}} {
		if rec, err := rc.Lookup(context.Background(), nil, opts...); !errors.Is(err, reader.ErrInvalidScan) {
			t.Errorf("nil keys (options %d): %v rows, %v; want ErrInvalidScan", len(opts), rec, err)
		}
	}
}

// TestLookupMatchesUnion: over 36 rounds of random upserts and deletes
// (ids 0..14 in partitions p0 and p1, bucket 2), a commit every third
// round and a full compaction by another committer every seventh, followed
// by an expiration to one snapshot (so the lookup scan's kept disk plan
// names deleted files and is planned again), every key
// looked up at once, one at a time and from 4 goroutines through the
// context's lookup scan (Plan.Narrow of a kept disk plan) equals the union
// scan's rows of the same moment, for deduplicate, deletion vectors,
// first-row, lookup changelog, aggregation and partial-update.
func TestLookupMatchesUnion(t *testing.T) {
	for _, tc := range []struct {
		name string
		opts map[string]string
	}{
		{"deduplicate", nil},
		{"deletion vectors", map[string]string{"deletion-vectors.enabled": "true"}},
		{"first-row", map[string]string{"merge-engine": "first-row", "ignore-delete": "true"}},
		{"lookup changelog", map[string]string{"changelog-producer": "lookup"}},
		// Every version of a key counts: the memory rows of one lookup
		// gathered into one sorted run must merge as the stored batches do.
		{"aggregation", map[string]string{"merge-engine": "aggregation", "fields.payload.aggregate-function": "listagg", "ignore-delete": "true"}},
		{"partial-update", map[string]string{"merge-engine": "partial-update", "ignore-delete": "true"}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			opts := map[string]string{"bucket": "2"}
			maps.Copy(opts, tc.opts)
			tbl := newFooTable(t, []string{"id", "pt"}, []string{"pt"}, opts)
			rc := newContext(t, tbl)
			w := newWrite(t, rc, "u")
			cm := newCommit(t, rc, "u")
			rng := rand.New(rand.NewPCG(3, 5))
			var all [][]any
			for id := range int64(16) {
				for _, pt := range []string{"p0", "p1"} {
					all = append(all, []any{id, pt})
				}
			}
			ident := int64(0)
			for round := range 36 {
				var rows [][]any
				seen := map[string]bool{}
				for range 1 + rng.IntN(6) {
					id, pt := rng.Int64N(15), []string{"p0", "p1"}[rng.IntN(2)]
					if seen[fmt.Sprint(id, pt)] {
						continue
					}
					seen[fmt.Sprint(id, pt)] = true
					kind := "+I"
					if rng.IntN(4) == 0 {
						kind = "-D"
					}
					rows = append(rows, []any{id, fmt.Sprintf("r%d-%d", round, id), pt, kind})
				}
				write(t, w, kindRows(t, rows...))
				if round%3 == 2 {
					ident++
					refresh(t, rc, commitProg(t, cm, prepare(t, w, ident), ident))
				}
				if round%7 == 6 {
					if _, err := compaction.Compact(context.Background(), tbl.FileIO, tbl.Schema, "other", compaction.Options{Full: true}); err != nil {
						t.Fatal(err)
					}
					// Expiration deletes the files the lookup scan's kept
					// plan names: a lookup reading one plans again.
					if _, err := expire.Expire(context.Background(), tbl.FileIO, tbl.Schema, expire.Options{RetainMin: 1, RetainMax: 1}); err != nil {
						t.Fatal(err)
					}
				}
				want := sortedScan(t, rc)
				got := slices.Sorted(slices.Values(lookupRows(t, rc.Lookup, all)))
				equal(t, fmt.Sprintf("round %d: every key", round), got, want)
				var single []string
				for _, k := range all {
					single = append(single, lookupRows(t, rc.Lookup, [][]any{k})...)
				}
				slices.Sort(single)
				equal(t, fmt.Sprintf("round %d: one key at a time", round), single, want)
				var wg sync.WaitGroup
				res := make([][]string, 4)
				kb := batch(t, []arrow.Field{idField, ptField}, all...)
				for g := range res {
					wg.Go(func() {
						rec, err := rc.Lookup(context.Background(), kb)
						if err != nil {
							res[g] = []string{err.Error()}
							return
						}
						res[g] = slices.Sorted(slices.Values(recStrings(rec)))
						rec.Release()
					})
				}
				wg.Wait()
				kb.Release()
				for g, r := range res {
					equal(t, fmt.Sprintf("round %d: goroutine %d", round, g), r, want)
				}
			}
		})
	}
}

// TestFirstRowLevel0Visible: a first-row table whose committed rows stay
// in level-0 files (write-only = true: no compaction moves them up). Plain
// reads skip level 0 of first-row tables (Java), but the context no longer
// holds those rows in memory once it adopted their snapshot: union reads
// and lookups must read level 0 (on the old code both lost the committed
// rows after the refresh). The first row of each key wins.
func TestFirstRowLevel0Visible(t *testing.T) {
	tbl := newFooTable(t, []string{"id", "pt"}, []string{"pt"}, map[string]string{
		"bucket": "1", "merge-engine": "first-row", "ignore-delete": "true", "write-only": "true"})
	rc := newContext(t, tbl)
	w := newWrite(t, rc, "u")
	cm := newCommit(t, rc, "u")
	write(t, w, kindRows(t, []any{int64(1), "a", "p0", "+I"}, []any{int64(2), "b", "p0", "+I"}))
	refresh(t, rc, commitProg(t, cm, prepare(t, w, 1), 1))
	write(t, w, kindRows(t, []any{int64(1), "x", "p0", "+I"}, []any{int64(3), "c", "p0", "+I"}))
	want := []string{"1|a|p0", "2|b|p0", "3|c|p0"}
	equal(t, "union after the first commit", sortedScan(t, rc), want)
	keys := [][]any{{int64(1), "p0"}, {int64(2), "p0"}, {int64(3), "p0"}}
	equal(t, "lookup after the first commit", slices.Sorted(slices.Values(lookupRows(t, rc.Lookup, keys))), want)
	refresh(t, rc, commitProg(t, cm, prepare(t, w, 2), 2))
	equal(t, "union after the second commit", sortedScan(t, rc), want)
	equal(t, "lookup after the second commit", slices.Sorted(slices.Values(lookupRows(t, rc.Lookup, keys))), want)
	equal(t, "plain read (level 0 skipped, as Java)", diskRows(t, tbl), []string(nil))
}

// TestLookupBetweenCommitAndRefresh: a lookup after the context committed
// but before it adopted the new snapshot (RefreshCommittedSnapshot comes
// later, as in paimon serve) must not reuse the kept plan of the snapshot
// before (Plan refuses a snapshot below what the context committed while
// memory holds the rows in between: ErrRecreateContext; found by
// TestServeKill9 on MinIO).
func TestLookupBetweenCommitAndRefresh(t *testing.T) {
	tbl := newFooTable(t, []string{"id", "pt"}, []string{"pt"}, map[string]string{"bucket": "1"})
	rc := newContext(t, tbl)
	w := newWrite(t, rc, "u")
	cm := newCommit(t, rc, "u")
	write(t, w, kindRows(t, []any{int64(1), "a", "p0", "+I"}))
	refresh(t, rc, commitProg(t, cm, prepare(t, w, 1), 1))
	keys := [][]any{{int64(1), "p0"}, {int64(2), "p0"}}
	equal(t, "after the first commit", lookupRows(t, rc.Lookup, keys), []string{"1|a|p0"})
	write(t, w, kindRows(t, []any{int64(2), "b", "p0", "+I"}))
	commitProg(t, cm, prepare(t, w, 2), 2) // not adopted yet
	equal(t, "committed, not adopted", slices.Sorted(slices.Values(lookupRows(t, rc.Lookup, keys))), []string{"1|a|p0", "2|b|p0"})
	refresh(t, rc, 2)
	equal(t, "adopted", slices.Sorted(slices.Values(lookupRows(t, rc.Lookup, keys))), []string{"1|a|p0", "2|b|p0"})
}

// TestLookupWarmedAfterCommit: once the context's lookups ran, a commit
// reads the data files it added into the lookup cache before the context
// moves on to its snapshot, so the lookups after it decode no file; the
// rows they return are those of the commit, then those written after it.
func TestLookupWarmedAfterCommit(t *testing.T) {
	tbl := newFooTable(t, []string{"id", "pt"}, []string{"pt"}, map[string]string{"bucket": "2"})
	cache := reader.NewCache(reader.DefaultCacheBytes)
	rc := newContext(t, tbl, realtime.WithCache(cache))
	w := newWrite(t, rc, "u")
	cm := newCommit(t, rc, "u")
	keys := [][]any{{int64(1), "p0"}, {int64(2), "p0"}, {int64(3), "p1"}, {int64(4), "p1"}}
	// No lookup yet: the commit warms nothing.
	write(t, w, kindRows(t, []any{int64(1), "one", "p0", "+I"}, []any{int64(3), "three", "p1", "+I"}))
	refresh(t, rc, commitProg(t, cm, prepare(t, w, 1), 1))
	if st := cache.LookupFiles().Stats(); st.Misses != 0 || st.Files != 0 {
		t.Fatalf("before any lookup: cache %+v, want empty", st)
	}
	equal(t, "after commit 1", sortedRows(lookupRows(t, rc.Lookup, keys)), []string{"1|one|p0", "3|three|p1"})
	st := cache.LookupFiles().Stats()
	// The commit added files for the partitions p0 and p1 (their buckets).
	files1 := st.Files
	if files1 == 0 || st.Misses != int64(files1) {
		t.Fatalf("first lookup: cache %+v, want one miss per file", st)
	}
	// Commit 2 adds a file per touched bucket: warmed at the commit.
	write(t, w, kindRows(t, []any{int64(2), "two", "p0", "+I"}, []any{int64(4), "four", "p1", "+I"}, []any{int64(1), "uno", "p0", "+U"}))
	prog := prepare(t, w, 2)
	var added int
	for _, p := range prog {
		added += len(p.Message.Data.NewFiles)
	}
	id := commitProg(t, cm, prog, 2)
	warmed := cache.LookupFiles().Stats()
	// Their rows were offered by the flush (writer.WithWrittenRows): the
	// warming read none of the files.
	if warmed.Misses != st.Misses+int64(added) || warmed.Files != st.Files+added || warmed.OfferReads != int64(added) {
		t.Fatalf("after commit 2 (%d new files): cache %+v, was %+v", added, warmed, st)
	}
	refresh(t, rc, id)
	equal(t, "after commit 2", sortedRows(lookupRows(t, rc.Lookup, keys)), []string{"1|uno|p0", "2|two|p0", "3|three|p1", "4|four|p1"})
	if got := cache.LookupFiles().Stats(); got.Misses != warmed.Misses || got.Hits <= warmed.Hits {
		t.Errorf("lookup after the warmed commit: cache %+v, want no new miss (was %+v)", got, warmed)
	}
	// Rows written after the commit are merged from memory.
	write(t, w, kindRows(t, []any{int64(3), "tres", "p1", "+U"}))
	equal(t, "memory over warmed files", sortedRows(lookupRows(t, rc.Lookup, keys)), []string{"1|uno|p0", "2|two|p0", "3|tres|p1", "4|four|p1"})
}

func sortedRows(rows []string) []string {
	slices.Sort(rows)
	return rows
}
