package merge

import (
	"context"
	"fmt"
	"testing"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"
	"github.com/apache/arrow-go/v18/arrow/memory"
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
