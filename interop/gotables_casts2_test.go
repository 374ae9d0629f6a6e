//go:build interop

package interop

import "github.com/paimon-go/paimon/types"

// constructedCastGoTables are Go-written tables whose ARRAY, MAP and ROW
// columns our ALTER TABLE changed to STRING and VARCHAR(3) after the first
// commit (issue 13; Java's ArrayToStringCastRule, MapToStringCastRule and
// RowToStringCastRule): the peers read the old files as Java's string form
// ("[1, null, 3]", "{x -> 0.1, ...}", "{-5, b}"), never cut to the VARCHAR
// length. The MAP's entries are in the order Java's Avro reader returns
// them (a HashMap's), so every format agrees with the file's order.
func constructedCastGoTables() []goTable {
	f := types.Field
	fields := []types.DataField{
		field("id", types.Int()), field("l", types.String()), field("m", types.VarCharOf(3)),
		field("r", types.String()), field("nest", types.String()),
	}
	retype := map[string]types.DataType{
		"l": types.ArrayOf(types.Int()),
		"m": types.MapOf(types.String(), types.Double()),
		"r": types.RowOf(f(0, "a", types.Int()), f(0, "b", types.String())),
		"nest": types.ArrayOf(types.RowOf(f(0, "d", types.Date()), f(0, "t", types.TimestampOf(6)),
			f(0, "v", types.ArrayOf(types.String())))),
	}
	commits := [][]goRow{
		{ins(int32(1), []any{int32(1), nil, int32(3)}, types.Map{Keys: []any{"x", "z", "y"}, Values: []any{0.1, 1e40, nil}},
			[]any{int32(-5), "b, c"},
			[]any{[]any{int32(19782), ts("2024-01-02T03:04:05.123456"), []any{"p", nil}}, nil}),
			ins(int32(2), []any{}, types.Map{}, []any{nil, nil}, []any{}),
			ins(int32(3), nil, nil, nil, nil)},
		{ins(int32(4), "new", "abc", "{}", "[]")},
	}
	want := [][]any{
		{int32(1), "[1, null, 3]", "{x -> 0.1, z -> 1.0E40, y -> null}", "{-5, b, c}", "[{2024-02-29, 2024-01-02 03:04:05.123456, [p, null]}, null]"},
		{int32(2), "[]", "{}", "{null, null}", "[]"},
		{int32(3), nil, nil, nil, nil},
		{int32(4), "new", "abc", "{}", "[]"},
	}
	var out []goTable
	for _, format := range []string{"parquet", "orc", "avro"} {
		out = append(out, goTable{name: "go_casts_tostring_append_" + format, fields: fields, engine: "append",
			retype: retype, commits: commits, want: want,
			options: map[string]string{"bucket": "-1", "file.format": format},
			peerKnown: map[string]string{"pypaimon": "pypaimon casts a DOUBLE to STRING with Python's repr " +
				"(1e+40, Java 1.0E40) and prints ORC timestamps with 9 fraction digits"}})
	}
	return out
}
