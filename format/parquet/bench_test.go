package parquet

import (
	"context"
	"io"
	"testing"

	"github.com/apache/arrow-go/v18/arrow"

	"github.com/paimon-go/paimon/format"
	"github.com/paimon-go/paimon/types"
)

// flightsFields is the schema of flights-3m.parquet (written by Polars,
// without field ids: columns match by name).
func flightsFields() []types.DataField {
	return []types.DataField{
		types.Field(0, "date", types.TimestampOf(6)),
		types.Field(1, "delay", types.BigInt()),
		types.Field(2, "distance", types.BigInt()),
		types.Field(3, "origin", types.String()),
		types.Field(4, "destination", types.String()),
	}
}

func flightsOrSkip(b *testing.B) osFile {
	p := flightsPath()
	if p == "" {
		b.Skip("flights-3m.parquet not found in testdata/flights/ or ../shared/data/ (see docs/decisions.md)")
	}
	return openFile(b, p)
}

func benchRead(b *testing.B, want []types.DataField) {
	f := flightsOrSkip(b)
	ctx := context.Background()
	for b.Loop() {
		r, err := NewReader(ctx, f, "flights-3m.parquet", want, format.ReadOptions{})
		if err != nil {
			b.Fatal(err)
		}
		var rows int64
		for {
			batch, err := r.Next(ctx)
			if err == io.EOF {
				break
			}
			if err != nil {
				b.Fatal(err)
			}
			rows += batch.Record.NumRows()
			batch.Record.Release()
		}
		r.Close()
		if rows != 3_000_000 {
			b.Fatalf("read %d rows", rows)
		}
	}
	b.ReportMetric(3e6*float64(b.N)/b.Elapsed().Seconds(), "rows/s")
}

// BenchmarkReadFlights reads all five columns of flights-3m into 4096-row
// Arrow batches.
func BenchmarkReadFlights(b *testing.B) { benchRead(b, flightsFields()) }

// BenchmarkReadFlightsProjection reads two columns (delay, origin).
func BenchmarkReadFlightsProjection(b *testing.B) {
	all := flightsFields()
	benchRead(b, []types.DataField{all[1], all[3]})
}

// BenchmarkWriteFlights writes flights-3m from 4096-row batches with the
// default options (zstd level 1, dictionary on, field ids).
func BenchmarkWriteFlights(b *testing.B) {
	f := flightsOrSkip(b)
	ctx := context.Background()
	fields := flightsFields()
	r, err := NewReader(ctx, f, "flights-3m.parquet", fields, format.ReadOptions{})
	if err != nil {
		b.Fatal(err)
	}
	var recs []arrow.RecordBatch
	for {
		batch, err := r.Next(ctx)
		if err == io.EOF {
			break
		}
		if err != nil {
			b.Fatal(err)
		}
		recs = append(recs, batch.Record)
	}
	r.Close()
	defer func() {
		for _, rec := range recs {
			rec.Release()
		}
	}()
	var size int64
	for b.Loop() {
		cw := &countingWriter{w: io.Discard}
		w, err := NewWriter(ctx, cw, "out.parquet", fields, format.WriteOptions{})
		if err != nil {
			b.Fatal(err)
		}
		for _, rec := range recs {
			if err := w.Write(ctx, rec); err != nil {
				b.Fatal(err)
			}
		}
		res, err := w.Close(ctx)
		if err != nil {
			b.Fatal(err)
		}
		size = res.FileSize
	}
	b.ReportMetric(3e6*float64(b.N)/b.Elapsed().Seconds(), "rows/s")
	b.ReportMetric(float64(size), "bytes")
}
