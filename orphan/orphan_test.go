package orphan_test

import (
	"context"
	"errors"
	"fmt"
	"io/fs"
	"net/url"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/paimon-go/paimon"
	"github.com/paimon-go/paimon/catalog"
	"github.com/paimon-go/paimon/commit"
	"github.com/paimon-go/paimon/expire"
	"github.com/paimon-go/paimon/fileio"
	"github.com/paimon-go/paimon/internal/fixture"
	"github.com/paimon-go/paimon/internal/memcheck"
	"github.com/paimon-go/paimon/internal/tabletest"
	"github.com/paimon-go/paimon/manifest"
	"github.com/paimon-go/paimon/orphan"
	"github.com/paimon-go/paimon/progress"
	"github.com/paimon-go/paimon/reader"
	"github.com/paimon-go/paimon/snapshot"
	"github.com/paimon-go/paimon/tag"
	"github.com/paimon-go/paimon/types"
)

var fields = []types.DataField{{Name: "k", Type: types.BigInt()}, {Name: "v", Type: types.String()}, {Name: "p", Type: types.String()}}

// rtTable creates a real-time table (k, v, p) partitioned by p with one
// bucket (realtime-design.md section 13.1).
func rtTable(t *testing.T) *catalog.Table {
	return tabletest.NewTable(t, "", catalog.Schema{Fields: fields, PartitionKeys: []string{"p"},
		Options: map[string]string{"bucket": "1", "bucket-key": "k", "realtime.enabled": "true"}})
}

func rows(p string, ks ...int64) [][]any {
	out := make([][]any, len(ks))
	for i, k := range ks {
		out[i] = []any{k, fmt.Sprintf("value-%d", k), p}
	}
	return out
}

func prepare(t *testing.T, tbl *catalog.Table, rs [][]any) []commit.Message {
	t.Helper()
	r := tabletest.Batch(t, types.SchemaToArrow(tbl.Schema.Fields), rs...)
	defer r.Release()
	return tabletest.Prepare(t, tbl, "u", r)
}

// commitProgress commits rs (of one partition) with the offset range
// [begin, end) of that partition's bucket 0 as commit user "rt".
func commitProgress(t *testing.T, tbl *catalog.Table, ident, begin, end int64, rs [][]any) int64 {
	t.Helper()
	c, err := commit.New(tbl.FileIO, tbl.Schema, "rt")
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close()
	pb := progress.PartitionBucket{Partition: map[string]string{"p": rs[0][2].(string)}, Bucket: 0}
	id, err := c.CommitWithProgress(context.Background(), ident, prepare(t, tbl, rs),
		[]progress.Advance{{PartitionBucket: pb, Range: progress.Range{Begin: begin, End: end}}}, nil)
	if err != nil {
		t.Fatal(err)
	}
	return id
}

// commitPlain commits rs without progress as commit user "u".
func commitPlain(t *testing.T, tbl *catalog.Table, rs [][]any) int64 {
	t.Helper()
	r := tabletest.Batch(t, types.SchemaToArrow(tbl.Schema.Fields), rs...)
	defer r.Release()
	return tabletest.WriteCommit(t, tbl, "u", commit.BatchIdentifier, r)
}

func files(t *testing.T, fio *fileio.FileIO) []string {
	t.Helper()
	infos, err := fio.ListRecursive(context.Background(), "")
	if err != nil {
		t.Fatal(err)
	}
	out := make([]string, len(infos))
	for i, fi := range infos {
		out[i] = fi.Path
	}
	return out
}

func equal[T comparable](t *testing.T, what string, got, want []T) {
	t.Helper()
	if !slices.Equal(got, want) {
		t.Errorf("%s:\n got %v\nwant %v", what, got, want)
	}
}

func without(all []string, drop ...string) []string {
	return slices.DeleteFunc(slices.Clone(all), func(p string) bool { return slices.Contains(drop, p) })
}

func localDir(t *testing.T, fio *fileio.FileIO) string {
	t.Helper()
	u, err := url.Parse(fio.URL())
	if err != nil || u.Scheme != "file" {
		t.Fatalf("not a local table: %s", fio.URL())
	}
	return u.Path
}

// age sets the modification time of every file below the table to when,
// except those in keep.
func age(t *testing.T, fio *fileio.FileIO, when time.Time, keep ...string) {
	t.Helper()
	root := localDir(t, fio)
	err := filepath.WalkDir(root, func(p string, d fs.DirEntry, err error) error {
		if err != nil || d.IsDir() {
			return err
		}
		rel, _ := filepath.Rel(root, p)
		if slices.Contains(keep, filepath.ToSlash(rel)) {
			return nil
		}
		return os.Chtimes(p, when, when)
	})
	if err != nil {
		t.Fatal(err)
	}
}

// plant writes files with the given content.
func plant(t *testing.T, fio *fileio.FileIO, paths ...string) {
	t.Helper()
	for _, p := range paths {
		if err := fio.WriteFile(context.Background(), p, []byte("orphan "+p)); err != nil {
			t.Fatal(err)
		}
	}
}

func open(t *testing.T, dir string) *fileio.FileIO {
	t.Helper()
	tb, err := paimon.OpenTable(context.Background(), dir)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { tb.Close() })
	return tb.FileIO()
}

// allRows reads every snapshot and tag of the table.
func allRows(t *testing.T, fio *fileio.FileIO) map[string][]string {
	t.Helper()
	ctx := context.Background()
	sm := snapshot.NewManager(fio)
	out := map[string][]string{}
	snaps, err := sm.List(ctx)
	if err != nil {
		t.Fatal(err)
	}
	for _, s := range snaps {
		out[fmt.Sprint(s.ID)] = tabletest.ReadRows(t, fio.URL(), reader.WithSnapshot(s.ID))
	}
	tags, err := sm.Tags(ctx)
	if err != nil {
		t.Fatal(err)
	}
	for _, tg := range tags {
		out["tag "+tg.Name] = tabletest.ReadRows(t, fio.URL(), reader.WithTag(tg.Name))
	}
	return out
}

func sameRows(t *testing.T, got, want map[string][]string) {
	t.Helper()
	if len(got) != len(want) {
		t.Errorf("read %d snapshots and tags, want %d", len(got), len(want))
	}
	for k, w := range want {
		equal(t, k, got[k], w)
	}
}

// history: two real-time commits (distinct offsets files), an overwrite of
// partition a (its old files stay referenced by the older snapshots), a plain
// commit and a tag.
func history(t *testing.T) *catalog.Table {
	ctx := context.Background()
	tbl := rtTable(t)
	commitProgress(t, tbl, 1, 0, 3, rows("a", 0, 1, 2))
	commitProgress(t, tbl, 2, 0, 2, rows("b", 3, 4))
	c, err := commit.New(tbl.FileIO, tbl.Schema, "u")
	if err != nil {
		t.Fatal(err)
	}
	if _, err := c.Overwrite(ctx, commit.BatchIdentifier, commit.PartitionSpec{"p": "a"}, prepare(t, tbl, rows("a", 5))); err != nil {
		t.Fatal(err)
	}
	c.Close()
	if _, err := tag.Create(ctx, tbl.FileIO, tbl.Schema, "t1", 1, tag.CreateOptions{}); err != nil {
		t.Fatal(err)
	}
	commitPlain(t, tbl, rows("b", 6))
	return tbl
}

// TestCleanRemovesExactlyPlantedOrphans plants an orphan in every directory
// the cleaner scans, and files it must leave alone.
func TestCleanRemovesExactlyPlantedOrphans(t *testing.T) {
	ctx := context.Background()
	tbl := history(t)
	fio := tbl.FileIO
	orphans := []string{
		"index/index-orphan-0",
		"manifest/manifest-list-orphan-0",
		"manifest/manifest-orphan-0",
		"metadata/orphan.offsets",
		"p=a/bucket-0/data-orphan-0.parquet",
		"p=b/bucket-0/changelog-orphan-0.parquet",
		"snapshot/snapshot-7.tmp",
		"statistics/stat-orphan-0",
	}
	kept := []string{
		"p=a/bucket-0/data-young.parquet", // younger than the threshold
		"metadata/notes.txt",              // not an offsets file
		"p=a/extra/data-x.parquet",        // not a bucket directory
		"elsewhere/data-y.parquet",        // not a Paimon directory
		"tag/README",                      // tag/ is not scanned
	}
	plant(t, fio, append(orphans, kept...)...)
	now := time.Now()
	age(t, fio, now.Add(-48*time.Hour), "p=a/bucket-0/data-young.parquet")
	before := files(t, fio)
	wantRows := allRows(t, fio)

	dry, err := orphan.Clean(ctx, fio, 24*time.Hour, orphan.Options{DryRun: true, Now: now})
	if err != nil {
		t.Fatal(err)
	}
	equal(t, "dry run", dry.Deleted, orphans)
	equal(t, "files after the dry run", files(t, fio), before)
	var size int64
	for _, o := range orphans {
		size += int64(len("orphan " + o))
	}
	if dry.Bytes != size {
		t.Errorf("bytes %d, want %d", dry.Bytes, size)
	}

	res, err := orphan.Clean(ctx, fio, 24*time.Hour, orphan.Options{Now: now})
	if err != nil {
		t.Fatal(err)
	}
	equal(t, "deleted", res.Deleted, orphans)
	equal(t, "files after", files(t, fio), without(before, orphans...))
	sameRows(t, allRows(t, fio), wantRows)
	if _, err := progress.ReadCommitted(ctx, fio, "", 0); err != nil {
		t.Error(err)
	}
	// A second run finds nothing.
	if res, err := orphan.Clean(ctx, fio, 24*time.Hour, orphan.Options{Now: now}); err != nil || len(res.Deleted) != 0 {
		t.Errorf("second run: %+v, %v", res, err)
	}
}

// TestCleanJavaFixtures: Java-written tables (with deletion vectors, a tag, a
// branch sharing main's files) have no orphan files, except one data file of
// the ORC deletion-vector table that no snapshot or tag lists.
func TestCleanJavaFixtures(t *testing.T) {
	ctx := context.Background()
	for name, want := range map[string][]string{
		"pk_table_scan_and_read_dv_parquet":     nil,
		"pk_table_scan_and_read_dv_orc":         {"f1=10/bucket-1/data-0b9eadf8-7773-4de7-8f02-3765934f62b7-0.orc"},
		"append_table_with_rt_branch_parquet":   nil,
		"pk_09_parquet":                         nil,
		"append_table_with_alter_table_parquet": nil,
	} {
		t.Run(name, func(t *testing.T) {
			fio := open(t, fixture.Copy(t, name))
			age(t, fio, time.Now().Add(-48*time.Hour))
			before := files(t, fio)
			wantRows := allRows(t, fio)
			res, err := orphan.Clean(ctx, fio, 24*time.Hour, orphan.Options{})
			if err != nil {
				t.Fatal(err)
			}
			equal(t, "deleted", res.Deleted, want)
			equal(t, "files", files(t, fio), without(before, want...))
			sameRows(t, allRows(t, fio), wantRows)
		})
	}
}

// TestCleanBranch: orphans in a branch's metadata/ and snapshot/ go; the
// branch's files (shared manifest/ and data directories) stay.
func TestCleanBranch(t *testing.T) {
	ctx := context.Background()
	fio := open(t, fixture.Copy(t, "append_table_with_rt_branch_parquet"))
	orphans := []string{"branch/branch-rt/metadata/x.offsets", "branch/branch-rt/snapshot/junk", "dt=20240725/bucket-1/data-orphan.parquet"}
	plant(t, fio, orphans...)
	age(t, fio, time.Now().Add(-48*time.Hour))
	before := files(t, fio)
	res, err := orphan.Clean(ctx, fio, 24*time.Hour, orphan.Options{})
	if err != nil {
		t.Fatal(err)
	}
	equal(t, "deleted", res.Deleted, orphans)
	equal(t, "files", files(t, fio), without(before, orphans...))
	c := fixture.Lookup(t, "append_table_with_rt_branch_parquet", "branch_rt")
	got, err := tabletest.Cat(ctx, fio.URL(), reader.WithBranch("rt"))
	if err != nil {
		t.Fatal(err)
	}
	fixture.AssertJSONL(t, c, got)
}

// TestCleanAbortsOnUnreadableMetadata: a corrupt manifest, a missing manifest
// list, a corrupt snapshot, a corrupt tag, a branch without schema: the run
// fails and deletes nothing.
func TestCleanAbortsOnUnreadableMetadata(t *testing.T) {
	ctx := context.Background()
	tbl := history(t)
	dir := localDir(t, tbl.FileIO)
	latest, err := snapshot.NewManager(tbl.FileIO).Latest(ctx)
	if err != nil {
		t.Fatal(err)
	}
	ms, err := manifest.ReadManifestList(ctx, tbl.FileIO, latest.BaseManifestList)
	if err != nil || len(ms) == 0 {
		t.Fatal(ms, err)
	}
	for _, c := range []struct {
		name   string
		break_ func(fio *fileio.FileIO) error
		want   error
	}{
		{"corrupt manifest", func(fio *fileio.FileIO) error {
			return fio.WriteFile(ctx, manifest.Path(ms[0].FileName), []byte("Obj\x01 not avro"))
		}, manifest.ErrCorrupt},
		{"missing manifest list", func(fio *fileio.FileIO) error {
			return fio.Delete(ctx, manifest.Path(latest.DeltaManifestList))
		}, fileio.ErrNotExist},
		{"missing manifest", func(fio *fileio.FileIO) error {
			return fio.Delete(ctx, manifest.Path(ms[0].FileName))
		}, fileio.ErrNotExist},
		{"corrupt snapshot", func(fio *fileio.FileIO) error {
			return fio.WriteFile(ctx, "snapshot/snapshot-2", []byte("{"))
		}, snapshot.ErrCorrupt},
		{"corrupt tag", func(fio *fileio.FileIO) error {
			return fio.WriteFile(ctx, "tag/tag-t1", []byte("[]"))
		}, snapshot.ErrCorrupt},
		{"corrupt offsets property", func(fio *fileio.FileIO) error {
			s, err := snapshot.NewManager(fio).Get(ctx, 1)
			if err != nil {
				return err
			}
			s.Properties[progress.Property] = "/nowhere"
			data, _ := s.Encode()
			return fio.WriteFile(ctx, "snapshot/snapshot-1", data)
		}, progress.ErrCorrupt},
		{"branch without schema", func(fio *fileio.FileIO) error {
			return fio.WriteFile(ctx, "branch/branch-x/snapshot/LATEST", []byte("1"))
		}, orphan.ErrInvalidBranch},
	} {
		t.Run(c.name, func(t *testing.T) {
			dst := t.TempDir()
			if err := os.CopyFS(dst, os.DirFS(dir)); err != nil {
				t.Fatal(err)
			}
			fio := open(t, dst)
			plant(t, fio, "manifest/manifest-orphan-0")
			if err := c.break_(fio); err != nil {
				t.Fatal(err)
			}
			age(t, fio, time.Now().Add(-48*time.Hour))
			before := files(t, fio)
			_, err := orphan.Clean(ctx, fio, time.Hour, orphan.Options{})
			if !errors.Is(err, c.want) {
				t.Fatalf("err %v, want %v", err, c.want)
			}
			equal(t, "files", files(t, fio), before)
		})
	}
}

// TestScenario08OffsetFileLifecycle is TestRealtimeOffsetFileLifecycle
// (realtime-design.md section 13.1, scenario 8): each real-time snapshot has
// its own offsets file; an unreferenced metadata/orphan.offsets is the only
// file the orphan cleaner removes; expiring the older snapshot deletes its
// offsets file and keeps the newer one, whose progress still reads 5.
func TestScenario08OffsetFileLifecycle(t *testing.T) {
	ctx := context.Background()
	tbl := rtTable(t)
	fio := tbl.FileIO
	commitProgress(t, tbl, 1, 0, 3, rows("a", 0, 1, 2))
	commitProgress(t, tbl, 2, 3, 5, rows("a", 3, 4))
	path := func(id int64) string {
		s, err := snapshot.NewManager(fio).Get(ctx, id)
		if err != nil {
			t.Fatal(err)
		}
		p, err := progress.Path(fio, s.Properties[progress.Property])
		if err != nil {
			t.Fatal(err)
		}
		return p
	}
	o1, o2 := path(1), path(2)
	if o1 == o2 {
		t.Fatalf("both snapshots name %s", o1)
	}
	plant(t, fio, "metadata/orphan.offsets")
	age(t, fio, time.Now().Add(-48*time.Hour))
	before := files(t, fio)
	res, err := orphan.Clean(ctx, fio, 24*time.Hour, orphan.Options{})
	if err != nil {
		t.Fatal(err)
	}
	equal(t, "cleaned", res.Deleted, []string{"metadata/orphan.offsets"})
	equal(t, "files", files(t, fio), without(before, "metadata/orphan.offsets"))

	eres, err := expire.Expire(ctx, fio, tbl.Schema, expire.Options{RetainMin: 1, OlderThan: time.Now().Add(time.Second)})
	if err != nil {
		t.Fatal(err)
	}
	equal(t, "expired", eres.Expired, []int64{1})
	if !slices.Contains(eres.Deleted, o1) || slices.Contains(eres.Deleted, o2) {
		t.Errorf("expiration deleted %v; want %s deleted, %s kept", eres.Deleted, o1, o2)
	}
	for p, want := range map[string]bool{o1: false, o2: true} {
		if ok, err := fio.Exists(ctx, p); err != nil || ok != want {
			t.Errorf("%s exists %v (%v), want %v", p, ok, err, want)
		}
	}
	pb := progress.PartitionBucket{Partition: map[string]string{"p": "a"}, Bucket: 0}
	if end, err := progress.ReadOffset(ctx, fio, "", 0, pb); err != nil || end != 5 {
		t.Errorf("progress %d, %v; want 5", end, err)
	}
	// Nothing is left for the cleaner.
	age(t, fio, time.Now().Add(-48*time.Hour))
	if res, err := orphan.Clean(ctx, fio, 24*time.Hour, orphan.Options{}); err != nil || len(res.Deleted) != 0 {
		t.Errorf("clean after expiration: %+v, %v", res, err)
	}
}

// TestCleanAfterInterruptedExpiration: snapshots below EARLIEST whose
// manifest lists an interrupted expiration already deleted do not stop the
// cleaner, which removes their remaining unique files.
func TestCleanAfterInterruptedExpiration(t *testing.T) {
	ctx := context.Background()
	tbl := history(t)
	fio := tbl.FileIO
	wantLatest := tabletest.ReadRows(t, fio.URL())
	// Play an interrupted run: the EARLIEST hint, then a prefix of the
	// deletions the run plans, up to and including the first manifest list.
	plan, err := expire.Expire(ctx, fio, tbl.Schema, expire.Options{RetainMin: 1, OlderThan: time.Now().Add(time.Second), DryRun: true})
	if err != nil {
		t.Fatal(err)
	}
	if err := snapshot.NewManager(fio).CommitEarliestHint(ctx, plan.Earliest); err != nil {
		t.Fatal(err)
	}
	lists := 0
	for _, p := range plan.Deleted {
		if err := fio.Delete(ctx, p); err != nil {
			t.Fatal(err)
		}
		if strings.HasPrefix(p, "manifest/manifest-list-") {
			if lists++; lists == 2 {
				break
			}
		}
	}
	if lists != 2 {
		t.Fatalf("planned deletions %v", plan.Deleted)
	}
	age(t, fio, time.Now().Add(-48*time.Hour))
	if _, err := orphan.Clean(ctx, fio, 24*time.Hour, orphan.Options{}); err != nil {
		t.Fatal(err)
	}
	equal(t, "latest", tabletest.ReadRows(t, fio.URL()), wantLatest)
	equal(t, "tag t1", tabletest.ReadRows(t, fio.URL(), reader.WithTag("t1")), []string{"0|value-0|a", "1|value-1|a", "2|value-2|a"})
	// Expiration finishes afterwards.
	if _, err := expire.Expire(ctx, fio, tbl.Schema, expire.Options{RetainMin: 1, OlderThan: time.Now().Add(time.Second)}); err != nil {
		t.Fatal(err)
	}
	equal(t, "latest after expiration", tabletest.ReadRows(t, fio.URL()), wantLatest)
}

func TestCleanRejectsNegativeAge(t *testing.T) {
	tbl := history(t)
	before := files(t, tbl.FileIO)
	if _, err := orphan.Clean(context.Background(), tbl.FileIO, -time.Second, orphan.Options{}); !errors.Is(err, orphan.ErrInvalidArgument) {
		t.Errorf("err %v", err)
	}
	equal(t, "files", files(t, tbl.FileIO), before)
}

// TestCleanHugeChangelogBoundedMemory: a changelog file of 1 GiB (sparse)
// was read whole by the reference walk before its size was checked. It is
// refused from its size (fileio.ErrTooLarge naming it), within 256 MiB of
// heap, and nothing is deleted.
func TestCleanHugeChangelogBoundedMemory(t *testing.T) {
	res, peak := memcheck.Peak(t, 256<<20, func() []byte {
		tbl := history(t)
		dir := localDir(t, tbl.FileIO)
		p := filepath.Join(dir, "changelog", "changelog-1")
		memcheck.SparseFile(t, p, []byte(`{"id":1}`), 1<<30)
		return []byte(dir)
	}, func(dir []byte) string {
		ctx := context.Background()
		fio, err := fileio.Open(ctx, "file://"+string(dir))
		if err != nil {
			return err.Error()
		}
		res, err := orphan.Clean(ctx, fio, 0, orphan.Options{Now: time.Now().Add(time.Hour)})
		return fmt.Sprintf("deleted %d, too large %v, names it %v", len(res.Deleted),
			errors.Is(err, fileio.ErrTooLarge), err != nil && strings.Contains(err.Error(), "changelog/changelog-1"))
	})
	t.Logf("peak heap %d MiB", peak>>20)
	if peak > 256<<20 {
		t.Errorf("peak heap %d bytes, want ≤ %d", peak, 256<<20)
	}
	if want := "deleted 0, too large true, names it true"; res != want {
		t.Errorf("got %q, want %q", res, want)
	}
}
