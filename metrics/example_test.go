package metrics_test

import (
	"context"
	"fmt"
	"log"

	"github.com/paimon-go/paimon"
	"github.com/paimon-go/paimon/metrics"
	"github.com/paimon-go/paimon/reader"
)

// A table opened with a Reporter reports each scan plan (and each commit):
// here a Func that prints the figures of a filtered plan of a table Java
// Paimon wrote. metrics.Slog would log them, package metrics/otel record
// them as OpenTelemetry instruments.
func Example() {
	ctx := context.Background()
	report := metrics.Func(func(_ context.Context, r metrics.Report) {
		if s, ok := r.(*metrics.ScanReport); ok {
			fmt.Printf("%s of snapshot %d (%s): %d manifests, %d entries, %d pruned by partition, %d data files in %d splits\n",
				s.Operation(), s.Snapshot, s.Filter, s.Manifests, s.Entries, s.PrunedByPartition, s.DataFiles, s.Splits)
		}
	})
	table, err := paimon.OpenTable(ctx, "../testdata/paimon-tables/pk_table_scan_and_read_mor_parquet", paimon.WithReporter(report))
	if err != nil {
		log.Fatal(err)
	}
	defer table.Close()
	if _, err := table.NewScan(reader.WithWhere("f1 = 20")).Plan(ctx); err != nil {
		log.Fatal(err)
	}
	// Output:
	// scan of snapshot 5 (f1 = 20): 5 manifests, 8 entries, 5 pruned by partition, 1 data files in 1 splits
}
