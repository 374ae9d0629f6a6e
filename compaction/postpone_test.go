package compaction_test

import (
	"context"
	"errors"
	"fmt"
	"maps"
	"slices"
	"strings"
	"sync"
	"testing"

	"github.com/paimon-go/paimon/catalog"
	"github.com/paimon-go/paimon/commit"
	"github.com/paimon-go/paimon/compaction"
	"github.com/paimon-go/paimon/fileio"
	"github.com/paimon-go/paimon/format"
	"github.com/paimon-go/paimon/internal/tabletest"
	"github.com/paimon-go/paimon/reader"
	prow "github.com/paimon-go/paimon/row"
	"github.com/paimon-go/paimon/snapshot"
	"github.com/paimon-go/paimon/types"
	"github.com/paimon-go/paimon/writer"
)

// postponeFields: partition p, key (p, k).
var postponeFields = []types.DataField{
	{Name: "p", Type: types.Int().NotNull()},
	{Name: "k", Type: types.Int().NotNull()},
	{Name: "v", Type: types.String()},
}

func newPostponeTable(t *testing.T, opts map[string]string) *catalog.Table {
	t.Helper()
	o := map[string]string{"bucket": "-2"}
	maps.Copy(o, opts)
	return tabletest.NewTable(t, "", catalog.Schema{Fields: postponeFields, PartitionKeys: []string{"p"}, PrimaryKeys: []string{"p", "k"}, Options: o})
}

// writePostpone commits rows (p, k, v, kind) with the table's options plus
// kv; into bucket-postpone unless kv says otherwise. Calls follow each
// other within milliseconds: files of equal creation times replay in commit
// order.
func writePostpone(t *testing.T, tbl *catalog.Table, rows [][]any, kv ...string) {
	t.Helper()
	ts := *tbl.Schema
	ts.Options = maps.Clone(ts.Options)
	ts.Options["postpone.batch-write-fixed-bucket"] = "false"
	for i := 0; i < len(kv); i += 2 {
		ts.Options[kv[i]] = kv[i+1]
	}
	ctx := context.Background()
	all := append(slices.Clone(postponeFields), types.DataField{Name: writer.DefaultRowKindColumn, Type: types.String()})
	rec := tabletest.Batch(t, types.SchemaToArrow(all), rows...)
	defer rec.Release()
	w, err := writer.New(tbl.FileIO, &ts, user)
	if err != nil {
		t.Fatal(err)
	}
	defer w.Close()
	if err := w.Write(ctx, rec); err != nil {
		t.Fatal(err)
	}
	msgs, err := w.PrepareCommit(ctx)
	if err != nil {
		t.Fatal(err)
	}
	c, err := commit.New(tbl.FileIO, tbl.Schema, user)
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close()
	if _, err := c.Commit(ctx, commit.BatchIdentifier, msgs); err != nil {
		t.Fatal(err)
	}
}

// liveEntries lists the live entries of the latest snapshot, postpone
// files included, as "p=<p> bucket=<b> total=<n> level=<l> rows=<r> seq=<lo>..<hi>"
// sorted, and checks that every key of a real-bucket file is in its bucket.
func liveEntries(t *testing.T, tbl *catalog.Table) []string {
	t.Helper()
	plan, err := reader.NewScan(tbl.FileIO, reader.WithAllLevels(), reader.WithPostponeFiles()).Plan(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	var out []string
	for _, sp := range plan.Splits {
		for _, f := range sp.Files {
			out = append(out, fmt.Sprintf("p=%v bucket=%d total=%d level=%d rows=%d seq=%d..%d",
				sp.PartitionValues[0], sp.Bucket, sp.TotalBuckets, f.Level, f.RowCount, f.MinSequenceNumber, f.MaxSequenceNumber))
			if sp.Bucket < 0 {
				continue
			}
			for _, kb := range [][]byte{f.MinKey, f.MaxKey} {
				k, err := prow.Decode([]types.DataType{types.Int()}, must(prow.Deserialize(kb)))
				if err != nil {
					t.Fatal(err)
				}
				if b := prow.Bucket(must(prow.Encode([]types.DataType{types.Int()}, k)), int(sp.TotalBuckets)); int32(b) != sp.Bucket {
					t.Errorf("%s/%s: key %v belongs in bucket %d", sp.BucketPath, f.FileName, k[0], b)
				}
			}
		}
	}
	slices.Sort(out)
	return out
}

func must[T any](v T, err error) T {
	if err != nil {
		panic(err)
	}
	return v
}

// bucketOf is the bucket of key k among n buckets.
func bucketOf(k int32, n int) int {
	return prow.Bucket(must(prow.Encode([]types.DataType{types.Int()}, []any{k})), n)
}

// TestPostponeCompaction: Compact of a bucket = -2 table routes the rows of
// bucket-postpone files into real buckets as Java's postpone compaction
// (Flink CompactAction): partition 1 keeps the 3 buckets of its real-bucket
// files, partition 2 (no real-bucket files) gets postpone.default-bucket-num
// = 2; files are replayed in creation order, so a later file's record of a
// key wins, a delete removes a real-bucket row, and a re-insert after a
// delete comes back; new files are level 0 with sequence numbers after the
// bucket's; the postpone files are deleted in the same COMPACT snapshot.
// A second Compact finds nothing.
func TestPostponeCompaction(t *testing.T) {
	tbl := newPostponeTable(t, map[string]string{"postpone.default-bucket-num": "2"})
	// Real buckets first: p=1 in 3 buckets (fixed-bucket batch write).
	writePostpone(t, tbl, [][]any{
		{int32(1), int32(1), "a1", "+I"}, {int32(1), int32(2), "a2", "+I"},
		{int32(1), int32(3), "a3", "+I"}, {int32(1), int32(4), "a4", "+I"},
	}, "postpone.batch-write-fixed-bucket", "true", "postpone.default-bucket-num", "3")
	writePostpone(t, tbl, [][]any{
		{int32(1), int32(1), "b1", "+I"}, {int32(1), int32(5), "b5", "+I"},
		{int32(1), int32(1), "b1x", "+U"}, {int32(1), int32(2), nil, "-D"},
		{int32(2), int32(7), "c7", "+I"}, {int32(2), int32(8), "c8", "+I"},
	})
	writePostpone(t, tbl, [][]any{
		{int32(1), int32(5), "c5", "+I"}, {int32(1), int32(2), "c2", "+I"},
		{int32(2), int32(8), nil, "-D"},
	})
	before := []string{"1|1|a1", "1|2|a2", "1|3|a3", "1|4|a4"}
	checkRows(t, tbl, before)
	pre := latest(t, tbl).ID
	id := compact(t, tbl, false)
	if id != pre+1 {
		t.Fatalf("Compact = %d, want snapshot %d", id, pre+1)
	}
	if s := latest(t, tbl); s.CommitKind != snapshot.KindCompact {
		t.Errorf("commit kind %s, want COMPACT", s.CommitKind)
	}
	checkRows(t, tbl, []string{"1|1|b1x", "1|2|c2", "1|3|a3", "1|4|a4", "1|5|c5", "2|7|c7"})
	// Time travel to before the compaction still shows the old rows.
	checkRows(t, tbl, before, reader.WithSnapshot(pre))

	// Expected files: snapshot 1's real files per bucket (seq 0.. in bucket
	// order of arrival), then one new level-0 file per bucket touched.
	got := liveEntries(t, tbl)
	for _, e := range got {
		if strings.Contains(e, "bucket=-2") {
			t.Errorf("postpone file still live: %s", e)
		}
	}
	// p=1 rows per bucket among 3: written keys 1..4 then replayed 1,5,1,2,5,2.
	var want []string
	count := map[int]int{}
	for k := int32(1); k <= 4; k++ {
		count[bucketOf(k, 3)]++
	}
	for b, n := range count {
		want = append(want, fmt.Sprintf("p=1 bucket=%d total=3 level=0 rows=%d seq=0..%d", b, n, n-1))
	}
	// Replayed records get sequence numbers after their bucket's highest,
	// in replay order; the merge keeps each key's last record.
	want = append(want, replayed(1, 3, []int32{1, 5, 1, 2, 5, 2}, count)...)
	// p=2: keys 7, 8 (8 deleted: its retraction stays in the level-0 file).
	want = append(want, replayed(2, 2, []int32{7, 8, 8}, nil)...)
	slices.Sort(want)
	if !slices.Equal(got, want) {
		t.Errorf("live files:\n got %q\nwant %q", got, want)
	}
	if id := compact(t, tbl, false); id != 0 {
		t.Errorf("second Compact = %d, want 0 (nothing to compact)", id)
	}
}

// replayed is the liveEntries form of the new files of partition p with n
// buckets for the replayed keys, given each bucket's number of earlier
// sequence numbers.
func replayed(p, n int, keys []int32, earlier map[int]int) []string {
	next := map[int]int64{}
	last := map[int]map[int32]int64{}
	for b, c := range earlier {
		next[b] = int64(c)
	}
	for _, k := range keys {
		b := bucketOf(k, n)
		if last[b] == nil {
			last[b] = map[int32]int64{}
		}
		last[b][k] = next[b]
		next[b]++
	}
	var out []string
	for b, ks := range last {
		lo, hi := int64(1<<62), int64(-1)
		for _, s := range ks {
			lo, hi = min(lo, s), max(hi, s)
		}
		out = append(out, fmt.Sprintf("p=%d bucket=%d total=%d level=0 rows=%d seq=%d..%d", p, b, n, len(ks), lo, hi))
	}
	return out
}

// TestPostponeCompactionPartitions: Options.Partitions restricts the
// postpone compaction; the other partition's postpone rows stay invisible
// until its own compaction.
func TestPostponeCompactionPartitions(t *testing.T) {
	tbl := newPostponeTable(t, nil)
	writePostpone(t, tbl, [][]any{{int32(1), int32(1), "x", "+I"}, {int32(2), int32(1), "y", "+I"}})
	ctx := context.Background()
	if _, err := compaction.Compact(ctx, tbl.FileIO, tbl.Schema, user, compaction.Options{Partitions: []commit.PartitionSpec{{"p": int32(2)}}}); err != nil {
		t.Fatal(err)
	}
	checkRows(t, tbl, []string{"2|1|y"})
	if _, err := compaction.Compact(ctx, tbl.FileIO, tbl.Schema, user, compaction.Options{}); err != nil {
		t.Fatal(err)
	}
	checkRows(t, tbl, []string{"1|1|x", "2|1|y"})
}

// TestPostponeCompactionConcurrent: two postpone compactions of the same
// files race; exactly one commits, the other fails with commit.ErrConflict
// and leaves no file behind; the rows are there once.
func TestPostponeCompactionConcurrent(t *testing.T) {
	tbl := newPostponeTable(t, map[string]string{"postpone.default-bucket-num": "2"})
	var rows [][]any
	for k := range int32(20) {
		rows = append(rows, []any{int32(1), k, fmt.Sprint("v", k), "+I"})
	}
	writePostpone(t, tbl, rows)
	ctx := context.Background()
	var wg sync.WaitGroup
	errs := make([]error, 2)
	ids := make([]int64, 2)
	start := make(chan struct{})
	for i := range 2 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			<-start
			ids[i], errs[i] = compaction.Compact(ctx, tbl.FileIO, tbl.Schema, fmt.Sprint(user, i), compaction.Options{})
		}()
	}
	close(start)
	wg.Wait()
	ok, conflicts := 0, 0
	for i, err := range errs {
		switch {
		case err == nil && ids[i] > 0:
			ok++
		case err == nil && ids[i] == 0:
			// Planned after the winner committed: nothing left.
			conflicts++
		case errors.Is(err, commit.ErrConflict):
			conflicts++
		default:
			t.Errorf("compaction %d: %v", i, err)
		}
	}
	if ok != 1 || conflicts != 1 {
		t.Fatalf("%d committed, %d lost (errors %v), want 1 and 1", ok, conflicts, errs)
	}
	var want []string
	for k := range 20 {
		want = append(want, fmt.Sprintf("1|%d|v%d", k, k))
	}
	slices.Sort(want)
	checkRows(t, tbl, want)
	// No data file outside the live ones (the loser deleted its files).
	live := map[string]bool{}
	plan, err := reader.NewScan(tbl.FileIO, reader.WithAllLevels()).Plan(ctx)
	if err != nil {
		t.Fatal(err)
	}
	for _, sp := range plan.Splits {
		for _, f := range sp.Files {
			live[sp.BucketPath+"/"+f.FileName] = true
		}
	}
	for _, b := range []string{"p=1/bucket-0", "p=1/bucket-1"} {
		infos, err := tbl.FileIO.List(ctx, b)
		if err != nil && !errors.Is(err, fileio.ErrNotExist) {
			t.Fatal(err)
		}
		for _, fi := range infos {
			if !live[fi.Path] {
				t.Errorf("left-over file %s", fi.Path)
			}
		}
	}
}

// TestPostponeCompactionBesideWriter: a postpone compaction's commit is not
// refused because a writer committed another bucket-postpone file with the
// same keys after the compaction read the bucket (all postpone files share
// sequence number -1; the new file is routed by the next compaction, after
// the compacted ones), and the rows come out in write order.
func TestPostponeCompactionBesideWriter(t *testing.T) {
	tbl := newPostponeTable(t, nil)
	ctx := context.Background()
	writePostpone(t, tbl, [][]any{{int32(1), int32(1), "old", "+I"}})
	plan, err := reader.NewScan(tbl.FileIO, reader.WithPostponeFiles()).Plan(ctx)
	if err != nil {
		t.Fatal(err)
	}
	if len(plan.Splits) != 1 || plan.Splits[0].Bucket != -2 {
		t.Fatalf("%d splits, want the one bucket-postpone split", len(plan.Splits))
	}
	first := plan.Splits[0]
	// A writer commits the same key after the compaction planned.
	writePostpone(t, tbl, [][]any{{int32(1), int32(1), "new", "+I"}})
	// The compaction's commit: the planned postpone file deleted (its row
	// routed elsewhere; here dropped, which the rows below would show).
	c, err := commit.New(tbl.FileIO, tbl.Schema, user)
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close()
	if _, err := c.Commit(ctx, commit.BatchIdentifier, []commit.Message{{
		Partition: first.Partition, Bucket: -2, TotalBuckets: -2,
		Compact: commit.CompactIncrement{Before: first.Files},
	}}); err != nil {
		t.Fatalf("postpone compaction commit beside a writer: %v", err)
	}
	compact(t, tbl, false)
	checkRows(t, tbl, []string{"1|1|new"})
}

// TestPostponeMergeOnRead: with postpone.merge-on-read = true (Java 2.x) a
// batch read routes the bucket-postpone rows into their real buckets and
// merges them, giving the rows a postpone compaction would give (also for a
// partition without real-bucket files and for buckets without files);
// time travel to before the postpone writes gives the old rows; after the
// compaction the read is unchanged. The default (false) keeps the postpone
// rows invisible.
func TestPostponeMergeOnRead(t *testing.T) {
	for _, mor := range []bool{true, false} {
		t.Run(fmt.Sprint("merge-on-read=", mor), func(t *testing.T) {
			tbl := newPostponeTable(t, map[string]string{"postpone.default-bucket-num": "2", "postpone.merge-on-read": fmt.Sprint(mor)})
			writePostpone(t, tbl, [][]any{
				{int32(1), int32(1), "a1", "+I"}, {int32(1), int32(2), "a2", "+I"},
				{int32(1), int32(3), "a3", "+I"}, {int32(1), int32(4), "a4", "+I"},
			}, "postpone.batch-write-fixed-bucket", "true", "postpone.default-bucket-num", "3")
			writePostpone(t, tbl, [][]any{
				{int32(1), int32(1), "b1", "+I"}, {int32(1), int32(5), "b5", "+I"},
				{int32(1), int32(1), "b1x", "+U"}, {int32(1), int32(2), nil, "-D"},
				{int32(2), int32(7), "c7", "+I"}, {int32(2), int32(8), "c8", "+I"},
			})
			writePostpone(t, tbl, [][]any{
				{int32(1), int32(5), "c5", "+I"}, {int32(1), int32(2), "c2", "+I"},
				{int32(2), int32(8), nil, "-D"},
			})
			merged := []string{"1|1|b1x", "1|2|c2", "1|3|a3", "1|4|a4", "1|5|c5", "2|7|c7"}
			base := []string{"1|1|a1", "1|2|a2", "1|3|a3", "1|4|a4"}
			if mor {
				checkRows(t, tbl, merged)
				checkRows(t, tbl, []string{"1|5|c5"}, reader.WithWhere("k = 5"))
			} else {
				checkRows(t, tbl, base)
			}
			checkRows(t, tbl, base, reader.WithSnapshot(1))
			compact(t, tbl, false)
			checkRows(t, tbl, merged)
		})
	}
}

// TestPostponeCorruptFile: a truncated bucket-postpone Avro file fails the
// postpone compaction and a merge-on-read read with format.ErrCorrupt
// naming the file, a missing one with fileio.ErrNotExist naming it; the
// compaction publishes nothing and leaves no file behind.
func TestPostponeCorruptFile(t *testing.T) {
	for _, damage := range []string{"truncated", "missing"} {
		t.Run(damage, func(t *testing.T) {
			tbl := newPostponeTable(t, map[string]string{"postpone.merge-on-read": "true"})
			ctx := context.Background()
			var rows [][]any
			for k := range int32(50) {
				rows = append(rows, []any{int32(1), k, fmt.Sprint("value-", k), "+I"})
			}
			writePostpone(t, tbl, rows)
			plan, err := reader.NewScan(tbl.FileIO, reader.WithPostponeFiles()).Plan(ctx)
			if err != nil {
				t.Fatal(err)
			}
			sp := plan.Splits[0]
			p := sp.BucketPath + "/" + sp.Files[0].FileName
			want := error(format.ErrCorrupt)
			if damage == "missing" {
				want = fileio.ErrNotExist
				if err := tbl.FileIO.Delete(ctx, p); err != nil {
					t.Fatal(err)
				}
			} else {
				data, err := tbl.FileIO.ReadFile(ctx, p)
				if err != nil {
					t.Fatal(err)
				}
				if err := tbl.FileIO.Delete(ctx, p); err != nil {
					t.Fatal(err)
				}
				if err := tbl.FileIO.WriteFile(ctx, p, data[:len(data)/2]); err != nil {
					t.Fatal(err)
				}
			}
			pre := latest(t, tbl).ID
			_, err = compaction.Compact(ctx, tbl.FileIO, tbl.Schema, user, compaction.Options{})
			if !errors.Is(err, want) || !strings.Contains(err.Error(), sp.Files[0].FileName) {
				t.Errorf("Compact = %v, want %v naming %s", err, want, sp.Files[0].FileName)
			}
			if id := latest(t, tbl).ID; id != pre {
				t.Errorf("snapshot %d published, want none after %d", id, pre)
			}
			for _, b := range []string{"p=1/bucket-0"} {
				if infos, _ := tbl.FileIO.List(ctx, b); len(infos) != 0 {
					t.Errorf("files left in %s: %v", b, infos)
				}
			}
			_, err = tabletest.Cat(ctx, tbl.FileIO.URL())
			if !errors.Is(err, want) || !strings.Contains(err.Error(), sp.Files[0].FileName) {
				t.Errorf("merge-on-read = %v, want %v naming %s", err, want, sp.Files[0].FileName)
			}
		})
	}
}
