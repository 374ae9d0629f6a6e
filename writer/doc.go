// Package writer writes Arrow record batches into a Paimon table's data
// files and hands the new files over as commit messages (package commit
// publishes them as a snapshot).
//
// It mirrors Java Paimon's write path (apache/paimon paimon-core):
// table.sink.TableWriteImpl (null checks, row kinds, partition and bucket
// extraction), operation.AbstractFileStoreWrite (one writer per
// partition-bucket, restore of the bucket's files from the latest snapshot),
// append.AppendOnlyWriter with io.RowDataRollingFileWriter (append tables),
// mergetree.MergeTreeWriter with SortBufferWriteBuffer and
// io.KeyValueFileWriterFactory (primary-key tables), and their compact
// managers (mergetree.compact.MergeTreeCompactManager,
// append.BucketedAppendCompactManager). The data files themselves are
// written by package datafile, the compactions rewritten by package
// compaction. See docs/paimon-format.md sections 1, 6, 10, 11.1 and 12.
//
// # Input
//
// Write takes batches with one column per table column, matched by name
// (any order), of the Arrow types types.ToArrow gives. A row kind may be given
// per row through an extra column (WithRowKindColumn, by default "_ROW_KIND"
// when present): Int8 with Java's RowKind bytes (0 +I, 1 -U, 2 +U, 3 -D) or
// a string column holding "+I", "-U", "+U", "-D". The table option
// "rowkind.field" names a table column (STRING) that carries the kind instead,
// as in Java. Rows without a kind are inserts.
//
// WithSequenceColumn makes a primary-key Write take each row's sequence
// number from an extra Int64 column instead of assigning its own: with
// WithRowKindColumn(ValueKindColumn) and WithSequenceColumn(SequenceNumberColumn)
// it writes batches that already carry the KeyValue system columns (the
// real-time layer's flush), and the level-0 files hold exactly the given
// numbers.
//
// # Routing
//
// Route runs Write's checks and partition-bucket assignment on a batch and
// returns each partition-bucket's rows (Share), optionally sorted by the
// trimmed primary key, without writing; NextSequenceNumber tells where a
// partition-bucket's sequence numbers continue (the restore of a new
// writer). Together they let the real-time layer keep rows in memory per
// partition-bucket and later flush them through a Write.
//
// # Layout
//
// Partition and bucket of each row are computed from BinaryRows exactly as
// Java does (row.Encode, row.Bucket), so files land in the directories Java
// expects: <partition path>/bucket-<N>/data-<uuid>-<n>.parquet, where uuid is
// random per partition-bucket writer and n counts that writer's files from
// 0. Files roll over at target-file-size. Supported bucket modes: fixed
// (bucket = N > 0) for every table, bucket-unaware (bucket = -1) for append
// tables and dynamic (bucket = -1 with a primary key that holds every
// partition field; Java HashBucketAssigner with one assigner): each key is
// assigned a bucket by the hash of its trimmed primary key through the
// partition's HASH index files of the snapshot the Write restored from
// (package hashindex, loaded per partition on first use), new keys filling
// buckets up to dynamic-bucket.target-row-num keys and opening new ones up
// to dynamic-bucket.max-buckets; PrepareCommit adds a new HASH file for
// every bucket given rows to its message (Data.NewIndexFiles), and names
// the HASH files the assignment was built from (HashIndexSeen), so the
// committer can reconcile concurrent writers. Postpone-bucket tables
// (bucket = -2, primary key) are written as Flink's batch sink writes them
// with postpone.batch-write-fixed-bucket = true, the default (Java
// PostponeBatchWriteOperator): straight into real buckets, each
// partition's count taken from its real-bucket files in the latest
// snapshot (their _TOTAL_BUCKETS; two different counts fail Write with
// ErrMixedBucketCounts), else postpone.default-bucket-num (default 1; Flink
// uses its sink parallelism there), without compaction (write-only), the
// messages carrying the partition's count. With
// postpone.batch-write-fixed-bucket = false rows go into bucket-postpone as
// Java's PostponeBucketWriter writes them (Avro, stats mode none, file name
// prefix "data--u-<commitUser>-s-<writeId>-w-", arrival order, sequence
// number -1, _TOTAL_BUCKETS -2), for a postpone compaction (package
// compaction) to route into real buckets. Cross-partition upsert tables
// (a primary key without every partition field) route rows through a key
// index bootstrapped from the restored snapshot (package keyindex, Java
// GlobalIndexAssigner; see crossPartition). Route of a cross-partition
// table returns
// ErrUnsupportedBucketMode; a missing or corrupt HASH file fails
// Write with hashindex.ErrMissing or hashindex.ErrCorrupt naming it.
//
// Primary-key tables buffer rows in a sort buffer of write-buffer-size bytes
// shared by all buckets of a Write (Java's memory pool). Each batch of at
// least 16384 rows (smaller ones are gathered first) is sorted by key and
// sequence number into an in-memory sorted run. Sequence numbers continue
// from the bucket's highest existing one (scan of the latest snapshot,
// write.sequence-number-init-mode = scan). When a Write's buffers exceed
// write-buffer-size, the largest bucket buffer is freed:
//
//   - write-buffer-spillable = true (the default since Paimon 1.3; Java
//     spills only when the engine gives the writer an IOManager, as Flink
//     and Spark do): its runs are sorted together (no two records merged)
//     into one sorted run in a local temp file
//     (BinaryExternalSortBuffer.spill). Spill files are Arrow IPC streams of
//     the KeyValue layout with the sequence number as one more key column,
//     compressed as spill-compression says (zstd at
//     spill-compression.zstd-level, lz4, none), in a directory created under
//     WithSpillDir (default os.TempDir()).
//   - once the bucket's spill files reach write-buffer-spill.max-disk-size
//     (default unlimited), or with spilling disabled: the buffer and its
//     spill files are flushed as level-0 files at once.
//
// PrepareCommit flushes every bucket: a bucket with spill files spills what
// is left in memory too, merges its runs, at most 32 files at a time
// (local-sort.max-num-file-handles may lower this), and writes the merged
// records (package merge with the table's merge engine, retractions kept)
// as level-0 files with the _KEY_*, _SEQUENCE_NUMBER and _VALUE_KIND
// columns, rolling at target-file-size. All records of a key meet in that one
// merge, so the merged records are those Java's flush produces from the same
// input. Level-0 files use Parquet row groups of 32 MiB unless
// parquet.block.size is set.
//
// Memory: the writer holds about write-buffer-size plus at most 64 MiB
// (measured with 3M rows and a 64 mb buffer in TestPKWriteMemoryBound); while
// one bucket is flushed the other buckets keep their buffers, as in Java.
// Sorted runs are kept in pieces of 4072 rows that are freed as they are
// merged, the open Parquet row group is at most 32 MiB, and an open spill
// file costs about 0.6 MiB. Java's sort-spill-threshold and
// sort-spill-buffer-size concern merges on read and compaction and do not
// apply here.
//
// Spill files are removed once merged into level-0 files (also when that
// fails), a spill file that cannot be written at once, and all of them by
// Close, which removes the spill directory. A Write that is never closed
// leaves at most its spill directory behind; it is removed when the Write is
// garbage collected (runtime.AddCleanup), but not if the process exits first.
//
// # Compaction
//
// Unless write-only = true, a Write compacts the buckets it writes, as
// Java's writers do: each partition-bucket writer restores the bucket's live
// files from the latest snapshot when it is created (primary key: its LSM
// levels; fixed-bucket append: its queue of files to compact) and adds every
// file it flushes. After each flush a primary-key bucket compacts what
// compaction.StrategyOf (universal compaction: num-sorted-run.compaction-trigger,
// compaction.max-size-amplification-percent, compaction.size-ratio, ...)
// picks, an append bucket the window of compaction.AppendPicker once
// compaction.min.file-num files wait; every full-compaction.delta-commits-th
// PrepareCommit compacts the buckets written since fully. The rewrite is
// compaction.Rewriter's (merge engines, upgrades, drop of deletes on the
// oldest level); its result is the Compact increment of the commit message,
// which the committer publishes as a COMPACT snapshot after the APPEND one.
//
// By default compactions run synchronously: PrepareCommit runs the bucket's
// compaction and waits for it (Java's batch write), and a flush of a full
// write buffer compacts only when the bucket has more than
// num-sorted-run.stop-trigger sorted runs (default compaction trigger + 3).
// WithAsyncCompaction runs them in background goroutines instead (Java's
// stream write with prepareCommit(waitCompaction = false)): at most one per
// bucket, at most n at once per Write; PrepareCommit waits only with
// commit.force-compact = true, for full compactions, or when a bucket has
// more than num-sorted-run.stop-trigger + 1 sorted runs, and a flush into a
// bucket with more than num-sorted-run.stop-trigger sorted runs waits for
// its running compaction (the write stall). Outputs of a compaction that a
// later compaction of the same prepare consumed are deleted at once; Close
// deletes outputs not handed out.
//
// Deletion-vector and first-row tables (Java's lookup tables) hide level 0
// from batch reads, so their writers compact with lookup and empty level 0
// at every PrepareCommit (see Write.PrepareCommit): level-0 files are forced
// up; first-row drops records whose key a higher level holds; with
// deletion vectors (deletion-vectors.enabled) each bucket keeps a
// deletionvector.Maintainer, restored from the latest snapshot's index
// manifest, in which compaction marks the rows newer records replace, and
// the changed vectors go into a new index file of the commit message.
// After a commit of its messages failed for good, Write.Restore makes the
// writers restore levels and vectors from the latest snapshot again; so it
// does after ErrStale, which Write and PrepareCommit return when files the
// writers carry were deleted under them (a rollback with expire.Rollback,
// or another job's compaction followed by expiration).
//
// Bucket-unaware append tables are never compacted by the writer (Java
// leaves them to a dedicated compaction, package compaction's Compact), nor
// are tables whose compaction package compaction does not implement
// (force-lookup, row tracking, data evolution): those are written as without compaction, except
// deletion-vector and first-row tables, which New refuses then (their rows
// would never become visible) unless write-only = true, and
// changelog-producer = lookup or full-compaction tables (refused with
// ErrNoChangelog unless write-only = true).
//
// Changelog-producer = lookup tables compact level 0 up at every
// PrepareCommit (Java LookupSinkWrite with lookup-wait); full-compaction
// tables compact fully every full-compaction.delta-commits commits, every
// commit when unset (Java's Flink sink). Their compactions write changelog
// files (package compaction), which the messages carry in
// CompactIncrement.ChangelogFiles.
//
// # Changelog (changelog-producer = input)
//
// A primary-key table with changelog-producer = input gets its input as
// changelog (Java MergeTreeWriter with ChangelogProducer.INPUT): every flush
// of a bucket's write buffer (at PrepareCommit, or when the buffer is full)
// writes all buffered records, unmerged, with their row kinds and sequence
// numbers, sorted by key and sequence number, to level-0 key-value files
// named changelog-file.prefix ("changelog-") + uuid + counter, in
// changelog-file.format, -compression and -stats-mode where set, else as
// level-0 data files; they go into the message's Data.ChangelogFiles and
// the committer into the changelog manifest list of the APPEND snapshot.
// Within one key Java sorts by the sequence.field values before the
// sequence number; this writer sorts by the sequence number only.
//
// # Errors
//
// Input problems are reported before anything of the batch is written:
// ErrSchemaMismatch, ErrNullViolation, ErrRowKind, ErrSequenceNumber, and
// the wrapped errors of package row (partition values without a path form).
// Route reports the same errors as Write. ErrUnsupported and
// ErrUnsupportedBucketMode name the table option that is not supported.
// ErrStale (wrapping fileio.ErrNotExist) reports that a compaction or a
// bucket's deletion-vector restore needed a file of the Write's state that
// the table no longer has (see Write.Restore).
// ErrBucketCountChanged reports a partition whose existing files were written
// with another bucket count. A failed compaction returns its error (wrapped,
// naming the bucket) from the Write or PrepareCommit that collects it. After
// an I/O error the Write should be closed.
package writer
