package format_test

import (
	"context"
	"fmt"
	"log"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"
	"github.com/apache/arrow-go/v18/arrow/memory"

	"github.com/paimon-go/paimon/format"
)

// Take is the row selection the writers share: rows of a batch in any
// order, repeated or dropped (routing rows to buckets, sorting by key).
func ExampleTake() {
	b := array.NewRecordBuilder(memory.DefaultAllocator, arrow.NewSchema([]arrow.Field{{Name: "k", Type: arrow.PrimitiveTypes.Int64}}, nil))
	b.Field(0).(*array.Int64Builder).AppendValues([]int64{10, 20, 30}, nil)
	rec := b.NewRecordBatch()
	b.Release()
	defer rec.Release()
	out, err := format.Take(context.Background(), memory.DefaultAllocator, rec, []int32{2, 0, 2})
	if err != nil {
		log.Fatal(err)
	}
	defer out.Release()
	fmt.Println(out.Column(0))
	// Output:
	// [30 10 30]
}
