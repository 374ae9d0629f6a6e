package main

import (
	"bytes"
	"context"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/paimon-go/paimon/fileio"
	"github.com/paimon-go/paimon/progress"
	"github.com/paimon-go/paimon/snapshot"
)

// TestCLIDamagedHints runs the CLI, as separate processes, on a table whose
// hints lie and whose realtime.offsets property names the schema file: the
// LATEST hint names a missing snapshot (cat failed, import reported "no
// snapshot"), the EARLIEST hint names a missing snapshot above the latest
// (import hung: each commit took its snapshot back as "created in an
// expired gap"; the deadline ends it), and the property made expire delete
// schema/schema-0. cat, import, expire and rollback must all
// work, within the test's deadline, and leave the schema in place.
func TestCLIDamagedHints(t *testing.T) {
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	dir := t.TempDir()
	tbl := filepath.Join(dir, "wh", "db.db", "t")
	cliOK := func(args ...string) string {
		t.Helper()
		out, err := cli(ctx, dir, args...)
		if err != nil {
			t.Fatalf("paimon %s: %v (stdout %q)", strings.Join(args, " "), err, out)
		}
		return out
	}
	input := func(name, rows string) string {
		p := filepath.Join(dir, name)
		if err := os.WriteFile(p, []byte(rows), 0o644); err != nil {
			t.Fatal(err)
		}
		return p
	}
	cliOK("create", tbl, "--column", "id:BIGINT")
	for _, id := range []string{"1", "2", "3"} {
		cliOK("import", tbl, input("in"+id+".jsonl", `{"id":`+id+"}\n"))
	}

	fio, err := fileio.Open(ctx, tbl)
	if err != nil {
		t.Fatal(err)
	}
	defer fio.Close()
	sm := snapshot.NewManager(fio)
	s1, err := sm.Get(ctx, 1)
	if err != nil {
		t.Fatal(err)
	}
	if s1.Properties == nil {
		s1.Properties = map[string]string{}
	}
	s1.Properties[progress.Property] = progress.Location(fio, "schema/schema-0")
	data, err := s1.Encode()
	if err != nil {
		t.Fatal(err)
	}
	for p, content := range map[string]string{sm.Path(1): string(data), "snapshot/LATEST": "9", "snapshot/EARLIEST": "7"} {
		if err := fio.WriteFile(ctx, p, []byte(content)); err != nil {
			t.Fatal(err)
		}
	}

	if got, want := cliOK("import", tbl, input("in4.jsonl", `{"id":4}`+"\n")), "imported 1 rows in 1 commits (snapshot 4)\n"; got != want {
		t.Fatalf("import: %q, want %q", got, want)
	}
	if got, want := sortedLines(cliOK("cat", "--format", "jsonl", tbl)), []string{`{"id":1}`, `{"id":2}`, `{"id":3}`, `{"id":4}`}; !slices.Equal(got, want) {
		t.Fatalf("cat: %v, want %v", got, want)
	}
	cmd := exec.CommandContext(ctx, os.Args[0], "expire", "--retain-min", "1", "--older-than", "0s", tbl)
	cmd.Env = append(os.Environ(), cliEnv+"=1")
	var stdout, stderr bytes.Buffer
	cmd.Stdout, cmd.Stderr = &stdout, &stderr
	if err := cmd.Run(); err != nil {
		t.Fatalf("paimon expire: %v: %s", err, stderr.String())
	}
	if out := stdout.String(); !strings.HasSuffix(out, "expired 3 snapshots (1 to 3); earliest snapshot is 4\n") || strings.Contains(out, "schema") {
		t.Fatalf("expire printed %q", out)
	}
	if got, want := stderr.String(), "warning: skipped schema/schema-0: not an offsets file\n"; got != want {
		t.Fatalf("expire warned %q, want %q", got, want)
	}
	if ok, err := fio.Exists(ctx, "schema/schema-0"); err != nil || !ok {
		t.Fatalf("schema/schema-0 after expire: exists %v, %v", ok, err)
	}
	if got, want := cliOK("import", tbl, input("in5.jsonl", `{"id":5}`+"\n")), "imported 1 rows in 1 commits (snapshot 5)\n"; got != want {
		t.Fatalf("import: %q, want %q", got, want)
	}
	if got, want := cliOK("rollback", "--to", "4", tbl), "removed snapshot 5\nrolled back to snapshot 4\n"; got != want {
		t.Fatalf("rollback: %q, want %q", got, want)
	}
	if got, want := sortedLines(cliOK("cat", "--format", "jsonl", tbl)), []string{`{"id":1}`, `{"id":2}`, `{"id":3}`, `{"id":4}`}; !slices.Equal(got, want) {
		t.Fatalf("cat after rollback: %v, want %v", got, want)
	}
	for name, want := range map[string]string{"LATEST": "4", "EARLIEST": "4"} {
		if got, err := fio.ReadFile(ctx, "snapshot/"+name); err != nil || string(got) != want {
			t.Errorf("%s = %q, %v; want %s", name, got, err, want)
		}
	}
}
