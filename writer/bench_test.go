package writer_test

import (
	"context"
	"io"
	"testing"

	"github.com/apache/arrow-go/v18/arrow"

	"github.com/paimon-go/paimon/catalog"
	"github.com/paimon-go/paimon/format"
	"github.com/paimon-go/paimon/format/parquet"
	"github.com/paimon-go/paimon/internal/flights"
	"github.com/paimon-go/paimon/schema"
	"github.com/paimon-go/paimon/writer"
)

// flightsFields is the Paimon schema of the flights data set.
var flightsFields = flights.Fields()

// loadFlights reads the 3M-row flights file into memory, as batches of the
// table's Arrow schema (skipping t when the file is missing).
func loadFlights(t testing.TB) ([]arrow.RecordBatch, int64) {
	t.Helper()
	return flights.Batches(t, flights.Options{})
}

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
