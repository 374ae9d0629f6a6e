package compaction

import (
	"context"
	"fmt"
	"time"

	"github.com/apache/arrow-go/v18/arrow/memory"
	"github.com/google/uuid"

	"github.com/paimon-go/paimon/commit"
	"github.com/paimon-go/paimon/datafile"
	"github.com/paimon-go/paimon/fileio"
	"github.com/paimon-go/paimon/manifest"
	"github.com/paimon-go/paimon/schema"
)

// RewriterOptions configure NewRewriter.
type RewriterOptions struct {
	// Allocator allocates the Arrow buffers of reading, merging and
	// writing; nil means memory.DefaultAllocator.
	Allocator memory.Allocator
	// Now is the clock of file creation times; nil means time.Now.
	Now func() time.Time
	// NewUUID returns the uuid of the file names of one Run
	// ("<data-file.prefix><uuid>-<n>.parquet"); nil means a random UUID.
	NewUUID func() string
	// Rows, when set, receives the rows of each primary-key output file as
	// written (datafile.RowsHook), for a reader in the same process that
	// would otherwise read the file back.
	Rows *datafile.RowsHook
}

// Rewriter runs the compaction tasks of one table: the rewrite of Java's
// MergeTreeCompactTask / FileRewriteCompactTask through
// MergeTreeCompactRewriter (primary-key buckets) and
// BaseAppendFileStoreWrite.compactRewrite (append buckets). Plan.Execute uses
// it for the dedicated compaction, package writer for the compaction inside
// the writer. It is safe for concurrent use by tasks of different buckets.
type Rewriter struct {
	t       *table
	taskCfg TaskConfig // without the per-unit MaxLevel and DropDeletes
	newUUID func() string
}

// NewRewriter returns the Rewriter of the table rooted at fio whose current
// schema is ts (files of older schemas are evolved to it when read).
//
// Errors wrap ErrUnsupported for the table features the package does not
// compact (see NewPlan) and schema.ErrInvalidOption for malformed options.
func NewRewriter(fio *fileio.FileIO, ts *schema.TableSchema, opts RewriterOptions) (*Rewriter, error) {
	if err := checkTable(ts); err != nil {
		return nil, err
	}
	if opts.Allocator == nil {
		opts.Allocator = memory.DefaultAllocator
	}
	if opts.Now == nil {
		opts.Now = time.Now
	}
	if opts.NewUUID == nil {
		opts.NewUUID = uuid.NewString
	}
	t, err := newTable(fio, ts, opts.Allocator, opts.Now)
	if err != nil {
		return nil, err
	}
	t.rows = opts.Rows
	r := &Rewriter{t: t, newUUID: opts.NewUUID}
	o := ts.Options
	target, err := o.TargetFileSize(t.pk)
	if err != nil {
		return nil, err
	}
	ratio, err := o.CompactionSmallFileRatio()
	if err != nil {
		return nil, err
	}
	r.taskCfg.MinFileSize = int64(float64(target) * ratio)
	if r.taskCfg.ForceRewriteAll, err = o.Bool(KeyForceRewriteAllFiles, false); err != nil {
		return nil, err
	}
	if t.pk {
		engine, err := o.MergeEngine()
		if err != nil {
			return nil, err
		}
		r.taskCfg.FirstRowLookup = engine == schema.MergeFirstRow
		r.taskCfg.DeletionVectors = t.dv
		r.taskCfg.LookupMerge = t.lookupMerge
	}
	return r, nil
}

// DropsDeletes reports whether Run drops the -D and -U records of
// primary-key task: task.DropDeletes, or, in deletion-vector tables, an
// output level above 0 (see Run). Writers report it to the committer
// (commit.LevelsView.DeletesKept).
func (r *Rewriter) DropsDeletes(task *Task) bool {
	return task.DropDeletes || (r.t.dv && task.Unit.OutputLevel > 0)
}

// Run compacts the bucket of task and returns what changed as a compaction
// increment (Java CompactResult): for a primary-key task the steps of
// PlanSteps on task.Unit (upgrades: Before the old meta, After the same
// file at the output level; rewrites: Before the inputs, After the new files
// at the output level, retractions dropped when task.DropDeletes); for an
// append task each group of task.Groups rewritten into files of
// target-file-size. task.Levels must hold the bucket's files (lookups read
// the levels above the output level); Run only reads it. New files go to
// task.BucketPath, named with one fresh uuid per Run.
//
// Deletion-vector tables (Java's LookupMergeTreeCompactRewriter with a
// BucketedDvMaintainer): task.DVs must be the bucket's Maintainer. Inputs
// are read without the rows their vectors delete; retractions are dropped
// whenever the output level is above 0 (MergeTreeCompactManager:
// dropDelete with a dvMaintainer), whatever task.DropDeletes says; when
// level-0 records reach a level above 0, the older version of each of their
// keys on the levels above the output level is marked deleted in task.DVs
// (and, with a merge engine other than deduplicate or with sequence.field,
// merged into the output); rewritten inputs lose their vectors. Run does not
// write index files: the caller writes the Maintainer's vectors
// (Maintainer.WriteDeletionVectorsIndex) into the commit message once the
// bucket's compactions are done. After an error task.DVs may hold part of
// the compaction's marks: restore the Maintainer before using it again.
//
// An empty increment means nothing changed (every file already on its
// output level). On error every file Run wrote is deleted again. Errors wrap
// ErrInvalidArgument (a primary-key task without Levels, a deletion-vector
// task without DVs), ErrCorrupt, ErrUnsupported (a file in an external path
// or not in parquet) and the errors of reading, merging and writing, naming
// the bucket.
func (r *Rewriter) Run(ctx context.Context, task *Task) (inc commit.CompactIncrement, err error) {
	j := &bucketJob{t: r.t, dir: task.BucketPath, names: datafile.NewNamer(r.newUUID())}
	defer func() {
		if err != nil {
			j.discard(context.WithoutCancel(ctx))
			inc = commit.CompactIncrement{}
		}
	}()
	if r.t.pk {
		if task.Levels == nil {
			return inc, fmt.Errorf("%w: primary-key task of bucket %s without levels", ErrInvalidArgument, task.BucketPath)
		}
		if r.t.dv {
			if task.DVs == nil {
				return inc, fmt.Errorf("%w: bucket %s of a deletion-vector table without its deletion vectors", ErrInvalidArgument, task.BucketPath)
			}
			j.dvs = task.DVs
		}
		j.keys = NewKeyOrder(r.t.keyTypes)
		cfg := r.taskCfg
		cfg.MaxLevel = task.Levels.MaxLevel()
		cfg.DropDeletes = r.DropsDeletes(task)
		if inc.Before, inc.After, err = j.compactPK(ctx, task.Levels, task.Unit, cfg); err != nil {
			j.abortChangelog(context.WithoutCancel(ctx))
			return inc, fmt.Errorf("compaction: bucket %s: %w", task.BucketPath, err)
		}
		if inc.ChangelogFiles, err = j.finishChangelog(ctx); err != nil {
			return inc, fmt.Errorf("compaction: bucket %s: changelog: %w", task.BucketPath, err)
		}
		return inc, nil
	}
	for _, g := range task.Groups {
		if len(g) == 0 {
			continue
		}
		out, err := j.compactAppend(ctx, g)
		if err != nil {
			return inc, fmt.Errorf("compaction: bucket %s: %w", task.BucketPath, err)
		}
		inc.Before = append(inc.Before, g...)
		inc.After = append(inc.After, out...)
	}
	return inc, nil
}

// discard deletes the files the job wrote, best effort: a file left behind
// by a failed delete is an orphan no snapshot references.
func (j *bucketJob) discard(ctx context.Context) {
	for _, p := range j.written {
		_ = datafile.DeleteLocation(ctx, j.t.fio, p)
	}
	j.written = nil
}

// NewFiles returns the paths, relative to the table root, of the files an
// increment of a bucket at bucketPath added, or their canonical locations
// (fileio.CanonicalLocation of _EXTERNAL_PATH; see datafile.DeleteLocation)
// when they were written to data-file.external-paths: its After files that are not also Before files
// (an upgrade keeps the file's name), and its changelog files.
func NewFiles(bucketPath string, inc commit.CompactIncrement) []string {
	before := make(map[string]bool, len(inc.Before))
	for _, f := range inc.Before {
		before[f.FileName] = true
	}
	var out []string
	for _, f := range inc.After {
		if !before[f.FileName] {
			out = append(out, fileLocation(bucketPath, &f))
		}
	}
	for _, f := range inc.ChangelogFiles {
		out = append(out, fileLocation(bucketPath, &f))
	}
	return out
}

// fileLocation is f's _EXTERNAL_PATH in canonical form
// (fileio.CanonicalLocation, which datafile.DeleteLocation recognises) when
// it has one, else its path in the bucket directory dir.
func fileLocation(dir string, f *manifest.DataFileMeta) string {
	if f.ExternalPath != nil && *f.ExternalPath != "" {
		if loc, err := fileio.CanonicalLocation(*f.ExternalPath); err == nil {
			return loc
		}
		return *f.ExternalPath
	}
	return dir + "/" + f.FileName
}
