package realtime_test

import (
	"context"
	"errors"
	"iter"
	"slices"
	"sync/atomic"
	"testing"

	"github.com/apache/arrow-go/v18/arrow"

	"github.com/paimon-go/paimon/commit"
	"github.com/paimon-go/paimon/memindexer"
	"github.com/paimon-go/paimon/progress"
	"github.com/paimon-go/paimon/realtime"
)

// Scenarios 5 and 6 (TestCommitWithProgressRetryReturnsLatestSnapshot,
// TestCommitWithProgressRejectsCoveredRangesFromAnotherUser).
func TestCommitRetryAndForeignUser(t *testing.T) {
	tbl := newFooTable(t, nil, nil, nil)
	rc := newContext(t, tbl)
	w := newWrite(t, rc, "u")
	cm := newCommit(t, rc, "u")
	write(t, w, fooRows(t, "p0", 0, 1, 2))
	p1 := prepare(t, w, 1)
	id1 := commitProg(t, cm, p1, 1)
	if again := commitProg(t, cm, p1, 1); again != id1 {
		t.Fatalf("retry gave %d, want %d", again, id1)
	}
	write(t, w, fooRows(t, "p0", 3, 4))
	id2 := commitProg(t, cm, prepare(t, w, 2), 2)
	if again := commitProg(t, cm, p1, 1); again != id2 {
		t.Fatalf("late retry gave %d, want the latest %d", again, id2)
	}
	other := newCommit(t, rc, "someone-else")
	_, err := other.CommitWithProgress(context.Background(), p1, 1, nil)
	wantErr(t, err, commit.ErrForeignProgress)
	equal(t, "committed", committed(t, tbl, 0), []string{"{}/bucket-0=5"})
	equal(t, "rows", diskRows(t, tbl), fooStrings("p0", seq(0, 5)...))
}

// Scenarios 31 and 32 (TestPlanPinsMemoryAcrossRefresh,
// TestReaderPinsMemoryAcrossRefresh): a plan made before a commit and
// refresh still reads the rows the refresh reclaimed.
func TestPlanPinsMemoryAcrossRefresh(t *testing.T) {
	tbl := newFooTable(t, nil, nil, nil)
	rc := newContext(t, tbl)
	w := newWrite(t, rc, "u")
	cm := newCommit(t, rc, "u")
	write(t, w, fooRows(t, "p0", 0, 1, 2))
	p := plan(t, rc)
	id := commitProg(t, cm, prepare(t, w, 1), 1)
	refresh(t, rc, id)
	if u := rc.Usage(); u != (realtime.Usage{}) {
		t.Fatalf("usage after refresh %+v", u)
	}
	equal(t, "pinned plan", readPlan(t, p), fooStrings("p0", 0, 1, 2))
	equal(t, "new plan", splitInfos(plan(t, rc)), []string{"disk {}/bucket-0 disk=1 snap=" + itoa(id) + " C=3 M=3"})
}

// failQueryFactory creates built-in stores whose QueryReaders fail while
// fails is positive.
type failQueryFactory struct{ fails atomic.Int32 }

var errQuery = errors.New("injected query failure")

func (f *failQueryFactory) Create(req realtime.CreateRequest) (realtime.Store, error) {
	s, err := memindexer.Factory{}.Create(req)
	if err != nil {
		return nil, err
	}
	return &failQueryStore{Store: s, f: f}, nil
}

type failQueryStore struct {
	realtime.Store
	f *failQueryFactory
}

func (s *failQueryStore) QueryReaders(ctx context.Context, v realtime.ReadView, q realtime.Query) ([]iter.Seq2[arrow.RecordBatch, error], error) {
	if s.f.fails.Add(-1) >= 0 {
		return nil, errQuery
	}
	return s.Store.QueryReaders(ctx, v, q)
}

// Scenarios 13 and 14 (TestSuccessfulReaderCreationConsumesRealtimeSplitTicket,
// TestFailedReaderCreationPreservesRealtimeSplitTicket), and 15 adapted:
// a failed read start of the second split leaves its ticket, the first
// split's read consumed its own.
func TestFailedReadKeepsTicket(t *testing.T) {
	tbl := newFooTable(t, nil, []string{"pt"}, nil)
	ff := &failQueryFactory{}
	rc, err := realtime.NewContext(tbl.FileIO, tbl.Schema, ff)
	if err != nil {
		t.Fatal(err)
	}
	defer rc.Close()
	w := newWrite(t, rc, "u")
	write(t, w, fooRows(t, "p0", 0, 1))
	write(t, w, fooRows(t, "p1", 10))
	p := plan(t, rc)
	equal(t, "splits", splitInfos(p), []string{"rt {pt=p0}/bucket-0 disk=0 snap=0 C=0 M=2", "rt {pt=p1}/bucket-0 disk=0 snap=0 C=0 M=1"})
	equal(t, "first split", readSplits(t, p, p.Splits[0]), fooStrings("p0", 0, 1))
	ff.fails.Store(1)
	_, err = tryReadSplits(p, p.Splits[1])
	wantErr(t, err, errQuery)
	if rc.Pinned() != 1 {
		t.Fatalf("pinned %d after the failed read", rc.Pinned())
	}
	equal(t, "retried split", readSplits(t, p, p.Splits[1]), fooStrings("p1", 10))
	_, err = tryReadSplits(p, p.Splits...)
	wantErr(t, err, realtime.ErrTicketExpired)
}

// Scenarios 38 and 39 (TestDropPartitionRequiresReopenRealtimeContext,
// TestDropInactivePartitionDoesNotRequireReopenRealtimeContext).
func TestDropPartitions(t *testing.T) {
	tbl := newFooTable(t, nil, []string{"pt"}, nil)
	seedCtx := newContext(t, tbl)
	sw := newWrite(t, seedCtx, "seed")
	scm := newCommit(t, seedCtx, "seed")
	write(t, sw, fooRows(t, "p1", 10, 11, 12))
	commitProg(t, scm, prepare(t, sw, 1), 1)

	rc := newContext(t, tbl)
	w := newWrite(t, rc, "u")
	cm := newCommit(t, rc, "u")
	write(t, w, fooRows(t, "p0", 0, 1))
	id := commitProg(t, cm, prepare(t, w, 1), 1)
	refresh(t, rc, id)
	equal(t, "committed", committed(t, tbl, id), []string{"{pt=p0}/bucket-0=2", "{pt=p1}/bucket-0=3"})

	// p1 is not written by rc: dropping it is fine, and p1 restarts at 0.
	// Drops run as another commit user: a batch-identifier snapshot of the
	// writer's own user would mark its later identifiers as committed
	// (commit.Committer idempotency, as Java's filterCommitted).
	admin := newCommit(t, rc, "admin")
	did, err := admin.Committer().DropPartitions(context.Background(), []commit.PartitionSpec{{"pt": "p1"}})
	if err != nil {
		t.Fatal(err)
	}
	equal(t, "after drop p1", committed(t, tbl, did), []string{"{pt=p0}/bucket-0=2"})
	refresh(t, rc, did)
	write(t, w, fooRows(t, "p1", 20, 21))
	prog := prepare(t, w, 2)
	equal(t, "p1 restarts", ranges(prog), []string{"{pt=p1}/bucket-0[0,2)"})
	id = commitProg(t, cm, prog, 2)
	refresh(t, rc, id)

	// Dropping p0, which rc writes, needs a new context.
	write(t, w, fooRows(t, "p0", 2))
	did, err = admin.Committer().DropPartitions(context.Background(), []commit.PartitionSpec{{"pt": "p0"}})
	if err != nil {
		t.Fatal(err)
	}
	equal(t, "after drop p0", committed(t, tbl, did), []string{"{pt=p1}/bucket-0=2"})
	before := rc.Usage()
	wantErr(t, rc.RefreshCommittedSnapshot(context.Background(), did), realtime.ErrRecreateContext)
	if rc.Usage() != before {
		t.Fatalf("failed refresh changed memory")
	}
	rc2 := newContext(t, tbl)
	w2 := newWrite(t, rc2, "u2")
	cm2 := newCommit(t, rc2, "u2")
	write(t, w2, fooRows(t, "p0", 0, 1))
	p := plan(t, rc2)
	equal(t, "order: disk p1 before memory-only p0", splitInfos(p), []string{
		"disk {pt=p1}/bucket-0 disk=1 snap=" + itoa(did) + " C=2 M=2",
		"rt {pt=p0}/bucket-0 disk=0 snap=" + itoa(did) + " C=0 M=2",
	})
	equal(t, "rows", readPlan(t, p), slices.Concat(fooStrings("p1", 20, 21), fooStrings("p0", 0, 1)))
	prog = prepare(t, w2, 1)
	equal(t, "p0 replayed", ranges(prog), []string{"{pt=p0}/bucket-0[0,2)"})
	id = commitProg(t, cm2, prog, 1)
	equal(t, "final", committed(t, tbl, id), []string{"{pt=p0}/bucket-0=2", "{pt=p1}/bucket-0=2"})
	equal(t, "final order", scanRows(t, rc2), slices.Concat(fooStrings("p0", 0, 1), fooStrings("p1", 20, 21)))
}

// Scenario 34 (TestRefreshLatestSnapshotReclaimsMultipleCommittedSegments).
func TestRefreshLatestReclaimsSeveralSegments(t *testing.T) {
	tbl := newFooTable(t, nil, nil, nil)
	rc := newContext(t, tbl)
	w := newWrite(t, rc, "u")
	cm := newCommit(t, rc, "u")
	var id int64
	for i := int64(0); i < 3; i++ {
		write(t, w, fooRows(t, "p0", i))
		id = commitProg(t, cm, prepare(t, w, i+1), i+1)
	}
	if u := rc.Usage(); u.SealedRows != 3 {
		t.Fatalf("usage before refresh %+v", u)
	}
	refresh(t, rc, id)
	if u := rc.Usage(); u != (realtime.Usage{}) {
		t.Fatalf("usage after refresh %+v", u)
	}
	equal(t, "rows", scanRows(t, rc), fooStrings("p0", 0, 1, 2))
}

// Outstanding prepares commit in segment order only: a later range alone
// is not contiguous, and nothing changes; then both land one by one.
func TestOutstandingPreparesCommitInOrder(t *testing.T) {
	tbl := newFooTable(t, nil, nil, nil)
	rc := newContext(t, tbl)
	w := newWrite(t, rc, "u")
	cm := newCommit(t, rc, "u")
	write(t, w, fooRows(t, "p0", 0, 1))
	p1 := prepare(t, w, 1)
	write(t, w, fooRows(t, "p0", 2))
	p2 := prepare(t, w, 2)
	_, err := cm.CommitWithProgress(context.Background(), p2, 2, nil)
	wantErr(t, err, progress.ErrNotContiguous)
	equal(t, "nothing committed", committed(t, tbl, 0), nil)
	id1 := commitProg(t, cm, p1, 1)
	refresh(t, rc, id1)
	equal(t, "union after the first", scanRows(t, rc), fooStrings("p0", 0, 1, 2))
	id2 := commitProg(t, cm, p2, 2)
	equal(t, "committed", committed(t, tbl, id2), []string{"{}/bucket-0=3"})
	refresh(t, rc, id2)
	equal(t, "rows", diskRows(t, tbl), fooStrings("p0", 0, 1, 2))
	if u := rc.Usage(); u != (realtime.Usage{}) {
		t.Fatalf("usage %+v", u)
	}
}
