package writer_test

import (
	"context"
	"errors"
	"fmt"
	"slices"
	"testing"

	"github.com/apache/arrow-go/v18/arrow"

	"github.com/paimon-go/paimon/catalog"
	"github.com/paimon-go/paimon/commit"
	"github.com/paimon-go/paimon/types"
	"github.com/paimon-go/paimon/writer"
)

// kvTransport is the layout of batches with given sequence numbers and
// kinds: _VALUE_KIND, _SEQUENCE_NUMBER, then the kvTable columns.
var kvTransport = []arrow.Field{
	{Name: writer.ValueKindColumn, Type: arrow.PrimitiveTypes.Int8},
	{Name: writer.SequenceNumberColumn, Type: arrow.PrimitiveTypes.Int64},
	{Name: "k", Type: arrow.PrimitiveTypes.Int64},
	{Name: "v", Type: arrow.BinaryTypes.String, Nullable: true},
}

func seqWrite(t *testing.T, tbl *catalog.Table) *writer.Write {
	t.Helper()
	w, err := writer.New(tbl.FileIO, tbl.Schema, "u",
		writer.WithSequenceColumn(writer.SequenceNumberColumn), writer.WithRowKindColumn(writer.ValueKindColumn))
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { w.Close() })
	return w
}

// commitSnapshot commits msgs as identifier and returns the snapshot id.
func commitSnapshot(t *testing.T, tbl *catalog.Table, identifier int64, msgs []commit.Message) int64 {
	t.Helper()
	c, err := commit.New(tbl.FileIO, tbl.Schema, "u")
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close()
	id, err := c.Commit(context.Background(), identifier, msgs)
	if err != nil {
		t.Fatal(err)
	}
	return id
}

// TestSequenceColumn writes rows with given sequence numbers: the level-0
// file carries exactly them, the record with the highest number of a key
// wins whatever the input order (10 beats 7, the -D at 15 beats the +I at
// 2), NextSequenceNumber is the highest plus one and a later Write without
// the column continues from there.
func TestSequenceColumn(t *testing.T) {
	ctx := context.Background()
	for _, order := range []string{"new first", "old first"} {
		t.Run(order, func(t *testing.T) {
			tbl := kvTable(t, nil)
			rows := [][]any{
				{int8(0), int64(10), int64(1), "new"}, {int8(0), int64(7), int64(1), "old"},
				{int8(0), int64(4), int64(2), "two"}, {int8(0), int64(20), int64(3), "three"},
				{int8(3), int64(15), int64(4), "gone"}, {int8(0), int64(2), int64(4), "four"},
			}
			if order == "old first" {
				rows[0], rows[1] = rows[1], rows[0]
				rows[4], rows[5] = rows[5], rows[4]
			}
			w := seqWrite(t, tbl)
			r := rec(t, kvTransport, rows...)
			defer r.Release()
			if err := w.Write(ctx, r); err != nil {
				t.Fatal(err)
			}
			msgs, err := w.PrepareCommit(ctx)
			if err != nil {
				t.Fatal(err)
			}
			id := commitSnapshot(t, tbl, 1, msgs)
			_, es := deltaEntries(t, tbl.FileIO, id)
			if len(es) != 1 {
				t.Fatalf("%d files, want 1", len(es))
			}
			f := es[0].File
			if f.MinSequenceNumber != 4 || f.MaxSequenceNumber != 20 || f.RowCount != 4 || *f.DeleteRowCount != 1 {
				t.Errorf("file: sequence %d..%d, %d rows, %d deletes; want 4..20, 4 rows (1@10 2@4 3@20 4@15), 1 delete",
					f.MinSequenceNumber, f.MaxSequenceNumber, f.RowCount, *f.DeleteRowCount)
			}
			equalRows(t, "rows", readRows(t, tbl.FileIO.URL()), sorted("1|new", "2|two", "3|three"))

			n, err := w.NextSequenceNumber(ctx, es[0].Partition, 0)
			if err != nil || n != 21 {
				t.Errorf("NextSequenceNumber = %d, %v; want 21", n, err)
			}
			b := rec(t, arrowFields(tbl.Schema), []any{int64(2), "two2"})
			id = writeCommit(t, tbl, "u", 2, b)
			_, es = deltaEntries(t, tbl.FileIO, id)
			if len(es) != 1 || es[0].File.MinSequenceNumber != 21 || es[0].File.MaxSequenceNumber != 21 {
				t.Errorf("later Write's files %+v, want one with sequence 21..21", es)
			}
			equalRows(t, "rows after the later Write", readRows(t, tbl.FileIO.URL()), sorted("1|new", "2|two2", "3|three"))
		})
	}
}

// TestSequenceColumnAcrossRuns: a key's records with given numbers in one
// batch and in different sorted runs (batches spilled one by one, or flushed
// as separate level-0 files) are merged by number, not by arrival; every
// file's range is that of the numbers in it.
func TestSequenceColumnAcrossRuns(t *testing.T) {
	ctx := context.Background()
	batches := [][][]any{
		{{int8(0), int64(10), int64(1), "new"}, {int8(0), int64(3), int64(2), "b3"}},
		{{int8(0), int64(7), int64(1), "old"}, {int8(0), int64(5), int64(2), "b5"}, {int8(0), int64(2), int64(2), "b2"}},
		{{int8(2), int64(1), int64(2), "b1"}, {int8(0), int64(6), int64(3), "c6"}},
	}
	for _, tc := range []struct {
		name   string
		opts   map[string]string
		ranges string // min..max of each level-0 file, sorted by min
		spills bool
	}{
		{"spilled", map[string]string{"write-buffer-size": "1 b"}, "[5..10]", true},
		{"flushed", map[string]string{"write-buffer-size": "1 b", "write-buffer-spillable": "false"}, "[1..6 3..10 5..7]", false},
		{"in memory", nil, "[5..10]", false},
	} {
		t.Run(tc.name, func(t *testing.T) {
			tbl := kvTable(t, tc.opts)
			w := seqWrite(t, tbl)
			for _, b := range batches {
				r := rec(t, kvTransport, b...)
				if err := w.Write(ctx, r); err != nil {
					t.Fatal(err)
				}
				r.Release()
			}
			if st := w.BufferStats(); (st.Spills > 0) != tc.spills {
				t.Errorf("buffer stats %+v", st)
			}
			msgs, err := w.PrepareCommit(ctx)
			if err != nil {
				t.Fatal(err)
			}
			_, es := deltaEntries(t, tbl.FileIO, commitSnapshot(t, tbl, 1, msgs))
			var ranges []string
			for _, e := range es {
				ranges = append(ranges, fmt.Sprintf("%d..%d", e.File.MinSequenceNumber, e.File.MaxSequenceNumber))
			}
			if got := fmt.Sprint(ranges); got != tc.ranges {
				t.Errorf("file sequence ranges %s, want %s", got, tc.ranges)
			}
			equalRows(t, "rows", readRows(t, tbl.FileIO.URL()), sorted("1|new", "2|b5", "3|c6"))
		})
	}
}

// TestSequenceColumnPartitioned: given numbers follow their rows into the
// partition-buckets Route names; each file's range is that of its rows.
func TestSequenceColumnPartitioned(t *testing.T) {
	ctx := context.Background()
	tbl := morTable(t)
	fs := append(arrowFields(tbl.Schema), arrow.Field{Name: "_SEQ", Type: arrow.PrimitiveTypes.Int64})
	var rows [][]any
	for i, r := range morBatch1 {
		rows = append(rows, append(slices.Clone(r[:4]), int64(100-i))) // row kind dropped
	}
	r := rec(t, fs, rows...)
	defer r.Release()
	w, err := writer.New(tbl.FileIO, tbl.Schema, "u", writer.WithSequenceColumn("_SEQ"))
	if err != nil {
		t.Fatal(err)
	}
	defer w.Close()
	if err := w.Write(ctx, r); err != nil {
		t.Fatal(err)
	}
	msgs, err := w.PrepareCommit(ctx)
	if err != nil {
		t.Fatal(err)
	}
	// Rows 0, 1 (partition 10, bucket 0): 100, 99; rows 2..6 (10, bucket
	// 1): 98..94; rows 7, 8 (20, bucket 0): 93, 92. Messages come ordered
	// by partition bytes, then bucket.
	var got []string
	for _, m := range msgs {
		for _, f := range m.Data.NewFiles {
			got = append(got, fmt.Sprintf("%d:%d..%d/%d", m.Bucket, f.MinSequenceNumber, f.MaxSequenceNumber, f.RowCount))
		}
	}
	if want := "[0:99..100/2 1:94..98/5 0:92..93/2]"; fmt.Sprint(got) != want {
		t.Errorf("files %v, want %s", got, want)
	}
}

// TestSequenceColumnErrors: an append table refuses the option; a batch
// without the column, with another type, with a null or a negative number
// is rejected before anything is written.
func TestSequenceColumnErrors(t *testing.T) {
	ctx := context.Background()
	app := newTable(t, "", catalog.Schema{Fields: []types.DataField{{Name: "a", Type: types.Int()}}})
	if _, err := writer.New(app.FileIO, app.Schema, "u", writer.WithSequenceColumn(writer.SequenceNumberColumn)); !errors.Is(err, writer.ErrSchemaMismatch) {
		t.Errorf("append table: New = %v, want ErrSchemaMismatch", err)
	}
	tbl := kvTable(t, nil)
	if _, err := writer.New(tbl.FileIO, tbl.Schema, "u", writer.WithSequenceColumn("v")); !errors.Is(err, writer.ErrSchemaMismatch) {
		t.Errorf("table column as sequence column: New = %v, want ErrSchemaMismatch", err)
	}
	w := seqWrite(t, tbl)
	seqI32 := []arrow.Field{kvTransport[0], {Name: writer.SequenceNumberColumn, Type: arrow.PrimitiveTypes.Int32}, kvTransport[2], kvTransport[3]}
	nullable := []arrow.Field{kvTransport[0], {Name: writer.SequenceNumberColumn, Type: arrow.PrimitiveTypes.Int64, Nullable: true}, kvTransport[2], kvTransport[3]}
	cases := []struct {
		name string
		rec  arrow.RecordBatch
		want error
	}{
		{"missing", rec(t, []arrow.Field{kvTransport[0], kvTransport[2], kvTransport[3]}, []any{int8(0), int64(1), "a"}), writer.ErrSchemaMismatch},
		{"int32", rec(t, seqI32, []any{int8(0), int32(1), int64(1), "a"}), writer.ErrSchemaMismatch},
		{"null", rec(t, nullable, []any{int8(0), int64(1), int64(1), "a"}, []any{int8(0), nil, int64(2), "b"}), writer.ErrNullViolation},
		{"negative", rec(t, kvTransport, []any{int8(0), int64(1), int64(1), "a"}, []any{int8(0), int64(-1), int64(2), "b"}), writer.ErrSequenceNumber},
	}
	for _, tc := range cases {
		if err := w.Write(ctx, tc.rec); !errors.Is(err, tc.want) {
			t.Errorf("%s: Write = %v, want %v", tc.name, err, tc.want)
		}
		if _, err := w.Route(ctx, tc.rec, false); !errors.Is(err, tc.want) {
			t.Errorf("%s: Route = %v, want %v", tc.name, err, tc.want)
		}
		tc.rec.Release()
	}
	if msgs, err := w.PrepareCommit(ctx); err != nil || len(msgs) != 0 {
		t.Errorf("PrepareCommit after rejected writes = %v, %v", msgs, err)
	}
}
