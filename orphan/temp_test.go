package orphan_test

import (
	"context"
	"io/fs"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/paimon-go/paimon/orphan"
)

// localFiles lists every file below the table root on disk, hidden
// temporary files included (fileio's listings leave those out), as
// '/'-separated paths relative to the root, sorted.
func localFiles(t *testing.T, root string) []string {
	t.Helper()
	var out []string
	err := filepath.WalkDir(root, func(p string, d fs.DirEntry, err error) error {
		if err != nil || d.IsDir() {
			return err
		}
		rel, err := filepath.Rel(root, p)
		out = append(out, filepath.ToSlash(rel))
		return err
	})
	if err != nil {
		t.Fatal(err)
	}
	slices.Sort(out)
	return out
}

// TestCleanRemovesTempFiles plants the hidden temporary files a crash
// during a write leaves behind (fileio's local ".<name>.<16 hex>.tmp" and
// Java's ".<name>.<UUID>.tmp"), named after live files, in every directory
// a table writes to, one of them a hard link to a live snapshot (a crash
// between publishing and removing the temp). Clean removes exactly those
// older than the threshold, leaves a young one, and in schema/ and tag/
// (where only temporary files are candidates) other files alone, and every snapshot and tag reads the same rows.
func TestCleanRemovesTempFiles(t *testing.T) {
	ctx := context.Background()
	tbl := history(t)
	fio := tbl.FileIO
	root := localDir(t, fio)
	live := localFiles(t, root)
	liveIn := func(dir, prefix string) string {
		for _, p := range live {
			if strings.HasPrefix(p, dir+"/"+prefix) {
				return p[len(dir)+1:]
			}
		}
		t.Fatalf("no live file %s/%s* in %v", dir, prefix, live)
		return ""
	}
	const hex, uuid = "0123456789abcdef", "4f1e0c56-2b1d-4c5e-9a0b-7d3f2e1c0a99"
	temp := func(dir, name, rnd string) string { return dir + "/." + name + "." + rnd + ".tmp" }
	temps := []string{
		temp("p=a/bucket-0", liveIn("p=a/bucket-0", "data-"), hex),
		temp("p=b/bucket-0", liveIn("p=b/bucket-0", "data-"), uuid),
		temp("manifest", liveIn("manifest", "manifest-list-"), hex),
		temp("manifest", liveIn("manifest", "manifest-"), uuid),
		temp("metadata", liveIn("metadata", ""), hex),
		temp("snapshot", "EARLIEST", hex),
		temp("snapshot", "LATEST", uuid),
		temp("snapshot", "snapshot-9", hex),
		temp("schema", "schema-1", hex),
		temp("tag", "tag-t2", uuid),
		temp("consumer", "consumer-c1", hex),
		temp("changelog", "changelog-9", hex),
		temp("statistics", "stat-x", hex),
		temp("index", "index-x", uuid),
	}
	linked := temp("snapshot", "snapshot-1", uuid)
	young := temp("p=a/bucket-0", "data-young.parquet", hex)
	kept := []string{
		young,
		"schema/.keep",  // hidden, not a temporary file
		"tag/notes.tmp", // not hidden
		"schema/.tmp",   // too short to be ".<name>.<random>.tmp"
	}
	for _, p := range append(slices.Clone(temps), kept...) {
		full := filepath.Join(root, filepath.FromSlash(p))
		if err := os.MkdirAll(filepath.Dir(full), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(full, []byte("partial "+p), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	if err := os.Link(filepath.Join(root, "snapshot", "snapshot-1"), filepath.Join(root, filepath.FromSlash(linked))); err != nil {
		t.Fatal(err)
	}
	temps = append(temps, linked)
	slices.Sort(temps)
	now := time.Now()
	age(t, fio, now.Add(-48*time.Hour), young)
	before := localFiles(t, root)
	wantRows := allRows(t, fio)
	snap1, err := os.ReadFile(filepath.Join(root, "snapshot", "snapshot-1"))
	if err != nil {
		t.Fatal(err)
	}

	dry, err := orphan.Clean(ctx, fio, 24*time.Hour, orphan.Options{DryRun: true, Now: now})
	if err != nil {
		t.Fatal(err)
	}
	equal(t, "dry run", dry.Deleted, temps)
	equal(t, "files after the dry run", localFiles(t, root), before)

	res, err := orphan.Clean(ctx, fio, 24*time.Hour, orphan.Options{Now: now})
	if err != nil {
		t.Fatal(err)
	}
	equal(t, "deleted", res.Deleted, temps)
	equal(t, "files after", localFiles(t, root), without(before, temps...))
	remain := append(slices.Clone(live), kept...)
	slices.Sort(remain)
	equal(t, "files after", localFiles(t, root), remain)
	sameRows(t, allRows(t, fio), wantRows)
	if got, err := os.ReadFile(filepath.Join(root, "snapshot", "snapshot-1")); err != nil || string(got) != string(snap1) {
		t.Errorf("snapshot-1 after removing its hard-linked temp: %q, %v", got, err)
	}
	if res, err := orphan.Clean(ctx, fio, 24*time.Hour, orphan.Options{Now: now}); err != nil || len(res.Deleted) != 0 {
		t.Errorf("second run: %+v, %v", res, err)
	}
}
