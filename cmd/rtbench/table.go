package main

import (
	"context"
	"errors"
	"fmt"
	"iter"
	"strings"

	"github.com/apache/arrow-go/v18/arrow"

	"github.com/paimon-go/paimon/catalog"
	"github.com/paimon-go/paimon/commit"
	"github.com/paimon-go/paimon/fileio"
	"github.com/paimon-go/paimon/metrics"
	"github.com/paimon-go/paimon/reader"
	"github.com/paimon-go/paimon/writer"
)

// sink is the table a run writes to, through the plain write path or the
// real-time layer.
type sink interface {
	// Write writes one batch. Write and Prepare are never called
	// concurrently on a plain sink (concurrentPrepare false).
	Write(ctx context.Context, rec arrow.RecordBatch) error
	// concurrentPrepare reports whether Prepare may run while Write does
	// (the real-time layer keeps ingesting during a flush).
	concurrentPrepare() bool
	// Prepare flushes what was written into data files: the data-file
	// phase of a commit.
	Prepare(ctx context.Context, identifier int64) (pending, error)
	// Publish commits what Prepare returned (manifests, manifest list,
	// snapshot) and returns the snapshot id (0 when nothing was committed)
	// and the time of its phases.
	Publish(ctx context.Context, p pending, identifier int64) (int64, phaseTimes, error)
	// Refresh tells the real-time layer that snapshot id is committed, so
	// memory can be reclaimed; a no-op on plain sinks.
	Refresh(ctx context.Context, id int64) error
	// Plan plans a read: a union read of files and memory on a real-time
	// sink, a read of the latest snapshot otherwise.
	Plan(ctx context.Context, opts ...reader.Option) (readPlan, error)
	// union reports whether Plan reads memory too.
	union() bool
	// requests returns the store requests made so far by the write side
	// (data files), the commit side (metadata) and the query side; when
	// they share one counter, shared is true and all three are that one.
	requests() (write, publish, query fileio.Stats, shared bool)
	Close() error
}

// pending is what Prepare hands to Publish.
type pending any

// readPlan is a planned read.
type readPlan interface {
	Records(ctx context.Context) iter.Seq2[arrow.RecordBatch, error]
	// ends returns, over the partition-buckets of the plan, the greatest
	// and the sum of the end offsets it covers (committed end of the planned
	// snapshot or memory end of the pinned view, whichever is greater), and
	// releases what the plan pins; zeros for a plain plan.
	ends() (maxEnd, sumEnd int64)
	// files returns the data files the plan reads, and how many of them
	// are at level 0.
	files() (total, level0 int)
}

// openFIO opens the table root again, for its own request counters; a
// mem:// table can only be shared (its store is private to one FileIO).
func openFIO(ctx context.Context, tbl *catalog.Table) (*fileio.FileIO, bool, error) {
	if strings.HasPrefix(tbl.FileIO.URL(), "mem://") {
		return tbl.FileIO, false, nil
	}
	f, err := fileio.Open(ctx, tbl.FileIO.URL())
	if err != nil {
		return nil, false, err
	}
	return f, true, nil
}

// openFIOs opens a FileIO of the table root into each of dst (openFIO),
// so that the writer, the committer and the queries count their requests
// apart. It returns those to close, and shared when they are one FileIO
// (mem://). On an error it closes what it opened.
func openFIOs(ctx context.Context, tbl *catalog.Table, dst ...**fileio.FileIO) (owned []*fileio.FileIO, shared bool, err error) {
	for _, p := range dst {
		f, own, err := openFIO(ctx, tbl)
		if err != nil {
			for _, o := range owned {
				_ = o.Close()
			}
			return nil, false, fmt.Errorf("rtbench: open table: %w", err)
		}
		if own {
			owned = append(owned, f)
		} else {
			shared = true
		}
		*p = f
	}
	return owned, shared, nil
}

// plainSink writes with writer.Write and commits with commit.Committer.
// The writer, the committer and the reader each get their own FileIO so
// that their requests are counted apart.
type plainSink struct {
	tbl              *catalog.Table
	wfio, cfio, qfio *fileio.FileIO
	owned            []*fileio.FileIO
	shared           bool
	w                *writer.Write
	c                *commit.Committer
	trace            phaseTrace
	reporter         metrics.Reporter // --metrics; nil: none
}

func newPlainSink(ctx context.Context, tbl *catalog.Table, commitUser string, rep metrics.Reporter) (s *plainSink, err error) {
	s = &plainSink{tbl: tbl, reporter: rep}
	defer func() {
		if err != nil {
			_ = s.Close()
		}
	}()
	if s.owned, s.shared, err = openFIOs(ctx, tbl, &s.wfio, &s.cfio, &s.qfio); err != nil {
		return s, err
	}
	// A streaming job: compactions run in the background, as Java's stream
	// write does (prepareCommit(waitCompaction = false)).
	if s.w, err = writer.New(s.wfio, tbl.Schema, commitUser, writer.WithAsyncCompaction(1)); err != nil {
		return s, fmt.Errorf("rtbench: new write: %w", err)
	}
	if s.c, err = commit.New(s.cfio, tbl.Schema, commitUser, s.trace.option(), commit.WithReporter(rep)); err != nil {
		return s, fmt.Errorf("rtbench: new commit: %w", err)
	}
	return s, nil
}

func (s *plainSink) Write(ctx context.Context, rec arrow.RecordBatch) error {
	return s.w.Write(ctx, rec)
}

func (s *plainSink) concurrentPrepare() bool { return false }

func (s *plainSink) Prepare(ctx context.Context, _ int64) (pending, error) {
	return s.w.PrepareCommit(ctx)
}

func (s *plainSink) Publish(ctx context.Context, p pending, identifier int64) (int64, phaseTimes, error) {
	id, err := s.c.Commit(ctx, identifier, p.([]commit.Message))
	return id, s.trace.take(), err
}

func (s *plainSink) Refresh(context.Context, int64) error { return nil }

func (s *plainSink) Plan(ctx context.Context, opts ...reader.Option) (readPlan, error) {
	p, err := reader.NewScan(s.qfio, append([]reader.Option{reader.WithReporter(s.reporter)}, opts...)...).Plan(ctx)
	if err != nil {
		return nil, err
	}
	return filePlan{p, len(s.tbl.Schema.PrimaryKeys) > 0}, nil
}

func (s *plainSink) union() bool { return false }

func (s *plainSink) requests() (w, p, q fileio.Stats, shared bool) {
	return s.wfio.Stats(), s.cfio.Stats(), s.qfio.Stats(), s.shared
}

func (s *plainSink) Close() error {
	var errs []error
	if s.w != nil {
		errs = append(errs, s.w.Close())
	}
	if s.c != nil {
		errs = append(errs, s.c.Close())
	}
	for _, f := range s.owned {
		errs = append(errs, f.Close())
	}
	return errors.Join(errs...)
}

// filePlan is a reader.Plan of committed files.
type filePlan struct {
	p          *reader.Plan
	primaryKey bool
}

func (f filePlan) Records(ctx context.Context) iter.Seq2[arrow.RecordBatch, error] {
	return f.p.Records(ctx)
}

func (f filePlan) ends() (int64, int64) { return 0, 0 }

func (f filePlan) files() (total, level0 int) {
	return splitFiles(f.p.Splits)
}

// splitFiles counts the data files of splits and those at level 0.
func splitFiles(splits []*reader.Split) (total, level0 int) {
	for _, sp := range splits {
		for _, fm := range sp.Files {
			total++
			if fm.Level == 0 {
				level0++
			}
		}
	}
	return total, level0
}

// verifyFiles reads the committed table through a FileIO of its own and
// compares it with the model.
func verifyFiles(ctx context.Context, tbl *catalog.Table, m model) (rows int64, files, level0 int, err error) {
	fio, own, err := openFIO(ctx, tbl)
	if err != nil {
		return 0, 0, 0, err
	}
	if own {
		defer fio.Close()
	}
	p, err := reader.NewScan(fio, reader.WithColumns(m.columns()...)).Plan(ctx)
	if err != nil {
		return 0, 0, 0, err
	}
	files, level0 = splitFiles(p.Splits)
	rows, err = m.verify(p.Records(ctx))
	return rows, files, level0, err
}
