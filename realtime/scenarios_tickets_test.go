package realtime_test

import (
	"context"
	"iter"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/paimon-go/paimon/reader"
	"github.com/paimon-go/paimon/realtime"
)

// Scenario 12 (TestReadFailsAfterRealtimeSplitTicketExpires), with the
// TTL given as a context option (WithReadViewTTL): after the TTL the
// ticket is gone and its view released; a new plan reads again.
func TestScenario12TicketExpires(t *testing.T) {
	tbl := newFooTable(t, nil, nil, nil)
	rc := newContext(t, tbl, realtime.WithReadViewTTL(10*time.Millisecond))
	w := newWrite(t, rc, "u")
	write(t, w, fooRows(t, "p0", 0, 1, 2))
	p := plan(t, rc)
	if rc.Pinned() != 1 {
		t.Fatalf("pinned %d, want 1", rc.Pinned())
	}
	time.Sleep(50 * time.Millisecond)
	_, err := tryReadSplits(p, p.Splits...)
	wantErr(t, err, realtime.ErrTicketExpired)
	if !strings.Contains(err.Error(), "ticket does not exist or has expired") {
		t.Fatalf("error %q", err)
	}
	if rc.Pinned() != 0 {
		t.Fatalf("expired ticket still pinned")
	}
	equal(t, "new plan", scanRows(t, rc), fooStrings("p0", 0, 1, 2))
}

// Scenario 13 (TestSuccessfulReaderCreationConsumesRealtimeSplitTicket):
// a second read of the same split fails, through ReadSplit and Count
// alike; a new plan reads again.
func TestScenario13ReadConsumesTicket(t *testing.T) {
	tbl := newFooTable(t, nil, nil, nil)
	rc := newContext(t, tbl)
	w := newWrite(t, rc, "u")
	write(t, w, fooRows(t, "p0", 0, 1, 2))
	p := plan(t, rc)
	equal(t, "first read", readPlan(t, p), fooStrings("p0", 0, 1, 2))
	if rc.Pinned() != 0 {
		t.Fatalf("pinned %d after the read", rc.Pinned())
	}
	_, err := tryReadSplits(p, p.Splits...)
	wantErr(t, err, realtime.ErrTicketExpired)
	_, err = p.Count(context.Background())
	wantErr(t, err, realtime.ErrTicketExpired)
	equal(t, "new plan", scanRows(t, rc), fooStrings("p0", 0, 1, 2))
}

// Scenario 14 (TestFailedReaderCreationPreservesRealtimeSplitTicket),
// adapted: an unsupported predicate fails at Plan in our API (before any
// ticket exists), so reader creation is made to fail by the store (an
// injected QueryReaders failure) and by a canceled context. Either way the
// ticket stays and the same plan reads afterwards.
func TestScenario14FailedReadKeepsTicket(t *testing.T) {
	tbl := newFooTable(t, nil, nil, nil)
	rc, spy := scSpyContext(t, tbl)
	w := newWrite(t, rc, "u")
	write(t, w, fooRows(t, "p0", 0, 1, 2))
	p := plan(t, rc)

	spy.mu.Lock()
	spy.failQuery = 1
	spy.mu.Unlock()
	_, err := tryReadSplits(p, p.Splits...)
	wantErr(t, err, errScInjected)
	if rc.Pinned() != 1 {
		t.Fatalf("pinned %d after a failed read, want 1", rc.Pinned())
	}

	canceled, cancel := context.WithCancel(context.Background())
	cancel()
	var cerr error
	for rec, err := range p.ReadSplit(canceled, p.Splits[0]) {
		if rec != nil {
			rec.Release()
			t.Fatal("a canceled read yielded rows")
		}
		cerr = err
	}
	wantErr(t, cerr, context.Canceled)
	if rc.Pinned() != 1 {
		t.Fatalf("pinned %d after a canceled read, want 1", rc.Pinned())
	}

	equal(t, "retry", readPlan(t, p), fooStrings("p0", 0, 1, 2))
	if rc.Pinned() != 0 {
		t.Fatalf("pinned %d after the read", rc.Pinned())
	}
}

// Scenario 15 (TestVectorReaderFailurePreservesEarlierSplitTicket),
// adapted: our splits have no version field and are read one at a time,
// so the tampered split is a copy of p1's split with another memory end;
// reading it fails without consuming its own or p0's ticket, and the
// untampered plan still reads p0 then p1.
func TestScenario15TamperedSplitKeepsTickets(t *testing.T) {
	tbl := newFooTable(t, nil, []string{"pt"}, nil)
	rc := newContext(t, tbl)
	w := newWrite(t, rc, "u")
	write(t, w, fooRows(t, "p0", 0, 1))
	write(t, w, fooRows(t, "p1", 10, 11, 12))
	p := plan(t, rc)
	equal(t, "splits", splitInfos(p), []string{
		"rt {pt=p0}/bucket-0 disk=0 snap=0 C=0 M=2",
		"rt {pt=p1}/bucket-0 disk=0 snap=0 C=0 M=3",
	})
	bad := *p.Splits[1]
	bad.MemoryEnd = 7
	_, err := tryReadSplits(p, &bad)
	wantErr(t, err, realtime.ErrTicketExpired)
	bad2 := *p.Splits[0]
	bad2.CommittedEnd = 1
	_, err = tryReadSplits(p, &bad2)
	wantErr(t, err, realtime.ErrTicketExpired)
	if rc.Pinned() != 2 {
		t.Fatalf("pinned %d after tampered reads, want 2", rc.Pinned())
	}
	equal(t, "p0 then p1", readPlan(t, p), slices.Concat(fooStrings("p0", 0, 1), fooStrings("p1", 10, 11, 12)))
}

// Scenario 16 (TestCloseWriterKeepsContextReadable), with the #280 close
// rule: a writer holding unprepared rows does not close (ErrUnprepared)
// and they stay readable; once prepared it closes, and the sealed,
// uncommitted rows stay readable through the context and can still be
// committed.
func TestScenario16ClosedWriterKeepsContextReadable(t *testing.T) {
	tbl := newFooTable(t, nil, nil, nil)
	rc := newContext(t, tbl)
	w := newWrite(t, rc, "u")
	cm := newCommit(t, rc, "u")
	write(t, w, fooRows(t, "p0", 0, 1, 2))
	wantErr(t, w.Close(), realtime.ErrUnprepared)
	equal(t, "unprepared", scanRows(t, rc), fooStrings("p0", 0, 1, 2))
	prog := prepare(t, w, 1)
	if err := w.Close(); err != nil {
		t.Fatal(err)
	}
	equal(t, "after close", scanRows(t, rc), fooStrings("p0", 0, 1, 2))
	if u := rc.Usage(); u.SealedRows != 3 || u.BuildingRows != 0 {
		t.Fatalf("usage %+v", u)
	}
	id := commitProg(t, cm, prog, 1)
	equal(t, "committed after close", diskRows(t, tbl), fooStrings("p0", 0, 1, 2))
	refresh(t, rc, id)
	scUsageZero(t, rc, "after refresh")
	equal(t, "after refresh", scanRows(t, rc), fooStrings("p0", 0, 1, 2))
}

// Scenario 17 (TestPinnedPlanRemainsReadableAfterWriterClose).
func TestScenario17PinnedPlanAfterWriterClose(t *testing.T) {
	tbl := newFooTable(t, nil, nil, nil)
	rc := newContext(t, tbl)
	w := newWrite(t, rc, "u")
	write(t, w, fooRows(t, "p0", 0, 1, 2))
	p := plan(t, rc)
	prepare(t, w, 1)
	if err := w.Close(); err != nil {
		t.Fatal(err)
	}
	equal(t, "pinned plan", readPlan(t, p), fooStrings("p0", 0, 1, 2))
}

// Scenario 18 (TestCloseWriterAllowsContextReuseByLaterWriter): a second
// writer of the same context continues the offsets; both progress entries
// commit together.
func TestScenario18LaterWriterContinuesOffsets(t *testing.T) {
	tbl := newFooTable(t, nil, nil, nil)
	rc := newContext(t, tbl)
	w1 := newWrite(t, rc, "u")
	cm := newCommit(t, rc, "u")
	write(t, w1, fooRows(t, "p0", 0, 1, 2))
	p1 := prepare(t, w1, 1)
	if err := w1.Close(); err != nil {
		t.Fatal(err)
	}
	w2 := newWrite(t, rc, "u")
	write(t, w2, fooRows(t, "p0", 3, 4))
	equal(t, "union before commit", scanRows(t, rc), fooStrings("p0", seq(0, 5)...))
	p2 := prepare(t, w2, 2)
	equal(t, "ranges", append(ranges(p1), ranges(p2)...), []string{"{}/bucket-0[0,3)", "{}/bucket-0[3,5)"})
	id := commitProg(t, cm, append(p1, p2...), 2)
	equal(t, "committed", committed(t, tbl, id), []string{"{}/bucket-0=5"})
	equal(t, "rows", diskRows(t, tbl), fooStrings("p0", seq(0, 5)...))
	refresh(t, rc, id)
	scUsageZero(t, rc, "after refresh")
}

// Scenario 31 (TestPlanPinsMemoryAcrossRefresh): a plan made before the
// commit still returns every row once after the refresh reclaimed the
// store's memory; its ticket is consumed by the read.
func TestScenario31PlanPinsMemoryAcrossRefresh(t *testing.T) {
	tbl := newFooTable(t, nil, nil, nil)
	rc := newContext(t, tbl)
	w := newWrite(t, rc, "u")
	cm := newCommit(t, rc, "u")
	write(t, w, fooRows(t, "p0", seq(0, 5)...))
	prog := prepare(t, w, 1)
	p := plan(t, rc)
	equal(t, "splits", splitInfos(p), []string{"rt {}/bucket-0 disk=0 snap=0 C=0 M=5"})
	id := commitProg(t, cm, prog, 1)
	refresh(t, rc, id)
	scUsageZero(t, rc, "after refresh")
	equal(t, "pinned plan", readPlan(t, p), fooStrings("p0", seq(0, 5)...))
	if rc.Pinned() != 0 {
		t.Fatalf("pinned %d after the read", rc.Pinned())
	}
	_, err := tryReadSplits(p, p.Splits...)
	wantErr(t, err, realtime.ErrTicketExpired)
	equal(t, "new plan", splitInfos(plan(t, rc)), []string{"disk {}/bucket-0 disk=1 snap=" + itoa(id) + " C=5 M=5"})
	equal(t, "new plan rows", scanRows(t, rc), fooStrings("p0", seq(0, 5)...))
}

// Scenario 32 (TestReaderPinsMemoryAcrossRefresh): a read started before
// the commit (first batch taken; the ticket is consumed) finishes with
// every row after the refresh reclaimed the store's memory.
func TestScenario32ReaderPinsMemoryAcrossRefresh(t *testing.T) {
	tbl := newFooTable(t, nil, nil, nil)
	rc := newContext(t, tbl)
	w := newWrite(t, rc, "u")
	cm := newCommit(t, rc, "u")
	write(t, w, fooRows(t, "p0", seq(0, 5)...))
	prog := prepare(t, w, 1)
	p := plan(t, rc, reader.WithBatchSize(1))
	next, stop := iter.Pull2(p.Records(context.Background()))
	defer stop()
	var got []string
	take := func() bool {
		rec, err, ok := next()
		if !ok {
			return false
		}
		if err != nil {
			t.Fatal(err)
		}
		got = append(got, recStrings(rec)...)
		rec.Release()
		return true
	}
	if !take() {
		t.Fatal("no first batch")
	}
	if rc.Pinned() != 0 {
		t.Fatalf("pinned %d: the started read did not consume its ticket", rc.Pinned())
	}
	id := commitProg(t, cm, prog, 1)
	refresh(t, rc, id)
	scUsageZero(t, rc, "after refresh")
	for take() {
	}
	equal(t, "rows of the started read", got, fooStrings("p0", seq(0, 5)...))
	_, err := tryReadSplits(p, p.Splits...)
	wantErr(t, err, realtime.ErrTicketExpired)
}

// Scenario 34 (TestRefreshLatestSnapshotReclaimsMultipleCommittedSegments).
func TestScenario34RefreshLatestReclaimsAll(t *testing.T) {
	tbl := newFooTable(t, nil, nil, nil)
	rc := newContext(t, tbl)
	w := newWrite(t, rc, "u")
	cm := newCommit(t, rc, "u")
	var last int64
	for round := int64(0); round < 3; round++ {
		write(t, w, fooRows(t, "p0", seq(round*3, round*3+3)...))
		last = commitProg(t, cm, prepare(t, w, round+1), round+1)
	}
	m := rc.Metrics()
	if m[realtime.MetricSealedRowCount] != 9 || m[realtime.MetricTotalRowCount] != 9 || m[realtime.MetricBuildingRowCount] != 0 ||
		m[realtime.MetricSealedMemoryBytes] <= 0 || m[realtime.MetricTotalMemoryBytes] != m[realtime.MetricSealedMemoryBytes] {
		t.Fatalf("metrics before refresh %v", m)
	}
	rows := fooStrings("p0", seq(0, 9)...)
	equal(t, "before refresh", scanRows(t, rc), rows)
	refresh(t, rc, last)
	scUsageZero(t, rc, "after one refresh to the latest")
	equal(t, "after refresh", scanRows(t, rc), rows)
	equal(t, "committed", committed(t, tbl, last), []string{"{}/bucket-0=9"})
}
