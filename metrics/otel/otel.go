// Package otel records the reports of package metrics as OpenTelemetry
// instruments, for Go services that export metrics through the
// OpenTelemetry SDK (go.opentelemetry.io/otel/sdk/metric) to Prometheus,
// OTLP or another exporter.
//
// Every instrument is named "paimon.<operation>.<figure>" and carries the
// attribute "paimon.table" (the table's URL without secrets); durations are
// histograms in seconds, counts are counters, and the real-time layer's
// memory is gauges. The instruments mirror the figures of Java Paimon's
// metric groups (org.apache.paimon.operation.metrics.CommitMetrics,
// ScanMetrics, CompactionMetrics) where they overlap.
package otel

import (
	"context"
	"errors"

	"go.opentelemetry.io/otel/attribute"
	"go.opentelemetry.io/otel/metric"

	"github.com/paimon-go/paimon/metrics"
)

// Scope is the instrumentation scope name of the meter.
const Scope = "github.com/paimon-go/paimon"

// Reporter is a metrics.Reporter recording each report into OpenTelemetry
// instruments. It is safe for concurrent use.
type Reporter struct {
	commitDuration, commitPhase                          metric.Float64Histogram
	commits, commitAttempts, commitLost, commitSnapshots metric.Int64Counter
	commitFiles, commitBytes, commitRecords              metric.Int64Counter
	requests                                             metric.Int64Counter

	scanDuration                                  metric.Float64Histogram
	scans, scanManifests, scanEntries, scanPruned metric.Int64Counter
	scanFiles, scanBytes                          metric.Int64Counter

	rtCommit, rtPrepare, rtFreshness metric.Float64Histogram
	rtRows                           metric.Int64Counter
	rtMemBytes, rtMemRows            metric.Int64Gauge

	compactDuration            metric.Float64Histogram
	compactFiles, compactBytes metric.Int64Counter

	expireDuration               metric.Float64Histogram
	expireSnapshots, expireFiles metric.Int64Counter
}

// New returns a Reporter whose instruments belong to the meter Scope of
// mp. Errors are those of creating the instruments, joined.
func New(mp metric.MeterProvider) (*Reporter, error) {
	m := mp.Meter(Scope)
	var errs []error
	hist := func(name, desc string) metric.Float64Histogram {
		h, err := m.Float64Histogram(name, metric.WithDescription(desc), metric.WithUnit("s"))
		errs = append(errs, err)
		return h
	}
	count := func(name, desc, unit string) metric.Int64Counter {
		c, err := m.Int64Counter(name, metric.WithDescription(desc), metric.WithUnit(unit))
		errs = append(errs, err)
		return c
	}
	gauge := func(name, desc, unit string) metric.Int64Gauge {
		g, err := m.Int64Gauge(name, metric.WithDescription(desc), metric.WithUnit(unit))
		errs = append(errs, err)
		return g
	}
	r := &Reporter{
		commitDuration:  hist("paimon.commit.duration", "Wall-clock time of a commit call"),
		commitPhase:     hist("paimon.commit.phase.duration", "Wall-clock time of a commit phase (attribute paimon.phase)"),
		commits:         count("paimon.commit.calls", "Commit calls (attribute paimon.outcome: ok or error)", "{call}"),
		commitAttempts:  count("paimon.commit.attempts", "Snapshot creations tried", "{attempt}"),
		commitLost:      count("paimon.commit.lost_races", "Snapshot creations another writer's snapshot took", "{attempt}"),
		commitSnapshots: count("paimon.commit.snapshots", "Snapshots published", "{snapshot}"),
		commitFiles:     count("paimon.commit.files", "Data files of commit messages (attribute paimon.change: added or deleted)", "{file}"),
		commitBytes:     count("paimon.commit.bytes", "Bytes of data files of commit messages (attribute paimon.change)", "By"),
		commitRecords:   count("paimon.commit.records", "Rows of the data files added", "{row}"),
		requests:        count("paimon.store.requests", "Store requests (attributes paimon.operation, paimon.request)", "{request}"),
		scanDuration:    hist("paimon.scan.duration", "Wall-clock time of a scan plan"),
		scans:           count("paimon.scan.plans", "Scan plans (attribute paimon.outcome)", "{plan}"),
		scanManifests:   count("paimon.scan.manifests", "Manifest files listed (attribute paimon.pruned: true when skipped unread)", "{file}"),
		scanEntries:     count("paimon.scan.entries", "Manifest entries read", "{entry}"),
		scanPruned:      count("paimon.scan.entries.pruned", "Manifest entries dropped (attribute paimon.reason: partition, bucket, stats, index)", "{entry}"),
		scanFiles:       count("paimon.scan.files", "Data files planned", "{file}"),
		scanBytes:       count("paimon.scan.bytes", "Bytes of the data files planned", "By"),
		rtCommit:        hist("paimon.realtime.commit.duration", "Time to publish a real-time commit"),
		rtPrepare:       hist("paimon.realtime.prepare.duration", "Time of the prepares a real-time commit published"),
		rtFreshness:     hist("paimon.realtime.freshness", "Time from the first prepare of a real-time commit to its publication"),
		rtRows:          count("paimon.realtime.rows.committed", "Rows real-time commits made durable", "{row}"),
		rtMemBytes:      gauge("paimon.realtime.memory.bytes", "Bytes the real-time stores held (attribute paimon.segment: building or sealed)", "By"),
		rtMemRows:       gauge("paimon.realtime.memory.rows", "Rows the real-time stores held (attribute paimon.segment)", "{row}"),
		compactDuration: hist("paimon.compaction.duration", "Wall-clock time of a compaction"),
		compactFiles:    count("paimon.compaction.files", "Files compaction rewrote or wrote (attribute paimon.direction: input or output)", "{file}"),
		compactBytes:    count("paimon.compaction.bytes", "Bytes compaction rewrote or wrote (attribute paimon.direction)", "By"),
		expireDuration:  hist("paimon.expiration.duration", "Wall-clock time of a snapshot expiration"),
		expireSnapshots: count("paimon.expiration.snapshots", "Snapshots expired", "{snapshot}"),
		expireFiles:     count("paimon.expiration.files", "Files expiration deleted (attribute paimon.file: data or manifest)", "{file}"),
	}
	if err := errors.Join(errs...); err != nil {
		return nil, err
	}
	return r, nil
}

var (
	keyTable     = attribute.Key("paimon.table")
	keyOutcome   = attribute.Key("paimon.outcome")
	keyPhase     = attribute.Key("paimon.phase")
	keyChange    = attribute.Key("paimon.change")
	keyOperation = attribute.Key("paimon.operation")
	keyRequest   = attribute.Key("paimon.request")
	keyPruned    = attribute.Key("paimon.pruned")
	keyReason    = attribute.Key("paimon.reason")
	keySegment   = attribute.Key("paimon.segment")
	keyDirection = attribute.Key("paimon.direction")
	keyFile      = attribute.Key("paimon.file")
)

func outcome(err error) attribute.KeyValue {
	if err != nil {
		return keyOutcome.String("error")
	}
	return keyOutcome.String("ok")
}

// with is the measurement option of attributes kv.
func with(kv ...attribute.KeyValue) metric.MeasurementOption {
	return metric.WithAttributeSet(attribute.NewSet(kv...))
}

// Report records r; reports of other types are ignored.
func (o *Reporter) Report(ctx context.Context, r metrics.Report) {
	switch r := r.(type) {
	case *metrics.CommitReport:
		o.commit(ctx, r)
	case *metrics.ScanReport:
		o.scan(ctx, r)
	case *metrics.RealtimeReport:
		o.realtime(ctx, r)
	case *metrics.CompactionReport:
		o.compaction(ctx, r)
	case *metrics.ExpirationReport:
		o.expiration(ctx, r)
	}
}

func (o *Reporter) requestCounts(ctx context.Context, table attribute.KeyValue, op string, q metrics.Requests) {
	for _, k := range []struct {
		name string
		n    int64
	}{{"get", q.Get}, {"put", q.Put}, {"list", q.List}, {"delete", q.Delete}, {"head", q.Head}} {
		if k.n > 0 {
			o.requests.Add(ctx, k.n, with(table, keyOperation.String(op), keyRequest.String(k.name)))
		}
	}
}

func (o *Reporter) commit(ctx context.Context, r *metrics.CommitReport) {
	t := keyTable.String(r.Table)
	o.commits.Add(ctx, 1, with(t, outcome(r.Err)))
	o.commitDuration.Record(ctx, r.Duration.Seconds(), with(t, outcome(r.Err)))
	for p, d := range r.Phases {
		o.commitPhase.Record(ctx, d.Seconds(), with(t, keyPhase.String(p)))
	}
	o.commitAttempts.Add(ctx, int64(r.Attempts), with(t))
	o.commitLost.Add(ctx, int64(r.LostRaces), with(t))
	o.commitSnapshots.Add(ctx, int64(len(r.Snapshots)), with(t))
	o.commitFiles.Add(ctx, int64(r.AddedFiles), with(t, keyChange.String("added")))
	o.commitFiles.Add(ctx, int64(r.DeletedFiles), with(t, keyChange.String("deleted")))
	o.commitBytes.Add(ctx, r.AddedBytes, with(t, keyChange.String("added")))
	o.commitBytes.Add(ctx, r.DeletedBytes, with(t, keyChange.String("deleted")))
	o.commitRecords.Add(ctx, r.AddedRecords, with(t))
	o.requestCounts(ctx, t, "commit", r.Requests)
}

func (o *Reporter) scan(ctx context.Context, r *metrics.ScanReport) {
	t := keyTable.String(r.Table)
	o.scans.Add(ctx, 1, with(t, outcome(r.Err)))
	o.scanDuration.Record(ctx, r.Duration.Seconds(), with(t, outcome(r.Err)))
	o.scanManifests.Add(ctx, int64(r.Manifests-r.ManifestsSkipped), with(t, keyPruned.Bool(false)))
	o.scanManifests.Add(ctx, int64(r.ManifestsSkipped), with(t, keyPruned.Bool(true)))
	o.scanEntries.Add(ctx, int64(r.Entries), with(t))
	for _, p := range []struct {
		reason string
		n      int
	}{{"partition", r.PrunedByPartition}, {"bucket", r.PrunedByBucket}, {"stats", r.PrunedByStats}, {"index", r.PrunedByIndex}} {
		o.scanPruned.Add(ctx, int64(p.n), with(t, keyReason.String(p.reason)))
	}
	o.scanFiles.Add(ctx, int64(r.DataFiles), with(t))
	o.scanBytes.Add(ctx, r.DataBytes, with(t))
	o.requestCounts(ctx, t, "scan", r.Requests)
}

func (o *Reporter) realtime(ctx context.Context, r *metrics.RealtimeReport) {
	t := keyTable.String(r.Table)
	o.rtCommit.Record(ctx, r.Commit.Seconds(), with(t, outcome(r.Err)))
	if r.Err == nil && r.Snapshot > 0 {
		o.rtPrepare.Record(ctx, r.Prepare.Seconds(), with(t))
		o.rtFreshness.Record(ctx, r.Freshness.Seconds(), with(t))
	}
	o.rtRows.Add(ctx, r.CommittedRows, with(t))
	o.rtMemBytes.Record(ctx, r.BuildingBytes, with(t, keySegment.String("building")))
	o.rtMemBytes.Record(ctx, r.SealedBytes, with(t, keySegment.String("sealed")))
	o.rtMemRows.Record(ctx, r.BuildingRows, with(t, keySegment.String("building")))
	o.rtMemRows.Record(ctx, r.SealedRows, with(t, keySegment.String("sealed")))
}

func (o *Reporter) compaction(ctx context.Context, r *metrics.CompactionReport) {
	t := keyTable.String(r.Table)
	o.compactDuration.Record(ctx, r.Duration.Seconds(), with(t, outcome(r.Err)))
	o.compactFiles.Add(ctx, int64(r.InputFiles), with(t, keyDirection.String("input")))
	o.compactFiles.Add(ctx, int64(r.OutputFiles), with(t, keyDirection.String("output")))
	o.compactBytes.Add(ctx, r.InputBytes, with(t, keyDirection.String("input")))
	o.compactBytes.Add(ctx, r.OutputBytes, with(t, keyDirection.String("output")))
	o.requestCounts(ctx, t, "compaction", r.Requests)
}

func (o *Reporter) expiration(ctx context.Context, r *metrics.ExpirationReport) {
	t := keyTable.String(r.Table)
	o.expireDuration.Record(ctx, r.Duration.Seconds(), with(t, outcome(r.Err)))
	o.expireSnapshots.Add(ctx, int64(r.Snapshots), with(t))
	o.expireFiles.Add(ctx, int64(r.DataFiles), with(t, keyFile.String("data")))
	o.expireFiles.Add(ctx, int64(r.ManifestFiles), with(t, keyFile.String("manifest")))
	o.requestCounts(ctx, t, "expiration", r.Requests)
}
