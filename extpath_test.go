package paimon_test

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/paimon-go/paimon"
	"github.com/paimon-go/paimon/catalog"
	"github.com/paimon-go/paimon/compaction"
	"github.com/paimon-go/paimon/expire"
	"github.com/paimon-go/paimon/internal/tabletest"
	"github.com/paimon-go/paimon/manifest"
	"github.com/paimon-go/paimon/orphan"
	"github.com/paimon-go/paimon/reader"
	"github.com/paimon-go/paimon/types"
)

// liveFiles returns the data files of the table's latest snapshot.
func liveFiles(t *testing.T, tbl *catalog.Table) []manifest.DataFileMeta {
	t.Helper()
	plan, err := reader.NewScan(tbl.FileIO).Plan(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	var out []manifest.DataFileMeta
	for _, sp := range plan.Splits {
		out = append(out, sp.Files...)
	}
	return out
}

// filesBelow lists the regular files below the local directories dirs as
// "file:/abs/path" locations (Java's spelling of _EXTERNAL_PATH), sorted.
func filesBelow(t *testing.T, dirs ...string) []string {
	t.Helper()
	var out []string
	for _, d := range dirs {
		err := filepath.WalkDir(d, func(p string, e os.DirEntry, err error) error {
			if err == nil && !e.IsDir() {
				out = append(out, "file:"+filepath.ToSlash(p))
			}
			return err
		})
		if err != nil {
			t.Fatal(err)
		}
	}
	slices.Sort(out)
	return out
}

// locations returns the _EXTERNAL_PATH of files, sorted; a file without one
// fails the test.
func locations(t *testing.T, files []manifest.DataFileMeta) []string {
	t.Helper()
	var out []string
	for _, f := range files {
		if f.ExternalPath == nil {
			t.Fatalf("data file %s (level %d) has no external path", f.FileName, f.Level)
		}
		out = append(out, *f.ExternalPath)
	}
	slices.Sort(out)
	return out
}

// TestExternalPathWrite: a table with data-file.external-paths over two
// local roots and strategy round-robin gets every data file of the writer
// and of compaction below one of the roots, in the bucket's directory
// (<root>/p=N/bucket-0/<name>), recorded in _EXTERNAL_PATH in Java's
// "file:/abs" spelling, and none in the table; reads return the exact rows
// at each step; orphan cleaning deletes an unreferenced file below a root
// and nothing referenced; expiration deletes exactly the external files
// compaction replaced. Old code refused the write with writer.ErrUnsupported.
func TestExternalPathWrite(t *testing.T) {
	ctx := context.Background()
	a, b := t.TempDir(), t.TempDir()
	tbl := tabletest.NewTable(t, "", catalog.Schema{
		Fields:        []types.DataField{{Name: "p", Type: types.Int()}, {Name: "k", Type: types.Int()}, {Name: "v", Type: types.String()}},
		PartitionKeys: []string{"p"},
		PrimaryKeys:   []string{"p", "k"},
		Options: map[string]string{"bucket": "1",
			"data-file.external-paths":          "file://" + filepath.ToSlash(a) + ",file://" + filepath.ToSlash(b) + "/",
			"data-file.external-paths.strategy": "round-robin"},
	})
	sc := types.SchemaToArrow(tbl.Schema.Fields)
	for i, rows := range [][][]any{
		{{int32(1), int32(1), "a"}, {int32(1), int32(2), "b"}, {int32(2), int32(3), "c"}},
		{{int32(1), int32(1), "A"}, {int32(2), int32(4), "d"}},
	} {
		rec := tabletest.Batch(t, sc, rows...)
		tabletest.WriteCommit(t, tbl, "u", int64(i+1), rec)
		rec.Release()
	}
	if got := dataFiles(t, tbl); len(got) != 0 {
		t.Fatalf("data files in the table: %q", got)
	}
	check := func(step string, wantRows []string, wantFiles int) {
		t.Helper()
		files := liveFiles(t, tbl)
		if len(files) != wantFiles {
			t.Fatalf("%s: %d live files, want %d", step, len(files), wantFiles)
		}
		for _, f := range files {
			loc := *f.ExternalPath
			dir, name := loc[:strings.LastIndex(loc, "/")], loc[strings.LastIndex(loc, "/")+1:]
			ok := false
			for _, root := range []string{a, b} {
				for _, part := range []string{"p=1", "p=2"} {
					ok = ok || dir == "file:"+filepath.ToSlash(root)+"/"+part+"/bucket-0"
				}
			}
			if !ok || name != f.FileName {
				t.Fatalf("%s: file %s at %s, want <root>/p=N/bucket-0/%s", step, f.FileName, loc, f.FileName)
			}
		}
		if got := filesBelow(t, a, b); !slices.Equal(got, locations(t, files)) {
			t.Fatalf("%s: files below the roots\n%q\nwant the live files\n%q", step, got, locations(t, files))
		}
		if got := tabletest.ReadRows(t, tbl.FileIO.URL()); !slices.Equal(got, wantRows) {
			t.Fatalf("%s: rows %q, want %q", step, got, wantRows)
		}
	}
	check("after two commits", []string{"1|1|A", "1|2|b", "2|3|c", "2|4|d"}, 4)

	if _, err := compaction.Compact(ctx, tbl.FileIO, tbl.Schema, "u", compaction.Options{Full: true}); err != nil {
		t.Fatal(err)
	}
	if got := dataFiles(t, tbl); len(got) != 0 {
		t.Fatalf("data files in the table after compaction: %q", got)
	}
	for _, f := range liveFiles(t, tbl) {
		if f.Level != 5 || f.ExternalPath == nil {
			t.Fatalf("after compaction file %s at level %d, external path %v", f.FileName, f.Level, f.ExternalPath)
		}
	}
	// The replaced files are still there (snapshots 1 and 2 name them).
	if n := len(filesBelow(t, a, b)); n != 6 {
		t.Fatalf("%d files below the roots after compaction, want 6", n)
	}

	stray := filepath.Join(a, "p=1", "bucket-0", "data-stray-0.parquet")
	if err := os.MkdirAll(filepath.Dir(stray), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(stray, []byte("x"), 0o644); err != nil {
		t.Fatal(err)
	}
	// By default the roots are not cleaned: another table may write there
	// (the layout below a root does not name the table).
	res, err := orphan.Clean(ctx, tbl.FileIO, 0, orphan.Options{Now: time.Now().Add(time.Hour)})
	if err != nil || len(res.Deleted) != 0 {
		t.Fatalf("orphan clean without ExternalPaths deleted %q, %v; want nothing", res.Deleted, err)
	}
	if n := len(filesBelow(t, a, b)); n != 7 {
		t.Fatalf("%d files below the roots after orphan cleaning without ExternalPaths, want 7", n)
	}
	res, err = orphan.Clean(ctx, tbl.FileIO, 0, orphan.Options{Now: time.Now().Add(time.Hour), ExternalPaths: true})
	if want := []string{"file://" + filepath.ToSlash(stray)}; err != nil || !slices.Equal(res.Deleted, want) {
		t.Fatalf("orphan clean deleted %q, %v; want %q", res.Deleted, err, want)
	}
	if n := len(filesBelow(t, a, b)); n != 6 {
		t.Fatalf("%d files below the roots after orphan cleaning, want 6", n)
	}
	if _, err := expire.Expire(ctx, tbl.FileIO, tbl.Schema, expire.Options{RetainMin: 1, RetainMax: 1, OlderThan: time.Now().Add(time.Hour)}); err != nil {
		t.Fatal(err)
	}
	check("after compaction and expiration", []string{"1|1|A", "1|2|b", "2|3|c", "2|4|d"}, 2)
}

// TestExternalPathRoundRobin: one writer's files go to the roots in turn
// (Java RoundRobinExternalPathProvider, per DataFilePathFactory), below
// data-file.path-directory and the bucket directory; a Write closed without
// committing leaves no file below the roots. Old code refused NewWrite.
func TestExternalPathRoundRobin(t *testing.T) {
	ctx := context.Background()
	a, b := t.TempDir(), t.TempDir()
	tbl := tabletest.NewTable(t, "", catalog.Schema{
		Fields: []types.DataField{{Name: "k", Type: types.Int()}, {Name: "v", Type: types.String()}},
		Options: map[string]string{"bucket": "-1", "target-file-size": "1 kb", "data-file.path-directory": "data",
			"data-file.external-paths":          "file://" + filepath.ToSlash(a) + ",file://" + filepath.ToSlash(b),
			"data-file.external-paths.strategy": "round-robin"},
	})
	sc := types.SchemaToArrow(tbl.Schema.Fields)
	var rows [][]any
	for i := range 2500 {
		rows = append(rows, []any{int32(i), fmt.Sprintf("value-%04d", i)})
	}
	rec := tabletest.Batch(t, sc, rows...)
	defer rec.Release()
	msgs := tabletest.Prepare(t, tbl, "u", rec)
	var files []manifest.DataFileMeta
	for _, m := range msgs {
		files = append(files, m.Data.NewFiles...)
	}
	if len(files) < 3 {
		t.Fatalf("%d files, want at least 3 (target-file-size 1 kb)", len(files))
	}
	roots := []string{"file:" + filepath.ToSlash(a), "file:" + filepath.ToSlash(b)}
	first := -1
	for i, f := range files {
		if f.ExternalPath == nil {
			t.Fatalf("file %d (%s) has no external path", i, f.FileName)
		}
		r := slices.IndexFunc(roots, func(r string) bool { return *f.ExternalPath == r+"/data/bucket-0/"+f.FileName })
		if r < 0 {
			t.Fatalf("file %d at %s, want <root>/data/bucket-0/%s", i, *f.ExternalPath, f.FileName)
		}
		if first < 0 {
			first = r
		}
		if want := (first + i) % 2; r != want {
			t.Fatalf("file %d at root %d, want %d (round-robin)", i, r, want)
		}
	}

	// A Write closed without committing deletes what it wrote.
	before := filesBelow(t, a, b)
	pt, err := paimon.OpenTable(ctx, tbl.FileIO.URL())
	if err != nil {
		t.Fatal(err)
	}
	defer pt.Close()
	w, err := pt.NewWrite("v")
	if err != nil {
		t.Fatal(err)
	}
	if err := w.Write(ctx, rec); err != nil {
		t.Fatal(err)
	}
	if err := w.Close(); err != nil {
		t.Fatal(err)
	}
	if got := filesBelow(t, a, b); !slices.Equal(got, before) {
		t.Fatalf("after an aborted write the roots hold %d files, want the %d prepared before", len(got), len(before))
	}
}

// TestExternalPathEntropyInject: strategy entropy-inject puts the first
// file of a writer below the second root (Java's provider advances from
// position 0 before choosing), in three hash directories of 4 binary
// digits and one of 8 below the bucket directory.
func TestExternalPathEntropyInject(t *testing.T) {
	a, b := t.TempDir(), t.TempDir()
	tbl := tabletest.NewTable(t, "", catalog.Schema{
		Fields: []types.DataField{{Name: "k", Type: types.Int()}},
		Options: map[string]string{"bucket": "-1",
			"data-file.external-paths":          "file://" + filepath.ToSlash(a) + ",file://" + filepath.ToSlash(b),
			"data-file.external-paths.strategy": "entropy-inject"},
	})
	rec := tabletest.Batch(t, types.SchemaToArrow(tbl.Schema.Fields), []any{int32(1)}, []any{int32(2)})
	tabletest.WriteCommit(t, tbl, "u", 1, rec)
	rec.Release()
	files := liveFiles(t, tbl)
	if len(files) != 1 || files[0].ExternalPath == nil {
		t.Fatalf("files %+v, want one external file", files)
	}
	loc := *files[0].ExternalPath
	rest, ok := strings.CutPrefix(loc, "file:"+filepath.ToSlash(b)+"/bucket-0/")
	parts := strings.Split(rest, "/")
	if !ok || len(parts) != 5 || len(parts[0]) != 4 || len(parts[1]) != 4 || len(parts[2]) != 4 || len(parts[3]) != 8 ||
		strings.Trim(strings.Join(parts[:4], ""), "01") != "" || parts[4] != files[0].FileName {
		t.Fatalf("file at %s, want %s/bucket-0/dddd/dddd/dddd/dddddddd/%s", loc, b, files[0].FileName)
	}
	if got := tabletest.ReadRows(t, tbl.FileIO.URL()); !slices.Equal(got, []string{"1", "2"}) {
		t.Fatalf("rows %q", got)
	}
}
