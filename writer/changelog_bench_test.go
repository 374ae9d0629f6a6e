package writer_test

import (
	"context"
	"testing"

	"github.com/paimon-go/paimon/catalog"
	"github.com/paimon-go/paimon/commit"
	"github.com/paimon-go/paimon/writer"
)

// BenchmarkChangelogProducerWrite writes the flights data into a fresh
// primary-key table (one bucket, key date, origin, destination) in three
// committed commits, with changelog-producer none, lookup (level 0 is
// compacted up at every commit, with changelog files) and full-compaction
// (a full compaction per commit, with changelog files).
func BenchmarkChangelogProducerWrite(b *testing.B) {
	batches, rows := loadFlights(b)
	pk := []string{"date", "origin", "destination"}
	for _, cp := range []string{"none", "lookup", "full-compaction"} {
		b.Run(cp, func(b *testing.B) {
			ctx := context.Background()
			for b.Loop() {
				b.StopTimer()
				tbl := benchTable(b, catalog.Schema{Fields: flightsFields, PrimaryKeys: pk,
					Options: map[string]string{"bucket": "1", "changelog-producer": cp}})
				b.StartTimer()
				w, err := writer.New(tbl.FileIO, tbl.Schema, "bench")
				if err != nil {
					b.Fatal(err)
				}
				c, err := commit.New(tbl.FileIO, tbl.Schema, "bench")
				if err != nil {
					b.Fatal(err)
				}
				per := (len(batches) + 2) / 3
				for i := 0; i < len(batches); i += per {
					for _, r := range batches[i:min(i+per, len(batches))] {
						if err := w.Write(ctx, r); err != nil {
							b.Fatal(err)
						}
					}
					msgs, err := w.PrepareCommit(ctx)
					if err != nil {
						b.Fatal(err)
					}
					if _, err := c.Commit(ctx, int64(i), msgs); err != nil {
						b.Fatal(err)
					}
				}
				c.Close()
				if err := w.Close(); err != nil {
					b.Fatal(err)
				}
			}
			b.ReportMetric(float64(rows)*float64(b.N)/b.Elapsed().Seconds(), "rows/s")
		})
	}
}
