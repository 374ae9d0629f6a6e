package orphan_test

import (
	"context"
	"errors"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/paimon-go/paimon/catalog"
	"github.com/paimon-go/paimon/commit"
	"github.com/paimon-go/paimon/compaction"
	"github.com/paimon-go/paimon/expire"
	"github.com/paimon-go/paimon/fileio"
	"github.com/paimon-go/paimon/internal/tabletest"
	"github.com/paimon-go/paimon/manifest"
	"github.com/paimon-go/paimon/orphan"
	"github.com/paimon-go/paimon/reader"
	"github.com/paimon-go/paimon/snapshot"
	"github.com/paimon-go/paimon/tag"
	"github.com/paimon-go/paimon/types"
)

var xFields = []types.DataField{{Name: "x", Type: types.Int()}}

// xTable creates the table of the issue's reproduction: one INT column x,
// no partitions, default options (an append table without buckets).
func xTable(t *testing.T) *catalog.Table {
	return tabletest.NewTable(t, "", catalog.Schema{Fields: xFields})
}

func importX(t *testing.T, tbl *catalog.Table, xs ...int32) int64 {
	t.Helper()
	rs := make([][]any, len(xs))
	for i, x := range xs {
		rs[i] = []any{x}
	}
	r := tabletest.Batch(t, types.SchemaToArrow(xFields), rs...)
	defer r.Release()
	return tabletest.WriteCommit(t, tbl, "u", commit.BatchIdentifier, r)
}

func compactFull(t *testing.T, tbl *catalog.Table) int64 {
	t.Helper()
	id, err := compaction.Compact(context.Background(), tbl.FileIO, tbl.Schema, "compactor", compaction.Options{Full: true})
	if err != nil {
		t.Fatal(err)
	}
	return id
}

// expireAllButLatest is `paimon expire --retain-min 1 --retain-max 1
// --older-than 0s`.
func expireAllButLatest(t *testing.T, tbl *catalog.Table) []int64 {
	t.Helper()
	res, err := expire.Expire(context.Background(), tbl.FileIO, tbl.Schema,
		expire.Options{RetainMin: 1, RetainMax: 1, OlderThan: time.Now().Add(time.Hour)})
	if err != nil {
		t.Fatal(err)
	}
	return res.Expired
}

// issueTable builds the table of the issue's reproduction: imports of 1 and
// 2, a full compaction, an import of 3 and an expiration that keeps only
// snapshot 4; every file is then two days old.
func issueTable(t *testing.T) *catalog.Table {
	tbl := xTable(t)
	importX(t, tbl, 1)
	importX(t, tbl, 2)
	if id := compactFull(t, tbl); id != 3 {
		t.Fatalf("compaction made snapshot %d", id)
	}
	if id := importX(t, tbl, 3); id != 4 {
		t.Fatalf("import made snapshot %d", id)
	}
	equal(t, "expired", expireAllButLatest(t, tbl), []int64{1, 2, 3})
	return tbl
}

// TestCleanSeesSnapshotsCommittedDuringRun is the reproduction of issue 11,
// made deterministic: after the cleaner listed its candidates and the
// snapshot ids ([4]), an import commits snapshot 5 and an expiration deletes
// snapshot 4. Snapshot 5 holds the files of rows 1 to 3, which are old
// candidates; the cleaner must find them through snapshot 5 and delete only
// the planted orphans.
func TestCleanSeesSnapshotsCommittedDuringRun(t *testing.T) {
	ctx := context.Background()
	tbl := issueTable(t)
	fio := tbl.FileIO
	planted := []string{"bucket-0/data-orphan-0.parquet", "manifest/manifest-orphan-0"}
	plant(t, fio, planted...)
	age(t, fio, time.Now().Add(-48*time.Hour))

	opts := orphan.Options{}
	var passes []int
	orphan.SetAfterList(&opts, func(ctx context.Context, pass int) error {
		passes = append(passes, pass)
		if pass == 1 {
			if id := importX(t, tbl, 4); id != 5 {
				t.Errorf("import during the run made snapshot %d", id)
			}
			equal(t, "expired during the run", expireAllButLatest(t, tbl), []int64{4})
		}
		return nil
	})
	res, err := orphan.Clean(ctx, fio, 24*time.Hour, opts)
	if err != nil {
		t.Fatal(err)
	}
	equal(t, "deleted", res.Deleted, planted)
	equal(t, "rows", tabletest.ReadRows(t, fio.URL()), []string{"1", "2", "3", "4"})
	if len(passes) < 2 {
		t.Errorf("passes %v: the cleaner did not list again after snapshot 4 vanished", passes)
	}
	ids, err := snapshot.NewManager(fio).IDs(ctx)
	if err != nil {
		t.Fatal(err)
	}
	equal(t, "snapshots", ids, []int64{5})
}

// TestCleanSeesTagCreatedDuringRun: after the cleaner listed snapshot 4 and
// the (empty) tag directory, tag t is created on snapshot 4, a full
// compaction rewrites every file (snapshot 5) and an expiration deletes
// snapshot 4. Only tag t names the files of rows 1 to 3 now; the cleaner
// must read it.
func TestCleanSeesTagCreatedDuringRun(t *testing.T) {
	ctx := context.Background()
	tbl := issueTable(t)
	fio := tbl.FileIO
	age(t, fio, time.Now().Add(-48*time.Hour))

	opts := orphan.Options{}
	orphan.SetAfterList(&opts, func(ctx context.Context, pass int) error {
		if pass == 1 {
			if _, err := tag.Create(ctx, fio, tbl.Schema, "t", 4, tag.CreateOptions{}); err != nil {
				t.Error(err)
			}
			if id := compactFull(t, tbl); id != 5 {
				t.Errorf("compaction during the run made snapshot %d", id)
			}
			equal(t, "expired during the run", expireAllButLatest(t, tbl), []int64{4})
		}
		return nil
	})
	res, err := orphan.Clean(ctx, fio, 24*time.Hour, opts)
	if err != nil {
		t.Fatal(err)
	}
	equal(t, "deleted", res.Deleted, nil)
	equal(t, "rows", tabletest.ReadRows(t, fio.URL()), []string{"1", "2", "3"})
	equal(t, "rows of tag t", tabletest.ReadRows(t, fio.URL(), reader.WithTag("t")), []string{"1", "2", "3"})
}

// TestCleanKeepsConsumerPinnedSnapshots: a consumer whose nextSnapshot is 2
// keeps snapshots 2 and later from expiring (Java ConsumerManager); the
// cleaner reads them like any snapshot, so the files of rows 1 and 2 that
// the full compaction replaced stay. Java's OrphanFilesClean does not read
// consumer files itself: the snapshots they pin exist and are read.
func TestCleanKeepsConsumerPinnedSnapshots(t *testing.T) {
	ctx := context.Background()
	tbl := xTable(t)
	fio := tbl.FileIO
	importX(t, tbl, 1)
	importX(t, tbl, 2)
	compactFull(t, tbl)
	importX(t, tbl, 3)
	if err := fio.WriteFile(ctx, "consumer/consumer-c1", []byte(`{"nextSnapshot":2}`)); err != nil {
		t.Fatal(err)
	}
	equal(t, "expired", expireAllButLatest(t, tbl), []int64{1})
	age(t, fio, time.Now().Add(-48*time.Hour))
	res, err := orphan.Clean(ctx, fio, 24*time.Hour, orphan.Options{})
	if err != nil {
		t.Fatal(err)
	}
	equal(t, "deleted", res.Deleted, nil)
	equal(t, "rows of snapshot 2", tabletest.ReadRows(t, fio.URL(), reader.WithSnapshot(2)), []string{"1", "2"})
	equal(t, "rows", tabletest.ReadRows(t, fio.URL()), []string{"1", "2", "3"})
}

// TestCleanAfterExpirationInterruptedAmongManifests is part 3 of issue 11:
// an expiration stopped right after deleting its first manifest leaves the
// manifest lists of the expired snapshots (below EARLIEST) naming a manifest
// that is gone. The cleaner runs through (it aborted in 4 of 55 runs), keeps
// every file a live snapshot needs, and the expiration finishes afterwards.
func TestCleanAfterExpirationInterruptedAmongManifests(t *testing.T) {
	ctx := context.Background()
	tbl := xTable(t)
	fio := tbl.FileIO
	importX(t, tbl, 1)
	importX(t, tbl, 2)
	compactFull(t, tbl)
	importX(t, tbl, 3)
	// A full manifest compaction (snapshot 5) leaves the old manifests to
	// the expired snapshots only.
	c, err := commit.New(fio, tbl.Schema, "u")
	if err != nil {
		t.Fatal(err)
	}
	if id, err := c.CompactManifests(ctx); err != nil || id != 5 {
		t.Fatalf("manifest compaction: %d, %v", id, err)
	}
	c.Close()
	// Play the interrupted run as expire does it (EARLIEST first, then the
	// planned deletions in order) and stop after the first manifest.
	plan, err := expire.Expire(ctx, fio, tbl.Schema, expire.Options{RetainMin: 1, RetainMax: 1, OlderThan: time.Now().Add(time.Hour), DryRun: true})
	if err != nil {
		t.Fatal(err)
	}
	equal(t, "planned expiration", plan.Expired, []int64{1, 2, 3, 4})
	if err := snapshot.NewManager(fio).CommitEarliestHint(ctx, plan.Earliest); err != nil {
		t.Fatal(err)
	}
	var gone string
	for _, p := range plan.Deleted {
		if err := fio.Delete(ctx, p); err != nil {
			t.Fatal(err)
		}
		if strings.HasPrefix(p, "manifest/manifest-") && !strings.HasPrefix(p, "manifest/manifest-list-") {
			gone = p
			break
		}
	}
	if gone == "" {
		t.Fatalf("planned deletions %v", plan.Deleted)
	}
	planted := []string{"manifest/manifest-orphan-0"}
	plant(t, fio, planted...)
	age(t, fio, time.Now().Add(-48*time.Hour))
	before := files(t, fio)
	res, err := orphan.Clean(ctx, fio, 24*time.Hour, orphan.Options{})
	if err != nil {
		t.Fatal(err)
	}
	equal(t, "deleted", res.Deleted, planted)
	equal(t, "files", files(t, fio), without(before, planted...))
	equal(t, "rows", tabletest.ReadRows(t, fio.URL()), []string{"1", "2", "3"})
	// The rerun follows at once: the snapshots below EARLIEST are young, so
	// it deletes only their snapshot files (package expire: they may be a
	// commit's gap snapshot, whose files that commit reuses); the files only
	// they named are orphans now, and cleaning removes exactly those.
	beforeRerun := files(t, fio)
	equal(t, "expired by the rerun", expireAllButLatest(t, tbl), []int64{1, 2, 3, 4})
	equal(t, "rows after the rerun", tabletest.ReadRows(t, fio.URL()), []string{"1", "2", "3"})
	var snapFiles []string
	for _, p := range plan.Deleted {
		if strings.HasPrefix(p, "snapshot/") {
			snapFiles = append(snapFiles, p)
		}
	}
	equal(t, "files after the rerun", files(t, fio), without(beforeRerun, snapFiles...))
	age(t, fio, time.Now().Add(-48*time.Hour))
	if _, err := orphan.Clean(ctx, fio, 24*time.Hour, orphan.Options{}); err != nil {
		t.Fatalf("clean after the rerun: %v", err)
	}
	equal(t, "files after the clean", files(t, fio), without(beforeRerun, plan.Deleted...))
	equal(t, "rows after the clean", tabletest.ReadRows(t, fio.URL()), []string{"1", "2", "3"})
}

// TestCleanUnsettled: with MaxPasses 1, a commit between the first listing
// and its reads leaves snapshot 5 for a second reading pass, which is not
// allowed: the run fails with ErrUnsettled naming snapshot-5 and deletes
// nothing.
func TestCleanUnsettled(t *testing.T) {
	ctx := context.Background()
	tbl := issueTable(t)
	fio := tbl.FileIO
	plant(t, fio, "manifest/manifest-orphan-0")
	age(t, fio, time.Now().Add(-48*time.Hour))
	opts := orphan.Options{MaxPasses: 1}
	orphan.SetAfterList(&opts, func(ctx context.Context, pass int) error {
		if pass == 1 {
			importX(t, tbl, 4)
		}
		return nil
	})
	before := files(t, fio)
	res, err := orphan.Clean(ctx, fio, 24*time.Hour, opts)
	if !errors.Is(err, orphan.ErrUnsettled) {
		t.Fatalf("err %v, want ErrUnsettled", err)
	}
	if want := "orphan: table kept changing: snapshot/snapshot-5 appeared after 1 passes"; err.Error() != want {
		t.Errorf("err %q, want %q", err, want)
	}
	equal(t, "deleted", res.Deleted, nil)
	after := files(t, fio)
	for _, p := range before {
		if !slices.Contains(after, p) {
			t.Errorf("%s was deleted", p)
		}
	}
	// Without the commit, one reading pass is enough.
	res, err = orphan.Clean(ctx, fio, 24*time.Hour, orphan.Options{MaxPasses: 1})
	if err != nil {
		t.Fatal(err)
	}
	equal(t, "deleted", res.Deleted, []string{"manifest/manifest-orphan-0"})
}

// TestCleanMissingManifestOfLiveSnapshot: a manifest that the latest
// snapshot names is gone: the run fails with an error naming the snapshot
// and the manifest, wrapping fileio.ErrNotExist, and deletes nothing.
func TestCleanMissingManifestOfLiveSnapshot(t *testing.T) {
	ctx := context.Background()
	tbl := issueTable(t)
	fio := tbl.FileIO
	s, err := snapshot.NewManager(fio).Get(ctx, 4)
	if err != nil {
		t.Fatal(err)
	}
	ms, err := manifest.ReadManifestList(ctx, fio, s.DeltaManifestList)
	if err != nil || len(ms) != 1 {
		t.Fatal(ms, err)
	}
	gone := manifest.Path(ms[0].FileName)
	if err := fio.Delete(ctx, gone); err != nil {
		t.Fatal(err)
	}
	age(t, fio, time.Now().Add(-48*time.Hour))
	before := files(t, fio)
	_, err = orphan.Clean(ctx, fio, 24*time.Hour, orphan.Options{})
	if !errors.Is(err, fileio.ErrNotExist) {
		t.Fatalf("err %v, want fileio.ErrNotExist", err)
	}
	if want := "orphan: snapshot/snapshot-4 names " + gone + ": "; !strings.HasPrefix(err.Error(), want) {
		t.Errorf("err %q, want it to start with %q", err, want)
	}
	equal(t, "files", files(t, fio), before)
}
