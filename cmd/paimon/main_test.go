package main

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"sort"
	"strings"
	"testing"

	"github.com/paimon-go/paimon"
	"github.com/paimon-go/paimon/internal/fixture"
	"github.com/paimon-go/paimon/snapshot"
)

// run executes the CLI in-process and returns stdout and the error.
func run(t *testing.T, args ...string) (string, error) {
	t.Helper()
	var out bytes.Buffer
	root := newRoot(&out)
	root.SetArgs(args)
	root.SetErr(&bytes.Buffer{})
	err := root.ExecuteContext(context.Background())
	return out.String(), err
}

// TestCatFixtures checks `paimon cat --format jsonl` against every stated
// read of every fixture table.
func TestCatFixtures(t *testing.T) {
	for _, tbl := range fixture.Tables(t) {
		for _, c := range tbl.Cases {
			t.Run(tbl.Name+"/"+c.Name, func(t *testing.T) {
				args := []string{"cat", "--format", "jsonl"}
				if c.Snapshot != nil {
					args = append(args, "--snapshot", fmt.Sprint(*c.Snapshot))
				}
				if c.Branch != "" {
					args = append(args, "--branch", c.Branch)
				}
				if c.AllLevels {
					args = append(args, "--all-levels")
				}
				if len(c.Columns) > 0 {
					args = append(args, "--columns", strings.Join(c.Columns, ","))
				}
				var terms []string
				if c.Where != "" {
					terms = append(terms, "("+c.Where+")")
				}
				keys := make([]string, 0, len(c.Partition))
				for k := range c.Partition {
					keys = append(keys, k)
				}
				sort.Strings(keys)
				for _, k := range keys {
					terms = append(terms, k+" = "+c.Partition[k])
				}
				if len(terms) > 0 {
					args = append(args, "--where", strings.Join(terms, " AND "))
				}
				if c.Bucket != nil {
					args = append(args, "--bucket", fmt.Sprint(*c.Bucket))
				}
				out, err := run(t, append(args, tbl.Dir)...)
				if err != nil {
					t.Fatalf("paimon %s: %v", strings.Join(args, " "), err)
				}
				fixture.AssertJSONL(t, c, []byte(out))
			})
		}
	}
}

func TestCatMissingTable(t *testing.T) {
	_, err := run(t, "cat", t.TempDir())
	if !errors.Is(err, paimon.ErrTableNotExist) {
		t.Fatalf("err = %v, want ErrTableNotExist", err)
	}
}

func TestUsageErrors(t *testing.T) {
	for _, args := range [][]string{
		{"cat"},
		{"cat", "a", "b"},
		{"cat", "--format", "xml", "x"},
		{"cat", "--no-such-flag", "x"},
		{"cat", "--snapshot", "0", fixture.Dir(t, "pk_09_parquet")},
		{"cat", "--snapshot", "-1", fixture.Dir(t, "pk_09_parquet")},
		{"cat", "--snapshot", "2", "--tag", "1", fixture.Dir(t, "pk_09_parquet")},
	} {
		_, err := run(t, args...)
		var u usageError
		if !errors.As(err, &u) {
			t.Errorf("paimon %v: err = %v, want a usage error", args, err)
		}
	}
}

// TestCatEmptyResultPrintsHeader: a read with no rows still prints the
// header in csv and table formats (and nothing in jsonl).
func TestCatEmptyResultPrintsHeader(t *testing.T) {
	dir := fixture.Dir(t, "pk_table_scan_and_read_dv_orc")
	for format, want := range map[string]string{
		"csv":   "f0,f1,f2,f3\n",
		"table": "f0 | f1 | f2 | f3\n---+----+----+---\n(0 rows)\n",
		"jsonl": "",
	} {
		out, err := run(t, "cat", "--format", format, "--tag", "1", dir)
		if err != nil {
			t.Fatalf("%s: %v", format, err)
		}
		if out != want {
			t.Errorf("%s: output %q, want %q", format, out, want)
		}
	}
}

// TestScanSnapshotChecks: --snapshot below the earliest snapshot (expired,
// also when an interrupted expiration left its snapshot file behind) or
// above the latest, and a missing --tag, are one clear error matching
// snapshot.ErrNotFound.
func TestScanSnapshotChecks(t *testing.T) {
	dir := fixture.Copy(t, "pk_table_scan_and_read_dv_parquet")
	if got := mustRun(t, "expire", "--retain-min", "3", dir); !strings.HasSuffix(got, "expired 3 snapshots (1 to 3); earliest snapshot is 4\n") {
		t.Fatalf("expire printed:\n%s", got)
	}
	// Snapshot file 2 back below EARLIEST, its manifest lists gone.
	data, err := os.ReadFile(filepath.Join(fixture.Dir(t, "pk_table_scan_and_read_dv_parquet"), "snapshot", "snapshot-2"))
	if err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(dir, "snapshot", "snapshot-2"), data, 0o644); err != nil {
		t.Fatal(err)
	}
	for _, tc := range []struct {
		args []string
		want string
	}{
		{[]string{"cat", "--snapshot", "1"}, "snapshot 1 is expired (earliest is 4)"},
		{[]string{"cat", "--snapshot", "2"}, "snapshot 2 is expired (earliest is 4)"},
		{[]string{"files", "--snapshot", "3"}, "snapshot 3 is expired (earliest is 4)"},
		{[]string{"cat", "--snapshot", "7"}, "snapshot 7 does not exist (latest is 6)"},
		{[]string{"cat", "--tag", "nope"}, `tag "nope" does not exist`},
	} {
		_, err := run(t, append(tc.args, dir)...)
		if err == nil || err.Error() != tc.want || !errors.Is(err, snapshot.ErrNotFound) {
			t.Errorf("paimon %v: err = %v, want %q matching snapshot.ErrNotFound", tc.args, err, tc.want)
		}
	}
	c := fixture.Lookup(t, "pk_table_scan_and_read_dv_parquet", "snapshot4_all_levels")
	fixture.AssertJSONL(t, c, []byte(mustRun(t, "cat", "--format", "jsonl", "--all-levels", "--snapshot", "4", dir)))
	empty := filepath.Join(t.TempDir(), "t")
	mustRun(t, "create", empty, "--column", "a:INT")
	if _, err := run(t, "cat", "--snapshot", "1", empty); err == nil || err.Error() != "snapshot 1 does not exist (the table has no snapshots)" {
		t.Errorf("cat --snapshot 1 of an empty table: %v", err)
	}
}

// TestOpenErrors: a missing table or branch is one line naming the URL.
func TestOpenErrors(t *testing.T) {
	missing := filepath.Join(t.TempDir(), "nope")
	dir := fixture.Dir(t, "pk_table_scan_and_read_dv_parquet")
	for _, tc := range []struct {
		args []string
		want string
	}{
		{[]string{"snapshots", missing}, "table " + missing + " does not exist (no schema file)"},
		{[]string{"expire", missing}, "table " + missing + " does not exist (no schema file)"},
		{[]string{"cat", "--branch", "b1", dir}, "table " + dir + " has no branch \"b1\""},
		{[]string{"tag", "list", "--branch", "b1", dir}, "table " + dir + " has no branch \"b1\""},
	} {
		_, err := run(t, tc.args...)
		if err == nil || err.Error() != tc.want || !errors.Is(err, paimon.ErrTableNotExist) {
			t.Errorf("paimon %v: err = %v, want %q matching ErrTableNotExist", tc.args, err, tc.want)
		}
	}
}
