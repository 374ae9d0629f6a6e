package compaction

import (
	"context"
	"fmt"
	"slices"

	"github.com/google/uuid"

	"github.com/paimon-go/paimon/commit"
	"github.com/paimon-go/paimon/datafile"
	"github.com/paimon-go/paimon/deletionvector"
	"github.com/paimon-go/paimon/fileio"
	"github.com/paimon-go/paimon/manifest"
	"github.com/paimon-go/paimon/schema"
)

// postponeLookup brings the level-0 files a postpone compaction writes into
// a real bucket up to the levels batch reads see, for the tables Java
// compacts with lookup (CoreOptions.needLookup: deletion-vectors.enabled or
// merge-engine = first-row), whose batch reads skip level 0.
//
// Java's postpone compaction writes the routed rows with the real table's
// writer (FixedBucketSink in CompactAction.buildForPostponeBucketCompaction):
// a MergeTreeWriter restored from the bucket's live files and deletion
// vectors, whose prepareCommit flushes a level-0 file and, with lookup.wait
// (the default), waits for the lookup compaction that ForceUpLevel0Compaction
// picks. PostponeBucketCommittableRewriter then folds the writer's new files
// into the compaction result: a new file that the compaction consumed is
// deleted and dropped, the others join compactAfter, so that one COMPACT
// commit holds the postpone files' deletion, the compacted real-bucket
// files, the new upper-level files and the bucket's new deletion-vector
// index file. postponeLookup does the same with this package's Rewriter:
// it picks with the table's universal Strategy (ForceUpLevel0 set) and
// rewrites until level 0 is empty, as package writer's PrepareCommit does.
type postponeLookup struct {
	fio       *fileio.FileIO
	rewriter  *Rewriter
	strategy  Strategy
	numLevels int
	dv        bool
	bitmap64  bool
	dvNames   *deletionvector.Namer
	index     []manifest.IndexManifestEntry // of the snapshot compacted
}

// newPostponeLookup returns the postpone lookup compaction of the table, or
// nil when its level-0 files are visible to batch reads (no lookup needed).
// index are the entries of the compacted snapshot's index manifest.
func newPostponeLookup(fio *fileio.FileIO, ts *schema.TableSchema, opts Options, index []manifest.IndexManifestEntry) (*postponeLookup, error) {
	o := ts.Options
	dv, err := o.DeletionVectorsEnabled()
	if err != nil {
		return nil, err
	}
	engine, err := o.MergeEngine()
	if err != nil {
		return nil, err
	}
	if !dv && engine != schema.MergeFirstRow {
		return nil, nil
	}
	r, err := NewRewriter(fio, ts, RewriterOptions{Allocator: opts.Allocator, Now: opts.Now})
	if err != nil {
		return nil, err
	}
	l := &postponeLookup{fio: fio, rewriter: r, dv: dv, index: index}
	if l.strategy, err = StrategyOf(o); err != nil {
		return nil, err
	}
	l.strategy.Now = opts.Now
	if l.numLevels, err = o.NumLevels(); err != nil {
		return nil, err
	}
	if l.bitmap64, err = o.DeletionVectorsBitmap64(); err != nil {
		return nil, err
	}
	if dv {
		l.dvNames = deletionvector.NewNamer(uuid.NewString())
	}
	return l, nil
}

// raise compacts one real bucket of a postpone compaction: live are the
// bucket's files in the compacted snapshot, added the level-0 files just
// written into it at dir (relative to the table root). It returns the
// bucket's compaction increment (Before the live files compacted, After the
// added files still live and the compaction outputs, the deletion-vector
// index files written and replaced) and the paths of every file it wrote
// that the increment adds (for the caller to delete if the commit fails),
// with the levels its compactions saw (live and added; see
// commit.LevelsView).
// Added files a compaction consumed are deleted. On error the files raise
// wrote are deleted, and the added files are left to the caller.
func (l *postponeLookup) raise(ctx context.Context, partition []byte, bucket, total int32, dir string, live, added []manifest.DataFileMeta) (inc commit.CompactIncrement, view *commit.LevelsView, written []string, err error) {
	keys := NewKeyOrder(l.rewriter.t.keyTypes)
	lv, err := NewLevels(live, l.numLevels, keys)
	if err != nil {
		return inc, nil, nil, fmt.Errorf("compaction: bucket %s: %w", dir, err)
	}
	s := l.strategy
	s.LastFullCompaction = LastFullCompaction(lv)
	if err := lv.Update(nil, added); err != nil {
		return inc, nil, nil, fmt.Errorf("compaction: bucket %s: %w", dir, err)
	}
	var dvs *deletionvector.Maintainer
	if l.dv {
		if dvs, err = restoreDVs(ctx, l.fio, l.index, partition, bucket, l.bitmap64); err != nil {
			return inc, nil, nil, fmt.Errorf("compaction: bucket %s: %w", dir, err)
		}
	}
	isAdded := make(map[string]bool, len(added))
	for _, f := range added {
		isAdded[f.FileName] = true
	}
	// outputs are the files the compactions wrote, by name, until consumed.
	outputs := map[string]manifest.DataFileMeta{}
	defer func() {
		if err != nil {
			for _, f := range outputs {
				_ = datafile.Delete(context.WithoutCancel(ctx), l.fio, dir, &f)
			}
		}
	}()
	after := slices.Clone(added)
	var before []manifest.DataFileMeta
	view = &commit.LevelsView{Files: append(FileNames(live), FileNames(added)...), DeletesKept: true}
	for len(lv.Level0()) > 0 {
		u, ok := s.Pick(lv.NumberOfLevels(), lv.Runs())
		if !ok {
			// ForceUpLevel0 always picks level 0; never loop.
			break
		}
		task := Task{
			Partition: partition, Bucket: bucket, TotalBuckets: total, BucketPath: dir,
			Levels: lv.Clone(), Unit: u, DropDeletes: lv.DropDeletes(u), DVs: dvs,
		}
		if l.rewriter.DropsDeletes(&task) {
			view.DeletesKept = false
		}
		step, err := l.rewriter.Run(ctx, &task)
		if err != nil {
			return commit.CompactIncrement{}, nil, nil, err
		}
		inputs := make(map[string]bool, len(step.Before))
		for _, f := range step.Before {
			inputs[f.FileName] = true
		}
		for _, f := range step.After {
			if !inputs[f.FileName] {
				outputs[f.FileName] = f
			}
		}
		if err := lv.Update(step.Before, step.After); err != nil {
			return commit.CompactIncrement{}, nil, nil, fmt.Errorf("compaction: bucket %s: %w", dir, err)
		}
		// MergeTreeWriter.updateCompactResult and BucketFiles.update: an
		// input written by this compaction is an intermediate file.
		outNames := make(map[string]bool, len(step.After))
		for _, f := range step.After {
			outNames[f.FileName] = true
		}
		for _, f := range step.Before {
			i := slices.IndexFunc(after, func(a manifest.DataFileMeta) bool { return a.FileName == f.FileName })
			if i < 0 {
				before = append(before, f)
				continue
			}
			after = slices.Delete(after, i, i+1)
			if outNames[f.FileName] {
				continue // an upgrade: the same file on a new level
			}
			if _, out := outputs[f.FileName]; isAdded[f.FileName] || out {
				if derr := datafile.Delete(context.WithoutCancel(ctx), l.fio, dir, &f); derr != nil {
					return commit.CompactIncrement{}, nil, nil, fmt.Errorf("compaction: %w", derr)
				}
				delete(outputs, f.FileName)
			}
		}
		after = append(after, step.After...)
	}
	inc = commit.CompactIncrement{Before: before, After: after}
	if dvs != nil {
		if inc.NewIndexFiles, inc.DeletedIndexFiles, err = dvs.WriteDeletionVectorsIndex(ctx, l.fio, l.dvNames); err != nil {
			return commit.CompactIncrement{}, nil, nil, fmt.Errorf("compaction: deletion vectors of bucket %s: %w", dir, err)
		}
	}
	for _, f := range outputs {
		written = append(written, fileLocation(dir, &f))
	}
	for _, f := range inc.NewIndexFiles {
		written = append(written, deletionvector.Path(f.FileName))
	}
	slices.Sort(written)
	return inc, view, written, nil
}
