// Package commit publishes the files writers produced as new snapshots of a
// Paimon table, safely on plain object stores: the only visible step of a
// commit is creating snapshot/snapshot-<id> if absent (fileio.CreateIfAbsent:
// a conditional PUT on S3 and GCS, link(2) on local disk), so racing
// committers in any number of processes never overwrite each other and need no
// lock service.
//
// It mirrors Java Paimon's org.apache.paimon.operation.FileStoreCommitImpl
// (tryCommit / tryCommitOnce, overwritePartition, dropPartitions,
// truncateTable), ManifestFileMerger (ManifestFileLegacyMerger),
// operation.commit.ConflictDetection, OverwriteChangesProvider and
// table.sink.TableCommitImpl (filterCommitted); see
// docs/paimon-format.md section 13.
//
// # One commit
//
// Commit turns the messages into manifest entries (ADD for new files and
// compaction outputs, DELETE for removed files and compaction inputs). Each
// attempt then takes a base snapshot, merges its manifests when Java's
// thresholds say so, and writes the new manifest files, the delta manifest
// list, the merged manifests and the base manifest list in one round of
// concurrent PUTs: every file is encoded in memory first, so each list can
// name its manifests (with their sizes and statistics) before they exist,
// and nothing refers to any of them until the snapshot does. Only when all
// those PUTs have completed is snapshot-<id> created if absent; a snapshot
// never names a file that is not fully written. The LATEST hint is updated
// afterwards, off the commit's path (see Committer.Close).
//
// Expiration deletes snapshot ids, so creating the next id after a base that
// has fallen behind can succeed in a gap of expired ids, below EARLIEST,
// where no reader looks. After every create the committer reads the
// EARLIEST hint (expiration writes it before deleting any snapshot file); a
// snapshot below it is deleted again and the attempt redone on the latest
// snapshot.
//
// The base of the first attempt is the snapshot this Committer published
// last, with its manifest list kept in memory, so that a Committer that
// commits in a loop reads nothing: if another committer took the id in
// between, the create fails and the attempt is redone on the latest snapshot
// read from the store. Manifests this Committer wrote or read are kept in a
// bounded cache (they are immutable), so merging and conflict checks mostly
// avoid reads too.
//
// When another committer took the id, the attempt's base list and merged
// manifests are deleted, and after a short random wait the commit rebases:
// it reads the snapshots from the lost id on up to the latest and that
// snapshot's two manifest lists, and tries the id after it (rebaser). The
// waits do not back off exponentially as Java's do, which starves racing
// committers: they last about two attempts and shrink as a commit loses
// more, and a Committer that lost a race in its last commit waits as long
// before its next one, so that the winner of a round does not win every
// round after it (retryWaiter).
// A commit gives up with ErrRetriesExhausted after commit.max-retries lost
// races (DefaultMaxRetries, 100, when unset; Java's default is 10), or when
// its next wait would end after commit.timeout or the context's deadline.
// It gives up with ErrNoProgress, naming the path, after 3 races lost in a
// row for an id whose file then cannot be read (a directory or junk object
// there, or a refused write answered as "exists"), and with
// snapshot.ErrIDOverflow when the latest id is math.MaxInt64.
// The delta manifests do not depend on the base, so they are written once
// and reused by every attempt (except for overwrites, whose DELETE entries
// are recomputed from each base), and manifests read or written before stay
// in the entry cache. A commit that fails deletes every manifest file and
// list it wrote, and nothing else.
//
// # Kinds
//
// Commit produces an APPEND snapshot (OVERWRITE when the messages delete
// files or add deletion vectors outside compaction) and a COMPACT snapshot
// for compaction changes. Overwrite, OverwriteDynamic, DropPartitions and
// Truncate produce one OVERWRITE snapshot that deletes every live file of the
// selected partitions and adds the new files. Empty commits create no
// snapshot unless snapshot.ignore-empty-commit = false or
// commit.force-create-snapshot = true (or WithIgnoreEmptyCommit).
//
// # Real-time progress
//
// Every snapshot carries on the real-time progress (package progress, the
// snapshot property realtime.offsets naming an offsets file; paimon-cpp
// RealtimeCommitProperties) of the snapshot it builds on, decided anew on
// every attempt: Commit and the COMPACT snapshots copy the property verbatim
// (the snapshots share the offsets file), CommitWithProgress writes a new
// offsets file with its ranges applied, Truncate and full-table overwrites
// record none, and DropPartitions and partition overwrites write a new file
// without the entries of those partitions (none when nothing is left).
// An offsets file written for an attempt that is not published is deleted.
//
// # Index files
//
// The index files of the messages (deletion vectors, hash indexes: the
// NewIndexFiles and DeletedIndexFiles of DataIncrement and
// CompactIncrement) go into a new index manifest, the complete list of live
// index files that the snapshot names (Java IndexManifestFileHandler.write):
// the base snapshot's index manifest with the part's changes applied. For
// deletion vectors of bucketed tables and for hash indexes a partition-bucket
// has one index file per index type, so an added file replaces the bucket's
// previous one (BucketedCombiner); deletion vectors of bucket-unaware tables
// and global indexes are added and deleted by file name (GlobalCombiner,
// GlobalIndexCombiner). A snapshot without index changes reuses the base's
// index manifest. Overwrites also delete the index files of the partitions
// they replace (OverwriteChangesProvider). Deletion-vector files in the
// append part make it an OVERWRITE snapshot, checked for conflicts
// (ConflictDetection.shouldBeOverwriteCommit).
//
// Index conflicts fail with ErrConflict: a DELETE of an index file that is no
// longer in the base's index manifest (a concurrent commit replaced or
// removed it; Java's GlobalCombiner "Trying to delete file ... which is not
// exists"), an added file that is already there, and, for parts checked for
// conflicts, a deletion vector of a data file that is not live after the
// commit (a concurrent commit deleted the file; Java's "Trying to create
// deletion vector on file ... which is not previously added", which Java
// checks for bucket-unaware tables only and which is checked here for every
// table).
//
// # Sequence numbers across writers
//
// Any number of writers (goroutines, processes, hosts) may write one bucket
// of a primary-key table. Each continues the highest sequence number it
// found in the bucket when it started, so two writers' files carry the same
// numbers, and a merge would order their records of a key by chance rather
// than by commit. Two checks keep the visible rows equal to the commits
// applied one after another in snapshot order (Java has neither: it requires
// one writer per bucket; docs/paimon-format.md section 13.5.1):
//
//   - On every attempt of an APPEND part, when a bucket's new files do not
//     all order after the live files of the bucket in the snapshot the
//     attempt builds on, they are replaced by copies whose sequence numbers
//     are raised by one amount (package resequence) before the snapshot is
//     created; Message.OnResequenced tells the writer. A commit that lost a
//     race is sequenced anew after the commit that beat it.
//   - Conflict detection of COMPACT parts fails with ErrConflict when a live
//     file the compaction did not read shares keys with its inputs and
//     either its sequence numbers interleave with theirs (another writer
//     committed it meanwhile, and the merge skipped records that belong
//     between the merged ones), or the writer's levels did not hold it
//     (Message.Levels) and it is older than the inputs while the
//     compaction dropped delete records or put its output above it, or
//     newer while sitting above the output, or, on a table whose reads
//     take a key's record on the lowest level above 0 as its whole history
//     (the lookup merge of aggregation, partial-update and the like), it
//     sits on any level above 0. Dropped delete records would otherwise
//     bring back the file's rows that a later commit deleted, Java's level
//     order (older records on higher levels) would break, and a
//     whole-history record merged without the file would hide it or be
//     hidden by it.
//
// # Dynamic buckets across writers
//
// Dynamic-bucket tables (bucket = -1 with a primary key) assign each new key
// a bucket from the partition's HASH index files (package hashindex); Java
// assumes one assigner per key range. When the snapshot an APPEND attempt
// builds on holds HASH files of a partition that the messages' writer did
// not see (Message.HashIndexSeen), another writer committed assignments
// meanwhile: rows of the attempt's new files whose key that writer put in
// another bucket are moved there (the files split, package resequence), and
// each HASH file of the attempt becomes its own hashes without those moved
// plus the other writer's for the same bucket, so every key keeps one
// bucket (docs/paimon-format.md section 9.3). Message.OnResequenced reports
// the moves (Resequenced.Rebucketed).
//
// # Cross-partition upserts across writers
//
// Cross-partition upsert tables (bucket = -1 with a primary key that lacks a
// partition field) keep every key in one partition-bucket through the
// writer's key index (package keyindex), bootstrapped from a snapshot and
// refreshed to the latest one before each batch (Message.KeyIndexFrom);
// Java assumes one index per table. When the snapshot
// an APPEND attempt builds on holds commits of other commit users after that
// snapshot (COMPACT ones aside), the keys of the files they added are
// compared with the keys of the attempt's new files. For a key they put in a
// partition-bucket the attempt does not write it to, deduplicate tables get
// a DELETE record of the key there (resequence.Rewriter.Retract; the
// re-sequencing orders it after the bucket's live rows), as Java's
// DeleteExistingProcessor would have written had the commits run one after
// the other. Partial-update and aggregation tables get the attempt's rows
// of the key moved into the other writer's partition-bucket (with that
// partition's values, ordered after its rows; Java
// UseOldExistingProcessor), first-row tables get them dropped (Java
// SkipNewExistingProcessor): the attempt's level-0 files holding the key
// are replaced by copies (resequence.Rewriter.Relocate). The first
// committed placement wins, which is what one key index taking the commits
// in commit order gives. When the range holds an expired snapshot the
// commit fails with ErrKeyIndexStale (wrapping ErrConflict), nothing is
// published, and the writer bootstraps anew (writer.Write.Restore) and
// writes again. Each attempt reads the files
// other users added after KeyIndexFrom, which a long-lived Write advances
// with every batch (writer/crossrefresh.go).
//
// # Changelog
//
// The messages' changelog files (Data.ChangelogFiles, Compact.ChangelogFiles)
// go as ADD entries into changelog manifests and a changelog manifest list
// of the snapshot of their part: the APPEND (or OVERWRITE) snapshot gets the
// data changelog, the COMPACT snapshot the compaction changelog, with
// changelogRecordCount = Σ their row counts (Java FileStoreCommitImpl). A
// part holding only changelog files still makes a snapshot. Overwrite and
// OverwriteDynamic drop the changelog, as Java's overwritePartition does.
//
// # Maintenance after commits
//
// A Committer given a Maintainer (WithMaintainer; paimon.Table.NewCommit and
// realtime.Context.NewCommit install package maintain's, as Java's
// TableCommitImpl expires snapshots and partitions after each commit) calls
// it after every successful Commit, CommitWithProgress, Overwrite,
// OverwriteDynamic, DropPartitions and Truncate. The Maintainer cannot fail
// the commit: its errors are reported by the Maintainer, never returned
// from the commit call, which would make callers retry a commit that
// landed. Close waits for maintenance running in the background.
//
// # Errors
//
// ErrConflict (not retried: files this commit deletes were deleted by
// someone else, overlapping key ranges on a level, changed bucket counts,
// or the index conflicts above), ErrRetriesExhausted, ErrNoProgress,
// snapshot.ErrIDOverflow, ErrUnsupported (a manifest.format not written),
// ErrInvalidArgument (a partition spec that does not fit the table, or new
// files outside the overwritten partitions), the errors of
// CommitWithProgress (ErrRealtimeDisabled, ErrForeignProgress,
// ErrPartialRetry, progress.ErrNotContiguous, progress.ErrInvalidRange), and
// the errors of the packages below, wrapped.
package commit

import (
	"context"
	"errors"
	"fmt"
	"math"
	"slices"
	"strings"
	"sync"
	"time"

	"github.com/google/uuid"

	"github.com/paimon-go/paimon/fileio"
	"github.com/paimon-go/paimon/manifest"
	"github.com/paimon-go/paimon/metrics"
	"github.com/paimon-go/paimon/progress"
	"github.com/paimon-go/paimon/row"
	"github.com/paimon-go/paimon/schema"
	"github.com/paimon-go/paimon/snapshot"
)

// Sentinel errors; test with errors.Is.
var (
	// ErrConflict: the commit conflicts with a concurrent one in a way a
	// retry cannot fix (Java "File deletion conflicts detected", "LSM
	// conflicts detected", "Total buckets ... changed"). Nothing was
	// published.
	ErrConflict = errors.New("commit: conflict with a concurrent commit")
	// ErrRetriesExhausted: every attempt lost the race for the next snapshot
	// id until commit.max-retries was reached (DefaultMaxRetries when
	// unset), or the next wait would have ended after ctx's deadline or
	// commit.timeout, or ctx ended while waiting or during an attempt after
	// a lost race (then it also wraps ctx's error). Nothing was published.
	// The message names the snapshot lost last and the limits.
	ErrRetriesExhausted = errors.New("commit: retries exhausted")
	// ErrCompactionNotCommitted: messages carried new data files and
	// compaction changes; the APPEND snapshot with the data was published
	// (Commit returns its id) and then the COMPACT snapshot failed, usually
	// with ErrConflict (a concurrent compaction took its input files), which
	// the error also wraps. The data is committed: do not commit it again.
	// The compaction's output files are left to orphan cleanup, and a
	// writer whose compaction was dropped should Restore before its next
	// PrepareCommit.
	ErrCompactionNotCommitted = errors.New("commit: data committed, compaction not committed")
	// ErrUnsupported: the messages hold something this committer does not
	// publish yet (changelog files).
	ErrUnsupported = errors.New("commit: unsupported commit content")
	// ErrInvalidArgument: a partition spec names a field that is not a
	// partition key or holds a value of the wrong Go type, or an overwrite of
	// given partitions carries files of other partitions (Java
	// IllegalArgumentException "The changes in ... does not belong to this
	// partition"). Nothing was published.
	ErrInvalidArgument = errors.New("commit: invalid argument")
)

// Table options read by New beyond the typed accessors of package schema
// (Java CoreOptions).
const (
	keyIgnoreEmptyCommit     = "snapshot.ignore-empty-commit" // SNAPSHOT_IGNORE_EMPTY_COMMIT
	keyForceCreateSnapshot   = "commit.force-create-snapshot" // COMMIT_FORCE_CREATE_SNAPSHOT
	keyOverwriteUpgrade      = "overwrite-upgrade"            // OVERWRITE_UPGRADE
	keyPKClusteringOverride  = "pk-clustering-override"       // PK_CLUSTERING_OVERRIDE
	keyDynamicPartitionOverw = "dynamic-partition-overwrite"  // DYNAMIC_PARTITION_OVERWRITE
	postponeBucket           = -2                             // BucketMode.POSTPONE_BUCKET
)

// BatchIdentifier is the commit identifier of batch jobs
// (BatchWriteBuilder.COMMIT_IDENTIFIER = Long.MAX_VALUE); commits with it are
// never de-duplicated.
const BatchIdentifier = math.MaxInt64

// Option configures New.
type Option func(*Committer)

// WithIgnoreEmptyCommit sets whether a commit without any file change
// creates no snapshot. The default comes from the table options: false when
// commit.force-create-snapshot = true, else snapshot.ignore-empty-commit,
// else true as for Java batch commits (BatchWriteBuilderImpl.newCommit).
func WithIgnoreEmptyCommit(ignore bool) Option {
	return func(c *Committer) { c.ignoreEmpty = ignore }
}

// WithWatermark sets the input watermark recorded in the snapshot (the
// snapshot keeps max(previous, this)).
func WithWatermark(millis int64) Option { return func(c *Committer) { c.watermark = &millis } }

// WithProperties sets the snapshot's free-form properties. The key
// realtime.offsets (progress.Property) is ignored: the Committer manages it
// (see the package documentation, Real-time progress).
func WithProperties(p map[string]string) Option { return func(c *Committer) { c.properties = p } }

// WithBackground makes the Committer do its work after a commit in the
// background on local file systems too, as it always does on object
// stores: the LATEST hint is written after Commit returns (see Close) and
// the base manifest list of the next snapshot is prepared (merged, encoded
// and written) before the next commit needs it. A commit's latency then
// leaves out a hint PUT (local PUTs are fsynced: 0.3–0.7 ms each here) and
// the base list's work. The caller must Close the Committer before it
// removes the table's directory; a prepared list that a process ending
// without Close leaves behind is an orphan file (package orphan). Long-lived
// streaming committers (realtime.Context.NewCommit) use it.
func WithBackground() Option {
	return func(c *Committer) {
		if !c.background {
			c.background = true
			c.hints = newHintWriter(c.snaps, false)
		}
	}
}

// WithManifestCache makes the Committer offer every file it writes to the
// manifest directory (manifests, manifest lists, index manifests) to mc
// (manifest.Cache.Offer) once written, so that scans reading through mc
// (reader.WithCache with the same cache) plan the snapshots it publishes
// without reading those files from the store: after a commit, a planner
// in the same process then reads the new snapshot and nothing of its
// metadata but what the Committer did not write. It changes nothing on
// disk. realtime.Context.NewCommit passes the context's cache.
func WithManifestCache(mc *manifest.Cache) Option {
	return func(c *Committer) { c.mw.offer = mc }
}

// Committer commits messages of one commit user to one table (Java
// TableCommitImpl over FileStoreCommitImpl). It is safe for concurrent use,
// though Java expects one committer per commit user. Call Close when done
// with it (Java TableCommit.close): on object stores a Committer finishes
// some work in the background after each commit.
type Committer struct {
	fio        *fileio.FileIO
	ts         *schema.TableSchema
	commitUser string
	snaps      *snapshot.Manager
	schemas    *schema.Manager
	mw         *manifestWriter
	merge      mergeConfig

	ignoreEmpty bool
	watermark   *int64
	properties  map[string]string
	retry       retryWaiter // commit.max-retries, commit.*-retry-wait, commit.timeout

	postpone   bool // bucket = -2: overwrites also delete files of negative buckets
	unaware    bool // bucket-unaware append table (bucket = -1, no primary key)
	upgrade    bool // overwrite-upgrade
	maxLevel   int32
	hints      *hintWriter
	background bool           // background work after commits (object stores)
	seq        *sequenceGuard // primary-key tables: see Sequence numbers across writers
	live       liveIndex      // liveFiles of the last snapshot published, carried forward
	hash       *hashGuard     // dynamic-bucket tables: see Dynamic buckets across writers
	xpart      *xpartGuard    // cross-partition upsert tables: see Cross-partition upserts across writers

	// filterCommitted cache, guarded by mu: snapshots up to scanned have been
	// examined; userLatest is the highest identifier of commitUser among
	// them (-1: none), committed in snapshot userSnap.
	mu         sync.Mutex
	last       *base              // the snapshot this Committer published last
	next       *baseList          // the base list prepared for the snapshot after last
	seen       *snapshot.Snapshot // the latest snapshot, read by committedAlready for readBase
	published  int                // snapshots created
	scanned    int64
	userLatest int64
	userSnap   int64
	schemaID   int64 // the latest schema id seen
	index      indexCache

	now   func() time.Time
	sleep func(context.Context, time.Duration) error
	trace func(Phase, time.Duration) // WithTrace; nil: nothing is timed
	// reporter receives a metrics.CommitReport per call (WithReporter);
	// nil: none.
	reporter metrics.Reporter
	// maintainer runs after every successful commit (WithMaintainer).
	maintainer Maintainer
	// beforeCreate, when set (tests), runs right before the snapshot is
	// created.
	beforeCreate func()
	// beforeBaseLists, when set (tests), runs right before the manifest
	// lists of a base snapshot are read.
	beforeBaseLists func()
}

// New returns a Committer for the table rooted at fio whose schema is ts,
// committing as commitUser. Options of ts steer retries (commit.max-retries,
// commit.min-retry-wait, commit.max-retry-wait, commit.timeout; see Commit
// for how lost races are counted), manifest merging
// (manifest.target-file-size, manifest.merge-min-count,
// manifest.full-compaction-threshold-size), manifest compression, empty
// commits (snapshot.ignore-empty-commit, commit.force-create-snapshot) and
// overwrites (bucket, overwrite-upgrade, pk-clustering-override, num-levels;
// dynamic-partition-overwrite is reported by DynamicPartitionOverwrite).
// Malformed options wrap schema.ErrInvalidOption; manifest.format other
// than avro, parquet or orc wraps ErrUnsupported.
func New(fio *fileio.FileIO, ts *schema.TableSchema, commitUser string, opts ...Option) (*Committer, error) {
	o := ts.Options
	c := &Committer{
		fio: fio, ts: ts, commitUser: commitUser,
		snaps:   snapshot.NewManager(fio),
		schemas: schema.NewManager(fio, ""),
		scanned: 0, userLatest: -1, schemaID: ts.ID,
		now:   time.Now,
		sleep: sleepCtx,
	}
	if f := o.ManifestFormat(); f != manifest.FormatAvro && f != manifest.FormatParquet && f != manifest.FormatORC {
		return nil, fmt.Errorf("%w: manifest.format = %s (avro, parquet and orc manifests are written)", ErrUnsupported, f)
	}
	var err error
	if c.retry, err = newRetryWaiter(o); err != nil {
		return nil, err
	}
	if c.merge.targetSize, err = o.ManifestTargetFileSize(); err != nil {
		return nil, err
	}
	if c.merge.minCount, err = o.ManifestMergeMinCount(); err != nil {
		return nil, err
	}
	if c.merge.fullThreshold, err = o.ManifestFullCompactionThresholdSize(); err != nil {
		return nil, err
	}
	if c.ignoreEmpty, err = o.Bool(keyIgnoreEmptyCommit, true); err != nil {
		return nil, err
	}
	if force, err := o.Bool(keyForceCreateSnapshot, false); err != nil {
		return nil, err
	} else if force {
		c.ignoreEmpty = false
	}
	bucket, err := o.Bucket()
	if err != nil {
		return nil, err
	}
	c.postpone = bucket == postponeBucket
	c.unaware = bucket == -1 && len(ts.PrimaryKeys) == 0
	if c.upgrade, err = o.Bool(keyOverwriteUpgrade, true); err != nil {
		return nil, err
	}
	if clustering, err := o.Bool(keyPKClusteringOverride, false); err != nil {
		return nil, err
	} else if clustering {
		c.upgrade = false
	}
	levels, err := o.NumLevels()
	if err != nil {
		return nil, err
	}
	c.maxLevel = int32(levels - 1)
	// Work after a commit (the LATEST hint, the next base list) runs in the
	// background on object stores only: local writes cost microseconds, and
	// a background write could race with the removal of the table directory.
	c.background = !strings.HasPrefix(fio.URL(), "file://")
	c.hints = newHintWriter(c.snaps, !c.background)
	if c.seq, err = newSequenceGuard(fio, ts); err != nil {
		return nil, err
	}
	if n, _ := ts.NumBuckets(); n == -1 && c.seq != nil {
		c.hash = newHashGuard(row.FieldTypes(ts.TrimmedPrimaryKeyFields()))
		if ts.CrossPartitionUpdate() {
			me, _ := o.MergeEngine()
			c.xpart = &xpartGuard{keyTypes: row.FieldTypes(ts.TrimmedPrimaryKeyFields()), dedup: me == schema.MergeDeduplicate, firstRow: me == schema.MergeFirstRow}
		}
	}
	level, err := o.FileCompressionZstdLevel()
	if err != nil {
		return nil, err
	}
	c.mw = &manifestWriter{
		fio:   fio,
		names: &pathFactory{uuid: uuid.NewString()},
		opts: manifest.WriteOptions{
			Compression:    o.ManifestCompression(),
			Format:         o.ManifestFormat(),
			ZstdLevel:      level,
			LatestSchemaID: ts.ID,
			PartitionStats: newPartitionStats(ts.PartitionFields()),
		},
		targetSize: c.merge.targetSize,
		cache:      newEntryCache(cacheBudget),
	}
	for _, opt := range opts {
		opt(c)
	}
	return c, nil
}

func sleepCtx(ctx context.Context, d time.Duration) error {
	t := time.NewTimer(d)
	defer t.Stop()
	select {
	case <-ctx.Done():
		return ctx.Err()
	case <-t.C:
		return nil
	}
}

// part is one snapshot a commit produces: the append part or the compact
// part of the messages (FileStoreCommitImpl.commit).
type part struct {
	kind    snapshot.CommitKind
	entries []manifest.Entry
	// index are the part's index file changes (Java appendIndexFiles /
	// compactIndexFiles): per message its DELETE entries, then its ADD
	// entries.
	index []manifest.IndexManifestEntry
	check bool // run conflict detection
	// overwrite, when set, selects the partitions whose live files the part
	// deletes before adding entries; the DELETE entries are computed anew
	// from the base of every attempt (Java OverwriteChangesProvider).
	overwrite *selector
	// prog says what becomes of the base's real-time progress (the
	// realtime.offsets property); the zero value copies it.
	prog progressPlan
	// watermark is the input watermark to record (nil: none given).
	watermark *int64
	// sequence marks an APPEND part of a primary-key table: its new files
	// are re-sequenced when they would not order after their buckets' live
	// files (sequenceGuard).
	sequence bool
	// notify are the messages' OnResequenced callbacks by partition-bucket.
	notify map[bucketKey][]func(Resequenced)
	// hashSeen are the messages' HashIndexSeen by partition (hashGuard).
	hashSeen map[string]map[string]bool
	// keyIndexFrom is the lowest Message.KeyIndexFrom of the messages
	// with new files (xpartGuard); -1 when none has new files.
	keyIndexFrom int64
	// rebase finds the base of the attempt after a lost race.
	rebase rebaser
	// changelog are the part's changelog files (changelog.go).
	changelog changelog
	// levels are the messages' LevelsView by partition-bucket (COMPACT
	// part; levelorder.go).
	levels map[bucketKey]*LevelsView
}

// Close waits until the LATEST hint of the last snapshot this Committer
// created is written (it is written in the background after Commit
// returns; see hintWriter) and for maintenance still running in the
// background (WithMaintainer), and releases nothing else: the Committer
// stays usable. It returns nil: a hint that could not be written is not an
// error (readers fall back to listing, Java HintFileUtils.findLatest), and
// the Maintainer reports its own errors.
func (c *Committer) Close() error {
	c.hints.wait()
	c.mu.Lock()
	l := c.next
	c.next = nil
	c.mu.Unlock()
	c.discard(context.Background(), l)
	if c.maintainer != nil {
		_ = c.maintainer.Close()
	}
	return nil
}

// Commit publishes msgs as the snapshot(s) of commit identifier and returns
// the id of the last snapshot created (FileStoreCommitImpl.commit): one APPEND
// snapshot for new files (OVERWRITE when files are also deleted), then one
// COMPACT snapshot for compaction changes, both with the same identifier.
// Both copy the real-time progress property of the snapshot they build on.
//
// Idempotency (TableCommitImpl.filterCommitted): unless identifier is
// BatchIdentifier, if a snapshot of this commit user with an identifier >=
// identifier already exists, nothing is committed and its id is returned.
// Snapshots committed with BatchIdentifier (batch jobs, dedicated
// compactions such as compaction.Compact with its default identifier) are
// never taken as progress of their user: a dedicated compaction run under a
// streaming writer's commit user does not make that writer's later commits
// look committed already.
// Empty messages create no snapshot, and Commit returns 0, unless empty
// commits are kept (commit.force-create-snapshot = true,
// snapshot.ignore-empty-commit = false or WithIgnoreEmptyCommit(false)):
// then they create an APPEND snapshot without changes.
//
// Lost races: every attempt that finds its snapshot id taken is redone on
// the new latest snapshot after a short random wait (see the package
// documentation). The loss of an attempt built on the snapshot this
// Committer published last is redone at once and not counted. After
// commit.max-retries counted losses (DefaultMaxRetries when the table does
// not set it; Java's default of 10 assumes a lock that makes races rare),
// or when the next wait would end after ctx's deadline or commit.timeout
// (from the start of the commit; unset by default), or when ctx ends
// during an attempt after a lost race, Commit gives up with
// ErrRetriesExhausted naming the snapshot it lost last; nothing was
// published then.
//
// Errors: ErrConflict, ErrRetriesExhausted, ErrNoProgress,
// snapshot.ErrIDOverflow, ErrUnsupported, ErrOutcomeUnknown, ctx errors, and
// file-system errors. After an error nothing was published, except (1)
// ErrOutcomeUnknown: creating the snapshot may have succeeded and reading it
// back failed; then nothing it could refer to is deleted (an orphan at worst)
// and a retry of the same identifier commits exactly once; and
// (2) ErrCompactionNotCommitted: the APPEND snapshot of the data files was
// published (its id is returned) and only the compaction changes failed.
func (c *Committer) Commit(ctx context.Context, identifier int64, msgs []Message) (int64, error) {
	ctx, t := c.startReport(ctx)
	id, err := c.commit(ctx, identifier, msgs, c.watermark)
	c.finishReport(ctx, t, identifier, msgs, err)
	c.afterCommit(ctx, id, identifier, err)
	return id, err
}

// commit is Commit recording watermark.
func (c *Committer) commit(ctx context.Context, identifier int64, msgs []Message, watermark *int64) (int64, error) {
	if c.retry.timeout > 0 {
		var cancel context.CancelFunc
		ctx, cancel = context.WithTimeout(ctx, c.retry.timeout)
		defer cancel()
	}
	if identifier != BatchIdentifier {
		if id, done, err := c.committedAlready(ctx, identifier); err != nil || done {
			return id, err
		}
	}
	parts, err := c.parts(msgs)
	if err != nil {
		return 0, err
	}
	var last int64
	for _, p := range parts {
		if p.empty() && (c.ignoreEmpty || p.kind != snapshot.KindAppend) {
			continue
		}
		p.watermark = watermark
		id, err := c.commitPart(ctx, identifier, p)
		if err != nil {
			if last > 0 && p.kind == snapshot.KindCompact {
				if refusalTakenOver(msgs, err) {
					return last, nil
				}
				return last, fmt.Errorf("%w: snapshot %d holds the new data files: %w", ErrCompactionNotCommitted, last, err)
			}
			return last, err
		}
		last = id
	}
	return last, nil
}

// parts splits messages into the append part and the compact part.
func (c *Committer) parts(msgs []Message) ([]part, error) {
	app := part{kind: snapshot.KindAppend, watermark: c.watermark, sequence: c.seq != nil, keyIndexFrom: -1}
	cmp := part{kind: snapshot.KindCompact, check: true, watermark: c.watermark}
	entry := func(kind manifest.FileKind, m *Message, f manifest.DataFileMeta) manifest.Entry {
		return manifest.Entry{Kind: kind, Partition: m.Partition, Bucket: m.Bucket, TotalBuckets: m.TotalBuckets, File: f}
	}
	for i := range msgs {
		m := &msgs[i]
		app.index = appendIndex(app.index, m, m.Data.DeletedIndexFiles, m.Data.NewIndexFiles)
		app.hashSeen = hashSeen(app.hashSeen, m)
		if len(m.Data.NewFiles) > 0 && (app.keyIndexFrom < 0 || m.KeyIndexFrom < app.keyIndexFrom) {
			app.keyIndexFrom = m.KeyIndexFrom
		}
		if m.OnResequenced != nil {
			if app.notify == nil {
				app.notify = map[bucketKey][]func(Resequenced){}
			}
			k := bucketKey{string(m.Partition), m.Bucket}
			app.notify[k] = append(app.notify[k], m.OnResequenced)
		}
		cmp.index = appendIndex(cmp.index, m, m.Compact.DeletedIndexFiles, m.Compact.NewIndexFiles)
		cmp.levels = addLevelsView(cmp.levels, m)
		app.changelog.add(m, m.Data.ChangelogFiles)
		cmp.changelog.add(m, m.Compact.ChangelogFiles)
		for _, f := range m.Data.NewFiles {
			app.entries = append(app.entries, entry(manifest.Add, m, f))
		}
		for _, f := range m.Data.DeletedFiles {
			app.entries = append(app.entries, entry(manifest.Delete, m, f))
			app.kind, app.check = snapshot.KindOverwrite, true
		}
		for _, f := range m.Compact.Before {
			cmp.entries = append(cmp.entries, entry(manifest.Delete, m, f))
		}
		for _, f := range m.Compact.After {
			cmp.entries = append(cmp.entries, entry(manifest.Add, m, f))
		}
	}
	if hasDeletionVectors(app.index) {
		// ConflictDetection.shouldBeOverwriteCommit: row-level deletions
		// through deletion vectors make an OVERWRITE commit, checked for
		// conflicts.
		app.kind, app.check = snapshot.KindOverwrite, true
	}
	return []part{app, cmp}, nil
}

// committedAlready scans snapshots newer than the last scan, from the latest
// downwards, for this commit user (TableCommitImpl.filterCommitted): found
// reports a snapshot of the user with identifier >= identifier.
func (c *Committer) committedAlready(ctx context.Context, identifier int64) (int64, bool, error) {
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.last != nil {
		// This Committer published before: it knows the user's latest
		// identifier (one committer per commit user, as in Java).
		if c.userLatest >= identifier {
			return c.userSnap, true, nil
		}
		return 0, false, nil
	}
	head, err := c.snaps.Latest(ctx)
	if errors.Is(err, snapshot.ErrNotFound) {
		return 0, false, nil
	}
	if err != nil {
		return 0, false, err
	}
	if latest := head.ID; latest > c.scanned {
		for id := latest; id > c.scanned; id-- {
			s := head
			if id != latest {
				s, err = c.snaps.Get(ctx, id)
			}
			if errors.Is(err, snapshot.ErrNotFound) {
				break // expired: nothing older is left
			}
			if err != nil {
				return 0, false, err
			}
			if id == latest {
				c.seen = s
			}
			if s.CommitUser == c.commitUser && s.CommitIdentifier != BatchIdentifier {
				if s.CommitIdentifier > c.userLatest {
					c.userLatest, c.userSnap = s.CommitIdentifier, s.ID
				}
				break
			}
		}
		c.scanned = latest
	}
	if c.userLatest >= identifier {
		return c.userSnap, true, nil
	}
	return 0, false, nil
}

// commitPart publishes one snapshot (FileStoreCommitImpl.tryCommit).
//
// The delta manifests and list of a part without overwrite do not depend on
// the base, so they are written once, concurrently with the first attempt's
// base, and reused by every attempt; an overwrite part's delta depends on
// the live files of its base and is rewritten when they change. The first
// attempt builds on the snapshot this Committer published last, when there
// is one (optimistically: if someone else committed since, creating the
// next id fails and the attempt is redone at once on the real latest
// snapshot, without counting as a retry).
func (c *Committer) commitPart(ctx context.Context, identifier int64, p part) (int64, error) {
	var start time.Time // of the attempt, for WithTrace
	if c.timed() {
		start = c.now()
	}
	var d *delta
	if p.overwrite == nil {
		d = c.writeDelta(ctx, p.entries, "")
	}
	p.changelog.start(ctx, c)
	cleanDelta := func() {
		if d != nil && d.wait() == nil {
			c.mw.deleteFiles(ctx, d.names()...)
		}
		p.changelog.clean(ctx, c)
	}
	useCache := true
	if err := c.sleep(ctx, c.retry.politeWait()); err != nil {
		cleanDelta()
		return 0, fmt.Errorf("commit: waiting before the first attempt (the last commit lost a race): %w", err)
	}
	for retry := 0; ; {
		attemptStart := c.now()
		tallyOf(ctx).attempt()
		res, err := c.tryOnce(ctx, identifier, &p, &d, useCache, start)
		switch {
		case err == nil && res.id > 0:
			tallyOf(ctx).published(res.id)
			c.retry.note(p.rebase.losses, c.now().Sub(attemptStart))
			c.noteOwn(res.id, identifier)
			c.mu.Lock()
			last := c.last
			c.published++
			loop := c.published >= 2
			c.mu.Unlock()
			if useCache && retry == 0 && loop {
				c.prepareNext(ctx, last)
			}
			return res.id, nil
		case err != nil && res.unknown:
			// The snapshot may have been published referencing our files:
			// keep them. Forget what this Committer knows about the table so
			// that a retry scans the snapshots again and finds its own commit
			// if it landed (as a fresh Committer does), instead of publishing
			// the same files twice.
			c.mu.Lock()
			c.last = nil
			c.mu.Unlock()
			return 0, err
		case err != nil:
			cleanDelta()
			if ctx.Err() != nil && p.rebase.losses > 0 {
				// commit.timeout or the caller's deadline ended a retry:
				// nothing was published (the outcome is known).
				return 0, c.exhausted(&p.rebase, err)
			}
			return 0, err
		}
		// Lost the race for the id.
		if res.cached && useCache {
			// Redone at once on a freshly read base; a redo of an attempt
			// that already read its base counts as a lost race below, so
			// that no loop of redos runs forever.
			useCache = false
			start = c.traceRetry(ctx, start)
			continue
		}
		now := c.now()
		wait, ok := c.retry.next(retry, now.Sub(attemptStart), now, ctx)
		if !ok {
			cleanDelta()
			c.traceRetry(ctx, start)
			return 0, c.exhausted(&p.rebase, nil)
		}
		if err := c.sleep(ctx, wait); err != nil {
			cleanDelta()
			c.traceRetry(ctx, start)
			return 0, c.exhausted(&p.rebase, err)
		}
		start = c.traceRetry(ctx, start)
		retry++
	}
}

// traceRetry records a lost race whose attempt began at start (phase) and
// returns the start of the next attempt (now).
func (c *Committer) traceRetry(ctx context.Context, start time.Time) time.Time {
	if !c.timed() {
		return start
	}
	now := c.now()
	c.phase(ctx, PhaseRetry, now.Sub(start))
	return now
}

// delta is a commit part's delta manifests and delta manifest list, being
// written in the background.
type delta struct {
	done  chan struct{}
	key   string // identity of the entries, for overwrite parts
	files []pendingFile
	metas []manifest.FileMeta // the delta list's rows
	list  pendingFile
	err   error     // set when done; nothing is left written then
	puts  *putSpans // when its files were written (traced Committers)
}

func (d *delta) wait() error {
	<-d.done
	return d.err
}

// names lists the files of a delta written without error.
func (d *delta) names() []string { return append(names(d.files), d.list.name) }

// writeDelta encodes the entries into manifest files and the delta manifest
// list and writes all of them with concurrent PUTs: the list can name the
// manifests before they exist because encoding gives their names and sizes,
// and nothing refers to the list until the snapshot is created, after the
// PUTs completed.
func (c *Committer) writeDelta(ctx context.Context, entries []manifest.Entry, key string) *delta {
	d := &delta{done: make(chan struct{}), key: key, puts: c.newPutSpans()}
	go func() {
		defer close(d.done)
		files, metas, err := c.mw.encodeManifests(entries)
		if err != nil {
			d.err = err
			return
		}
		list, err := c.mw.encodeList(metas)
		if err != nil {
			d.err = err
			return
		}
		if err := c.mw.putAll(ctx, d.puts, append(slices.Clip(files), list)...); err != nil {
			d.err = err
			return
		}
		d.files, d.metas, d.list = files, metas, list
	}()
	return d
}

// noteOwn records a snapshot this Committer created in the filterCommitted
// cache.
func (c *Committer) noteOwn(id, identifier int64) {
	c.mu.Lock()
	defer c.mu.Unlock()
	if identifier > c.userLatest && identifier != BatchIdentifier {
		c.userLatest, c.userSnap = identifier, id
	}
	c.scanned = max(c.scanned, id)
}

// attempt is the outcome of one tryOnce: id > 0 on success; id == 0 and
// err == nil when the race for the id was lost (cached: the attempt built on
// the cached snapshot); unknown marks an error after which the snapshot may
// exist.
type attempt struct {
	id      int64
	cached  bool
	unknown bool
}

// base is a snapshot and its complete manifest list (base then delta
// manifests): what the next snapshot's base list is merged from.
type base struct {
	snap  *snapshot.Snapshot // nil: no snapshot yet
	metas []manifest.FileMeta
	// offsets is the real-time progress snap records, when known without
	// reading its offsets file (nil: read it when needed).
	offsets *progress.Offsets
}

// readBase reads the latest snapshot and its manifest lists. The latest
// snapshot committedAlready read at the start of this commit, if any, is
// taken as it is (it is milliseconds old; if it is stale, creating the next
// id fails and the retry reads again).
func (c *Committer) readBase(ctx context.Context) (base, error) {
	c.mu.Lock()
	latest := c.seen
	c.seen = nil
	c.mu.Unlock()
	if latest == nil {
		var err error
		latest, err = c.snaps.Latest(ctx)
		if errors.Is(err, snapshot.ErrNotFound) {
			return base{}, nil
		}
		if err != nil {
			return base{}, err
		}
	}
	return c.baseOf(ctx, latest)
}

// tryOnce builds and publishes one snapshot on top of the latest
// (FileStoreCommitImpl.tryCommitOnce), or on top of the snapshot this
// Committer published last when useCache is set and there is one.
//
// Round trips on the path of a commit that builds on its own last snapshot:
// one round of concurrent PUTs (the delta manifests and list, started by
// commitPart, and the merged manifests and base list unless prepareNext
// wrote them after the previous commit; a HEAD checking for a newer schema
// and a GET checking that the cached base snapshot is still the table's run
// alongside), then the create-if-absent PUT of the snapshot, then a GET of
// the EARLIEST hint and a HEAD of the base snapshot (takeBackIfInGap: the snapshot must not sit in a gap an
// expiration left). On object stores the LATEST hint follows in the
// background (see hintWriter).
//
// start is when the attempt began, for WithTrace.
func (c *Committer) tryOnce(ctx context.Context, identifier int64, p *part, slot **delta, useCache bool, start time.Time) (attempt, error) {
	c.mu.Lock()
	last := c.last
	c.mu.Unlock()
	var b base
	cached := useCache && last != nil
	if cached {
		b = *last
	} else {
		var err error
		if b, err = p.rebase.base(ctx, c); errors.Is(err, errBaseExpired) {
			return attempt{}, nil // as after a lost race
		} else if err != nil {
			return attempt{}, err
		}
	}
	if b.snap != nil {
		if _, err := snapshot.NextID(b.snap.ID); err != nil {
			return attempt{}, fmt.Errorf("commit: after %s: %w", c.snaps.Path(b.snap.ID), err)
		}
	}
	var schemaID int64
	var schemaErr error
	schemaDone := make(chan struct{})
	go func() {
		defer close(schemaDone)
		schemaID, schemaErr = c.latestSchemaID(ctx)
	}()
	// A cached base is checked to still be the table's snapshot of that id:
	// creating the next id fails when someone committed since, but after a
	// rollback (expire.Rollback) that id is free again and the cached base's
	// manifests may be gone. The GET runs alongside the PUTs.
	var staleBase bool
	var staleErr error
	baseDone := make(chan struct{})
	if cached && b.snap != nil {
		go func() {
			defer close(baseDone)
			staleBase, staleErr = c.baseGone(ctx, b.snap)
		}()
	} else {
		close(baseDone)
	}
	waitBg := func() {
		<-schemaDone
		<-baseDone
	}
	fail := func(err error) (attempt, error) {
		waitBg()
		if c.expiredBase(ctx, b.snap, err) {
			// A manifest or index file of the base was expired meanwhile:
			// redo on the latest snapshot, as after a lost race.
			return attempt{cached: cached}, nil
		}
		return attempt{}, err
	}
	prog, err := c.buildProgress(ctx, &b, p)
	if err != nil {
		if cached {
			// The progress may have changed since this Committer's last
			// snapshot (another committer reset or advanced it): judge the
			// ranges against the latest snapshot, as after a lost race.
			waitBg()
			return attempt{cached: true}, nil
		}
		return fail(err)
	}
	// The offsets file written for this attempt is deleted unless the
	// snapshot was published or may have been.
	keepProg := false
	defer func() {
		if !keepProg {
			c.deleteOffsets(ctx, prog)
		}
	}()

	entries := p.entries
	if p.overwrite != nil {
		dels, err := c.overwriteDeletes(ctx, b.metas, p.overwrite)
		if err != nil {
			return fail(err)
		}
		entries = append(dels, p.entries...)
		key := entriesKey(entries)
		if old := *slot; old != nil && old.key != key {
			if old.wait() == nil {
				c.mw.deleteFiles(ctx, old.names()...)
			}
			*slot = nil
		}
		if *slot == nil {
			*slot = c.writeDelta(ctx, entries, key)
		}
	}
	var xr retracted
	if c.xpart != nil && p.sequence && p.overwrite == nil && b.snap != nil && p.keyIndexFrom >= 0 {
		if xr, err = c.xpart.apply(ctx, c, b.snap, p.keyIndexFrom, entries); err != nil {
			return fail(err)
		}
		entries = xr.entries
	}
	defer func() {
		if !keepProg {
			c.seq.discard(ctx, c, xr.copies)
		}
	}()
	var rb rebucketed
	if c.hash != nil && p.sequence && p.overwrite == nil && b.snap != nil {
		if rb, err = c.hash.apply(ctx, c, b.snap, entries, p.index, p.hashSeen); err != nil {
			return fail(err)
		}
		entries = rb.entries
	}
	defer func() {
		if !keepProg {
			c.seq.discard(ctx, c, rb.copies)
		}
	}()
	var seqd sequenced
	if p.sequence && p.overwrite == nil && b.snap != nil {
		if seqd, err = c.seq.apply(ctx, c, b.metas, entries); err != nil {
			return fail(err)
		}
		entries = seqd.entries
	}
	if (rb.changed || xr.changed) && seqd.key == "" {
		seqd.key = "rebucketed:" + entriesKey(entries)
	}
	if p.overwrite == nil && *slot != nil && (*slot).key != seqd.key {
		// The entries differ from those of the delta written before (this
		// attempt re-sequenced files, or an earlier one did).
		if old := *slot; old.wait() == nil {
			c.mw.deleteFiles(ctx, old.names()...)
		}
		*slot = c.writeDelta(ctx, entries, seqd.key)
	}
	defer func() {
		if !keepProg {
			c.seq.discard(ctx, c, seqd.copies)
		}
	}()
	d := *slot
	var records int64
	for _, e := range entries {
		if e.Kind == manifest.Add {
			records += e.File.RowCount
		} else {
			records -= e.File.RowCount
		}
	}
	// Index changes: an overwrite also deletes the index files of the
	// partitions it replaces (OverwriteChangesProvider).
	idx := p.index
	if rb.changed {
		idx = rb.index
	}
	var prevIndex []manifest.IndexManifestEntry
	if len(idx) > 0 || p.overwrite != nil {
		var err error
		if prevIndex, err = c.baseIndex(ctx, b.snap); err != nil {
			return fail(err)
		}
		if p.overwrite != nil {
			dels, err := overwriteIndexDeletes(prevIndex, p.overwrite, p.index)
			if err != nil {
				return fail(err)
			}
			idx = append(dels, p.index...)
		}
	}
	if p.check && b.snap != nil {
		if err := c.checkConflicts(ctx, b.metas, entries, idx, p.kind, p.levels); err != nil {
			return fail(err)
		}
	}
	// The new index manifest, written alongside the base list.
	var (
		index      []manifest.IndexManifestEntry
		indexFile  pendingFile
		indexDone  chan error
		indexSaved bool // indexFile is written
		indexPuts  = c.newPutSpans()
	)
	if len(idx) > 0 {
		var err error
		if index, err = combineIndex(prevIndex, idx, c.unaware); err != nil {
			return fail(err)
		}
		if indexFile, err = c.mw.encodeIndexManifest(index); err != nil {
			return fail(err)
		}
		indexDone = make(chan error, 1)
		go func() { indexDone <- c.mw.putAll(ctx, indexPuts, indexFile) }()
	}
	waitIndex := func() error {
		if indexDone == nil {
			return nil
		}
		err := <-indexDone
		indexDone = nil
		indexSaved = err == nil
		return err
	}
	cleanIndex := func() {
		if waitIndex(); indexSaved {
			c.mw.deleteFiles(ctx, indexFile.name)
		}
	}
	var bl *baseList
	if cached {
		bl = c.takePrepared(ctx, last)
	}
	if bl == nil {
		ps := c.newPutSpans()
		merged, files, err := c.writeBaseList(ctx, &b, ps)
		if err != nil {
			cleanIndex()
			return fail(err)
		}
		bl = &baseList{merged: merged, files: files, puts: ps}
	}
	merged, baseList := bl.merged, bl.list()
	cleanBase := func() {
		c.mw.deleteFiles(ctx, names(bl.files)...)
		cleanIndex()
	}
	derr := errors.Join(d.wait(), p.changelog.wait())
	waitBg()
	perr := prog.wait()
	ierr := waitIndex()
	if err := errors.Join(derr, schemaErr, perr, ierr, staleErr); err != nil {
		cleanBase()
		return attempt{}, err
	}
	if staleBase {
		// Redo the attempt on the real latest snapshot, as after a lost race.
		cleanBase()
		c.mu.Lock()
		c.last, c.next = nil, nil
		c.mu.Unlock()
		return attempt{cached: true}, nil
	}
	baseSize, deltaSize := int64(len(baseList.data)), int64(len(d.list.data))
	s := &snapshot.Snapshot{
		Version:               snapshot.CurrentVersion,
		ID:                    1,
		SchemaID:              schemaID,
		BaseManifestList:      baseList.name,
		BaseManifestListSize:  &baseSize,
		DeltaManifestList:     d.list.name,
		DeltaManifestListSize: &deltaSize,
		CommitUser:            c.commitUser,
		CommitIdentifier:      identifier,
		CommitKind:            p.kind,
		TimeMillis:            c.now().UnixMilli(),
		TotalRecordCount:      records,
		DeltaRecordCount:      records,
		Watermark:             p.watermark,
		NextRowID:             new(int64),
	}
	s.Properties = c.snapshotProperties(prog)
	p.changelog.record(s)
	if latest := b.snap; latest != nil {
		s.ID = latest.ID + 1
		s.TotalRecordCount += latest.TotalRecordCount
		s.IndexManifest = latest.IndexManifest
		if latest.NextRowID != nil {
			*s.NextRowID = *latest.NextRowID
		}
		if w := latest.Watermark; w != nil && (s.Watermark == nil || *w > *s.Watermark) {
			s.Watermark = w
		}
		if latest.Statistics != nil && latest.SchemaID == schemaID {
			s.Statistics = latest.Statistics
		}
	}
	if indexSaved {
		name := indexFile.name
		s.IndexManifest = &name
	}
	var snapStart time.Time
	published := func() attempt {
		if c.timed() {
			tr := attemptTrace{start: start, puts: []*putSpans{d.puts, bl.puts, indexPuts}, snap: c.now().Sub(snapStart)}
			if ps := p.changelog.puts(); ps != nil {
				tr.puts = append(tr.puts, ps)
			}
			if prog.write != nil {
				tr.offs = prog.write.put
			}
			defer c.report(ctx, &tr)
		}
		keepProg = true
		if indexSaved {
			c.rememberIndex(indexFile.name, index)
		}
		next := append(slices.Clip(merged), d.metas...)
		c.live.advance(b.metas, next, entries)
		c.mu.Lock()
		c.last = &base{snap: s, metas: next, offsets: prog.offsets}
		c.mu.Unlock()
		c.hints.update(ctx, s.ID)
		if c.xpart != nil {
			c.xpart.settle(xr)
		}
		for _, m := range slices.Concat(xr.moved, rb.moved, seqd.moved) {
			for _, f := range p.notify[bucketKey{string(m.Partition), m.Bucket}] {
				f(m)
			}
		}
		return attempt{id: s.ID}
	}
	data, err := s.Encode()
	if err != nil {
		cleanBase()
		return attempt{}, err
	}
	path := c.snaps.Path(s.ID)
	if c.timed() {
		snapStart = c.now()
	}
	if c.beforeCreate != nil {
		c.beforeCreate()
	}
	err = c.fio.CreateIfAbsent(ctx, path, data)
	// An unknown outcome becomes nil (ours), fileio.ErrExist (another's) or
	// stays unknown (ErrOutcomeUnknown): then nothing may be deleted.
	err = newOutcomeResolver(c.fio, c.sleep).resolve(ctx, path, data, err)
	if err == nil {
		// The id after the base may have been used and then deleted by an
		// expiration since the base was read (always possible for a cached
		// base, which may be far behind; for a base just read only when
		// others commit and expire faster than this attempt runs): then
		// creating it succeeds although the table has moved on, and the
		// snapshot sits in a gap below EARLIEST, where no reader looks for
		// it. createdInGap tells. This holds for the first snapshot of an
		// empty table too (no base: id 1, which others may have committed
		// and expired meanwhile).
		gap, gerr := c.takeBackIfInGap(ctx, path, baseID(b.snap), s.ID, entries)
		switch {
		case gerr != nil:
			keepProg = true
			return attempt{unknown: true}, gerr
		case gap:
			// Redo the attempt on the real latest snapshot. An expiration
			// running meanwhile may have taken the snapshot for one it
			// expires and deleted its delta and changelog manifests and
			// lists: they are written anew under new names (package
			// expire leaves the data, changelog and index files of such
			// young snapshots alone).
			cleanBase()
			if *slot != nil {
				(*slot).key = gapKey
			}
			p.changelog.clean(ctx, c)
			if err := c.checkReusable(ctx, p); err != nil {
				return attempt{}, err
			}
			p.changelog.start(ctx, c)
			c.mu.Lock()
			c.last, c.next = nil, nil
			c.mu.Unlock()
			return attempt{cached: true}, nil
		}
	}
	switch {
	case err == nil:
		return published(), nil
	case errors.Is(err, fileio.ErrExist):
		cleanBase()
		p.rebase.lostAt(s.ID)
		return attempt{cached: cached}, nil
	}
	if errors.Is(err, ErrOutcomeUnknown) {
		keepProg = true
		return attempt{unknown: true}, err
	}
	cleanBase()
	return attempt{}, fmt.Errorf("commit: create %s: %w", path, err)
}

// baseGone reports whether snapshot base is no longer the table's snapshot
// of its id: deleted (an expiration or a rollback) or replaced by another
// one (a rollback freed the id and someone committed it).
func (c *Committer) baseGone(ctx context.Context, base *snapshot.Snapshot) (bool, error) {
	got, err := c.snaps.Get(ctx, base.ID)
	switch {
	case errors.Is(err, snapshot.ErrNotFound):
		return true, nil
	case err != nil:
		return false, err
	}
	return got.CommitUser != base.CommitUser || got.CommitIdentifier != base.CommitIdentifier ||
		got.DeltaManifestList != base.DeltaManifestList || got.BaseManifestList != base.BaseManifestList, nil
}

// entriesKey is an identity of a list of entries: equal keys mean the same
// kinds of the same files in the same order.
func entriesKey(entries []manifest.Entry) string {
	var b strings.Builder
	for i := range entries {
		b.WriteByte(byte(entries[i].Kind))
		b.WriteString(entries[i].Identifier())
	}
	return b.String()
}

// latestSchemaID is the id of the table's latest schema (Java
// schemaManager.latest()), which the snapshot records. Schema ids are
// created one after the other, so the latest id seen stays the latest while
// schema-<id+1> does not exist: one HEAD, which runs alongside the
// commit's PUTs; only after a schema change is the directory listed.
func (c *Committer) latestSchemaID(ctx context.Context) (int64, error) {
	c.mu.Lock()
	known := c.schemaID
	c.mu.Unlock()
	next, err := c.fio.Exists(ctx, c.schemas.Path(known+1))
	if err != nil {
		return 0, fmt.Errorf("commit: latest schema: %w", err)
	}
	if !next {
		return known, nil
	}
	ids, err := c.schemas.List(ctx)
	if err != nil {
		return 0, err
	}
	latest := known
	if len(ids) > 0 {
		latest = max(latest, ids[len(ids)-1])
	}
	c.mu.Lock()
	c.schemaID = max(c.schemaID, latest)
	c.mu.Unlock()
	return latest, nil
}
