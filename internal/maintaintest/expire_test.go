package maintaintest

import (
	"context"
	"errors"
	"io/fs"
	"maps"
	"net/url"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/paimon-go/paimon/expire"
	"github.com/paimon-go/paimon/fileio"
	"github.com/paimon-go/paimon/reader"
	"github.com/paimon-go/paimon/snapshot"
)

// TestExpireInterrupted is case (d) (apache/paimon reports of snapshots
// listed after their data files were deleted by an expiration): an
// expiration interrupted after any number of its deletions leaves every
// listed snapshot and every tag with all its files, reading exactly the
// model's rows; snapshot files it left below EARLIEST read the model's rows
// or fail, never other rows; and running Expire again ends with exactly the
// files of an uninterrupted run.
//
// The interruption is simulated with the contract of package expire: the
// run writes the EARLIEST hint first, then deletes the files of
// Result.Deleted in that order; a crash after k deletions leaves the hint and
// the first k deletions done. Result.Deleted comes from a dry run.
func TestExpireInterrupted(t *testing.T) {
	ctx := context.Background()
	ru := newRun(t, variant{name: "dedup", engine: engDedup}, 11)
	for range 4 {
		ru.writeCommit()
	}
	ru.compact(false)
	ru.createTag()
	for range 3 {
		ru.writeCommit()
	}
	ru.compact(true)
	ru.writeCommit()
	ru.createTag()
	ru.writeCommit()
	ru.check(0)
	ids := ru.retained()

	opts := expire.Options{RetainMin: 2, RetainMax: 2, OlderThan: time.Now().Add(time.Hour)}
	dry := opts
	dry.DryRun = true
	plan, err := expire.Expire(ctx, ru.fio, ru.ts, dry)
	if err != nil {
		t.Fatal(err)
	}
	wantExpired := ids[:len(ids)-2]
	if !slices.Equal(plan.Expired, wantExpired) || plan.Earliest != ids[len(ids)-2] {
		t.Fatalf("dry run expires %v up to earliest %d, want %v up to %d", plan.Expired, plan.Earliest, wantExpired, ids[len(ids)-2])
	}
	if len(plan.Deleted) == 0 {
		t.Fatal("dry run deletes nothing")
	}
	t.Logf("%d deletions, interrupted after %v", len(plan.Deleted), interruptions(plan.Deleted))
	src := tableDir(t, ru.fio)

	// The uninterrupted run, on a copy.
	ref := ru.copyTo(t, src)
	if _, err := expire.Expire(ctx, ref.fio, ref.ts, opts); err != nil {
		t.Fatal(err)
	}
	ref.forget(plan.Expired)
	ref.check(0)
	refFiles := listFiles(t, tableDir(t, ref.fio))

	for _, k := range interruptions(plan.Deleted) {
		c := ru.copyTo(t, src)
		if err := c.sm.CommitEarliestHint(ctx, plan.Earliest); err != nil {
			t.Fatal(err)
		}
		for _, p := range plan.Deleted[:k] {
			if err := c.fio.Delete(ctx, p); err != nil {
				t.Fatalf("delete %s: %v", p, err)
			}
		}
		c.logf("interrupted after %d of %d deletions (next: %s)", k, len(plan.Deleted), next(plan.Deleted, k))
		old := maps.Clone(c.snaps)
		c.forget(plan.Expired)
		c.check(k)
		for _, id := range plan.Expired {
			got, err := readTable(ctx, c.fio, reader.WithSnapshot(id))
			if err != nil {
				continue // an expired snapshot may fail, never return other rows
			}
			if want := c.jsonl(old[id].visible); !slices.Equal(got, want) {
				c.fatalf("expired snapshot %d read after %d deletions: %s", id, k, diffLines(got, want))
			}
		}
		// The rerun an hour later (sooner, only the snapshot files below
		// EARLIEST go: see expire's youngBelow and its TestExpireInterrupted).
		later := opts
		later.Now = func() time.Time { return time.Now().Add(time.Hour) }
		if _, err := expire.Expire(ctx, c.fio, c.ts, later); err != nil {
			c.fatalf("expire after the interruption: %v", err)
		}
		c.check(k)
		if got := listFiles(t, tableDir(t, c.fio)); !slices.Equal(got, refFiles) {
			c.fatalf("after %d deletions and a rerun the table holds other files than an uninterrupted run:\n%s", k, diffLines(got, refFiles))
		}
	}
}

// interruptions returns the numbers of deletions after which the test
// interrupts the run: none, all, and around every change of the kind of
// file deleted (data, index, manifest, manifest list, snapshot, ...), plus
// every tenth.
func interruptions(deleted []string) []int {
	kind := func(p string) string {
		dir, name, _ := strings.Cut(p, "/")
		switch {
		case dir == "manifest" && strings.HasPrefix(name, "manifest-list-"):
			return "manifest list"
		case dir == "manifest" && strings.HasPrefix(name, "index-manifest-"):
			return "index manifest"
		case dir == "manifest", dir == "index", dir == "snapshot", dir == "statistics":
			return dir
		}
		return "data"
	}
	ks := map[int]bool{0: true, len(deleted): true}
	for i := 1; i < len(deleted); i++ {
		if kind(deleted[i]) != kind(deleted[i-1]) {
			ks[i-1], ks[i], ks[i+1] = true, true, true
		}
		if i%10 == 0 {
			ks[i] = true
		}
	}
	return slices.Sorted(maps.Keys(ks))
}

func next(paths []string, k int) string {
	if k < len(paths) {
		return paths[k]
	}
	return "none"
}

// forget removes expired snapshots from the model.
func (ru *run) forget(ids []int64) {
	for _, id := range ids {
		delete(ru.snaps, id)
	}
}

// copyTo copies the table directory src to a new directory and returns a
// run over the copy with a copy of the model.
func (ru *run) copyTo(t *testing.T, src string) *run {
	t.Helper()
	dst := filepath.Join(t.TempDir(), "t")
	if err := os.CopyFS(dst, os.DirFS(src)); err != nil {
		t.Fatal(err)
	}
	fio, err := fileio.Open(context.Background(), "file://"+dst)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { fio.Close() })
	c := *ru
	c.w, c.fio, c.sm = nil, fio, snapshot.NewManager(fio)
	c.snaps, c.tags = maps.Clone(ru.snaps), maps.Clone(ru.tags)
	c.log = slices.Clip(ru.log)
	return &c
}

// tableDir is the local directory of a file:// FileIO.
func tableDir(t *testing.T, fio *fileio.FileIO) string {
	t.Helper()
	u, err := url.Parse(fio.URL())
	if err != nil || u.Scheme != "file" {
		t.Fatalf("not a local table: %s (%v)", fio.URL(), err)
	}
	return u.Path
}

// listFiles returns the files below dir (relative, slash-separated, hidden
// temporary files excluded), sorted.
func listFiles(t *testing.T, dir string) []string {
	t.Helper()
	var out []string
	err := filepath.WalkDir(dir, func(p string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		if d.IsDir() || strings.HasPrefix(d.Name(), ".") {
			return nil
		}
		rel, err := filepath.Rel(dir, p)
		out = append(out, filepath.ToSlash(rel))
		return err
	})
	if err != nil && !errors.Is(err, fs.ErrNotExist) {
		t.Fatal(err)
	}
	slices.Sort(out)
	return out
}
