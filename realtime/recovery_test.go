package realtime_test

import (
	"context"
	"errors"
	"iter"
	"slices"
	"sync/atomic"
	"testing"

	"github.com/apache/arrow-go/v18/arrow"

	"github.com/paimon-go/paimon/catalog"
	"github.com/paimon-go/paimon/memindexer"
	"github.com/paimon-go/paimon/progress"
	"github.com/paimon-go/paimon/realtime"
)

// sourceLog is an ingest source with its own offsets (Kafka-like: sparse,
// increasing): entry i has offset 100 + 3*i and row id i.
func sourceOffset(i int64) int64 { return 100 + 3*i }

// replayFrom writes every source row from the first whose offset is >= end
// up to (excluding) row to, with the source offsets.
func replayFrom(t *testing.T, w *realtime.Write, end, to int64) {
	t.Helper()
	var offs, ids []int64
	for i := int64(0); i < to; i++ {
		if sourceOffset(i) >= end {
			offs = append(offs, sourceOffset(i))
			ids = append(ids, i)
		}
	}
	if len(ids) > 0 {
		write(t, w, fooOffsetRows(t, "p0", offs, ids))
	}
}

// committedEnd returns the durable end of the only partition-bucket of
// tbl's latest snapshot (0 when none).
func committedEnd(t *testing.T, tbl *catalog.Table) int64 {
	t.Helper()
	o, err := realtime.ReadCommittedOffsets(context.Background(), tbl.FileIO, 0)
	if err != nil {
		t.Fatal(err)
	}
	end, _ := o.End(progress.PartitionBucket{Partition: map[string]string{}, Bucket: 0})
	return end
}

// The documented recovery (realtime-design.md section 11): after a failed
// commit the context is thrown away, the durable offsets are read back
// and the source is replayed from them; every row ends up exactly once.
// Both a commit that failed and one whose success was lost are recovered.
func TestRecoveryReplaysExactlyOnce(t *testing.T) {
	tbl := newFooTable(t, nil, nil, nil)
	ctx := context.Background()

	rc := newContext(t, tbl)
	w := newWrite(t, rc, "job")
	cm := newCommit(t, rc, "job")
	replayFrom(t, w, 0, 10)
	prog := prepare(t, w, 1)
	equal(t, "ranges", ranges(prog), []string{"{}/bucket-0[0," + itoa(sourceOffset(9)+1) + ")"})
	id := commitProg(t, cm, prog, 1)
	refresh(t, rc, id)
	// A retry of the landed commit returns the snapshot and adds nothing.
	if again := commitProg(t, cm, prog, 1); again != id {
		t.Fatalf("retry returned snapshot %d, want %d", again, id)
	}

	// Round 2 fails to commit (the commit's context is cancelled).
	write(t, w, fooOffsetRows(t, "p0", []int64{sourceOffset(10), sourceOffset(11)}, []int64{10, 11}))
	prog = prepare(t, w, 2)
	cctx, cancel := context.WithCancel(ctx)
	cancel()
	if _, err := cm.CommitWithProgress(cctx, prog, 2, nil); err == nil {
		t.Fatal("commit with a cancelled context succeeded")
	}
	write(t, w, fooOffsetRows(t, "p0", []int64{sourceOffset(12)}, []int64{12})) // accepted, never prepared
	equal(t, "before recovery", scanRows(t, rc), fooStrings("p0", seq(0, 13)...))
	rc.Close()
	if err := w.Close(); err != nil {
		t.Fatalf("close after the context: %v", err)
	}

	// Recovery 1: new context, replay from the durable end.
	end := committedEnd(t, tbl)
	if end != sourceOffset(9)+1 {
		t.Fatalf("durable end %d", end)
	}
	rc2 := newContext(t, tbl)
	w2 := newWrite(t, rc2, "job")
	cm2 := newCommit(t, rc2, "job")
	replayFrom(t, w2, end, 20)
	prog = prepare(t, w2, 3)
	equal(t, "replayed ranges", ranges(prog), []string{"{}/bucket-0[" + itoa(end) + "," + itoa(sourceOffset(19)+1) + ")"})
	// Round 3 lands, but its acknowledgement is lost: the job recovers
	// again without knowing.
	commitProg(t, cm2, prog, 3)
	replayFrom(t, w2, sourceOffset(20), 22)
	rc2.Close()
	w2.Close()

	end = committedEnd(t, tbl)
	if end != sourceOffset(19)+1 {
		t.Fatalf("durable end after the lost acknowledgement %d", end)
	}
	rc3 := newContext(t, tbl)
	w3 := newWrite(t, rc3, "job")
	cm3 := newCommit(t, rc3, "job")
	replayFrom(t, w3, end, 30)
	id = commitProg(t, cm3, prepare(t, w3, 4), 4)
	refresh(t, rc3, id)

	want := fooStrings("p0", seq(0, 30)...)
	slices.Sort(want)
	equal(t, "every row once (plain read)", diskRows(t, tbl), want)
	equal(t, "every row once (union read)", sortedScan(t, rc3), want)
	equal(t, "committed", committed(t, tbl, id), []string{"{}/bucket-0=" + itoa(sourceOffset(29)+1)})
}

// flakyFactory creates built-in stores whose CommitReaders fail while
// fails is positive (counting down), after the segment was sealed.
type flakyFactory struct{ fails atomic.Int32 }

func (f *flakyFactory) Create(req realtime.CreateRequest) (realtime.Store, error) {
	s, err := memindexer.Factory{}.Create(req)
	if err != nil {
		return nil, err
	}
	return &flakyStore{Store: s, f: f}, nil
}

type flakyStore struct {
	realtime.Store
	f *flakyFactory
}

var errFlaky = errors.New("injected commit reader failure")

func (s *flakyStore) CommitReaders(ctx context.Context, seg realtime.Segment) ([]iter.Seq2[arrow.RecordBatch, error], error) {
	if s.f.fails.Add(-1) >= 0 {
		return nil, errFlaky
	}
	return s.Store.CommitReaders(ctx, seg)
}

// A prepare that fails after sealing leaves the sealed rows in the stores
// (readable); the next prepare flushes them again with the rows written
// since, and the ranges stay contiguous. A prepare cancelled before
// sealing changes nothing.
func TestPrepareFailureIsRetried(t *testing.T) {
	tbl := newFooTable(t, nil, []string{"pt"}, nil)
	ff := &flakyFactory{}
	rc, err := realtime.NewContext(tbl.FileIO, tbl.Schema, ff)
	if err != nil {
		t.Fatal(err)
	}
	defer rc.Close()
	w := newWrite(t, rc, "u")
	cm := newCommit(t, rc, "u")
	write(t, w, fooRows(t, "p0", 0, 1, 2))
	write(t, w, fooRows(t, "p1", 10))
	cctx, cancel := context.WithCancel(context.Background())
	cancel()
	if _, err := w.PrepareCommitWithProgress(cctx, 1); err == nil {
		t.Fatal("prepare with a cancelled context succeeded")
	}
	ff.fails.Store(2)
	_, err = w.PrepareCommitWithProgress(context.Background(), 1)
	wantErr(t, err, errFlaky)
	if u := rc.Usage(); u.SealedRows != 4 || u.BuildingRows != 0 {
		t.Fatalf("usage after the failed prepare %+v", u)
	}
	wantErr(t, w.Close(), realtime.ErrUnprepared)
	write(t, w, fooRows(t, "p0", 3))
	_, err = w.PrepareCommitWithProgress(context.Background(), 1)
	wantErr(t, err, errFlaky)
	equal(t, "readable", scanRows(t, rc), slices.Concat(fooStrings("p0", 0, 1, 2, 3), fooStrings("p1", 10)))
	prog := prepare(t, w, 1)
	equal(t, "ranges", ranges(prog), []string{"{pt=p0}/bucket-0[0,4)", "{pt=p1}/bucket-0[0,1)"})
	id := commitProg(t, cm, prog, 1)
	refresh(t, rc, id)
	want := slices.Concat(fooStrings("p0", 0, 1, 2, 3), fooStrings("p1", 10))
	slices.Sort(want)
	equal(t, "rows", diskRows(t, tbl), want)
	if err := w.Close(); err != nil {
		t.Fatal(err)
	}
}
