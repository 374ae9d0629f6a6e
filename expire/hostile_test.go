package expire_test

import (
	"context"
	"errors"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/paimon-go/paimon/catalog"
	"github.com/paimon-go/paimon/commit"
	"github.com/paimon-go/paimon/expire"
	"github.com/paimon-go/paimon/fileio"
	"github.com/paimon-go/paimon/internal/memcheck"
	"github.com/paimon-go/paimon/internal/tabletest"
	"github.com/paimon-go/paimon/progress"
	"github.com/paimon-go/paimon/snapshot"
	"github.com/paimon-go/paimon/tag"
	"github.com/paimon-go/paimon/types"
)

// setOffsetsProperty rewrites snapshot id's realtime.offsets property to
// the Location of rel.
func setOffsetsProperty(t *testing.T, fio *fileio.FileIO, id int64, rel string) {
	t.Helper()
	s := getSnap(t, fio, id)
	if s.Properties == nil {
		s.Properties = map[string]string{}
	}
	s.Properties[progress.Property] = progress.Location(fio, rel)
	data, err := s.Encode()
	if err != nil {
		t.Fatal(err)
	}
	if err := fio.WriteFile(context.Background(), snapshot.NewManager(fio).Path(id), data); err != nil {
		t.Fatal(err)
	}
}

// TestOffsetsPropertyNamingOtherFiles: a realtime.offsets property that
// names some other file of the table (seen: schema/schema-0 and a live data
// file) made expiration and rollback delete it. Only files of the form
// metadata/<name>.offsets that nothing kept names may go; the others are
// skipped and reported.
func TestOffsetsPropertyNamingOtherFiles(t *testing.T) {
	ctx := context.Background()
	tbl := kvTable(t, nil)
	fio := tbl.FileIO
	for i := int64(1); i <= 3; i++ {
		write(t, tbl, kv([]int64{i}, "a"))
	}
	live := dataFiles(t, fio, 3)
	setOffsetsProperty(t, fio, 1, "schema/schema-0")
	setOffsetsProperty(t, fio, 2, live[0])
	setOffsetsProperty(t, fio, 3, "metadata/x.offsets") // missing: nothing to delete
	before := files(t, fio)

	res, err := expire.Expire(ctx, fio, tbl.Schema, expire.Options{RetainMin: 1, OlderThan: time.Now().Add(time.Hour)})
	if err != nil {
		t.Fatal(err)
	}
	equal(t, "expired", res.Expired, []int64{1, 2})
	for _, p := range []string{"schema/schema-0", live[0]} {
		if slices.Contains(res.Deleted, p) {
			t.Errorf("expiration deleted %s", p)
		}
		if ok, err := fio.Exists(ctx, p); err != nil || !ok {
			t.Errorf("%s: exists %v, %v", p, ok, err)
		}
	}
	equal(t, "skipped", skippedPaths(res.Skipped), sorted([]string{"schema/schema-0", live[0]}))
	equal(t, "files", files(t, fio), plus(without(t, before, res.Deleted...), "snapshot/EARLIEST"))
	equal(t, "rows", read(t, fio), []string{"1|a", "2|a", "3|a"})

	// Rollback with DeleteFiles: the offsets file of a removed snapshot
	// that names the schema is skipped too.
	write(t, tbl, kv([]int64{4}, "a"))
	setOffsetsProperty(t, fio, 4, "schema/schema-0")
	rb, err := expire.Rollback(ctx, fio, tbl.Schema, expire.Target{Snapshot: 3}, expire.RollbackOptions{DeleteFiles: true})
	if err != nil {
		t.Fatal(err)
	}
	equal(t, "rolled back", rb.Snapshots, []int64{4})
	equal(t, "rollback skipped", skippedPaths(rb.Skipped), []string{"schema/schema-0"})
	if ok, err := fio.Exists(ctx, "schema/schema-0"); err != nil || !ok {
		t.Errorf("schema/schema-0 after rollback: exists %v, %v", ok, err)
	}
	equal(t, "rows after rollback", read(t, fio), []string{"1|a", "2|a", "3|a"})
}

func skippedPaths(s []expire.Skipped) []string {
	out := make([]string, len(s))
	for i := range s {
		out[i] = s[i].Path
	}
	return sorted(out)
}

// craft commits rows whose data file is recorded under name instead of its
// real name (the manifest names a file that is not there).
func craft(t *testing.T, tbl *catalog.Table, name string, k int64) {
	t.Helper()
	msgs := prepare(t, tbl, kv([]int64{k}, "x"))
	msgs[0].Data.NewFiles[0].FileName = name
	c, err := commit.New(tbl.FileIO, tbl.Schema, "u")
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close()
	if _, err := c.Commit(context.Background(), commit.BatchIdentifier, msgs); err != nil {
		t.Fatal(err)
	}
}

// TestCraftedDataFileNames: data files named "../…" or by an absolute path
// made expiration and rollback fail, every time, with fileio.ErrInvalidPath,
// blocking maintenance for good. They are skipped and reported, and nothing
// outside the table root is touched.
func TestCraftedDataFileNames(t *testing.T) {
	for _, name := range []string{"../../evil.parquet", "/evil.parquet", "../evil.parquet"} {
		t.Run(name, func(t *testing.T) {
			ctx := context.Background()
			tbl := kvTable(t, nil)
			fio := tbl.FileIO
			root := localDir(t, fio)
			// Files a naive delete of the crafted paths would hit.
			victims := []string{filepath.Join(root, "evil.parquet"), filepath.Join(filepath.Dir(root), "evil.parquet"), "/evil.parquet"}
			for _, v := range victims[:2] {
				if err := os.WriteFile(v, []byte("keep"), 0o644); err != nil {
					t.Fatal(err)
				}
			}
			write(t, tbl, kv([]int64{1}, "a"))     // 1
			craft(t, tbl, name, 2)                 // 2
			overwrite(t, tbl, kv([]int64{3}, "b")) // 3: deletes the crafted file
			write(t, tbl, kv([]int64{4}, "b"))     // 4
			craft(t, tbl, name, 5)                 // 5
			want := "bucket-0/" + name

			// Rollback to 4 deletes what 5 added.
			rb, err := expire.Rollback(ctx, fio, tbl.Schema, expire.Target{Snapshot: 4}, expire.RollbackOptions{DeleteFiles: true})
			if err != nil {
				t.Fatalf("Rollback: %v", err)
			}
			equal(t, "rolled back", rb.Snapshots, []int64{5})
			equal(t, "rollback skipped", skippedPaths(rb.Skipped), []string{want})

			res, err := expire.Expire(ctx, fio, tbl.Schema, expire.Options{RetainMin: 1, OlderThan: time.Now().Add(time.Hour)})
			if err != nil {
				t.Fatalf("Expire: %v", err)
			}
			equal(t, "expired", res.Expired, []int64{1, 2, 3})
			equal(t, "skipped", skippedPaths(res.Skipped), []string{want})
			equal(t, "rows", read(t, fio), []string{"3|b", "4|b"})
			for _, v := range victims[:2] {
				if data, err := os.ReadFile(v); err != nil || string(data) != "keep" {
					t.Errorf("%s: %q, %v", v, data, err)
				}
			}
			// A second run has nothing left to do and does not fail.
			if res, err := expire.Expire(ctx, fio, tbl.Schema, expire.Options{RetainMin: 1, OlderThan: time.Now().Add(time.Hour)}); err != nil || len(res.Expired) != 0 {
				t.Fatalf("second Expire: %+v, %v", res, err)
			}
		})
	}
}

// TestEarliestHintNamingMissingSnapshot: an EARLIEST hint naming a snapshot
// that does not exist (a rollback interrupted after deleting it) made
// expiration keep it: once commits reached its id, every older snapshot
// would be hidden from readers and taken by the next run as a leftover of
// an interrupted expiration. Expire rewrites it to the earliest snapshot
// and expires by the retention options only.
func TestEarliestHintNamingMissingSnapshot(t *testing.T) {
	ctx := context.Background()
	tbl := kvTable(t, nil)
	fio := tbl.FileIO
	for i := int64(1); i <= 3; i++ {
		write(t, tbl, kv([]int64{i}, "a"))
	}
	if err := fio.WriteFile(ctx, "snapshot/EARLIEST", []byte("5")); err != nil {
		t.Fatal(err)
	}
	res, err := expire.Expire(ctx, fio, tbl.Schema, expire.Options{RetainMin: 2, OlderThan: time.Now().Add(time.Hour)})
	if err != nil {
		t.Fatal(err)
	}
	equal(t, "expired", res.Expired, []int64{1})
	if got := hint(t, fio, "EARLIEST"); got != "2" {
		t.Errorf("EARLIEST = %s, want 2", got)
	}
	// Commits up to the old hint's id keep the older snapshots visible
	// (with the hint left in place, they were taken back forever: the
	// deadline bounds the test).
	cctx, cancel := context.WithTimeout(ctx, time.Minute)
	defer cancel()
	for k := int64(4); k <= 5; k++ {
		r := tabletest.Batch(t, types.SchemaToArrow(tbl.Schema.Fields), kv([]int64{k}, "a")...)
		id, err := tabletest.Commit(cctx, tbl, "u", commit.BatchIdentifier, r)
		r.Release()
		if err != nil || id != k {
			t.Fatalf("commit %d: %d, %v", k, id, err)
		}
	}
	list, err := snapshot.NewManager(fio).List(ctx)
	if err != nil {
		t.Fatal(err)
	}
	var ids []int64
	for _, s := range list {
		ids = append(ids, s.ID)
	}
	equal(t, "listed snapshots", ids, []int64{2, 3, 4, 5})
	res, err = expire.Expire(ctx, fio, tbl.Schema, expire.Options{RetainMin: 4, OlderThan: time.Now().Add(time.Hour)})
	if err != nil || len(res.Expired) != 0 {
		t.Fatalf("second Expire: %+v, %v; want nothing expired", res, err)
	}
}

// TestRollbackMovesEarliestFirst: a rollback to a tag of an expired snapshot
// deletes the snapshot the EARLIEST hint names (snapshot 4 here); it wrote
// the new hint only after deleting the newer snapshots, so a crash in
// between left EARLIEST naming a missing snapshot. The hint must name the
// target before the first snapshot file goes.
func TestRollbackMovesEarliestFirst(t *testing.T) {
	ctx := context.Background()
	tbl := history(t)
	fio := tbl.FileIO
	if _, err := tag.Create(ctx, fio, tbl.Schema, "t1", 1, tag.CreateOptions{}); err != nil {
		t.Fatal(err)
	}
	if _, err := expire.Expire(ctx, fio, tbl.Schema, expire.Options{RetainMin: 1, OlderThan: time.Now().Add(time.Second)}); err != nil {
		t.Fatal(err)
	}
	if got := hint(t, fio, "EARLIEST"); got != "4" {
		t.Fatalf("EARLIEST after expiration = %s, want 4", got)
	}
	var seen []string
	opts := expire.RollbackOptions{}
	expire.SetRollbackBeforeDelete(&opts, func(p string) error {
		if p == "snapshot/snapshot-4" {
			seen = append(seen, hint(t, fio, "EARLIEST"))
		}
		return nil
	})
	res, err := expire.Rollback(ctx, fio, tbl.Schema, expire.Target{Tag: "t1"}, opts)
	if err != nil || !res.Created || res.Snapshot != 1 {
		t.Fatalf("Rollback = %+v, %v", res, err)
	}
	equal(t, "EARLIEST when snapshot-4 was deleted", seen, []string{"1"})
}

// TestTagDeleteScreensHostileNames: deleting a tag whose snapshot expired
// deletes the files only the tag held, through the same plan as expiration;
// a crafted data-file name made it fail with fileio.ErrInvalidPath, and an
// offsets property naming the schema made it delete schema/schema-0. Both
// are skipped and reported, as by Expire and Rollback.
func TestTagDeleteScreensHostileNames(t *testing.T) {
	ctx := context.Background()
	tbl := kvTable(t, nil)
	fio := tbl.FileIO
	root := localDir(t, fio)
	victim := filepath.Join(filepath.Dir(root), "evil.parquet")
	if err := os.WriteFile(victim, []byte("keep"), 0o644); err != nil {
		t.Fatal(err)
	}
	write(t, tbl, kv([]int64{1}, "a"))     // 1
	craft(t, tbl, "../../evil.parquet", 2) // 2
	setOffsetsProperty(t, fio, 2, "schema/schema-0")
	if _, err := tag.Create(ctx, fio, tbl.Schema, "t", 2, tag.CreateOptions{}); err != nil {
		t.Fatal(err)
	}
	overwrite(t, tbl, kv([]int64{3}, "b")) // 3: drops the crafted file
	write(t, tbl, kv([]int64{4}, "b"))     // 4
	res, err := expire.Expire(ctx, fio, tbl.Schema, expire.Options{RetainMin: 1, OlderThan: time.Now().Add(time.Hour)})
	if err != nil {
		t.Fatalf("Expire: %v", err)
	}
	equal(t, "expired", res.Expired, []int64{1, 2, 3})
	equal(t, "skipped by expire", skippedPaths(res.Skipped), []string{})

	del, err := tag.Delete(ctx, fio, tbl.Schema, "t", tag.DeleteOptions{})
	if err != nil {
		t.Fatalf("tag.Delete: %v", err)
	}
	equal(t, "skipped by tag.Delete", skippedPaths(del.Skipped), []string{"bucket-0/../../evil.parquet", "schema/schema-0"})
	if ok, err := fio.Exists(ctx, "schema/schema-0"); err != nil || !ok {
		t.Errorf("schema/schema-0 after tag.Delete: exists %v, %v", ok, err)
	}
	if data, err := os.ReadFile(victim); err != nil || string(data) != "keep" {
		t.Errorf("%s: %q, %v", victim, data, err)
	}
	equal(t, "rows", read(t, fio), []string{"3|b", "4|b"})
}

// TestHugeConsumerFileRefused: a consumer file of 1 GiB (sparse) was read
// whole by every expiration. It is refused from its size with
// fileio.ErrTooLarge naming it, and nothing expires.
func TestHugeConsumerFileRefused(t *testing.T) {
	ctx := context.Background()
	tbl := kvTable(t, nil)
	fio := tbl.FileIO
	for i := int64(1); i <= 3; i++ {
		write(t, tbl, kv([]int64{i}, "a"))
	}
	p := filepath.Join(localDir(t, fio), "consumer", "consumer-c1")
	memcheck.SparseFile(t, p, []byte(`{"nextSnapshot":1}`), 1<<30)
	res, err := expire.Expire(ctx, fio, tbl.Schema, expire.Options{RetainMin: 1, OlderThan: time.Now().Add(time.Hour)})
	if !errors.Is(err, fileio.ErrTooLarge) || !strings.Contains(err.Error(), "consumer/consumer-c1") {
		t.Fatalf("Expire: %v, want fileio.ErrTooLarge naming consumer/consumer-c1", err)
	}
	equal(t, "expired", res.Expired, nil)
	equal(t, "rows", read(t, fio), []string{"1|a", "2|a", "3|a"})
}

// TestOffsetsPropertyNamingNoOffsetsFile: a realtime.offsets property that
// resolves to no path below the table (a bare "schema/schema-0", "/nowhere")
// made every expiration and rollback fail with progress.ErrCorrupt, blocking
// maintenance for good. It is skipped and reported as it is, and protects
// nothing.
func TestOffsetsPropertyNamingNoOffsetsFile(t *testing.T) {
	ctx := context.Background()
	tbl := kvTable(t, nil)
	fio := tbl.FileIO
	for i := int64(1); i <= 4; i++ {
		write(t, tbl, kv([]int64{i}, "a"))
	}
	setRaw := func(id int64, v string) {
		s := getSnap(t, fio, id)
		if s.Properties == nil {
			s.Properties = map[string]string{}
		}
		s.Properties[progress.Property] = v
		data, err := s.Encode()
		if err != nil {
			t.Fatal(err)
		}
		if err := fio.WriteFile(ctx, snapshot.NewManager(fio).Path(id), data); err != nil {
			t.Fatal(err)
		}
	}
	setRaw(1, "schema/schema-0")
	setRaw(2, "/nowhere")
	setRaw(4, "schema/schema-0")
	res, err := expire.Expire(ctx, fio, tbl.Schema, expire.Options{RetainMin: 2, OlderThan: time.Now().Add(time.Hour)})
	if err != nil {
		t.Fatalf("Expire: %v", err)
	}
	equal(t, "expired", res.Expired, []int64{1, 2})
	equal(t, "skipped", skippedPaths(res.Skipped), []string{"/nowhere", "schema/schema-0"})
	rb, err := expire.Rollback(ctx, fio, tbl.Schema, expire.Target{Snapshot: 3}, expire.RollbackOptions{DeleteFiles: true})
	if err != nil {
		t.Fatalf("Rollback: %v", err)
	}
	equal(t, "rolled back", rb.Snapshots, []int64{4})
	equal(t, "rollback skipped", skippedPaths(rb.Skipped), []string{"schema/schema-0"})
	if ok, err := fio.Exists(ctx, "schema/schema-0"); err != nil || !ok {
		t.Errorf("schema/schema-0: exists %v, %v", ok, err)
	}
	equal(t, "rows", read(t, fio), []string{"1|a", "2|a", "3|a"})
}
