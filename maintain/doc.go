// Package maintain runs table maintenance after commits, as Java Paimon's
// TableCommitImpl does after every commit and overwrite: snapshot
// expiration (ExpireSnapshotsImpl through package expire) and partition
// expiration (PartitionExpire). A Maintainer implements commit.Maintainer;
// paimon.Table.NewCommit and realtime.Context.NewCommit install one by
// default, so every Go writer keeps a table bounded as Java writers do
// (commit.WithMaintainer(nil) turns it off for one committer, the table
// option write-only = true for every writer).
//
// # Options and defaults (Java CoreOptions)
//
// Snapshots: snapshot.num-retained.min (10), snapshot.num-retained.max
// (Integer.MAX_VALUE), snapshot.time-retained (1 h), snapshot.expire.limit
// (50) and snapshot.expire.execution-mode (sync; async runs in a
// background goroutine, one run at a time, that Committer.Close waits for).
// Tables with bucket = -2 (postpone) keep their snapshots, as in Java.
//
// Partitions: partition.expiration-time (unset: never), checked every
// partition.expiration-check-interval (1 h, counted from the creation of
// the Maintainer as in Java; 0 checks after every commit; with
// end-input.check-partition-expire = true a batch commit, identifier
// commit.BatchIdentifier, checks too). Strategy values-time (default) parses
// the partition values with partition.timestamp-pattern (default: the
// first value) and partition.timestamp-formatter (default yyyy-MM-dd with
// optional HH:mm:ss); a partition expires when that wall-clock time is
// before now − expiration-time. Values that do not parse, and null values,
// never expire. Strategy update-time expires a partition whose newest data
// file was created before now − expiration-time. At most
// partition.expiration-max-num (100) partitions are dropped per check, in
// the order of their values, partition.expiration-batch-size per OVERWRITE
// snapshot (commit.Committer.DropPartitions under the same commit user).
//
// # Cost
//
// Nothing is read from the store after a commit unless something is due:
// the Maintainer keeps the earliest snapshot id and the commit time of its
// successor in memory (one GET each per expiration), and partitions are
// read only once per check interval. When a snapshot is due, one
// expire.Expire run removes what is due (up to snapshot.expire.limit).
// BenchmarkCommitAutoExpiry compares the commit p50 with and without a
// Maintainer, interleaved on MinIO (go test -run XXX -bench
// CommitAutoExpiry -benchtime 100x ./maintain/): about 1x when nothing is
// due (0.86x and 1.14x in two runs on a loaded 2-core machine), about 1x
// in async mode with a snapshot expired after every commit (1.09x, 0.91x),
// and 5.6x to 7x in sync mode then, where the commit call waits for a whole
// expiration run (some 30 requests, a few of them concurrent).
//
// # Errors
//
// Maintenance never fails the commit that triggered it: the snapshot is
// published by then, and an error returned from the commit call would make
// callers retry it. Errors wrap ErrSnapshotExpiration or
// ErrPartitionExpiration and go to Options.OnError, or are logged through
// log/slog at level Error (Java logs them); LastError and Stats report them
// too. Expirations running in several processes at once are safe: each
// deletes only files that no snapshot it keeps refers to, the EARLIEST hint
// is written before anything is deleted, and a run that finds its snapshots
// gone fails without deleting anything and is retried after a later commit.
package maintain
