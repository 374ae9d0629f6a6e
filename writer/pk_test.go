package writer_test

import (
	"bytes"
	"context"
	"fmt"
	"testing"

	"github.com/apache/arrow-go/v18/arrow"

	"github.com/paimon-go/paimon/catalog"
	"github.com/paimon-go/paimon/commit"
	"github.com/paimon-go/paimon/fileio"
	"github.com/paimon-go/paimon/types"
	"github.com/paimon-go/paimon/writer"
)

var rowKind = arrow.Field{Name: writer.DefaultRowKindColumn, Type: arrow.PrimitiveTypes.Int8}

const twoRoads = "Two roads diverged in a wood, and I took the one less traveled by, And that has made all the difference."

// TestPrimaryKeyMatchesJava replays the first two commits of the
// Java-written pk_table_scan_and_read_mor_parquet fixture with one Write (as
// Java's writer lives across checkpoints) and compares every manifest entry
// Java wrote with ours: bucket, total buckets, row count, sequence numbers,
// level, delete row count, min/max key and the key and value statistics
// bytes (truncate(16) value stats, truncate(128) key stats).
func TestPrimaryKeyMatchesJava(t *testing.T) {
	ctx := context.Background()
	java, err := fileio.Open(ctx, "../testdata/paimon-tables/pk_table_scan_and_read_mor_parquet")
	if err != nil {
		t.Fatal(err)
	}
	defer java.Close()
	tbl := newTable(t, "", catalog.Schema{
		Fields: []types.DataField{
			{Name: "f0", Type: types.String()},
			{Name: "f1", Type: types.Int()},
			{Name: "f2", Type: types.Int()},
			{Name: "f3", Type: types.Double()},
		},
		PartitionKeys: []string{"f1"},
		PrimaryKeys:   []string{"f0", "f1", "f2"},
		Options:       map[string]string{"bucket": "2", "bucket-key": "f2", "file.format": "parquet", "manifest.format": "avro"},
	})
	fs := arrowFields(tbl.Schema, rowKind)
	w, err := writer.New(tbl.FileIO, tbl.Schema, "u")
	if err != nil {
		t.Fatal(err)
	}
	defer w.Close()
	c, err := commit.New(tbl.FileIO, tbl.Schema, "u")
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close()
	batches := [][][]any{
		{
			{twoRoads, int32(10), int32(1), 11.0, int8(0)}, {"Alice", int32(10), int32(1), 11.1, int8(0)},
			{"Bob", int32(10), int32(0), 12.1, int8(0)}, {"Emily", int32(10), int32(0), 13.1, int8(0)},
			{"Tony", int32(10), int32(0), 14.1, int8(0)}, {"Alex", int32(10), int32(0), 16.1, int8(0)},
			{"David", int32(10), int32(0), 17.1, int8(0)}, {"Lucy", int32(20), int32(1), 14.1, int8(0)},
			{"Paul", int32(20), int32(1), 18.1, int8(0)},
		},
		{{"Tony", int32(10), int32(0), 14.1, int8(3)}, {"Alice", int32(10), int32(1), 19.1, int8(2)}},
	}
	for i, rows := range batches {
		r := rec(t, fs, rows...)
		if err := w.Write(ctx, r); err != nil {
			t.Fatal(err)
		}
		r.Release()
		msgs, err := w.PrepareCommit(ctx)
		if err != nil {
			t.Fatal(err)
		}
		if _, err := c.Commit(ctx, int64(i+1), msgs); err != nil {
			t.Fatal(err)
		}
	}
	for id := int64(1); id <= 2; id++ {
		js, je := deltaEntries(t, java, id)
		gs, ge := deltaEntries(t, tbl.FileIO, id)
		if js.TotalRecordCount != gs.TotalRecordCount || js.DeltaRecordCount != gs.DeltaRecordCount || gs.CommitKind != js.CommitKind {
			t.Errorf("snapshot %d: total %d delta %d kind %s, Java %d %d %s", id, gs.TotalRecordCount, gs.DeltaRecordCount, gs.CommitKind,
				js.TotalRecordCount, js.DeltaRecordCount, js.CommitKind)
		}
		if len(je) != len(ge) {
			t.Fatalf("snapshot %d: %d entries, Java %d", id, len(ge), len(je))
		}
		for i := range je {
			j, g := je[i], ge[i]
			jf, gf := j.File, g.File
			same := j.Kind == g.Kind && bytes.Equal(j.Partition, g.Partition) && j.Bucket == g.Bucket && j.TotalBuckets == g.TotalBuckets &&
				jf.RowCount == gf.RowCount && jf.MinSequenceNumber == gf.MinSequenceNumber && jf.MaxSequenceNumber == gf.MaxSequenceNumber &&
				jf.Level == gf.Level && *jf.DeleteRowCount == *gf.DeleteRowCount && *jf.FileSource == *gf.FileSource &&
				bytes.Equal(jf.MinKey, gf.MinKey) && bytes.Equal(jf.MaxKey, gf.MaxKey) &&
				fmt.Sprint(jf.KeyStats) == fmt.Sprint(gf.KeyStats) && fmt.Sprint(jf.ValueStats) == fmt.Sprint(gf.ValueStats) &&
				fmt.Sprint(jf.ValueStatsCols) == fmt.Sprint(gf.ValueStatsCols) && jf.SchemaID == gf.SchemaID
			if !same {
				t.Errorf("snapshot %d entry %d:\n got %+v\nJava %+v", id, i, g, j)
			}
		}
	}
	equalRows(t, "rows after 2 commits", readRows(t, tbl.FileIO.URL()), sorted(
		"Alex|10|0|16.1", "Alice|10|1|19.1", "Bob|10|0|12.1", "David|10|0|17.1", "Emily|10|0|13.1",
		"Lucy|20|1|14.1", "Paul|20|1|18.1", twoRoads+"|10|1|11"))
}

// TestPrimaryKeyDeduplicate commits updates and deletes over several
// commits, each with a new Write (restoring sequence numbers from the
// latest snapshot), including several records of one key in one buffer.
func TestPrimaryKeyDeduplicate(t *testing.T) {
	tbl := newTable(t, "", catalog.Schema{
		Fields: []types.DataField{
			{Name: "id", Type: types.Int()},
			{Name: "name", Type: types.String()},
			{Name: "v", Type: types.BigInt()},
		},
		PrimaryKeys: []string{"id"},
		Options:     map[string]string{"bucket": "2"},
	})
	fs := arrowFields(tbl.Schema, rowKind)
	writeCommit(t, tbl, "u", 1, rec(t, fs,
		[]any{int32(5), "e", int64(50), int8(0)}, []any{int32(1), "a", int64(10), int8(0)}, []any{int32(3), "c", int64(30), int8(0)},
		[]any{int32(2), "b", int64(20), int8(0)}, []any{int32(4), "d", int64(40), int8(0)}))
	writeCommit(t, tbl, "u", 2,
		rec(t, fs, []any{int32(2), "b2", int64(21), int8(2)}, []any{int32(3), "c", int64(30), int8(3)}, []any{int32(4), "d2", int64(41), int8(2)}),
		rec(t, fs, []any{int32(4), "d3", int64(42), int8(2)}, []any{int32(6), "f", int64(60), int8(0)}, []any{int32(4), "d4", int64(43), int8(2)}))
	equalRows(t, "after commit 2", readRows(t, tbl.FileIO.URL()), sorted("1|a|10", "2|b2|21", "4|d4|43", "5|e|50", "6|f|60"))
	writeCommit(t, tbl, "u", 3, rec(t, fs, []any{int32(6), nil, nil, int8(3)}, []any{int32(3), "c5", int64(35), int8(0)}, []any{int32(1), "a2", nil, int8(2)}))
	equalRows(t, "after commit 3", readRows(t, tbl.FileIO.URL()), sorted("1|a2|(null)", "2|b2|21", "3|c5|35", "4|d4|43", "5|e|50"))

	// Level-0 files of commit 2: the buffer merged key 4's three updates
	// into one record; sequence numbers continue above commit 1's in the
	// same bucket; -D rows count as deletes.
	_, e1 := deltaEntries(t, tbl.FileIO, 1)
	_, e2 := deltaEntries(t, tbl.FileIO, 2)
	maxSeq := map[int32]int64{}
	var rows1 int64
	for _, e := range e1 {
		maxSeq[e.Bucket] = e.File.MaxSequenceNumber
		rows1 += e.File.RowCount
	}
	var rows2, deletes2 int64
	for _, e := range e2 {
		if e.File.MinSequenceNumber != maxSeq[e.Bucket]+1 {
			t.Errorf("bucket %d: commit 2 starts at sequence %d, commit 1 ended at %d", e.Bucket, e.File.MinSequenceNumber, maxSeq[e.Bucket])
		}
		if e.File.Level != 0 || e.TotalBuckets != 2 {
			t.Errorf("entry %+v", e)
		}
		rows2 += e.File.RowCount
		deletes2 += *e.File.DeleteRowCount
	}
	if rows1 != 5 || rows2 != 4 || deletes2 != 1 {
		t.Errorf("commit 1 wrote %d rows, commit 2 %d rows with %d deletes; want 5, 4 (key 4 merged), 1", rows1, rows2, deletes2)
	}
}

// TestPrimaryKeyBufferFlush uses a tiny write-buffer-size without spilling
// so that every batch is flushed as a level-0 file, and checks the
// merge-on-read result.
func TestPrimaryKeyBufferFlush(t *testing.T) {
	tbl := newTable(t, "", catalog.Schema{
		Fields:      []types.DataField{{Name: "k", Type: types.BigInt()}, {Name: "v", Type: types.String()}},
		PrimaryKeys: []string{"k"},
		Options:     map[string]string{"bucket": "1", "write-buffer-size": "1 b", "write-buffer-spillable": "false"},
	})
	fs := arrowFields(tbl.Schema)
	var recs []arrow.RecordBatch
	for i := range 4 {
		recs = append(recs, rec(t, fs, []any{int64(1), fmt.Sprint("v", i)}, []any{int64(10 - i), "x"}))
	}
	writeCommit(t, tbl, "u", 1, recs...)
	_, es := deltaEntries(t, tbl.FileIO, 1)
	if len(es) != 4 {
		t.Errorf("%d level-0 files, want 4 (one per flushed buffer)", len(es))
	}
	equalRows(t, "rows", readRows(t, tbl.FileIO.URL()), sorted("1|v3", "10|x", "9|x", "8|x", "7|x"))
}
