package writer_test

import (
	"context"
	"errors"
	"fmt"
	"maps"
	"regexp"
	"strings"
	"testing"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/paimon-go/paimon/catalog"
	"github.com/paimon-go/paimon/commit"
	"github.com/paimon-go/paimon/row"
	"github.com/paimon-go/paimon/schema"
	"github.com/paimon-go/paimon/types"
	"github.com/paimon-go/paimon/writer"
)

// withOptions returns a copy of ts with the options set.
func withOptions(ts *schema.TableSchema, kv ...string) *schema.TableSchema {
	c := *ts
	c.Options = maps.Clone(ts.Options)
	for i := 0; i < len(kv); i += 2 {
		c.Options[kv[i]] = kv[i+1]
	}
	return &c
}

// writeCommitSchema is writeCommit with the schema ts given to the Write.
func writeCommitSchema(t *testing.T, tbl *catalog.Table, ts *schema.TableSchema, identifier int64, recs ...arrow.RecordBatch) {
	t.Helper()
	ctx := context.Background()
	w, err := writer.New(tbl.FileIO, ts, "u")
	if err != nil {
		t.Fatal(err)
	}
	defer w.Close()
	for _, r := range recs {
		if err := w.Write(ctx, r); err != nil {
			t.Fatal(err)
		}
		r.Release()
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
	if _, err := c.Commit(ctx, identifier, msgs); err != nil {
		t.Fatal(err)
	}
}

// intBucket is the bucket of the INT key id among n buckets (Java's
// default bucket function).
func intBucket(id int32, n int) int32 {
	return int32(row.Bucket(must(row.Encode([]types.DataType{types.Int()}, []any{id})), n))
}

// TestPostponeFixedBucketWrite: a batch write into a bucket = -2 table
// (postpone.batch-write-fixed-bucket = true by default) goes straight into
// real buckets, as Java's PostponeBatchWriteOperator: a partition without
// real-bucket files gets postpone.default-bucket-num buckets, one with
// files keeps their bucket count; each entry's _TOTAL_BUCKETS is the
// partition's count, the bucket is the bucket function over that count,
// files use the table's file.format, the Write does not compact, and the
// newest row of a key wins.
func TestPostponeFixedBucketWrite(t *testing.T) {
	tbl := newTable(t, "", catalog.Schema{
		Fields:        []types.DataField{{Name: "p", Type: types.Int()}, {Name: "id", Type: types.Int()}, {Name: "v", Type: types.String()}},
		PartitionKeys: []string{"p"},
		PrimaryKeys:   []string{"p", "id"},
		Options:       map[string]string{"bucket": "-2", "file.format": "avro", "postpone.default-bucket-num": "3"},
	})
	fs := arrowFields(tbl.Schema)
	var rows [][]any
	for id := int32(1); id <= 6; id++ {
		rows = append(rows, []any{int32(1), id, fmt.Sprint("a", id)})
	}
	rows = append(rows, []any{int32(2), int32(1), "b1"})
	writeCommit(t, tbl, "u", 1, rec(t, fs, rows...))
	check := func(id int64, want map[int32]int) {
		t.Helper()
		_, es := deltaEntries(t, tbl.FileIO, id)
		if len(es) == 0 {
			t.Fatalf("snapshot %d: no entries", id)
		}
		for _, e := range es {
			p := must(row.Decode([]types.DataType{types.Int()}, must(row.Deserialize(e.Partition))))[0].(int32)
			n, ok := want[p]
			if !ok {
				t.Errorf("snapshot %d: entry %s of partition %d", id, e.File.FileName, p)
				continue
			}
			if int(e.TotalBuckets) != n {
				t.Errorf("snapshot %d: %s total buckets %d, want %d", id, e.File.FileName, e.TotalBuckets, n)
			}
			if e.File.Level != 0 || !strings.HasSuffix(e.File.FileName, ".avro") {
				t.Errorf("snapshot %d: %s at level %d, want an avro file at level 0", id, e.File.FileName, e.File.Level)
			}
			// Every (trimmed) key of the file is in the file's bucket.
			lo := must(row.Decode([]types.DataType{types.Int()}, must(row.Deserialize(e.File.MinKey))))[0].(int32)
			hi := must(row.Decode([]types.DataType{types.Int()}, must(row.Deserialize(e.File.MaxKey))))[0].(int32)
			for _, k := range []int32{lo, hi} {
				if b := intBucket(k, n); b != e.Bucket {
					t.Errorf("snapshot %d: key %d in bucket %d, want %d", id, k, e.Bucket, b)
				}
			}
		}
	}
	check(1, map[int32]int{1: 3, 2: 3})

	// default-bucket-num changes: p=1 and p=2 keep 3 buckets, p=3 gets 2.
	ts := withOptions(tbl.Schema, "postpone.default-bucket-num", "2")
	writeCommitSchema(t, tbl, ts, 2, rec(t, fs,
		[]any{int32(1), int32(2), "x2"}, []any{int32(1), int32(7), "x7"}, []any{int32(2), int32(1), "y1"},
		[]any{int32(3), int32(1), "c1"}, []any{int32(3), int32(2), "c2"}, []any{int32(3), int32(3), "c3"}))
	check(2, map[int32]int{1: 3, 2: 3, 3: 2})
	equalRows(t, "rows", readRows(t, tbl.FileIO.URL()), sorted(
		"1|1|a1", "1|2|x2", "1|3|a3", "1|4|a4", "1|5|a5", "1|6|a6", "1|7|x7", "2|1|y1", "3|1|c1", "3|2|c2", "3|3|c3"))
}

// TestPostponeMixedBucketCounts: a partition whose real-bucket files have
// two bucket counts fails the next postpone write into it with
// ErrMixedBucketCounts naming the partition (Java's getKnownNumBuckets
// fails too), before anything is written.
func TestPostponeMixedBucketCounts(t *testing.T) {
	ctx := context.Background()
	tbl := newTable(t, "", catalog.Schema{
		Fields:        []types.DataField{{Name: "p", Type: types.Int()}, {Name: "id", Type: types.Int()}, {Name: "v", Type: types.String()}},
		PartitionKeys: []string{"p"},
		PrimaryKeys:   []string{"p", "id"},
		Options:       map[string]string{"bucket": "-2", "postpone.default-bucket-num": "4"},
	})
	fs := arrowFields(tbl.Schema)
	w, err := writer.New(tbl.FileIO, tbl.Schema, "u")
	if err != nil {
		t.Fatal(err)
	}
	r := rec(t, fs, []any{int32(1), int32(1), "a"}, []any{int32(1), int32(2), "b"}, []any{int32(1), int32(3), "c"})
	if err := w.Write(ctx, r); err != nil {
		t.Fatal(err)
	}
	r.Release()
	msgs, err := w.PrepareCommit(ctx)
	w.Close()
	if err != nil || len(msgs) < 2 {
		t.Fatalf("PrepareCommit = %d messages, %v; want 2 or more buckets", len(msgs), err)
	}
	msgs[0].TotalBuckets = 5 // as a rescale that left files of 5 buckets
	c, err := commit.New(tbl.FileIO, tbl.Schema, "u")
	if err != nil {
		t.Fatal(err)
	}
	if _, err := c.Commit(ctx, 1, msgs); err != nil {
		t.Fatal(err)
	}
	c.Close()

	w, err = writer.New(tbl.FileIO, tbl.Schema, "u")
	if err != nil {
		t.Fatal(err)
	}
	defer w.Close()
	r = rec(t, fs, []any{int32(1), int32(9), "z"})
	defer r.Release()
	err = w.Write(ctx, r)
	if !errors.Is(err, writer.ErrMixedBucketCounts) || !strings.Contains(err.Error(), `"p=1"`) {
		t.Fatalf("Write = %v, want ErrMixedBucketCounts naming p=1", err)
	}
	if msgs, err := w.PrepareCommit(ctx); err != nil || len(msgs) != 0 {
		t.Errorf("PrepareCommit after the failed write = %v, %v; want nothing", msgs, err)
	}
	// Another partition is written.
	r2 := rec(t, fs, []any{int32(2), int32(9), "z"})
	defer r2.Release()
	if err := w.Write(ctx, r2); err != nil {
		t.Fatal(err)
	}
}

// TestPostponeIntoBucketPostpone: with postpone.batch-write-fixed-bucket =
// false every row goes into bucket-postpone as Java's PostponeBucketWriter
// writes it (checked against a Java-written file of scenario
// scenario_postpone_fixed): Avro files named
// data--u-<commitUser>-s-<writeId>-w-<uuid>-<n>.avro, level 0, file source
// APPEND, _TOTAL_BUCKETS -2, sequence numbers -1, no value statistics,
// rows in arrival order (min key = first row's key, max key = last row's,
// duplicates and retractions kept), and batch reads do not see them.
func TestPostponeIntoBucketPostpone(t *testing.T) {
	tbl := newTable(t, "", catalog.Schema{
		Fields:        []types.DataField{{Name: "p", Type: types.Int()}, {Name: "id", Type: types.Int()}, {Name: "v", Type: types.String()}},
		PartitionKeys: []string{"p"},
		PrimaryKeys:   []string{"p", "id"},
		Options:       map[string]string{"bucket": "-2", "postpone.batch-write-fixed-bucket": "false"},
	})
	fs := append(arrowFields(tbl.Schema), rowKind)
	id := writeCommit(t, tbl, "u", 1, rec(t, fs,
		[]any{int32(1), int32(3), "a", int8(0)}, []any{int32(1), int32(1), "b", int8(0)},
		[]any{int32(2), int32(5), "c", int8(0)}, []any{int32(1), int32(3), "a2", int8(2)},
		[]any{int32(1), int32(1), nil, int8(3)}))
	_, es := deltaEntries(t, tbl.FileIO, id)
	if len(es) != 2 {
		t.Fatalf("%d entries, want 2 (one file per partition)", len(es))
	}
	name := regexp.MustCompile(`^data--u-u-s-[0-9]+-w-[0-9a-f-]{36}-0\.avro$`)
	type want struct {
		p, rows, deletes int64
		minKey, maxKey   int32
	}
	for i, w := range []want{{1, 4, 1, 3, 1}, {2, 1, 0, 5, 5}} {
		e := es[i]
		f := e.File
		p := must(row.Decode([]types.DataType{types.Int()}, must(row.Deserialize(e.Partition))))[0].(int32)
		lo := must(row.Decode([]types.DataType{types.Int()}, must(row.Deserialize(f.MinKey))))[0].(int32)
		hi := must(row.Decode([]types.DataType{types.Int()}, must(row.Deserialize(f.MaxKey))))[0].(int32)
		got := fmt.Sprintf("p=%d bucket=%d total=%d level=%d seq=%d..%d rows=%d deletes=%d keys=%d..%d source=%d statsCols=%v",
			p, e.Bucket, e.TotalBuckets, f.Level, f.MinSequenceNumber, f.MaxSequenceNumber, f.RowCount, *f.DeleteRowCount, lo, hi, *f.FileSource, fmt.Sprintf("%#v", f.ValueStatsCols))
		exp := fmt.Sprintf("p=%d bucket=-2 total=-2 level=0 seq=-1..-1 rows=%d deletes=%d keys=%d..%d source=0 statsCols=[]string{}",
			w.p, w.rows, w.deletes, w.minKey, w.maxKey)
		if got != exp {
			t.Errorf("entry %d:\n got %s\nwant %s", i, got, exp)
		}
		if !name.MatchString(f.FileName) {
			t.Errorf("file name %s does not match %s", f.FileName, name)
		}
		if ok, err := tbl.FileIO.Exists(context.Background(), fmt.Sprintf("p=%d/bucket-postpone/%s", w.p, f.FileName)); !ok || err != nil {
			t.Errorf("%s not in p=%d/bucket-postpone: %v", f.FileName, w.p, err)
		}
	}
	if got := readRows(t, tbl.FileIO.URL()); len(got) != 0 {
		t.Errorf("batch read = %q, want no rows (postpone files are invisible)", got)
	}
}

// TestPostponeDefaultBucketNumInvalid: a non-positive
// postpone.default-bucket-num fails New with schema.ErrInvalidOption.
func TestPostponeDefaultBucketNumInvalid(t *testing.T) {
	tbl := newTable(t, "", catalog.Schema{
		Fields:      []types.DataField{{Name: "id", Type: types.Int()}, {Name: "v", Type: types.String()}},
		PrimaryKeys: []string{"id"},
		Options:     map[string]string{"bucket": "-2"},
	})
	_, err := writer.New(tbl.FileIO, withOptions(tbl.Schema, "postpone.default-bucket-num", "0"), "u")
	if !errors.Is(err, schema.ErrInvalidOption) {
		t.Errorf("New = %v, want schema.ErrInvalidOption", err)
	}
}
