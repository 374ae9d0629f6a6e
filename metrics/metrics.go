// Package metrics is how paimon-go reports what its table operations did:
// a commit, a scan plan, a real-time commit, a compaction, an expiration.
// Each operation hands one Report to the Reporter it was given; the
// default, Nop, drops it. Reports are plain values, so a Reporter may keep
// them, log them (Slog), or turn them into instruments (package
// metrics/otel).
//
// The shape follows Apache Iceberg's metrics reporting (MetricsReporter,
// ScanReport, CommitReport), which iceberg-go and the Java engines share;
// the fields are Paimon's: snapshot, manifest, data file, bucket, level.
// Java Paimon reports similar figures through its metric groups
// (org.apache.paimon.operation.metrics.CommitMetrics, ScanMetrics,
// CompactionMetrics).
//
// The package sits below every other package of the module and imports
// none of them.
package metrics

import (
	"context"
	"log/slog"
	"sync"
	"time"
)

// Report is one operation's report: *CommitReport, *ScanReport,
// *RealtimeReport, *CompactionReport or *ExpirationReport.
type Report interface {
	// Operation names the report's kind: "commit", "scan", "realtime",
	// "compaction" or "expiration".
	Operation() string
	// LogAttrs returns the report as structured log attributes.
	LogAttrs() []slog.Attr
}

// Reporter receives reports. Report is called synchronously at the end of
// the operation, from the goroutine that ran it, possibly from many
// goroutines at once; it should return quickly and must not keep ctx.
type Reporter interface {
	Report(ctx context.Context, r Report)
}

// Nop is the Reporter that drops every report: the default.
type Nop struct{}

// Report does nothing.
func (Nop) Report(context.Context, Report) {}

// Func adapts a function to Reporter.
type Func func(ctx context.Context, r Report)

// Report calls f.
func (f Func) Report(ctx context.Context, r Report) { f(ctx, r) }

// Multi hands every report to each of its Reporters in order.
type Multi []Reporter

// Report calls each Reporter.
func (m Multi) Report(ctx context.Context, r Report) {
	for _, x := range m {
		x.Report(ctx, r)
	}
}

// Or returns r, or Nop when r is nil.
func Or(r Reporter) Reporter {
	if r == nil {
		return Nop{}
	}
	return r
}

// Slog logs every report at level Info on Logger (slog.Default when nil)
// as the message "paimon <operation>" with the report's LogAttrs. Durations
// are slog.Duration values: integer nanoseconds in slog's JSON handler.
type Slog struct {
	Logger *slog.Logger
}

// Report logs r.
func (s Slog) Report(ctx context.Context, r Report) {
	l := s.Logger
	if l == nil {
		l = slog.Default()
	}
	l.LogAttrs(ctx, slog.LevelInfo, "paimon "+r.Operation(), r.LogAttrs()...)
}

// Recorder keeps every report it receives, for tests and tools. It is safe
// for concurrent use.
type Recorder struct {
	mu      sync.Mutex
	reports []Report
}

// Report keeps r.
func (c *Recorder) Report(_ context.Context, r Report) {
	c.mu.Lock()
	c.reports = append(c.reports, r)
	c.mu.Unlock()
}

// Reports returns the reports received so far, oldest first, and forgets
// them.
func (c *Recorder) Reports() []Report {
	c.mu.Lock()
	defer c.mu.Unlock()
	out := c.reports
	c.reports = nil
	return out
}

// Requests counts store requests by kind; each retry is a request. It has
// fileio.Stats's fields in its order, so a fileio.Stats converts to it
// (metrics.Requests(stats)) without this package importing fileio.
type Requests struct {
	Get, Put, List, Delete, Head int64
}

// Total is the sum of the counts.
func (r Requests) Total() int64 { return r.Get + r.Put + r.List + r.Delete + r.Head }

func (r Requests) attr() slog.Attr {
	return slog.Group("requests", slog.Int64("get", r.Get), slog.Int64("put", r.Put), slog.Int64("list", r.List),
		slog.Int64("delete", r.Delete), slog.Int64("head", r.Head))
}

// errAttr is the attribute of an operation's error: "" when it succeeded.
func errAttr(err error) slog.Attr {
	if err == nil {
		return slog.String("error", "")
	}
	return slog.String("error", err.Error())
}

// CommitReport reports one call that publishes snapshots: Commit,
// CommitWithProgress, Overwrite, DropPartitions, Truncate (package commit).
type CommitReport struct {
	Table      string // the table's URL, without secrets
	CommitUser string
	// Identifier is the commit identifier the caller gave.
	Identifier int64
	// Snapshots are the ids of the snapshots published, in order (an
	// append and a compaction part make two); none for an empty or
	// already-committed call, or a failed one.
	Snapshots []int64
	// Duration is the call's wall-clock time.
	Duration time.Duration
	// Attempts counts the snapshot creations tried; LostRaces the ones
	// another writer's snapshot took (each is retried).
	Attempts, LostRaces int
	// Phases are the wall-clock spans of the attempts that published, by
	// commit.Phase name ("manifests", "manifest-lists", "offsets",
	// "snapshot"), summed over the snapshots of the call; "retry" sums the
	// lost attempts. Manifests, manifest lists and offsets are written
	// concurrently, so their spans overlap (see commit.Phase) and may add
	// up to more than Duration.
	Phases map[string]time.Duration
	// AddedFiles, DeletedFiles count data files of the commit messages
	// (new and compaction outputs; deleted and compaction inputs);
	// AddedBytes, DeletedBytes their sizes; AddedRecords the row count of
	// the added files; ChangelogFiles the changelog files.
	AddedFiles, DeletedFiles int
	AddedBytes, DeletedBytes int64
	AddedRecords             int64
	ChangelogFiles           int
	// Requests are the store requests of the committer's FileIO during the
	// call (other users of the same FileIO count too). On object stores the
	// committer writes the LATEST hint and prepares the next base list in
	// the background after the call returns: those PUTs are not counted.
	Requests Requests
	// Err is the call's error, nil on success.
	Err error
}

// Operation returns "commit".
func (*CommitReport) Operation() string { return "commit" }

// LogAttrs returns the report's fields.
func (r *CommitReport) LogAttrs() []slog.Attr {
	phases := make([]any, 0, len(r.Phases))
	for _, p := range phaseOrder {
		if d, ok := r.Phases[p]; ok {
			phases = append(phases, slog.Duration(p, d))
		}
	}
	return []slog.Attr{
		slog.String("table", r.Table), slog.String("commit_user", r.CommitUser), slog.Int64("identifier", r.Identifier),
		slog.Any("snapshots", r.Snapshots), slog.Duration("duration", r.Duration),
		slog.Int("attempts", r.Attempts), slog.Int("lost_races", r.LostRaces), slog.Group("phases", phases...),
		slog.Int("added_files", r.AddedFiles), slog.Int("deleted_files", r.DeletedFiles),
		slog.Int64("added_bytes", r.AddedBytes), slog.Int64("deleted_bytes", r.DeletedBytes),
		slog.Int64("added_records", r.AddedRecords), slog.Int("changelog_files", r.ChangelogFiles),
		r.Requests.attr(), errAttr(r.Err),
	}
}

// phaseOrder is the order of commit phases in logs.
var phaseOrder = []string{"retry", "manifests", "manifest-lists", "offsets", "snapshot"}

// ScanReport reports one scan plan (reader.Scan.Plan).
type ScanReport struct {
	Table string
	// Snapshot is the id of the snapshot planned; 0 for an empty table.
	Snapshot int64
	// Filter is the scan's predicate as text; "" for none.
	Filter   string
	Duration time.Duration
	// Manifests are the manifest files listed by the snapshot's manifest
	// lists; ManifestsSkipped those pruned by their partition statistics
	// or bucket range, never read.
	Manifests, ManifestsSkipped int
	// Entries are the manifest entries read; PrunedByPartition,
	// PrunedByBucket, PrunedByStats and PrunedByIndex count the entries
	// dropped by the partition filter, the bucket selection, the file's
	// key or value statistics, and its file index.
	Entries                                                         int
	PrunedByPartition, PrunedByBucket, PrunedByStats, PrunedByIndex int
	// Splits and DataFiles are the plan's; DataBytes the data files' size.
	Splits, DataFiles int
	DataBytes         int64
	Requests          Requests
	Err               error
}

// Operation returns "scan".
func (*ScanReport) Operation() string { return "scan" }

// LogAttrs returns the report's fields.
func (r *ScanReport) LogAttrs() []slog.Attr {
	return []slog.Attr{
		slog.String("table", r.Table), slog.Int64("snapshot", r.Snapshot), slog.String("filter", r.Filter),
		slog.Duration("duration", r.Duration), slog.Int("manifests", r.Manifests), slog.Int("manifests_skipped", r.ManifestsSkipped),
		slog.Int("entries", r.Entries), slog.Int("pruned_by_partition", r.PrunedByPartition), slog.Int("pruned_by_bucket", r.PrunedByBucket),
		slog.Int("pruned_by_stats", r.PrunedByStats), slog.Int("pruned_by_index", r.PrunedByIndex),
		slog.Int("splits", r.Splits), slog.Int("data_files", r.DataFiles), slog.Int64("data_bytes", r.DataBytes),
		r.Requests.attr(), errAttr(r.Err),
	}
}

// RealtimeReport reports one commit of a real-time context
// (realtime.Commit.CommitWithProgress): what it made durable, what the
// context held in memory, and how long the rows waited.
type RealtimeReport struct {
	Table string
	// Snapshot is the snapshot that records the progress (the one
	// CommitWithProgress returns; compaction changes may publish one
	// more, see the CommitReport); 0 when there was nothing to publish or
	// the commit failed.
	Snapshot int64
	// Ranges are the partition-buckets whose offsets the commit advanced;
	// CommittedRows the offsets they advanced by (rows made durable).
	Ranges        int
	CommittedRows int64
	// BuildingBytes, SealedBytes, BuildingRows and SealedRows are what
	// the context's stores held when the commit began (realtime.Usage).
	BuildingBytes, SealedBytes, BuildingRows, SealedRows int64
	// Prepare sums the PrepareCommitWithProgress calls since the previous
	// commit (writing the data files); Commit is the time to publish.
	Prepare, Commit time.Duration
	// Freshness is the time from the start of the first of those prepares
	// (when the oldest committed rows were sealed) to the publication.
	Freshness time.Duration
	Err       error
}

// Operation returns "realtime".
func (*RealtimeReport) Operation() string { return "realtime" }

// LogAttrs returns the report's fields.
func (r *RealtimeReport) LogAttrs() []slog.Attr {
	return []slog.Attr{
		slog.String("table", r.Table), slog.Int64("snapshot", r.Snapshot), slog.Int("ranges", r.Ranges),
		slog.Int64("committed_rows", r.CommittedRows), slog.Int64("building_bytes", r.BuildingBytes),
		slog.Int64("sealed_bytes", r.SealedBytes), slog.Int64("building_rows", r.BuildingRows), slog.Int64("sealed_rows", r.SealedRows),
		slog.Duration("prepare", r.Prepare), slog.Duration("commit", r.Commit), slog.Duration("freshness", r.Freshness), errAttr(r.Err),
	}
}

// CompactionReport reports one compaction run (package compaction).
type CompactionReport struct {
	Table string
	// Snapshot is the snapshot published; 0 when nothing was compacted.
	Snapshot int64
	Duration time.Duration
	// Buckets are the buckets compacted; InputFiles/InputBytes the files
	// rewritten, OutputFiles/OutputBytes the files written.
	Buckets                 int
	InputFiles, OutputFiles int
	InputBytes, OutputBytes int64
	Requests                Requests
	Err                     error
}

// Operation returns "compaction".
func (*CompactionReport) Operation() string { return "compaction" }

// LogAttrs returns the report's fields.
func (r *CompactionReport) LogAttrs() []slog.Attr {
	return []slog.Attr{
		slog.String("table", r.Table), slog.Int64("snapshot", r.Snapshot), slog.Duration("duration", r.Duration),
		slog.Int("buckets", r.Buckets), slog.Int("input_files", r.InputFiles), slog.Int("output_files", r.OutputFiles),
		slog.Int64("input_bytes", r.InputBytes), slog.Int64("output_bytes", r.OutputBytes), r.Requests.attr(), errAttr(r.Err),
	}
}

// ExpirationReport reports one snapshot expiration (package expire).
type ExpirationReport struct {
	Table    string
	Duration time.Duration
	// Snapshots are the snapshots expired; DataFiles, ManifestFiles the
	// files deleted.
	Snapshots, DataFiles, ManifestFiles int
	Requests                            Requests
	Err                                 error
}

// Operation returns "expiration".
func (*ExpirationReport) Operation() string { return "expiration" }

// LogAttrs returns the report's fields.
func (r *ExpirationReport) LogAttrs() []slog.Attr {
	return []slog.Attr{
		slog.String("table", r.Table), slog.Duration("duration", r.Duration), slog.Int("snapshots", r.Snapshots),
		slog.Int("data_files", r.DataFiles), slog.Int("manifest_files", r.ManifestFiles), r.Requests.attr(), errAttr(r.Err),
	}
}
