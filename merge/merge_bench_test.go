package merge

import (
	"context"
	"fmt"
	"testing"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"
	"github.com/apache/arrow-go/v18/arrow/memory"

	"github.com/paimon-go/paimon/types"
)

const (
	benchRuns       = 5
	benchRowsPerRun = 200_000
	benchBatchRows  = 8192
)

// benchInput builds benchRuns runs of benchRowsPerRun rows in kvSchema,
// cut into batches of benchBatchRows. key(run, i) gives the key of row i.
func benchInput(key func(run, i int) int64) [][]arrow.RecordBatch {
	runs := make([][]arrow.RecordBatch, benchRuns)
	seq := int64(0)
	for r := range benchRuns {
		b := array.NewRecordBuilder(memory.DefaultAllocator, kvSchema)
		for i := range benchRowsPerRun {
			k := key(r, i)
			seq++
			b.Field(0).(*array.Int64Builder).Append(k)
			b.Field(1).(*array.Int64Builder).Append(seq + int64(r)*benchRowsPerRun)
			b.Field(2).(*array.Int8Builder).Append(KindInsert)
			b.Field(3).(*array.Int64Builder).Append(k)
			b.Field(4).(*array.Int64Builder).Append(int64(i))
			b.Field(5).(*array.StringBuilder).Append(fmt.Sprintf("value-%d", i%1000))
			if (i+1)%benchBatchRows == 0 || i == benchRowsPerRun-1 {
				runs[r] = append(runs[r], b.NewRecordBatch())
			}
		}
		b.Release()
	}
	return runs
}

func benchMerge(b *testing.B, options map[string]string, key func(run, i int) int64) {
	input := benchInput(key)
	m, err := NewMerger(mustConfig(b, options), kvSchema, Options{KeyColumns: []int{0}, DropDeletes: true})
	if err != nil {
		b.Fatal(err)
	}
	b.ResetTimer()
	cpu0 := processCPU()
	out := 0
	for b.Loop() {
		runs := make([]Run, len(input))
		for r, batches := range input {
			for _, rec := range batches {
				rec.Retain()
			}
			runs[r] = RunOf(batches...)
		}
		out = 0
		for rec, err := range m.Merge(context.Background(), runs) {
			if err != nil {
				b.Fatal(err)
			}
			out += int(rec.NumRows())
			rec.Release()
		}
	}
	reportRows(b, cpu0)
	b.ReportMetric(float64(out), "out-rows")
}

// BenchmarkMergeDedupInterleaved: every key in exactly one run, consecutive
// keys in different runs (worst case for copying: no stretch longer than 1).
func BenchmarkMergeDedupInterleaved(b *testing.B) {
	benchMerge(b, nil, func(r, i int) int64 { return int64(i*benchRuns + r) })
}

// BenchmarkMergeDedupOverlap: all runs update the same keys (groups of 5).
func BenchmarkMergeDedupOverlap(b *testing.B) {
	benchMerge(b, nil, func(r, i int) int64 { return int64(i) })
}

// BenchmarkMergeDedupDisjoint: runs cover disjoint key ranges, like the files
// of one level (pass-through, zero-copy).
func BenchmarkMergeDedupDisjoint(b *testing.B) {
	benchMerge(b, nil, func(r, i int) int64 { return int64(r*benchRowsPerRun + i) })
}

// BenchmarkMergeDedupStretches: runs take turns in stretches of 100 keys
// (no key in two runs).
func BenchmarkMergeDedupStretches(b *testing.B) {
	benchMerge(b, nil, func(r, i int) int64 { return int64((i/100)*benchRuns*100 + r*100 + i%100) })
}

// BenchmarkMergeAggregationOverlap: sum over groups of 5 (computed rows).
func BenchmarkMergeAggregationOverlap(b *testing.B) {
	benchMerge(b, map[string]string{"merge-engine": "aggregation", "fields.v.aggregate-function": "sum"},
		func(r, i int) int64 { return int64(i) })
}

// BenchmarkMergePartialUpdateOverlap: partial update over groups of 5.
func BenchmarkMergePartialUpdateOverlap(b *testing.B) {
	benchMerge(b, map[string]string{"merge-engine": "partial-update"}, func(r, i int) int64 { return int64(i) })
}

// BenchmarkIterate is the baseline: visit every input record once, reading
// its key, sequence number, kind and value columns, without merging.
func BenchmarkIterate(b *testing.B) {
	input := benchInput(func(r, i int) int64 { return int64(i*benchRuns + r) })
	b.ResetTimer()
	cpu0 := processCPU()
	var sink int64
	for b.Loop() {
		for _, batches := range input {
			for _, rec := range batches {
				keys := rec.Column(0).(*array.Int64).Int64Values()
				seqs := rec.Column(1).(*array.Int64).Int64Values()
				kinds := rec.Column(2).(*array.Int8).Int8Values()
				vals := rec.Column(4).(*array.Int64).Int64Values()
				strs := rec.Column(5).(*array.String)
				for i := range keys {
					sink += keys[i] + seqs[i] + int64(kinds[i]) + vals[i] + int64(len(strs.Value(i)))
				}
			}
		}
	}
	reportRows(b, cpu0)
	if sink == 42 {
		b.Log(sink)
	}
}

// reportRows reports input rows per second of wall time and, where the
// platform tells, CPU nanoseconds per input row (robust on a busy machine).
func reportRows(b *testing.B, cpu0 int64) {
	rows := float64(benchRuns*benchRowsPerRun) * float64(b.N)
	b.ReportMetric(rows/b.Elapsed().Seconds(), "in-rows/s")
	if cpu := processCPU() - cpu0; cpu0 > 0 && cpu > 0 {
		b.ReportMetric(float64(cpu)/rows, "cpu-ns/row")
	}
}

// Composite-key benchmark: the shape of the reader's merge-on-read benchmark
// (flights keyed by origin STRING, destination STRING, date TIMESTAMP(6)),
// synthesised so the merge alone is measured. Every (origin, destination)
// pair has benchPairDates dates; run r holds, for every pair, the dates of a
// window of 3*benchHalfWindow dates starting at (2r-1)*benchHalfWindow, so
// consecutive runs share benchHalfWindow dates per pair (keys with two
// records) and the other dates of a window are in one run only (stretches of
// about benchHalfWindow records).
const (
	benchPairs      = 4000
	benchHalfWindow = 15
	benchPairDates  = 2 * benchRuns * benchHalfWindow
)

// compositeSchema is the KeyValue layout of the flights table.
var compositeSchema = arrow.NewSchema([]arrow.Field{
	{Name: "_KEY_origin", Type: arrow.BinaryTypes.String},
	{Name: "_KEY_destination", Type: arrow.BinaryTypes.String},
	{Name: "_KEY_date", Type: &arrow.TimestampType{Unit: arrow.Microsecond}},
	{Name: SequenceNumberColumn, Type: arrow.PrimitiveTypes.Int64},
	{Name: ValueKindColumn, Type: arrow.PrimitiveTypes.Int8},
	{Name: "date", Type: &arrow.TimestampType{Unit: arrow.Microsecond}},
	{Name: "delay", Type: arrow.PrimitiveTypes.Int64, Nullable: true},
	{Name: "distance", Type: arrow.PrimitiveTypes.Int64, Nullable: true},
	{Name: "origin", Type: arrow.BinaryTypes.String},
	{Name: "destination", Type: arrow.BinaryTypes.String},
}, nil)

// benchAirport is a three-letter code for n < 26^3.
func benchAirport(n int) string {
	return string([]byte{'A' + byte(n/676%26), 'A' + byte(n/26%26), 'A' + byte(n%26)})
}

// compositeInput builds the runs of the composite-key benchmark, in batches
// of benchBatchRows, and returns them with their total number of rows.
func compositeInput() ([][]arrow.RecordBatch, int) {
	runs := make([][]arrow.RecordBatch, benchRuns)
	total := 0
	for r := range benchRuns {
		b := array.NewRecordBuilder(memory.DefaultAllocator, compositeSchema)
		n := 0
		flush := func() {
			runs[r] = append(runs[r], b.NewRecordBatch())
			n = 0
		}
		for p := range benchPairs {
			origin, dest := benchAirport(p/60), benchAirport(p%60*7)
			for d := max(0, (2*r-1)*benchHalfWindow); d < min(benchPairDates, (2*r+2)*benchHalfWindow); d++ {
				date := arrow.Timestamp(int64(d) * 3_600_000_000)
				b.Field(0).(*array.StringBuilder).Append(origin)
				b.Field(1).(*array.StringBuilder).Append(dest)
				b.Field(2).(*array.TimestampBuilder).Append(date)
				b.Field(3).(*array.Int64Builder).Append(int64(r*benchPairs*benchPairDates + p*benchPairDates + d))
				b.Field(4).(*array.Int8Builder).Append(KindInsert)
				b.Field(5).(*array.TimestampBuilder).Append(date)
				b.Field(6).(*array.Int64Builder).Append(int64(p + d + r))
				b.Field(7).(*array.Int64Builder).Append(int64(p))
				b.Field(8).(*array.StringBuilder).Append(origin)
				b.Field(9).(*array.StringBuilder).Append(dest)
				total++
				if n++; n == benchBatchRows {
					flush()
				}
			}
		}
		if n > 0 {
			flush()
		}
		b.Release()
	}
	return runs, total
}

// BenchmarkMergeDedupCompositeKeys merges five overlapping runs keyed by
// (origin STRING, destination STRING, date TIMESTAMP(6)) with the dedupe
// engine, dropping deletes and outputting the value columns, as a
// merge-on-read of the flights table does. in-rows/s and cpu-ns/row count
// input rows.
func BenchmarkMergeDedupCompositeKeys(b *testing.B) {
	input, total := compositeInput()
	fields := []types.DataField{
		{ID: 0, Name: "date", Type: types.TimestampOf(6).NotNull()},
		{ID: 1, Name: "delay", Type: types.BigInt()},
		{ID: 2, Name: "distance", Type: types.BigInt()},
		{ID: 3, Name: "origin", Type: types.String().NotNull()},
		{ID: 4, Name: "destination", Type: types.String().NotNull()},
	}
	cfg, err := NewConfig(nil, fields, []string{"origin", "destination", "date"})
	if err != nil {
		b.Fatal(err)
	}
	m, err := NewMerger(cfg, compositeSchema, Options{KeyColumns: []int{0, 1, 2}, DropDeletes: true})
	if err != nil {
		b.Fatal(err)
	}
	b.ResetTimer()
	cpu0 := processCPU()
	out := 0
	for b.Loop() {
		runs := make([]Run, len(input))
		for r, batches := range input {
			for _, rec := range batches {
				rec.Retain()
			}
			runs[r] = RunOf(batches...)
		}
		out = 0
		for rec, err := range m.Merge(context.Background(), runs) {
			if err != nil {
				b.Fatal(err)
			}
			out += int(rec.NumRows())
			rec.Release()
		}
	}
	if want := benchPairs * benchPairDates; out != want {
		b.Fatalf("merged %d rows, want %d (one per key)", out, want)
	}
	rows := float64(total) * float64(b.N)
	b.ReportMetric(rows/b.Elapsed().Seconds(), "in-rows/s")
	if cpu := processCPU() - cpu0; cpu0 > 0 && cpu > 0 {
		b.ReportMetric(float64(cpu)/rows, "cpu-ns/row")
	}
}

// BenchmarkNormKeyEncode measures building the normalized keys of one batch
// of the composite-key benchmark (origin STRING, destination STRING, date
// TIMESTAMP(6)): the per-row price of making every later key comparison an
// integer comparison. ns/row is per batch row.
func BenchmarkNormKeyEncode(b *testing.B) {
	runs, _ := compositeInput()
	rec := runs[1][0]
	cls := []class{clsBytes, clsBytes, clsI64}
	keys := make([]colView, len(cls))
	for k := range cls {
		if err := keys[k].load(cls[k], rec.Column(k)); err != nil {
			b.Fatal(err)
		}
	}
	n := int(rec.NumRows())
	dst := normKeys{hi: make([]uint64, n), lo: make([]uint64, n)}
	var e keyEncoder
	for b.Loop() {
		e.encode(&dst, cls, keys)
	}
	b.ReportMetric(float64(b.Elapsed().Nanoseconds())/float64(b.N)/float64(n), "ns/row")
	if dst.partial != nil {
		b.Fatal("flights keys should all be whole")
	}
}
