package orc

import (
	"bytes"
	"context"
	"io"
	"testing"

	"github.com/apache/arrow-go/v18/arrow"

	"github.com/paimon-go/paimon/format"
	"github.com/paimon-go/paimon/format/parquet"
	"github.com/paimon-go/paimon/types"
)

// BenchmarkFormats writes and reads the same 100,000 rows (benchRows: a
// BIGINT id, a low-cardinality STRING with nulls, a random DOUBLE, a
// DECIMAL(10, 2) with nulls, a TIMESTAMP(6), an ARRAY<INT>) as ORC and as
// Parquet with each format's default options (zstd), reporting rows/s and
// the file size.
func BenchmarkFormats(b *testing.B) {
	const rows = 100_000
	fields, recs := benchRows(b, rows, 4096)
	defer func() {
		for _, r := range recs {
			r.Release()
		}
	}()
	for _, ff := range []format.Format{Format{}, parquet.Format{}} {
		data := writeWith(b, ff, fields, recs)
		b.Run(ff.Name()+"/write", func(b *testing.B) {
			for b.Loop() {
				writeWith(b, ff, fields, recs)
			}
			b.ReportMetric(float64(rows)*float64(b.N)/b.Elapsed().Seconds(), "rows/s")
			b.ReportMetric(float64(len(data)), "file-bytes")
		})
		b.Run(ff.Name()+"/read", func(b *testing.B) {
			for b.Loop() {
				r, err := ff.NewReader(context.Background(), bytes.NewReader(data), "bench", fields, format.ReadOptions{})
				if err != nil {
					b.Fatal(err)
				}
				n := 0
				for {
					batch, err := r.Next(context.Background())
					if err == io.EOF {
						break
					}
					if err != nil {
						b.Fatal(err)
					}
					n += int(batch.Record.NumRows())
					batch.Record.Release()
				}
				r.Close()
				if n != rows {
					b.Fatalf("read %d rows", n)
				}
			}
			b.ReportMetric(float64(rows)*float64(b.N)/b.Elapsed().Seconds(), "rows/s")
		})
	}
}

func writeWith(b *testing.B, ff format.Format, fields []types.DataField, recs []arrow.RecordBatch) []byte {
	ctx := context.Background()
	var buf bytes.Buffer
	w, err := ff.NewWriter(ctx, &buf, "bench."+ff.Name(), fields, format.WriteOptions{})
	if err != nil {
		b.Fatal(err)
	}
	for _, r := range recs {
		if err := w.Write(ctx, r); err != nil {
			b.Fatal(err)
		}
	}
	if _, err := w.Close(ctx); err != nil {
		b.Fatal(err)
	}
	return buf.Bytes()
}
