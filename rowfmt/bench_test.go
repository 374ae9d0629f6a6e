package rowfmt

import (
	"io"
	"testing"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"
	"github.com/apache/arrow-go/v18/arrow/decimal128"
	"github.com/apache/arrow-go/v18/arrow/memory"
)

// BenchmarkJSONL measures JSONL rendering of a 4-column batch (string,
// bigint, decimal, timestamp) of 4096 rows; b.SetBytes counts rows.
func BenchmarkJSONL(b *testing.B) {
	schema := arrow.NewSchema([]arrow.Field{
		{Name: "name", Type: arrow.BinaryTypes.String},
		{Name: "id", Type: arrow.PrimitiveTypes.Int64},
		{Name: "amount", Type: &arrow.Decimal128Type{Precision: 23, Scale: 5}},
		{Name: "ts", Type: &arrow.TimestampType{Unit: arrow.Microsecond}},
	}, nil)
	rb := array.NewRecordBuilder(memory.DefaultAllocator, schema)
	defer rb.Release()
	const rows = 4096
	for i := range int64(rows) {
		rb.Field(0).(*array.StringBuilder).Append("customer-name")
		rb.Field(1).(*array.Int64Builder).Append(i * 7919)
		rb.Field(2).(*array.Decimal128Builder).Append(decimal128.FromI64(i * 100003))
		rb.Field(3).(*array.TimestampBuilder).Append(arrow.Timestamp(1_700_000_000_000_000 + i))
	}
	rec := rb.NewRecordBatch()
	defer rec.Release()
	b.SetBytes(rows)
	b.ResetTimer()
	for b.Loop() {
		w, _ := NewWriter(io.Discard, JSONL, nil)
		if err := w.Write(rec); err != nil {
			b.Fatal(err)
		}
	}
}
