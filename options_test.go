package paimon_test

import (
	"context"
	"encoding/json"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/apache/arrow-go/v18/arrow"

	"github.com/paimon-go/paimon"
	"github.com/paimon-go/paimon/catalog"
	"github.com/paimon-go/paimon/internal/fixture"
	"github.com/paimon-go/paimon/reader"
	"github.com/paimon-go/paimon/schema"
)

// setSchemaOptions sets options in the schema file at path (a Java-written
// schema JSON), leaving every other member as it is.
func setSchemaOptions(t *testing.T, path string, opts map[string]string) {
	t.Helper()
	raw, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	var doc map[string]any
	if err := json.Unmarshal(raw, &doc); err != nil {
		t.Fatal(err)
	}
	o, _ := doc["options"].(map[string]any)
	if o == nil {
		o = map[string]any{}
	}
	for k, v := range opts {
		o[k] = v
	}
	doc["options"] = o
	out, err := json.MarshalIndent(doc, "", "  ")
	if err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(path, out, 0o644); err != nil {
		t.Fatal(err)
	}
}

// readCase opens dir (on the case's branch) and reads the fixture case,
// which must have no row, partition or bucket filter, comparing the rows
// with the expectation transcribed from EXPECTED.md.
func readCase(t *testing.T, dir string, c fixture.Case) {
	t.Helper()
	ctx := context.Background()
	var topts []paimon.TableOption
	if c.Branch != "" {
		topts = append(topts, paimon.WithBranch(c.Branch))
	}
	tb, err := paimon.OpenTable(ctx, dir, topts...)
	if err != nil {
		t.Fatalf("OpenTable: %v", err)
	}
	defer tb.Close()
	opts := []reader.Option{reader.WithColumns(c.Columns...)}
	if c.Snapshot != nil {
		opts = append(opts, reader.WithSnapshot(*c.Snapshot))
	}
	if c.AllLevels {
		opts = append(opts, reader.WithAllLevels())
	}
	plan, err := tb.NewScan(opts...).Plan(ctx)
	if err != nil {
		t.Fatal(err)
	}
	var recs []arrow.RecordBatch
	for rec, err := range plan.Records(ctx) {
		if err != nil {
			t.Fatal(err)
		}
		recs = append(recs, rec)
	}
	defer func() {
		for _, r := range recs {
			r.Release()
		}
	}()
	fixture.AssertRecords(t, c, recs, plan.Fields)
}

// TestOpenJavaFixtures: every Java-written fixture table opens on its main
// branch and on each of its branches (their options pass
// catalog.ValidateOptions), and its unfiltered cases read the expected rows.
func TestOpenJavaFixtures(t *testing.T) {
	ctx := context.Background()
	for _, ft := range fixture.Tables(t) {
		t.Run(ft.Name, func(t *testing.T) {
			branches := []string{""}
			if ents, err := os.ReadDir(filepath.Join(ft.Dir, "branch")); err == nil {
				for _, e := range ents {
					if name, ok := strings.CutPrefix(e.Name(), "branch-"); ok && e.IsDir() {
						branches = append(branches, name)
					}
				}
			}
			for _, b := range branches {
				var topts []paimon.TableOption
				if b != "" {
					topts = append(topts, paimon.WithBranch(b))
				}
				tb, err := paimon.OpenTable(ctx, ft.Dir, topts...)
				if err != nil {
					t.Fatalf("branch %q: %v", b, err)
				}
				tb.Close()
			}
			for _, c := range ft.Cases {
				if c.Where != "" || c.Partition != nil || c.Bucket != nil {
					continue
				}
				t.Run(c.Name, func(t *testing.T) { readCase(t, ft.Dir, c) })
			}
		})
	}
}

// TestOpenValidatesOptions edits the schema files of Java-written tables:
// malformed option values make OpenTable fail with catalog.ErrInvalidSchema
// and schema.ErrInvalidOption, naming the option and the value (on the main
// branch and on a branch, whose main branch still opens); well-formed
// options of features paimon-go does not implement, and unknown keys, open
// and read the same rows.
func TestOpenValidatesOptions(t *testing.T) {
	ctx := context.Background()
	for _, tc := range []struct {
		opts map[string]string
		want string
	}{
		{map[string]string{"num-sorted-run.compaction-trigger": "abc"}, `num-sorted-run.compaction-trigger="abc"`},
		{map[string]string{"snapshot.num-retained.min": "0"}, "snapshot.num-retained.min=0"},
		{map[string]string{"snapshot.time-retained": "1 fortnight"}, `snapshot.time-retained="1 fortnight"`},
		{map[string]string{"write-buffer-size": "lots"}, `write-buffer-size="lots"`},
		{map[string]string{"commit.force-compact": "yes"}, `commit.force-compact="yes"`},
		{map[string]string{"changelog-producer": "sometimes"}, `changelog-producer="sometimes"`},
		{map[string]string{"bucket": "two"}, `bucket="two"`},
	} {
		dir := fixture.Copy(t, "pk_table_scan_and_read_mor_parquet")
		setSchemaOptions(t, filepath.Join(dir, "schema", "schema-0"), tc.opts)
		_, err := paimon.OpenTable(ctx, dir)
		if !errors.Is(err, catalog.ErrInvalidSchema) || !errors.Is(err, schema.ErrInvalidOption) || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("%v: OpenTable = %v; want catalog.ErrInvalidSchema and schema.ErrInvalidOption naming %s", tc.opts, err, tc.want)
		}
	}

	// Valid options Java accepts, of features not implemented here.
	dir := fixture.Copy(t, "pk_table_scan_and_read_mor_parquet")
	setSchemaOptions(t, filepath.Join(dir, "schema", "schema-0"), map[string]string{
		"changelog-producer":          "lookup",
		"lookup-compact":              "gentle",
		"lookup-compact.max-interval": "3",
		"some.future-option":          "whatever",
		"snapshot.num-retained.min":   "1",
		"snapshot.time-retained":      "30 min",
	})
	for _, name := range []string{"latest", "snapshot5", "snapshot4"} {
		readCase(t, dir, fixture.Lookup(t, "pk_table_scan_and_read_mor_parquet", name))
	}

	// A malformed option on a branch: the branch is refused, main opens.
	dir = fixture.Copy(t, "append_table_with_rt_branch_parquet")
	setSchemaOptions(t, filepath.Join(dir, "branch", "branch-rt", "schema", "schema-1"), map[string]string{"num-levels": "1"})
	if _, err := paimon.OpenTable(ctx, dir, paimon.WithBranch("rt")); !errors.Is(err, catalog.ErrInvalidSchema) ||
		!errors.Is(err, schema.ErrInvalidOption) || !strings.Contains(err.Error(), "num-levels=1") {
		t.Errorf("branch with num-levels=1: %v", err)
	}
	readCase(t, dir, fixture.Lookup(t, "append_table_with_rt_branch_parquet", "latest"))
}
