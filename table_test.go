package paimon_test

import (
	"context"
	"errors"
	"testing"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"
	"github.com/apache/arrow-go/v18/arrow/memory"

	"github.com/paimon-go/paimon"
	"github.com/paimon-go/paimon/catalog"
	"github.com/paimon-go/paimon/types"
)

// TestWriteCommitRead round-trips rows through the front door: create a
// primary-key table with the catalog, write two commits (the second updates
// and deletes), and read the merged state back.
func TestWriteCommitRead(t *testing.T) {
	ctx := context.Background()
	table := createTable(t, catalog.Schema{
		Fields:      []types.DataField{types.Field(0, "k", types.Int()), types.Field(1, "v", types.String())},
		PrimaryKeys: []string{"k"},
		Options:     map[string]string{"bucket": "2"},
	})

	schema := arrow.NewSchema([]arrow.Field{
		{Name: "k", Type: arrow.PrimitiveTypes.Int32},
		{Name: "v", Type: arrow.BinaryTypes.String, Nullable: true},
		{Name: "_ROW_KIND", Type: arrow.PrimitiveTypes.Int8},
	}, nil)
	batch := func(keys []int32, vals []string, kinds []int8) arrow.RecordBatch {
		b := array.NewRecordBuilder(memory.DefaultAllocator, schema)
		defer b.Release()
		b.Field(0).(*array.Int32Builder).AppendValues(keys, nil)
		b.Field(1).(*array.StringBuilder).AppendValues(vals, nil)
		b.Field(2).(*array.Int8Builder).AppendValues(kinds, nil)
		return b.NewRecordBatch()
	}
	commits := []arrow.RecordBatch{
		batch([]int32{1, 2, 3, 4}, []string{"a", "b", "c", "d"}, []int8{0, 0, 0, 0}),
		batch([]int32{2, 3, 5}, []string{"B", "c", "e"}, []int8{2, 3, 0}), // +U 2, -D 3, +I 5
	}
	for i, rec := range commits {
		w, err := table.NewWrite("test-user")
		if err != nil {
			t.Fatal(err)
		}
		if err := w.Write(ctx, rec); err != nil {
			t.Fatal(err)
		}
		rec.Release()
		msgs, err := w.PrepareCommit(ctx)
		if err != nil {
			t.Fatal(err)
		}
		if err := w.Close(); err != nil {
			t.Fatal(err)
		}
		c, err := table.NewCommit("test-user")
		if err != nil {
			t.Fatal(err)
		}
		defer c.Close()
		sid, err := c.Commit(ctx, int64(i+1), msgs)
		if err != nil {
			t.Fatal(err)
		}
		if sid != int64(i+1) {
			t.Fatalf("commit %d published snapshot %d", i+1, sid)
		}
		// A retried commit with the same identifier is a no-op.
		if again, err := c.Commit(ctx, int64(i+1), msgs); err != nil || again != sid {
			t.Fatalf("retried commit: snapshot %d, err %v; want %d, nil", again, err, sid)
		}
	}
	plan, err := table.NewScan().Plan(ctx)
	if err != nil {
		t.Fatal(err)
	}
	got := map[int32]string{}
	for rec, err := range plan.Records(ctx) {
		if err != nil {
			t.Fatal(err)
		}
		k := rec.Column(0).(*array.Int32)
		v := rec.Column(1).(*array.String)
		for i := range int(rec.NumRows()) {
			got[k.Value(i)] = v.Value(i)
		}
		rec.Release()
	}
	want := map[int32]string{1: "a", 2: "B", 4: "d", 5: "e"}
	if len(got) != len(want) {
		t.Fatalf("rows %v, want %v", got, want)
	}
	for k, v := range want {
		if got[k] != v {
			t.Fatalf("rows %v, want %v", got, want)
		}
	}
	if plan.Snapshot.ID != 2 || plan.Snapshot.CommitIdentifier != 2 || plan.Snapshot.TotalRecordCount != 7 {
		t.Fatalf("snapshot id %d identifier %d total %d; want 2, 2, 7", plan.Snapshot.ID, plan.Snapshot.CommitIdentifier, plan.Snapshot.TotalRecordCount)
	}

}

func TestOpenMissingTable(t *testing.T) {
	_, err := paimon.OpenTable(context.Background(), t.TempDir())
	if !errors.Is(err, paimon.ErrTableNotExist) {
		t.Fatalf("err = %v, want ErrTableNotExist", err)
	}
}
