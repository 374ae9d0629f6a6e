package expire_test

import (
	"context"
	"net/url"
	"os"
	"path"
	"slices"
	"testing"
	"time"

	"github.com/paimon-go/paimon"
	"github.com/paimon-go/paimon/catalog"
	"github.com/paimon-go/paimon/commit"
	"github.com/paimon-go/paimon/fileio"
	"github.com/paimon-go/paimon/internal/tabletest"
	"github.com/paimon-go/paimon/manifest"
	"github.com/paimon-go/paimon/reader"
	"github.com/paimon-go/paimon/schema"
	"github.com/paimon-go/paimon/snapshot"
	"github.com/paimon-go/paimon/types"
)

var kvFields = []types.DataField{{Name: "k", Type: types.BigInt()}, {Name: "v", Type: types.String()}}

// kvTable creates an append table (k BIGINT, v STRING) with options opts.
func kvTable(t *testing.T, opts map[string]string) *catalog.Table {
	return tabletest.NewTable(t, "", catalog.Schema{Fields: kvFields, Options: opts})
}

// rows builds (k, v) rows.
func kv(ks []int64, v string) [][]any {
	out := make([][]any, len(ks))
	for i, k := range ks {
		out[i] = []any{k, v}
	}
	return out
}

// prepare writes rows into tbl and returns the commit messages.
func prepare(t *testing.T, tbl *catalog.Table, rows [][]any) []commit.Message {
	t.Helper()
	r := tabletest.Batch(t, types.SchemaToArrow(tbl.Schema.Fields), rows...)
	defer r.Release()
	return tabletest.Prepare(t, tbl, "u", r)
}

// write commits rows as a new APPEND snapshot and returns its id.
func write(t *testing.T, tbl *catalog.Table, rows [][]any) int64 {
	t.Helper()
	r := tabletest.Batch(t, types.SchemaToArrow(tbl.Schema.Fields), rows...)
	defer r.Release()
	return tabletest.WriteCommit(t, tbl, "u", commit.BatchIdentifier, r)
}

// overwrite replaces the whole table with rows (an OVERWRITE snapshot).
func overwrite(t *testing.T, tbl *catalog.Table, rows [][]any) int64 {
	t.Helper()
	c, err := commit.New(tbl.FileIO, tbl.Schema, "u")
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close()
	id, err := c.Overwrite(context.Background(), commit.BatchIdentifier, commit.PartitionSpec{}, prepare(t, tbl, rows))
	if err != nil {
		t.Fatal(err)
	}
	return id
}

// files lists every file of the table, sorted.
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

// without returns all minus drop (both sorted), failing when drop holds a
// path all does not.
func without(t *testing.T, all []string, drop ...string) []string {
	t.Helper()
	var out []string
	for _, p := range all {
		if !slices.Contains(drop, p) {
			out = append(out, p)
		}
	}
	for _, d := range drop {
		if !slices.Contains(all, d) {
			t.Fatalf("%s is not a file of the table", d)
		}
	}
	return out
}

func equal[T comparable](t *testing.T, what string, got, want []T) {
	t.Helper()
	if !slices.Equal(got, want) {
		t.Errorf("%s:\n got %v\nwant %v", what, got, want)
	}
}

func sorted(s []string) []string { return slices.Sorted(slices.Values(s)) }

// localDir is the directory of a file:// FileIO.
func localDir(t *testing.T, fio *fileio.FileIO) string {
	t.Helper()
	u, err := url.Parse(fio.URL())
	if err != nil || u.Scheme != "file" {
		t.Fatalf("not a local table: %s", fio.URL())
	}
	return u.Path
}

// copyDir copies the table at dir into a new temporary directory and opens
// it.
func copyDir(t *testing.T, dir string) (*fileio.FileIO, *schema.TableSchema) {
	t.Helper()
	dst := t.TempDir()
	if err := os.CopyFS(dst, os.DirFS(dir)); err != nil {
		t.Fatal(err)
	}
	return open(t, dst)
}

// open opens the table at dir.
func open(t *testing.T, dir string) (*fileio.FileIO, *schema.TableSchema) {
	t.Helper()
	tb, err := paimon.OpenTable(context.Background(), dir)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { tb.Close() })
	return tb.FileIO(), tb.Schema()
}

func getSnap(t *testing.T, fio *fileio.FileIO, id int64) *snapshot.Snapshot {
	t.Helper()
	s, err := snapshot.NewManager(fio).Get(context.Background(), id)
	if err != nil {
		t.Fatal(err)
	}
	return s
}

// setTime rewrites the commit time of snapshot id.
func setTime(t *testing.T, fio *fileio.FileIO, id int64, at time.Time) {
	t.Helper()
	s := getSnap(t, fio, id)
	s.TimeMillis = at.UnixMilli()
	data, err := s.Encode()
	if err != nil {
		t.Fatal(err)
	}
	if err := fio.WriteFile(context.Background(), snapshot.NewManager(fio).Path(id), data); err != nil {
		t.Fatal(err)
	}
}

// manifests returns the manifest paths the list names.
func manifests(t *testing.T, fio *fileio.FileIO, list string) []string {
	t.Helper()
	ms, err := manifest.ReadManifestList(context.Background(), fio, list)
	if err != nil {
		t.Fatal(err)
	}
	var out []string
	for _, m := range ms {
		out = append(out, manifest.Path(m.FileName))
	}
	return out
}

// dataFiles returns the paths of the live data files of snapshot id.
func dataFiles(t *testing.T, fio *fileio.FileIO, id int64) []string {
	t.Helper()
	p, err := reader.NewScan(fio, reader.WithSnapshot(id), reader.WithAllLevels()).Plan(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	var out []string
	for _, sp := range p.Splits {
		for _, f := range sp.Files {
			out = append(out, path.Join(sp.BucketPath, f.FileName))
		}
	}
	return sorted(out)
}

// read returns the rows of the table at fio ("k|v", sorted) read with opts.
func read(t *testing.T, fio *fileio.FileIO, opts ...reader.Option) []string {
	t.Helper()
	return tabletest.ReadRows(t, fio.URL(), opts...)
}

// hint returns the content of snapshot/<name>.
func hint(t *testing.T, fio *fileio.FileIO, name string) string {
	t.Helper()
	data, err := fio.ReadFile(context.Background(), "snapshot/"+name)
	if err != nil {
		t.Fatal(err)
	}
	return string(data)
}

// plus returns list with extra added, sorted.
func plus(list []string, extra ...string) []string {
	return sorted(append(slices.Clone(list), extra...))
}
