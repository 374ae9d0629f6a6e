package benchstore

import (
	"bytes"
	"context"
	"errors"
	"flag"
	"io"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/paimon-go/paimon/testenv"
)

// marker is the file CreateDatabase writes for database "bench".
const marker = "bench.db/.paimon-database"

// mustExist fails unless path is an existing file or directory.
func mustExist(t *testing.T, path string) {
	t.Helper()
	if _, err := os.Stat(path); err != nil {
		t.Fatalf("%s: %v", path, err)
	}
}

// TestTemporary: the default warehouse is a fresh directory named after the
// program, holding the database, and Close removes it silently.
func TestTemporary(t *testing.T) {
	ctx := context.Background()
	w, err := Open(ctx, "prog", Flags{}, "bench")
	if err != nil {
		t.Fatal(err)
	}
	dir := w.TempDir
	if !strings.HasPrefix(filepath.Base(dir), "prog-") || w.URL != "file://"+dir || w.Kind != KindLocal || !w.Local() {
		t.Fatalf("TempDir %q URL %q Kind %q Local %v", dir, w.URL, w.Kind, w.Local())
	}
	mustExist(t, filepath.Join(dir, marker))
	var log bytes.Buffer
	if err := w.Close(&log); err != nil {
		t.Fatal(err)
	}
	if _, err := os.Stat(dir); !errors.Is(err, os.ErrNotExist) {
		t.Fatalf("after Close, stat %s: %v; want not exist", dir, err)
	}
	if log.Len() != 0 {
		t.Fatalf("Close wrote %q", log.String())
	}
}

// TestKeep: with Keep the temporary directory stays and Close says where.
func TestKeep(t *testing.T) {
	w, err := Open(context.Background(), "prog", Flags{Keep: true}, "bench")
	if err != nil {
		t.Fatal(err)
	}
	dir := w.TempDir
	t.Cleanup(func() { _ = os.RemoveAll(dir) })
	var log bytes.Buffer
	if err := w.Close(&log); err != nil {
		t.Fatal(err)
	}
	mustExist(t, filepath.Join(dir, marker))
	if want := "prog: warehouse kept at " + dir + "\n"; log.String() != want {
		t.Fatalf("Close wrote %q, want %q", log.String(), want)
	}
}

// TestGivenDirectory: a path is made absolute, created, used as the
// warehouse and left in place by Close (Keep or not), without a message.
func TestGivenDirectory(t *testing.T) {
	root := t.TempDir()
	t.Chdir(root)
	w, err := Open(context.Background(), "prog", Flags{Store: "wh/sub"}, "bench")
	if err != nil {
		t.Fatal(err)
	}
	// t.TempDir may sit behind a symbolic link; Abs keeps the name it was given.
	abs := filepath.Join(root, "wh", "sub")
	if w.URL != "file://"+abs || w.TempDir != "" || w.Kind != KindLocal || !w.Local() {
		t.Fatalf("URL %q TempDir %q Kind %q Local %v", w.URL, w.TempDir, w.Kind, w.Local())
	}
	var log bytes.Buffer
	if err := w.Close(&log); err != nil {
		t.Fatal(err)
	}
	mustExist(t, filepath.Join(abs, marker))
	if log.Len() != 0 {
		t.Fatalf("Close wrote %q", log.String())
	}
}

// TestGivenURL: a URL is used as it is; its scheme is the kind.
func TestGivenURL(t *testing.T) {
	ctx := context.Background()
	w, err := Open(ctx, "prog", Flags{Store: "mem://", Keep: true}, "bench")
	if err != nil {
		t.Fatal(err)
	}
	if w.URL != "mem://" || w.Kind != "mem" || !w.Local() || w.TempDir != "" {
		t.Fatalf("URL %q Kind %q Local %v TempDir %q", w.URL, w.Kind, w.Local(), w.TempDir)
	}
	if ok, err := w.FileIO.Exists(ctx, marker); err != nil || !ok {
		t.Fatalf("Exists(%s) = %v, %v", marker, ok, err)
	}
	var log bytes.Buffer
	if err := w.Close(&log); err != nil || log.Len() != 0 {
		t.Fatalf("Close: %v, wrote %q", err, log.String())
	}

	dir := t.TempDir()
	w, err = Open(ctx, "prog", Flags{Store: "file://" + dir}, "bench")
	if err != nil {
		t.Fatal(err)
	}
	if w.URL != "file://"+dir || w.Kind != KindLocal {
		t.Fatalf("URL %q Kind %q", w.URL, w.Kind)
	}
	if err := w.Close(io.Discard); err != nil {
		t.Fatal(err)
	}
	mustExist(t, filepath.Join(dir, marker))
}

// TestOpenErrors: a bad URL and a directory that cannot be created fail
// with the flag or step named, and leave no temporary directory behind.
func TestOpenErrors(t *testing.T) {
	ctx := context.Background()
	if _, err := Open(ctx, "prog", Flags{Store: "ftp://host/wh"}, "bench"); err == nil || !strings.HasPrefix(err.Error(), "open store: ") {
		t.Fatalf("ftp:// URL: %v; want an open store error", err)
	}
	file := filepath.Join(t.TempDir(), "file")
	if err := os.WriteFile(file, nil, 0o644); err != nil {
		t.Fatal(err)
	}
	f := Flags{}
	fs := flag.NewFlagSet("prog", flag.ContinueOnError)
	f.Register(fs)
	if err := fs.Parse([]string{"--dir", filepath.Join(file, "wh")}); err != nil {
		t.Fatal(err)
	}
	_, err := Open(ctx, "prog", f, "bench")
	if err == nil || !strings.HasPrefix(err.Error(), "--dir: ") {
		t.Fatalf("directory below a file: %v; want a --dir error", err)
	}
}

// TestFlags: --store and --dir set the same field, --minio with either is a
// conflict naming the flag given, and the defaults are the zero Flags.
func TestFlags(t *testing.T) {
	parse := func(args ...string) Flags {
		t.Helper()
		var f Flags
		fs := flag.NewFlagSet("prog", flag.ContinueOnError)
		fs.SetOutput(io.Discard)
		f.Register(fs)
		if err := fs.Parse(args); err != nil {
			t.Fatalf("%v: %v", args, err)
		}
		return f
	}
	if f := parse(); f.Store != "" || f.MinIO || f.Keep || f.Check() != nil {
		t.Fatalf("defaults: %+v, Check %v", f, f.Check())
	}
	if f := parse("--dir", "/tmp/x", "--keep"); f.Store != "/tmp/x" || !f.Keep || f.MinIO || f.Check() != nil {
		t.Fatalf("--dir --keep: %+v, Check %v", f, f.Check())
	}
	for _, name := range []string{"store", "dir"} {
		f := parse("--minio", "--"+name, "s3://b")
		err := f.Check()
		want := "--minio and --" + name + " exclude each other"
		if !errors.Is(err, ErrConflict) || err.Error() != want {
			t.Errorf("--minio --%s: Check = %v; want %q wrapping ErrConflict", name, err, want)
		}
	}
	if f := parse("--minio"); !f.MinIO || f.Check() != nil {
		t.Fatalf("--minio: %+v, Check %v", f, f.Check())
	}
}

// TestRedacted: the query (endpoint and client parameters) is dropped.
func TestRedacted(t *testing.T) {
	for _, tc := range []struct{ url, want string }{
		{"s3://b0001?endpoint=http://127.0.0.1:9000&use_path_style=true", "s3://b0001"},
		{"file:///tmp/wh", "file:///tmp/wh"},
	} {
		if got := (&Warehouse{URL: tc.url}).Redacted(); got != tc.want {
			t.Errorf("Redacted(%q) = %q, want %q", tc.url, got, tc.want)
		}
	}
}

// TestMinIO: --minio starts a server with a fresh bucket holding the
// database; Close stops it. Skipped without a MinIO binary (failed when
// CI=true).
func TestMinIO(t *testing.T) {
	if testing.Short() {
		t.Skip("starts MinIO")
	}
	ctx := context.Background()
	w, err := Open(ctx, "prog", Flags{MinIO: true}, "bench")
	if errors.Is(err, testenv.ErrNoBinary) && !strings.EqualFold(os.Getenv("CI"), "true") {
		t.Skip(err)
	}
	if err != nil {
		t.Fatal(err)
	}
	if !strings.HasPrefix(w.URL, "s3://") || w.Kind != KindMinIO || w.Local() || w.TempDir != "" {
		t.Fatalf("URL %q Kind %q Local %v TempDir %q", w.URL, w.Kind, w.Local(), w.TempDir)
	}
	if !strings.HasPrefix(w.Redacted(), "s3://") || strings.Contains(w.Redacted(), "?") {
		t.Fatalf("Redacted %q", w.Redacted())
	}
	if ok, err := w.FileIO.Exists(ctx, marker); err != nil || !ok {
		t.Fatalf("Exists(%s) = %v, %v", marker, ok, err)
	}
	url := w.URL
	if err := w.Close(io.Discard); err != nil {
		t.Fatal(err)
	}
	// The server is gone: a new client cannot reach the bucket.
	w2, err := Open(ctx, "prog", Flags{Store: url}, "bench")
	if err == nil {
		_ = w2.Close(io.Discard)
		t.Fatalf("Open %s after Close succeeded; want the server stopped", url)
	}
}
