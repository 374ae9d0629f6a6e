package main

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"sort"
	"strings"
	"testing"

	"github.com/paimon-go/paimon"
	"github.com/paimon-go/paimon/internal/fixture"
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
