package compaction_test

import (
	"context"
	"errors"
	"io"
	"os"
	"testing"

	"github.com/apache/arrow-go/v18/arrow"

	"github.com/paimon-go/paimon/catalog"
	"github.com/paimon-go/paimon/commit"
	"github.com/paimon-go/paimon/compaction"
	"github.com/paimon-go/paimon/format"
	"github.com/paimon-go/paimon/format/parquet"
	"github.com/paimon-go/paimon/internal/tabletest"
	"github.com/paimon-go/paimon/types"
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
	benchFlightsPath = "../testdata/flights/flights-3m.parquet"
	benchRows        = 500_000
	benchRuns        = 5
)

var benchFlightsFields = []types.DataField{
	{ID: 0, Name: "date", Type: types.TimestampOf(6)},
	{ID: 1, Name: "delay", Type: types.BigInt()},
	{ID: 2, Name: "distance", Type: types.BigInt()},
	{ID: 3, Name: "origin", Type: types.String()},
	{ID: 4, Name: "destination", Type: types.String()},
}

type fileAt struct {
	*os.File
	size int64
}

func (f fileAt) Size() int64 { return f.size }

// loadFlights reads the first n rows of the flights data set as batches.
func loadFlights(b *testing.B, n int64) []arrow.RecordBatch {
	b.Helper()
	ctx := context.Background()
	f, err := os.Open(benchFlightsPath)
	if err != nil {
		b.Skipf("flights data: %v", err)
	}
	defer f.Close()
	st, err := f.Stat()
	if err != nil {
		b.Fatal(err)
	}
	rd, err := parquet.NewReader(ctx, fileAt{f, st.Size()}, benchFlightsPath, benchFlightsFields, format.ReadOptions{BatchSize: 20_000})
	if err != nil {
		b.Fatal(err)
	}
	defer rd.Close()
	var out []arrow.RecordBatch
	var rows int64
	for rows < n {
		batch, err := rd.Next(ctx)
		if errors.Is(err, io.EOF) {
			break
		}
		if err != nil {
			b.Fatal(err)
		}
		rec := batch.Record
		if rows+rec.NumRows() > n {
			s := rec.NewSlice(0, n-rows)
			rec.Release()
			rec = s
		}
		out = append(out, rec)
		rows += rec.NumRows()
	}
	return out
}

func BenchmarkCompactFull(b *testing.B) {
	ctx := context.Background()
	batches := loadFlights(b, benchRows)
	defer func() {
		for _, r := range batches {
			r.Release()
		}
	}()
	tbl := tabletest.NewTable(b, "", catalog.Schema{Fields: benchFlightsFields,
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
