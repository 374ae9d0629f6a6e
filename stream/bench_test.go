package stream_test

import (
	"context"
	"fmt"
	"testing"
	"time"

	paimon "github.com/paimon-go/paimon"
	"github.com/paimon-go/paimon/catalog"
	"github.com/paimon-go/paimon/internal/tabletest"
	"github.com/paimon-go/paimon/reader"
	"github.com/paimon-go/paimon/stream"
	"github.com/paimon-go/paimon/types"
)

// BenchmarkFollow compares following a table's snapshots with a Follower
// (each snapshot's new files only) with the naive way of finding new rows,
// reading the whole table again at every snapshot: an append table of 40
// snapshots × 2,000 rows, read from snapshot 1 to the latest. Side by side
// in one run: go test ./stream -run '^$' -bench Follow -benchtime 3x.
func BenchmarkFollow(b *testing.B) {
	const snaps, rows = 40, 2000
	tbl := tabletest.NewTable(b, "", catalog.Schema{Fields: kvFields})
	ctx := context.Background()
	sc := types.SchemaToArrow(kvFields)
	for i := range snaps {
		vals := make([][]any, rows)
		for j := range rows {
			vals[j] = []any{int64(i*rows + j), fmt.Sprintf("c%d", i)}
		}
		rec, err := tabletest.NewBatch(sc, vals...)
		if err != nil {
			b.Fatal(err)
		}
		tabletest.WriteCommit(b, tbl, "bench", int64(i+1), rec)
		rec.Release()
	}
	t, err := paimon.OpenTable(ctx, tbl.FileIO.URL())
	if err != nil {
		b.Fatal(err)
	}
	defer t.Close()

	b.Run("follower", func(b *testing.B) {
		var read int64
		for range b.N {
			src := &stream.ReaderSource{FIO: t.FileIO(), Table: t.Schema()}
			f := stream.New(t.FileIO(), t.Schema(), src, stream.Options{Mode: stream.ModeFromSnapshot, SnapshotID: 1, Interval: time.Millisecond})
			for {
				s, err := f.Next(ctx)
				if err != nil {
					b.Fatal(err)
				}
				for _, r := range s.Batches {
					read += r.NumRows()
				}
				s.Release()
				if s.Next > snaps {
					break
				}
			}
		}
		if want := int64(b.N) * snaps * rows; read != want {
			b.Fatalf("read %d rows, want %d", read, want)
		}
		b.ReportMetric(float64(snaps)*float64(b.N)/b.Elapsed().Seconds(), "snapshots/s")
	})
	b.Run("rescan", func(b *testing.B) {
		var read int64
		for range b.N {
			for id := int64(1); id <= snaps; id++ {
				p, err := reader.NewScan(t.FileIO(), reader.WithSnapshot(id)).Plan(ctx)
				if err != nil {
					b.Fatal(err)
				}
				for r, err := range p.Records(ctx) {
					if err != nil {
						b.Fatal(err)
					}
					read += r.NumRows()
					r.Release()
				}
			}
		}
		if want := int64(b.N) * rows * snaps * (snaps + 1) / 2; read != want {
			b.Fatalf("read %d rows, want %d", read, want)
		}
		b.ReportMetric(float64(snaps)*float64(b.N)/b.Elapsed().Seconds(), "snapshots/s")
	})
}
