// Package maintaintest holds the model-based test of table maintenance
// (issue 6, acceptance "Model-based test") and the tests of the cases from
// public bug reports that the issue restates.
//
// TestMaintain drives a partitioned primary-key table (2 buckets) through
// random steps: writes of +I, +U and -D rows across keys and partitions,
// committed through writer.Write (which compacts inside PrepareCommit: minor
// compactions with num-sorted-run.compaction-trigger 2 or 3, full ones every
// full-compaction.delta-commits for some seeds, none for write-only writers),
// dedicated compactions (compaction.Compact, minor and full), snapshot
// expiration (expire.Expire with retain counts of 1 to 6 and time
// thresholds), on-demand manifest compactions (commit.CompactManifests;
// each seed also merges manifests by threshold at every commit never, from
// two manifests on, or fully), tag creation and deletion (package tag) and rollbacks to a
// snapshot or a tag (expire.Rollback). After every step it checks the table
// against an in-memory model: the snapshots, EARLIEST, LATEST and tags are
// the model's; every retained snapshot and every tag reads exactly the rows
// the model recorded for it (time travel); and no listed snapshot or tag
// names a data file or deletion-vector index file that is gone (case (d)),
// while the read of all levels equals every row committed. Tables whose
// batch reads skip level 0 (deletion vectors, first-row) are modelled with
// what a read sees (rows as of the last compaction of level 0) besides what
// was committed. It runs for each merge engine (deduplicate, partial-update,
// aggregation with sum and max, first-row), with and without sequence.field
// (deduplicate, partial-update) and with and without deletion vectors (not
// for first-row, which Java refuses with deletion vectors).
//
// The model is semantic: per key it keeps the merged record, not the files,
// so it does not depend on what compaction picks. The generator only makes
// writes whose outcome Java Paimon defines independently of how flushes and
// compactions group records (see generator in model_test.go for the rules
// and why each is needed).
//
// The cases: TestLowerSequenceLoses (a), TestSequenceGroupPrimaryKeyRejected
// (b), TestFirstRowAfterCompaction (c), TestExpireInterrupted (d),
// TestIsNullUnknownNullCount and TestIsNullAddedColumn (e), and
// TestCommitterAfterRollback (a Committer kept open across a rollback).
//
// faults_test.go puts compaction.Compact (full and minor; primary-key,
// deletion-vector and bucket-unaware append tables), Committer.CompactManifests
// and orphan.Clean behind a MinIO fault proxy: named faults (denied, 500
// once or always, lost answers, failed GETs, LISTs and DELETEs) and every
// PUT of a reference run failed or crashed in turn. Each run either fails
// with the error naming the request or succeeds; the table keeps every
// snapshot's rows, a rerun finishes the job with the layout of an
// uninterrupted run, and orphan cleaning leaves exactly the referenced files.
//
// The package has no non-test code; run it with
//
//	go test ./internal/maintaintest
//	go test ./internal/maintaintest -run TestMaintain -maintain.seeds=20 -maintain.steps=40
//	go test ./internal/maintaintest -run 'TestMaintain/dedup-seq/' -maintain.seed=7 -v
package maintaintest
