package memindexer

import (
	"context"
	"runtime"
	"testing"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"
	"github.com/apache/arrow-go/v18/arrow/memory"

	"github.com/paimon-go/paimon/internal/flights"
	"github.com/paimon-go/paimon/realtime"
	"github.com/paimon-go/paimon/types"
)

// benchRows is how many rows of flights-3m the benchmarks use.
const benchRows = 200_000

// loadFlights reads the first benchRows rows of the flights data set in
// 4096-row batches allocated by mem and returns them with
// realtime.OffsetColumn (0, 1, 2, ...) prepended, plus the transport
// schema.
func loadFlights(b *testing.B, mem memory.Allocator) (*arrow.Schema, []arrow.RecordBatch, int64) {
	b.Helper()
	tfields := append([]arrow.Field{{Name: realtime.OffsetColumn, Type: arrow.PrimitiveTypes.Int64}},
		types.SchemaToArrow(flights.Fields()).Fields()...)
	schema := arrow.NewSchema(tfields, nil)
	var out []arrow.RecordBatch
	var rows int64
	flights.Each(b, flights.Options{BatchRows: 4096, MaxRows: benchRows, Allocator: mem}, func(rec arrow.RecordBatch) error {
		n := rec.NumRows()
		offs := make([]int64, n)
		for i := range offs {
			offs[i] = rows + int64(i)
		}
		d := array.NewData(arrow.PrimitiveTypes.Int64, int(n),
			[]*memory.Buffer{nil, memory.NewBufferBytes(arrow.Int64Traits.CastToBytes(offs))}, nil, 0, 0)
		oc := array.NewInt64Data(d)
		d.Release()
		out = append(out, array.NewRecordBatch(schema, append([]arrow.Array{oc}, rec.Columns()...), n))
		oc.Release()
		rows += n
		return nil
	})
	return schema, out, rows
}

// rawSize is the size of rec's rows in Arrow's layout without slack: a
// validity bitmap only when a column has nulls, fixed-width values, and for
// strings and binaries (rows + 1) 4-byte offsets plus the referenced bytes.
func rawSize(rec arrow.RecordBatch) int64 {
	var n int64
	for _, c := range rec.Columns() {
		rows := int64(c.Len())
		if c.NullN() > 0 {
			n += (rows + 7) / 8
		}
		switch a := c.(type) {
		case *array.String:
			o := a.ValueOffsets()
			n += 4*(rows+1) + int64(o[len(o)-1]-o[0])
		case *array.Binary:
			o := a.ValueOffsets()
			n += 4*(rows+1) + int64(o[len(o)-1]-o[0])
		default:
			if fw, ok := c.DataType().(arrow.FixedWidthDataType); ok {
				n += rows * int64(fw.BitWidth()) / 8
			}
		}
	}
	return n
}

// BenchmarkWrite measures Store.Write throughput (rows/s) for 4096-row
// batches of the flights columns (timestamp, two bigints, two strings) as
// the Parquet reader returns them (their buffers have slack, so the default
// store compacts them), with and without per-batch statistics, and with
// compaction off (pure retain).
func BenchmarkWrite(b *testing.B) {
	schema, recs, rows := loadFlights(b, nil)
	defer func() {
		for _, r := range recs {
			r.Release()
		}
	}()
	for _, mode := range []struct {
		name  string
		f     Factory
		stats realtime.StatsMode
	}{
		{"stats=none", Factory{}, realtime.StatsNone},
		{"stats=full", Factory{}, realtime.StatsFull},
		{"stats=none,compact=off", Factory{CompactRatio: -1}, realtime.StatsNone},
	} {
		b.Run(mode.name, func(b *testing.B) {
			ctx := context.Background()
			for b.Loop() {
				s, err := mode.f.Create(realtime.CreateRequest{Schema: schema, Stats: mode.stats})
				if err != nil {
					b.Fatal(err)
				}
				var off int64
				for _, r := range recs {
					n := r.NumRows()
					if err := s.Write(ctx, realtime.Batch{Record: r, Range: rng(off, off+n)}); err != nil {
						b.Fatal(err)
					}
					off += n
				}
				s.Close()
			}
			b.ReportMetric(float64(rows)*float64(b.N)/b.Elapsed().Seconds(), "rows/s")
		})
	}
}

// BenchmarkMemoryPerRow measures the Go heap a store holds per row after
// writing the first 200k flights rows (the store holds the only references
// to the batches), next to the raw Arrow size of those rows (rawSize) and
// the store's own Usage. x-raw is heap/raw; the target is <= 1.5.
func BenchmarkMemoryPerRow(b *testing.B) {
	for _, mode := range []struct {
		name  string
		stats realtime.StatsMode
	}{{"stats=none", realtime.StatsNone}, {"stats=full", realtime.StatsFull}} {
		b.Run(mode.name, func(b *testing.B) {
			ctx := context.Background()
			var heap, raw, usage, rows float64
			for b.Loop() {
				runtime.GC() // twice: the second one empties sync.Pool victim caches
				runtime.GC()
				var m0, m1 runtime.MemStats
				runtime.ReadMemStats(&m0)
				schema, recs, n := loadFlights(b, nil)
				s, err := Factory{}.Create(realtime.CreateRequest{Schema: schema, Stats: mode.stats})
				if err != nil {
					b.Fatal(err)
				}
				var off, rawBytes int64
				for _, r := range recs {
					rawBytes += rawSize(r)
					k := r.NumRows()
					if err := s.Write(ctx, realtime.Batch{Record: r, Range: rng(off, off+k)}); err != nil {
						b.Fatal(err)
					}
					r.Release()
					off += k
				}
				recs = nil
				runtime.GC()
				runtime.GC()
				runtime.ReadMemStats(&m1)
				u := s.Usage()
				heap, raw, rows = float64(int64(m1.HeapAlloc)-int64(m0.HeapAlloc)), float64(rawBytes), float64(n)
				usage = float64(u.BuildingBytes + u.SealedBytes)
				runtime.KeepAlive(s)
				s.Close()
			}
			b.ReportMetric(heap/rows, "heapB/row")
			b.ReportMetric(raw/rows, "rawB/row")
			b.ReportMetric(usage/rows, "usageB/row")
			b.ReportMetric(heap/raw, "x-raw")
		})
	}
}
