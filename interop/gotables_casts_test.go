//go:build interop

package interop

import (
	"context"
	"fmt"
	"math/big"
	"slices"

	"github.com/paimon-go/paimon/catalog"
	"github.com/paimon-go/paimon/types"
)

// castGoTables are Go-written tables whose columns our ALTER TABLE widened
// after the first commit (issue 13): Java and pypaimon read the old files
// through their casts; in "compact" mode our compaction first rewrites them
// in the new types (read through format/cast).
func castGoTables() []goTable {
	fields := []types.DataField{
		field("id", types.Int()), field("i", types.BigInt()), field("c", types.DecimalOf(12, 2)),
		field("f", types.Double()), field("s", types.VarCharOf(20)), field("t", types.TimestampOf(6)),
	}
	retype := map[string]types.DataType{
		"i": types.SmallInt(), "c": types.Int(), "f": types.Float(), "s": types.VarCharOf(5), "t": types.TimestampOf(3),
	}
	commits := [][]goRow{
		{ins(int32(1), int64(-32768), dec("9.00", 12, 2), float64(float32(0.1)), "abc", ts("2024-01-02T03:04:05.123")),
			ins(int32(2), nil, dec("-2147483648.00", 12, 2), nil, nil, nil)},
		{ins(int32(3), int64(1)<<40, dec("1234567890.12", 12, 2), 0.1, "abcdefghij", ts("2024-01-02T03:04:05.123456"))},
	}
	// Parquet and Avro: format/orc is read-only.
	var out []goTable
	for _, f := range []string{"parquet", "avro"} {
		opts := map[string]string{"bucket": "-1", "file.format": f}
		out = append(out,
			goTable{name: "go_casts_append_" + f, fields: fields, engine: "append", retype: retype, commits: commits, options: opts},
			goTable{name: "go_casts_append_compacted_" + f, fields: fields, engine: "append", retype: retype, commits: commits,
				options: opts, mode: "compact"})
	}
	return append(append(out, lossyCastGoTables()...), constructedCastGoTables()...)
}

// lossyCastGoTables are Go-written tables whose columns our ALTER TABLE
// changed with casts Java allows but that lose information (explicit casts,
// DataTypeCasts.supportsCast with allowExplicit): BIGINT to INT (wraps),
// DOUBLE to FLOAT (rounds), INT to STRING, STRING to INT (parses) and
// DECIMAL(10, 2) to DECIMAL(5, 1) (HALF_UP). The first commit's rows are in
// the created types (narrowValue leaves them as they are), the final rows
// (want) are Java's casts of them (CastExecutors), in "compact" mode
// rewritten by our compaction through format/cast.
func lossyCastGoTables() []goTable {
	fields := []types.DataField{
		field("id", types.Int()), field("i", types.Int()), field("f", types.Float()),
		field("s", types.String()), field("n", types.Int()), field("d", types.DecimalOf(5, 1)),
	}
	retype := map[string]types.DataType{
		"i": types.BigInt(), "f": types.Double(), "s": types.Int(), "n": types.String(), "d": types.DecimalOf(10, 2),
	}
	commits := [][]goRow{
		{ins(int32(1), int64(1)<<32+1, 0.1, int32(-7), "42", dec("12.35", 10, 2)),
			ins(int32(2), -int64(1)<<31-1, 1.0000000001, nil, "-12", dec("-0.05", 10, 2))},
		{ins(int32(3), int32(5), float32(2.5), "x", int32(9), dec("1.5", 5, 1))},
	}
	want := [][]any{
		{int32(1), int32(1), float32(0.1), "-7", int32(42), dec("12.4", 5, 1)},
		{int32(2), int32(2147483647), float32(1), nil, int32(-12), dec("-0.1", 5, 1)},
		{int32(3), int32(5), float32(2.5), "x", int32(9), dec("1.5", 5, 1)},
	}
	// Types nested in ARRAY, MAP and ROW columns, changed by path (Java's
	// UpdateColumnType with fieldNames, retypeChanges).
	nestedFields := []types.DataField{
		field("id", types.Int()), field("l", types.ArrayOf(types.Int())), field("m", types.MapOf(types.String(), types.Float())),
		field("st", types.RowOf(field("a", types.String()), field("b", types.String()))),
	}
	nestedRetype := map[string]types.DataType{
		"l": types.ArrayOf(types.BigInt()), "m": types.MapOf(types.String(), types.Double()),
		"st": types.RowOf(field("a", types.Int()), field("b", types.String())),
	}
	nestedCommits := [][]goRow{
		{ins(int32(1), []any{int64(1)<<32 + 1, nil, int64(-1)}, types.Map{Keys: []any{"x", "y"}, Values: []any{0.1, nil}}, []any{int32(-5), "b"}),
			ins(int32(2), nil, nil, nil)},
		{ins(int32(3), []any{int32(7)}, types.Map{Keys: []any{"z"}, Values: []any{float32(2.5)}}, []any{"q", "c"})},
	}
	nestedWant := [][]any{
		{int32(1), []any{int32(1), nil, int32(-1)}, types.Map{Keys: []any{"x", "y"}, Values: []any{float32(0.1), nil}}, []any{"-5", "b"}},
		{int32(2), nil, nil, nil},
		{int32(3), []any{int32(7)}, types.Map{Keys: []any{"z"}, Values: []any{float32(2.5)}}, []any{"q", "c"}},
	}
	var out []goTable
	for _, f := range []string{"parquet", "avro"} {
		opts := map[string]string{"bucket": "-1", "file.format": f}
		out = append(out,
			goTable{name: "go_casts_nested_append_" + f, fields: nestedFields, engine: "append", retype: nestedRetype,
				commits: nestedCommits, want: nestedWant, options: opts},
			goTable{name: "go_casts_lossy_append_" + f, fields: fields, engine: "append", retype: retype,
				commits: commits, want: want, options: opts},
			goTable{name: "go_casts_lossy_append_compacted_" + f, fields: fields, engine: "append", retype: retype,
				commits: commits, want: want, options: opts, mode: "compact"})
	}
	return out
}

// createFields is the schema the table is created with: fields with the
// retype types.
func (g goTable) createFields() []types.DataField {
	if g.retype == nil {
		return g.fields
	}
	out := slices.Clone(g.fields)
	for i, f := range out {
		if t, ok := g.retype[f.Name]; ok {
			out[i].Type = t
		}
	}
	return out
}

// writeRetyped commits rows (given in the final types, or in the created
// ones) in the created types, then changes every retyped column to its
// final type; it returns the
// table as it is after the ALTER.
func (g goTable) writeRetyped(ctx context.Context, cat *catalog.Catalog, id catalog.Identifier, user string, rows []goRow) (*catalog.Table, error) {
	tbl, err := cat.GetTable(ctx, id)
	if err != nil {
		return nil, err
	}
	old := make([]goRow, len(rows))
	for i, r := range rows {
		old[i] = goRow{kind: r.kind, values: make([]any, len(r.values))}
		for j, v := range r.values {
			old[i].values[j] = narrowValue(v, tbl.Schema.Fields[j].Type)
		}
	}
	if err := commitRows(ctx, tbl, user, 1, old, len(g.primaryKeys) > 0); err != nil {
		return nil, fmt.Errorf("%s commit 1: %w", g.name, err)
	}
	var changes []catalog.SchemaChange
	for _, f := range g.fields {
		if from, ok := g.retype[f.Name]; ok {
			changes = append(changes, retypeChanges(f.Name, nil, from, f.Type)...)
		}
	}
	if _, err := cat.AlterTable(ctx, id, changes...); err != nil {
		return nil, fmt.Errorf("%s alter: %w", g.name, err)
	}
	return cat.GetTable(ctx, id)
}

// narrowValue converts a value of a widened column back to the created
// type t (the inverse of the widening, exact for the rows used).
func narrowValue(v any, t types.DataType) any {
	switch x := v.(type) {
	case int64:
		if t.Kind == types.KindSmallInt {
			return int16(x)
		}
	case float64:
		if t.Kind == types.KindFloat {
			return float32(x)
		}
	case types.Decimal:
		if t.Kind == types.KindInt {
			return int32(new(big.Int).Quo(x.Unscaled, big.NewInt(100)).Int64())
		}
	}
	return v
}

// retypeChanges are the changes from type from to type to of column name:
// one UpdateColumnType of the whole column for atomic types, and for ARRAY,
// MAP and ROW (which Java cannot change as a whole) one per changed element
// ("element"), value ("value") or ROW field, by path.
func retypeChanges(name string, path []string, from, to types.DataType) []catalog.SchemaChange {
	step := func(p string) []string { return append(slices.Clone(path), p) }
	switch {
	case from.Kind == types.KindArray && to.Kind == types.KindArray:
		return retypeChanges(name, step("element"), *from.Elem, *to.Elem)
	case from.Kind == types.KindMap && to.Kind == types.KindMap:
		return retypeChanges(name, step("value"), *from.Value, *to.Value)
	case from.Kind == types.KindRow && to.Kind == types.KindRow:
		var out []catalog.SchemaChange
		for i, tf := range to.Fields {
			out = append(out, retypeChanges(name, step(tf.Name), from.Fields[i].Type, tf.Type)...)
		}
		return out
	}
	if from.Equal(to) {
		return nil
	}
	return []catalog.SchemaChange{catalog.UpdateColumnType{Name: name, Path: path, Type: to, KeepNullability: true}}
}
