package realtime

import (
	"context"
	"errors"
	"fmt"
	"maps"
	"slices"
	"sync"
	"time"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"

	"github.com/paimon-go/paimon/commit"
	"github.com/paimon-go/paimon/datafile"
	"github.com/paimon-go/paimon/progress"
	"github.com/paimon-go/paimon/writer"
)

// Progress is what PrepareCommitWithProgress returns per partition-bucket
// (paimon-cpp RealtimeCommitProgress): the commit message of the data files
// written from its sealed rows and the offsets range those rows cover.
// Message may hold no file (a primary-key segment whose rows merged away
// still advances the progress).
type Progress struct {
	// Message is the commit message of the partition-bucket's new files.
	Message commit.Message
	// PartitionBucket is the logical partition-bucket (partition values
	// as strings, as the offsets file records them).
	PartitionBucket progress.PartitionBucket
	// Range is the offsets range [Begin, End) the files cover: Begin is
	// the end of the previous prepared (or committed) range, End the
	// envelope end of the sealed rows. It is empty for an entry that only
	// carries compaction changes (a background compaction of the flush
	// writer that finished for a partition-bucket with no sealed rows).
	Range progress.Range
}

// Write is a real-time writer (paimon-cpp FileStoreWrite with a
// RealtimeContext): rows go to the store of their partition-bucket, where
// queries of the same context see them at once, and
// PrepareCommitWithProgress turns them into data files.
//
// Write and PrepareCommitWithProgress may run concurrently: a Write waits
// at most for the rotation of a building segment, never for a flush.
// Several Writes of one context share its stores, offsets and sequence
// numbers (a later writer continues where an earlier one stopped).
type Write struct {
	c    *Context
	user string

	mu     sync.Mutex // serialises Write (the router is not concurrent)
	router *writer.Write

	tmu     sync.Mutex // guards touched and closed
	touched map[string]*pbState
	closed  bool

	fmu    sync.Mutex // serialises prepares; guards flush and lost
	flush  *writer.Write
	lost   int64 // Context.lostCompactions when flush was last restored
	wopts  []writer.Option
	closeE error
}

// NewWrite returns a real-time writer of the context's table as commitUser.
// opts are those of package writer (allocator, row kind column, spill
// directory); the writer's own input checks (schema, NOT NULL, row kinds,
// partition values) apply to every batch.
//
// Errors: ErrClosed when the context is closed, and those of writer.New.
func (c *Context) NewWrite(commitUser string, opts ...writer.Option) (*Write, error) {
	if c.isClosed() {
		return nil, fmt.Errorf("%w: real-time context", ErrClosed)
	}
	router, err := writer.New(c.fio, c.ts, commitUser, opts...)
	if err != nil {
		return nil, err
	}
	wopts := slices.Clone(opts)
	if c.lay.mode == PrimaryKey {
		wopts = append(wopts, writer.WithRowKindColumn(KindColumn), writer.WithSequenceColumn(SequenceColumn),
			writer.WithWrittenRows(&datafile.RowsHook{MaxBytes: offerFileBytes, Fn: c.offerWritten}))
	}
	w := &Write{c: c, user: commitUser, router: router, touched: map[string]*pbState{}, wopts: wopts}
	// Create the flush writer now so that option errors surface here.
	if w.flush, err = writer.New(c.fio, c.ts, commitUser, wopts...); err != nil {
		_ = router.Close()
		return nil, err
	}
	return w, nil
}

// Write accepts the rows of rec into the stores of their
// partition-buckets; they are visible to scans of the context when Write
// returns. rec has the table's columns (matched by name, as writer.Write
// takes them, plus an optional row kind column) and, optionally, FIRST a
// non-null Int64 column named OffsetColumn ("_REALTIME_OFFSET") with
// application offsets: per partition-bucket strictly increasing in input
// order, the first at least the partition-bucket's next expected offset,
// every one below math.MaxInt64-1; gaps are allowed. Without that column,
// each partition-bucket's rows get contiguous offsets from its next offset
// on (the committed end for a new context). The offset column is progress
// metadata and never reaches data files.
//
// Primary-key rows are sorted by the trimmed primary key and get sequence
// numbers continuing the partition-bucket's (the highest of its files at
// first use, then across every writer of the context), in input order.
//
// While a PrepareCommitWithProgress of the context is writing data files
// and the context's stores hold more than the table's write-buffer-size
// bytes (Usage.BuildingBytes + SealedBytes; 256 MiB by default), Write
// waits for that prepare to end before storing the batch: back-pressure on a
// stream faster than its flushes. Without a running prepare it never waits.
//
// Every check runs before any row is stored, so a rejected batch changes
// nothing. Errors: ctx's error (wrapped) when it ends during that wait,
// ErrClosed, ErrOffsetOrder, ErrSchemaMismatch (an
// OffsetColumn that is not first or not Int64), the errors of
// writer.Write.Route, and those of the stores (after which part of the
// batch may be stored).
func (w *Write) Write(ctx context.Context, rec arrow.RecordBatch) error {
	w.mu.Lock()
	defer w.mu.Unlock()
	w.tmu.Lock()
	closed := w.closed
	w.tmu.Unlock()
	if closed {
		return fmt.Errorf("%w: real-time writer", ErrClosed)
	}
	c := w.c
	if c.isClosed() {
		return fmt.Errorf("%w: real-time context", ErrClosed)
	}
	if err := c.press.wait(ctx, c.usedBytes); err != nil {
		return err
	}
	tbl, appOff, err := splitOffsets(rec)
	if err != nil {
		return err
	}
	defer tbl.Release()
	if tbl.NumRows() == 0 {
		return nil
	}
	shares, err := w.router.Route(ctx, tbl, c.lay.mode == PrimaryKey)
	if err != nil {
		return err
	}
	defer func() {
		for _, sh := range shares {
			sh.Record.Release()
		}
	}()
	sts := make([]*pbState, len(shares))
	for i, sh := range shares {
		if sts[i], err = c.state(ctx, sh.Partition, sh.PartitionValues, sh.Bucket); err != nil {
			return err
		}
	}
	locked := slices.Clone(sts)
	slices.SortFunc(locked, func(a, b *pbState) int { return comparePB(a.partition, a.bucket, b.partition, b.bucket) })
	locked = slices.Compact(locked)
	for _, st := range locked {
		st.mu.Lock()
	}
	defer func() {
		for _, st := range locked {
			st.mu.Unlock()
		}
	}()
	if c.lay.mode == PrimaryKey {
		for _, st := range locked {
			if !st.seqSet {
				n, err := w.router.NextSequenceNumber(ctx, st.partition, st.bucket)
				if err != nil {
					return err
				}
				st.seq, st.seqSet = n, true
			}
		}
	}
	// Check every share before storing any.
	type planned struct {
		offs, seqs []int64
		r          progress.Range
	}
	plans := make([]planned, len(shares))
	for i, sh := range shares {
		st := sts[i]
		n := int(sh.Record.NumRows())
		if len(sh.Order) != n || len(sh.Rows) != n {
			return fmt.Errorf("realtime: share of %s has %d rows, %d order and %d input row entries", st.pb, n, len(sh.Order), len(sh.Rows))
		}
		// Offsets of Record's rows; in the share's input order for the check.
		p := planned{offs: make([]int64, n)}
		if appOff != nil {
			in := make([]int64, n)
			for j, o := range sh.Order {
				row := sh.Rows[j]
				if o < 0 || int(o) >= n || row < 0 || int(row) >= len(appOff) {
					return fmt.Errorf("realtime: share of %s maps row %d to input row %d, position %d", st.pb, j, row, o)
				}
				in[o] = appOff[row]
				p.offs[j] = appOff[row]
			}
			if p.r, err = checkOffsets(in, st.next, st.pb); err != nil {
				return err
			}
		} else {
			for j, o := range sh.Order {
				if o < 0 || int(o) >= n {
					return fmt.Errorf("realtime: share of %s maps row %d to position %d", st.pb, j, o)
				}
				p.offs[j] = st.next + int64(o)
			}
			p.r = progress.Range{Begin: st.next, End: st.next + int64(n)}
		}
		if c.lay.mode == PrimaryKey {
			p.seqs = make([]int64, n)
			for j, o := range sh.Order {
				p.seqs[j] = st.seq + int64(o)
			}
		}
		plans[i] = p
	}
	for i, sh := range shares {
		st, p := sts[i], plans[i]
		n := int(sh.Record.NumRows())
		b := c.lay.build(c.mem, sh.Record.Columns(), n, p.offs, sh.Kinds, p.seqs)
		err := st.store.Write(ctx, Batch{Record: b, Range: p.r})
		b.Release()
		if err != nil {
			return fmt.Errorf("realtime: store of %s: %w", st.pb, err)
		}
		st.next = p.r.End
		st.seq += int64(n)
		st.wrote.Store(true)
		w.tmu.Lock()
		w.touched[st.key] = st
		w.tmu.Unlock()
	}
	return nil
}

// splitOffsets separates a leading OffsetColumn from the table columns of
// rec. It returns the table part (the caller releases it) and the
// application offsets (nil without the column).
func splitOffsets(rec arrow.RecordBatch) (arrow.RecordBatch, []int64, error) {
	if rec == nil {
		return nil, nil, fmt.Errorf("%w: nil record batch", ErrSchemaMismatch)
	}
	sc := rec.Schema()
	idx := sc.FieldIndices(OffsetColumn)
	switch {
	case len(idx) == 0:
		rec.Retain()
		return rec, nil, nil
	case len(idx) > 1 || idx[0] != 0:
		return nil, nil, fmt.Errorf("%w: %s must be the first column, once", ErrSchemaMismatch, OffsetColumn)
	}
	col, ok := rec.Column(0).(*array.Int64)
	if !ok {
		return nil, nil, fmt.Errorf("%w: %s is %s, want int64", ErrSchemaMismatch, OffsetColumn, rec.Column(0).DataType())
	}
	if n := col.NullN(); n > 0 {
		return nil, nil, fmt.Errorf("%w: %s holds %d nulls", ErrOffsetOrder, OffsetColumn, n)
	}
	fields := sc.Fields()[1:]
	tbl := array.NewRecordBatch(arrow.NewSchema(fields, nil), rec.Columns()[1:], rec.NumRows())
	return tbl, col.Int64Values(), nil
}

// PrepareCommit fails with ErrRealtimeWriter: a real-time writer's commit
// messages must carry their offset ranges (PrepareCommitWithProgress).
func (w *Write) PrepareCommit(ctx context.Context) ([]commit.Message, error) {
	return nil, ErrRealtimeWriter
}

// prepJob is one partition-bucket of a prepare.
type prepJob struct {
	st   *pbState
	segs []Segment
	r    progress.Range
}

// PrepareCommitWithProgress seals the building segment of every
// partition-bucket this writer wrote (a new one opens at once, so Write
// continues), writes the sealed rows through the table's writer into data
// files (primary keys: level-0 files with the rows' sequence numbers and
// kinds) and returns, per partition-bucket with sealed rows, its commit
// message and offsets range, in partition-bucket order (paimon-cpp
// FileStoreWrite::PrepareCommitWithProgress). identifier is the commit
// identifier the caller will commit with; it is not recorded here.
//
// A range begins at the end of the partition-bucket's previous prepared
// (or committed) range, not at its first row's offset, so gaps in
// application offsets never make ranges non-contiguous; it ends at the
// sealed rows' envelope end. Several prepares may be outstanding before a
// commit. One prepare runs at a time per context.
//
// All or nothing: on error no range is handed out, the sealed rows stay in
// the stores (still readable) and the next prepare flushes them again.
// A flush writer gone stale (writer.ErrStale: another committer's
// compaction and snapshot expiration deleted files of its levels) is
// dropped and the flush retried once with a writer restored from the
// latest snapshot, so such a prepare succeeds.
// Errors: ErrClosed, the stores' and the writer's.
func (w *Write) PrepareCommitWithProgress(ctx context.Context, identifier int64) ([]Progress, error) {
	w.fmu.Lock()
	defer w.fmu.Unlock()
	w.tmu.Lock()
	closed := w.closed
	sts := make([]*pbState, 0, len(w.touched))
	for _, st := range w.touched {
		sts = append(sts, st)
	}
	w.tmu.Unlock()
	if closed {
		return nil, fmt.Errorf("%w: real-time writer", ErrClosed)
	}
	c := w.c
	if c.isClosed() {
		return nil, fmt.Errorf("%w: real-time context", ErrClosed)
	}
	slices.SortFunc(sts, func(a, b *pbState) int { return comparePB(a.partition, a.bucket, b.partition, b.bucket) })
	c.prepMu.Lock()
	defer c.prepMu.Unlock()
	c.press.begin()
	defer c.press.end()
	if c.reporter != nil {
		defer c.prepared.add(time.Now())
	}
	out, err := w.prepare(ctx, sts)
	if errors.Is(err, writer.ErrStale) {
		// Another committer's compaction and expiration deleted files of
		// the flush writer's levels. The failed flush closed it and put
		// the rows back; a new flush writer restores its levels from the
		// latest snapshot and flushes them again.
		out, err = w.prepare(ctx, sts)
	}
	return out, err
}

// prepare seals and flushes the partition-buckets sts; the caller holds
// fmu and prepMu. On error every range is handed back (see
// PrepareCommitWithProgress) and the flush writer is dropped.
func (w *Write) prepare(ctx context.Context, sts []*pbState) ([]Progress, error) {
	c := w.c
	if lost := c.lostCompactions.Load(); lost != w.lost {
		// A commit refused the compaction changes of a flush writer: its
		// levels describe files the table does not have.
		if err := w.flush.Restore(ctx); err != nil {
			return nil, fmt.Errorf("realtime: restore the flush writer: %w", err)
		}
		w.lost = lost
	}

	var jobs []prepJob
	restore := func() {
		for _, j := range jobs {
			j.st.mu.Lock()
			j.st.pending = append(slices.Clone(j.segs), j.st.pending...)
			j.st.prepared = j.r.Begin
			j.st.mu.Unlock()
		}
	}
	for _, st := range sts {
		st.mu.Lock()
		seg, err := st.store.SealForCommit(ctx)
		if err != nil {
			st.mu.Unlock()
			restore()
			return nil, fmt.Errorf("realtime: seal the store of %s: %w", st.pb, err)
		}
		segs := st.pending
		st.pending = nil
		if seg != nil && seg.RowCount() > 0 {
			segs = append(segs, seg)
		}
		if len(segs) == 0 {
			st.mu.Unlock()
			continue
		}
		r := progress.Range{Begin: st.prepared, End: segs[len(segs)-1].Range().End}
		st.prepared = r.End
		st.mu.Unlock()
		jobs = append(jobs, prepJob{st: st, segs: segs, r: r})
	}
	if len(jobs) == 0 {
		return nil, nil
	}
	if c.flushHook != nil {
		c.flushHook()
	}
	out, err := w.flushJobs(ctx, jobs)
	if err != nil {
		if w.flush != nil {
			_ = w.flush.Close() // deletes the files of the failed flush
			w.flush = nil
		}
		restore()
		return nil, err
	}
	return out, nil
}

// flushJobs writes the sealed rows of jobs through the flush writer and
// pairs its messages with the jobs' ranges.
func (w *Write) flushJobs(ctx context.Context, jobs []prepJob) ([]Progress, error) {
	c := w.c
	if w.flush == nil {
		f, err := writer.New(c.fio, c.ts, w.user, w.wopts...)
		if err != nil {
			return nil, err
		}
		w.flush = f
	}
	for _, j := range jobs {
		for _, seg := range j.segs {
			readers, err := j.st.store.CommitReaders(ctx, seg)
			if err != nil {
				return nil, fmt.Errorf("realtime: commit readers of %s %s: %w", j.st.pb, seg.Range(), err)
			}
			for k, rd := range readers {
				if err := w.flushReader(ctx, j.st, rd); err != nil {
					return nil, fmt.Errorf("realtime: flush %s %s reader %d: %w", j.st.pb, seg.Range(), k, err)
				}
			}
		}
	}
	msgs, err := w.flush.PrepareCommit(ctx)
	if err != nil {
		return nil, err
	}
	byKey := make(map[string]commit.Message, len(msgs))
	for _, m := range msgs {
		byKey[pbKey(m.Partition, m.Bucket)] = m
	}
	out := make([]Progress, 0, len(jobs))
	for _, j := range jobs {
		m, ok := byKey[j.st.key]
		if !ok {
			m = commit.Message{Partition: slices.Clone(j.st.partition), Bucket: j.st.bucket, TotalBuckets: c.buckets}
		}
		delete(byKey, j.st.key)
		out = append(out, Progress{Message: m, PartitionBucket: j.st.pb, Range: j.r})
	}
	// What is left are the flush writer's background compactions that
	// finished for partition-buckets with nothing sealed now: they travel
	// as entries with an empty range. New data files there would be rows
	// that were never sealed.
	keys := slices.Sorted(maps.Keys(byKey))
	c.mu.Lock()
	defer c.mu.Unlock()
	for _, k := range keys {
		m := byKey[k]
		st := c.pbs[k]
		if st == nil || len(m.Data.NewFiles) > 0 {
			return nil, fmt.Errorf("realtime: the flush wrote data files of a partition-bucket (bucket %d) that was not sealed", m.Bucket)
		}
		out = append(out, Progress{Message: m, PartitionBucket: st.pb})
	}
	return out, nil
}

// flushReader writes the rows of rd, all of partition-bucket st, through
// the flush writer.
func (w *Write) flushReader(ctx context.Context, st *pbState, rd func(func(arrow.RecordBatch, error) bool)) error {
	for b, err := range rd {
		if err != nil {
			return err
		}
		rec, err := w.c.lay.stripOffset(b)
		b.Release()
		if err != nil {
			return err
		}
		err = w.flush.WriteBucket(ctx, st.partition, st.bucket, rec)
		rec.Release()
		if err != nil {
			return err
		}
	}
	return nil
}

// Close closes the writer. It fails with ErrUnprepared, and stays open,
// while a partition-bucket it wrote holds rows that no successful
// PrepareCommitWithProgress covered (paimon-cpp since #280: everything
// accepted must be prepared before close or handoff); those rows stay
// readable through the context. With the context closed there is nothing
// to keep and Close always closes. Close is idempotent.
func (w *Write) Close() error {
	w.fmu.Lock()
	defer w.fmu.Unlock()
	w.mu.Lock()
	defer w.mu.Unlock()
	w.tmu.Lock()
	defer w.tmu.Unlock()
	if w.closed {
		return w.closeE
	}
	if !w.c.isClosed() {
		var open []string
		for _, st := range w.touched {
			st.mu.Lock()
			if st.next > st.prepared || len(st.pending) > 0 {
				open = append(open, fmt.Sprintf("%s [%d,%d)", st.pb, st.prepared, st.next))
			}
			st.mu.Unlock()
		}
		if len(open) > 0 {
			slices.Sort(open)
			return fmt.Errorf("%w: %v", ErrUnprepared, open)
		}
	}
	w.closed = true
	var errs []error
	errs = append(errs, w.router.Close())
	if w.flush != nil {
		errs = append(errs, w.flush.Close())
	}
	w.closeE = errors.Join(errs...)
	return w.closeE
}
