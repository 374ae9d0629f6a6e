// Package expire removes old snapshots of a Paimon table together with the
// files only they refer to (snapshot expiration), and rolls a table back to an
// earlier snapshot or tag.
//
// Expire mirrors Java Paimon's org.apache.paimon.table.ExpireSnapshotsImpl
// with operation.SnapshotDeletion / FileDeletionBase; Rollback mirrors
// table.AbstractFileStoreTable.rollbackTo and table.RollbackHelper. The
// retention options are those of CoreOptions: snapshot.num-retained.min
// (default 10), snapshot.num-retained.max (default Integer.MAX_VALUE),
// snapshot.time-retained (default 1 h) and snapshot.expire.limit (default 50).
//
// Committers run Expire after every commit, as Java's TableCommitImpl does:
// package maintain decides from memory whether a snapshot is due and calls
// Expire only then (paimon.Table.NewCommit and realtime.Context.NewCommit
// install it; write-only = true turns it off). Expire itself may run in
// several processes at once: see Concurrent runs below.
//
// # Which snapshots expire
//
// With latest the latest and earliest the earliest snapshot id, snapshots
// below max(latest − max + 1, earliest) always expire; the expiration stops
// at latest − min + 1 (so at least min snapshots, and always the latest,
// remain), at the smallest nextSnapshot of the branch's consumers
// (consumer/consumer-<id>), after snapshot.expire.limit snapshots, and at
// the first snapshot id whose successor was committed at or after the
// time threshold (now − snapshot.time-retained): a snapshot expires only
// when the snapshot that replaced it is old enough. The first snapshot that
// is kept is called end below.
//
// # What is deleted, and in which order
//
//  1. Data files (with their extra files) that a snapshot in (earliest, end]
//     removed (DELETE entries of its delta manifests not re-added there:
//     an upgraded file stays), unless end or the latest tag older than that
//     snapshot still holds them; changelog files of the expired snapshots
//     (unless tagged).
//  2. Index files (deletion vectors, hash indexes) of the expired snapshots
//     that neither end nor any tag lists.
//  3. Manifests, then 4. manifest lists, index manifests and statistics
//     files of the expired snapshots that neither end nor any tag names.
//  5. Offsets files (the realtime.offsets property, package progress) of the
//     expired snapshots that no kept snapshot, tag or other branch names:
//     snapshots that share a file keep it (realtime-design.md section 5,
//     "Lifecycle of offsets files").
//  6. The snapshot files, oldest first, and the EARLIEST hint.
//
// When the changelog outlives the snapshots (changelog.num-retained.* or
// changelog.time-retained above the snapshot values, with a
// changelog-producer), step 1 keeps the changelog files and steps 3-4 the
// changelog manifests and lists of the expired snapshots; each snapshot's
// JSON is written as changelog/changelog-<id> before its file is deleted,
// and a changelog expiration follows (changelog.go, Java
// ExpireChangelogImpl).
//
// Every file is read before the first one is deleted: metadata that cannot be
// read (a corrupt manifest of a kept snapshot or tag) aborts the run without
// deleting anything. Missing metadata of an expired snapshot is tolerated: it
// is what an interrupted earlier run leaves.
//
// # What is never deleted
//
// Names come from metadata that may be damaged or crafted, so only paths below
// the table root with no empty, "." or ".." element are deleted (a data file
// named "../x" or "/x" would otherwise fail every run with
// fileio.ErrInvalidPath, or reach outside the table), and a realtime.offsets
// property is honoured only when it resolves to
// [branch/branch-<name>/]metadata/<name>.offsets (progress.IsFilePath): a
// property naming schema/schema-0 or a data file deletes nothing. Such names
// are skipped and reported in Result.Skipped and RollbackResult.Skipped; they
// never stop a run.
//
// # Hints that lie
//
// An EARLIEST hint naming a snapshot that does not exist (and does not move
// while it is checked) is rewritten to the earliest listed snapshot at the
// start of a run: left alone, it would hide every older snapshot once commits
// reach its id. Rollback writes EARLIEST, when it must, before it deletes the
// newer snapshots, so that an interruption cannot leave such a hint.
//
// # Interruption
//
// The EARLIEST hint is written to end before the first deletion (Java writes
// it only at the end). An interrupted run therefore leaves every snapshot from
// EARLIEST on intact and readable, and snapshot files below EARLIEST (which
// readers resolving the earliest snapshot never see) whose files may be partly
// gone. The next run expires those first, whatever its options say, and ends
// in the state an uninterrupted run would have reached. A reader that holds an
// expired snapshot gets an error wrapping fileio.ErrNotExist (a deleted data
// file or manifest) or snapshot.ErrNotFound (a deleted snapshot file), never
// wrong rows.
//
// # Concurrent runs
//
// Runs in several processes (every writer expires after its commits) do not
// break each other: a run deletes only files that neither its first kept
// snapshot nor any tag refers to, and files a snapshot removed stay
// unreferenced by every later snapshot, so what one run deletes no other
// run keeps. A run whose snapshots another run deleted meanwhile tolerates
// missing metadata of expired snapshots and fails, without deleting
// anything, when its first kept snapshot is gone (snapshot.ErrNotFound). The
// EARLIEST hint is never moved back: a run that ends below the hint another
// run wrote leaves it.
//
// # Rollback
//
// Rollback makes an earlier snapshot (or the snapshot of a tag) the latest:
// it writes the LATEST hint, deletes the newer snapshot files, newest first,
// and the tags of newer snapshots. The files only those snapshots and tags
// named are left to orphan cleaning, as Java Paimon 1.2 and later do
// (RollbackHelper.cleanLargerThan); RollbackOptions.DeleteFiles deletes them
// too, as earlier versions did. A tag whose snapshot has expired is rolled back to by recreating the
// snapshot file from the tag first, as Java does. The real-time progress of
// the table is then that of the target snapshot, which keeps its
// realtime.offsets property, and the next commit gets the target's id + 1.
package expire
