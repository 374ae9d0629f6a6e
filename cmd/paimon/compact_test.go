package main

import (
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"

	"github.com/paimon-go/paimon/commit"
	"github.com/paimon-go/paimon/fileio"
	"github.com/paimon-go/paimon/internal/fixture"
	"github.com/paimon-go/paimon/manifest"
	"github.com/paimon-go/paimon/snapshot"
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
	var u usageError
	_, err := run(t, "compact", "--partition", "zz=1", dir)
	if want := `--partition "zz=1": "zz" is not a partition key of the table (partition keys [f1])`; !errors.As(err, &u) ||
		!errors.Is(err, commit.ErrInvalidArgument) || err.Error() != want {
		t.Errorf("compact --partition zz=1: err = %v, want usage error %q", err, want)
	}
}

func itoa(n int) string { return strconv.Itoa(n) }

// TestCompactManifestsCommand: three imports into a primary-key table that
// fully compacts on every commit give six snapshots (APPEND, COMPACT per
// import), each adding one delta manifest; none is merged (fewer than
// manifest.merge-min-count = 30), so snapshot 6 has 5 base + 1 delta
// manifests. compact --manifests nets them into one manifest holding the
// single live file, as one COMPACT snapshot with an empty delta list.
func TestCompactManifestsCommand(t *testing.T) {
	ctx := context.Background()
	dir := t.TempDir()
	tbl := filepath.Join(dir, "t")
	mustRun(t, "create", tbl, "--column", "a:INT", "--column", "b:STRING", "--primary-key", "a",
		"--bucket", "1", "--option", "full-compaction.delta-commits=1")
	for i, rows := range []string{`{"a":1,"b":"x"}`, `{"a":2,"b":"y"}`, `{"a":1,"b":"z"}`} {
		in := filepath.Join(dir, fmt.Sprintf("in%d.jsonl", i))
		if err := os.WriteFile(in, []byte(rows+"\n"), 0o644); err != nil {
			t.Fatal(err)
		}
		if got, want := mustRun(t, "import", tbl, in), fmt.Sprintf("imported 1 rows in 1 commits (snapshots %d..%d)\n", 2*i+1, 2*i+2); got != want {
			t.Fatalf("import %d printed %q, want %q", i, got, want)
		}
	}
	before := mustRun(t, "cat", "--format", "jsonl", tbl)
	if want := "{\"a\":1,\"b\":\"z\"}\n{\"a\":2,\"b\":\"y\"}\n"; before != want {
		t.Fatalf("rows before: %q, want %q", before, want)
	}
	for _, args := range [][]string{
		{"compact", "--manifests", "--full", tbl},
		{"compact", "--manifests", "--partition", "a=1", tbl},
	} {
		var u usageError
		if _, err := run(t, args...); !errors.As(err, &u) {
			t.Errorf("paimon %v: err = %v, want a usage error", args, err)
		}
	}
	if got, want := mustRun(t, "compact", "--manifests", tbl), "snapshot 7: manifests compacted (6 manifests -> 1)\n"; got != want {
		t.Fatalf("compact --manifests printed %q, want %q", got, want)
	}
	fio, err := fileio.Open(ctx, tbl)
	if err != nil {
		t.Fatal(err)
	}
	defer fio.Close()
	sm := snapshot.NewManager(fio)
	s7, err := sm.Get(ctx, 7)
	if err != nil {
		t.Fatal(err)
	}
	s6, err := sm.Get(ctx, 6)
	if err != nil {
		t.Fatal(err)
	}
	if s7.CommitKind != snapshot.KindCompact || s7.DeltaRecordCount != 0 || s7.TotalRecordCount != s6.TotalRecordCount || s7.TotalRecordCount != 2 {
		t.Errorf("snapshot 7: kind %s, delta records %d, total records %d (snapshot 6: %d), want COMPACT, 0, 2",
			s7.CommitKind, s7.DeltaRecordCount, s7.TotalRecordCount, s6.TotalRecordCount)
	}
	base, err := manifest.ReadManifestList(ctx, fio, s7.BaseManifestList)
	if err != nil {
		t.Fatal(err)
	}
	delta, err := manifest.ReadManifestList(ctx, fio, s7.DeltaManifestList)
	if err != nil {
		t.Fatal(err)
	}
	if len(base) != 1 || len(delta) != 0 {
		t.Fatalf("snapshot 7 lists %d base and %d delta manifests, want 1 and 0", len(base), len(delta))
	}
	entries, err := manifest.ReadManifest(ctx, fio, base[0].FileName)
	if err != nil {
		t.Fatal(err)
	}
	// The one live file: `files` lists it as <bucket dir>/<name>.
	fl := strings.Split(strings.TrimSpace(mustRun(t, "files", tbl)), "\n")
	if len(fl) != 2 || len(entries) != 1 || entries[0].Kind != manifest.Add ||
		"bucket-0/"+entries[0].File.FileName != strings.Fields(fl[1])[0] || entries[0].File.Level != 5 {
		t.Errorf("manifest entries %+v, live files:\n%s", entries, strings.Join(fl, "\n"))
	}
	if after := mustRun(t, "cat", "--format", "jsonl", tbl); after != before {
		t.Errorf("rows changed: %q, want %q", after, before)
	}
	if got := mustRun(t, "compact", "--manifests", tbl); got != "nothing to compact\n" {
		t.Errorf("second compact --manifests printed %q", got)
	}
	empty := filepath.Join(dir, "empty")
	mustRun(t, "create", empty, "--column", "a:INT")
	if got := mustRun(t, "compact", "--manifests", empty); got != "nothing to compact\n" {
		t.Errorf("compact --manifests of a table without snapshots printed %q", got)
	}
}
