package merge

import (
	"context"
	"testing"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"
	"github.com/apache/arrow-go/v18/arrow/memory"

	"github.com/paimon-go/paimon/types"
)

// benchCollect merges 5 runs of 20,000 rows whose keys overlap in groups of
// 5, each row holding a 4-element ARRAY<BIGINT>, with collect (distinct
// when distinct is set): one materialised array value per merged key.
func benchCollect(b *testing.B, distinct bool) {
	const runsN, rows = 5, 20_000
	sc := arrow.NewSchema([]arrow.Field{
		{Name: "_KEY_k", Type: arrow.PrimitiveTypes.Int64},
		{Name: SequenceNumberColumn, Type: arrow.PrimitiveTypes.Int64},
		{Name: ValueKindColumn, Type: arrow.PrimitiveTypes.Int8},
		{Name: "k", Type: arrow.PrimitiveTypes.Int64},
		{Name: "c", Type: arrow.ListOf(arrow.PrimitiveTypes.Int64), Nullable: true},
	}, nil)
	fields := []types.DataField{
		{ID: 0, Name: "k", Type: types.DataType{Kind: types.KindBigInt}},
		{ID: 1, Name: "c", Type: types.DataType{Kind: types.KindArray, Nullable: true,
			Elem: &types.DataType{Kind: types.KindBigInt, Nullable: true}}},
	}
	opts := map[string]string{"merge-engine": "aggregation", "fields.c.aggregate-function": "collect"}
	if distinct {
		opts["fields.c.distinct"] = "true"
	}
	cfg, err := NewConfig(opts, fields, []string{"k"})
	if err != nil {
		b.Fatal(err)
	}
	input := make([][]arrow.RecordBatch, runsN)
	for r := range runsN {
		rb := array.NewRecordBuilder(memory.DefaultAllocator, sc)
		for i := range rows {
			rb.Field(0).(*array.Int64Builder).Append(int64(i))
			rb.Field(1).(*array.Int64Builder).Append(int64(r*rows + i))
			rb.Field(2).(*array.Int8Builder).Append(KindInsert)
			rb.Field(3).(*array.Int64Builder).Append(int64(i))
			lb := rb.Field(4).(*array.ListBuilder)
			lb.Append(true)
			for e := range 4 {
				lb.ValueBuilder().(*array.Int64Builder).Append(int64(i*8 + r + e))
			}
			if (i+1)%4096 == 0 || i == rows-1 {
				input[r] = append(input[r], rb.NewRecordBatch())
			}
		}
		rb.Release()
	}
	m, err := NewMerger(cfg, sc, Options{KeyColumns: []int{0}, DropDeletes: true})
	if err != nil {
		b.Fatal(err)
	}
	b.ResetTimer()
	cpu0 := processCPU()
	for b.Loop() {
		runs := make([]Run, runsN)
		for r, batches := range input {
			for _, rec := range batches {
				rec.Retain()
			}
			runs[r] = RunOf(batches...)
		}
		for rec, err := range m.Merge(context.Background(), runs) {
			if err != nil {
				b.Fatal(err)
			}
			rec.Release()
		}
	}
	in := float64(runsN*rows) * float64(b.N)
	b.ReportMetric(in/b.Elapsed().Seconds(), "in-rows/s")
	if cpu := processCPU() - cpu0; cpu0 > 0 && cpu > 0 {
		b.ReportMetric(float64(cpu)/in, "cpu-ns/row")
	}
}

func BenchmarkMergeCollect(b *testing.B)         { benchCollect(b, false) }
func BenchmarkMergeCollectDistinct(b *testing.B) { benchCollect(b, true) }
