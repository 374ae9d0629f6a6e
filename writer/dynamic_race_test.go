package writer_test

import (
	"context"
	"fmt"
	"math/rand/v2"
	"slices"
	"testing"

	"github.com/paimon-go/paimon/catalog"
	"github.com/paimon-go/paimon/commit"
	"github.com/paimon-go/paimon/manifest"
	"github.com/paimon-go/paimon/reader"
	"github.com/paimon-go/paimon/row"
	"github.com/paimon-go/paimon/snapshot"
	"github.com/paimon-go/paimon/types"
	"github.com/paimon-go/paimon/writer"
)

// keyBuckets returns, per id, the buckets of the live files holding a row
// of it (from the latest snapshot's plan, all levels).
func keyBuckets(t *testing.T, tbl *catalog.Table) map[int32][]int32 {
	t.Helper()
	ctx := context.Background()
	plan, err := reader.NewScan(tbl.FileIO, reader.WithAllLevels()).Plan(ctx)
	if err != nil {
		t.Fatal(err)
	}
	out := map[int32][]int32{}
	for _, sp := range plan.Splits {
		for rec, err := range plan.ReadSplit(ctx, sp) {
			if err != nil {
				t.Fatal(err)
			}
			ids := rec.Column(0).(interface{ Value(int) int32 })
			for i := range int(rec.NumRows()) {
				if !slices.Contains(out[ids.Value(i)], sp.Bucket) {
					out[ids.Value(i)] = append(out[ids.Value(i)], sp.Bucket)
				}
			}
			rec.Release()
		}
	}
	return out
}

// TestDynamicBucketTwoWriters: two Writes of one dynamic-bucket table
// start from the same (empty) table and assign key 3 to different buckets
// (the first fills bucket 0 with 1 and 2). The second commit finds the
// first's index files, moves its rows of key 3 into the bucket the first
// chose (re-sequenced after the first's), and commits the union of both
// indexes: every key in exactly one bucket, the last write of each key
// read. A third commit by the second Write, whose assignment still puts 3
// in bucket 0, is reconciled the same way.
func TestDynamicBucketTwoWriters(t *testing.T) {
	ctx := context.Background()
	tbl := newTable(t, "", catalog.Schema{
		Fields:      []types.DataField{{Name: "id", Type: types.Int()}, {Name: "v", Type: types.String()}},
		PrimaryKeys: []string{"id"},
		Options:     map[string]string{"bucket": "-1", "dynamic-bucket.target-row-num": "2"},
	})
	fs := arrowFields(tbl.Schema)
	open := func(user string) (*writer.Write, *commit.Committer) {
		w, err := writer.New(tbl.FileIO, tbl.Schema, user)
		if err != nil {
			t.Fatal(err)
		}
		t.Cleanup(func() { w.Close() })
		c, err := commit.New(tbl.FileIO, tbl.Schema, user)
		if err != nil {
			t.Fatal(err)
		}
		t.Cleanup(func() { c.Close() })
		return w, c
	}
	write := func(w *writer.Write, rows ...[]any) []commit.Message {
		r := rec(t, fs, rows...)
		defer r.Release()
		if err := w.Write(ctx, r); err != nil {
			t.Fatal(err)
		}
		msgs, err := w.PrepareCommit(ctx)
		if err != nil {
			t.Fatal(err)
		}
		return msgs
	}
	w1, c1 := open("one")
	w2, c2 := open("two")
	m1 := write(w1, []any{int32(1), "a1"}, []any{int32(2), "a2"}, []any{int32(3), "a3"})
	m2 := write(w2, []any{int32(3), "b3"}, []any{int32(4), "b4"})
	if _, err := c1.Commit(ctx, 1, m1); err != nil {
		t.Fatal(err)
	}
	if _, err := c2.Commit(ctx, 1, m2); err != nil {
		t.Fatal(err)
	}
	check := func(when string, rows []string) {
		t.Helper()
		equalRows(t, "rows "+when, readRows(t, tbl.FileIO.URL()), sorted(rows...))
		kb := keyBuckets(t, tbl)
		want := map[int32][]int32{1: {0}, 2: {0}, 3: {1}, 4: {0}}
		if fmt.Sprint(kb) != fmt.Sprint(want) {
			t.Errorf("buckets of keys %s: %v, want %v", when, kb, want)
		}
		idx := hashIndex(t, tbl, row.Serialize(row.EmptyRow()))
		wantIdx := map[int32][]int32{0: hashesOf(1, 2, 4), 1: hashesOf(3)}
		if fmt.Sprint(idx) != fmt.Sprint(wantIdx) {
			t.Errorf("index %s: %v, want %v", when, idx, wantIdx)
		}
	}
	check("after both commits", []string{"1|a1", "2|a2", "3|b3", "4|b4"})

	// The second Write still maps 3 to bucket 0.
	m2 = write(w2, []any{int32(3), "c3"}, []any{int32(4), "c4"})
	if _, err := c2.Commit(ctx, 2, m2); err != nil {
		t.Fatal(err)
	}
	check("after the third commit", []string{"1|a1", "2|a2", "3|c3", "4|c4"})
	// And the first Write goes on from its own view.
	m1 = write(w1, []any{int32(3), "d3"}, []any{int32(1), "d1"})
	if _, err := c1.Commit(ctx, 2, m1); err != nil {
		t.Fatal(err)
	}
	check("after the fourth commit", []string{"1|d1", "2|a2", "3|d3", "4|c4"})
}

// TestDynamicBucketOverwrite: an overwrite deletes the partition's index
// files, so a bucket the overwrite writes rows to must get a complete index
// file even when none of its keys is new: key 3 (bucket 1) survives the
// overwrite in its bucket, and a later write of it updates it there.
func TestDynamicBucketOverwrite(t *testing.T) {
	ctx := context.Background()
	tbl := newTable(t, "", catalog.Schema{
		Fields:      []types.DataField{{Name: "id", Type: types.Int()}, {Name: "v", Type: types.String()}},
		PrimaryKeys: []string{"id"},
		Options:     map[string]string{"bucket": "-1", "dynamic-bucket.target-row-num": "2"},
	})
	fs := arrowFields(tbl.Schema)
	writeCommit(t, tbl, "u", 1, rec(t, fs, []any{int32(1), "a"}, []any{int32(2), "a"}, []any{int32(3), "a"}, []any{int32(4), "a"}))
	w, err := writer.New(tbl.FileIO, tbl.Schema, "u")
	if err != nil {
		t.Fatal(err)
	}
	defer w.Close()
	r := rec(t, fs, []any{int32(3), "b"})
	defer r.Release()
	if err := w.Write(ctx, r); err != nil {
		t.Fatal(err)
	}
	msgs, err := w.PrepareCommit(ctx)
	if err != nil {
		t.Fatal(err)
	}
	c, err := commit.New(tbl.FileIO, tbl.Schema, "u")
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close()
	if _, err := c.OverwriteDynamic(ctx, 2, msgs); err != nil {
		t.Fatal(err)
	}
	writeCommit(t, tbl, "v", 1, rec(t, fs, []any{int32(3), "c"}, []any{int32(5), "c"}))
	equalRows(t, "rows", readRows(t, tbl.FileIO.URL()), sorted("3|c", "5|c"))
	if kb := keyBuckets(t, tbl); len(kb[3]) != 1 || kb[3][0] != 1 {
		t.Errorf("buckets of key 3: %v, want [1]", kb[3])
	}
}

// TestDynamicBucketConcurrentWriters: four Writes with their own
// committers commit at once, fifteen times each, into one dynamic-bucket
// table of two keys per bucket; every commit brings a new key that another
// writer brings too, so their assignments keep diverging. The rows read are
// the commits replayed in snapshot order (last write per key), every key
// lives in exactly one bucket and the index holds each key's hash in that
// bucket only.
func TestDynamicBucketConcurrentWriters(t *testing.T) {
	const writers, commits = 4, 15
	tbl, model, maxSeq, latest := writeConcurrently(t, "2", writers, commits, func(w, c int) []int32 {
		return []int32{int32(2*c + w%2), int32(100 + w), int32(2*c + (w+1)%2)}
	})
	kb := keyBuckets(t, tbl)
	idx := hashIndex(t, tbl, row.Serialize(row.EmptyRow()))
	where := map[int32][]int32{}
	for b, hs := range idx {
		for _, h := range hs {
			where[h] = append(where[h], b)
		}
	}
	for k := range model {
		if len(kb[k]) != 1 || fmt.Sprint(where[keyHash(k)]) != fmt.Sprint(kb[k]) {
			t.Errorf("key %d: rows in buckets %v, hash in buckets %v", k, kb[k], where[keyHash(k)])
		}
	}
	if len(where) != len(model) {
		t.Errorf("index holds %d hashes, %d keys", len(where), len(model))
	}
	// Sequence numbers grow by at most the rows and commits written.
	if bound := int64(writers*commits*3) + latest; maxSeq > bound {
		t.Errorf("highest sequence number %d, want at most rows + snapshots = %d", maxSeq, bound)
	}
}

// TestDynamicBucketSequenceGrowth: three writers commit overlapping random
// keys into a dynamic-bucket table whose buckets keep filling up, so keys
// move between young and old buckets at nearly every commit. Sequence
// numbers must stay within the rows and commits written (they doubled per
// commit and wrapped to negative numbers, after which newer rows lost to
// older ones), and the rows read must be the last write per key.
func TestDynamicBucketSequenceGrowth(t *testing.T) {
	const writers, commits, perCommit = 3, 25, 10
	_, _, maxSeq, latest := writeConcurrently(t, "20", writers, commits, func(w, c int) []int32 {
		r := rand.New(rand.NewPCG(uint64(w), uint64(c)))
		ks := make([]int32, perCommit)
		for i := range ks {
			ks[i] = int32(r.IntN(200))
		}
		return ks
	})
	if bound := int64(writers*commits*perCommit) + latest; maxSeq > bound {
		t.Errorf("highest sequence number %d, want at most rows + snapshots = %d", maxSeq, bound)
	}
}

// writeConcurrently creates a dynamic-bucket table (id INT key, v STRING)
// with dynamic-bucket.target-row-num = target, has writers goroutines
// commit commits times each (writer w's commit c writes keysOf(w, c) with
// value "w<w>-c<c>"), and checks that the rows read are the commits
// replayed in snapshot order (last write per key). It returns the table,
// that model, the highest sequence number any commit added and the latest
// snapshot id.
func writeConcurrently(t *testing.T, target string, writers, commits int, keysOf func(w, c int) []int32) (*catalog.Table, map[int32]string, int64, int64) {
	t.Helper()
	ctx := context.Background()
	tbl := newTable(t, "", catalog.Schema{
		Fields:      []types.DataField{{Name: "id", Type: types.Int()}, {Name: "v", Type: types.String()}},
		PrimaryKeys: []string{"id"},
		Options:     map[string]string{"bucket": "-1", "dynamic-bucket.target-row-num": target},
	})
	fs := arrowFields(tbl.Schema)
	errs := make(chan error, writers)
	for wi := range writers {
		go func() {
			errs <- func() error {
				user := fmt.Sprint("w", wi)
				w, err := writer.New(tbl.FileIO, tbl.Schema, user)
				if err != nil {
					return err
				}
				defer w.Close()
				c, err := commit.New(tbl.FileIO, tbl.Schema, user)
				if err != nil {
					return err
				}
				defer c.Close()
				for ci := range commits {
					var rows [][]any
					for _, k := range keysOf(wi, ci) {
						rows = append(rows, []any{k, fmt.Sprintf("w%d-c%d", wi, ci)})
					}
					r := rec(t, fs, rows...)
					err := w.Write(ctx, r)
					r.Release()
					if err != nil {
						return err
					}
					msgs, err := w.PrepareCommit(ctx)
					if err != nil {
						return err
					}
					if _, err := c.Commit(ctx, int64(ci+1), msgs); err != nil {
						return fmt.Errorf("%s commit %d: %w", user, ci+1, err)
					}
				}
				return nil
			}()
		}()
	}
	for range writers {
		if err := <-errs; err != nil {
			t.Fatal(err)
		}
	}
	// Serial replay in snapshot order.
	sm := snapshot.NewManager(tbl.FileIO)
	latest, err := sm.LatestID(ctx)
	if err != nil {
		t.Fatal(err)
	}
	model := map[int32]string{}
	var maxSeq int64
	for id := int64(1); id <= latest; id++ {
		s, entries := deltaEntries(t, tbl.FileIO, id)
		for _, e := range entries {
			if e.Kind == manifest.Add {
				maxSeq = max(maxSeq, e.File.MaxSequenceNumber)
			}
		}
		if s.CommitKind == snapshot.KindCompact {
			continue
		}
		var wi int
		if _, err := fmt.Sscanf(s.CommitUser, "w%d", &wi); err != nil {
			t.Fatal(err)
		}
		ci := int(s.CommitIdentifier) - 1
		for _, k := range keysOf(wi, ci) {
			model[k] = fmt.Sprintf("w%d-c%d", wi, ci)
		}
	}
	var want []string
	for k, v := range model {
		want = append(want, fmt.Sprintf("%d|%s", k, v))
	}
	equalRows(t, "rows", readRows(t, tbl.FileIO.URL()), sorted(want...))
	return tbl, model, maxSeq, latest
}

// TestDynamicBucketFormats: a dynamic-bucket table of Avro or ORC files
// written in several commits; from the second commit on the commit checks
// the earlier commit's index and may split files, which must be read in
// their own format (they were read as Parquet: "file is smaller than
// indicated metadata size").
func TestDynamicBucketFormats(t *testing.T) {
	ctx := context.Background()
	for _, ff := range []string{"avro", "orc", "parquet"} {
		t.Run(ff, func(t *testing.T) {
			tbl := newTable(t, "", catalog.Schema{
				Fields:      []types.DataField{{Name: "id", Type: types.Int()}, {Name: "v", Type: types.String()}},
				PrimaryKeys: []string{"id"},
				Options:     map[string]string{"bucket": "-1", "dynamic-bucket.target-row-num": "10", "file.format": ff},
			})
			fs := arrowFields(tbl.Schema)
			model := map[int32]string{}
			for ci, span := range [][2]int32{{0, 30}, {20, 50}, {5, 45}} {
				w, err := writer.New(tbl.FileIO, tbl.Schema, "u")
				if err != nil {
					t.Fatal(err)
				}
				c, err := commit.New(tbl.FileIO, tbl.Schema, "u")
				if err != nil {
					t.Fatal(err)
				}
				var rows [][]any
				for k := span[0]; k < span[1]; k++ {
					v := fmt.Sprintf("c%d", ci)
					rows = append(rows, []any{k, v})
					model[k] = v
				}
				r := rec(t, fs, rows...)
				err = w.Write(ctx, r)
				r.Release()
				if err != nil {
					t.Fatal(err)
				}
				msgs, err := w.PrepareCommit(ctx)
				if err != nil {
					t.Fatal(err)
				}
				if _, err := c.Commit(ctx, int64(ci+1), msgs); err != nil {
					t.Fatalf("commit %d: %v", ci+1, err)
				}
				c.Close()
				w.Close()
			}
			var want []string
			for k, v := range model {
				want = append(want, fmt.Sprintf("%d|%s", k, v))
			}
			equalRows(t, "rows", readRows(t, tbl.FileIO.URL()), sorted(want...))
		})
	}
}
