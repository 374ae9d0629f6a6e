// Package writer writes Arrow record batches into a Paimon table's data
// files and hands the new files over as commit messages (package commit
// publishes them as a snapshot).
//
// It mirrors Java Paimon's write path (apache/paimon paimon-core):
// table.sink.TableWriteImpl (null checks, row kinds, partition and bucket
// extraction), operation.AbstractFileStoreWrite (one writer per
// partition-bucket, restore of the bucket's files from the latest snapshot),
// append.AppendOnlyWriter with io.RowDataRollingFileWriter (append tables) and
// mergetree.MergeTreeWriter with SortBufferWriteBuffer and
// io.KeyValueFileWriterFactory (primary-key tables). See
// shared/docs/paimon-format.md sections 1, 6, 10, 11.1 and 12.
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
// (bucket = N > 0) for every table and bucket-unaware (bucket = -1) for
// append tables; dynamic (-1 with a primary key) and postpone (-2) buckets
// return ErrUnsupportedBucketMode.
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
// # Errors
//
// Input problems are reported before anything of the batch is written:
// ErrSchemaMismatch, ErrNullViolation, ErrRowKind, ErrSequenceNumber, and
// the wrapped errors of package row (partition values without a path form).
// Route reports the same errors as Write. ErrUnsupported and
// ErrUnsupportedBucketMode name the table option that is not supported.
// ErrBucketCountChanged reports a partition whose existing files were written
// with another bucket count. After an I/O error the Write should be closed.
package writer
