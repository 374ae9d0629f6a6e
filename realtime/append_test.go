package realtime_test

import (
	"context"
	"maps"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/apache/arrow-go/v18/arrow"

	paimon "github.com/paimon-go/paimon"
	"github.com/paimon-go/paimon/commit"
	"github.com/paimon-go/paimon/internal/tabletest"
	"github.com/paimon-go/paimon/memindexer"
	"github.com/paimon-go/paimon/reader"
	"github.com/paimon-go/paimon/realtime"
	"github.com/paimon-go/paimon/row"
	"github.com/paimon-go/paimon/types"
)

// Scenario 1 (TestRealtimeOperationsRequireEnabledOption), adapted: the
// context is the gate of every real-time operation, so creating it fails.
func TestRequiresEnabledOption(t *testing.T) {
	tbl := newFooTable(t, nil, nil, map[string]string{"realtime.enabled": ""})
	_, err := realtime.NewContext(tbl.FileIO, tbl.Schema, memindexer.Factory{})
	wantErr(t, err, realtime.ErrNotEnabled)
	if got := err.Error(); !strings.Contains(got, "realtime.enabled=true") {
		t.Fatalf("error %q does not name the option", got)
	}
	tbl2 := newFooTable(t, nil, nil, nil)
	_, err = realtime.NewContext(tbl2.FileIO, tbl2.Schema, nil)
	wantErr(t, err, realtime.ErrNilFactory)
}

func TestRequiresFixedBucket(t *testing.T) {
	tbl := newFooTable(t, nil, nil, map[string]string{"bucket": "-1", "bucket-key": ""})
	_, err := realtime.NewContext(tbl.FileIO, tbl.Schema, memindexer.Factory{})
	wantErr(t, err, realtime.ErrUnsupported)
}

// Scenario 2 (TestAppendCommitAndRead).
func TestAppendCommitAndRead(t *testing.T) {
	tbl := newFooTable(t, nil, nil, nil)
	rc := newContext(t, tbl)
	w := newWrite(t, rc, "u")
	cm := newCommit(t, rc, "u")
	write(t, w, fooRows(t, "p0", seq(0, 10)...))
	prog := prepare(t, w, 1)
	equal(t, "ranges", ranges(prog), []string{"{}/bucket-0[0,10)"})
	if n := len(prog[0].Message.Data.NewFiles); n != 1 {
		t.Fatalf("%d new files, want 1", n)
	}
	id := commitProg(t, cm, prog, 1)
	if err := w.Close(); err != nil {
		t.Fatal(err)
	}
	equal(t, "plain read", diskRows(t, tbl), fooStrings("p0", seq(0, 10)...))
	equal(t, "committed", committed(t, tbl, id), []string{"{}/bucket-0=10"})
	// The offsets are not in the data file.
	for _, f := range prog[0].Message.Data.NewFiles {
		if f.RowCount != 10 {
			t.Fatalf("file rows %d", f.RowCount)
		}
	}
}

// Scenario 3 (TestRollingFilesPreserveProgress), adapted: our writer rolls
// at target-file-size (there is no target-file-row-num), so a tiny target
// closes a file after each of the three batches of the segment.
func TestRollingFilesPreserveProgress(t *testing.T) {
	tbl := newFooTable(t, nil, nil, map[string]string{"target-file-size": "1 b"})
	rc := newContext(t, tbl)
	w := newWrite(t, rc, "u")
	cm := newCommit(t, rc, "u")
	for i := int64(0); i < 3; i++ {
		write(t, w, fooRows(t, "p0", seq(i*10, i*10+10)...))
	}
	prog := prepare(t, w, 1)
	equal(t, "ranges", ranges(prog), []string{"{}/bucket-0[0,30)"})
	var counts []int64
	for _, f := range prog[0].Message.Data.NewFiles {
		counts = append(counts, f.RowCount)
	}
	equal(t, "file row counts", counts, []int64{10, 10, 10})
	commitProg(t, cm, prog, 1)
	equal(t, "read in order", scanRows(t, rc), fooStrings("p0", seq(0, 30)...))
	equal(t, "committed", committed(t, tbl, 0), []string{"{}/bucket-0=30"})
}

// Scenario 4 (TestCommitOrdersPreparedOffsetRanges).
func TestCommitOrdersPreparedOffsetRanges(t *testing.T) {
	tbl := newFooTable(t, nil, nil, nil)
	rc := newContext(t, tbl)
	w := newWrite(t, rc, "u")
	cm := newCommit(t, rc, "u")
	write(t, w, fooRows(t, "p0", 0, 1, 2))
	p1 := prepare(t, w, 1)
	write(t, w, fooRows(t, "p0", 3, 4))
	p2 := prepare(t, w, 2)
	equal(t, "ranges", append(ranges(p1), ranges(p2)...), []string{"{}/bucket-0[0,3)", "{}/bucket-0[3,5)"})
	id := commitProg(t, cm, append(p2, p1...), 2)
	equal(t, "committed", committed(t, tbl, id), []string{"{}/bucket-0=5"})
	equal(t, "plain read", diskRows(t, tbl), fooStrings("p0", seq(0, 5)...))
	refresh(t, rc, id)
	equal(t, "union read", scanRows(t, rc), fooStrings("p0", seq(0, 5)...))
}

// Scenario 10 (TestReadMemoryBeforePrepareCommit), adapted: a real-time
// split cannot be handed to a plain reader (it is a realtime.Split), so
// "read without context" is a read through another context's plan.
func TestReadMemoryBeforePrepareCommit(t *testing.T) {
	tbl := newFooTable(t, nil, nil, nil)
	rc := newContext(t, tbl)
	w := newWrite(t, rc, "u")
	write(t, w, fooRows(t, "p0", seq(0, 10)...))
	p := plan(t, rc)
	equal(t, "splits", splitInfos(p), []string{"rt {}/bucket-0 disk=0 snap=0 C=0 M=10"})
	other := plan(t, newContext(t, tbl))
	if len(other.Splits) != 0 {
		t.Fatalf("another context sees %d splits", len(other.Splits))
	}
	_, err := tryReadSplits(other, p.Splits[0])
	wantErr(t, err, realtime.ErrTicketExpired)
	if rc.Pinned() != 1 {
		t.Fatalf("pinned %d", rc.Pinned())
	}
	equal(t, "memory rows", readPlan(t, p), fooStrings("p0", seq(0, 10)...))
	if rc.Pinned() != 0 {
		t.Fatalf("pinned %d after the read", rc.Pinned())
	}
	_, err = tryReadSplits(p, p.Splits[0])
	wantErr(t, err, realtime.ErrTicketExpired)
	if got := err.Error(); !strings.Contains(got, "ticket does not exist or has expired") {
		t.Fatalf("error %q", got)
	}
}

// Scenario 11 (TestPlanExcludesRowsWrittenAfterMemoryEndOffset).
func TestPlanExcludesRowsWrittenAfterMemoryEndOffset(t *testing.T) {
	tbl := newFooTable(t, nil, nil, nil)
	rc := newContext(t, tbl)
	w := newWrite(t, rc, "u")
	write(t, w, fooRows(t, "p0", seq(0, 10)...))
	p := plan(t, rc)
	write(t, w, fooRows(t, "p0", seq(10, 15)...))
	equal(t, "old plan", splitInfos(p), []string{"rt {}/bucket-0 disk=0 snap=0 C=0 M=10"})
	equal(t, "old plan rows", readPlan(t, p), fooStrings("p0", seq(0, 10)...))
	p2 := plan(t, rc)
	equal(t, "new plan", splitInfos(p2), []string{"rt {}/bucket-0 disk=0 snap=0 C=0 M=15"})
	equal(t, "new plan rows", readPlan(t, p2), fooStrings("p0", seq(0, 15)...))
}

// Scenario 12 (TestReadFailsAfterRealtimeSplitTicketExpires).
func TestReadFailsAfterTicketExpires(t *testing.T) {
	tbl := newFooTable(t, nil, nil, map[string]string{"realtime.read-view-ttl": "10 ms"})
	rc := newContext(t, tbl)
	w := newWrite(t, rc, "u")
	write(t, w, fooRows(t, "p0", 1, 2))
	p := plan(t, rc)
	time.Sleep(50 * time.Millisecond)
	_, err := tryReadSplits(p, p.Splits...)
	wantErr(t, err, realtime.ErrTicketExpired)
	if rc.Pinned() != 0 {
		t.Fatalf("expired ticket still pinned")
	}
}

// Scenario 19 (TestReadCommittedDiskAndBuildingMemory): the commit is not
// refreshed, so memory still holds rows 0-2, which the snapshot also has.
func TestReadCommittedDiskAndBuildingMemory(t *testing.T) {
	tbl := newFooTable(t, nil, nil, nil)
	rc := newContext(t, tbl)
	w := newWrite(t, rc, "u")
	cm := newCommit(t, rc, "u")
	write(t, w, fooRows(t, "p0", 0, 1, 2))
	id := commitProg(t, cm, prepare(t, w, 1), 1)
	write(t, w, fooRows(t, "p0", 3, 4))
	if u := rc.Usage(); u.SealedRows != 3 || u.BuildingRows != 2 {
		t.Fatalf("usage %+v", u)
	}
	p := plan(t, rc)
	equal(t, "splits", splitInfos(p), []string{"rt {}/bucket-0 disk=1 snap=" + itoa(id) + " C=3 M=5"})
	equal(t, "rows", readPlan(t, p), fooStrings("p0", seq(0, 5)...))
}

// Scenario 20 (TestCountMemoryAndDiskAcrossRefresh).
func TestCountMemoryAndDiskAcrossRefresh(t *testing.T) {
	tbl := newFooTable(t, nil, nil, nil)
	rc := newContext(t, tbl)
	w := newWrite(t, rc, "u")
	cm := newCommit(t, rc, "u")
	count := func() int64 {
		t.Helper()
		n, err := plan(t, rc).Count(context.Background())
		if err != nil {
			t.Fatal(err)
		}
		return n
	}
	write(t, w, fooRows(t, "p0", 0, 1, 2))
	if n := count(); n != 3 {
		t.Fatalf("memory-only count %d", n)
	}
	id := commitProg(t, cm, prepare(t, w, 1), 1)
	write(t, w, fooRows(t, "p0", 3, 4))
	if n := count(); n != 5 {
		t.Fatalf("disk+memory count %d", n)
	}
	refresh(t, rc, id)
	if n := count(); n != 5 {
		t.Fatalf("count after refresh %d", n)
	}
}

// Scenario 30 (TestRefreshCommittedSnapshotReclaimsMemory) and 33
// (TestRepeatedCommitReadAndRefresh).
func TestRepeatedCommitReadAndRefresh(t *testing.T) {
	tbl := newFooTable(t, nil, nil, nil)
	rc := newContext(t, tbl)
	w := newWrite(t, rc, "u")
	cm := newCommit(t, rc, "u")
	var got []string
	for round := int64(0); round < 3; round++ {
		write(t, w, fooRows(t, "p0", seq(round*4, round*4+4)...))
		prog := prepare(t, w, round+1)
		equal(t, "ranges", ranges(prog), []string{"{}/bucket-0[" + itoa(round*4) + "," + itoa(round*4+4) + ")"})
		id := commitProg(t, cm, prog, round+1)
		before := scanRows(t, rc)
		equal(t, "rows before refresh", before, fooStrings("p0", seq(0, round*4+4)...))
		m := rc.Metrics()
		if m[realtime.MetricSealedRowCount] != 4 || m[realtime.MetricTotalMemoryBytes] <= 0 || m[realtime.MetricBuildingRowCount] != 0 {
			t.Fatalf("metrics before refresh %v", m)
		}
		refresh(t, rc, id)
		m = rc.Metrics()
		for k, v := range m {
			if v != 0 {
				t.Fatalf("metric %s = %d after refresh", k, v)
			}
		}
		got = scanRows(t, rc)
		equal(t, "rows after refresh", got, before)
	}
	equal(t, "committed", committed(t, tbl, 0), []string{"{}/bucket-0=12"})
}

// Scenario 35 (TestOverwriteRequiresReopenRealtimeContext), with Truncate.
func TestTruncateRequiresNewContext(t *testing.T) {
	tbl := newFooTable(t, nil, nil, nil)
	rc := newContext(t, tbl)
	w := newWrite(t, rc, "u")
	cm := newCommit(t, rc, "u")
	write(t, w, fooRows(t, "p0", 0, 1, 2))
	id := commitProg(t, cm, prepare(t, w, 1), 1)
	refresh(t, rc, id)
	write(t, w, fooRows(t, "p0", 3, 4))
	before := rc.Usage()
	tid, err := cm.Committer().Truncate(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	equal(t, "truncate progress", committed(t, tbl, tid), nil)
	wantErr(t, rc.RefreshCommittedSnapshot(context.Background(), tid), realtime.ErrRecreateContext)
	if after := rc.Usage(); after != before {
		t.Fatalf("usage changed by a failed refresh: %+v -> %+v", before, after)
	}
	// The old context reads its accepted rows above the reclaimed ones on
	// top of the truncated table.
	equal(t, "old context", scanRows(t, rc), fooStrings("p0", 3, 4))
	// A scan of the truncated snapshot would read memory from offset 0,
	// where rows 0-2 were reclaimed: the context must be recreated. A new
	// context replays the building rows at [0,2).
	rc2 := newContext(t, tbl)
	w2 := newWrite(t, rc2, "u2")
	cm2 := newCommit(t, rc2, "u2")
	write(t, w2, fooRows(t, "p0", 3, 4))
	prog := prepare(t, w2, 1)
	equal(t, "replayed ranges", ranges(prog), []string{"{}/bucket-0[0,2)"})
	id2 := commitProg(t, cm2, prog, 1)
	equal(t, "rows", diskRows(t, tbl), fooStrings("p0", 3, 4))
	equal(t, "committed", committed(t, tbl, id2), []string{"{}/bucket-0=2"})
}

// Scenario 37 (TestMultiplePartitions).
func TestMultiplePartitions(t *testing.T) {
	tbl := newFooTable(t, nil, []string{"pt"}, nil)
	rc := newContext(t, tbl)
	w := newWrite(t, rc, "u")
	cm := newCommit(t, rc, "u")
	write(t, w, fooRows(t, "p0", seq(0, 10)...))
	write(t, w, fooRows(t, "p1", seq(100, 110)...))
	prog := prepare(t, w, 1)
	equal(t, "ranges", ranges(prog), []string{"{pt=p0}/bucket-0[0,10)", "{pt=p1}/bucket-0[0,10)"})
	id := commitProg(t, cm, prog, 1)
	refresh(t, rc, id)
	write(t, w, fooRows(t, "p0", seq(10, 12)...))
	write(t, w, fooRows(t, "p2", seq(200, 203)...))
	p := plan(t, rc)
	sid := itoa(id)
	equal(t, "splits", splitInfos(p), []string{
		"rt {pt=p0}/bucket-0 disk=1 snap=" + sid + " C=10 M=12",
		"disk {pt=p1}/bucket-0 disk=1 snap=" + sid + " C=10 M=10",
		"rt {pt=p2}/bucket-0 disk=0 snap=" + sid + " C=0 M=3",
	})
	want := slices.Concat(fooStrings("p0", seq(0, 12)...), fooStrings("p1", seq(100, 110)...), fooStrings("p2", seq(200, 203)...))
	equal(t, "rows in order", readPlan(t, p), want)
	equal(t, "committed", committed(t, tbl, id), []string{"{pt=p0}/bucket-0=10", "{pt=p1}/bucket-0=10"})
	id2 := commitProg(t, cm, prepare(t, w, 2), 2)
	equal(t, "committed after p2", committed(t, tbl, id2), []string{"{pt=p0}/bucket-0=12", "{pt=p1}/bucket-0=10", "{pt=p2}/bucket-0=3"})
}

// bucketOf returns the bucket of id in a table with bucket-key id and n
// buckets (row.Bucket of the BIGINT key row, as the writer computes it).
func bucketOf(t *testing.T, id int64, n int) int32 {
	t.Helper()
	r, err := row.Encode([]types.DataType{types.BigInt()}, []any{id})
	if err != nil {
		t.Fatal(err)
	}
	return int32(row.Bucket(r, n))
}

// Scenario 41 (TestMultipleBucketsRestoreIndependentOffsets).
func TestMultipleBucketsRestoreIndependentOffsets(t *testing.T) {
	tbl := newFooTable(t, nil, nil, map[string]string{"bucket": "2"})
	var b0, b1 []int64
	for id := int64(0); len(b0) < 3 || len(b1) < 4; id++ {
		if bucketOf(t, id, 2) == 0 {
			b0 = append(b0, id)
		} else {
			b1 = append(b1, id)
		}
	}
	rc := newContext(t, tbl)
	w := newWrite(t, rc, "u")
	cm := newCommit(t, rc, "u")
	write(t, w, fooRows(t, "p0", slices.Concat(b0[:2], b1[:3])...))
	prog := prepare(t, w, 1)
	equal(t, "ranges", ranges(prog), []string{"{}/bucket-0[0,2)", "{}/bucket-1[0,3)"})
	commitProg(t, cm, prog, 1)
	if err := w.Close(); err != nil {
		t.Fatal(err)
	}
	rc.Close()

	rc2 := newContext(t, tbl)
	w2 := newWrite(t, rc2, "u2")
	cm2 := newCommit(t, rc2, "u2")
	write(t, w2, fooRows(t, "p0", b0[2], b1[3]))
	prog = prepare(t, w2, 1)
	equal(t, "restored ranges", ranges(prog), []string{"{}/bucket-0[2,3)", "{}/bucket-1[3,4)"})
	id := commitProg(t, cm2, prog, 1)
	equal(t, "committed", committed(t, tbl, id), []string{"{}/bucket-0=3", "{}/bucket-1=4"})
	want := fooStrings("p0", slices.Concat(b0[:3], b1[:4])...)
	slices.Sort(want)
	equal(t, "rows", diskRows(t, tbl), want)
}

// Scenario 42 (TestRestoreOffsetFromCommittedSnapshot).
func TestRestoreOffsetFromCommittedSnapshot(t *testing.T) {
	tbl := newFooTable(t, nil, nil, nil)
	rc := newContext(t, tbl)
	w := newWrite(t, rc, "u")
	cm := newCommit(t, rc, "u")
	write(t, w, fooRows(t, "p0", 0, 1, 2))
	commitProg(t, cm, prepare(t, w, 1), 1)
	rc.Close()
	rc2 := newContext(t, tbl)
	w2 := newWrite(t, rc2, "u")
	cm2 := newCommit(t, rc2, "u")
	write(t, w2, fooRows(t, "p0", 3, 4))
	prog := prepare(t, w2, 2)
	equal(t, "ranges", ranges(prog), []string{"{}/bucket-0[3,5)"})
	id := commitProg(t, cm2, prog, 2)
	equal(t, "committed", committed(t, tbl, id), []string{"{}/bucket-0=5"})
	equal(t, "rows", diskRows(t, tbl), fooStrings("p0", seq(0, 5)...))
}

// Scenario 18 (TestCloseWriterAllowsContextReuseByLaterWriter) with the
// close rule of #280: a writer with unprepared rows cannot close.
func TestCloseRequiresPrepareAndHandoff(t *testing.T) {
	tbl := newFooTable(t, nil, nil, nil)
	rc := newContext(t, tbl)
	w := newWrite(t, rc, "u")
	cm := newCommit(t, rc, "u")
	write(t, w, fooRows(t, "p0", 0, 1, 2))
	wantErr(t, w.Close(), realtime.ErrUnprepared)
	equal(t, "rows readable", scanRows(t, rc), fooStrings("p0", 0, 1, 2))
	p1 := prepare(t, w, 1)
	if err := w.Close(); err != nil {
		t.Fatal(err)
	}
	wantErr(t, w.Write(context.Background(), fooRows(t, "p0", 9)), realtime.ErrClosed)
	_, err := w.PrepareCommit(context.Background())
	wantErr(t, err, realtime.ErrRealtimeWriter)
	w2 := newWrite(t, rc, "u")
	write(t, w2, fooRows(t, "p0", 3, 4))
	p2 := prepare(t, w2, 2)
	equal(t, "ranges", append(ranges(p1), ranges(p2)...), []string{"{}/bucket-0[0,3)", "{}/bucket-0[3,5)"})
	id := commitProg(t, cm, append(p1, p2...), 2)
	equal(t, "committed", committed(t, tbl, id), []string{"{}/bucket-0=5"})
	equal(t, "rows", diskRows(t, tbl), fooStrings("p0", seq(0, 5)...))
}

// Application offsets (#269): gaps are legal, the range of a prepare
// starts at the previous end, and out-of-order offsets change nothing.
func TestApplicationOffsets(t *testing.T) {
	tbl := newFooTable(t, nil, nil, nil)
	rc := newContext(t, tbl)
	w := newWrite(t, rc, "u")
	cm := newCommit(t, rc, "u")
	write(t, w, fooOffsetRows(t, "p0", []int64{5, 7, 8}, []int64{0, 1, 2}))
	for _, bad := range [][]int64{{8, 9}, {10, 10}, {12, 11}, {1 << 62, 1<<63 - 1}} {
		rec := fooOffsetRows(t, "p0", bad, []int64{90, 91})
		wantErr(t, w.Write(context.Background(), rec), realtime.ErrOffsetOrder)
		rec.Release()
	}
	if u := rc.Usage(); u.BuildingRows != 3 {
		t.Fatalf("rejected batches changed the store: %+v", u)
	}
	p1 := prepare(t, w, 1)
	equal(t, "ranges", ranges(p1), []string{"{}/bucket-0[0,9)"})
	write(t, w, fooOffsetRows(t, "p0", []int64{20, 30}, []int64{3, 4}))
	p := plan(t, rc)
	equal(t, "splits", splitInfos(p), []string{"rt {}/bucket-0 disk=0 snap=0 C=0 M=31"})
	equal(t, "rows", readPlan(t, p), fooStrings("p0", 0, 1, 2, 3, 4))
	p2 := prepare(t, w, 2)
	equal(t, "ranges 2", ranges(p2), []string{"{}/bucket-0[9,31)"})
	id := commitProg(t, cm, append(p1, p2...), 2)
	equal(t, "committed", committed(t, tbl, id), []string{"{}/bucket-0=31"})
	refresh(t, rc, id)
	rec := fooOffsetRows(t, "p0", []int64{30}, []int64{5})
	wantErr(t, w.Write(context.Background(), rec), realtime.ErrOffsetOrder)
	rec.Release()
	equal(t, "rows", scanRows(t, rc), fooStrings("p0", 0, 1, 2, 3, 4))
}

// A failed plan choice: a snapshot older than the adopted one is rejected.
func TestScanRejectsSnapshotOlderThanContext(t *testing.T) {
	tbl := newFooTable(t, nil, nil, nil)
	rc := newContext(t, tbl)
	w := newWrite(t, rc, "u")
	cm := newCommit(t, rc, "u")
	write(t, w, fooRows(t, "p0", 0, 1))
	id1 := commitProg(t, cm, prepare(t, w, 1), 1)
	write(t, w, fooRows(t, "p0", 2))
	id2 := commitProg(t, cm, prepare(t, w, 2), 2)
	refresh(t, rc, id2)
	_, err := rc.NewScan(reader.WithSnapshot(id1)).Plan(context.Background())
	wantErr(t, err, realtime.ErrSnapshotTooOld)
	wantErr(t, rc.RefreshCommittedSnapshot(context.Background(), id1), realtime.ErrSnapshotTooOld)
	equal(t, "latest", scanRows(t, rc), fooStrings("p0", 0, 1, 2))
}

// A table written by an ordinary (non-real-time) writer has no progress:
// the real-time writer starts at 0 and the union read shows both.
func TestOrdinaryCommitThenRealtime(t *testing.T) {
	tbl := newFooTable(t, nil, nil, nil)
	seed := fooRows(t, "p0", 100)
	tabletest.WriteCommit(t, tbl, "seed", commit.BatchIdentifier, seed)
	seed.Release()
	rc := newContext(t, tbl)
	w := newWrite(t, rc, "u")
	write(t, w, fooRows(t, "p0", 0))
	equal(t, "union", scanRows(t, rc), slices.Concat(fooStrings("p0", 100), fooStrings("p0", 0)))
	prog := prepare(t, w, 1)
	equal(t, "ranges", ranges(prog), []string{"{}/bucket-0[0,1)"})
}

// Application offsets of a batch that spans several partition-buckets:
// each partition-bucket checks and records its own offsets, and an order
// violation in one rejects the whole batch.
func TestApplicationOffsetsAcrossPartitionBuckets(t *testing.T) {
	tbl := newFooTable(t, nil, []string{"pt"}, map[string]string{"bucket": "2"})
	rc := newContext(t, tbl)
	w := newWrite(t, rc, "u")
	cm := newCommit(t, rc, "u")
	mk := func(rows ...[]any) arrow.RecordBatch {
		return batch(t, append([]arrow.Field{offsetField}, fooArrow...), rows...)
	}
	// ids 0..7 alternate between p0 and p1 and spread over both buckets;
	// offsets rise along the batch (a source partition's offsets).
	var rows [][]any
	want := map[string][]int64{}
	for i := int64(0); i < 8; i++ {
		pt := "p" + itoa(i%2)
		rows = append(rows, []any{10 + i, i, "value-" + itoa(i), pt})
		key := "{pt=" + pt + "}/bucket-" + itoa(int64(bucketOf(t, i, 2)))
		want[key] = append(want[key], 10+i)
	}
	// A batch whose second row of one partition-bucket goes back.
	bad := slices.Clone(rows)
	bad[len(bad)-1] = []any{int64(1), int64(7), "value-7", "p1"}
	rec := mk(bad...)
	wantErr(t, w.Write(context.Background(), rec), realtime.ErrOffsetOrder)
	rec.Release()
	if u := rc.Usage(); u.BuildingRows != 0 {
		t.Fatalf("rejected batch stored rows: %+v", u)
	}
	write(t, w, mk(rows...))
	prog := prepare(t, w, 1)
	var wantRanges []string
	for _, k := range slices.Sorted(maps.Keys(want)) {
		offs := want[k]
		wantRanges = append(wantRanges, k+"[0,"+itoa(offs[len(offs)-1]+1)+")")
	}
	equal(t, "ranges", ranges(prog), wantRanges)
	commitProg(t, cm, prog, 1)
	all := slices.Concat(fooStrings("p0", 0, 2, 4, 6), fooStrings("p1", 1, 3, 5, 7))
	slices.Sort(all)
	equal(t, "rows", diskRows(t, tbl), all)
}

// Table.NewRealtimeContext uses the built-in store and the table's schema.
func TestTableNewRealtimeContext(t *testing.T) {
	tbl := newFooTable(t, nil, nil, nil)
	pt, err := paimon.OpenTable(context.Background(), tbl.FileIO.URL())
	if err != nil {
		t.Fatal(err)
	}
	defer pt.Close()
	rc, err := pt.NewRealtimeContext(realtime.WithReadViewTTL(time.Minute))
	if err != nil {
		t.Fatal(err)
	}
	defer rc.Close()
	w := newWrite(t, rc, "u")
	write(t, w, fooRows(t, "p0", 1, 2))
	equal(t, "rows", scanRows(t, rc), fooStrings("p0", 1, 2))
	if rc.Mode() != realtime.AppendOnly || rc.TransportSchema().Field(0).Name != realtime.OffsetColumn {
		t.Fatalf("mode %v transport %v", rc.Mode(), rc.TransportSchema())
	}
}

// A truncate the context has not refreshed while memory still holds the
// committed rows: a scan would show them again over the empty table, so it
// asks for a new context.
func TestScanAfterUnrefreshedTruncate(t *testing.T) {
	tbl := newFooTable(t, nil, nil, nil)
	rc := newContext(t, tbl)
	w := newWrite(t, rc, "u")
	cm := newCommit(t, rc, "u")
	write(t, w, fooRows(t, "p0", 0, 1, 2))
	id := commitProg(t, cm, prepare(t, w, 1), 1)
	refresh(t, rc, id)
	write(t, w, fooRows(t, "p0", 3, 4))
	id = commitProg(t, cm, prepare(t, w, 2), 2)
	// Not refreshed: memory holds rows 3-4, committed in snapshot id.
	_ = id
	admin := newCommit(t, rc, "admin")
	if _, err := admin.Committer().Truncate(context.Background()); err != nil {
		t.Fatal(err)
	}
	_, err := rc.NewScan().Plan(context.Background())
	wantErr(t, err, realtime.ErrRecreateContext)
}
