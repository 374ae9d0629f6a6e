// Package reader plans and reads batch scans of a Paimon table: from a
// snapshot to manifest lists, manifests, live data files, splits per
// partition-bucket, and Arrow record batches.
//
// It mirrors Java Paimon's read path: org.apache.paimon.operation.
// AbstractFileStoreScan (manifest reading, ADD/DELETE netting, partition and
// statistics pruning), org.apache.paimon.table.source.snapshot.SnapshotReaderImpl
// and MergeTreeSplitGenerator / AppendOnlySplitGenerator (splits),
// org.apache.paimon.operation.RawFileSplitRead and MergeFileSplitRead
// (reading), and FallbackReadFileStoreTable (scan.fallback-branch). See
// docs/paimon-format.md section 15.
//
// For the real-time layer, Plan.ReadSplitWith reads a split together with
// in-memory rows of its partition-bucket (appended after the files, or
// merged as the newest sorted runs of a primary-key bucket), and
// Plan.EmptySplit makes a split for a partition-bucket that has no files
// (realtime-design.md section 8).
//
// # Planning cost
//
// Planning reads the snapshot's manifest lists and manifests. Scans given a
// Cache (WithCache; paimon.Table passes its own) keep the decoded files in
// memory, so a table planned again reads only the files written since. A
// filter (WithFilter, WithWhere) prunes before anything is netted or read,
// as Java's AbstractFileStoreScan does: manifests by partition statistics
// (and bucket range for WithBucket), entries by partition; on fixed-bucket
// tables, entries of buckets no bucket-key value allowed by = / IN conjuncts
// hashes to (Java BucketSelector; a point query on the key plans one split);
// primary-key files whose key statistics exclude the key conjuncts (Java
// KeyValueFileStoreScan's key filter; value conjuncts never prune
// primary-key files); append files by their value statistics.
//
// # Errors
//
// Errors wrap ErrNoSnapshot (a requested snapshot, tag or time that does not
// exist; with ErrSnapshotExpired too when the snapshot id is below the
// table's earliest), ErrSnapshotExpired (the planned snapshot was expired
// while it was planned or read: a file it names is gone; see
// ErrSnapshotExpired; a scan of the latest snapshot plans the new latest
// again first, up to 4 plans in all), ErrInvalidScan (contradictory or unknown options, unknown column
// names, in-memory batches that lack a needed column), ErrUnsupported (a table feature this package does not read, e.g.
// postpone buckets) and the sentinels of the packages below: manifest.ErrCorrupt,
// format.ErrCorrupt, format.ErrUnsupportedFormat, fileio.ErrNotExist (a missing
// data file), and so on. Every error names the file involved.
package reader

import (
	"bytes"
	"cmp"
	"context"
	"errors"
	"fmt"
	"slices"
	"strings"
	"sync"
	"time"

	"github.com/apache/arrow-go/v18/arrow"

	"github.com/paimon-go/paimon/fileio"
	"github.com/paimon-go/paimon/manifest"
	"github.com/paimon-go/paimon/metrics"
	"github.com/paimon-go/paimon/predicate"
	"github.com/paimon-go/paimon/row"
	"github.com/paimon-go/paimon/schema"
	"github.com/paimon-go/paimon/snapshot"
	"github.com/paimon-go/paimon/types"
)

// Sentinel errors of this package; test with errors.Is.
var (
	// ErrNoSnapshot: the snapshot, tag or timestamp asked for does not exist.
	ErrNoSnapshot = errors.New("reader: no such snapshot")
	// ErrInvalidScan: contradictory options, unknown columns, or in-memory
	// batches (ReadSplitWith) or partitions (EmptySplit) that do not fit
	// the table.
	ErrInvalidScan = errors.New("reader: invalid scan")
	// ErrUnsupported: a table feature this reader does not handle.
	ErrUnsupported = errors.New("reader: unsupported")
)

// Option configures a Scan.
type Option func(*config)

type config struct {
	snapshotID  int64
	timestamp   *time.Time
	tag         string
	branch      string
	filter      predicate.Predicate
	columns     []string
	allLevels   bool
	postpone    bool
	batchSize   int
	parallelism int
	noFallback  bool
	bucket      *int32
	where       string
	keys        arrow.RecordBatch // WithKeys
	cache       *Cache
	changes     *changeSpec // WithChanges
	incremental *incrementalSpec
	rowKind     bool // WithRowKind
	reporter    metrics.Reporter
}

// WithSnapshot reads snapshot id (time travel) instead of the latest one.
// The snapshot is read with its own schema, as Java does.
func WithSnapshot(id int64) Option { return func(c *config) { c.snapshotID = id } }

// WithTimestamp reads the latest snapshot committed at or before t
// (Java scan.timestamp-millis, SnapshotManager.earlierOrEqualTimeMills).
func WithTimestamp(t time.Time) Option { return func(c *config) { c.timestamp = &t } }

// WithTag reads the snapshot a tag points at (tag/tag-<name>).
func WithTag(name string) Option { return func(c *config) { c.tag = name } }

// WithBranch reads branch name (branch/branch-<name>) instead of main.
func WithBranch(name string) Option { return func(c *config) { c.branch = name } }

// WithFilter prunes partitions, manifests, buckets and files with p (see
// the package documentation, "Planning cost") and filters the rows
// returned. Field indexes of p refer to the fields of the schema being read
// (Plan.Schema.Fields).
func WithFilter(p predicate.Predicate) Option { return func(c *config) { c.filter = p } }

// WithColumns projects the output to the named columns, in that order.
func WithColumns(names ...string) Option { return func(c *config) { c.columns = names } }

// WithAllLevels makes batch reads of deletion-vector and first-row tables
// merge level-0 files too, instead of skipping them as Java's batch scan does.
func WithAllLevels() Option { return func(c *config) { c.allLevels = true } }

// WithPostponeFiles plans the files of bucket-postpone (bucket -2 of
// postpone-bucket tables, which batch reads skip as Java's do) as splits of
// their own: Bucket and TotalBuckets -2, BucketPath
// "<partition>bucket-postpone", files in commit order (the order of their
// manifest entries; their sequence numbers are all -1).
// It is for planning postpone compactions and merge-on-read; reading such a
// split as it is merges rows whose sequence numbers are all -1.
func WithPostponeFiles() Option { return func(c *config) { c.postpone = true } }

// WithBatchSize sets the maximum rows per output batch (default 4096).
func WithBatchSize(n int) Option { return func(c *config) { c.batchSize = n } }

// WithParallelism sets how many manifests are read at once while planning
// (default 8).
func WithParallelism(n int) Option { return func(c *config) { c.parallelism = n } }

// WithKeys restricts the scan to the rows of the primary keys in keys
// (KeyFilter: a batch of the primary key columns, one key per row), ANDed
// with the other filters: a point lookup (Java TableQuery.lookup). The
// batch is read during Plan; the caller keeps ownership. Plan errors wrap
// ErrInvalidScan for keys that do not fit the table (see KeyFilter).
func WithKeys(keys arrow.RecordBatch) Option { return func(c *config) { c.keys = keys } }

// WithWhere filters like WithFilter with an expression in predicate.Parse
// syntax ("f1 = 10 AND f3 > 15"), resolved against the schema of the
// snapshot being read, so it stays right under time travel and schema
// evolution. Parse errors wrap predicate.ErrSyntax.
func WithWhere(expr string) Option { return func(c *config) { c.where = expr } }

// WithBucket reads only bucket b of every partition.
func WithBucket(b int32) Option { return func(c *config) { c.bucket = &b } }

// WithoutFallback ignores the table's scan.fallback-branch option.
func WithoutFallback() Option { return func(c *config) { c.noFallback = true } }

// Scan plans a batch read of one table. Build it with NewScan; it is cheap
// and holds no state between calls.
type Scan struct {
	root *fileio.FileIO // the table root (main branch)
	cfg  config
}

// NewScan returns a scan of the table rooted at fio (the directory holding
// schema/, snapshot/, manifest/).
func NewScan(fio *fileio.FileIO, opts ...Option) *Scan {
	s := &Scan{root: fio}
	for _, o := range opts {
		o(&s.cfg)
	}
	if s.cfg.batchSize <= 0 {
		s.cfg.batchSize = 4096
	}
	if s.cfg.parallelism <= 0 {
		s.cfg.parallelism = 8
	}
	return s
}

// Plan is the result of planning: the snapshot read, its schema, the
// projected output fields, and the splits to read.
type Plan struct {
	// Snapshot is the snapshot read; nil for a table without snapshots
	// (then Splits is empty).
	Snapshot *snapshot.Snapshot
	// Schema is the schema of the snapshot (its own schema on time travel).
	Schema *schema.TableSchema
	// Fields are the output columns, after projection.
	Fields []types.DataField
	// Splits are the units of reading, one per partition-bucket (and per
	// branch, when a fallback branch contributes partitions).
	Splits []*Split
	// FileIndexSkipped counts the data files (ADD entries) that passed the
	// statistics but were skipped by their file index (bloom filter) for an
	// Equal or In conjunct of the filter or of WithKeys.
	FileIndexSkipped int

	table  *tableState
	filter predicate.Predicate
	cfg    config
	sel    *selector // partition and bucket selection, for SelectsBucket
	pr     *pruner   // the pruner that planned it (ScanReport)
	memo   *planMemo // shared with the plans Narrow makes of it
}

// planMemo holds what each lookup narrowing a kept plan (Narrow) would
// otherwise build again: the file layouts of merge reads and the data
// files' decoded key statistics. The plan and its narrowed copies share it.
type planMemo struct {
	targets  sync.Map // targetKey → *fileTarget
	keyStats sync.Map // data file name → row.Stats over the plan's schema
}

// targetKey identifies the file layout of a merge read (splitRead.target).
type targetKey struct {
	ts       *schema.TableSchema
	withKeys bool
	poison   bool
}

// tableState is what reading needs about one branch of a table. Java keeps
// a branch's schema/, snapshot/ and tag/ under branch/branch-<name>/ but
// shares manifest/, index/ and the data directories with the table root
// (FileStorePathFactory is built on the table path), so meta and fio differ
// for branches.
type tableState struct {
	meta    *fileio.FileIO  // schema/, snapshot/, tag/ of the branch
	fio     *fileio.FileIO  // manifest/, index/ and data files (table root)
	mc      *manifest.Cache // decoded manifest files (Cache, or a per-Plan one)
	indexes *indexFiles     // separate file index files read (Cache, or a per-Plan one)
	live    *liveSets       // the Cache's kept live files (delta planning); nil without a Cache
	schemas *schema.Manager
	mu      sync.Mutex
	cache   map[int64]*schema.TableSchema
}

func (t *tableState) schema(ctx context.Context, id int64) (*schema.TableSchema, error) {
	t.mu.Lock()
	s, ok := t.cache[id]
	t.mu.Unlock()
	if ok {
		return s, nil
	}
	s, err := t.schemas.Get(ctx, id)
	if err != nil {
		return nil, err
	}
	t.mu.Lock()
	t.cache[id] = s
	t.mu.Unlock()
	return s, nil
}

func newTableState(root *fileio.FileIO, branch string, mc *manifest.Cache, idx *indexFiles) *tableState {
	meta := root
	if branch != "" && branch != schema.MainBranch {
		meta = root.Sub("branch/branch-" + branch)
	}
	return &tableState{meta: meta, fio: root, mc: mc, indexes: idx, schemas: schema.NewManager(meta, ""), cache: map[int64]*schema.TableSchema{}}
}

// Plan picks the snapshot, reads its manifests and groups the live files
// into splits.
func (s *Scan) Plan(ctx context.Context) (*Plan, error) {
	if s.cfg.reporter == nil {
		return s.plan(ctx)
	}
	start, before := time.Now(), s.root.Stats()
	p, err := s.plan(ctx)
	s.cfg.reporter.Report(ctx, scanReport(s, p, err, time.Since(start), s.root.Stats().Since(before)))
	return p, err
}

// plan is Plan without the report.
func (s *Scan) plan(ctx context.Context) (*Plan, error) {
	if err := s.checkChanges(); err != nil {
		return nil, err
	}
	if err := s.checkIncremental(); err != nil {
		return nil, err
	}
	var mc *manifest.Cache
	var idx *indexFiles
	var live *liveSets
	if s.cfg.cache != nil {
		mc, idx, live = s.cfg.cache.manifests, s.cfg.cache.indexes, s.cfg.cache.live
	} else {
		mc = manifest.NewCache(0) // shares compiled decoders within this Plan only
		idx = newIndexFiles(defaultIndexFileBytes)
	}
	main := newTableState(s.root, s.cfg.branch, mc, idx)
	main.live = live
	plan, err := s.planLatest(ctx, main, s.cfg.filter)
	if err != nil {
		return nil, err
	}
	fallback := ""
	if plan.Schema != nil {
		fallback = plan.Schema.Options.ScanFallbackBranch()
	}
	if fallback == "" || s.cfg.noFallback || s.timeTravel() || s.cfg.changes != nil || s.cfg.incremental != nil {
		return plan, nil
	}
	// FallbackReadFileStoreTable: partitions missing from the main branch are
	// read from the fallback branch.
	fb := newTableState(s.root, fallback, mc, idx)
	fb.live = live
	fbPlan, err := s.planLatest(ctx, fb, s.cfg.filter)
	if err != nil {
		return nil, fmt.Errorf("reader: fallback branch %q: %w", fallback, err)
	}
	have := map[string]bool{}
	for _, sp := range plan.Splits {
		have[string(sp.Partition)] = true
	}
	for _, sp := range fbPlan.Splits {
		if !have[string(sp.Partition)] {
			plan.Splits = append(plan.Splits, sp)
		}
	}
	if plan.Snapshot == nil {
		plan.Snapshot, plan.Schema, plan.Fields = fbPlan.Snapshot, fbPlan.Schema, fbPlan.Fields
	}
	return plan, nil
}

// latestAttempts bounds how many times a scan of the latest snapshot is
// planned when the snapshot it picked was expired before it was planned
// (ErrSnapshotExpired; see planLatest).
const latestAttempts = 4

// planLatest is planBranch, planned again when the scan reads the latest
// snapshot and the one it picked was expired while it was planned
// (ErrSnapshotExpired: another process committed and expired it meanwhile,
// so a newer snapshot exists), up to latestAttempts plans in all. Scans of a
// chosen snapshot (time travel, changes, incremental) fail at once: their
// snapshot cannot come back. Java plans once (SnapshotReaderImpl.read) and
// leaves the retry to the job's restart.
func (s *Scan) planLatest(ctx context.Context, t *tableState, filter predicate.Predicate) (*Plan, error) {
	retry := !s.timeTravel() && s.cfg.changes == nil && s.cfg.incremental == nil
	for attempt := 1; ; attempt++ {
		p, err := s.planBranch(ctx, t, filter)
		if err == nil || !retry || attempt == latestAttempts || !errors.Is(err, ErrSnapshotExpired) || ctx.Err() != nil {
			return p, err
		}
	}
}

// snapshotPicked, when set (tests only), is called by planBranch with the
// snapshot it picked, before it reads the snapshot's manifests.
var snapshotPicked func(sn *snapshot.Snapshot)

// timeTravel reports whether the scan reads a chosen snapshot rather than
// the latest one.
func (s *Scan) timeTravel() bool {
	return s.cfg.snapshotID != 0 || s.cfg.tag != "" || s.cfg.timestamp != nil
}

func (s *Scan) pickSnapshot(ctx context.Context, snaps *snapshot.Manager) (*snapshot.Snapshot, error) {
	if s.cfg.changes != nil {
		return changesSnapshot(ctx, snaps, s.cfg.changes.snapshotID)
	}
	switch {
	case s.cfg.tag != "":
		sn, err := snaps.Tag(ctx, s.cfg.tag)
		if err != nil {
			return nil, fmt.Errorf("%w: tag %q: %w", ErrNoSnapshot, s.cfg.tag, err)
		}
		return &sn.Snapshot, nil
	case s.cfg.snapshotID != 0:
		return snapshotByID(ctx, snaps, s.cfg.snapshotID)
	case s.cfg.timestamp != nil:
		sn, err := snaps.ByTimestamp(ctx, s.cfg.timestamp.UnixMilli())
		if err != nil {
			return nil, fmt.Errorf("%w: at or before %s: %w", ErrNoSnapshot, s.cfg.timestamp.Format(time.RFC3339Nano), err)
		}
		return sn, nil
	default:
		sn, err := snaps.Latest(ctx)
		if errors.Is(err, snapshot.ErrNotFound) {
			// Only a table without any snapshot file reads as empty; a
			// LATEST hint or listing that names a missing snapshot is damage.
			ids, lerr := snaps.IDs(ctx)
			if lerr != nil {
				return nil, lerr
			}
			if len(ids) == 0 {
				return nil, nil
			}
			// A snapshot may have been committed between Latest and IDs
			// (the first commit of a table racing this scan): look again
			// once before calling it damage.
			if sn, err2 := snaps.Latest(ctx); err2 == nil {
				return sn, nil
			}
			return nil, fmt.Errorf("reader: latest snapshot (snapshot files %d..%d exist): %w", ids[0], ids[len(ids)-1], err)
		}
		return sn, err
	}
}

// snapshotByID reads snapshot id; a missing one fails with ErrNoSnapshot,
// and also ErrSnapshotExpired when id is below the earliest snapshot.
// changesSnapshot is snapshotByID for a read of a snapshot's changes: a
// snapshot expired while its changelog outlives it is read from
// changelog/changelog-<id> (Java NextSnapshotFetcher and
// SnapshotReader with a decoupled changelog lifecycle).
func changesSnapshot(ctx context.Context, snaps *snapshot.Manager, id int64) (*snapshot.Snapshot, error) {
	sn, err := snapshotByID(ctx, snaps, id)
	if err == nil || !errors.Is(err, snapshot.ErrNotFound) {
		return sn, err
	}
	if cl, cerr := snaps.Changelogs().Get(ctx, id); cerr == nil {
		return cl, nil
	} else if !errors.Is(cerr, snapshot.ErrNotFound) {
		return nil, cerr
	}
	return nil, err
}

func snapshotByID(ctx context.Context, snaps *snapshot.Manager, id int64) (*snapshot.Snapshot, error) {
	sn, err := snaps.Get(ctx, id)
	if err != nil {
		if hint, ok, herr := snaps.EarliestHint(ctx); errors.Is(err, snapshot.ErrNotFound) && herr == nil && ok && hint > id {
			return nil, fmt.Errorf("%w: snapshot %d: %w (below the earliest snapshot %d): %w", ErrNoSnapshot, id, ErrSnapshotExpired, hint, err)
		}
		if !errors.Is(err, snapshot.ErrNotFound) {
			return nil, fmt.Errorf("reader: snapshot %d: %w", id, err) // a damaged or unreadable file
		}
		return nil, fmt.Errorf("%w: snapshot %d: %w", ErrNoSnapshot, id, err)
	}
	return sn, nil
}

func (s *Scan) planBranch(ctx context.Context, t *tableState, filter predicate.Predicate) (*Plan, error) {
	snaps := snapshot.NewManager(t.meta)
	sn, err := s.pickSnapshot(ctx, snaps)
	if err != nil {
		return nil, err
	}
	if snapshotPicked != nil {
		snapshotPicked(sn)
	}
	// The latest read uses the latest schema (columns added after the last
	// commit read as null); time travel reads a snapshot with its own schema,
	// as Java's AbstractFileStoreTable.copyInternal does.
	var ts *schema.TableSchema
	if sn == nil || !s.timeTravel() {
		ts, err = t.schemas.Latest(ctx)
		if err == nil {
			t.mu.Lock()
			t.cache[ts.ID] = ts
			t.mu.Unlock()
		}
	} else {
		ts, err = t.schema(ctx, sn.SchemaID)
	}
	if err != nil {
		return nil, err
	}
	if s.cfg.where != "" {
		p, err := predicate.Parse(s.cfg.where, ts.Fields)
		if err != nil {
			return nil, err
		}
		if filter != nil {
			p = predicate.And(filter, p)
		}
		filter = p
	}
	if s.cfg.keys != nil {
		p, err := KeyFilter(ts, s.cfg.keys)
		if err != nil {
			return nil, err
		}
		if filter != nil {
			p = predicate.And(filter, p)
		}
		filter = p
	}
	pr := newPruner(t, ts, filter, s.cfg.bucket, s.cfg.keys)
	plan := &Plan{Snapshot: sn, Schema: ts, table: t, filter: filter, cfg: s.cfg, sel: pr.sel, pr: pr, memo: &planMemo{}}
	if len(s.cfg.columns) > 0 {
		for _, c := range s.cfg.columns {
			if _, _, ok := types.FieldByName(ts.Fields, c); !ok {
				return nil, fmt.Errorf("%w: no column %q in the table (columns %s)", ErrInvalidScan, c, strings.Join(ts.FieldNames(), ", "))
			}
		}
		plan.Fields, err = ts.Project(s.cfg.columns)
		if err != nil {
			return nil, fmt.Errorf("%w: %w", ErrInvalidScan, err)
		}
	} else {
		plan.Fields = ts.Fields
	}
	if s.cfg.rowKind {
		if plan.Fields, err = withRowKindField(ts, plan.Fields); err != nil {
			return nil, err
		}
	}
	if sn == nil {
		return plan, nil
	}
	if s.cfg.changes != nil {
		if err := s.planChanges(ctx, t, plan, pr, changeLists(sn, s.cfg.changes.mode), true); err != nil {
			return nil, expiredErr(ctx, t.meta, sn, false, err)
		}
		return plan, nil
	}
	if s.cfg.incremental != nil {
		if err := s.planIncremental(ctx, t, plan, pr); err != nil {
			return nil, err
		}
		return plan, nil
	}
	entries, err := s.readEntries(ctx, t, sn, pr)
	if err != nil {
		return nil, expiredErr(ctx, t.meta, sn, s.cfg.tag != "", err)
	}
	if pr.index != nil {
		plan.FileIndexSkipped = pr.index.skipped
	}
	dvs, err := readDeletionFiles(ctx, t, sn)
	if err != nil {
		return nil, expiredErr(ctx, t.meta, sn, s.cfg.tag != "", err)
	}
	mor := false
	if !s.cfg.postpone {
		if mor, err = mergeOnRead(ts); err != nil {
			return nil, err
		}
	}
	plan.Splits, err = buildSplits(t, ts, entries, dvs, s.cfg.allLevels, s.cfg.postpone || mor)
	if err != nil {
		return nil, err
	}
	if mor {
		if plan.Splits, err = attachPostpone(t, ts, plan.Splits); err != nil {
			return nil, err
		}
	}
	return plan, nil
}

// readEntries reads the base and delta manifest lists of sn, prunes
// manifests by partition statistics and bucket range, reads the rest in
// parallel, drops the entries the pruner rules out and nets ADD/DELETE
// entries into the live files.
func (s *Scan) readEntries(ctx context.Context, t *tableState, sn *snapshot.Snapshot, pr *pruner) ([]manifest.Entry, error) {
	if t.live != nil {
		if live, manifests, ok := liveEntries(ctx, t, sn); ok {
			// Delta planning: the live files kept for an earlier snapshot
			// netted with the deltas since; the pruner judges each file.
			pr.counts.manifests += manifests
			return pr.judge(ctx, live)
		}
	}
	var metas []manifest.FileMeta
	for _, name := range []string{sn.BaseManifestList, sn.DeltaManifestList} {
		if name == "" {
			continue
		}
		m, err := t.mc.ManifestList(ctx, t.fio, name)
		if err != nil {
			return nil, err
		}
		metas = append(metas, m...)
	}
	keep := make([]bool, len(metas))
	pr.counts.manifests += len(metas)
	for i := range metas {
		keep[i] = pr.keepManifest(&metas[i])
		if !keep[i] {
			pr.counts.manifestsSkipped++
		}
	}
	results := make([][]manifest.Entry, len(metas))
	errs := make([]error, len(metas))
	sem := make(chan struct{}, s.cfg.parallelism)
	var wg sync.WaitGroup
	for i, m := range metas {
		if !keep[i] {
			continue
		}
		wg.Add(1)
		sem <- struct{}{}
		go func() {
			defer wg.Done()
			defer func() { <-sem }()
			results[i], errs[i] = t.mc.Manifest(ctx, t.fio, m.FileName)
		}()
	}
	wg.Wait()
	n := 0
	for i := range metas {
		if errs[i] != nil {
			return nil, errs[i]
		}
		n += len(results[i])
	}
	// The cached entries are shared: they are copied, never changed.
	all := make([]manifest.Entry, 0, n)
	pruned := slices.Contains(keep, false)
	if t.live != nil && !pruned {
		// Every manifest was read: net every entry, keep the live files for
		// planning later snapshots from their deltas, then let the pruner
		// judge each file (as delta planning does).
		for i := range metas {
			all = append(all, results[i]...)
		}
		netted, err := manifest.Net(all)
		if err != nil {
			return nil, err
		}
		t.live.put(t.meta.URL(), &liveSet{id: sn.ID, lists: listsOf(sn), entries: netted})
		return pr.judge(ctx, netted)
	}
	for i := range metas {
		for j := range results[i] {
			e := &results[i][j]
			ok, err := pr.keep(ctx, e)
			if err != nil {
				return nil, err
			}
			if !ok {
				pruned = true
				continue
			}
			all = append(all, *e)
		}
	}
	if !pruned {
		// Every entry was read: the entries must net out exactly.
		netted, err := manifest.Net(all)
		if err != nil {
			return nil, err
		}
		return pr.live(ctx, netted)
	}
	// Pruned manifests or entries may hold the ADD of a DELETE we read;
	// Java's FileEntry.mergeEntries keeps such a DELETE pending, and the scan
	// keeps only the ADDs.
	merged, err := manifest.Merge(all)
	if err != nil {
		return nil, err
	}
	return pr.live(ctx, slices.DeleteFunc(merged, func(e manifest.Entry) bool { return e.Kind != manifest.Add }))
}

// partitionFilter keeps the part of filter that only uses partition fields
// (predicate.Pick), remapped to partition-field positions; nil when there is
// none. It is weaker than filter, so it is only used for pruning.
func partitionFilter(filter predicate.Predicate, ts *schema.TableSchema) predicate.Predicate {
	if filter == nil || len(ts.PartitionKeys) == 0 {
		return nil
	}
	pos := map[int]int{}
	for i, name := range ts.PartitionKeys {
		if idx, _, ok := types.FieldByName(ts.Fields, name); ok {
			pos[idx] = i
		}
	}
	p, ok := filter.Pick(func(i int) (int, bool) { j, ok := pos[i]; return j, ok })
	if !ok {
		return nil
	}
	return p
}

func decodeStats(fields []types.DataField, cols []string, st manifest.SimpleStats) (row.Stats, error) {
	minRow, err := row.Deserialize(st.MinValues)
	if err != nil {
		return row.Stats{}, err
	}
	maxRow, err := row.Deserialize(st.MaxValues)
	if err != nil {
		return row.Stats{}, err
	}
	return row.DecodeStats(fields, cols, minRow, maxRow, st.NullCounts)
}

// sortSplits orders splits by partition bytes then bucket, for stable output.
func sortSplits(splits []*Split) { slices.SortStableFunc(splits, compareSplits) }

// compareSplits orders splits by partition bytes, then bucket.
func compareSplits(a, b *Split) int {
	if c := bytes.Compare(a.Partition, b.Partition); c != 0 {
		return c
	}
	return cmp.Compare(a.Bucket, b.Bucket)
}
