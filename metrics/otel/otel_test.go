package otel_test

import (
	"context"
	"errors"
	"testing"
	"time"

	"go.opentelemetry.io/otel/attribute"
	sdkmetric "go.opentelemetry.io/otel/sdk/metric"
	"go.opentelemetry.io/otel/sdk/metric/metricdata"

	"github.com/paimon-go/paimon/metrics"
	"github.com/paimon-go/paimon/metrics/otel"
)

// collect returns the data points of the reader by instrument name and
// attribute set: sums and gauges as their value, histograms as their
// count and sum.
func collect(t *testing.T, rd *sdkmetric.ManualReader) map[string]map[attribute.Distinct][2]float64 {
	t.Helper()
	var rm metricdata.ResourceMetrics
	if err := rd.Collect(context.Background(), &rm); err != nil {
		t.Fatal(err)
	}
	out := map[string]map[attribute.Distinct][2]float64{}
	for _, sm := range rm.ScopeMetrics {
		if sm.Scope.Name != otel.Scope {
			t.Errorf("scope %q, want %q", sm.Scope.Name, otel.Scope)
		}
		for _, m := range sm.Metrics {
			pts := map[attribute.Distinct][2]float64{}
			switch d := m.Data.(type) {
			case metricdata.Sum[int64]:
				for _, p := range d.DataPoints {
					pts[p.Attributes.Equivalent()] = [2]float64{float64(p.Value)}
				}
			case metricdata.Gauge[int64]:
				for _, p := range d.DataPoints {
					pts[p.Attributes.Equivalent()] = [2]float64{float64(p.Value)}
				}
			case metricdata.Histogram[float64]:
				for _, p := range d.DataPoints {
					pts[p.Attributes.Equivalent()] = [2]float64{float64(p.Count), p.Sum}
				}
			default:
				t.Fatalf("%s: data %T", m.Name, m.Data)
			}
			out[m.Name] = pts
		}
	}
	return out
}

func set(kv ...attribute.KeyValue) attribute.Distinct {
	s := attribute.NewSet(kv...)
	return s.Equivalent()
}

// TestOTelReporter: scripted reports land in the SDK's in-memory reader
// as exact counter sums, gauge values and histogram counts and sums, with
// the table and outcome attributes.
func TestOTelReporter(t *testing.T) {
	rd := sdkmetric.NewManualReader()
	mp := sdkmetric.NewMeterProvider(sdkmetric.WithReader(rd))
	defer mp.Shutdown(context.Background())
	r, err := otel.New(mp)
	if err != nil {
		t.Fatal(err)
	}
	ctx := context.Background()
	const tbl = "s3://b/wh/db.db/t"
	table := attribute.String("paimon.table", tbl)
	r.Report(ctx, &metrics.CommitReport{Table: tbl, Snapshots: []int64{7}, Duration: 250 * time.Millisecond, Attempts: 2, LostRaces: 1,
		Phases:     map[string]time.Duration{"snapshot": 20 * time.Millisecond, "retry": 100 * time.Millisecond},
		AddedFiles: 3, AddedBytes: 3000, AddedRecords: 300, DeletedFiles: 1, DeletedBytes: 900,
		Requests: metrics.Requests{Get: 4, Put: 5, Head: 2}})
	r.Report(ctx, &metrics.CommitReport{Table: tbl, Duration: 50 * time.Millisecond, Attempts: 1, Err: errors.New("conflict"),
		Requests: metrics.Requests{Get: 1}})
	r.Report(ctx, &metrics.ScanReport{Table: tbl, Snapshot: 7, Duration: 10 * time.Millisecond, Manifests: 5, ManifestsSkipped: 2,
		Entries: 9, PrunedByPartition: 1, PrunedByStats: 3, Splits: 2, DataFiles: 5, DataBytes: 5000, Requests: metrics.Requests{Get: 3, List: 1}})
	r.Report(ctx, &metrics.RealtimeReport{Table: tbl, Snapshot: 8, Ranges: 2, CommittedRows: 40, BuildingBytes: 100, SealedBytes: 200,
		BuildingRows: 1, SealedRows: 40, Prepare: 30 * time.Millisecond, Commit: 40 * time.Millisecond, Freshness: 80 * time.Millisecond})
	r.Report(ctx, &metrics.CompactionReport{Table: tbl, Snapshot: 9, Duration: time.Second, Buckets: 1, InputFiles: 4, OutputFiles: 1,
		InputBytes: 4000, OutputBytes: 3500})
	r.Report(ctx, &metrics.ExpirationReport{Table: tbl, Duration: 2 * time.Second, Snapshots: 6, DataFiles: 4, ManifestFiles: 7,
		Requests: metrics.Requests{Delete: 17}})

	got := collect(t, rd)
	ok, bad := attribute.String("paimon.outcome", "ok"), attribute.String("paimon.outcome", "error")
	want := map[string]map[attribute.Distinct][2]float64{
		"paimon.commit.calls":          {set(table, ok): {1}, set(table, bad): {1}},
		"paimon.commit.duration":       {set(table, ok): {1, 0.25}, set(table, bad): {1, 0.05}},
		"paimon.commit.phase.duration": {set(table, attribute.String("paimon.phase", "snapshot")): {1, 0.02}, set(table, attribute.String("paimon.phase", "retry")): {1, 0.1}},
		"paimon.commit.attempts":       {set(table): {3}},
		"paimon.commit.lost_races":     {set(table): {1}},
		"paimon.commit.snapshots":      {set(table): {1}},
		"paimon.commit.files":          {set(table, attribute.String("paimon.change", "added")): {3}, set(table, attribute.String("paimon.change", "deleted")): {1}},
		"paimon.commit.bytes":          {set(table, attribute.String("paimon.change", "added")): {3000}, set(table, attribute.String("paimon.change", "deleted")): {900}},
		"paimon.commit.records":        {set(table): {300}},
		"paimon.store.requests": {
			set(table, attribute.String("paimon.operation", "commit"), attribute.String("paimon.request", "get")):        {5},
			set(table, attribute.String("paimon.operation", "commit"), attribute.String("paimon.request", "put")):        {5},
			set(table, attribute.String("paimon.operation", "commit"), attribute.String("paimon.request", "head")):       {2},
			set(table, attribute.String("paimon.operation", "scan"), attribute.String("paimon.request", "get")):          {3},
			set(table, attribute.String("paimon.operation", "scan"), attribute.String("paimon.request", "list")):         {1},
			set(table, attribute.String("paimon.operation", "expiration"), attribute.String("paimon.request", "delete")): {17},
		},
		"paimon.scan.plans":     {set(table, ok): {1}},
		"paimon.scan.duration":  {set(table, ok): {1, 0.01}},
		"paimon.scan.manifests": {set(table, attribute.Bool("paimon.pruned", false)): {3}, set(table, attribute.Bool("paimon.pruned", true)): {2}},
		"paimon.scan.entries":   {set(table): {9}},
		"paimon.scan.entries.pruned": {
			set(table, attribute.String("paimon.reason", "partition")): {1}, set(table, attribute.String("paimon.reason", "bucket")): {0},
			set(table, attribute.String("paimon.reason", "stats")): {3}, set(table, attribute.String("paimon.reason", "index")): {0},
		},
		"paimon.scan.files":                {set(table): {5}},
		"paimon.scan.bytes":                {set(table): {5000}},
		"paimon.realtime.commit.duration":  {set(table, ok): {1, 0.04}},
		"paimon.realtime.prepare.duration": {set(table): {1, 0.03}},
		"paimon.realtime.freshness":        {set(table): {1, 0.08}},
		"paimon.realtime.rows.committed":   {set(table): {40}},
		"paimon.realtime.memory.bytes":     {set(table, attribute.String("paimon.segment", "building")): {100}, set(table, attribute.String("paimon.segment", "sealed")): {200}},
		"paimon.realtime.memory.rows":      {set(table, attribute.String("paimon.segment", "building")): {1}, set(table, attribute.String("paimon.segment", "sealed")): {40}},
		"paimon.compaction.duration":       {set(table, ok): {1, 1}},
		"paimon.compaction.files":          {set(table, attribute.String("paimon.direction", "input")): {4}, set(table, attribute.String("paimon.direction", "output")): {1}},
		"paimon.compaction.bytes":          {set(table, attribute.String("paimon.direction", "input")): {4000}, set(table, attribute.String("paimon.direction", "output")): {3500}},
		"paimon.expiration.duration":       {set(table, ok): {1, 2}},
		"paimon.expiration.snapshots":      {set(table): {6}},
		"paimon.expiration.files":          {set(table, attribute.String("paimon.file", "data")): {4}, set(table, attribute.String("paimon.file", "manifest")): {7}},
	}
	for name, pts := range want {
		for k, v := range pts {
			if g, found := got[name][k]; !found || g != v {
				t.Errorf("%s %v: got %v (found %v), want %v", name, k, g, found, v)
			}
		}
		if len(got[name]) != len(pts) {
			t.Errorf("%s: %d data points, want %d: %v", name, len(got[name]), len(pts), got[name])
		}
	}
	if len(got) != len(want) {
		t.Errorf("%d instruments reported, want %d", len(got), len(want))
	}
}
