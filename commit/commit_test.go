package commit_test

import (
	"context"
	"errors"
	"fmt"
	"slices"
	"sort"
	"strings"
	"sync"
	"testing"

	"github.com/paimon-go/paimon/catalog"
	"github.com/paimon-go/paimon/commit"
	"github.com/paimon-go/paimon/fileio"
	"github.com/paimon-go/paimon/internal/tabletest"
	"github.com/paimon-go/paimon/manifest"
	"github.com/paimon-go/paimon/snapshot"
	"github.com/paimon-go/paimon/testenv"
	"github.com/paimon-go/paimon/types"
)

func TestMain(m *testing.M) { testenv.Main(m) }

var kvSchema = catalog.Schema{Fields: []types.DataField{{Name: "k", Type: types.BigInt()}, {Name: "v", Type: types.String()}}}

// prepare writes rows (k, v) for every k of ks with a fresh Write and
// returns the commit messages.
func prepare(t testing.TB, tbl *catalog.Table, user string, ks []int64, v string) []commit.Message {
	t.Helper()
	rows := make([][]any, len(ks))
	for i, k := range ks {
		rows[i] = []any{k, v}
	}
	r := tabletest.Batch(t, types.SchemaToArrow(kvSchema.Fields), rows...)
	defer r.Release()
	return tabletest.Prepare(t, tbl, user, r)
}

// pkSchema is kvSchema with primary key k and table options opts.
func pkSchema(opts map[string]string) catalog.Schema {
	return catalog.Schema{Fields: kvSchema.Fields, PrimaryKeys: []string{"k"}, Options: opts}
}

// upgradeFirst returns the compaction message of a one-bucket table that
// moves the first new file of msgs to level (DELETE at its level, ADD at
// level).
func upgradeFirst(msgs []commit.Message, level int32) []commit.Message {
	f := msgs[0].Data.NewFiles[0]
	up := f
	up.Level = level
	return []commit.Message{{Partition: msgs[0].Partition, TotalBuckets: 1,
		Compact: commit.CompactIncrement{Before: []manifest.DataFileMeta{f}, After: []manifest.DataFileMeta{up}}}}
}

func snapshots(t testing.TB, fio *fileio.FileIO) []*snapshot.Snapshot {
	t.Helper()
	all, err := snapshot.NewManager(fio).List(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	return all
}

// referencedManifests returns every file of manifest/ that some snapshot
// references (lists incl. changelog lists, the manifests in them, index
// manifests).
func referencedManifests(t testing.TB, fio *fileio.FileIO) []string {
	t.Helper()
	ctx := context.Background()
	ref := map[string]bool{}
	for _, s := range snapshots(t, fio) {
		if s.IndexManifest != nil {
			ref[*s.IndexManifest] = true
		}
		lists := []string{s.BaseManifestList, s.DeltaManifestList}
		if s.ChangelogManifestList != nil {
			lists = append(lists, *s.ChangelogManifestList)
		}
		for _, l := range lists {
			ref[l] = true
			metas, err := manifest.ReadManifestList(ctx, fio, l)
			if err != nil {
				t.Fatal(err)
			}
			for _, m := range metas {
				ref[m.FileName] = true
			}
		}
	}
	var out []string
	for n := range ref {
		out = append(out, manifest.Path(n))
	}
	slices.Sort(out)
	return out
}

func manifestFiles(t testing.TB, fio *fileio.FileIO) []string {
	t.Helper()
	files, err := fio.List(context.Background(), manifest.Dir)
	if err != nil {
		t.Fatal(err)
	}
	var out []string
	for _, f := range files {
		out = append(out, f.Path)
	}
	return out
}

func TestIdempotentRetry(t *testing.T) {
	ctx := context.Background()
	tbl := tabletest.NewTable(t, "", kvSchema)
	c, err := commit.New(tbl.FileIO, tbl.Schema, "job")
	if err != nil {
		t.Fatal(err)
	}
	msgs := prepare(t, tbl, "job", []int64{1, 2}, "a")
	id, err := c.Commit(ctx, 7, msgs)
	if err != nil || id != 1 {
		t.Fatalf("Commit = %d, %v; want 1", id, err)
	}
	// The same identifier again (a retry after a timeout), through this
	// committer and through a fresh one as after a restart.
	if id, err := c.Commit(ctx, 7, msgs); err != nil || id != 1 {
		t.Errorf("retried Commit = %d, %v; want 1 (no-op)", id, err)
	}
	c2, _ := commit.New(tbl.FileIO, tbl.Schema, "job")
	if id, err := c2.Commit(ctx, 7, prepare(t, tbl, "job", []int64{3}, "b")); err != nil || id != 1 {
		t.Errorf("Commit by a new committer = %d, %v; want 1 (no-op)", id, err)
	}
	// Another user's snapshot in between does not hide ours.
	other, _ := commit.New(tbl.FileIO, tbl.Schema, "other")
	if id, err := other.Commit(ctx, 7, prepare(t, tbl, "other", []int64{4}, "c")); err != nil || id != 2 {
		t.Fatalf("other user's Commit = %d, %v; want 2", id, err)
	}
	c3, _ := commit.New(tbl.FileIO, tbl.Schema, "job")
	if id, err := c3.Commit(ctx, 6, prepare(t, tbl, "job", []int64{5}, "d")); err != nil || id != 1 {
		t.Errorf("older identifier = %d, %v; want 1 (no-op)", id, err)
	}
	if id, err := c3.Commit(ctx, 8, prepare(t, tbl, "job", []int64{6}, "e")); err != nil || id != 3 {
		t.Errorf("next identifier = %d, %v; want 3", id, err)
	}
	if n := len(snapshots(t, tbl.FileIO)); n != 3 {
		t.Errorf("%d snapshots, want 3", n)
	}
	want := []string{"1|a", "2|a", "4|c", "6|e"}
	if got := tabletest.ReadRows(t, tbl.FileIO.URL()); !slices.Equal(got, want) {
		t.Errorf("rows %v, want %v", got, want)
	}
	// Batch commits (Long.MAX_VALUE) are never de-duplicated.
	for i := range 2 {
		if id, err := c3.Commit(ctx, commit.BatchIdentifier, prepare(t, tbl, "job", []int64{int64(10 + i)}, "f")); err != nil || id != int64(4+i) {
			t.Errorf("batch commit %d = %d, %v", i, id, err)
		}
	}
	// ... and are not progress of their user: after the batch snapshots 4
	// and 5 of "job", its next identifier commits, through this committer
	// and through a fresh one (which scans the snapshots), and a retry of
	// an identifier already committed is still a no-op.
	if id, err := c3.Commit(ctx, 9, prepare(t, tbl, "job", []int64{20}, "g")); err != nil || id != 6 {
		t.Errorf("identifier 9 after batch commits = %d, %v; want 6", id, err)
	}
	if _, err := c3.Commit(ctx, commit.BatchIdentifier, prepare(t, tbl, "job", []int64{21}, "h")); err != nil {
		t.Fatal(err)
	}
	c4, _ := commit.New(tbl.FileIO, tbl.Schema, "job")
	if id, err := c4.Commit(ctx, 9, prepare(t, tbl, "job", []int64{22}, "x")); err != nil || id != 6 {
		t.Errorf("retry of identifier 9 by a new committer = %d, %v; want 6 (no-op)", id, err)
	}
	if id, err := c4.Commit(ctx, 10, prepare(t, tbl, "job", []int64{23}, "i")); err != nil || id != 8 {
		t.Errorf("identifier 10 by a new committer after a batch commit = %d, %v; want 8", id, err)
	}
	want = []string{"1|a", "10|f", "11|f", "2|a", "20|g", "21|h", "23|i", "4|c", "6|e"}
	got := tabletest.ReadRows(t, tbl.FileIO.URL())
	slices.Sort(got)
	slices.Sort(want)
	if !slices.Equal(got, want) {
		t.Errorf("rows %v, want %v", got, want)
	}
}

func TestEmptyCommit(t *testing.T) {
	ctx := context.Background()
	tbl := tabletest.NewTable(t, "", kvSchema)
	c, _ := commit.New(tbl.FileIO, tbl.Schema, "u")
	if id, err := c.Commit(ctx, 1, nil); err != nil || id != 0 {
		t.Errorf("empty Commit = %d, %v; want 0, nil", id, err)
	}
	if n := len(snapshots(t, tbl.FileIO)); n != 0 {
		t.Errorf("%d snapshots after an empty commit", n)
	}
	if files := manifestFiles(t, tbl.FileIO); len(files) != 0 {
		t.Errorf("manifest files after an empty commit: %v", files)
	}
	forced, _ := commit.New(tbl.FileIO, tbl.Schema, "u", commit.WithIgnoreEmptyCommit(false))
	id, err := forced.Commit(ctx, 2, nil)
	if err != nil || id != 1 {
		t.Fatalf("forced empty Commit = %d, %v; want 1", id, err)
	}
	s := snapshots(t, tbl.FileIO)[0]
	if s.TotalRecordCount != 0 || s.DeltaRecordCount != 0 || s.CommitKind != snapshot.KindAppend {
		t.Errorf("empty snapshot %+v", s)
	}
}

// race runs writers goroutines, each committing commits snapshots of one
// row as its own commit user, and checks the result.
func race(t *testing.T, url string, writers, commits int) {
	ctx := context.Background()
	tbl := tabletest.NewTable(t, url, kvSchema)
	var wg sync.WaitGroup
	errs := make(chan error, writers*commits)
	for g := range writers {
		wg.Add(1)
		go func() {
			defer wg.Done()
			user := fmt.Sprintf("writer-%d", g)
			c, err := commit.New(tbl.FileIO, tbl.Schema, user)
			if err != nil {
				errs <- err
				return
			}
			defer c.Close() // deletes an unused prepared base list (object stores)
			for i := range commits {
				msgs := prepare(t, tbl, user, []int64{int64(g*1000 + i)}, user)
				if _, err := c.Commit(ctx, int64(i+1), msgs); err != nil {
					errs <- fmt.Errorf("%s commit %d: %w", user, i+1, err)
					return
				}
			}
		}()
	}
	wg.Wait()
	close(errs)
	for err := range errs {
		t.Error(err)
	}
	all := snapshots(t, tbl.FileIO)
	seen := map[string]bool{}
	for i, s := range all {
		if s.ID != int64(i+1) {
			t.Fatalf("snapshot ids not contiguous: position %d holds %d", i, s.ID)
		}
		key := fmt.Sprint(s.CommitUser, "/", s.CommitIdentifier)
		if seen[key] {
			t.Errorf("commit %s published twice", key)
		}
		seen[key] = true
		if s.TotalRecordCount != int64(i+1) {
			t.Errorf("snapshot %d total record count %d", s.ID, s.TotalRecordCount)
		}
	}
	if len(all) != writers*commits {
		t.Fatalf("%d snapshots, want %d", len(all), writers*commits)
	}
	var want []string
	for g := range writers {
		for i := range commits {
			want = append(want, fmt.Sprintf("%d|writer-%d", g*1000+i, g))
		}
	}
	sort.Strings(want)
	if got := tabletest.ReadRows(t, tbl.FileIO.URL()); !slices.Equal(got, want) {
		t.Errorf("read %d rows, want %d", len(got), len(want))
	}
	// Losing attempts cleaned up after themselves: every file in manifest/
	// is referenced by a snapshot.
	if got, want := manifestFiles(t, tbl.FileIO), referencedManifests(t, tbl.FileIO); !slices.Equal(got, want) {
		t.Errorf("manifest/ holds %d files, snapshots reference %d; unreferenced: %v", len(got), len(want), difference(got, want))
	}
}

func difference(a, b []string) []string {
	var out []string
	for _, x := range a {
		if !slices.Contains(b, x) {
			out = append(out, x)
		}
	}
	return out
}

func TestRacingCommittersLocal(t *testing.T) {
	race(t, "", 8, 25)
}

func TestRacingCommittersMinIO(t *testing.T) {
	if testing.Short() {
		t.Skip("MinIO race skipped in -short mode")
	}
	race(t, testenv.MinIO(t), 8, 25)
}

// TestCompactConflict: two committers compact (delete) the same level-0 file;
// the second finds it gone and fails with ErrConflict without publishing or
// leaving manifest files.
func TestCompactConflict(t *testing.T) {
	ctx := context.Background()
	tbl := tabletest.NewTable(t, "", pkSchema(map[string]string{"bucket": "1"}))
	c, _ := commit.New(tbl.FileIO, tbl.Schema, "u")
	msgs := prepare(t, tbl, "u", []int64{1, 2, 3}, "a")
	if _, err := c.Commit(ctx, 1, msgs); err != nil {
		t.Fatal(err)
	}
	upgrade := upgradeFirst(msgs, 5)
	id, err := c.Commit(ctx, 2, upgrade)
	if err != nil || id != 2 {
		t.Fatalf("compact Commit = %d, %v", id, err)
	}
	if s := snapshots(t, tbl.FileIO)[1]; s.CommitKind != snapshot.KindCompact || s.DeltaRecordCount != 0 || s.TotalRecordCount != 3 {
		t.Errorf("compact snapshot %+v", s)
	}
	c2, _ := commit.New(tbl.FileIO, tbl.Schema, "v")
	checkConflict(t, tbl, "second compaction of the same file", func() error {
		_, err := c2.Commit(ctx, 1, upgrade)
		return err
	}, "1|a,2|a,3|a")
}

// checkConflict runs try, a commit that must fail with commit.ErrConflict
// and leave manifest/ as it was, and checks that the table's rows (joined
// by ",") are still want.
func checkConflict(t *testing.T, tbl *catalog.Table, what string, try func() error, want string) {
	t.Helper()
	before := manifestFiles(t, tbl.FileIO)
	if err := try(); !errors.Is(err, commit.ErrConflict) {
		t.Errorf("%s = %v, want ErrConflict", what, err)
	}
	if after := manifestFiles(t, tbl.FileIO); !slices.Equal(before, after) {
		t.Errorf("the failed %s left files: %v", what, difference(after, before))
	}
	if got := tabletest.ReadRows(t, tbl.FileIO.URL()); strings.Join(got, ",") != want {
		t.Errorf("rows after the failed %s: %v, want %s", what, got, want)
	}
}

// TestManifestMerge: with manifest.merge-min-count = 3 the base list of
// every third commit merges the small manifests into one, and a DELETE
// whose ADD sits in a manifest outside the merged run survives (issue
// case f).
func TestManifestMerge(t *testing.T) {
	ctx := context.Background()
	tbl := tabletest.NewTable(t, "", pkSchema(map[string]string{"bucket": "1", "manifest.merge-min-count": "3"}))
	c, _ := commit.New(tbl.FileIO, tbl.Schema, "u")
	first := prepare(t, tbl, "u", []int64{1}, "a")
	if _, err := c.Commit(ctx, 1, first); err != nil {
		t.Fatal(err)
	}
	for i := int64(2); i <= 4; i++ {
		if _, err := c.Commit(ctx, i, prepare(t, tbl, "u", []int64{i}, "a")); err != nil {
			t.Fatal(err)
		}
	}
	listLen := func(id int64) int {
		sn, err := snapshot.NewManager(tbl.FileIO).Get(ctx, id)
		if err != nil {
			t.Fatal(err)
		}
		metas, err := manifest.ReadManifestList(ctx, tbl.FileIO, sn.BaseManifestList)
		if err != nil {
			t.Fatal(err)
		}
		return len(metas)
	}
	// Base of snapshot n = merge(base(n-1) + delta(n-1)): 0, 1, 2, then 3
	// candidates are merged into 1.
	for id, want := range map[int64]int{1: 0, 2: 1, 3: 2, 4: 1} {
		if got := listLen(id); got != want {
			t.Errorf("snapshot %d: base list has %d manifests, want %d", id, got, want)
		}
	}
	// Upgrade the first file (DELETE level 0 + ADD level 5); then two more
	// appends, so that the next merge run holds the DELETE but the ADD is
	// in the already merged manifest.
	if _, err := c.Commit(ctx, 5, upgradeFirst(first, 5)); err != nil {
		t.Fatal(err)
	}
	for i := int64(6); i <= 9; i++ {
		if _, err := c.Commit(ctx, i, prepare(t, tbl, "u", []int64{i}, "b")); err != nil {
			t.Fatal(err)
		}
	}
	want := []string{"1|a", "2|a", "3|a", "4|a", "6|b", "7|b", "8|b", "9|b"}
	if got := tabletest.ReadRows(t, tbl.FileIO.URL()); !slices.Equal(got, want) {
		t.Errorf("rows %v, want %v", got, want)
	}
	if got, want := manifestFiles(t, tbl.FileIO), referencedManifests(t, tbl.FileIO); len(difference(want, got)) != 0 {
		t.Errorf("referenced manifests missing: %v", difference(want, got))
	}
}

// TestStaleCache: a Committer first builds on the snapshot it published
// last; when another committer published since, that attempt loses, its
// files are deleted, and the commit lands on top of the real latest snapshot.
func TestStaleCache(t *testing.T) {
	ctx := context.Background()
	tbl := tabletest.NewTable(t, "", kvSchema)
	a, _ := commit.New(tbl.FileIO, tbl.Schema, "a", commit.WithWatermark(100))
	b, _ := commit.New(tbl.FileIO, tbl.Schema, "b")
	if id, err := a.Commit(ctx, 1, prepare(t, tbl, "a", []int64{1}, "a")); err != nil || id != 1 {
		t.Fatalf("a: %d, %v", id, err)
	}
	if id, err := b.Commit(ctx, 1, prepare(t, tbl, "b", []int64{2, 3}, "b")); err != nil || id != 2 {
		t.Fatalf("b: %d, %v", id, err)
	}
	if id, err := a.Commit(ctx, 2, prepare(t, tbl, "a", []int64{4}, "a")); err != nil || id != 3 {
		t.Fatalf("a again: %d, %v; want 3", id, err)
	}
	all := snapshots(t, tbl.FileIO)
	if len(all) != 3 || all[2].TotalRecordCount != 4 || all[2].DeltaRecordCount != 1 || all[2].Watermark == nil || *all[2].Watermark != 100 ||
		all[1].Watermark == nil || *all[1].Watermark != 100 {
		t.Errorf("snapshots %+v %+v", all[1], all[2])
	}
	if got, want := manifestFiles(t, tbl.FileIO), referencedManifests(t, tbl.FileIO); !slices.Equal(got, want) {
		t.Errorf("unreferenced manifest files: %v", difference(got, want))
	}
	if got := tabletest.ReadRows(t, tbl.FileIO.URL()); strings.Join(got, ",") != "1|a,2|b,3|b,4|a" {
		t.Errorf("rows %v", got)
	}
}

// TestCommitRequests: a Committer that commits in a loop builds on the
// snapshot it published last and reads two small files (the base snapshot,
// checked before the create, and the EARLIEST hint after it) and HEADs the base after the create: per commit one PUT each for
// the new manifest, the delta list and the base list (concurrent), the
// snapshot's create-if-absent, the LATEST hint (written before Commit
// returns on local disk), and one HEAD for a newer schema.
func TestCommitRequests(t *testing.T) {
	ctx := context.Background()
	tbl := tabletest.NewTable(t, "", kvSchema)
	c, _ := commit.New(tbl.FileIO, tbl.Schema, "u")
	for i := int64(1); i <= 3; i++ {
		msgs := prepare(t, tbl, "u", []int64{i}, "a")
		before := tbl.FileIO.Stats()
		if _, err := c.Commit(ctx, i, msgs); err != nil {
			t.Fatal(err)
		}
		got := tbl.FileIO.Stats().Since(before)
		if i == 1 {
			continue // the first commit looks for the latest snapshot
		}
		// One GET checks that the cached base snapshot is still there (a
		// rollback frees its id); after the create one GET of the
		// EARLIEST hint and one HEAD of the base (no snapshot in a gap an
		// expiration left).
		if want := (fileio.Stats{Get: 2, Put: 5, Head: 2}); got != want {
			t.Errorf("commit %d made requests %+v, want %+v", i, got, want)
		}
	}
	// A new Committer of the same user (a restart) reads the LATEST hint,
	// checks that snapshot 4 does not exist, reads snapshot 3 to find its
	// last identifier and takes it as the base: with its two lists and
	// the EARLIEST hint and a HEAD of the base after the create, 5 GETs and 3 HEADs (with the
	// schema's).
	c2, _ := commit.New(tbl.FileIO, tbl.Schema, "u")
	msgs := prepare(t, tbl, "u", []int64{4}, "a")
	before := tbl.FileIO.Stats()
	if id, err := c2.Commit(ctx, 4, msgs); err != nil || id != 4 {
		t.Fatalf("restarted Commit = %d, %v", id, err)
	}
	if got, want := tbl.FileIO.Stats().Since(before), (fileio.Stats{Get: 5, Put: 5, Head: 3}); got != want {
		t.Errorf("first commit of a new Committer made requests %+v, want %+v", got, want)
	}
	if got := tabletest.ReadRows(t, tbl.FileIO.URL()); strings.Join(got, ",") != "1|a,2|a,3|a,4|a" {
		t.Errorf("rows %v", got)
	}
}
