package main

import (
	"errors"
	"path/filepath"
	"strings"
	"testing"
)

// TestUsageNits: mem:// URLs, --limit 0, empty or repeated --columns are
// usage errors that change nothing; --unset of an option the table does not
// set publishes no schema.
func TestUsageNits(t *testing.T) {
	dir := t.TempDir()
	tbl := filepath.Join(dir, "wh", "db.db", "t")
	mustRun(t, "create", tbl, "--column", "a:INT", "--column", "b:STRING", "--primary-key", "a", "--bucket", "1", "--option", "x=1")
	for _, args := range [][]string{
		{"create", "mem:///x", "--column", "a:INT"},
		{"cat", "MEM://x"},
		{"import", "--limit", "0", tbl, filepath.Join(dir, "none.jsonl")},
		{"cat", "--columns", "", tbl},
		{"cat", "--columns", " , ", tbl},
		{"cat", "--columns", "a,a", tbl},
		{"lookup", "--columns", "b,b", "--key", "a=1", tbl},
		{"tail", "--columns", "", tbl},
	} {
		_, err := run(t, args...)
		var u usageError
		if !errors.As(err, &u) {
			t.Errorf("paimon %q: %v, want a usage error", args, err)
		}
	}
	_, err := run(t, "alter", tbl, "--unset", "nosuch")
	if err == nil || !strings.Contains(err.Error(), `does not set option "nosuch"; nothing published`) {
		t.Errorf("alter --unset nosuch: %v", err)
	}
	out, err := run(t, "schema", tbl)
	if err != nil || !strings.Contains(out, `"id" : 0`) && !strings.Contains(out, `"id": 0`) {
		t.Errorf("schema after the refused alter: %v\n%s", err, out)
	}
	if out, err := run(t, "alter", tbl, "--unset", "x"); err != nil || !strings.Contains(out, "published schema 1 (unset x)") {
		t.Errorf("alter --unset x: %q %v", out, err)
	}
}
