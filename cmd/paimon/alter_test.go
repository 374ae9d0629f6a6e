package main

import (
	"os"
	"path/filepath"
	"testing"
)

// TestAlterTypeCommand changes column types with alter --type, including
// Java's lossy explicit casts, and reads the old rows through them.
func TestAlterTypeCommand(t *testing.T) {
	dir := t.TempDir()
	tbl := filepath.Join(dir, "t")
	mustRun(t, "create", tbl, "--column", "id:INT", "--column", "i:BIGINT", "--column", "n:STRING", "--column", "p:STRING",
		"--partition", "p")
	in := filepath.Join(dir, "in.jsonl")
	if err := os.WriteFile(in, []byte(`{"id":1,"i":4294967297,"n":"42","p":"a"}`+"\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	mustRun(t, "import", tbl, in)
	// As in Java, the NULL to NOT NULL switch is read from the current
	// options, so it is set by an earlier alter.
	mustRun(t, "alter", tbl, "--set", "alter-column-null-to-not-null.disabled=false")
	if got, want := mustRun(t, "alter", tbl, "--type", "i=INT", "--type", "n = INT NOT NULL"),
		"published schema 2 (type i=INT; type n=INT NOT NULL)\n"; got != want {
		t.Errorf("alter printed %q, want %q", got, want)
	}
	if got, want := mustRun(t, "cat", "--format", "jsonl", tbl), `{"id":1,"i":1,"n":42,"p":"a"}`+"\n"; got != want {
		t.Errorf("rows after alter: %q, want %q", got, want)
	}
	for _, tc := range []struct {
		args []string
		want string
	}{
		{[]string{"alter", tbl, "--type", "i"}, `--type "i": want column=TYPE`},
		{[]string{"alter", tbl, "--type", "i=INT", "--type", "i=BIGINT"}, `column "i" is given twice`},
	} {
		wantUsage(t, tc.want, tc.args...)
	}
	if _, err := run(t, "alter", tbl, "--type", "i=WHATEVER"); err == nil {
		t.Error("alter --type i=WHATEVER succeeded")
	}
	wantError(t, `catalog: unsupported schema change: cannot update partition column "p"`, "alter", tbl, "--type", "p=INT")
	wantError(t, `catalog: unsupported schema change: column "id": INT cannot be converted to DATE without losing information`,
		"alter", tbl, "--type", "id=DATE")
}
