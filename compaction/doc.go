// Package compaction compacts the data files of a Paimon table: the LSM
// sorted runs of primary-key buckets and the small files of append tables,
// committed as COMPACT snapshots (format spec sections 11.2, 11.3, 12, 13).
//
// It mirrors these Java classes of apache/paimon (paimon-core):
//   - mergetree.Levels, SortedRun, LevelSortedRun: Levels, SortedRun,
//     LevelSortedRun (level 0 one run per file, newest first by maximum
//     sequence number; one run per higher level);
//   - mergetree.compact.UniversalCompaction, EarlyFullCompaction,
//     OffPeakHours, ForceUpLevel0Compaction and
//     CompactStrategy.pickFullCompaction: Strategy.Pick and PickFull;
//   - MergeTreeCompactManager.triggerCompaction (the drop-delete rule):
//     Levels.DropDeletes;
//   - mergetree.compact.IntervalPartition: IntervalPartition;
//   - MergeTreeCompactTask, FileRewriteCompactTask and the upgrade rules of
//     MergeTreeCompactRewriter / LookupMergeTreeCompactRewriter: PlanSteps;
//   - the rewrite itself (MergeTreeCompactRewriter.rewriteCompaction with
//     KeyValueFileWriterFactory's rolling writer, FileSource COMPACT):
//     Rewriter.Run, merging through package merge with the table's merge
//     engine, exactly as reads do, reading files through
//     reader.ReadDataFile and writing them through package datafile;
//   - append.BucketedAppendCompactManager and append.AppendCompactCoordinator:
//     AppendPicker (PickBucketedNext is one pickCompactBefore of a writer's
//     queue); BaseAppendFileStoreWrite.compactRewrite for the rewrite;
//   - the dedicated compaction job (CompactAction, compact procedure):
//     Compact;
//   - LookupMergeTreeCompactRewriter with LookupChangelogMergeFunctionWrapper
//     (deletion vectors) or FirstRowMergeFunctionWrapper (first-row) over
//     LookupLevels: Step.MarkDeleted and Step.Lookup, DVLookup.
//
// Package writer compacts inside the writer with the same pieces (its
// compact managers keep Levels updated with Levels.Update and run
// Rewriter.Run); this package does not depend on it.
//
// # Primary-key buckets
//
// NewPlan lists the live files of every bucket of the latest snapshot, builds
// its Levels and lets the strategy pick a Unit (or PickFull with
// Options.Full). Execute runs the unit's steps: files that need no rewrite
// (a single non-overlapping run above the small-file size, no deletes to drop)
// are upgraded — the same file under the output level, Compact.Before holding
// the old meta and Compact.After the same name at the new level; everything
// else is read (old schemas evolved by field id), merged section by section
// with package merge (DropDeletes only when the output level holds the
// oldest data) and written as Parquet files of the KeyValue layout at the
// output level, rolling at target-file-size, with the metadata Java's
// KeyValueDataFileWriter records (min/max key, key and value stats under the
// stats modes, min/max sequence number, delete row count, level, schema id,
// creation time, file source COMPACT).
//
// # Lookup compaction: first-row and deletion vectors
//
// Batch reads of first-row and deletion-vector tables skip level 0 and read
// the higher levels without merging, so their compaction keeps every key
// once above level 0, the way Java's lookup compaction does it: level 0 is
// always forced up (ForceUpLevel0Compaction), and when level-0 records reach
// a level above 0 the key is looked up on the levels above the output level
// (DVLookup: each level read sequentially in key order, files whose key
// range cannot hold the key skipped):
//
//   - first-row: a level-0 record whose key exists above is dropped (the key
//     keeps its first row there);
//   - deletion vectors (deletion-vectors.enabled, Task.DVs the bucket's
//     deletionvector.Maintainer): the version found above is marked deleted
//     in the bucket's vectors; with deduplicate and no sequence.field the
//     keys of the merged output are looked up, otherwise the version found is
//     also merged in among the key's records, ordered by sequence.field and
//     sequence number as LookupMergeFunction.insertInto does, so that
//     partial-update, aggregation and a lower sequence.field behave as on a
//     merged read. Inputs are read without the rows their vectors delete,
//     retractions are dropped whenever the output level is above 0, and
//     rewritten inputs lose their vectors. A level-0 file is upgraded
//     without rewrite (its keys still looked up and marked) only when it has
//     no deletes and either the merge engine is deduplicate without
//     sequence.field or the output is the highest level; a full compaction
//     of a single highest-level run rewrites the files that have a vector.
//     Execute writes each changed bucket's vectors into one new index file
//     (Compact.NewIndexFiles) that replaces the bucket's previous ones
//     (Compact.DeletedIndexFiles); first-row tables with deletion vectors are
//     refused, as Java refuses them.
//
// # Append tables
//
// Fixed buckets: the sliding window of BucketedAppendCompactManager (groups
// of compaction.min.file-num files in sequence order, the window shrinking
// while it holds 2 · target-file-size), or its full compaction. Bucket-unaware
// partitions: the bin packing of AppendCompactCoordinator. A group is
// rewritten by concatenation into files of target-file-size, rows in order,
// sequence numbers renumbered from the group's first file.
// (compaction.max.file-num no longer exists upstream: Paimon 1.1 removed it.)
//
// # Commit and conflicts
//
// Compact commits the messages with commit.Committer.Commit as one COMPACT
// snapshot. Its conflict check makes a compaction safe against concurrent
// commits: appended files stay live beside the compaction output, and a
// compaction whose input files another commit removed, or whose
// deletion-vector index files another commit replaced, fails with
// commit.ErrConflict and publishes nothing (its new files are deleted). The
// committer carries the real-time progress property (realtime.offsets)
// forward.
//
// # Postpone buckets
//
// Tables with bucket = -2 keep the rows of streaming writers (and of batch
// writes with postpone.batch-write-fixed-bucket = false) in bucket-postpone
// until a postpone compaction routes them into real buckets: Compact runs
// Postpone for them, Java's Flink CompactAction postpone path. Each
// partition's postpone files are replayed in creation order into
// bucket(key, N) for the partition's bucket count N, merged per bucket as a
// writer's flush merges, written as level-0 files after the bucket's
// sequence numbers, and committed with the deletion of the postpone files
// in one COMPACT snapshot; the committer's conflict check makes a second
// compaction of the same files fail with commit.ErrConflict. A partition's
// postpone rows are held in memory while they are routed. Deletion-vector
// and first-row tables, whose batch reads skip level 0, have each bucket
// that received rows compacted (postpone_lookup.go: universal picks with
// ForceUpLevel0, the lookups of Run) until its level 0 is empty, and the
// outputs and the new deletion-vector index file join the same snapshot,
// as Java's real-table writer waits for its lookup compaction.
//
// # Memory
//
// One bucket is rewritten per Options.Parallelism slot (P buckets at once).
// A bucket's rewrite merges each section's sorted runs at once (at most R,
// the bucket's runs), each run reading one file at a time, and writes one
// output file at a time. Peak memory is about
//
//	P · (R · (G + C·p + B) + W + C·p + D + H + Z)
//
// independent of the number of buckets, where
//
//   - G is the current row group of a run's file, compressed (the Parquet
//     reader reads a row group's column chunks whole): at most the input
//     files' row group size (32 MiB for files of package writer and of
//     compaction unless parquet.block.size is set; Java writes 128 MiB)
//     and at most the file;
//   - C·p is the current page of each of the C columns, decompressed when
//     read and being encoded when written (parquet.page.size p = 1 MiB of
//     values at most, less in smaller files);
//   - B is the decoded batch a run holds (max(read.batch-size, 4096) rows);
//   - W is the output file's open row group, held as compressed pages
//     (parquet.block.size, 32 MiB unless set);
//   - D are the dictionaries of the output's dictionary-encoded columns:
//     arrow-go's hash table of a column holding 8-byte values reaches 12 MiB
//     (524,288 slots of 24 bytes) when its dictionary reaches
//     parquet.dictionary.page.size (1 MiB, 131,072 values), where the column
//     falls back to plain. Columns whose first 20,000 values are mostly
//     distinct (_SEQUENCE_NUMBER, timestamps of small files) are written
//     plain from the start and cost nothing (package format/parquet makes
//     parquet-mr's first-page decision);
//   - H are the first 20,000 rows of the output file, held for that
//     decision (referenced, not copied);
//   - Z ≈ 9.5 MiB is the zstd encoder of the bucket's writer: arrow-go
//     compresses pages with encoders from a process-wide pool, and one at
//     level 1 holds an 8 MiB history buffer (twice its 4 MiB window) plus
//     tables once it compresses a page above 64 KiB.
//
// Measured on the flights layout (C = 10 columns, about 100 bytes a row): a
// reader of a 9,400-row file (160 KB) holding one 4,096-row batch takes
// 2.0 MiB, one of a 600,000-row file (5.3 MB) 10 MiB; the writer of that
// 600,000-row output holds 29 MiB before Close (12 MiB dictionary hash
// tables of its timestamp and BIGINT columns, 9 MiB page and index
// buffers, 5 MiB of pages). cmd/compactbench --phase memory (64 buckets of
// 47,000 rows in 5 runs of 0.2 MB files, R = 5, P = 2) peaks at 63 MiB of
// live heap above its baseline, 31 MiB per bucket slot, of which 9.5 MiB
// is the zstd encoder: the fixed costs, not G and W, make the peak of small
// files.
//
// # Not implemented
//
// Changelog producers lookup
// and full-compaction (their compactions must
// write changelog files), force-lookup, lookup-compact = gentle (treated as
// radical: a standalone compaction keeps no trigger count), local lookup
// files and their cache (lookups read the levels above the output level
// again for every compaction that brings level 0 up),
// row tracking and data evolution, file formats other than Parquet, Avro
// and ORC, and record-level expiration are
// out of scope; NewPlan and NewRewriter refuse tables that need one of the
// first ones with ErrUnsupported.
//
// # Errors
//
// ErrUnsupported, ErrInvalidArgument, ErrCorrupt and ErrSchema, plus the
// wrapped errors of the packages below (commit.ErrConflict,
// merge.ErrRetract, format.ErrCorrupt, fileio.ErrNotExist, ...). Every
// error names the bucket or file involved.
package compaction
