package commit_test

import (
	"context"
	"errors"
	"slices"
	"strings"
	"testing"

	"github.com/paimon-go/paimon/catalog"
	"github.com/paimon-go/paimon/commit"
	"github.com/paimon-go/paimon/fileio"
	"github.com/paimon-go/paimon/internal/tabletest"
)

// rival returns a committer of user "rival" on its own FileIO of tbl (so
// that its requests are not counted in tbl.FileIO.Stats) and a function that
// commits one row with it, as the next identifier.
func rival(t *testing.T, tbl *catalog.Table) func() {
	t.Helper()
	ctx := context.Background()
	fio, err := fileio.Open(ctx, tbl.FileIO.URL())
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { fio.Close() })
	r, err := commit.New(fio, tbl.Schema, "rival")
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { r.Close() })
	own := *tbl
	own.FileIO = fio
	n := int64(0)
	return func() {
		n++
		if _, err := r.Commit(ctx, n, prepare(t, &own, "rival", []int64{100 + n}, "r")); err != nil {
			t.Error(err)
		}
	}
}

// TestRetriesExhausted: a commit that loses every race gives up after
// commit.max-retries retries with ErrRetriesExhausted naming the snapshot it
// lost last, publishes nothing and leaves no manifest file behind.
func TestRetriesExhausted(t *testing.T) {
	ctx := context.Background()
	tbl := tabletest.NewTable(t, "", catalog.Schema{Fields: kvSchema.Fields,
		Options: map[string]string{"commit.max-retries": "2", "commit.min-retry-wait": "1 ms"}})
	c, err := commit.New(tbl.FileIO, tbl.Schema, "u")
	if err != nil {
		t.Fatal(err)
	}
	commit.SetBeforeCreate(c, rival(t, tbl)) // every attempt loses
	_, err = c.Commit(ctx, 1, prepare(t, tbl, "u", []int64{1}, "a"))
	if !errors.Is(err, commit.ErrRetriesExhausted) {
		t.Fatalf("Commit = %v, want ErrRetriesExhausted", err)
	}
	// Attempts for snapshots 1, 2 and 3, each taken by the rival first.
	if want := "lost 3 races for the next snapshot id, the last for snapshot/snapshot-3 (commit.max-retries = 2)"; !strings.Contains(err.Error(), want) {
		t.Errorf("error %q does not say %q", err, want)
	}
	all := snapshots(t, tbl.FileIO)
	if len(all) != 3 || all[2].CommitUser != "rival" {
		t.Errorf("%d snapshots, want the rival's 3", len(all))
	}
	if got, want := manifestFiles(t, tbl.FileIO), referencedManifests(t, tbl.FileIO); !slices.Equal(got, want) {
		t.Errorf("unreferenced manifest files: %v", difference(got, want))
	}
	if got := tabletest.ReadRows(t, tbl.FileIO.URL()); strings.Join(got, ",") != "101|r,102|r,103|r" {
		t.Errorf("rows %v", got)
	}
}

// TestRebaseAfterLostRace: a Committer whose first attempt (on the snapshot
// it published last) loses the race for snapshot 2 finds the new latest by
// reading snapshot-2 and snapshot-3 (absent) instead of the LATEST hint or
// a listing, reads snapshot 2's two manifest lists and publishes snapshot 3
// at once (the loss of a cached base is not waited for). Requests of the
// whole commit: the first attempt writes the manifest, the delta list, the
// base list and tries snapshot-2 (4 PUTs, 1 HEAD for a newer schema, 1 GET
// checking the cached base) and deletes its base list; the second reads
// snapshots 2 and 3 and the two lists (4 GETs), checks the schema (HEAD),
// writes its base list, creates snapshot-3 and the LATEST hint (3 PUTs) and
// reads the EARLIEST hint (GET) and checks that its base still exists (HEAD).
func TestRebaseAfterLostRace(t *testing.T) {
	ctx := context.Background()
	tbl := tabletest.NewTable(t, "", kvSchema)
	c, err := commit.New(tbl.FileIO, tbl.Schema, "u")
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close()
	if id, err := c.Commit(ctx, 1, prepare(t, tbl, "u", []int64{1}, "a")); err != nil || id != 1 {
		t.Fatalf("first Commit = %d, %v", id, err)
	}
	commitRival := rival(t, tbl)
	once := false
	commit.SetBeforeCreate(c, func() {
		if !once {
			once = true
			commitRival()
		}
	})
	msgs := prepare(t, tbl, "u", []int64{2}, "a")
	before := tbl.FileIO.Stats()
	if id, err := c.Commit(ctx, 2, msgs); err != nil || id != 3 {
		t.Fatalf("Commit after a lost race = %d, %v; want 3", id, err)
	}
	if got, want := tbl.FileIO.Stats().Since(before), (fileio.Stats{Get: 6, Put: 7, Head: 3, Delete: 1}); got != want {
		t.Errorf("requests %+v, want %+v", got, want)
	}
	all := snapshots(t, tbl.FileIO)
	if len(all) != 3 || all[1].CommitUser != "rival" || all[2].CommitUser != "u" || all[2].TotalRecordCount != 3 {
		t.Errorf("snapshots %+v", all)
	}
	if got, want := manifestFiles(t, tbl.FileIO), referencedManifests(t, tbl.FileIO); !slices.Equal(got, want) {
		t.Errorf("unreferenced manifest files: %v", difference(got, want))
	}
	if got := tabletest.ReadRows(t, tbl.FileIO.URL()); strings.Join(got, ",") != "101|r,1|a,2|a" {
		t.Errorf("rows %v", got)
	}
}

// TestRetryCancelled: a commit whose context ends during an attempt after
// it lost a race gives up with ErrRetriesExhausted wrapping the context's
// error, and publishes nothing.
func TestRetryCancelled(t *testing.T) {
	tbl := tabletest.NewTable(t, "", catalog.Schema{Fields: kvSchema.Fields, Options: map[string]string{"commit.min-retry-wait": "1 ms"}})
	c, err := commit.New(tbl.FileIO, tbl.Schema, "u")
	if err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	commitRival := rival(t, tbl)
	n := 0
	commit.SetBeforeCreate(c, func() {
		if n++; n == 1 {
			commitRival() // the first attempt loses
		} else {
			cancel() // the second one is cut short
		}
	})
	_, err = c.Commit(ctx, 1, prepare(t, tbl, "u", []int64{1}, "a"))
	if !errors.Is(err, commit.ErrRetriesExhausted) || !errors.Is(err, context.Canceled) {
		t.Fatalf("Commit = %v, want ErrRetriesExhausted and context.Canceled", err)
	}
	if want := "lost 1 races for the next snapshot id, the last for snapshot/snapshot-1"; !strings.Contains(err.Error(), want) {
		t.Errorf("error %q does not say %q", err, want)
	}
	if all := snapshots(t, tbl.FileIO); len(all) != 1 || all[0].CommitUser != "rival" {
		t.Errorf("%d snapshots, want the rival's 1", len(all))
	}
	if got, want := manifestFiles(t, tbl.FileIO), referencedManifests(t, tbl.FileIO); !slices.Equal(got, want) {
		t.Errorf("unreferenced manifest files: %v", difference(got, want))
	}
}
