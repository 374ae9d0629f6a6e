package paimon_test

import (
	"context"
	"os"
	"path"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/paimon-go/paimon/catalog"
	"github.com/paimon-go/paimon/commit"
	"github.com/paimon-go/paimon/compaction"
	"github.com/paimon-go/paimon/expire"
	"github.com/paimon-go/paimon/internal/tabletest"
	"github.com/paimon-go/paimon/orphan"
	"github.com/paimon-go/paimon/types"
)

// dataFiles lists the data files (.parquet/.orc/.avro) below the table root,
// sorted, with the random part of their names cut to the directory.
func dataFiles(t *testing.T, tbl *catalog.Table) []string {
	t.Helper()
	infos, err := tbl.FileIO.ListRecursive(context.Background(), "")
	if err != nil {
		t.Fatal(err)
	}
	var out []string
	for _, fi := range infos {
		if strings.HasPrefix(fi.Path, "manifest/") || strings.HasPrefix(fi.Path, "index/") {
			continue
		}
		for _, ext := range []string{".parquet", ".orc", ".avro"} {
			if strings.HasSuffix(fi.Path, ext) {
				i := strings.LastIndex(fi.Path, "/")
				out = append(out, fi.Path[:i+1])
			}
		}
	}
	slices.Sort(out)
	return out
}

// findFile returns the path of the file called name below the table root.
func findFile(t *testing.T, tbl *catalog.Table, name string) string {
	t.Helper()
	infos, err := tbl.FileIO.ListRecursive(context.Background(), "")
	if err != nil {
		t.Fatal(err)
	}
	for _, fi := range infos {
		if strings.HasSuffix(fi.Path, "/"+name) {
			return fi.Path
		}
	}
	t.Fatalf("no file %s", name)
	return ""
}

// TestDataFilePathDirectory: with data-file.path-directory = data, the
// writer, compaction, the reader, orphan cleaning and expiration all place
// and find data files below data/<partition>/bucket-<n>/ (Java
// FileStorePathFactory.relativeBucketPath). Old code wrote and read
// p=1/bucket-0/ and so could not read a Java-written table.
func TestDataFilePathDirectory(t *testing.T) {
	ctx := context.Background()
	tbl := tabletest.NewTable(t, "", catalog.Schema{
		Fields:        []types.DataField{{Name: "p", Type: types.Int()}, {Name: "k", Type: types.Int()}, {Name: "v", Type: types.String()}},
		PartitionKeys: []string{"p"},
		PrimaryKeys:   []string{"p", "k"},
		Options: map[string]string{"bucket": "1", "data-file.path-directory": "data",
			"write-only": "true", "snapshot.num-retained.min": "1", "snapshot.num-retained.max": "1"},
	})
	sc := types.SchemaToArrow(tbl.Schema.Fields)
	rec := tabletest.Batch(t, sc, []any{int32(1), int32(1), "a"}, []any{int32(2), int32(2), "b"})
	tabletest.WriteCommit(t, tbl, "u", 1, rec)
	rec.Release()
	rec = tabletest.Batch(t, sc, []any{int32(1), int32(1), "A"}, []any{int32(1), int32(3), "c"})
	tabletest.WriteCommit(t, tbl, "u", 2, rec)
	rec.Release()
	if got, want := dataFiles(t, tbl), []string{"data/p=1/bucket-0/", "data/p=1/bucket-0/", "data/p=2/bucket-0/"}; !slices.Equal(got, want) {
		t.Fatalf("data files in %q, want %q", got, want)
	}
	want := []string{"1|1|A", "1|3|c", "2|2|b"}
	if got := tabletest.ReadRows(t, tbl.FileIO.URL()); !slices.Equal(got, want) {
		t.Fatalf("rows %q, want %q", got, want)
	}
	if _, err := compaction.Compact(ctx, tbl.FileIO, tbl.Schema, "u", compaction.Options{Full: true}); err != nil {
		t.Fatal(err)
	}
	// The compacted-away level-0 files are still referenced by snapshot 2
	// (p=2's single file is upgraded, not rewritten).
	if got, want := dataFiles(t, tbl), []string{"data/p=1/bucket-0/", "data/p=1/bucket-0/", "data/p=1/bucket-0/", "data/p=2/bucket-0/"}; !slices.Equal(got, want) {
		t.Fatalf("after compaction data files in %q, want %q", got, want)
	}
	res, err := orphan.Clean(ctx, tbl.FileIO, 0, orphan.Options{Now: time.Now().Add(time.Hour)})
	if err != nil {
		t.Fatal(err)
	}
	if len(res.Deleted) != 0 {
		t.Fatalf("orphan clean deleted %q", res.Deleted)
	}
	if _, err := expire.Expire(ctx, tbl.FileIO, tbl.Schema, expire.Options{RetainMin: 1, RetainMax: 1, OlderThan: time.Now().Add(time.Hour)}); err != nil {
		t.Fatal(err)
	}
	if got, want := dataFiles(t, tbl), []string{"data/p=1/bucket-0/", "data/p=2/bucket-0/"}; !slices.Equal(got, want) {
		t.Fatalf("after expiration data files in %q, want %q", got, want)
	}
	if got := tabletest.ReadRows(t, tbl.FileIO.URL()); !slices.Equal(got, want) {
		t.Fatalf("rows after compaction and expiration %q, want %q", got, want)
	}
}

// TestExternalPathRead: a data file whose manifest entry carries
// _EXTERNAL_PATH (Java's "file:/abs/dir/name" form of a file written to
// data-file.external-paths) is read from that location, by scans and by
// compaction; orphan cleaning keeps it and removes unreferenced files below
// the table's data-file.external-paths (Java listPaimonFileDirs), and
// expiration deletes the files compaction replaced when they lie below
// those roots (Java FileDeletionBase), never others. Old code
// refused the scan with reader.ErrUnsupported.
func TestExternalPathRead(t *testing.T) {
	for _, tc := range []struct {
		name string
		opt  bool // data-file.external-paths names the directory
		left int  // files left in the directory after expiration
	}{{"configured", true, 1}, {"unconfigured", false, 3}} {
		t.Run(tc.name, func(t *testing.T) { testExternalPathRead(t, tc.opt, tc.left) })
	}
}

func testExternalPathRead(t *testing.T, opt bool, left int) {
	ctx := context.Background()
	ext := t.TempDir()
	opts := map[string]string{"bucket": "-1", "write-only": "true"}
	if opt {
		opts["data-file.external-paths"] = "file://" + filepath.ToSlash(ext)
	}
	tbl := tabletest.NewTable(t, "", catalog.Schema{
		Fields:        []types.DataField{{Name: "p", Type: types.Int()}, {Name: "k", Type: types.Int()}, {Name: "v", Type: types.String()}},
		PartitionKeys: []string{"p"},
		Options:       opts,
	})
	sc := types.SchemaToArrow(tbl.Schema.Fields)
	for i, rows := range [][][]any{
		{{int32(1), int32(1), "a"}, {int32(2), int32(2), "b"}},
		{{int32(1), int32(3), "c"}},
	} {
		rec := tabletest.Batch(t, sc, rows...)
		msgs := tabletest.Prepare(t, tbl, "u", rec)
		rec.Release()
		for m := range msgs {
			for f := range msgs[m].Data.NewFiles {
				fm := &msgs[m].Data.NewFiles[f]
				src := findFile(t, tbl, fm.FileName)
				part := strings.Split(src, "/")[0]
				b, err := tbl.FileIO.ReadFile(ctx, src)
				if err != nil {
					t.Fatal(err)
				}
				dir := filepath.Join(ext, part, "bucket-0")
				if err := os.MkdirAll(dir, 0o755); err != nil {
					t.Fatal(err)
				}
				if err := os.WriteFile(filepath.Join(dir, fm.FileName), b, 0o644); err != nil {
					t.Fatal(err)
				}
				if err := tbl.FileIO.Delete(ctx, src); err != nil {
					t.Fatal(err)
				}
				loc := "file:" + filepath.ToSlash(dir) + "/" + fm.FileName
				fm.ExternalPath = &loc
			}
		}
		cm, err := commit.New(tbl.FileIO, tbl.Schema, "u")
		if err != nil {
			t.Fatal(err)
		}
		if _, err := cm.Commit(ctx, int64(i+1), msgs); err != nil {
			t.Fatal(err)
		}
		cm.Close()
	}
	if got := dataFiles(t, tbl); len(got) != 0 {
		t.Fatalf("data files in the table: %q", got)
	}
	want := []string{"1|1|a", "1|3|c", "2|2|b"}
	if got := tabletest.ReadRows(t, tbl.FileIO.URL()); !slices.Equal(got, want) {
		t.Fatalf("rows %q, want %q", got, want)
	}
	if _, err := compaction.Compact(ctx, tbl.FileIO, tbl.Schema, "u", compaction.Options{Full: true}); err != nil {
		t.Fatal(err)
	}
	if got := tabletest.ReadRows(t, tbl.FileIO.URL()); !slices.Equal(got, want) {
		t.Fatalf("rows after compaction %q, want %q", got, want)
	}
	// An unreferenced file below the external root is an orphan when the
	// root is one of the table's data-file.external-paths (Java lists them).
	stray := filepath.Join(ext, "p=1", "bucket-0", "data-stray-0.parquet")
	if err := os.WriteFile(stray, []byte("x"), 0o644); err != nil {
		t.Fatal(err)
	}
	var wantDeleted []string
	if opt {
		wantDeleted = []string{"file://" + filepath.ToSlash(stray)}
	}
	if res, err := orphan.Clean(ctx, tbl.FileIO, 0, orphan.Options{Now: time.Now().Add(time.Hour), ExternalPaths: true}); err != nil || !slices.Equal(res.Deleted, wantDeleted) {
		t.Fatalf("orphan clean deleted %q, %v; want %q", res.Deleted, err, wantDeleted)
	}
	if !opt {
		os.Remove(stray)
	}
	if _, err := expire.Expire(ctx, tbl.FileIO, tbl.Schema, expire.Options{RetainMin: 1, RetainMax: 1, OlderThan: time.Now().Add(time.Hour)}); err != nil {
		t.Fatal(err)
	}
	n := 0
	filepath.WalkDir(ext, func(p string, d os.DirEntry, err error) error {
		if err == nil && !d.IsDir() {
			n++
		}
		return err
	})
	if n != left {
		t.Fatalf("%d files left in the external directory, want %d", n, left)
	}
	if got := tabletest.ReadRows(t, tbl.FileIO.URL()); !slices.Equal(got, want) {
		t.Fatalf("rows after expiration %q, want %q", got, want)
	}
}

// TestParquetManifests: a table with manifest.format = parquet gets Parquet
// manifests and manifest lists (and index manifests, when deletion vectors
// are written) from commits and compaction, and reads back exactly. Old code refused
// commit.New with commit.ErrUnsupported.
func TestParquetManifests(t *testing.T) {
	ctx := context.Background()
	tbl := tabletest.NewTable(t, "", catalog.Schema{
		Fields:        []types.DataField{{Name: "p", Type: types.Int()}, {Name: "k", Type: types.Int()}, {Name: "v", Type: types.String()}},
		PartitionKeys: []string{"p"},
		PrimaryKeys:   []string{"p", "k"},
		Options:       map[string]string{"bucket": "1", "manifest.format": "parquet", "deletion-vectors.enabled": "true"},
	})
	sc := types.SchemaToArrow(tbl.Schema.Fields)
	rec := tabletest.Batch(t, sc, []any{int32(1), int32(1), "a"}, []any{int32(2), int32(2), "b"})
	tabletest.WriteCommit(t, tbl, "u", 1, rec)
	rec.Release()
	rec = tabletest.Batch(t, sc, []any{int32(1), int32(1), "A"}, []any{int32(1), int32(3), "c"})
	tabletest.WriteCommit(t, tbl, "u", 2, rec)
	rec.Release()
	if _, err := compaction.Compact(ctx, tbl.FileIO, tbl.Schema, "u", compaction.Options{Full: true}); err != nil {
		t.Fatal(err)
	}
	want := []string{"1|1|A", "1|3|c", "2|2|b"}
	if got := tabletest.ReadRows(t, tbl.FileIO.URL()); !slices.Equal(got, want) {
		t.Fatalf("rows %q, want %q", got, want)
	}
	infos, err := tbl.FileIO.List(ctx, "manifest")
	if err != nil {
		t.Fatal(err)
	}
	kinds := map[string]bool{}
	for _, fi := range infos {
		b, err := tbl.FileIO.ReadFile(ctx, fi.Path)
		if err != nil {
			t.Fatal(err)
		}
		if !strings.HasPrefix(string(b), "PAR1") {
			t.Fatalf("%s is not Parquet", fi.Path)
		}
		name := path.Base(fi.Path)
		for _, k := range []string{"index-manifest-", "manifest-list-", "manifest-"} {
			if strings.HasPrefix(name, k) {
				kinds[k] = true
				break
			}
		}
	}
	if !kinds["manifest-"] || !kinds["manifest-list-"] {
		t.Fatalf("manifest kinds %v", kinds)
	}
}
