package main

import (
	"context"
	"errors"
	"fmt"
	"iter"
	"time"

	"github.com/apache/arrow-go/v18/arrow"

	"github.com/paimon-go/paimon/catalog"
	"github.com/paimon-go/paimon/fileio"
	"github.com/paimon-go/paimon/memindexer"
	"github.com/paimon-go/paimon/metrics"
	"github.com/paimon-go/paimon/reader"
	"github.com/paimon-go/paimon/realtime"
	"github.com/paimon-go/paimon/writer"
)

// realtimeAvailable reports whether this build has the real-time layer;
// --realtime defaults to it.
const realtimeAvailable = true

// rtSink writes through the real-time layer: a realtime.Context with the
// built-in memindexer store, its writer and committer, and union scans.
// The context's writers use fio, its committer cfio
// (realtime.WithCommitFileIO) and its scans and lookups qfio
// (realtime.WithScanFileIO): three FileIOs of the table root, so that each
// side's requests are counted apart (one shared FileIO on mem://).
type rtSink struct {
	tbl             *catalog.Table
	fio, cfio, qfio *fileio.FileIO
	owned           []*fileio.FileIO
	shared          bool
	rctx            *realtime.Context
	w               *realtime.Write
	c               *realtime.Commit
	trace           phaseTrace
	primary         bool
}

func newRealtimeSink(ctx context.Context, tbl *catalog.Table, commitUser string, rep metrics.Reporter) (s *rtSink, err error) {
	s = &rtSink{tbl: tbl, primary: len(tbl.Schema.PrimaryKeys) > 0}
	defer func() {
		if err != nil {
			_ = s.Close()
		}
	}()
	if s.owned, s.shared, err = openFIOs(ctx, tbl, &s.fio, &s.cfio, &s.qfio); err != nil {
		return s, err
	}
	if s.rctx, err = realtime.NewContext(s.fio, tbl.Schema, timedFactory{memindexer.Factory{}}, realtime.WithReporter(rep),
		realtime.WithCommitFileIO(s.cfio), realtime.WithScanFileIO(s.qfio)); err != nil {
		return s, fmt.Errorf("rtbench: real-time context: %w", err)
	}
	// A streaming job: compactions run in the background, as Java's stream
	// write does (prepareCommit(waitCompaction = false)).
	if s.w, err = s.rctx.NewWrite(commitUser, writer.WithAsyncCompaction(1)); err != nil {
		return s, fmt.Errorf("rtbench: real-time write: %w", err)
	}
	if s.c, err = s.rctx.NewCommit(commitUser, s.trace.option()); err != nil {
		return s, fmt.Errorf("rtbench: real-time commit: %w", err)
	}
	return s, nil
}

func (s *rtSink) Write(ctx context.Context, rec arrow.RecordBatch) error { return s.w.Write(ctx, rec) }

func (s *rtSink) concurrentPrepare() bool { return true }

// Lookup looks keys up in memory and files merged (realtime.Context.Lookup).
func (s *rtSink) Lookup(ctx context.Context, keys arrow.RecordBatch) (arrow.RecordBatch, error) {
	return s.rctx.Lookup(ctx, keys)
}

func (s *rtSink) Prepare(ctx context.Context, identifier int64) (pending, error) {
	return s.w.PrepareCommitWithProgress(ctx, identifier)
}

func (s *rtSink) Publish(ctx context.Context, p pending, identifier int64) (int64, phaseTimes, error) {
	prog := p.([]realtime.Progress)
	if len(prog) == 0 {
		return 0, phaseTimes{}, nil
	}
	id, err := s.c.CommitWithProgress(ctx, prog, identifier, nil)
	return id, s.trace.take(), err
}

func (s *rtSink) Refresh(ctx context.Context, id int64) error {
	return s.rctx.RefreshCommittedSnapshot(ctx, id)
}

func (s *rtSink) Plan(ctx context.Context, opts ...reader.Option) (readPlan, error) {
	p, err := s.rctx.NewScan(opts...).Plan(ctx)
	if err != nil {
		return nil, err
	}
	return unionPlan{p, s.primary}, nil
}

func (s *rtSink) union() bool { return true }

// storeUsage returns the bytes and rows the context's stores hold.
func (s *rtSink) storeUsage() (bytes, rows int64) {
	u := s.rctx.Usage()
	return u.BuildingBytes + u.SealedBytes, u.BuildingRows + u.SealedRows
}

func (s *rtSink) requests() (w, p, q fileio.Stats, shared bool) {
	return s.fio.Stats(), s.cfio.Stats(), s.qfio.Stats(), s.shared
}

func (s *rtSink) Close() error {
	var errs []error
	if s.w != nil {
		errs = append(errs, s.w.Close())
	}
	if s.c != nil {
		errs = append(errs, s.c.Close())
	}
	if s.rctx != nil {
		errs = append(errs, s.rctx.Close())
	}
	for _, f := range s.owned {
		errs = append(errs, f.Close())
	}
	return errors.Join(errs...)
}

// pinClock records when a plan's memory read views were pinned: a probe
// puts one into the context of its Plan call, and the stores note the time
// each view was acquired (the last one is when the plan held them all).
type pinClock struct {
	at time.Time
}

type pinKey struct{}

// withPinClock returns ctx carrying c.
func withPinClock(ctx context.Context, c *pinClock) context.Context {
	return context.WithValue(ctx, pinKey{}, c)
}

// timedFactory wraps the stores of a factory so that read views acquired
// under a pinClock are timed. Everything else goes to the wrapped store.
type timedFactory struct {
	inner realtime.Factory
}

func (f timedFactory) Create(req realtime.CreateRequest) (realtime.Store, error) {
	st, err := f.inner.Create(req)
	if err != nil {
		return nil, err
	}
	return timedStore{st}, nil
}

type timedStore struct {
	realtime.Store
}

func (s timedStore) AcquireReadView(ctx context.Context) (realtime.ReadView, error) {
	v, err := s.Store.AcquireReadView(ctx)
	if c, ok := ctx.Value(pinKey{}).(*pinClock); ok && err == nil {
		c.at = time.Now() // one plan acquires its views sequentially
	}
	return v, err
}

// unionPlan is a real-time plan: committed files and memory rows.
type unionPlan struct {
	p          *realtime.Plan
	primaryKey bool
}

func (u unionPlan) Records(ctx context.Context) iter.Seq2[arrow.RecordBatch, error] {
	return u.p.Records(ctx)
}

func (u unionPlan) ends() (maxEnd, sumEnd int64) {
	defer u.p.Release()
	per := map[string]int64{}
	for _, sp := range u.p.Splits {
		k := sp.PartitionBucket.Key()
		per[k] = max(per[k], sp.CommittedEnd, sp.MemoryEnd)
	}
	for _, e := range per {
		maxEnd = max(maxEnd, e)
		sumEnd += e
	}
	return maxEnd, sumEnd
}

func (u unionPlan) files() (total, level0 int) {
	defer u.p.Release()
	return splitFiles(u.p.Disk.Splits)
}
