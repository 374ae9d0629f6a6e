package compaction_test

import (
	"context"
	"strconv"
	"testing"

	"github.com/paimon-go/paimon/catalog"
	"github.com/paimon-go/paimon/commit"
	"github.com/paimon-go/paimon/compaction"
	"github.com/paimon-go/paimon/internal/flights"
	"github.com/paimon-go/paimon/internal/tabletest"
)

// Compaction throughput benchmark: a primary-key table (one bucket, key
// origin, destination, date) holding benchRows flights rows in five
// level-0 sorted runs of benchRows/5 rows each, fully compacted into level 5
// (one merge of five overlapping runs, merge engine deduplicate). Each
// iteration plans and executes the compaction on local disk and discards the
// output without committing, so every iteration compacts the same input.
// Reported: MB/s of input data files (b.SetBytes), rows/s of input, the
// bytes of the files written (out-bytes) and the process CPU time per
// compaction (cpu-ms/op, user + system, garbage collection included: on a
// shared machine steadier than the wall time).
//
//	go test -run '^$' -bench CompactFull -benchtime 3x ./compaction

const (
	benchRows = 500_000
	benchRuns = 5
)

func BenchmarkCompactFull(b *testing.B) {
	benchCompact(b, benchRows, 1, 1)
}

// BenchmarkCompact64Buckets is the small-file case of cmd/compactbench's
// memory phase at a fifth of its size: 600,000 flights rows in a table of
// 64 buckets (key origin, destination, date), five level-0 sorted runs per
// bucket of about 1,900 rows each (one commit per fifth of the rows, every
// commit covering all routes), fully compacted with parallelism 2. Each
// bucket's rewrite opens five small readers and one small output file, so
// the fixed costs of opening Parquet readers and writers dominate.
//
//	go test -run '^$' -bench Compact64Buckets -benchtime 3x -benchmem ./compaction
func BenchmarkCompact64Buckets(b *testing.B) {
	benchCompact(b, 600_000, 64, 2)
}

// benchCompact writes rows flights rows into a table of the given buckets
// in benchRuns commits and benchmarks a full compaction of it with the given
// parallelism (see BenchmarkCompactFull).
func benchCompact(b *testing.B, rows int64, buckets, parallelism int) {
	ctx := context.Background()
	batches, _ := flights.Batches(b, flights.Options{BatchRows: 20_000, MaxRows: rows})
	tbl := tabletest.NewTable(b, "", catalog.Schema{Fields: flights.Fields(),
		PrimaryKeys: []string{"origin", "destination", "date"},
		Options:     map[string]string{"bucket": strconv.Itoa(buckets), "write-only": "true"}})
	per := len(batches) / benchRuns
	for i := range benchRuns {
		part := batches[i*per : (i+1)*per]
		if i == benchRuns-1 {
			part = batches[i*per:]
		}
		if _, err := tabletest.Commit(ctx, tbl, "bench", commit.BatchIdentifier, part...); err != nil {
			b.Fatal(err)
		}
	}
	plan, err := compaction.NewPlan(ctx, tbl.FileIO, tbl.Schema, compaction.Options{Full: true, Parallelism: parallelism})
	if err != nil {
		b.Fatal(err)
	}
	if len(plan.Tasks) != buckets {
		b.Fatalf("plan: %d tasks, want %d", len(plan.Tasks), buckets)
	}
	var inBytes, inRows int64
	for _, t := range plan.Tasks {
		if len(t.Unit.Files) != benchRuns {
			b.Fatalf("plan: task of %d files, want %d", len(t.Unit.Files), benchRuns)
		}
		for _, f := range t.Unit.Files {
			inBytes += f.FileSize
			inRows += f.RowCount
		}
	}
	b.SetBytes(inBytes)
	var outBytes, cpu int64
	b.ResetTimer()
	for b.Loop() {
		c0 := processCPU()
		res, err := plan.Execute(ctx)
		if err != nil {
			b.Fatal(err)
		}
		cpu += processCPU() - c0
		b.StopTimer()
		outBytes = 0
		for _, m := range res.Messages {
			for _, f := range m.Compact.After {
				outBytes += f.FileSize
			}
		}
		if err := res.Discard(ctx, tbl.FileIO); err != nil {
			b.Fatal(err)
		}
		b.StartTimer()
	}
	b.ReportMetric(float64(inRows)*float64(b.N)/b.Elapsed().Seconds(), "rows/s")
	b.ReportMetric(float64(outBytes), "out-bytes")
	b.ReportMetric(float64(cpu)/1e6/float64(b.N), "cpu-ms/op")
}
