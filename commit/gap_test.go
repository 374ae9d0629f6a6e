package commit_test

import (
	"context"
	"errors"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/paimon-go/paimon/catalog"
	"github.com/paimon-go/paimon/commit"
	"github.com/paimon-go/paimon/expire"
	"github.com/paimon-go/paimon/internal/tabletest"
	"github.com/paimon-go/paimon/snapshot"
)

// TestNoSnapshotInExpiredGap: a Committer builds first on the snapshot it
// published last. When an expiration deletes that snapshot and the ids after
// it between the check of the base and the create (other committers had
// moved the table on), the create of base+1 succeeds in the gap, below
// EARLIEST, where no reader looks. The Committer must notice, take that
// snapshot back and commit on the real latest snapshot instead of reporting
// success for rows nobody can read.
func TestNoSnapshotInExpiredGap(t *testing.T) {
	ctx := context.Background()
	tbl := tabletest.NewTable(t, "", kvSchema)
	a, b := twoCommitters(t, tbl)
	if id, err := a.Commit(ctx, 1, prepare(t, tbl, "a", []int64{1}, "a")); err != nil || id != 1 {
		t.Fatalf("a: Commit = %d, %v", id, err)
	}
	for i := int64(2); i <= 4; i++ {
		if id, err := b.Commit(ctx, i, prepare(t, tbl, "b", []int64{i}, "b")); err != nil || id != i {
			t.Fatalf("b: Commit = %d, %v", id, err)
		}
	}
	expired := false
	commit.SetBeforeCreate(a, func() {
		if expired {
			return
		}
		expired = true
		res, err := expire.Expire(ctx, tbl.FileIO, tbl.Schema, expire.Options{RetainMin: 1, RetainMax: 1, OlderThan: time.Now().Add(time.Hour)})
		if err != nil || !slices.Equal(res.Expired, []int64{1, 2, 3}) {
			t.Errorf("expire during the commit: %+v, %v", res, err)
		}
	})
	id, err := a.Commit(ctx, 2, prepare(t, tbl, "a", []int64{10}, "c"))
	if err != nil || id != 5 {
		t.Fatalf("a: Commit after the expiration = %d, %v; want 5", id, err)
	}
	if !expired {
		t.Fatal("the expiration did not run")
	}
	ids, err := snapshot.NewManager(tbl.FileIO).IDs(ctx)
	if err != nil || !slices.Equal(ids, []int64{4, 5}) {
		t.Errorf("snapshot files %v, %v; want 4 and 5 (no snapshot in the gap)", ids, err)
	}
	wantRows(t, tbl, "10|c", "1|a", "2|b", "3|b", "4|b")
	// The next commit of a builds on 5 as usual.
	if id, err := a.Commit(ctx, 3, prepare(t, tbl, "a", []int64{11}, "d")); err != nil || id != 6 {
		t.Errorf("a: next Commit = %d, %v; want 6", id, err)
	}
}

// TestNoFirstSnapshotInExpiredGap: the first commit into an empty table has
// no base; when others commit snapshots 1..3 and an expiration deletes 1
// and 2 between its read of the (empty) table and its create, creating
// snapshot 1 succeeds in the gap. The Committer must take it back and
// commit after 3 (maintain.TestConcurrentCommitters lost a writer's first
// row this way, once in a few hundred runs).
func TestNoFirstSnapshotInExpiredGap(t *testing.T) {
	ctx := context.Background()
	tbl := tabletest.NewTable(t, "", kvSchema)
	a, b := twoCommitters(t, tbl)
	ran := false
	commit.SetBeforeCreate(a, func() {
		if !ran {
			ran = true
			commitAndExpire(t, tbl, b, 1, 3, []int64{1, 2})
		}
	})
	id, err := a.Commit(ctx, 1, prepare(t, tbl, "a", []int64{10}, "a"))
	if err != nil || id != 4 {
		t.Fatalf("a: first Commit during the others' commits and expiration = %d, %v; want 4", id, err)
	}
	if !ran {
		t.Fatal("the other commits and the expiration did not run")
	}
	ids, err := snapshot.NewManager(tbl.FileIO).IDs(ctx)
	if err != nil || !slices.Equal(ids, []int64{3, 4}) {
		t.Errorf("snapshot files %v, %v; want 3 and 4 (no snapshot in the gap)", ids, err)
	}
	wantRows(t, tbl, "10|a", "1|b", "2|b", "3|b")
}

// TestBaseExpiredWhileRead: an attempt reads the latest snapshot, then,
// before it reads that snapshot's manifest lists, others commit and an
// expiration deletes the snapshot with its lists. The commit must be redone
// on the latest snapshot (as after a lost race), not fail with the missing
// list (maintain.TestConcurrentCommitters failed so once in ~1,000 runs).
func TestBaseExpiredWhileRead(t *testing.T) {
	ctx := context.Background()
	tbl := tabletest.NewTable(t, "", kvSchema)
	b, err := commit.New(tbl.FileIO, tbl.Schema, "b")
	if err != nil {
		t.Fatal(err)
	}
	if id, err := b.Commit(ctx, 1, prepare(t, tbl, "b", []int64{1}, "b")); err != nil || id != 1 {
		t.Fatalf("b: Commit = %d, %v", id, err)
	}
	a, err := commit.New(tbl.FileIO, tbl.Schema, "a")
	if err != nil {
		t.Fatal(err)
	}
	ran := 0
	commit.SetBeforeBaseLists(a, func() {
		if ran++; ran == 1 {
			commitAndExpire(t, tbl, b, 2, 4, []int64{1, 2, 3})
		}
	})
	id, err := a.Commit(ctx, 1, prepare(t, tbl, "a", []int64{10}, "a"))
	if err != nil || id != 5 {
		t.Fatalf("a: Commit while its base was expired = %d, %v; want 5", id, err)
	}
	if ran != 2 {
		t.Fatalf("base lists read %d times, want 2 (the expired base, then snapshot 4)", ran)
	}
	wantRows(t, tbl, "10|a", "1|b", "2|b", "3|b", "4|b")
}

// commitAndExpire makes committer b (user "b") commit one row per id in
// from..to, then expires down to one snapshot, which must expire exactly
// expired: what other processes do while a commit of the test runs.
func commitAndExpire(t *testing.T, tbl *catalog.Table, b *commit.Committer, from, to int64, expired []int64) {
	t.Helper()
	ctx := context.Background()
	for i := from; i <= to; i++ {
		if id, err := b.Commit(ctx, i, prepare(t, tbl, "b", []int64{i}, "b")); err != nil || id != i {
			t.Errorf("b: Commit = %d, %v; want %d", id, err, i)
		}
	}
	res, err := expire.Expire(ctx, tbl.FileIO, tbl.Schema, expire.Options{RetainMin: 1, RetainMax: 1, OlderThan: time.Now().Add(time.Hour)})
	if err != nil || !slices.Equal(res.Expired, expired) {
		t.Errorf("expire during the commit: %+v, %v; want %v expired", res, err, expired)
	}
}

// wantRows checks the table's rows, sorted.
func wantRows(t *testing.T, tbl *catalog.Table, want ...string) {
	t.Helper()
	got := tabletest.ReadRows(t, tbl.FileIO.URL())
	slices.Sort(got)
	if !slices.Equal(got, want) {
		t.Errorf("rows %v, want %v", got, want)
	}
}

// TestGapChangelogDeleted: the changelog files of a commit whose snapshot
// sat in an expired gap were deleted meanwhile (an expiration whose view of
// EARLIEST was older than the gap took the snapshot for one it expires).
// The commit must not publish a snapshot naming them again: it fails with
// ErrFilesGone naming the file, and nothing of it is published.
func TestGapChangelogDeleted(t *testing.T) {
	ctx := context.Background()
	tbl := tabletest.NewTable(t, "", pkSchema(map[string]string{"bucket": "1", "changelog-producer": "input"}))
	a, b := twoCommitters(t, tbl)
	if id, err := b.Commit(ctx, 1, prepare(t, tbl, "b", []int64{1}, "b")); err != nil || id != 1 {
		t.Fatalf("b: Commit = %d, %v", id, err)
	}
	msgs := prepare(t, tbl, "a", []int64{10}, "a")
	if len(msgs) != 1 || len(msgs[0].Data.ChangelogFiles) != 1 {
		t.Fatalf("messages %+v: want one with one changelog file", msgs)
	}
	gone := "bucket-0/" + msgs[0].Data.ChangelogFiles[0].FileName
	ran := false
	commit.SetBeforeCreate(a, func() {
		if !ran {
			ran = true
			commitAndExpire(t, tbl, b, 2, 4, []int64{1, 2, 3})
			if err := tbl.FileIO.Delete(ctx, gone); err != nil {
				t.Error(err)
			}
		}
	})
	_, err := a.Commit(ctx, 1, msgs)
	if !errors.Is(err, commit.ErrFilesGone) || !strings.Contains(err.Error(), gone) {
		t.Fatalf("Commit = %v; want ErrFilesGone naming %s", err, gone)
	}
	ids, err := snapshot.NewManager(tbl.FileIO).IDs(ctx)
	if err != nil || !slices.Equal(ids, []int64{4}) {
		t.Errorf("snapshot files %v, %v; want 4 only", ids, err)
	}
	wantRows(t, tbl, "1|b", "2|b", "3|b", "4|b")
}

// twoCommitters returns committers of users "a" and "b" on tbl.
func twoCommitters(t *testing.T, tbl *catalog.Table) (a, b *commit.Committer) {
	t.Helper()
	a, err := commit.New(tbl.FileIO, tbl.Schema, "a")
	if err != nil {
		t.Fatal(err)
	}
	if b, err = commit.New(tbl.FileIO, tbl.Schema, "b"); err != nil {
		t.Fatal(err)
	}
	return a, b
}
