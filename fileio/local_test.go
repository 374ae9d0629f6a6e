package fileio_test

import (
	"context"
	"errors"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"testing"

	"github.com/paimon-go/paimon/fileio"
)

// rawTree returns every file and directory below dir as '/'-separated paths,
// as the operating system sees them.
func rawTree(t *testing.T, dir string) []string {
	t.Helper()
	var out []string
	err := filepath.WalkDir(dir, func(p string, d fs.DirEntry, err error) error {
		if err != nil || p == dir {
			return err
		}
		rel, _ := filepath.Rel(dir, p)
		if d.IsDir() {
			rel += "/"
		}
		out = append(out, filepath.ToSlash(rel))
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	return out
}

func TestLocalNoSidecarsOrTempFiles(t *testing.T) {
	ctx := context.Background()
	dir := t.TempDir()
	fio := openURL(t, "file://"+dir)
	defer fio.Close()
	must := func(err error) {
		t.Helper()
		if err != nil {
			t.Fatal(err)
		}
	}
	must(fio.WriteFile(ctx, "schema/schema-0", []byte("{}")))
	must(fio.WriteFile(ctx, "schema/schema-0", []byte("{ }")))
	must(fio.CreateIfAbsent(ctx, "snapshot/snapshot-1", []byte("1")))
	if err := fio.CreateIfAbsent(ctx, "snapshot/snapshot-1", []byte("2")); !errors.Is(err, fileio.ErrExist) {
		t.Fatal(err)
	}
	w, err := fio.Create(ctx, "bucket-0/data-1.parquet")
	must(err)
	_, err = w.Write([]byte("PAR1"))
	must(err)
	must(w.Close())
	w, err = fio.Create(ctx, "bucket-0/data-2.parquet")
	must(err)
	_, err = w.Write([]byte("PAR1"))
	must(err)
	must(w.(fileio.Aborter).Abort())
	must(fio.Delete(ctx, "schema/schema-0"))

	want := []string{"bucket-0/", "bucket-0/data-1.parquet", "schema/", "snapshot/", "snapshot/snapshot-1"}
	if got := rawTree(t, dir); !slices.Equal(got, want) {
		t.Errorf("directory holds %q, want %q (no .attrs, no temporary files)", got, want)
	}
}

func TestLocalListingHidesOnlyTempFiles(t *testing.T) {
	ctx := context.Background()
	dir := t.TempDir()
	// What a crashed writer leaves behind, and files of other tools.
	for _, name := range []string{".snapshot-3.0123456789abcdef.tmp", ".hidden", "snapshot-1", "x.tmp"} {
		if err := os.WriteFile(filepath.Join(dir, name), []byte("z"), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	fio := openURL(t, dir)
	defer fio.Close()
	l, err := fio.List(ctx, "")
	if err != nil {
		t.Fatal(err)
	}
	var got []string
	for _, fi := range l {
		got = append(got, fi.Path)
	}
	if want := []string{".hidden", "snapshot-1", "x.tmp"}; !slices.Equal(got, want) {
		t.Errorf("List = %q, want %q", got, want)
	}
	// ListTemp shows exactly the temporary files, in the directory given
	// only (not those of subdirectories).
	if err := os.MkdirAll(filepath.Join(dir, "sub"), 0o755); err != nil {
		t.Fatal(err)
	}
	for _, name := range []string{"sub/.data-0.parquet.0123456789abcdef.tmp", ".LATEST.fedcba9876543210.tmp"} {
		if err := os.WriteFile(filepath.Join(dir, name), []byte("zz"), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	for d, want := range map[string][]string{
		"":    {".LATEST.fedcba9876543210.tmp", ".snapshot-3.0123456789abcdef.tmp"},
		"sub": {"sub/.data-0.parquet.0123456789abcdef.tmp"},
		"nil": nil,
	} {
		l, err := fio.ListTemp(ctx, d)
		if err != nil {
			t.Fatal(err)
		}
		var got []string
		for _, fi := range l {
			got = append(got, fi.Path)
			if fi.IsDir || fi.Size == 0 || fi.ModTime.IsZero() {
				t.Errorf("ListTemp(%q): %+v", d, fi)
			}
		}
		if !slices.Equal(got, want) {
			t.Errorf("ListTemp(%q) = %q, want %q", d, got, want)
		}
	}
}

func TestOpenURLs(t *testing.T) {
	ctx := context.Background()
	wd, err := os.Getwd()
	if err != nil {
		t.Fatal(err)
	}
	for _, c := range []struct{ in, want string }{
		{"file:///tmp/wh", "file:///tmp/wh"},
		{"file:///tmp/wh/", "file:///tmp/wh"},
		{"file://localhost/tmp/wh", "file:///tmp/wh"},
		{"file:/tmp/wh", "file:///tmp/wh"},
		{"/tmp/wh", "file:///tmp/wh"},
		{"rel/wh", "file://" + filepath.ToSlash(wd) + "/rel/wh"},
		{"file:///", "file:///"},
		{"mem://", "mem://"},
		{"mem:///wh", "mem:///wh"},
		{"s3://bucket/wh/db.db?endpoint=http://127.0.0.1:1&region=us-east-1&use_path_style=true",
			"s3://bucket/wh/db.db?endpoint=http://127.0.0.1:1&region=us-east-1&use_path_style=true"},
		{"s3://bucket?region=us-east-1", "s3://bucket?region=us-east-1"},
	} {
		fio, err := fileio.Open(ctx, c.in)
		if err != nil {
			t.Errorf("Open(%q): %v", c.in, err)
			continue
		}
		if got := fio.URL(); got != c.want {
			t.Errorf("Open(%q).URL() = %q, want %q", c.in, got, c.want)
		}
		fio.Close()
	}
	for _, in := range []string{
		"", "ftp://host/x", "file://host/x", "file:///x?a=b", "file:///a/../b", "mem://host", "mem://?a=b",
		"s3:///nobucket", "s3://b?bogus=1", "s3://b?use_path_style=maybe", "s3://b/a//c", "hdfs://nn/wh",
	} {
		if _, err := fileio.Open(ctx, in); !errors.Is(err, fileio.ErrInvalidURL) {
			t.Errorf("Open(%q): %v, want ErrInvalidURL", in, err)
		}
	}
}

// TestJavaWrittenTable reads a table Java Paimon wrote (testdata fixture,
// read-only on disk).
func TestJavaWrittenTable(t *testing.T) {
	ctx := context.Background()
	fio := openURL(t, "../testdata/paimon-tables/append_09_parquet")
	defer fio.Close()
	if b, err := fio.ReadFile(ctx, "snapshot/LATEST"); err != nil || string(b) != "5" {
		t.Errorf("snapshot/LATEST = %q, %v; want \"5\"", b, err)
	}
	l, err := fio.List(ctx, "snapshot")
	if err != nil {
		t.Fatal(err)
	}
	want := []string{"snapshot/EARLIEST:1", "snapshot/LATEST:1", "snapshot/snapshot-1:506", "snapshot/snapshot-2:506",
		"snapshot/snapshot-3:507", "snapshot/snapshot-4:507", "snapshot/snapshot-5:508"}
	var got []string
	for _, fi := range l {
		got = append(got, fi.Path+":"+strconv.FormatInt(fi.Size, 10))
	}
	if !slices.Equal(got, want) {
		t.Errorf("List(snapshot) = %q, want %q", got, want)
	}
	tbl := fio.Sub("f1=10/bucket-0")
	before := fio.Stats()
	f, err := tbl.Open(ctx, "data-46e27d5b-4850-4d1e-abb6-b3aabbbc08cb-0.parquet")
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	head, tail := make([]byte, 4), make([]byte, 4)
	if _, err := f.ReadAt(head, 0); err != nil {
		t.Fatal(err)
	}
	if _, err := f.ReadAt(tail, f.Size()-4); err != nil {
		t.Fatal(err)
	}
	if f.Size() != 827 || string(head) != "PAR1" || string(tail) != "PAR1" {
		t.Errorf("parquet file: size %d, magic %q...%q; want 827, PAR1...PAR1", f.Size(), head, tail)
	}
	if d := fio.Stats().Since(before); d != (fileio.Stats{Get: 1}) {
		t.Errorf("opening and reading an 827-byte file cost %+v, want 1 get", d)
	}
}

func TestClose(t *testing.T) {
	ctx := context.Background()
	fio := openURL(t, "mem://")
	sub := fio.Sub("t")
	if err := sub.WriteFile(ctx, "x", []byte("x")); err != nil {
		t.Fatal(err)
	}
	f, err := sub.Open(ctx, "x")
	if err != nil {
		t.Fatal(err)
	}
	if err := fio.Close(); err != nil {
		t.Fatal(err)
	}
	if err := fio.Close(); err != nil {
		t.Errorf("second Close: %v", err)
	}
	if _, err := sub.ReadFile(ctx, "x"); !errors.Is(err, fileio.ErrClosed) {
		t.Errorf("ReadFile on a view of a closed FileIO: %v, want ErrClosed", err)
	}
	if _, err := fio.List(ctx, ""); !errors.Is(err, fileio.ErrClosed) {
		t.Errorf("List after Close: %v, want ErrClosed", err)
	}
	// The File read all of its 1 byte at Open; it stays readable.
	b, err := io.ReadAll(f)
	if err != nil || string(b) != "x" {
		t.Errorf("File after FileIO.Close read %q, %v", b, err)
	}
}
