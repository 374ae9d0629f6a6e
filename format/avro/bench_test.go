package avro_test

import (
	"bytes"
	"context"
	"errors"
	"io"
	"testing"

	"github.com/hamba/avro/v2/ocf"

	"github.com/paimon-go/paimon/format"
	"github.com/paimon-go/paimon/format/avro"
	"github.com/paimon-go/paimon/format/parquet"
	"github.com/paimon-go/paimon/internal/flights"
)

type memFile []byte

func (m memFile) ReadAt(p []byte, off int64) (int, error) {
	if off >= int64(len(m)) {
		return 0, io.EOF
	}
	n := copy(p, m[off:])
	if n < len(p) {
		return n, io.EOF
	}
	return n, nil
}
func (m memFile) Size() int64 { return int64(len(m)) }

var formats = []format.Format{avro.Format{}, parquet.Format{}}

// benchRows is how many flights rows the benchmarks write and read.
const benchRows = 1_000_000

// BenchmarkWrite writes the first million rows of the flights data set
// (timestamp, two bigints, two short strings) as Avro and as Parquet, with
// the table default compression (zstd), side by side.
func BenchmarkWrite(b *testing.B) {
	batches, rows := flights.Batches(b, flights.Options{MaxRows: benchRows})
	ctx := context.Background()
	for _, ff := range formats {
		b.Run(ff.Name(), func(b *testing.B) {
			var size int64
			for b.Loop() {
				var buf bytes.Buffer
				w, err := ff.NewWriter(ctx, &buf, "bench", flights.Fields(), format.WriteOptions{})
				if err != nil {
					b.Fatal(err)
				}
				for _, r := range batches {
					if err := w.Write(ctx, r); err != nil {
						b.Fatal(err)
					}
				}
				res, err := w.Close(ctx)
				if err != nil {
					b.Fatal(err)
				}
				size = res.FileSize
			}
			b.ReportMetric(float64(rows)*float64(b.N)/b.Elapsed().Seconds(), "rows/s")
			b.ReportMetric(float64(size), "file-bytes")
		})
	}
}

// BenchmarkRead reads the same rows back from an in-memory Avro and Parquet
// file (all columns).
func BenchmarkRead(b *testing.B) {
	batches, rows := flights.Batches(b, flights.Options{MaxRows: benchRows})
	ctx := context.Background()
	for _, ff := range formats {
		var buf bytes.Buffer
		w, err := ff.NewWriter(ctx, &buf, "bench", flights.Fields(), format.WriteOptions{})
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
		data := memFile(buf.Bytes())
		b.Run(ff.Name(), func(b *testing.B) {
			for b.Loop() {
				r, err := ff.NewReader(ctx, data, "bench", flights.Fields(), format.ReadOptions{})
				if err != nil {
					b.Fatal(err)
				}
				var n int64
				for {
					bt, err := r.Next(ctx)
					if errors.Is(err, io.EOF) {
						break
					}
					if err != nil {
						b.Fatal(err)
					}
					n += bt.Record.NumRows()
					bt.Record.Release()
				}
				r.Close()
				if n != rows {
					b.Fatalf("read %d rows, want %d", n, rows)
				}
			}
			b.ReportMetric(float64(rows)*float64(b.N)/b.Elapsed().Seconds(), "rows/s")
		})
	}
}

// flight is a flights row for hamba/avro's struct decoding.
type flight struct {
	Date        *int64  `avro:"date"`
	Delay       *int64  `avro:"delay"`
	Distance    *int64  `avro:"distance"`
	Origin      *string `avro:"origin"`
	Destination *string `avro:"destination"`
}

// BenchmarkReadHamba decodes the same Avro file with hamba/avro/v2's OCF
// decoder into Go structs (its fastest path, without building Arrow
// arrays): the library alternative to our own decoding loops
// (docs/decisions.md).
func BenchmarkReadHamba(b *testing.B) {
	batches, rows := flights.Batches(b, flights.Options{MaxRows: benchRows})
	ctx := context.Background()
	var buf bytes.Buffer
	w, err := avro.NewWriter(ctx, &buf, "bench", flights.Fields(), format.WriteOptions{})
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
	data := buf.Bytes()
	for b.Loop() {
		d, err := ocf.NewDecoder(bytes.NewReader(data))
		if err != nil {
			b.Fatal(err)
		}
		var n int64
		for d.HasNext() {
			var v *flight
			if err := d.Decode(&v); err != nil {
				b.Fatal(err)
			}
			n++
		}
		if d.Error() != nil {
			b.Fatal(d.Error())
		}
		if n != rows {
			b.Fatalf("read %d rows", n)
		}
	}
	b.ReportMetric(float64(rows)*float64(b.N)/b.Elapsed().Seconds(), "rows/s")
}
