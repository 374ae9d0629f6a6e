package main

import (
	"os"
	"path/filepath"
	"slices"
	"testing"
)

// TestImportCreateDynamicBucket: `import --create --primary-key` without
// --bucket creates a table without a "bucket" option, which Java reads as
// bucket = -1, a dynamic-bucket primary-key table, and writes it: the last
// row of each key is read back, and the keys were spread over buckets of
// dynamic-bucket.target-row-num rows with one HASH index file each.
func TestImportCreateDynamicBucket(t *testing.T) {
	dir := t.TempDir()
	in := filepath.Join(dir, "in.jsonl")
	rows := `{"id":1,"v":"a"}` + "\n" + `{"id":2,"v":"b"}` + "\n" + `{"id":3,"v":"c"}` + "\n" + `{"id":1,"v":"d"}` + "\n"
	if err := os.WriteFile(in, []byte(rows), 0o644); err != nil {
		t.Fatal(err)
	}
	tbl := filepath.Join(dir, "t")
	if out := mustRun(t, "import", "--create", "--column", "id:INT", "--column", "v:STRING", "--primary-key", "id",
		"--option", "dynamic-bucket.target-row-num=2", tbl, in); out != "imported 4 rows in 1 commits (snapshot 1)\n" {
		t.Errorf("import output %q", out)
	}
	if ts := readSchema(t, tbl); ts.Options["bucket"] != "" {
		t.Errorf("bucket option %q, want none (Java's default -1)", ts.Options["bucket"])
	}
	got := sortedLines(mustRun(t, "cat", "--format", "jsonl", tbl))
	want := []string{`{"id":1,"v":"d"}`, `{"id":2,"v":"b"}`, `{"id":3,"v":"c"}`}
	if !slices.Equal(got, want) {
		t.Errorf("cat:\n got %q\nwant %q", got, want)
	}
	buckets, _ := filepath.Glob(filepath.Join(tbl, "bucket-*"))
	index, _ := filepath.Glob(filepath.Join(tbl, "index", "index-*"))
	if len(buckets) != 2 || len(index) != 2 {
		t.Errorf("bucket directories %v and index files %v, want 2 of each", buckets, index)
	}
}
