package merge_test

import (
	"context"
	"fmt"
	"log"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"
	"github.com/apache/arrow-go/v18/arrow/memory"

	"github.com/paimon-go/paimon/merge"
	"github.com/paimon-go/paimon/types"
)

// Merges two sorted runs of one bucket with the partial-update engine: the
// newer record (higher sequence number) of key 1 fills only the columns it
// sets, as merge-on-read and compaction do. Runs are in the key-value
// layout of data files: _KEY_ columns, _SEQUENCE_NUMBER, _VALUE_KIND, the
// value columns.
func Example() {
	fields := []types.DataField{types.Field(0, "k", types.Int().NotNull()), types.Field(1, "a", types.String()), types.Field(2, "b", types.String())}
	cfg, err := merge.NewConfig(map[string]string{"merge-engine": "partial-update"}, fields, []string{"k"})
	if err != nil {
		log.Fatal(err)
	}
	in := arrow.NewSchema([]arrow.Field{
		{Name: "_KEY_k", Type: arrow.PrimitiveTypes.Int32},
		{Name: merge.SequenceNumberColumn, Type: arrow.PrimitiveTypes.Int64},
		{Name: merge.ValueKindColumn, Type: arrow.PrimitiveTypes.Int8},
		{Name: "k", Type: arrow.PrimitiveTypes.Int32},
		{Name: "a", Type: arrow.BinaryTypes.String, Nullable: true},
		{Name: "b", Type: arrow.BinaryTypes.String, Nullable: true},
	}, nil)
	run := func(seq int64, keys []int32, a, b []string) merge.Run {
		rb := array.NewRecordBuilder(memory.DefaultAllocator, in)
		defer rb.Release()
		for i, k := range keys {
			rb.Field(0).(*array.Int32Builder).Append(k)
			rb.Field(1).(*array.Int64Builder).Append(seq + int64(i))
			rb.Field(2).(*array.Int8Builder).Append(0) // +I
			rb.Field(3).(*array.Int32Builder).Append(k)
			for c, v := range []string{a[i], b[i]} {
				if v == "" {
					rb.Field(4 + c).AppendNull()
				} else {
					rb.Field(4 + c).(*array.StringBuilder).Append(v)
				}
			}
		}
		return merge.RunOf(rb.NewRecordBatch())
	}
	older := run(1, []int32{1, 2}, []string{"x", "p"}, []string{"", "q"})
	newer := run(10, []int32{1}, []string{""}, []string{"y"})
	opts := merge.Options{KeyColumns: []int{0}, DropDeletes: true}
	for rec, err := range merge.Merge(context.Background(), cfg, in, []merge.Run{older, newer}, opts) {
		if err != nil {
			log.Fatal(err)
		}
		for i := range int(rec.NumRows()) {
			fmt.Println(rec.Column(0).ValueStr(i), rec.Column(1).ValueStr(i), rec.Column(2).ValueStr(i))
		}
		rec.Release()
	}
	// Output:
	// 1 x y
	// 2 p q
}
