package main

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// TestImportCompactORC: a primary-key table created with file.format=orc
// (as Spark and Flink users create them) takes imports and a full
// compaction; every data file is ORC and cat prints the merged rows.
func TestImportCompactORC(t *testing.T) {
	dir := t.TempDir()
	tbl := filepath.Join(dir, "t")
	mustRun(t, "create", tbl, "--column", "a:INT", "--column", "b:STRING", "--column", "d:DECIMAL(10,2)",
		"--primary-key", "a", "--bucket", "1", "--option", "file.format=orc")
	for i, rows := range []string{
		"{\"a\":1,\"b\":\"x\",\"d\":\"1.50\"}\n{\"a\":2,\"b\":null,\"d\":\"-2.00\"}\n",
		"{\"a\":1,\"b\":\"z\",\"d\":null}\n{\"a\":3,\"b\":\"w\",\"d\":\"0.01\"}\n",
	} {
		in := filepath.Join(dir, "in"+itoa(i)+".jsonl")
		if err := os.WriteFile(in, []byte(rows), 0o644); err != nil {
			t.Fatal(err)
		}
		mustRun(t, "import", tbl, in)
	}
	want := "{\"a\":1,\"b\":\"z\",\"d\":null}\n{\"a\":2,\"b\":null,\"d\":\"-2.00\"}\n{\"a\":3,\"b\":\"w\",\"d\":\"0.01\"}\n"
	if got := mustRun(t, "cat", "--format", "jsonl", tbl); got != want {
		t.Fatalf("rows before compaction:\n%s\nwant\n%s", got, want)
	}
	mustRun(t, "compact", "--full", tbl)
	if got := mustRun(t, "cat", "--format", "jsonl", tbl); got != want {
		t.Fatalf("rows after compaction:\n%s\nwant\n%s", got, want)
	}
	files, err := os.ReadDir(filepath.Join(tbl, "bucket-0"))
	if err != nil {
		t.Fatal(err)
	}
	if len(files) < 3 {
		t.Fatalf("%d data files", len(files))
	}
	for _, f := range files {
		if !strings.HasSuffix(f.Name(), ".orc") {
			t.Errorf("data file %s is not ORC", f.Name())
		}
	}
}
