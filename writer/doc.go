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
// Primary-key tables buffer rows in memory up to write-buffer-size (shared by
// all buckets of a Write; the largest buffer is flushed first), sorted by key
// then sequence number; records of one key in a buffer are merged with the
// table's merge engine (package merge, keeping retractions) before a level-0
// file is written with the _KEY_*, _SEQUENCE_NUMBER and _VALUE_KIND columns.
// Sequence numbers continue from the bucket's highest existing one (scan of
// the latest snapshot, write.sequence-number-init-mode = scan).
//
// # Errors
//
// Input problems are reported before anything of the batch is written:
// ErrSchemaMismatch, ErrNullViolation, ErrRowKind, and the wrapped errors of
// package row (partition values without a path form). ErrUnsupported and
// ErrUnsupportedBucketMode name the table option that is not supported.
// ErrBucketCountChanged reports a partition whose existing files were written
// with another bucket count. After an I/O error the Write should be closed.
package writer
