package compaction_test

import (
	"context"
	"errors"
	"os"
	"path/filepath"
	"slices"
	"testing"

	"github.com/paimon-go/paimon/commit"
	"github.com/paimon-go/paimon/compaction"
	"github.com/paimon-go/paimon/fileio"
	"github.com/paimon-go/paimon/manifest"
)

// TestDiscardExternal: the new files of an increment written to
// data-file.external-paths are reported by their canonical location
// (Java's "file:/abs" _EXTERNAL_PATH becomes "file:///abs"), and
// Result.Discard deletes them there, not in the table. Old code reported
// <bucket>/<name> and left the external file behind.
func TestDiscardExternal(t *testing.T) {
	ctx := context.Background()
	table, ext := t.TempDir(), t.TempDir()
	fio, err := fileio.Open(ctx, "file://"+filepath.ToSlash(table))
	if err != nil {
		t.Fatal(err)
	}
	defer fio.Close()
	out := filepath.Join(ext, "p=1", "bucket-0", "data-new-0.parquet")
	if err := os.MkdirAll(filepath.Dir(out), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(out, []byte("x"), 0o644); err != nil {
		t.Fatal(err)
	}
	loc := "file:" + filepath.ToSlash(out)
	inc := commit.CompactIncrement{
		Before: []manifest.DataFileMeta{{FileName: "data-old-0.parquet"}},
		After: []manifest.DataFileMeta{{FileName: "data-new-0.parquet", ExternalPath: &loc},
			{FileName: "data-in-0.parquet"}},
	}
	got := compaction.NewFiles("p=1/bucket-0", inc)
	want := []string{"file://" + filepath.ToSlash(out), "p=1/bucket-0/data-in-0.parquet"}
	if !slices.Equal(got, want) {
		t.Fatalf("NewFiles %q, want %q", got, want)
	}
	if err := (&compaction.Result{Written: got}).Discard(ctx, fio); err != nil {
		t.Fatal(err)
	}
	if _, err := os.Stat(out); !errors.Is(err, os.ErrNotExist) {
		t.Fatalf("external output after Discard: %v", err)
	}
}
