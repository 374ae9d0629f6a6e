package fileio_test

import (
	"context"
	"errors"
	"os"
	"path/filepath"
	"testing"

	"github.com/paimon-go/paimon/fileio"
)

// TestOpenLocation: Java's external data-file locations ("file:/abs/f",
// "file:///abs/f", "/abs/f") open outside the FileIO's root; a location
// below the root is served by the FileIO itself; relative, query-carrying
// and unknown-scheme locations wrap ErrInvalidURL.
func TestOpenLocation(t *testing.T) {
	ctx := context.Background()
	root, ext := t.TempDir(), t.TempDir()
	if err := os.MkdirAll(filepath.Join(ext, "p=1", "bucket-0"), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(ext, "p=1", "bucket-0", "f.parquet"), []byte("ext"), 0o644); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(root, "in"), []byte("root"), 0o644); err != nil {
		t.Fatal(err)
	}
	fio, err := fileio.Open(ctx, root)
	if err != nil {
		t.Fatal(err)
	}
	defer fio.Close()
	slash := filepath.ToSlash(ext) + "/p=1/bucket-0/f.parquet"
	for _, loc := range []string{"file:" + slash, "file://" + slash, slash} {
		got, p, done, err := fio.OpenLocation(ctx, loc)
		if err != nil {
			t.Fatalf("%s: %v", loc, err)
		}
		if got == fio || p != "f.parquet" {
			t.Fatalf("%s: same FileIO %v, path %q; want a new FileIO and f.parquet", loc, got == fio, p)
		}
		b, err := got.ReadFile(ctx, p)
		if err != nil || string(b) != "ext" {
			t.Fatalf("%s: read %q, %v", loc, b, err)
		}
		if err := done(); err != nil {
			t.Fatal(err)
		}
	}
	got, p, done, err := fio.OpenLocation(ctx, "file:"+filepath.ToSlash(root)+"/in")
	if err != nil || got != fio || p != "in" {
		t.Fatalf("location in root: same %v, path %q, %v", got == fio, p, err)
	}
	_ = done()
	for _, loc := range []string{"rel/f", "file:rel/f", "hdfs://nn/x/f", "file:///x/f?a=b", "file:///x/../f", "s3:///k"} {
		if _, _, _, err := fio.OpenLocation(ctx, loc); !errors.Is(err, fileio.ErrInvalidURL) {
			t.Fatalf("%s: err %v, want ErrInvalidURL", loc, err)
		}
	}
}
