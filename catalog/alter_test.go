package catalog_test

import (
	"context"
	"errors"
	"fmt"
	"maps"
	"slices"
	"strings"
	"sync"
	"testing"

	"github.com/paimon-go/paimon/catalog"
	"github.com/paimon-go/paimon/commit"
	"github.com/paimon-go/paimon/internal/tabletest"
	"github.com/paimon-go/paimon/schema"
	"github.com/paimon-go/paimon/types"
)

// baseSchema is a schema-0 as CreateTable builds it: a INT (id 0), b
// VARCHAR(5) (1), c BIGINT (2), p STRING partition (3), highest id 3.
func baseSchema(t *testing.T, pk []string, opts map[string]string) *schema.TableSchema {
	t.Helper()
	ts, err := catalog.NewTableSchema(catalog.Schema{
		Fields: []types.DataField{
			{Name: "a", Type: types.Int()},
			{Name: "b", Type: types.VarCharOf(5)},
			{Name: "c", Type: types.BigInt()},
			{Name: "p", Type: types.String()},
		},
		PartitionKeys: []string{"p"},
		PrimaryKeys:   pk,
		Options:       opts,
	}, 1)
	if err != nil {
		t.Fatal(err)
	}
	return ts
}

func fieldSummary(fs []types.DataField) string {
	parts := make([]string, len(fs))
	for i, f := range fs {
		parts[i] = fmt.Sprintf("%d:%s %s", f.ID, f.Name, f.Type)
	}
	return strings.Join(parts, ", ")
}

func TestApplyChangesColumns(t *testing.T) {
	old := baseSchema(t, nil, nil)
	ns, err := catalog.ApplyChanges(old, true, 42,
		catalog.AddColumn{Name: "d", Type: types.Double(), Description: "new"},
		catalog.AddColumn{Name: "first", Type: types.Int(), Position: &catalog.Move{Type: catalog.MoveFirst}},
		catalog.AddColumn{Name: "afterA", Type: types.RowOf(
			types.DataField{Name: "x", Type: types.Int()},
			types.DataField{Name: "y", Type: types.String()},
		), Position: &catalog.Move{Type: catalog.MoveAfter, Reference: "a"}},
		catalog.AddColumn{Name: "beforeC", Type: types.Date(), Position: &catalog.Move{Type: catalog.MoveBefore, Reference: "c"}},
		catalog.RenameColumn{Name: "b", NewName: "b2"},
		catalog.DropColumn{Name: "c"},
		catalog.UpdateColumnType{Name: "a", Type: types.BigInt()},
		catalog.UpdateColumnComment{Name: "a", Comment: "the a"},
		catalog.UpdateComment{Comment: "altered"},
	)
	if err != nil {
		t.Fatal(err)
	}
	// ids: d=4, first=5, afterA=6 with x=7, y=8, beforeC=9.
	want := "5:first INT, 0:a BIGINT, 6:afterA ROW<`x` INT, `y` STRING>, 1:b2 VARCHAR(5), 9:beforeC DATE, 3:p STRING, 4:d DOUBLE"
	if got := fieldSummary(ns.Fields); got != want {
		t.Errorf("fields\n got %s\nwant %s", got, want)
	}
	if _, f, _ := types.FieldByName(ns.Fields, "afterA"); f.Type.Fields[0].ID != 7 || f.Type.Fields[1].ID != 8 {
		t.Errorf("nested ids = %d, %d; want 7, 8", f.Type.Fields[0].ID, f.Type.Fields[1].ID)
	}
	if ns.ID != 1 || ns.HighestFieldID != 9 || ns.TimeMillis != 42 || ns.Comment != "altered" || ns.Version != schema.CurrentVersion {
		t.Errorf("id %d highest %d time %d comment %q version %d; want 1 9 42 altered %d",
			ns.ID, ns.HighestFieldID, ns.TimeMillis, ns.Comment, ns.Version, schema.CurrentVersion)
	}
	if _, f, _ := types.FieldByName(ns.Fields, "a"); f.Description != "the a" {
		t.Errorf("a description = %q", f.Description)
	}
	if _, f, _ := types.FieldByName(ns.Fields, "d"); f.Description != "new" {
		t.Errorf("d description = %q", f.Description)
	}
	// old is untouched.
	if got := fieldSummary(old.Fields); got != "0:a INT, 1:b VARCHAR(5), 2:c BIGINT, 3:p STRING" || old.ID != 0 {
		t.Errorf("old schema changed: %s (id %d)", got, old.ID)
	}
	// A dropped column's id is not reused.
	ns2, err := catalog.ApplyChanges(ns, true, 43, catalog.AddColumn{Name: "c", Type: types.BigInt()})
	if err != nil {
		t.Fatal(err)
	}
	if _, f, _ := types.FieldByName(ns2.Fields, "c"); f.ID != 10 || ns2.HighestFieldID != 10 || ns2.ID != 2 {
		t.Errorf("re-added c has id %d, highest %d, schema id %d; want 10, 10, 2", f.ID, ns2.HighestFieldID, ns2.ID)
	}
}

func TestApplyChangesAddColumnBeforePartition(t *testing.T) {
	old := baseSchema(t, nil, map[string]string{"add-column-before-partition": "true"})
	ns, err := catalog.ApplyChanges(old, false, 0, catalog.AddColumn{Name: "d", Type: types.Int()})
	if err != nil {
		t.Fatal(err)
	}
	if got := strings.Join(ns.FieldNames(), ","); got != "a,b,c,d,p" {
		t.Errorf("fields = %s, want a,b,c,d,p", got)
	}
}

func TestApplyChangesMove(t *testing.T) {
	old := baseSchema(t, nil, nil) // a b c p
	for _, tc := range []struct {
		move catalog.Move
		want string
	}{
		{catalog.Move{Column: "c", Type: catalog.MoveFirst}, "c,a,b,p"},
		{catalog.Move{Column: "a", Type: catalog.MoveLast}, "b,c,p,a"},
		{catalog.Move{Column: "a", Type: catalog.MoveAfter, Reference: "c"}, "b,c,a,p"},
		{catalog.Move{Column: "p", Type: catalog.MoveAfter, Reference: "a"}, "a,p,b,c"},
		{catalog.Move{Column: "a", Type: catalog.MoveBefore, Reference: "p"}, "b,c,a,p"},
		{catalog.Move{Column: "p", Type: catalog.MoveBefore, Reference: "b"}, "a,p,b,c"},
	} {
		ns, err := catalog.ApplyChanges(old, false, 0, catalog.UpdateColumnPosition{Move: tc.move})
		if err != nil {
			t.Errorf("%+v: %v", tc.move, err)
			continue
		}
		if got := strings.Join(ns.FieldNames(), ","); got != tc.want {
			t.Errorf("%+v: fields = %s, want %s", tc.move, got, tc.want)
		}
	}
	for _, m := range []catalog.Move{
		{Column: "a", Type: catalog.MoveFirst},
		{Column: "p", Type: catalog.MoveLast},
		{Column: "a", Type: catalog.MoveAfter, Reference: "a"},
	} {
		if _, err := catalog.ApplyChanges(old, false, 0, catalog.UpdateColumnPosition{Move: m}); !errors.Is(err, catalog.ErrUnsupportedChange) {
			t.Errorf("%+v: err = %v, want ErrUnsupportedChange", m, err)
		}
	}
	if _, err := catalog.ApplyChanges(old, false, 0, catalog.UpdateColumnPosition{Move: catalog.Move{Column: "zz", Type: catalog.MoveFirst}}); !errors.Is(err, catalog.ErrColumnNotExist) {
		t.Errorf("move missing column: err = %v, want ErrColumnNotExist", err)
	}
}

func TestApplyChangesRenameFollowsKeysAndOptions(t *testing.T) {
	old := baseSchema(t, []string{"a", "p"}, map[string]string{
		"bucket":                        "2",
		"merge-engine":                  "partial-update",
		"sequence.field":                "c",
		"fields.b.aggregate-function":   "max",
		"fields.c,b.sequence-group":     "b,c",
		"fields.other.ignore-retract":   "true",
		"bucket-key":                    "a",
		"fields.c.list-agg-delimiter":   ";",
		"fields.b.distinct":             "true",
		"fields.b.nested-key":           "b",
		"changelog-producer":            "none",
		"fields.unrelated.nested-key":   "q",
		"fields.unrelated.other-suffix": "b",
	})
	ns, err := catalog.ApplyChanges(old, true, 0,
		catalog.RenameColumn{Name: "a", NewName: "k"},
		catalog.RenameColumn{Name: "b", NewName: "bb"},
		catalog.RenameColumn{Name: "c", NewName: "seq"},
	)
	if err != nil {
		t.Fatal(err)
	}
	if !slices.Equal(ns.PrimaryKeys, []string{"k", "p"}) {
		t.Errorf("primary keys = %v, want [k p]", ns.PrimaryKeys)
	}
	if _, f, _ := types.FieldByName(ns.Fields, "k"); f.ID != 0 || f.Type.Nullable {
		t.Errorf("k = %v, want id 0 NOT NULL", f)
	}
	want := map[string]string{
		"bucket":                        "2",
		"merge-engine":                  "partial-update",
		"sequence.field":                "seq",
		"fields.bb.aggregate-function":  "max",
		"fields.seq,bb.sequence-group":  "bb,seq",
		"fields.other.ignore-retract":   "true",
		"bucket-key":                    "k",
		"fields.seq.list-agg-delimiter": ";",
		"fields.bb.distinct":            "true",
		"fields.bb.nested-key":          "bb",
		"changelog-producer":            "none",
		"fields.unrelated.nested-key":   "q",
		"fields.unrelated.other-suffix": "b",
	}
	if !maps.Equal(map[string]string(ns.Options), want) {
		t.Errorf("options\n got %v\nwant %v", ns.Options, want)
	}
}

func TestApplyChangesRejects(t *testing.T) {
	pkOld := baseSchema(t, []string{"a", "p"}, map[string]string{"bucket": "2", "merge-engine": "deduplicate"})
	appendOld := baseSchema(t, nil, nil)
	for _, tc := range []struct {
		name    string
		old     *schema.TableSchema
		snaps   bool
		changes []catalog.SchemaChange
		want    error
	}{
		{"drop partition", appendOld, false, []catalog.SchemaChange{catalog.DropColumn{Name: "p"}}, catalog.ErrUnsupportedChange},
		{"drop primary key", pkOld, false, []catalog.SchemaChange{catalog.DropColumn{Name: "a"}}, catalog.ErrUnsupportedChange},
		{"rename partition", appendOld, false, []catalog.SchemaChange{catalog.RenameColumn{Name: "p", NewName: "q"}}, catalog.ErrUnsupportedChange},
		{"retype partition", appendOld, false, []catalog.SchemaChange{catalog.UpdateColumnType{Name: "p", Type: types.String()}}, catalog.ErrUnsupportedChange},
		{"retype primary key", pkOld, false, []catalog.SchemaChange{catalog.UpdateColumnType{Name: "a", Type: types.BigInt()}}, catalog.ErrUnsupportedChange},
		{"drop missing", appendOld, false, []catalog.SchemaChange{catalog.DropColumn{Name: "zz"}}, catalog.ErrColumnNotExist},
		{"rename missing", appendOld, false, []catalog.SchemaChange{catalog.RenameColumn{Name: "zz", NewName: "y"}}, catalog.ErrColumnNotExist},
		{"retype missing", appendOld, false, []catalog.SchemaChange{catalog.UpdateColumnType{Name: "zz", Type: types.Int()}}, catalog.ErrColumnNotExist},
		{"comment missing", appendOld, false, []catalog.SchemaChange{catalog.UpdateColumnComment{Name: "zz"}}, catalog.ErrColumnNotExist},
		{"add after missing", appendOld, false, []catalog.SchemaChange{catalog.AddColumn{Name: "n", Type: types.Int(), Position: &catalog.Move{Type: catalog.MoveAfter, Reference: "zz"}}}, catalog.ErrColumnNotExist},
		{"add existing", appendOld, false, []catalog.SchemaChange{catalog.AddColumn{Name: "a", Type: types.Int()}}, catalog.ErrColumnExist},
		{"rename onto existing", appendOld, false, []catalog.SchemaChange{catalog.RenameColumn{Name: "a", NewName: "b"}}, catalog.ErrColumnExist},
		{"add not null", appendOld, false, []catalog.SchemaChange{catalog.AddColumn{Name: "n", Type: types.Int().NotNull()}}, catalog.ErrInvalidSchema},
		{"drop all", baseSchemaNoPartition(t), false, []catalog.SchemaChange{catalog.DropColumn{Name: "a"}}, catalog.ErrInvalidSchema},
		{"drop sequence field", baseSchema(t, []string{"a", "p"}, map[string]string{"bucket": "1", "sequence.field": "c"}), false,
			[]catalog.SchemaChange{catalog.DropColumn{Name: "c"}}, catalog.ErrInvalidSchema},
		{"narrow without explicit casts", baseSchema(t, nil, map[string]string{"disable-explicit-type-casting": "true"}), false, []catalog.SchemaChange{catalog.UpdateColumnType{Name: "c", Type: types.Int()}}, catalog.ErrUnsupportedChange},
		{"null to not null", appendOld, false, []catalog.SchemaChange{catalog.UpdateColumnType{Name: "c", Type: types.BigInt().NotNull()}}, catalog.ErrUnsupportedChange},
		{"set type", appendOld, false, []catalog.SchemaChange{catalog.SetOption{Key: "type", Value: "format-table"}}, catalog.ErrUnsupportedChange},
		{"remove type", appendOld, false, []catalog.SchemaChange{catalog.RemoveOption{Key: "type"}}, catalog.ErrUnsupportedChange},
		{"immutable with snapshots", pkOld, true, []catalog.SchemaChange{catalog.SetOption{Key: "merge-engine", Value: "first-row"}}, catalog.ErrUnsupportedChange},
		{"remove immutable with snapshots", pkOld, true, []catalog.SchemaChange{catalog.RemoveOption{Key: "merge-engine"}}, catalog.ErrUnsupportedChange},
		{"bucket from -1", appendOld, true, []catalog.SchemaChange{catalog.SetOption{Key: "bucket", Value: "4"}}, catalog.ErrUnsupportedChange},
		{"bucket to -1", pkOld, true, []catalog.SchemaChange{catalog.SetOption{Key: "bucket", Value: "-1"}}, catalog.ErrUnsupportedChange},
		{"reset bucket", pkOld, true, []catalog.SchemaChange{catalog.RemoveOption{Key: "bucket"}}, catalog.ErrUnsupportedChange},
		{"bad bucket", pkOld, true, []catalog.SchemaChange{catalog.SetOption{Key: "bucket", Value: "two"}}, catalog.ErrInvalidSchema},
		{"deletion vectors", pkOld, true, []catalog.SchemaChange{catalog.SetOption{Key: "deletion-vectors.enabled", Value: "true"}}, catalog.ErrUnsupportedChange},
		{"ignore-delete back", baseSchema(t, []string{"a", "p"}, map[string]string{"bucket": "1", "ignore-delete": "true"}), true,
			[]catalog.SchemaChange{catalog.SetOption{Key: "ignore-delete", Value: "false"}}, catalog.ErrUnsupportedChange},
		{"bucket-key on -1", appendOld, false, []catalog.SchemaChange{catalog.SetOption{Key: "bucket-key", Value: "a"}}, catalog.ErrInvalidSchema},
		{"nil change", appendOld, false, []catalog.SchemaChange{nil}, catalog.ErrUnsupportedChange},
	} {
		_, err := catalog.ApplyChanges(tc.old, tc.snaps, 0, tc.changes...)
		if !errors.Is(err, tc.want) {
			t.Errorf("%s: err = %v, want %v", tc.name, err, tc.want)
		}
	}
	// Without snapshots the immutable options and the bucket may change.
	for _, ch := range []catalog.SchemaChange{
		catalog.SetOption{Key: "merge-engine", Value: "first-row"},
		catalog.SetOption{Key: "bucket", Value: "8"},
		catalog.RemoveOption{Key: "merge-engine"},
	} {
		if _, err := catalog.ApplyChanges(pkOld, false, 0, ch); err != nil {
			t.Errorf("%+v without snapshots: %v", ch, err)
		}
	}
	// Options that do not change anything pass the checks: the same value,
	// the key list named by "primary-key", "type" in another case.
	ns, err := catalog.ApplyChanges(pkOld, true, 0,
		catalog.SetOption{Key: "merge-engine", Value: "deduplicate"},
		catalog.SetOption{Key: "primary-key", Value: "a, p"},
		catalog.SetOption{Key: "type", Value: "TABLE"},
		catalog.SetOption{Key: "bucket", Value: "4"},
		catalog.SetOption{Key: "write-buffer-size", Value: "64 mb"},
	)
	if err != nil {
		t.Fatal(err)
	}
	want := map[string]string{"bucket": "4", "merge-engine": "deduplicate", "write-buffer-size": "64 mb"}
	if !maps.Equal(map[string]string(ns.Options), want) {
		t.Errorf("options = %v, want %v", ns.Options, want)
	}
	ns, err = catalog.ApplyChanges(ns, true, 0, catalog.RemoveOption{Key: "write-buffer-size"}, catalog.RemoveOption{Key: "absent"})
	if err != nil {
		t.Fatal(err)
	}
	if _, ok := ns.Options["write-buffer-size"]; ok || len(ns.Options) != 2 {
		t.Errorf("options after remove = %v", ns.Options)
	}
	// NULL to NOT NULL is allowed once the table opts in.
	lax := baseSchema(t, nil, map[string]string{"alter-column-null-to-not-null.disabled": "false"})
	ns, err = catalog.ApplyChanges(lax, false, 0, catalog.UpdateColumnType{Name: "c", Type: types.BigInt().NotNull()})
	if err != nil {
		t.Fatal(err)
	}
	if _, f, _ := types.FieldByName(ns.Fields, "c"); f.Type.Nullable {
		t.Error("c is still nullable")
	}
	// KeepNullability keeps the column's own nullability.
	ns, err = catalog.ApplyChanges(ns, false, 0, catalog.UpdateColumnType{Name: "c", Type: types.DecimalOf(20, 0), KeepNullability: true})
	if err != nil {
		t.Fatal(err)
	}
	if _, f, _ := types.FieldByName(ns.Fields, "c"); f.Type.Nullable || f.Type.Kind != types.KindDecimal {
		t.Errorf("c = %s, want DECIMAL(20, 0) NOT NULL", f.Type)
	}
}

func baseSchemaNoPartition(t *testing.T) *schema.TableSchema {
	t.Helper()
	ts, err := catalog.NewTableSchema(catalog.Schema{Fields: []types.DataField{{Name: "a", Type: types.Int()}}}, 0)
	if err != nil {
		t.Fatal(err)
	}
	return ts
}

func TestWidens(t *testing.T) {
	yes := [][2]types.DataType{
		{types.TinyInt(), types.SmallInt()}, {types.TinyInt(), types.BigInt()}, {types.SmallInt(), types.Int()},
		{types.Int(), types.BigInt()}, {types.Int(), types.Int().NotNull()},
		{types.SmallInt(), types.Float()}, {types.Int(), types.Double()},
		{types.TinyInt(), types.DecimalOf(3, 0)}, {types.Int(), types.DecimalOf(12, 2)}, {types.BigInt(), types.DecimalOf(19, 0)},
		{types.Float(), types.Double()},
		{types.DecimalOf(5, 2), types.DecimalOf(10, 4)}, {types.DecimalOf(5, 2), types.DecimalOf(6, 3)},
		{types.VarCharOf(5), types.String()}, {types.CharOf(3), types.VarCharOf(3)}, {types.VarCharOf(5), types.VarCharOf(6)},
		{types.BinaryOf(4), types.Bytes()}, {types.VarBinaryOf(4), types.VarBinaryOf(8)},
		{types.TimestampOf(3), types.TimestampOf(6)}, {types.LocalZonedTimestampOf(0), types.LocalZonedTimestampOf(9)},
	}
	no := [][2]types.DataType{
		{types.BigInt(), types.Int()}, {types.Int(), types.Float()}, {types.BigInt(), types.Double()},
		{types.Int(), types.DecimalOf(9, 0)}, {types.Int(), types.DecimalOf(11, 2)},
		{types.Double(), types.Float()}, {types.Double(), types.DecimalOf(38, 10)},
		{types.DecimalOf(5, 2), types.DecimalOf(5, 3)}, {types.DecimalOf(5, 2), types.DecimalOf(10, 1)},
		{types.String(), types.VarCharOf(5)}, {types.VarCharOf(5), types.CharOf(5)}, {types.Int(), types.String()},
		{types.Bytes(), types.BinaryOf(4)}, {types.String(), types.Bytes()},
		{types.TimestampOf(6), types.TimestampOf(3)}, {types.TimestampOf(3), types.LocalZonedTimestampOf(3)},
		{types.Date(), types.TimestampOf(3)}, {types.Boolean(), types.Int()},
		{types.ArrayOf(types.Int()), types.ArrayOf(types.BigInt())},
	}
	for _, p := range yes {
		if !catalog.Widens(p[0], p[1]) {
			t.Errorf("Widens(%s, %s) = false", p[0], p[1])
		}
	}
	for _, p := range no {
		if catalog.Widens(p[0], p[1]) {
			t.Errorf("Widens(%s, %s) = true", p[0], p[1])
		}
	}
}

// --- through the store, the writer and the reader ---

func openCatalog(t *testing.T) *catalog.Catalog {
	t.Helper()
	c, err := catalog.Open(context.Background(), "file://"+t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { c.Close() })
	if err := c.CreateDatabase(context.Background(), "db", false); err != nil {
		t.Fatal(err)
	}
	return c
}

// writeRows writes rows of Go values (see tabletest.NewBatch; decimals as
// strings like "1.25") into table id with its latest schema and commits
// them.
func writeRows(t *testing.T, c *catalog.Catalog, id catalog.Identifier, rows ...[]any) {
	t.Helper()
	tbl, err := c.GetTable(context.Background(), id)
	if err != nil {
		t.Fatal(err)
	}
	rec := tabletest.Batch(t, types.SchemaToArrow(tbl.Schema.Fields), rows...)
	defer rec.Release()
	tabletest.WriteCommit(t, tbl, "alter-test", commit.BatchIdentifier, rec)
}

// readJSONL reads table id through the reader and returns its rows as
// sorted JSONL lines.
func readJSONL(t *testing.T, c *catalog.Catalog, id catalog.Identifier) []string {
	t.Helper()
	tbl, err := c.GetTable(context.Background(), id)
	if err != nil {
		t.Fatal(err)
	}
	return tabletest.ReadJSONL(t, tbl.FileIO.URL())
}

func equalLines(t *testing.T, what string, got, want []string) {
	t.Helper()
	slices.Sort(want)
	if !slices.Equal(got, want) {
		t.Errorf("%s:\n got %s\nwant %s", what, strings.Join(got, "\n     "), strings.Join(want, "\n     "))
	}
}

// TestAlterTableEvolvesAppendTable writes rows, alters the table (rename,
// drop, add, four widenings), writes more rows and reads old and new files
// through the reader with the new schema.
func TestAlterTableEvolvesAppendTable(t *testing.T) {
	ctx := context.Background()
	c := openCatalog(t)
	id := catalog.NewIdentifier("db", "evolve")
	err := c.CreateTable(ctx, id, catalog.Schema{
		Fields: []types.DataField{
			{Name: "i", Type: types.Int()},
			{Name: "f", Type: types.Float()},
			{Name: "d", Type: types.DecimalOf(5, 2)},
			{Name: "s", Type: types.VarCharOf(5)},
			{Name: "ts", Type: types.TimestampOf(3)},
			{Name: "old", Type: types.String()},
			{Name: "gone", Type: types.Int()},
		},
	}, false)
	if err != nil {
		t.Fatal(err)
	}
	writeRows(t, c, id,
		[]any{int32(2147483647), float32(0.1), "-999.99", "héllo", int64(1700000000123), "x", int32(7)},
		[]any{nil, nil, nil, nil, nil, nil, nil},
	)
	ns, err := c.AlterTable(ctx, id,
		catalog.RenameColumn{Name: "old", NewName: "renamed"},
		catalog.DropColumn{Name: "gone"},
		catalog.AddColumn{Name: "added", Type: types.BigInt(), Position: &catalog.Move{Type: catalog.MoveFirst}},
		catalog.UpdateColumnType{Name: "i", Type: types.BigInt()},
		catalog.UpdateColumnType{Name: "f", Type: types.Double()},
		catalog.UpdateColumnType{Name: "d", Type: types.DecimalOf(10, 4)},
		catalog.UpdateColumnType{Name: "s", Type: types.String()},
		catalog.UpdateColumnType{Name: "ts", Type: types.TimestampOf(6)},
		catalog.SetOption{Key: "target-file-size", Value: "64 mb"},
	)
	if err != nil {
		t.Fatal(err)
	}
	if ns.ID != 1 || ns.HighestFieldID != 7 {
		t.Fatalf("new schema id %d highest %d, want 1 and 7", ns.ID, ns.HighestFieldID)
	}
	wantFields := "7:added BIGINT, 0:i BIGINT, 1:f DOUBLE, 2:d DECIMAL(10, 4), 3:s STRING, 4:ts TIMESTAMP(6), 5:renamed STRING"
	if got := fieldSummary(ns.Fields); got != wantFields {
		t.Fatalf("fields\n got %s\nwant %s", got, wantFields)
	}
	// The file on disk is what GetTable reads back.
	tbl, err := c.GetTable(ctx, id)
	if err != nil {
		t.Fatal(err)
	}
	if tbl.Schema.ID != 1 || fieldSummary(tbl.Schema.Fields) != wantFields || tbl.Schema.Options["target-file-size"] != "64 mb" {
		t.Fatalf("GetTable after alter: id %d fields %s options %v", tbl.Schema.ID, fieldSummary(tbl.Schema.Fields), tbl.Schema.Options)
	}
	// The reader reads a latest snapshot with that snapshot's schema, so the
	// old files are read through schema 1 once a snapshot of schema 1 exists.
	writeRows(t, c, id, []any{int64(-1), int64(9007199254740993), 0.1, "123456.7891", "longer than five", int64(1700000000123456), "y"})
	equalLines(t, "old files read with schema 1", readJSONL(t, c, id), []string{
		// FLOAT 0.1 widened to DOUBLE is the float's exact value.
		`{"added":null,"i":2147483647,"f":0.10000000149011612,"d":"-999.9900","s":"héllo","ts":"2023-11-14T22:13:20.123000","renamed":"x"}`,
		`{"added":null,"i":null,"f":null,"d":null,"s":null,"ts":null,"renamed":null}`,
		`{"added":-1,"i":9007199254740993,"f":0.1,"d":"123456.7891","s":"longer than five","ts":"2023-11-14T22:13:20.123456","renamed":"y"}`,
	})

	// Renaming back and re-adding the dropped name: the dropped column's
	// old values stay gone, the renamed one keeps its values.
	if _, err := c.AlterTable(ctx, id,
		catalog.RenameColumn{Name: "renamed", NewName: "old"},
		catalog.AddColumn{Name: "gone", Type: types.Int()},
	); err != nil {
		t.Fatal(err)
	}
	writeRows(t, c, id, []any{nil, nil, nil, nil, nil, nil, "z", int32(8)})
	equalLines(t, "after second alter", readJSONL(t, c, id), []string{
		`{"added":null,"i":null,"f":null,"d":null,"s":null,"ts":null,"old":"z","gone":8}`,
		`{"added":null,"i":2147483647,"f":0.10000000149011612,"d":"-999.9900","s":"héllo","ts":"2023-11-14T22:13:20.123000","old":"x","gone":null}`,
		`{"added":null,"i":null,"f":null,"d":null,"s":null,"ts":null,"old":null,"gone":null}`,
		`{"added":-1,"i":9007199254740993,"f":0.1,"d":"123456.7891","s":"longer than five","ts":"2023-11-14T22:13:20.123456","old":"y","gone":null}`,
	})
}

// TestAlterTablePrimaryKeyTable renames the primary key and a value column,
// adds a column, and checks that an upsert written with the new schema
// merges with a row written under the old one.
func TestAlterTablePrimaryKeyTable(t *testing.T) {
	ctx := context.Background()
	c := openCatalog(t)
	id := catalog.NewIdentifier("db", "pk")
	err := c.CreateTable(ctx, id, catalog.Schema{
		Fields: []types.DataField{
			{Name: "k", Type: types.Int()},
			{Name: "v", Type: types.Int()},
			{Name: "w", Type: types.String()},
		},
		PrimaryKeys: []string{"k"},
		Options:     map[string]string{"bucket": "2"},
	}, false)
	if err != nil {
		t.Fatal(err)
	}
	writeRows(t, c, id, []any{int32(1), int32(10), "a"}, []any{int32(2), int32(20), "b"}, []any{int32(3), int32(30), "c"})
	ns, err := c.AlterTable(ctx, id,
		catalog.RenameColumn{Name: "k", NewName: "key"},
		catalog.RenameColumn{Name: "w", NewName: "word"},
		catalog.UpdateColumnType{Name: "v", Type: types.BigInt()},
		catalog.AddColumn{Name: "extra", Type: types.Double()},
	)
	if err != nil {
		t.Fatal(err)
	}
	if !slices.Equal(ns.PrimaryKeys, []string{"key"}) {
		t.Fatalf("primary keys = %v", ns.PrimaryKeys)
	}
	writeRows(t, c, id, []any{int32(2), int64(1) << 40, "B", 2.5}, []any{int32(4), nil, "d", nil})
	equalLines(t, "merged", readJSONL(t, c, id), []string{
		`{"key":1,"v":10,"word":"a","extra":null}`,
		`{"key":2,"v":1099511627776,"word":"B","extra":2.5}`,
		`{"key":3,"v":30,"word":"c","extra":null}`,
		`{"key":4,"v":null,"word":"d","extra":null}`,
	})
	// With snapshots, the bucket count rules apply through AlterTable.
	if _, err := c.AlterTable(ctx, id, catalog.SetOption{Key: "bucket", Value: "-1"}); !errors.Is(err, catalog.ErrUnsupportedChange) {
		t.Errorf("bucket -> -1: err = %v, want ErrUnsupportedChange", err)
	}
	if _, err := c.AlterTable(ctx, id, catalog.SetOption{Key: "merge-engine", Value: "aggregation"}); !errors.Is(err, catalog.ErrUnsupportedChange) {
		t.Errorf("merge-engine change: err = %v, want ErrUnsupportedChange", err)
	}
	if _, err := c.AlterTable(ctx, catalog.NewIdentifier("db", "missing"), catalog.SetOption{Key: "a", Value: "b"}); !errors.Is(err, catalog.ErrTableNotExist) {
		t.Errorf("missing table: err = %v, want ErrTableNotExist", err)
	}
}

// TestAlterTableRace runs racing AlterTable calls: each adds its own column,
// every one lands in its own schema file and the last schema has them all.
func TestAlterTableRace(t *testing.T) {
	ctx := context.Background()
	c := openCatalog(t)
	id := catalog.NewIdentifier("db", "race")
	if err := c.CreateTable(ctx, id, catalog.Schema{Fields: []types.DataField{{Name: "a", Type: types.Int()}}}, false); err != nil {
		t.Fatal(err)
	}
	const n = 6
	var wg sync.WaitGroup
	errs := make([]error, n)
	for i := range n {
		wg.Go(func() {
			_, errs[i] = c.AlterTable(ctx, id, catalog.AddColumn{Name: fmt.Sprintf("c%d", i), Type: types.BigInt()})
		})
	}
	wg.Wait()
	for i, err := range errs {
		if err != nil {
			t.Fatalf("alter %d: %v", i, err)
		}
	}
	tbl, err := c.GetTable(ctx, id)
	if err != nil {
		t.Fatal(err)
	}
	if tbl.Schema.ID != n || tbl.Schema.HighestFieldID != n || len(tbl.Schema.Fields) != n+1 {
		t.Fatalf("latest schema id %d highest %d fields %s", tbl.Schema.ID, tbl.Schema.HighestFieldID, fieldSummary(tbl.Schema.Fields))
	}
	ids := map[int]bool{}
	for _, f := range tbl.Schema.Fields {
		ids[f.ID] = true
	}
	if len(ids) != n+1 {
		t.Fatalf("field ids not unique: %s", fieldSummary(tbl.Schema.Fields))
	}
}
