package otel_test

import (
	"context"
	"fmt"
	"log"

	sdkmetric "go.opentelemetry.io/otel/sdk/metric"
	"go.opentelemetry.io/otel/sdk/metric/metricdata"

	"github.com/paimon-go/paimon/metrics"
	"github.com/paimon-go/paimon/metrics/otel"
)

// A service records paimon-go's reports as OpenTelemetry instruments of its
// MeterProvider (here with an in-memory reader; in production a Prometheus
// or OTLP exporter). Pass the Reporter to paimon.WithReporter, or to
// commit.WithReporter, reader.WithReporter and the like.
func ExampleNew() {
	rd := sdkmetric.NewManualReader()
	mp := sdkmetric.NewMeterProvider(sdkmetric.WithReader(rd))
	defer mp.Shutdown(context.Background())
	r, err := otel.New(mp)
	if err != nil {
		log.Fatal(err)
	}
	var rep metrics.Reporter = r
	rep.Report(context.Background(), &metrics.CommitReport{Table: "file:///wh/db.db/t", Snapshots: []int64{1}, Attempts: 1, AddedFiles: 2, AddedRecords: 500})

	var rm metricdata.ResourceMetrics
	if err := rd.Collect(context.Background(), &rm); err != nil {
		log.Fatal(err)
	}
	for _, m := range rm.ScopeMetrics[0].Metrics {
		if s, ok := m.Data.(metricdata.Sum[int64]); ok && m.Name == "paimon.commit.records" {
			fmt.Println(m.Name, s.DataPoints[0].Value)
		}
	}
	// Output:
	// paimon.commit.records 500
}
