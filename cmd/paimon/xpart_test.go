package main

import (
	"os"
	"path/filepath"
	"slices"
	"testing"
)

// TestImportCreateCrossPartition: `import --create --primary-key id
// --partition dt` (the primary key lacks the partition field, no --bucket)
// creates a cross-partition upsert table (bucket = -1) and writes it: a key
// given in another partition moves there, within one import and in a
// second import that bootstraps its key index from the table.
func TestImportCreateCrossPartition(t *testing.T) {
	dir := t.TempDir()
	in := filepath.Join(dir, "in.jsonl")
	rows := `{"id":1,"dt":"a","v":"x"}` + "\n" + `{"id":2,"dt":"a","v":"y"}` + "\n" + `{"id":1,"dt":"b","v":"z"}` + "\n"
	if err := os.WriteFile(in, []byte(rows), 0o644); err != nil {
		t.Fatal(err)
	}
	tbl := filepath.Join(dir, "t")
	if out := mustRun(t, "import", "--create", "--column", "id:INT", "--column", "dt:STRING", "--column", "v:STRING",
		"--primary-key", "id", "--partition", "dt", tbl, in); out != "imported 3 rows in 1 commits (snapshot 1)\n" {
		t.Errorf("import output %q", out)
	}
	got := sortedLines(mustRun(t, "cat", "--format", "jsonl", tbl))
	want := []string{`{"id":1,"dt":"b","v":"z"}`, `{"id":2,"dt":"a","v":"y"}`}
	if !slices.Equal(got, want) {
		t.Errorf("cat after import 1:\n got %q\nwant %q", got, want)
	}
	in2 := filepath.Join(dir, "in2.jsonl")
	if err := os.WriteFile(in2, []byte(`{"id":2,"dt":"c","v":"w"}`+"\n"+`{"id":3,"dt":"b","v":"u"}`+"\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	mustRun(t, "import", tbl, in2)
	got = sortedLines(mustRun(t, "cat", "--format", "jsonl", tbl))
	want = []string{`{"id":1,"dt":"b","v":"z"}`, `{"id":2,"dt":"c","v":"w"}`, `{"id":3,"dt":"b","v":"u"}`}
	if !slices.Equal(got, want) {
		t.Errorf("cat after import 2:\n got %q\nwant %q", got, want)
	}
}
