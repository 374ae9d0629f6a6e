package writer_test

import (
	"context"
	"errors"
	"io"
	"os"
	"testing"

	"github.com/apache/arrow-go/v18/arrow"

	"github.com/paimon-go/paimon/catalog"
	"github.com/paimon-go/paimon/format"
	"github.com/paimon-go/paimon/format/parquet"
	"github.com/paimon-go/paimon/schema"
	"github.com/paimon-go/paimon/types"
	"github.com/paimon-go/paimon/writer"
)

const flightsPath = "../testdata/flights/flights-3m.parquet"

// flightsFields is the Paimon schema of the flights data set.
var flightsFields = []types.DataField{
	{ID: 0, Name: "date", Type: types.TimestampOf(6)},
	{ID: 1, Name: "delay", Type: types.BigInt()},
	{ID: 2, Name: "distance", Type: types.BigInt()},
	{ID: 3, Name: "origin", Type: types.String()},
	{ID: 4, Name: "destination", Type: types.String()},
}

// loadFlights reads the 3M-row flights file into memory, as batches of the
// table's Arrow schema.
func loadFlights(b testing.TB) ([]arrow.RecordBatch, int64) {
	b.Helper()
	ctx := context.Background()
	f, err := os.Open(flightsPath)
	if err != nil {
		b.Skipf("flights data: %v", err)
	}
	defer f.Close()
	st, _ := f.Stat()
	rd, err := parquet.NewReader(ctx, fileAt{f, st.Size()}, flightsPath, flightsFields, format.ReadOptions{BatchSize: 65536})
	if err != nil {
		b.Fatal(err)
	}
	defer rd.Close()
	var out []arrow.RecordBatch
	var rows int64
	for {
		batch, err := rd.Next(ctx)
		if errors.Is(err, io.EOF) {
			break
		}
		if err != nil {
			b.Fatal(err)
		}
		out = append(out, batch.Record)
		rows += batch.Record.NumRows()
	}
	return out, rows
}

type fileAt struct {
	*os.File
	size int64
}

func (f fileAt) Size() int64 { return f.size }

func benchTable(b *testing.B, s catalog.Schema) *catalog.Table {
	b.Helper()
	ctx := context.Background()
	c, err := catalog.Open(ctx, "mem://")
	if err != nil {
		b.Fatal(err)
	}
	b.Cleanup(func() { c.Close() })
	if err := c.CreateDatabase(ctx, "db", true); err != nil {
		b.Fatal(err)
	}
	if err := c.CreateTable(ctx, catalog.NewIdentifier("db", "t"), s, false); err != nil {
		b.Fatal(err)
	}
	tbl, err := c.GetTable(ctx, catalog.NewIdentifier("db", "t"))
	if err != nil {
		b.Fatal(err)
	}
	return tbl
}

func writeAll(b *testing.B, tbl *catalog.Table, batches []arrow.RecordBatch) {
	ctx := context.Background()
	w, err := writer.New(tbl.FileIO, tbl.Schema, "bench")
	if err != nil {
		b.Fatal(err)
	}
	for _, r := range batches {
		if err := w.Write(ctx, r); err != nil {
			b.Fatal(err)
		}
	}
	if _, err := w.PrepareCommit(ctx); err != nil {
		b.Fatal(err)
	}
	if err := w.Close(); err != nil {
		b.Fatal(err)
	}
}

// BenchmarkAppendWrite writes the flights data into an unpartitioned
// append table on mem:// (compare with BenchmarkRawParquetEncode; target
// ratio >= 0.8).
func BenchmarkAppendWrite(b *testing.B) {
	batches, rows := loadFlights(b)
	tbl := benchTable(b, catalog.Schema{Fields: flightsFields})
	b.ResetTimer()
	for b.Loop() {
		writeAll(b, tbl, batches)
	}
	b.ReportMetric(float64(rows)*float64(b.N)/b.Elapsed().Seconds(), "rows/s")
}

// BenchmarkRawParquetEncode encodes the same batches with the same Parquet
// writer straight to io.Discard.
func BenchmarkRawParquetEncode(b *testing.B) {
	batches, rows := loadFlights(b)
	ctx := context.Background()
	opts := schema.Options{}
	b.ResetTimer()
	for b.Loop() {
		w, err := parquet.NewWriter(ctx, io.Discard, "raw.parquet", flightsFields, format.WriteOptions{Options: opts})
		if err != nil {
			b.Fatal(err)
		}
		for _, r := range batches {
			if err := w.Write(ctx, r); err != nil {
				b.Fatal(err)
			}
		}
		if _, err := w.Close(ctx); err != nil {
			b.Fatal(err)
		}
	}
	b.ReportMetric(float64(rows)*float64(b.N)/b.Elapsed().Seconds(), "rows/s")
}

// BenchmarkPKWrite writes the flights data into a primary-key table with one
// bucket (one core's work) keyed by (date, origin, destination), with the
// default 256 MiB write buffer: sort, merge of duplicate keys and level-0
// files.
func BenchmarkPKWrite(b *testing.B) {
	batches, rows := loadFlights(b)
	tbl := benchTable(b, catalog.Schema{Fields: flightsFields, PrimaryKeys: []string{"date", "origin", "destination"},
		Options: map[string]string{"bucket": "1"}})
	b.ResetTimer()
	for b.Loop() {
		writeAll(b, tbl, batches)
	}
	b.ReportMetric(float64(rows)*float64(b.N)/b.Elapsed().Seconds(), "rows/s")
}

// BenchmarkPKWriteSpill is BenchmarkPKWrite with write-buffer-size 64 mb:
// the buffer spills sorted runs to local temp files (zstd Arrow IPC) and
// PrepareCommit merges them into the level-0 files.
func BenchmarkPKWriteSpill(b *testing.B) {
	batches, rows := loadFlights(b)
	tbl := benchTable(b, catalog.Schema{Fields: flightsFields, PrimaryKeys: []string{"date", "origin", "destination"},
		Options: map[string]string{"bucket": "1", "write-buffer-size": "64 mb"}})
	b.ResetTimer()
	for b.Loop() {
		writeAll(b, tbl, batches)
	}
	b.ReportMetric(float64(rows)*float64(b.N)/b.Elapsed().Seconds(), "rows/s")
}
