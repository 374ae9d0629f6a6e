package writer

import (
	"context"
	"testing"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"
	"github.com/apache/arrow-go/v18/arrow/memory"

	"github.com/paimon-go/paimon/catalog"
	"github.com/paimon-go/paimon/types"
)

// TestSequenceColumnCounter: the bucket's own counter continues after the
// highest given sequence number and never goes back.
func TestSequenceColumnCounter(t *testing.T) {
	ctx := context.Background()
	c, err := catalog.Open(ctx, "mem://")
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close()
	id := catalog.NewIdentifier("db", "t")
	if err := c.CreateDatabase(ctx, "db", true); err != nil {
		t.Fatal(err)
	}
	if err := c.CreateTable(ctx, id, catalog.Schema{
		Fields:      []types.DataField{{Name: "k", Type: types.BigInt().NotNull()}},
		PrimaryKeys: []string{"k"},
		Options:     map[string]string{"bucket": "1"},
	}, false); err != nil {
		t.Fatal(err)
	}
	tbl, err := c.GetTable(ctx, id)
	if err != nil {
		t.Fatal(err)
	}
	w, err := New(tbl.FileIO, tbl.Schema, "u", WithSequenceColumn("_S"))
	if err != nil {
		t.Fatal(err)
	}
	defer w.Close()
	sc := arrow.NewSchema([]arrow.Field{{Name: "k", Type: arrow.PrimitiveTypes.Int64}, {Name: "_S", Type: arrow.PrimitiveTypes.Int64}}, nil)
	for _, tc := range []struct {
		k, s []int64
		want int64
	}{
		{[]int64{1, 2}, []int64{10, 7}, 11},
		{[]int64{3}, []int64{4}, 11},
		{[]int64{1, 4}, []int64{11, 30}, 31},
	} {
		b := array.NewRecordBuilder(memory.DefaultAllocator, sc)
		b.Field(0).(*array.Int64Builder).AppendValues(tc.k, nil)
		b.Field(1).(*array.Int64Builder).AppendValues(tc.s, nil)
		r := b.NewRecordBatch()
		b.Release()
		err := w.Write(ctx, r)
		r.Release()
		if err != nil {
			t.Fatal(err)
		}
		if len(w.writers) != 1 {
			t.Fatalf("%d writers", len(w.writers))
		}
		for _, bw := range w.writers {
			if bw.seq != tc.want {
				t.Errorf("after seqs %v: counter %d, want %d", tc.s, bw.seq, tc.want)
			}
		}
	}
}
