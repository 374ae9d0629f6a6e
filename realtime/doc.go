// Package realtime is the real-time layer of Paimon (PIP-46, first built in
// apache/paimon-cpp as RealtimeContext, RealtimeStore and the *WithProgress
// operations): rows a writer accepts are queryable at once from the same
// process through a pluggable in-memory Store, commits roll sealed rows into
// ordinary data files and record per partition-bucket progress with the
// snapshot (package progress), and scans union the committed files with the
// in-memory rows above that progress.
//
// See docs/realtime-design.md for the contract this package mirrors.
//
// # Pieces
//
// A Context (paimon.Table.NewRealtimeContext, or NewContext with any
// Factory; the default store is package memindexer) is shared by every
// real-time Write, Commit and Scan of one table in one process. It keeps
// one Store per partition-bucket, the committed progress it has adopted
// and the read views scans pinned. Only tables with realtime.enabled=true
// and a fixed bucket count (bucket > 0) are served.
//
//	rc, _ := tbl.NewRealtimeContext()
//	w, _ := rc.NewWrite("job-1")
//	cm, _ := rc.NewCommit("job-1")
//	_ = w.Write(ctx, rec)                           // visible to rc's scans now
//	prog, _ := w.PrepareCommitWithProgress(ctx, 1)  // seal + flush to data files
//	id, _ := cm.CommitWithProgress(ctx, prog, 1, nil)
//	_ = rc.RefreshCommittedSnapshot(ctx, id)        // lets the stores reclaim
//	plan, _ := rc.NewScan().Plan(ctx)               // files + memory above them
//	for rec, err := range plan.Records(ctx) { ... }
//
// # Offsets and exactly-once replay
//
// Every row has an offset, an int64 position within its partition-bucket
// that is progress metadata only: it never reaches a data file. A snapshot
// records, per partition-bucket, the exclusive end of the offsets its
// files hold (ReadCommittedOffsets). Offsets come from one of two sources:
//
//   - Application offsets: the batch's first column is _REALTIME_OFFSET
//     (OffsetColumn), e.g. the Kafka offset or WAL position of each row;
//     strictly increasing per partition-bucket, gaps allowed.
//   - Framework offsets: without that column each partition-bucket numbers
//     its rows 0, 1, 2, ... continuing from the committed end.
//
// For exactly-once ingestion choose application offsets taken from the
// source, and use one source partition (or one totally ordered stream) per
// table writer. After any failure (a failed prepare or commit, a crash),
// discard the Context and its writers, read the durable ends with
// ReadCommittedOffsets from the latest snapshot, and replay from the
// source every row whose offset, in its partition-bucket, is at or above
// the end: rows below it are in the table, rows above it are not, and a
// replayed row below the end would be rejected (ErrOffsetOrder) rather than
// written twice. Ends differ between partition-buckets, so a source stream
// that feeds several partition-buckets must filter per row: route each
// replayed row (writer.Write.Route on a writer of the table gives its
// partition and bucket) and drop it when its offset is below that
// partition-bucket's end; a batch with one such row is rejected as a whole.
// The simplest layout is one source partition per Paimon partition-bucket,
// each replayed from its own end. Framework offsets only say how many rows of a
// partition-bucket are durable, so the application must itself map that
// count back to a position in its source (possible when it routes rows to
// partition-buckets deterministically and never reorders); they suit
// sources without offsets and tests.
//
// # Visibility
//
// A scan acquires one read view per partition-bucket, then plans the disk
// snapshot. For each partition-bucket with memory rows it makes a
// real-time Split with the committed end C recorded by the planned
// snapshot (never the context's newer progress) and the view's end M, and
// reads exactly the memory rows with C <= offset < M: rows below C are in
// the snapshot's files. Append tables read the files, then the memory rows;
// primary-key tables merge the memory rows, as the newest sorted runs,
// with every file under the table's merge engine. A split pins its view by
// a single-use ticket valid for realtime.read-view-ttl (default 5 min). A scan filter
// reaches the stores only as a pruning hint that cannot change the merged
// result: all of it for append tables, its primary-key conjuncts for
// primary-key tables. A Scan planned repeatedly reuses its disk plan while
// the latest snapshot is unchanged, so a repeated small query costs a
// snapshot-id check plus the memory it reads.
//
// # Failure contract
//
// A failed CommitWithProgress is terminal for the writer state that
// produced the progress; recover as described above. A failed
// PrepareCommitWithProgress hands out nothing and leaves the sealed rows
// in the stores, so it may be retried. RefreshCommittedSnapshot fails with
// ErrRecreateContext, leaving memory untouched, when the snapshot does not
// extend the context's progress (truncate, overwrite, rollback, a dropped
// partition this context writes to). Concurrent rollbacks or partition
// drops by other processes are not fenced.
package realtime
