package writer_test

import (
	"testing"

	"github.com/paimon-go/paimon/catalog"
)

// BenchmarkBucketModeWrite writes the flights data into primary-key tables
// keyed by (date, origin, destination) that differ only in bucket mode, in
// one run, so that the cost of dynamic-bucket assignment (a key hash and a
// map lookup per row, HASH index files at PrepareCommit) reads against
// fixed buckets: fixed-1 and fixed-4 buckets, dynamic with the default
// dynamic-bucket.target-row-num (2,000,000: one bucket here) and dynamic
// with 100,000 rows per bucket (several buckets).
func BenchmarkBucketModeWrite(b *testing.B) {
	batches, rows := loadFlights(b)
	pk := []string{"date", "origin", "destination"}
	for _, tc := range []struct {
		name      string
		opts      map[string]string
		pk, parts []string
	}{
		{"fixed-1", map[string]string{"bucket": "1"}, pk, nil},
		{"fixed-4", map[string]string{"bucket": "4"}, pk, nil},
		{"dynamic", map[string]string{"bucket": "-1"}, pk, nil},
		{"dynamic-100k", map[string]string{"bucket": "-1", "dynamic-bucket.target-row-num": "100000"}, pk, nil},
		// Partitioned by origin: dynamic buckets per partition (the key
		// holds origin), and cross-partition upsert (it does not: a key
		// index over the whole table routes every row).
		{"dynamic-by-origin", map[string]string{"bucket": "-1"}, pk, []string{"origin"}},
		{"cross-partition-by-origin", map[string]string{"bucket": "-1"}, []string{"date", "destination"}, []string{"origin"}},
	} {
		b.Run(tc.name, func(b *testing.B) {
			tbl := benchTable(b, catalog.Schema{Fields: flightsFields, PrimaryKeys: tc.pk, PartitionKeys: tc.parts, Options: tc.opts})
			b.ResetTimer()
			for b.Loop() {
				writeAll(b, tbl, batches)
			}
			b.ReportMetric(float64(rows)*float64(b.N)/b.Elapsed().Seconds(), "rows/s")
		})
	}
}
