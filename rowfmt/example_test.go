package rowfmt_test

import (
	"log"
	"os"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"
	"github.com/apache/arrow-go/v18/arrow/memory"

	"github.com/paimon-go/paimon/rowfmt"
)

// Prints an Arrow batch as JSON Lines and as CSV, the CLI's output forms.
func Example() {
	b := array.NewRecordBuilder(memory.DefaultAllocator, arrow.NewSchema([]arrow.Field{
		{Name: "id", Type: arrow.PrimitiveTypes.Int64}, {Name: "city", Type: arrow.BinaryTypes.String, Nullable: true}}, nil))
	b.Field(0).(*array.Int64Builder).AppendValues([]int64{1, 2}, nil)
	b.Field(1).(*array.StringBuilder).AppendValues([]string{"Oslo", ""}, []bool{true, false})
	rec := b.NewRecordBatch()
	b.Release()
	defer rec.Release()
	for _, f := range []rowfmt.Format{rowfmt.JSONL, rowfmt.CSV} {
		w, err := rowfmt.NewWriter(os.Stdout, f, nil)
		if err != nil {
			log.Fatal(err)
		}
		if err := w.Write(rec); err != nil {
			log.Fatal(err)
		}
		if err := w.Close(); err != nil {
			log.Fatal(err)
		}
	}
	// Output:
	// {"id":1,"city":"Oslo"}
	// {"id":2,"city":null}
	// id,city
	// 1,Oslo
	// 2,
}
