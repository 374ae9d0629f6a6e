package compaction_test

import (
	"context"
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
// Reported: MB/s of input data files (b.SetBytes) and rows/s of input.
//
//	go test -run '^$' -bench CompactFull -benchtime 3x ./compaction

const (
	benchRows = 500_000
	benchRuns = 5
)

func BenchmarkCompactFull(b *testing.B) {
	ctx := context.Background()
	batches, _ := flights.Batches(b, flights.Options{BatchRows: 20_000, MaxRows: benchRows})
	tbl := tabletest.NewTable(b, "", catalog.Schema{Fields: flights.Fields(),
		PrimaryKeys: []string{"origin", "destination", "date"},
		Options:     map[string]string{"bucket": "1", "write-only": "true"}})
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
	plan, err := compaction.NewPlan(ctx, tbl.FileIO, tbl.Schema, compaction.Options{Full: true})
	if err != nil {
		b.Fatal(err)
	}
	if len(plan.Tasks) != 1 || len(plan.Tasks[0].Unit.Files) != benchRuns {
		b.Fatalf("plan: %d tasks", len(plan.Tasks))
	}
	var inBytes, inRows int64
	for _, f := range plan.Tasks[0].Unit.Files {
		inBytes += f.FileSize
		inRows += f.RowCount
	}
	b.SetBytes(inBytes)
	b.ResetTimer()
	for b.Loop() {
		res, err := plan.Execute(ctx)
		if err != nil {
			b.Fatal(err)
		}
		b.StopTimer()
		if err := res.Discard(ctx, tbl.FileIO); err != nil {
			b.Fatal(err)
		}
		b.StartTimer()
	}
	b.ReportMetric(float64(inRows)*float64(b.N)/b.Elapsed().Seconds(), "rows/s")
}
