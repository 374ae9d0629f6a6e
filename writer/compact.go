package writer

import (
	"cmp"
	"context"
	"errors"
	"fmt"
	"slices"
	"time"

	"github.com/paimon-go/paimon/commit"
	"github.com/paimon-go/paimon/compaction"
	"github.com/paimon-go/paimon/datafile"
	"github.com/paimon-go/paimon/deletionvector"
	"github.com/paimon-go/paimon/manifest"
	"github.com/paimon-go/paimon/schema"
)

// compactor is what a Write's compactions share (Java
// AbstractFileStoreWrite's compaction executor and the options
// MergeTreeCompactManagerFactory / BucketedAppendCompactManager read). A
// Write without one never compacts.
type compactor struct {
	rewriter     *compaction.Rewriter
	async        bool          // WithAsyncCompaction
	sem          chan struct{} // bounds running background compactions
	ctx          context.Context
	cancel       context.CancelFunc
	stopTrigger  int  // num-sorted-run.stop-trigger
	forceCompact bool // commit.force-compact
	forceRewrite bool // compaction.force-rewrite-all-files
	deltaCommits int  // full-compaction.delta-commits; 0 = unset
	numLevels    int
	// lookup: the table is compacted with lookup (CoreOptions.needLookup:
	// deletion vectors or first-row), so PrepareCommit empties level 0.
	lookup   bool
	dv       bool // deletion-vectors.enabled: buckets keep a Maintainer
	bitmap64 bool // deletion-vectors.bitmap64
	dvNames  *deletionvector.Namer
	strategy compaction.Strategy // template, copied per bucket
	picker   compaction.AppendPicker
	prepares int // PrepareCommit calls so far

	// Test hooks: beforeRun runs in the compaction's goroutine before the
	// rewrite starts; onStall when a write waits for a running compaction
	// because of num-sorted-run.stop-trigger.
	beforeRun func()
	onStall   func()
}

// initCompaction sets up the compaction of a Write unless the table is
// written without: write-only = true, bucket-unaware append tables (Java
// compacts them with a dedicated coordinator), and tables whose compaction
// package compaction does not implement (compaction.ErrUnsupported: they are
// written as before, without compaction). Tables whose level-0 files only
// become visible through compaction (deletion vectors, first-row) are
// refused with ErrUnsupported instead when compaction cannot handle them.
func (w *Write) initCompaction() error {
	o := w.ts.Options
	writeOnly, err := o.WriteOnly()
	if err != nil {
		return err
	}
	if writeOnly || w.unaware {
		return nil
	}
	var lookup, dv, bitmap64 bool
	cp, changelog, err := compactionChangelog(o)
	if err != nil {
		return err
	}
	if w.pk != nil {
		engine, err := o.MergeEngine()
		if err != nil {
			return err
		}
		if dv, err = o.DeletionVectorsEnabled(); err != nil {
			return err
		}
		if bitmap64, err = o.DeletionVectorsBitmap64(); err != nil {
			return err
		}
		// changelog-producer = lookup: every PrepareCommit brings level 0
		// up, producing its changelog (Java LookupSinkWrite, lookup-wait).
		lookup = dv || engine == schema.MergeFirstRow || cp == schema.ChangelogLookup
	}
	r, err := compaction.NewRewriter(w.fio, w.ts, compaction.RewriterOptions{
		Allocator: w.cfg.mem,
		Now:       func() time.Time { return w.now() },
		NewUUID:   func() string { return w.newUUID() },
		Rows:      w.cfg.writtenRows,
	})
	if errors.Is(err, compaction.ErrUnsupported) {
		if changelog && w.pk != nil {
			return fmt.Errorf("%w: %w: %s = %s: %w", ErrUnsupported, ErrNoChangelog, schema.KeyChangelogProducer, cp, err)
		}
		if lookup {
			// Batch reads skip level 0 of these tables: without compaction
			// nothing written would become visible.
			return fmt.Errorf("%w: level-0 files of this table need lookup compaction to become visible: %w", ErrUnsupported, err)
		}
		return nil
	}
	if err != nil {
		return err
	}
	c := &compactor{rewriter: r, async: w.cfg.asyncCompactions > 0, lookup: lookup, dv: dv, bitmap64: bitmap64}
	if dv {
		c.dvNames = deletionvector.NewNamer(w.newUUID())
	}
	if c.forceCompact, err = o.CommitForceCompact(); err != nil {
		return err
	}
	if c.forceRewrite, err = o.Bool(compaction.KeyForceRewriteAllFiles, false); err != nil {
		return err
	}
	if n, set, err := o.FullCompactionDeltaCommits(); err != nil {
		return err
	} else if set && n > 0 {
		c.deltaCommits = n
	} else if cp == schema.ChangelogFullCompaction && w.pk != nil {
		// Java's Flink sink fully compacts at every commit when the option
		// is not set (StoreSinkWrite: GlobalFullCompactionSinkWrite with
		// max(deltaCommits, 1)).
		c.deltaCommits = 1
	}
	if w.pk != nil {
		if c.stopTrigger, err = o.NumSortedRunStopTrigger(); err != nil {
			return err
		}
		if c.numLevels, err = o.NumLevels(); err != nil {
			return err
		}
		if c.strategy, err = compaction.StrategyOf(o); err != nil {
			return err
		}
		c.strategy.Now = func() time.Time { return w.now() }
	} else if c.picker, err = compaction.AppendPickerOf(o); err != nil {
		return err
	}
	if c.async {
		c.sem = make(chan struct{}, w.cfg.asyncCompactions)
		c.ctx, c.cancel = context.WithCancel(context.Background())
	}
	w.comp = c
	return nil
}

// bucketCompaction is a bucket's compact manager (Java
// MergeTreeCompactManager or BucketedAppendCompactManager) together with
// the compaction part of MergeTreeWriter / AppendOnlyWriter's increment.
type bucketCompaction struct {
	levels   *compaction.Levels         // primary key: the bucket's files
	dvs      *deletionvector.Maintainer // deletion vectors: the bucket's vectors
	strategy compaction.Strategy        // primary key: Pick updates LastFullCompaction
	queue    []manifest.DataFileMeta    // append: files to compact (toCompact), by minimum sequence number
	running  *compactRun                // the submitted compaction, nil when none
	touched  bool                       // written since the last full compaction

	// before (compactBefore, unique by name, in order) and after
	// (compactAfter) of the compactions finished since the last
	// PrepareCommit.
	before []manifest.DataFileMeta
	after  []manifest.DataFileMeta
	// changelog are the changelog files of the compactions since the last
	// PrepareCommit (changelog-producer = lookup or full-compaction).
	changelog []manifest.DataFileMeta
	// dropped: a compaction of before/after dropped delete records
	// (compaction.Rewriter.DropsDeletes).
	dropped bool
}

// compactRun is a submitted compaction; done is closed when inc and err
// are set.
type compactRun struct {
	task compaction.Task
	done chan struct{}
	inc  commit.CompactIncrement
	err  error
}

// newBucketCompaction restores a bucket's compact manager from its live
// files (AbstractFileStoreWrite.createWriterContainer with the restored
// files; MergeTreeCompactManagerFactory.create) and, for deletion-vector
// tables, its Maintainer from the restored snapshot's index files
// (BucketedDvMaintainer.Factory.create). bucketDir names the bucket in errors.
func (w *Write) newBucketCompaction(ctx context.Context, bucketDir string, partition []byte, bucket int32, files []manifest.DataFileMeta) (*bucketCompaction, error) {
	c := w.comp
	bc := &bucketCompaction{}
	if w.pk == nil {
		bc.queue = slices.Clone(files)
		slices.SortStableFunc(bc.queue, bySequence)
		return bc, nil
	}
	lv, err := compaction.NewLevels(files, c.numLevels, compaction.NewKeyOrder(w.pk.keyTypes))
	if err != nil {
		return nil, err
	}
	bc.levels = lv
	if c.dv {
		idx := deletionvector.BucketFiles(w.indexEntries, partition, bucket)
		if bc.dvs, err = deletionvector.RestoreMaintainer(ctx, w.fio, idx, c.bitmap64); err != nil {
			return nil, w.staleCheck(ctx, bucketDir, nil, idx, err)
		}
	}
	bc.strategy = c.strategy
	bc.strategy.LastFullCompaction = compaction.LastFullCompaction(lv)
	return bc, nil
}

func bySequence(a, b manifest.DataFileMeta) int {
	return cmp.Compare(a.MinSequenceNumber, b.MinSequenceNumber)
}

// addNewFiles hands new files of the bucket to its compact manager
// (CompactManager.addNewFile).
func (bw *bucketWriter) addNewFiles(files []manifest.DataFileMeta) error {
	bc := bw.comp
	if len(files) == 0 {
		return nil
	}
	if bc.levels != nil {
		if err := bc.levels.Update(nil, files); err != nil {
			return fmt.Errorf("writer: levels of bucket %s: %w", bw.dir, err)
		}
		return nil
	}
	bc.queue = append(bc.queue, files...)
	slices.SortStableFunc(bc.queue, bySequence)
	return nil
}

// sortedRuns returns the bucket's number of sorted runs (primary key; 0 for
// append buckets, which never stall).
func (bc *bucketCompaction) sortedRuns() int {
	if bc.levels == nil {
		return 0
	}
	return bc.levels.NumberOfSortedRuns()
}

// flushCompact is MergeTreeWriter.flushWriteBuffer / AppendOnlyWriter.flush:
// the buffered rows (open file) become files the compact manager gets, the
// latest compaction is collected (waiting for it when wait is set, or when
// the bucket had more than num-sorted-run.stop-trigger sorted runs: the write
// stall), then a new compaction is triggered (full: the full compaction of
// CompactStrategy.pickFullCompaction / FullCompactTask).
//
// Without async compaction (the default), compactions triggered here run at
// once; a flush that does not come from PrepareCommit (a full write buffer)
// then compacts only when the bucket has more than
// num-sorted-run.stop-trigger sorted runs.
func (bw *bucketWriter) flushCompact(ctx context.Context, wait, full, prepare bool) error {
	bc, c := bw.comp, bw.w.comp
	if bc == nil {
		_, err := bw.flush(ctx)
		return err
	}
	stall := bw.w.pk != nil && !bw.bufferEmpty() && bc.sortedRuns() > c.stopTrigger
	files, err := bw.flush(ctx)
	if err != nil {
		return err
	}
	if err := bw.addNewFiles(files); err != nil {
		return err
	}
	if !c.async {
		if !prepare {
			if bc.sortedRuns() <= c.stopTrigger {
				return nil
			}
			if c.onStall != nil {
				c.onStall()
			}
		}
		return bw.triggerCompaction(ctx, full)
	}
	if stall && bc.running != nil && c.onStall != nil {
		c.onStall()
	}
	if err := bw.syncCompaction(ctx, wait || stall || full); err != nil {
		return err
	}
	return bw.triggerCompaction(ctx, full)
}

// triggerCompaction picks what to compact and submits it, unless a
// compaction is running (CompactManager.triggerCompaction): primary keys by
// the universal strategy or, for full, PickFull; append buckets by
// BucketedAppendCompactManager.pickCompactBefore or its full compaction.
func (bw *bucketWriter) triggerCompaction(ctx context.Context, full bool) error {
	bc, c := bw.comp, bw.w.comp
	if bc.running != nil {
		return nil
	}
	task := compaction.Task{
		Partition: bytesClone(bw.partition), Bucket: bw.bucket, TotalBuckets: int32(bw.w.numBuckets),
		BucketPath: bw.dir,
	}
	if lv := bc.levels; lv != nil {
		runs := lv.Runs()
		var u compaction.Unit
		var ok bool
		if full {
			u, ok = compaction.PickFull(lv.NumberOfLevels(), runs, c.forceRewrite, bc.dvs)
		} else {
			u, ok = bc.strategy.Pick(lv.NumberOfLevels(), runs)
		}
		if !ok {
			return nil
		}
		task.Levels, task.Unit, task.DropDeletes, task.DVs = lv.Clone(), u, lv.DropDeletes(u), bc.dvs
	} else {
		var group []manifest.DataFileMeta
		if full {
			if group = c.picker.PickBucketedFull(bc.queue); group != nil {
				bc.queue = nil
			}
		} else {
			group, bc.queue = c.picker.PickBucketedNext(bc.queue)
		}
		if group == nil {
			return nil
		}
		task.Groups = [][]manifest.DataFileMeta{group}
	}
	return bw.submit(ctx, task)
}

// submit runs task: at once without async compaction (collecting the
// result), else in a goroutine once one of the Write's compaction slots is
// free.
func (bw *bucketWriter) submit(ctx context.Context, task compaction.Task) error {
	bc, c := bw.comp, bw.w.comp
	run := &compactRun{task: task, done: make(chan struct{})}
	bc.running = run
	if !c.async {
		run.inc, run.err = c.rewriter.Run(ctx, &run.task)
		close(run.done)
		return bw.syncCompaction(ctx, true)
	}
	go func() {
		defer close(run.done)
		select {
		case c.sem <- struct{}{}:
		case <-c.ctx.Done():
			run.err = c.ctx.Err()
			return
		}
		defer func() { <-c.sem }()
		if c.beforeRun != nil {
			c.beforeRun()
		}
		run.inc, run.err = c.rewriter.Run(c.ctx, &run.task)
	}()
	return nil
}

// syncCompaction collects the submitted compaction if it finished, or waits
// for it when blocking (MergeTreeWriter.trySyncLatestCompaction): the
// compact manager's files are updated (levels; an append bucket's last
// output goes back to the queue while small) and the result joins the
// bucket's compaction increment (MergeTreeWriter.updateCompactResult).
func (bw *bucketWriter) syncCompaction(ctx context.Context, blocking bool) error {
	bc := bw.comp
	run := bc.running
	if run == nil {
		return nil
	}
	if blocking {
		select {
		case <-run.done:
		case <-ctx.Done():
			return ctx.Err()
		}
	} else {
		select {
		case <-run.done:
		default:
			return nil
		}
	}
	bc.running = nil
	if run.err != nil {
		return bw.w.staleCheck(ctx, bw.dir, taskFiles(&run.task), nil,
			fmt.Errorf("writer: compaction of bucket %s: %w", bw.dir, run.err))
	}
	inc := run.inc
	if bc.levels != nil {
		bc.dropped = bc.dropped || bw.w.comp.rewriter.DropsDeletes(&run.task)
		if err := bc.levels.Update(inc.Before, inc.After); err != nil {
			return fmt.Errorf("writer: levels of bucket %s: %w", bw.dir, err)
		}
	} else if n := len(inc.After); n > 0 && inc.After[n-1].FileSize < bw.w.comp.picker.CompactionFileSize {
		bc.queue = append(bc.queue, inc.After[n-1])
		slices.SortStableFunc(bc.queue, bySequence)
	}
	return bw.updateCompactResult(context.WithoutCancel(ctx), inc)
}

// updateCompactResult is MergeTreeWriter.updateCompactResult: an input that
// an earlier compaction of this increment produced is an intermediate file,
// dropped from after and deleted (unless an upgrade keeps its name);
// other inputs join before; the outputs join after.
func (bw *bucketWriter) updateCompactResult(ctx context.Context, inc commit.CompactIncrement) error {
	bc := bw.comp
	outNames := make(map[string]bool, len(inc.After))
	for _, f := range inc.After {
		outNames[f.FileName] = true
	}
	var errs []error
	for _, f := range inc.Before {
		i := slices.IndexFunc(bc.after, func(a manifest.DataFileMeta) bool { return a.FileName == f.FileName })
		if i < 0 {
			if !slices.ContainsFunc(bc.before, func(b manifest.DataFileMeta) bool { return b.FileName == f.FileName }) {
				bc.before = append(bc.before, f)
			}
			continue
		}
		bc.after = slices.Delete(bc.after, i, i+1)
		inBefore := slices.ContainsFunc(bc.before, func(b manifest.DataFileMeta) bool { return b.FileName == f.FileName })
		if !inBefore && !outNames[f.FileName] {
			errs = append(errs, bw.deleteFile(ctx, &f))
		}
	}
	bc.after = append(bc.after, inc.After...)
	bc.changelog = append(bc.changelog, inc.ChangelogFiles...)
	return errors.Join(errs...)
}

// deleteFile deletes f, in the bucket directory or at its _EXTERNAL_PATH.
func (bw *bucketWriter) deleteFile(ctx context.Context, f *manifest.DataFileMeta) error {
	if err := datafile.Delete(ctx, bw.w.fio, bw.dir, f); err != nil {
		return fmt.Errorf("writer: %w", err)
	}
	return nil
}

// prepareCompact is the bucket's part of PrepareCommit
// (MergeTreeWriter/AppendOnlyWriter.prepareCommit): flush and compact,
// then wait for the running compaction without async compaction, with
// commit.force-compact, or when the bucket has more than
// num-sorted-run.stop-trigger + 1 sorted runs. With
// full-compaction.delta-commits, every n-th PrepareCommit of the Write first
// fully compacts the buckets written since the last full compaction
// (GlobalFullCompactionSinkWrite.submitFullCompaction) and waits for it.
func (bw *bucketWriter) prepareCompact(ctx context.Context) error {
	bc, c := bw.comp, bw.w.comp
	if bc == nil {
		_, err := bw.flush(ctx)
		return err
	}
	wait := !c.async
	if c.deltaCommits > 0 && c.prepares%c.deltaCommits == 0 && bc.touched {
		if err := bw.flushCompact(ctx, true, true, true); err != nil {
			return err
		}
		bc.touched = false
		wait = true
	}
	if err := bw.flushCompact(ctx, wait, false, true); err != nil {
		return err
	}
	if c.lookup {
		return bw.drainLevel0(ctx)
	}
	if c.forceCompact || bc.sortedRuns() > c.stopTrigger+1 {
		wait = true
	}
	return bw.syncCompaction(ctx, wait)
}

// drainLevel0 compacts until the bucket has no level-0 file, waiting
// for each compaction: tables compacted with lookup (deletion vectors,
// first-row) hide level 0 from batch reads, so each commit must bring its
// rows up (Java's prepareCommit with lookup.wait = true, the default, and
// ForceUpLevel0Compaction, which picks every level-0 file when the
// universal rules pick nothing). It also keeps the bucket's deletion vectors
// out of reach of background compactions while PrepareCommit writes them.
func (bw *bucketWriter) drainLevel0(ctx context.Context) error {
	bc := bw.comp
	for {
		if err := bw.syncCompaction(ctx, true); err != nil {
			return err
		}
		n := len(bc.levels.Level0())
		if n == 0 {
			return nil
		}
		if err := bw.triggerCompaction(ctx, false); err != nil {
			return err
		}
		if bc.running == nil && len(bc.levels.Level0()) >= n {
			// Nothing picked (ForceUpLevel0 always picks level 0): leave
			// the files to the next commit rather than loop.
			return nil
		}
	}
}

// prepareIndex writes the bucket's deletion vectors into a new index file
// when compaction changed them (CompactDeletionFile.getOrCompute at
// AbstractFileStoreWrite.prepareCommit) and returns the index files to add
// and those it replaces, for the message's CompactIncrement.
func (bw *bucketWriter) prepareIndex(ctx context.Context) (newFiles, deleted []manifest.IndexFileMeta, err error) {
	bc, c := bw.comp, bw.w.comp
	if bc == nil || bc.dvs == nil {
		return nil, nil, nil
	}
	newFiles, deleted, err = bc.dvs.WriteDeletionVectorsIndex(ctx, bw.w.fio, c.dvNames)
	if err != nil {
		return nil, nil, fmt.Errorf("writer: deletion vectors of bucket %s: %w", bw.dir, err)
	}
	return newFiles, deleted, nil
}

// drainCompact hands out the bucket's compaction increment and, for a
// primary-key bucket with one, the levels its compactions saw: every file
// of the levels now (the files the compactions were planned over, less
// their inputs, plus their outputs and the files flushed since).
func (bw *bucketWriter) drainCompact() (commit.CompactIncrement, *commit.LevelsView) {
	bc := bw.comp
	if bc == nil {
		return commit.CompactIncrement{}, nil
	}
	inc := commit.CompactIncrement{Before: bc.before, After: bc.after, ChangelogFiles: bc.changelog}
	var view *commit.LevelsView
	if bc.levels != nil && (len(bc.before) > 0 || len(bc.after) > 0) {
		view = &commit.LevelsView{Files: compaction.FileNames(bc.levels.AllFiles()), DeletesKept: !bc.dropped}
	}
	bc.before, bc.after, bc.changelog, bc.dropped = nil, nil, nil, false
	return inc, view
}

// abortCompact waits for the running compaction (the Write's context is
// cancelled first by Close) and deletes the compaction outputs not handed
// out, except upgraded files, which belong to the table (MergeTreeWriter.close).
func (bw *bucketWriter) abortCompact(ctx context.Context) error {
	bc := bw.comp
	if bc == nil {
		return nil
	}
	var errs []error
	if run := bc.running; run != nil {
		<-run.done
		bc.running = nil
		if run.err == nil {
			errs = append(errs, bw.updateCompactResult(ctx, run.inc))
		}
	}
	for _, f := range bc.after {
		if !slices.ContainsFunc(bc.before, func(b manifest.DataFileMeta) bool { return b.FileName == f.FileName }) {
			errs = append(errs, bw.deleteFile(ctx, &f))
		}
	}
	for _, f := range bc.changelog {
		errs = append(errs, bw.deleteFile(ctx, &f))
	}
	bc.before, bc.after, bc.changelog, bc.dropped = nil, nil, nil, false
	return errors.Join(errs...)
}
