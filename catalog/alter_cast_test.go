package catalog_test

import (
	"context"
	"errors"
	"os"
	"slices"
	"strings"
	"testing"

	"github.com/paimon-go/paimon/catalog"
	"github.com/paimon-go/paimon/schema"
	"github.com/paimon-go/paimon/types"
)

// TestUpdateColumnTypeJavaCasts checks ApplyChanges against Java's rule for
// UpdateColumnType (SchemaManager.generateTableSchema, release-1.4.2 and
// HEAD): DataTypeCasts.supportsCast(old, new, !disable-explicit-type-casting)
// and CastExecutors.resolve(old, new) != null, after the nullability check.
func TestUpdateColumnTypeJavaCasts(t *testing.T) {
	strict := map[string]string{"disable-explicit-type-casting": "true"}
	notNullOK := map[string]string{"alter-column-null-to-not-null.disabled": "false"}
	for _, tc := range []struct {
		name     string
		from, to types.DataType
		opts     map[string]string
		ok       bool
	}{
		// Explicit casts (the SQL CAST specification), allowed by default.
		{"BIGINT to INT (explicit NUMERIC, wraps on read)", types.BigInt(), types.Int(), nil, true},
		{"DOUBLE to FLOAT (explicit NUMERIC)", types.Double(), types.Float(), nil, true},
		{"INT to STRING (VARCHAR explicit PREDEFINED)", types.Int(), types.String(), nil, true},
		{"STRING to INT (explicit CHARACTER_STRING)", types.String(), types.Int(), nil, true},
		{"DECIMAL(10,2) to DECIMAL(5,1) (DECIMAL implicit NUMERIC)", types.DecimalOf(10, 2), types.DecimalOf(5, 1), nil, true},
		{"DECIMAL to INT (explicit NUMERIC)", types.DecimalOf(10, 2), types.Int(), nil, true},
		{"FLOAT to DECIMAL (implicit NUMERIC)", types.Float(), types.DecimalOf(10, 3), nil, true},
		{"INT to FLOAT (implicit)", types.Int(), types.Float(), nil, true},
		{"BIGINT to DOUBLE (implicit NUMERIC)", types.BigInt(), types.Double(), nil, true},
		{"STRING to DATE (explicit CHARACTER_STRING)", types.String(), types.Date(), nil, true},
		{"TIMESTAMP to DATE (implicit)", types.TimestampOf(6), types.Date(), nil, true},
		{"TIMESTAMP to BIGINT (explicit TIMESTAMP_WITHOUT_TIME_ZONE)", types.TimestampOf(3), types.BigInt(), nil, true},
		{"BIGINT to TIMESTAMP (explicit NUMERIC)", types.BigInt(), types.TimestampOf(3), nil, true},
		{"TIME to TIMESTAMP (explicit DATETIME)", types.TimeOf(0), types.TimestampOf(3), nil, true},
		{"TIMESTAMP(6) to TIMESTAMP(3)", types.TimestampOf(6), types.TimestampOf(3), nil, true},
		{"BOOLEAN to INT (explicit BOOLEAN)", types.Boolean(), types.Int(), nil, true},
		{"INT to BOOLEAN (explicit INTEGER_NUMERIC)", types.Int(), types.Boolean(), nil, true},
		{"DATE to STRING (DateToStringCastRule)", types.Date(), types.String(), nil, true},
		{"BYTES to STRING (explicit PREDEFINED)", types.Bytes(), types.String(), nil, true},
		{"STRING to BYTES (explicit CHARACTER_STRING)", types.String(), types.Bytes(), nil, true},
		{"VARCHAR(10) to CHAR(3) (explicit PREDEFINED)", types.VarCharOf(10), types.CharOf(3), nil, true},
		{"nullable to NOT NULL once allowed (explicit)", types.Int(), types.BigInt().NotNull(), notNullOK, true},
		// No DataTypeCasts rule.
		{"BOOLEAN to DATE", types.Boolean(), types.Date(), nil, false},
		{"DATE to INT", types.Date(), types.Int(), nil, false},
		{"INT to DATE", types.Int(), types.Date(), nil, false},
		{"DECIMAL to BOOLEAN", types.DecimalOf(5, 0), types.Boolean(), nil, false},
		{"BYTES to INT", types.Bytes(), types.Int(), nil, false},
		{"STRING to ROW", types.String(), types.RowOf(types.Field(10, "x", types.Int())), nil, false},
		// supportsCast but no CastExecutors rule.
		{"INT to TIMESTAMP ok, SMALLINT to TIMESTAMP has no rule", types.SmallInt(), types.TimestampOf(3), nil, false},
		{"DATE to VARCHAR(10) (DateToString targets STRING only)", types.Date(), types.VarCharOf(10), nil, false},
		{"DATE unchanged (no DATE to DATE rule)", types.Date(), types.Date(), nil, false},
		{"BOOLEAN unchanged (no rule)", types.Boolean(), types.Boolean(), nil, false},
		{"ARRAY<INT> to ARRAY<BIGINT> at the top", types.ArrayOf(types.Int()), types.ArrayOf(types.BigInt()), nil, false},
		// ARRAY, MAP and ROW to CHAR/VARCHAR: CHAR/VARCHAR explicit CONSTRUCTED
		// and Array/Map/RowToStringCastRule.
		{"ARRAY<INT> to STRING (ArrayToStringCastRule)", types.ArrayOf(types.Int()), types.String(), nil, true},
		{"MAP to VARCHAR(3) (MapToStringCastRule)", types.MapOf(types.String(), types.Int()), types.VarCharOf(3), nil, true},
		{"ROW to CHAR(2) (RowToStringCastRule)", types.RowOf(types.Field(10, "x", types.Int())), types.CharOf(2), nil, true},
		{"strict ROW to STRING (explicit only)", types.RowOf(types.Field(10, "x", types.Int())), types.String(), strict, false},
		{"MULTISET to STRING (no rule)", types.MultisetOf(types.Int()), types.String(), nil, false},
		{"STRING to ARRAY (no DataTypeCasts rule)", types.String(), types.ArrayOf(types.Int()), nil, false},
		{"STRING to MAP (no DataTypeCasts rule)", types.String(), types.MapOf(types.String(), types.Int()), nil, false},
		// disable-explicit-type-casting = true: implicit casts only.
		{"strict BIGINT to INT", types.BigInt(), types.Int(), strict, false},
		{"strict INT to STRING", types.Int(), types.String(), strict, false},
		{"strict DOUBLE to FLOAT", types.Double(), types.Float(), strict, false},
		{"strict INT to BIGINT", types.Int(), types.BigInt(), strict, true},
		{"strict CHAR to VARCHAR", types.CharOf(3), types.VarCharOf(2), strict, true},
		{"strict DECIMAL to FLOAT (FLOAT implicit DECIMAL)", types.DecimalOf(10, 2), types.Float(), strict, true},
		{"strict nullable to NOT NULL", types.Int(), types.BigInt().NotNull(),
			map[string]string{"disable-explicit-type-casting": "true", "alter-column-null-to-not-null.disabled": "false"}, false},
		// assertNullabilityChange comes first.
		{"nullable to NOT NULL by default", types.Int(), types.BigInt().NotNull(), nil, false},
	} {
		old, err := catalog.NewTableSchema(catalog.Schema{
			Fields:  []types.DataField{{Name: "k", Type: types.Int()}, {Name: "v", Type: tc.from}},
			Options: tc.opts,
		}, 1)
		if err != nil {
			t.Fatalf("%s: %v", tc.name, err)
		}
		ns, err := catalog.ApplyChanges(old, true, 0, catalog.UpdateColumnType{Name: "v", Type: tc.to})
		if !tc.ok {
			if !errors.Is(err, catalog.ErrUnsupportedChange) {
				t.Errorf("%s: err = %v, want ErrUnsupportedChange", tc.name, err)
			}
			continue
		}
		if err != nil {
			t.Errorf("%s: %v", tc.name, err)
			continue
		}
		if got := ns.Fields[1]; got.ID != old.Fields[1].ID || !got.Type.Equal(tc.to) {
			t.Errorf("%s: field = %d %s, want %d %s", tc.name, got.ID, got.Type, old.Fields[1].ID, tc.to)
		}
	}
}

// TestAlterTableLossyCasts writes rows, changes column types with casts
// Java allows but that lose information, writes more rows and reads the old
// files with Java's values (CastExecutors): BIGINT to INT wraps, DOUBLE to
// FLOAT rounds, INT to STRING prints, STRING to INT parses, DECIMAL(10, 2)
// to DECIMAL(5, 1) rounds HALF_UP.
func TestAlterTableLossyCasts(t *testing.T) {
	ctx := context.Background()
	c := openCatalog(t)
	id := catalog.NewIdentifier("db", "lossy")
	err := c.CreateTable(ctx, id, catalog.Schema{
		Fields: []types.DataField{
			{Name: "id", Type: types.Int()},
			{Name: "i", Type: types.BigInt()},
			{Name: "f", Type: types.Double()},
			{Name: "s", Type: types.Int()},
			{Name: "n", Type: types.String()},
			{Name: "d", Type: types.DecimalOf(10, 2)},
		},
	}, false)
	if err != nil {
		t.Fatal(err)
	}
	writeRows(t, c, id,
		[]any{int32(1), int64(1)<<32 + 1, 0.1, int32(-7), "42", "12.35"},
		[]any{int32(2), -int64(1)<<31 - 1, 1.0000000001, nil, "-12", "-0.05"},
	)
	if _, err := c.AlterTable(ctx, id,
		catalog.UpdateColumnType{Name: "i", Type: types.Int()},
		catalog.UpdateColumnType{Name: "f", Type: types.Float()},
		catalog.UpdateColumnType{Name: "s", Type: types.String()},
		catalog.UpdateColumnType{Name: "n", Type: types.Int()},
		catalog.UpdateColumnType{Name: "d", Type: types.DecimalOf(5, 1)},
	); err != nil {
		t.Fatal(err)
	}
	writeRows(t, c, id, []any{int32(3), int32(5), float32(2.5), "x", int32(9), "1.5"})
	equalLines(t, "old files read through the casts", readJSONL(t, c, id), []string{
		`{"id":1,"i":1,"f":0.1,"s":"-7","n":42,"d":"12.4"}`,
		`{"id":2,"i":2147483647,"f":1,"s":null,"n":-12,"d":"-0.1"}`,
		`{"id":3,"i":5,"f":2.5,"s":"x","n":9,"d":"1.5"}`,
	})
}

// TestUpdateNestedColumnType changes types nested in ARRAY, MAP and ROW
// columns by path (SchemaManager.updateNestedColumn: "element" / "value"
// steps, ROW field names), as Java's UpdateColumnType with fieldNames.
func TestUpdateNestedColumnType(t *testing.T) {
	old, err := catalog.NewTableSchema(catalog.Schema{
		Fields: []types.DataField{
			{Name: "id", Type: types.Int()},
			{Name: "l", Type: types.ArrayOf(types.BigInt())},
			{Name: "m", Type: types.MapOf(types.String(), types.Double())},
			{Name: "st", Type: types.RowOf(types.Field(0, "a", types.Int()), types.Field(0, "b", types.String()))},
			{Name: "al", Type: types.ArrayOf(types.RowOf(types.Field(0, "x", types.Int())))},
		},
		PrimaryKeys: []string{"id"},
		Options:     map[string]string{"bucket": "1"},
	}, 1)
	if err != nil {
		t.Fatal(err)
	}
	before := fieldSummary(old.Fields)
	ns, err := catalog.ApplyChanges(old, true, 0,
		catalog.UpdateColumnType{Name: "l", Path: []string{"element"}, Type: types.Int()},
		catalog.UpdateColumnType{Name: "m", Path: []string{"value"}, Type: types.Float()},
		catalog.UpdateColumnType{Name: "st", Path: []string{"a"}, Type: types.String()},
		catalog.UpdateColumnType{Name: "al", Path: []string{"element", "x"}, Type: types.BigInt()},
	)
	if err != nil {
		t.Fatal(err)
	}
	want := "0:id INT NOT NULL, 1:l ARRAY<INT>, 2:m MAP<STRING, FLOAT>, 3:st ROW<`a` STRING, `b` STRING>, 6:al ARRAY<ROW<`x` BIGINT>>"
	if got := fieldSummary(ns.Fields); got != want {
		t.Errorf("fields\n got %s\nwant %s", got, want)
	}
	if _, st, _ := types.FieldByName(ns.Fields, "st"); st.Type.Fields[0].ID != 4 || st.Type.Fields[1].ID != 5 {
		t.Errorf("st field ids %d, %d; want 4, 5", st.Type.Fields[0].ID, st.Type.Fields[1].ID)
	}
	if got := fieldSummary(old.Fields); got != before {
		t.Errorf("old schema modified: %s", got)
	}
	strict := *old
	strict.Options = map[string]string{"bucket": "1", "disable-explicit-type-casting": "true"}
	for _, tc := range []struct {
		name   string
		schema *schema.TableSchema
		change catalog.UpdateColumnType
		want   error
	}{
		{"missing ROW field", old, catalog.UpdateColumnType{Name: "st", Path: []string{"zz"}, Type: types.Int()}, catalog.ErrColumnNotExist},
		{"missing column", old, catalog.UpdateColumnType{Name: "zz", Path: []string{"a"}, Type: types.Int()}, catalog.ErrColumnNotExist},
		{"nested INT to DATE", old, catalog.UpdateColumnType{Name: "st", Path: []string{"a"}, Type: types.Date()}, catalog.ErrUnsupportedChange},
		{"nested narrowing without explicit casts", &strict, catalog.UpdateColumnType{Name: "l", Path: []string{"element"}, Type: types.Int()}, catalog.ErrUnsupportedChange},
		{"nested nullable to NOT NULL", old, catalog.UpdateColumnType{Name: "st", Path: []string{"a"}, Type: types.BigInt().NotNull()}, catalog.ErrUnsupportedChange},
	} {
		if _, err := catalog.ApplyChanges(tc.schema, true, 0, tc.change); !errors.Is(err, tc.want) {
			t.Errorf("%s: err = %v, want %v", tc.name, err, tc.want)
		}
	}
}

// TestAlterTableNestedCasts writes nested values, changes the types inside
// them (Java scenario casts_nested) and reads the old file with Java's
// casts: the ARRAY element BIGINT to INT wraps, the MAP value DOUBLE to
// FLOAT rounds, the ROW field INT to STRING prints.
func TestAlterTableNestedCasts(t *testing.T) {
	ctx := context.Background()
	c := openCatalog(t)
	id := catalog.NewIdentifier("db", "nested")
	err := c.CreateTable(ctx, id, catalog.Schema{
		Fields: []types.DataField{
			{Name: "id", Type: types.Int()},
			{Name: "l", Type: types.ArrayOf(types.BigInt())},
			{Name: "m", Type: types.MapOf(types.String(), types.Double())},
			{Name: "st", Type: types.RowOf(types.Field(0, "a", types.Int()), types.Field(0, "b", types.String()))},
		},
	}, false)
	if err != nil {
		t.Fatal(err)
	}
	writeRows(t, c, id,
		[]any{int32(1), []any{int64(4294967297), nil, int64(-1)}, types.Map{Keys: []any{"x", "y"}, Values: []any{0.1, nil}}, []any{int32(-5), "b"}},
		[]any{int32(2), nil, nil, nil},
	)
	if _, err := c.AlterTable(ctx, id,
		catalog.UpdateColumnType{Name: "l", Path: []string{"element"}, Type: types.Int()},
		catalog.UpdateColumnType{Name: "m", Path: []string{"value"}, Type: types.Float()},
		catalog.UpdateColumnType{Name: "st", Path: []string{"a"}, Type: types.String()},
	); err != nil {
		t.Fatal(err)
	}
	writeRows(t, c, id, []any{int32(3), []any{int32(7)}, types.Map{Keys: []any{"z"}, Values: []any{float32(2.5)}}, []any{"q", "c"}})
	equalLines(t, "nested casts", readJSONL(t, c, id), []string{
		`{"id":1,"l":[1,null,-1],"m":[["x",0.1],["y",null]],"st":{"a":"-5","b":"b"}}`,
		`{"id":2,"l":null,"m":null,"st":null}`,
		`{"id":3,"l":[7],"m":[["z",2.5]],"st":{"a":"q","b":"c"}}`,
	})
}

// TestAlterTableConstructedToString changes ARRAY, MAP and ROW columns to
// STRING and VARCHAR(4) (Java's ArrayToStringCastRule, MapToStringCastRule,
// RowToStringCastRule: accepted by ALTER, old files read as Java's string
// form, never cut to the VARCHAR length) in each writable format.
func TestAlterTableConstructedToString(t *testing.T) {
	for _, fmtName := range []string{"parquet", "avro"} {
		t.Run(fmtName, func(t *testing.T) {
			ctx := context.Background()
			c := openCatalog(t)
			id := catalog.NewIdentifier("db", "tostring")
			err := c.CreateTable(ctx, id, catalog.Schema{
				Fields: []types.DataField{
					{Name: "id", Type: types.Int()},
					{Name: "l", Type: types.ArrayOf(types.Int())},
					{Name: "m", Type: types.MapOf(types.String(), types.Double())},
					{Name: "r", Type: types.RowOf(types.Field(10, "a", types.Int()), types.Field(11, "b", types.String()))},
				},
				Options: map[string]string{"file.format": fmtName},
			}, false)
			if err != nil {
				t.Fatal(err)
			}
			writeRows(t, c, id,
				[]any{int32(1), []any{int32(1), nil, int32(3)}, types.Map{Keys: []any{"x", "y"}, Values: []any{0.1, nil}}, []any{int32(-5), "b"}},
				[]any{int32(2), []any{}, types.Map{}, []any{nil, nil}},
				[]any{int32(3), nil, nil, nil},
			)
			if _, err := c.AlterTable(ctx, id,
				catalog.UpdateColumnType{Name: "l", Type: types.String()},
				catalog.UpdateColumnType{Name: "m", Type: types.VarCharOf(4)},
				catalog.UpdateColumnType{Name: "r", Type: types.String()},
			); err != nil {
				t.Fatal(err)
			}
			writeRows(t, c, id, []any{int32(4), "new", "abcd", "{}"})
			equalLines(t, "old files read through the casts", readJSONL(t, c, id), []string{
				`{"id":1,"l":"[1, null, 3]","m":"{x -> 0.1, y -> null}","r":"{-5, b}"}`,
				`{"id":2,"l":"[]","m":"{}","r":"{null, null}"}`,
				`{"id":3,"l":null,"m":null,"r":null}`,
				`{"id":4,"l":"new","m":"abcd","r":"{}"}`,
			})
		})
	}
}

// TestUpdateColumnTypePairsAsJava compares the type changes ApplyChanges
// accepts (explicit casts allowed, the default) among one type of each
// kind, with lengths and precisions, against Java's:
// testdata/java-cast-pairs.txt lists the pairs for which Java Paimon
// 1.4.2's DataTypeCasts.supportsCast(from, to, true) &&
// CastExecutors.resolve(from, to) != null (SchemaManager's check), printed
// by a program run on the interop peer's classpath over the same types.
func TestUpdateColumnTypePairsAsJava(t *testing.T) {
	b, err := os.ReadFile("testdata/java-cast-pairs.txt")
	if err != nil {
		t.Fatal(err)
	}
	want := strings.Split(strings.TrimSpace(string(b)), "\n")
	f := types.Field
	all := []types.DataType{
		types.Boolean(), types.TinyInt(), types.SmallInt(), types.Int(), types.BigInt(),
		types.Float(), types.Double(), types.DecimalOf(10, 2), types.CharOf(5), types.VarCharOf(5),
		types.String(), types.BinaryOf(5), types.VarBinaryOf(5), types.Bytes(), types.Date(),
		types.TimeOf(0), types.TimeOf(3), types.TimestampOf(3), types.TimestampOf(6), types.LocalZonedTimestampOf(3),
		types.ArrayOf(types.Int()), types.MapOf(types.String(), types.Int()),
		types.RowOf(f(10, "a", types.Int())), types.MultisetOf(types.Int()),
		types.Variant(), types.Blob(),
	}
	var got []string
	for _, from := range all {
		for _, to := range all {
			old, err := catalog.NewTableSchema(catalog.Schema{
				Fields: []types.DataField{{Name: "k", Type: types.Int()}, {Name: "v", Type: from}},
			}, 1)
			if err != nil {
				t.Fatalf("%s: %v", from, err)
			}
			_, err = catalog.ApplyChanges(old, true, 0, catalog.UpdateColumnType{Name: "v", Type: to})
			switch {
			case err == nil:
				got = append(got, from.String()+" -> "+to.String())
			case !errors.Is(err, catalog.ErrUnsupportedChange):
				t.Errorf("%s to %s: %v", from, to, err)
			}
		}
	}
	if strings.Join(got, "\n") != strings.Join(want, "\n") {
		for _, g := range got {
			if !slices.Contains(want, g) {
				t.Errorf("accepted here, refused by Java: %s", g)
			}
		}
		for _, w := range want {
			if !slices.Contains(got, w) {
				t.Errorf("accepted by Java, refused here: %s", w)
			}
		}
	}
}
