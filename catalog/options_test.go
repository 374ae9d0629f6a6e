package catalog

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"strings"
	"testing"

	"github.com/paimon-go/paimon/fileio"
	"github.com/paimon-go/paimon/schema"
	"github.com/paimon-go/paimon/types"
)

// writeSchemaWithOptions publishes schema-<id> of the table at root as a copy
// of schema-0's JSON with the extra options set, as a table written by
// another engine (or edited by hand) would have it. Only the "id" and
// "options" members change; everything else is Java's bytes.
func writeSchemaWithOptions(t *testing.T, f *fileio.FileIO, root string, id int64, extra map[string]string) {
	t.Helper()
	ctx := context.Background()
	raw, err := f.ReadFile(ctx, root+"/schema/schema-0")
	if err != nil {
		t.Fatal(err)
	}
	var doc map[string]any
	if err := json.Unmarshal(raw, &doc); err != nil {
		t.Fatal(err)
	}
	opts, _ := doc["options"].(map[string]any)
	if opts == nil {
		opts = map[string]any{}
	}
	for k, v := range extra {
		opts[k] = v
	}
	doc["options"], doc["id"] = opts, id
	out, err := json.MarshalIndent(doc, "", "  ")
	if err != nil {
		t.Fatal(err)
	}
	if err := f.WriteFile(ctx, fmt.Sprintf("%s/schema/schema-%d", root, id), out); err != nil {
		t.Fatal(err)
	}
}

// malformedOptions are option values ValidateOptions refuses, each with the
// text the error must contain (option and value).
func malformedOptions() []struct {
	opts map[string]string
	want string
} {
	return []struct {
		opts map[string]string
		want string
	}{
		{map[string]string{"num-sorted-run.compaction-trigger": "abc"}, `num-sorted-run.compaction-trigger="abc"`},
		{map[string]string{"num-sorted-run.compaction-trigger": "0"}, "num-sorted-run.compaction-trigger=0"},
		{map[string]string{"num-sorted-run.stop-trigger": "1.5"}, `num-sorted-run.stop-trigger="1.5"`},
		{map[string]string{"num-levels": "1"}, "num-levels=1"},
		{map[string]string{"snapshot.num-retained.min": "0"}, "snapshot.num-retained.min=0"},
		{map[string]string{"snapshot.num-retained.min": "20", "snapshot.num-retained.max": "5"}, "snapshot.num-retained.min=20 is larger than snapshot.num-retained.max=5"},
		{map[string]string{"changelog.num-retained.min": "0"}, "changelog.num-retained.min=0"},
		{map[string]string{"changelog.num-retained.max": "x"}, `changelog.num-retained.max="x"`},
		{map[string]string{"snapshot.num-retained.min": "1", "snapshot.num-retained.max": "3", "changelog.num-retained.min": "4"}, "changelog.num-retained.min=4 is larger than changelog.num-retained.max=3"},
		{map[string]string{"snapshot.time-retained": "1 fortnight"}, `snapshot.time-retained="1 fortnight"`},
		{map[string]string{"changelog.time-retained": "soon"}, `changelog.time-retained="soon"`},
		{map[string]string{"target-file-size": "12 parsecs"}, `target-file-size="12 parsecs"`},
		{map[string]string{"write-buffer-size": "-1 mb"}, `write-buffer-size="-1 mb"`},
		{map[string]string{"deletion-vectors.enabled": "yes"}, `deletion-vectors.enabled="yes"`},
		{map[string]string{"commit.force-compact": "1"}, `commit.force-compact="1"`},
		{map[string]string{"merge-engine": "dedup"}, `merge-engine="dedup"`},
		{map[string]string{"changelog-producer": "sometimes"}, `changelog-producer="sometimes"`},
		{map[string]string{"sequence.field.sort-order": "up"}, `sequence.field.sort-order="up"`},
		{map[string]string{"metadata.stats-mode": "truncate(x)"}, `metadata.stats-mode="truncate(x)"`},
		{map[string]string{"fields.v.stats-mode": "most"}, `fields.v.stats-mode="most"`},
		{map[string]string{"full-compaction.delta-commits": "0"}, "full-compaction.delta-commits=0"},
		{map[string]string{"compaction.max-size-amplification-percent": "-5"}, "compaction.max-size-amplification-percent=-5"},
		{map[string]string{"compaction.small-file-ratio": "half"}, `compaction.small-file-ratio="half"`},
		{map[string]string{"compaction.min.file-num": "many"}, `compaction.min.file-num="many"`},
		{map[string]string{"target-file-row-num": "0"}, "target-file-row-num=0"},
		{map[string]string{"dynamic-bucket.target-row-num": "2e6"}, `dynamic-bucket.target-row-num="2e6"`},
		{map[string]string{"commit.timeout": "forever"}, `commit.timeout="forever"`},
		{map[string]string{"write-only": "on"}, `write-only="on"`},
		{map[string]string{"realtime.read-view-ttl": "0 s"}, `realtime.read-view-ttl="0 s"`},
		{map[string]string{"bucket": "two"}, `bucket="two"`},
	}
}

// validUnsupported are well-formed options of features paimon-go does not
// implement, and keys it does not know: tables with them must open.
func validUnsupported() map[string]string {
	return map[string]string{
		"changelog-producer":                        "lookup",
		"lookup-compact":                            "gentle",
		"lookup-compact.max-interval":               "3",
		"merge-engine":                              "aggregation",
		"fields.v.aggregate-function":               "last_non_null_value",
		"some.future-option":                        "whatever",
		"sequence.field.sort-order":                 "DESCENDING",
		"snapshot.num-retained.min":                 "1",
		"snapshot.num-retained.max":                 "1",
		"num-sorted-run.compaction-trigger":         "1",
		"metadata.stats-mode":                       "TRUNCATE(32)",
		"deletion-vectors.enabled":                  "FALSE",
		"changelog.num-retained.max":                "10",
		"snapshot.time-retained":                    "30 min",
		"target-file-size":                          "64 mb",
		"compaction.max-size-amplification-percent": "0",
	}
}

// TestGetTableValidatesOptions: a table whose latest schema file carries a
// malformed option value is refused by GetTable with ErrInvalidSchema and
// schema.ErrInvalidOption, naming the option and the value; one with valid
// options of unimplemented features opens with them.
func TestGetTableValidatesOptions(t *testing.T) {
	ctx := context.Background()
	c, f := memCatalog(t)
	if err := c.CreateDatabase(ctx, "db", false); err != nil {
		t.Fatal(err)
	}
	fields := []types.DataField{{Name: "k", Type: types.Int()}, {Name: "v", Type: types.String()}}
	for i, tc := range malformedOptions() {
		id := NewIdentifier("db", fmt.Sprintf("t%d", i))
		if err := c.CreateTable(ctx, id, Schema{Fields: fields, PrimaryKeys: []string{"k"}, Options: map[string]string{"bucket": "1"}}, false); err != nil {
			t.Fatal(err)
		}
		writeSchemaWithOptions(t, f, TablePath(id), 1, tc.opts)
		_, err := c.GetTable(ctx, id)
		if !errors.Is(err, ErrInvalidSchema) || !errors.Is(err, schema.ErrInvalidOption) || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("%v: GetTable = %v; want ErrInvalidSchema and schema.ErrInvalidOption naming %s", tc.opts, err, tc.want)
		}
		if _, err := ApplyChanges(mustSchema(t, c, id, 0), false, 0, setOptions(tc.opts)...); !errors.Is(err, schema.ErrInvalidOption) {
			t.Errorf("%v: AlterTable = %v; want schema.ErrInvalidOption", tc.opts, err)
		}
	}

	id := NewIdentifier("db", "unsupported")
	if err := c.CreateTable(ctx, id, Schema{Fields: fields, PrimaryKeys: []string{"k"}, Options: map[string]string{"bucket": "1"}}, false); err != nil {
		t.Fatal(err)
	}
	writeSchemaWithOptions(t, f, TablePath(id), 1, validUnsupported())
	tbl, err := c.GetTable(ctx, id)
	if err != nil {
		t.Fatalf("GetTable with valid unsupported options: %v", err)
	}
	if tbl.Schema.ID != 1 || tbl.Schema.Options["lookup-compact"] != "gentle" || tbl.Schema.Options["some.future-option"] != "whatever" {
		t.Errorf("schema %d options %v", tbl.Schema.ID, tbl.Schema.Options)
	}
}

func mustSchema(t *testing.T, c *Catalog, id Identifier, n int64) *schema.TableSchema {
	t.Helper()
	ts, err := schema.NewManager(c.wh, TablePath(id)).Get(context.Background(), n)
	if err != nil {
		t.Fatal(err)
	}
	return ts
}

func setOptions(opts map[string]string) []SchemaChange {
	var out []SchemaChange
	for k, v := range opts {
		out = append(out, SetOption{Key: k, Value: v})
	}
	return out
}

// TestInvalidSchemaErrorText: the errors of NewTableSchema, CreateTable,
// GetTable and AlterTable for a malformed option name each sentinel once
// ("catalog: invalid table schema", "invalid table option") and still match
// ErrInvalidSchema and schema.ErrInvalidOption.
func TestInvalidSchemaErrorText(t *testing.T) {
	ctx := context.Background()
	c, f := memCatalog(t)
	if err := c.CreateDatabase(ctx, "db", false); err != nil {
		t.Fatal(err)
	}
	fields := []types.DataField{{Name: "id", Type: types.BigInt()}}
	bad := Schema{Fields: fields, PrimaryKeys: []string{"id"}, Options: map[string]string{"bucket": "abc"}}
	id := NewIdentifier("db", "o2")
	_, errNew := NewTableSchema(bad, 0)
	errCreate := c.CreateTable(ctx, id, bad, false)
	if err := c.CreateTable(ctx, id, Schema{Fields: fields, PrimaryKeys: []string{"id"}, Options: map[string]string{"bucket": "1"}}, false); err != nil {
		t.Fatal(err)
	}
	writeSchemaWithOptions(t, f, TablePath(id), 1, map[string]string{"write-buffer-size": "lots"})
	_, errGet := c.GetTable(ctx, id)
	_, errAlter := c.AlterTable(ctx, id, SetOption{Key: "write-buffer-size", Value: "64 mb"}, SetOption{Key: "target-file-row-num", Value: "0"})
	for _, tc := range []struct {
		what string
		err  error
		want string
	}{
		{"NewTableSchema", errNew, `catalog: invalid table schema: invalid table option: bucket="abc": not a 32-bit integer`},
		{"CreateTable", errCreate, `catalog: create table db.o2: invalid table schema: invalid table option: bucket="abc": not a 32-bit integer`},
		{"GetTable", errGet, `catalog: invalid table schema: table db.o2 (schema 1): invalid table option: write-buffer-size="lots": memory size "lots" does not start with a number`},
		{"AlterTable", errAlter, `catalog: alter table db.o2: invalid table schema: invalid table option: target-file-row-num=0 must be at least 1`},
	} {
		if tc.err == nil || tc.err.Error() != tc.want || !errors.Is(tc.err, ErrInvalidSchema) || !errors.Is(tc.err, schema.ErrInvalidOption) {
			t.Errorf("%s: %v\nwant %s (matching ErrInvalidSchema and schema.ErrInvalidOption)", tc.what, tc.err, tc.want)
		}
	}
	// Fixing the malformed option makes the table open again.
	if _, err := c.AlterTable(ctx, id, SetOption{Key: "write-buffer-size", Value: "64 mb"}); err != nil {
		t.Fatal(err)
	}
	if tbl, err := c.GetTable(ctx, id); err != nil || tbl.Schema.ID != 2 || tbl.Schema.Options["write-buffer-size"] != "64 mb" {
		t.Errorf("GetTable after the fix: %v", err)
	}
}
