package main

import (
	"strconv"
	"strings"
	"testing"

	"github.com/paimon-go/paimon/internal/fixture"
)

func TestCompactCommand(t *testing.T) {
	dir := fixture.Copy(t, "pk_table_scan_and_read_mor_parquet")
	before := mustRun(t, "cat", "--format", "jsonl", dir)
	// Header plus one line per snapshot: the line count is the next id.
	snaps := strings.Count(mustRun(t, "snapshots", dir), "\n")
	got := mustRun(t, "compact", "--full", dir)
	if want := "committed COMPACT snapshot " + itoa(snaps) + "\n"; got != want {
		t.Fatalf("compact --full printed %q, want %q", got, want)
	}
	if after := mustRun(t, "cat", "--format", "jsonl", dir); after != before {
		t.Errorf("rows changed by compaction:\nbefore:\n%s\nafter:\n%s", before, after)
	}
	last := strings.Split(strings.TrimSpace(mustRun(t, "snapshots", dir)), "\n")
	if l := last[len(last)-1]; !strings.Contains(l, "COMPACT") {
		t.Errorf("last snapshot line %q is not a COMPACT snapshot", l)
	}
	for _, l := range strings.Split(strings.TrimSpace(mustRun(t, "files", dir)), "\n")[1:] {
		if f := strings.Fields(l); f[1] != "5" {
			t.Errorf("file not at level 5 after full compaction: %s", l)
		}
	}
	if got := mustRun(t, "compact", dir); got != "nothing to compact\n" {
		t.Errorf("second compact printed %q, want \"nothing to compact\"", got)
	}
	if _, err := run(t, "compact", "--partition", "nokey", dir); err == nil {
		t.Error("compact --partition nokey: no error")
	}
}

func itoa(n int) string { return strconv.Itoa(n) }
