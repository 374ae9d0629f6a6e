package compaction

import (
	"context"
	"errors"
	"fmt"
	"slices"
	"sync"
	"time"

	"github.com/apache/arrow-go/v18/arrow/memory"
	"github.com/google/uuid"

	"github.com/paimon-go/paimon/commit"
	"github.com/paimon-go/paimon/datafile"
	"github.com/paimon-go/paimon/deletionvector"
	"github.com/paimon-go/paimon/fileio"
	"github.com/paimon-go/paimon/manifest"
	"github.com/paimon-go/paimon/metrics"
	"github.com/paimon-go/paimon/reader"
	"github.com/paimon-go/paimon/row"
	"github.com/paimon-go/paimon/schema"
	"github.com/paimon-go/paimon/snapshot"
	"github.com/paimon-go/paimon/types"
)

// Options configures NewPlan and Compact.
type Options struct {
	// Partitions restricts compaction to the partitions one of the specs
	// selects (ORed; a spec names some or all partition keys with Go values
	// of their types, nil for the NULL partition). Empty: every partition.
	Partitions []commit.PartitionSpec
	// Full compacts every bucket completely: primary-key buckets into the
	// highest level (CompactStrategy.pickFullCompaction), fixed-bucket
	// append buckets as BucketedAppendCompactManager's full compaction,
	// bucket-unaware partitions all small files into one group. Otherwise
	// each bucket gets what its strategy picks (universal compaction,
	// BucketedAppendCompactManager.pickCompactBefore, AppendCompactCoordinator).
	Full bool
	// Identifier is the commit identifier of Compact; 0 means
	// commit.BatchIdentifier (Java's batch compaction).
	Identifier int64
	// Parallelism is the number of buckets rewritten at once; 0 means 1.
	Parallelism int
	// Allocator allocates the Arrow buffers of reading and merging; nil
	// means memory.DefaultAllocator.
	Allocator memory.Allocator
	// Now is the clock for file creation times and the time-based strategy
	// rules; nil means time.Now.
	Now func() time.Time
	// Reporter receives a *metrics.CompactionReport per Compact call, and
	// the *metrics.CommitReport of its commit (the
	// buckets compacted, the files rewritten and written with their bytes
	// (files only moved to another level count in neither), the snapshot,
	// duration and store requests); nil reports nothing.
	Reporter metrics.Reporter
}

// Task is the compaction of one partition-bucket that NewPlan picked.
type Task struct {
	// Partition is the serialized partition BinaryRow; PartitionValues its
	// values in partition-key order.
	Partition       []byte
	PartitionValues []any
	// Bucket and TotalBuckets are as in commit.Message (bucket 0 and -1 for
	// bucket-unaware append tables).
	Bucket, TotalBuckets int32
	// BucketPath is the bucket directory relative to the table root.
	BucketPath string

	// Primary-key tables: Levels are the bucket's files, Unit what the
	// strategy picked and DropDeletes whether its rewrite drops
	// retractions (Levels.DropDeletes).
	Levels      *Levels
	Unit        Unit
	DropDeletes bool
	// DVs are the bucket's deletion vectors (deletion-vector tables only;
	// Java's BucketedDvMaintainer): read for the inputs, updated by Run.
	DVs *deletionvector.Maintainer

	// Append tables: the groups of files each rewritten into new files.
	Groups [][]manifest.DataFileMeta
}

// Plan is a compaction planned on one snapshot: the tasks of every bucket
// that has something to compact. Execute runs it; the result is committed
// with commit.Committer.Commit, whose conflict check refuses it if a
// concurrent commit removed one of its input files.
type Plan struct {
	// SnapshotID is the snapshot the plan was made on; 0 for a table
	// without snapshots.
	SnapshotID int64
	// Tasks are the buckets to compact, in the scan's split order.
	Tasks []Task

	r    *Rewriter
	opts Options
}

// Result is what Execute produced.
type Result struct {
	// Messages carry one Compact increment per task that changed anything:
	// Before the input files (at their levels), After the new files and the
	// upgraded ones (same name, new level).
	Messages []commit.Message
	// Written are the paths, relative to the table root, of the new data
	// files (not the upgraded ones; the _EXTERNAL_PATH locations of those
	// written to data-file.external-paths) and of the new deletion-vector
	// index files.
	Written []string
}

// Discard deletes the new data files of r (Written), for a result that will
// not be committed or whose commit failed with commit.ErrConflict. It never
// touches upgraded files, which belong to the table.
func (r *Result) Discard(ctx context.Context, fio *fileio.FileIO) error {
	var errs []error
	for _, p := range r.Written {
		if err := datafile.DeleteLocation(ctx, fio, p); err != nil {
			errs = append(errs, fmt.Errorf("compaction: %w", err))
		}
	}
	return errors.Join(errs...)
}

// checkTable refuses tables whose compaction needs what this package does
// not implement.
func checkTable(ts *schema.TableSchema) error {
	o := ts.Options
	dv, err := o.DeletionVectorsEnabled()
	if err != nil {
		return err
	}
	if len(ts.PrimaryKeys) > 0 {
		engine, err := o.MergeEngine()
		if err != nil {
			return err
		}
		if dv && engine == schema.MergeFirstRow {
			// SchemaValidation.validateForDeletionVectors and
			// MergeTreeCompactManagerFactory.createRewriter refuse it.
			return fmt.Errorf("%w: deletion-vectors.enabled = true with merge-engine = first-row (first-row never deletes old data)", ErrUnsupported)
		}
		cp, err := o.ChangelogProducer()
		if err != nil {
			return err
		}
		if err := checkChangelog(cp, engine, dv); err != nil {
			return err
		}
		if fl, err := o.Bool("force-lookup", false); err != nil {
			return err
		} else if fl {
			return fmt.Errorf("%w: force-lookup = true", ErrUnsupported)
		}
	}
	for _, k := range []string{"row-tracking.enabled", "data-evolution.enabled"} {
		if on, err := o.Bool(k, false); err != nil {
			return err
		} else if on {
			return fmt.Errorf("%w: %s = true", ErrUnsupported, k)
		}
	}
	if f := o.FileFormat(); !datafile.Writes(f) {
		return fmt.Errorf("%w: file.format = %s (parquet, avro and orc are written)", ErrUnsupported, f)
	}
	return nil
}

// NewPlan plans a compaction of the table rooted at fio, whose current
// schema is ts, on its latest snapshot: it lists the live files of every
// partition-bucket (reader.Scan with all levels) and picks per bucket what
// to compact (see Options.Full). It writes nothing.
//
// Errors wrap ErrUnsupported (table features listed there), ErrInvalidArgument
// (a partition spec that does not fit the partition keys, files written with
// a newer schema than ts), ErrCorrupt, schema.ErrInvalidOption and the
// errors of reading the snapshot and manifests.
func NewPlan(ctx context.Context, fio *fileio.FileIO, ts *schema.TableSchema, opts Options) (*Plan, error) {
	if opts.Allocator == nil {
		opts.Allocator = memory.DefaultAllocator
	}
	if opts.Now == nil {
		opts.Now = time.Now
	}
	if n, err := ts.NumBuckets(); err != nil {
		return nil, err
	} else if n == postponeBucket {
		return nil, fmt.Errorf("%w: bucket = -2 (postpone bucket; Compact and Postpone compact it)", ErrUnsupported)
	}
	r, err := NewRewriter(fio, ts, RewriterOptions{Allocator: opts.Allocator, Now: opts.Now})
	if err != nil {
		return nil, err
	}
	t := r.t
	sel, err := newSelector(ts, opts.Partitions)
	if err != nil {
		return nil, err
	}
	p := &Plan{r: r, opts: opts}
	o := ts.Options
	forceAll := r.taskCfg.ForceRewriteAll
	var strategy Strategy
	var numLevels int
	var picker AppendPicker
	if t.pk {
		if strategy, err = StrategyOf(o); err != nil {
			return nil, err
		}
		strategy.Now = opts.Now
		if numLevels, err = o.NumLevels(); err != nil {
			return nil, err
		}
	} else if picker, err = AppendPickerOf(o); err != nil {
		return nil, err
	}

	// The latest snapshot, pinned so that time-travel options among the
	// table options (scan.snapshot-id, ...) do not apply.
	latest, err := snapshot.NewManager(fio).LatestID(ctx)
	if errors.Is(err, snapshot.ErrNotFound) || (err == nil && latest == 0) {
		return p, nil
	}
	if err != nil {
		return nil, fmt.Errorf("compaction: latest snapshot: %w", err)
	}
	plan, err := reader.NewScan(fio, reader.WithSnapshot(latest), reader.WithAllLevels(), reader.WithoutFallback()).Plan(ctx)
	if err != nil {
		return nil, fmt.Errorf("compaction: plan snapshot %d: %w", latest, err)
	}
	if plan.Snapshot == nil {
		return p, nil
	}
	p.SnapshotID = plan.Snapshot.ID
	var indexEntries []manifest.IndexManifestEntry
	if t.dv && plan.Snapshot.IndexManifest != nil && *plan.Snapshot.IndexManifest != "" {
		if indexEntries, err = manifest.ReadIndexManifest(ctx, fio, *plan.Snapshot.IndexManifest); err != nil {
			return nil, fmt.Errorf("compaction: index manifest of snapshot %d: %w", latest, err)
		}
	}
	for _, sp := range plan.Splits {
		if !sel.match(sp.PartitionValues) {
			continue
		}
		for i := range sp.Files {
			if f := &sp.Files[i]; f.SchemaID > ts.ID {
				return nil, fmt.Errorf("%w: data file %s/%s was written with schema %d, newer than the given schema %d",
					ErrInvalidArgument, sp.BucketPath, f.FileName, f.SchemaID, ts.ID)
			}
		}
		task := Task{
			Partition: sp.Partition, PartitionValues: sp.PartitionValues,
			Bucket: sp.Bucket, TotalBuckets: sp.TotalBuckets, BucketPath: sp.BucketPath,
		}
		if t.pk {
			keys := NewKeyOrder(t.keyTypes)
			lv, err := NewLevels(sp.Files, numLevels, keys)
			if err != nil {
				return nil, fmt.Errorf("compaction: bucket %s: %w", sp.BucketPath, err)
			}
			runs := lv.Runs()
			var dvs *deletionvector.Maintainer
			if t.dv {
				if dvs, err = restoreDVs(ctx, fio, indexEntries, sp.Partition, sp.Bucket, t.bitmap64); err != nil {
					return nil, fmt.Errorf("compaction: bucket %s: %w", sp.BucketPath, err)
				}
			}
			var u Unit
			var ok bool
			if opts.Full {
				u, ok = PickFull(lv.NumberOfLevels(), runs, forceAll, dvs)
			} else {
				s := strategy
				s.LastFullCompaction = LastFullCompaction(lv)
				u, ok = s.Pick(lv.NumberOfLevels(), runs)
			}
			if !ok {
				continue
			}
			task.Levels, task.Unit, task.DropDeletes, task.DVs = lv, u, lv.DropDeletes(u), dvs
		} else {
			switch {
			case sp.TotalBuckets < 0 && opts.Full:
				task.Groups = picker.PickUnaware(sp.Files, true)
			case sp.TotalBuckets < 0:
				task.Groups = picker.PickUnaware(sp.Files, false)
			case opts.Full:
				if g := picker.PickBucketedFull(sp.Files); g != nil {
					task.Groups = [][]manifest.DataFileMeta{g}
				}
			default:
				task.Groups = picker.PickBucketed(sp.Files)
			}
			if len(task.Groups) == 0 {
				continue
			}
		}
		p.Tasks = append(p.Tasks, task)
	}
	return p, nil
}

// restoreDVs restores the deletion vectors of one partition-bucket from the
// entries of a snapshot's index manifest.
func restoreDVs(ctx context.Context, fio *fileio.FileIO, entries []manifest.IndexManifestEntry, partition []byte, bucket int32, bitmap64 bool) (*deletionvector.Maintainer, error) {
	files := deletionvector.BucketFiles(entries, partition, bucket)
	if len(files) == 0 {
		return deletionvector.NewMaintainer(bitmap64), nil
	}
	return deletionvector.RestoreMaintainer(ctx, fio, files, bitmap64)
}

// LastFullCompaction estimates when the bucket of lv was last fully
// compacted, for Strategy.LastFullCompaction
// (MergeTreeCompactManagerFactory.estimateLastFullCompactionTime): the newest
// creation time of a file on the highest level (creation times are local
// wall-clock times stored as if UTC), or the zero time when that level is
// empty.
func LastFullCompaction(lv *Levels) time.Time {
	var best int64 = -1
	for _, f := range lv.RunOfLevel(lv.MaxLevel()).Files {
		if f.CreationTime != nil && *f.CreationTime > best {
			best = *f.CreationTime
		}
	}
	if best < 0 {
		return time.Time{}
	}
	u := time.UnixMilli(best).UTC()
	return time.Date(u.Year(), u.Month(), u.Day(), u.Hour(), u.Minute(), u.Second(), u.Nanosecond(), time.Local)
}

// Execute rewrites the planned tasks, at most Options.Parallelism buckets
// at a time, and returns the commit messages. For deletion-vector tables
// each bucket whose vectors changed gets a new index file holding all of
// them (Compact.NewIndexFiles), replacing its previous ones
// (Compact.DeletedIndexFiles). On error every file it wrote is deleted
// again and nothing is returned. A Plan executes once: the tasks' deletion
// vectors hold the compaction's changes afterwards.
func (p *Plan) Execute(ctx context.Context) (*Result, error) {
	res := &Result{}
	incs := make([]commit.CompactIncrement, len(p.Tasks))
	errs := make([]error, len(p.Tasks))
	par := max(p.opts.Parallelism, 1)
	sem := make(chan struct{}, par)
	var wg sync.WaitGroup
	parent := ctx
	ctx, cancel := context.WithCancel(ctx)
	defer cancel()
	// The first bucket that fails cancels the others; their cancellations
	// are not reported, only the failure that caused them.
	var firstMu sync.Mutex
	var first error
	names := deletionvector.NewNamer(uuid.NewString())
	for i := range p.Tasks {
		sem <- struct{}{}
		if ctx.Err() != nil {
			<-sem
			break
		}
		wg.Add(1)
		go func() {
			defer func() { <-sem; wg.Done() }()
			incs[i], errs[i] = p.r.Run(ctx, &p.Tasks[i])
			if dvs := p.Tasks[i].DVs; errs[i] == nil && dvs != nil {
				// MergeTreeCompactTask's CompactDeletionFile.generateFiles.
				var newIdx, delIdx []manifest.IndexFileMeta
				newIdx, delIdx, errs[i] = dvs.WriteDeletionVectorsIndex(ctx, p.r.t.fio, names)
				incs[i].NewIndexFiles, incs[i].DeletedIndexFiles = newIdx, delIdx
				if errs[i] != nil {
					// The data files Run wrote are still in incs[i]: the
					// discard below deletes them.
					errs[i] = fmt.Errorf("compaction: bucket %s: %w", p.Tasks[i].BucketPath, errs[i])
				}
			}
			if errs[i] != nil {
				firstMu.Lock()
				if first == nil {
					first = errs[i]
				}
				firstMu.Unlock()
				cancel()
			}
		}()
	}
	wg.Wait()
	for i, inc := range incs {
		res.Written = append(res.Written, NewFiles(p.Tasks[i].BucketPath, inc)...)
		for _, f := range inc.NewIndexFiles {
			res.Written = append(res.Written, deletionvector.Path(f.FileName))
		}
	}
	var err error
	switch {
	case parent.Err() != nil:
		err = fmt.Errorf("compaction: interrupted: %w", parent.Err())
	case first != nil:
		err = first
	default:
		err = ctx.Err()
	}
	if err != nil {
		_ = res.Discard(context.WithoutCancel(ctx), p.r.t.fio)
		return nil, err
	}
	for i, inc := range incs {
		if inc.IsEmpty() {
			continue
		}
		task := &p.Tasks[i]
		m := commit.Message{
			Partition: task.Partition, Bucket: task.Bucket, TotalBuckets: task.TotalBuckets,
			Compact: inc,
		}
		if task.Levels != nil {
			// The plan saw the bucket's live files of its snapshot.
			m.Levels = &commit.LevelsView{Files: FileNames(task.Levels.AllFiles()), DeletesKept: !p.r.DropsDeletes(task)}
		}
		res.Messages = append(res.Messages, m)
	}
	return res, nil
}

// Compact compacts the table rooted at fio whose current schema is ts and
// commits the result as one COMPACT snapshot of commitUser (Java's dedicated
// compaction: CompactAction / the compact procedure): NewPlan, Execute, then
// commit.Committer.Commit with the messages' Compact increments. It returns
// the new snapshot's id, or 0 when there was nothing to compact.
//
// The committer's conflict check makes this safe against concurrent
// commits: files appended after planning stay live beside the compaction's
// output; if a concurrent commit removed one of the input files (another
// compaction, an overwrite), the commit fails with an error wrapping
// commit.ErrConflict, the new files are deleted and the table is unchanged.
// The real-time progress property (realtime.offsets) of the snapshot the
// commit builds on is carried on by the committer.
//
// Postpone-bucket tables (bucket = -2) get the postpone compaction instead
// (see Postpone): their bucket-postpone rows routed into real buckets.
func Compact(ctx context.Context, fio *fileio.FileIO, ts *schema.TableSchema, commitUser string, opts Options) (snapshotID int64, err error) {
	if opts.Reporter == nil {
		return compact(ctx, fio, ts, commitUser, opts, nil)
	}
	start, before := time.Now(), fio.Stats()
	r := &metrics.CompactionReport{Table: fileio.Redact(fio.URL())}
	snapshotID, err = compact(ctx, fio, ts, commitUser, opts, r)
	s := fio.Stats().Since(before)
	r.Snapshot, r.Err, r.Duration = snapshotID, err, time.Since(start)
	r.Requests = metrics.Requests(s)
	opts.Reporter.Report(ctx, r)
	return snapshotID, err
}

// compact is Compact filling r (when not nil) with the files compacted.
func compact(ctx context.Context, fio *fileio.FileIO, ts *schema.TableSchema, commitUser string, opts Options, r *metrics.CompactionReport) (int64, error) {
	if n, err := ts.NumBuckets(); err != nil {
		return 0, err
	} else if n == postponeBucket {
		return Postpone(ctx, fio, ts, commitUser, opts)
	}
	p, err := NewPlan(ctx, fio, ts, opts)
	if err != nil {
		return 0, err
	}
	if len(p.Tasks) == 0 {
		return 0, nil
	}
	res, err := p.Execute(ctx)
	if err != nil {
		return 0, err
	}
	if len(res.Messages) == 0 {
		return 0, nil
	}
	if r != nil {
		r.Buckets = len(res.Messages)
		for i := range res.Messages {
			// A file in both lists is upgraded to another level, not
			// rewritten.
			m := &res.Messages[i].Compact
			names := map[string]bool{}
			for _, f := range m.Before {
				names[f.FileName] = true
			}
			for _, f := range m.After {
				if names[f.FileName] {
					delete(names, f.FileName)
					continue
				}
				r.OutputFiles, r.OutputBytes = r.OutputFiles+1, r.OutputBytes+f.FileSize
			}
			for _, f := range m.Before {
				if names[f.FileName] {
					r.InputFiles, r.InputBytes = r.InputFiles+1, r.InputBytes+f.FileSize
				}
			}
		}
	}
	c, err := commit.New(fio, ts, commitUser, commit.WithReporter(opts.Reporter))
	if err != nil {
		_ = res.Discard(context.WithoutCancel(ctx), fio)
		return 0, err
	}
	defer c.Close()
	id := opts.Identifier
	if id == 0 {
		id = commit.BatchIdentifier
	}
	snap, err := c.Commit(ctx, id, res.Messages)
	if err != nil {
		// Only errors that guarantee nothing was published allow deleting
		// the files; after others the snapshot may reference them.
		if errors.Is(err, commit.ErrConflict) || errors.Is(err, commit.ErrRetriesExhausted) ||
			errors.Is(err, commit.ErrUnsupported) || errors.Is(err, commit.ErrInvalidArgument) {
			_ = res.Discard(context.WithoutCancel(ctx), fio)
		}
		return 0, fmt.Errorf("compaction: %w", err)
	}
	return snap, nil
}

// selector matches partition values against partition specs (ORed).
type selector struct {
	all   bool
	types []types.DataType
	pos   [][]int
	vals  [][]any
}

func newSelector(ts *schema.TableSchema, specs []commit.PartitionSpec) (*selector, error) {
	fields := ts.PartitionFields()
	s := &selector{types: row.FieldTypes(fields), all: len(specs) == 0}
	for _, spec := range specs {
		if len(spec) == 0 {
			s.all = true
			continue
		}
		var pos []int
		var vals []any
		for k, v := range spec {
			i := slices.IndexFunc(fields, func(f types.DataField) bool { return f.Name == k })
			if i < 0 {
				return nil, fmt.Errorf("%w: %q is not a partition key (partition keys %v)", ErrInvalidArgument, k, ts.PartitionKeys)
			}
			if v != nil {
				if err := types.CheckValue(fields[i].Type, v); err != nil {
					return nil, fmt.Errorf("%w: partition value %v of %s: %w", ErrInvalidArgument, v, k, err)
				}
			}
			pos, vals = append(pos, i), append(vals, v)
		}
		s.pos, s.vals = append(s.pos, pos), append(s.vals, vals)
	}
	return s, nil
}

func (s *selector) match(values []any) bool {
	if s.all {
		return true
	}
	for k, pos := range s.pos {
		ok := true
		for j, i := range pos {
			if i >= len(values) || types.Compare(s.types[i], values[i], s.vals[k][j]) != 0 {
				ok = false
				break
			}
		}
		if ok {
			return true
		}
	}
	return false
}
