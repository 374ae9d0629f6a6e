package realtime_test

import (
	"context"
	"errors"
	"slices"
	"testing"
	"time"

	"github.com/paimon-go/paimon/expire"
	"github.com/paimon-go/paimon/realtime"
	"github.com/paimon-go/paimon/writer"
)

// Scenario 36 (TestReopenRealtimeContextAfterRollback): a rollback to the
// snapshot with committed end 3 makes a refresh of the context fail, and a
// new context replays rows 3-4 at [3,5), so the table ends with rows 0-4
// exactly once.
func TestRollbackRequiresNewContext(t *testing.T) {
	ctx := context.Background()
	tbl := newFooTable(t, nil, nil, nil)
	rc := newContext(t, tbl)
	w := newWrite(t, rc, "u")
	cm := newCommit(t, rc, "u")
	write(t, w, fooRows(t, "p0", 0, 1, 2))
	id1 := commitProg(t, cm, prepare(t, w, 1), 1)
	refresh(t, rc, id1)
	write(t, w, fooRows(t, "p0", 3, 4))
	id2 := commitProg(t, cm, prepare(t, w, 2), 2)
	refresh(t, rc, id2)
	equal(t, "committed before rollback", committed(t, tbl, 0), []string{"{}/bucket-0=5"})

	if _, err := expire.Rollback(ctx, tbl.FileIO, tbl.Schema, expire.Target{Snapshot: id1}, expire.RollbackOptions{}); err != nil {
		t.Fatal(err)
	}
	equal(t, "committed after rollback", committed(t, tbl, 0), []string{"{}/bucket-0=3"})
	equal(t, "rows after rollback", diskRows(t, tbl), fooStrings("p0", 0, 1, 2))
	err := rc.RefreshCommittedSnapshot(ctx, id1)
	if !errors.Is(err, realtime.ErrSnapshotTooOld) {
		t.Fatalf("refresh to the rolled-back snapshot %d: %v, want ErrSnapshotTooOld (an id below the adopted one)", id1, err)
	}

	rc2 := newContext(t, tbl)
	w2 := newWrite(t, rc2, "u2")
	cm2 := newCommit(t, rc2, "u2")
	write(t, w2, fooRows(t, "p0", 3, 4))
	prog := prepare(t, w2, 1)
	equal(t, "replayed ranges", ranges(prog), []string{"{}/bucket-0[3,5)"})
	id3 := commitProg(t, cm2, prog, 1)
	if id3 != id1+1 {
		t.Fatalf("commit after rollback created snapshot %d, want %d", id3, id1+1)
	}
	refresh(t, rc2, id3)
	equal(t, "rows", diskRows(t, tbl), fooStrings("p0", 0, 1, 2, 3, 4))
	equal(t, "union rows", scanRows(t, rc2), fooStrings("p0", 0, 1, 2, 3, 4))
	equal(t, "committed", committed(t, tbl, 0), []string{"{}/bucket-0=5"})
}

// A nil batch is a typed error, never a panic, and an idle commit tick
// (nothing prepared) returns snapshot 0, which a refresh accepts.
func TestNilBatchAndIdleTick(t *testing.T) {
	ctx := context.Background()
	tbl := newFooTable(t, nil, nil, nil)
	rc := newContext(t, tbl)
	w := newWrite(t, rc, "u")
	cm := newCommit(t, rc, "u")
	wantErr(t, w.Write(ctx, nil), realtime.ErrSchemaMismatch)
	prog := prepare(t, w, 1)
	if len(prog) != 0 {
		t.Fatalf("idle prepare returned %d progress entries, want 0", len(prog))
	}
	id, err := cm.CommitWithProgress(ctx, prog, 1, nil)
	if err != nil || id != 0 {
		t.Fatalf("idle commit = %d, %v; want 0, nil", id, err)
	}
	if err := rc.RefreshCommittedSnapshot(ctx, id); err != nil {
		t.Fatalf("refresh of snapshot 0: %v, want nil", err)
	}
	write(t, w, fooRows(t, "p0", 0, 1))
	refresh(t, rc, commitProg(t, cm, prepare(t, w, 2), 2))
	equal(t, "rows", scanRows(t, rc), fooStrings("p0", 0, 1))
}

// With the flush writer compacting in the background, a prepare may hand
// out a finished compaction of a partition-bucket that has nothing sealed:
// it travels as a progress entry with an empty range, and every row stays
// exactly once.
func TestAsyncCompactionOfUnsealedPartitionBucket(t *testing.T) {
	tbl := newFooTable(t, nil, []string{"pt"}, map[string]string{"compaction.min.file-num": "2"})
	rc := newContext(t, tbl)
	w, err := rc.NewWrite("u", writer.WithAsyncCompaction(1))
	if err != nil {
		t.Fatal(err)
	}
	cm := newCommit(t, rc, "u")
	var want []string
	compactOnly := 0
	for i := int64(0); i < 16; i++ {
		pt := "p0"
		if i%4 >= 2 {
			pt = "p1"
		}
		write(t, w, fooRows(t, pt, i))
		want = append(want, fooStrings(pt, i)...)
		prog := prepare(t, w, i+1)
		for _, p := range prog {
			if p.Range.Empty() {
				compactOnly++
				if len(p.Message.Data.NewFiles) != 0 || len(p.Message.Compact.After) == 0 {
					t.Fatalf("prepare %d: empty-range entry of %s with data %d files, compaction %d files",
						i+1, p.PartitionBucket, len(p.Message.Data.NewFiles), len(p.Message.Compact.After))
				}
			}
		}
		refresh(t, rc, commitProg(t, cm, prog, i+1))
		time.Sleep(5 * time.Millisecond) // let background compactions finish between prepares
	}
	if err := w.Close(); err != nil {
		t.Fatal(err)
	}
	slices.Sort(want)
	got := diskRows(t, tbl)
	slices.Sort(got)
	equal(t, "rows", got, want)
	equal(t, "committed", committed(t, tbl, 0), []string{"{pt=p0}/bucket-0=8", "{pt=p1}/bucket-0=8"})
	t.Logf("%d compaction-only progress entries", compactOnly)
}
