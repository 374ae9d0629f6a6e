package stream_test

import (
	"context"
	"slices"
	"testing"

	"github.com/apache/arrow-go/v18/arrow"

	"github.com/paimon-go/paimon/catalog"
	"github.com/paimon-go/paimon/commit"
	"github.com/paimon-go/paimon/internal/tabletest"
	"github.com/paimon-go/paimon/stream"
	"github.com/paimon-go/paimon/types"
)

// TestReaderSourcePrimaryKey: the follower over the real change read of a
// primary-key table without changelog producer: each APPEND snapshot's
// delta, with its row kinds, then the latest-full start.
func TestReaderSourcePrimaryKey(t *testing.T) {
	tbl := tabletest.NewTable(t, "", catalog.Schema{Fields: kvFields, PrimaryKeys: []string{"k"}, Options: map[string]string{"bucket": "1"}})
	in := arrow.NewSchema(append(types.SchemaToArrow(kvFields).Fields(), arrow.Field{Name: "_ROW_KIND", Type: arrow.BinaryTypes.String}), nil)
	commitRows := func(rows ...[]any) {
		r := tabletest.Batch(t, in, rows...)
		defer r.Release()
		tabletest.WriteCommit(t, tbl, "u", commit.BatchIdentifier, r)
	}
	commitRows([]any{int64(1), "a", "+I"}, []any{int64(2), "b", "+I"})
	commitRows([]any{int64(1), nil, "-D"}, []any{int64(2), "c", "+U"})
	src := &stream.ReaderSource{FIO: tbl.FileIO, Table: tbl.Schema}
	f := stream.New(tbl.FileIO, tbl.Schema, src, stream.Options{Mode: stream.ModeFromSnapshot, SnapshotID: 1, Interval: 5e6})
	got := take(t, f, 2)
	want := []string{"+I 1 a\n+I 2 b", "-D 1 (null)\n+U 2 c"}
	if !slices.Equal(got, want) {
		t.Fatalf("deltas\n got %q\nwant %q", got, want)
	}
	f = stream.New(tbl.FileIO, tbl.Schema, src, stream.Options{Interval: 5e6})
	if got := take(t, f, 1); !slices.Equal(got, []string{"full@2: +U 2 c"}) {
		t.Fatalf("latest-full: %q", got)
	}
	if sc := src.Schema(); sc.NumFields() != 3 || sc.Field(0).Name != "rowkind" || sc.Field(2).Name != "v" {
		t.Fatalf("Schema = %v", sc)
	}
}

// TestRecordReaderAppend: Records and RecordReader over an append table:
// latest-full, then a new snapshot's rows, with the projected column.
func TestRecordReaderAppend(t *testing.T) {
	tbl := tabletest.NewTable(t, "", catalog.Schema{Fields: kvFields})
	write(t, tbl, []any{int64(1), "a"})
	src := &stream.ReaderSource{FIO: tbl.FileIO, Table: tbl.Schema, Columns: []string{"v"}}
	f := stream.New(tbl.FileIO, tbl.Schema, src, stream.Options{Interval: 5e6})
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	rr := f.RecordReader(ctx)
	defer rr.Release()
	var rows []string
	for rr.Next() {
		b := rr.RecordBatch()
		if !b.Schema().Equal(rr.Schema()) {
			t.Fatalf("batch schema %v, reader schema %v", b.Schema(), rr.Schema())
		}
		for i := range int(b.NumRows()) {
			rows = append(rows, b.Column(0).ValueStr(i)+" "+b.Column(1).ValueStr(i))
		}
		if len(rows) == 1 {
			write(t, tbl, []any{int64(2), "b"}, []any{int64(3), "c"})
		}
		if len(rows) == 3 {
			cancel()
		}
	}
	if rr.Err() != nil {
		t.Fatal(rr.Err())
	}
	if want := []string{"+I a", "+I b", "+I c"}; !slices.Equal(rows, want) {
		t.Fatalf("rows %q, want %q", rows, want)
	}
}
