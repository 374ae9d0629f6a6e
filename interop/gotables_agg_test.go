//go:build interop

package interop

import (
	"github.com/RoaringBitmap/roaring/v2"

	"github.com/paimon-go/paimon/row"
	"github.com/paimon-go/paimon/types"
)

// rbm32 is a RoaringBitmap portable serialization, run-optimized as Java's
// RoaringBitmap32.serialize writes it.
func rbm32(v ...uint32) []byte {
	b := roaring.BitmapOf(v...)
	b.RunOptimize()
	out, err := b.ToBytes()
	if err != nil {
		panic(err)
	}
	return out
}

func seq32(from, to uint32) []uint32 {
	var v []uint32
	for i := from; i < to; i++ {
		v = append(v, i)
	}
	return v
}

func strMap(kv ...any) types.Map {
	var m types.Map
	for i := 0; i < len(kv); i += 2 {
		m.Keys = append(m.Keys, kv[i])
		m.Values = append(m.Values, kv[i+1])
	}
	return m
}

// aggGoTables are aggregation tables using collect, distinct collect,
// merge_map, rbm32, nested_update and nested_partial_update, written by us
// in several commits so that readers merge our level-0 files, and fully
// compacted by us. want holds Java's result: element orders are
// java.util.HashMap's, as Java's aggregators produce them (the scenario
// scenario_agg_collections checks the same functions the other way round).
// The retracting table uses only functions that accept retractions:
// pypaimon refuses fields.<f>.ignore-retract.
func aggGoTables() []goTable {
	idRow := types.RowOf(field("id", types.Int()), field("v", types.String()))
	partRow := types.RowOf(field("id", types.Int()), field("a", types.Int()), field("b", types.String()))
	fields := []types.DataField{
		field("id", notNull(types.Int())),
		field("c", types.ArrayOf(types.Int())),
		field("d", types.ArrayOf(types.String())),
		field("m", types.MapOf(notNull(types.String()), types.Int())),
		field("nu", types.ArrayOf(idRow)),
		field("r", types.Bytes()),
		field("np", types.ArrayOf(partRow)),
	}
	options := map[string]string{"bucket": "1", "merge-engine": "aggregation",
		"fields.c.aggregate-function": "collect",
		"fields.d.aggregate-function": "collect", "fields.d.distinct": "true",
		"fields.m.aggregate-function":  "merge_map",
		"fields.nu.aggregate-function": "nested_update", "fields.nu.nested-key": "id",
		"fields.r.aggregate-function":  "rbm32",
		"fields.np.aggregate-function": "nested_partial_update", "fields.np.nested-key": "id",
	}
	commits := [][]goRow{
		{
			ins(int32(1), []any{int32(1), int32(2)}, []any{"b", "a"}, strMap("x", int32(1), "b", int32(2)),
				[]any{[]any{int32(1), "a"}}, rbm32(1, 2, 3, 100000), []any{[]any{int32(1), int32(10), nil}}),
			ins(int32(2), []any{int32(5)}, []any{"q"}, strMap("q", int32(1)),
				[]any{[]any{int32(5), "a"}}, nil, nil),
		},
		{
			ins(int32(1), []any{int32(2), nil}, []any{"apple", "c", "a"}, strMap("b", int32(3), "a", int32(4)),
				[]any{[]any{int32(2), "c"}, []any{int32(17), "d"}}, rbm32(seq32(4, 21)...),
				[]any{[]any{int32(1), nil, "y"}, []any{int32(3), int32(3), "z"}}),
			ins(int32(2), []any{int32(6)}, []any{"r", "q"}, strMap("a", int32(2)),
				[]any{[]any{int32(6), "b"}}, rbm32(7), []any{[]any{int32(1), int32(1), nil}}),
		},
	}
	want := [][]any{
		{int32(1), []any{int32(1), int32(2), int32(2), nil}, []any{"a", "apple", "c", "b"},
			strMap("x", int32(1), "a", int32(4), "b", int32(3)),
			[]any{[]any{int32(2), "c"}, []any{int32(17), "d"}, []any{int32(1), "a"}},
			rbm32(append(seq32(1, 21), 100000)...), []any{[]any{int32(3), int32(3), "z"}, []any{int32(1), int32(10), "y"}}},
		{int32(2), []any{int32(5), int32(6)}, []any{"r", "q"}, strMap("q", int32(1), "a", int32(2)),
			[]any{[]any{int32(5), "a"}, []any{int32(6), "b"}}, rbm32(7), []any{[]any{int32(1), int32(1), nil}}},
	}
	// The retracting table: the first five columns, and a -U row.
	rfields := fields[:5]
	roptions := map[string]string{}
	for k, v := range options {
		if k != "fields.r.aggregate-function" && k != "fields.np.aggregate-function" && k != "fields.np.nested-key" {
			roptions[k] = v
		}
	}
	var rcommits [][]goRow
	for _, c := range commits {
		var rc []goRow
		for _, r := range c {
			rc = append(rc, goRow{kind: r.kind, values: r.values[:5]})
		}
		rcommits = append(rcommits, rc)
	}
	rcommits = append(rcommits, []goRow{withKind(row.RowKindUpdateBefore, int32(1), []any{int32(2)}, []any{"a"},
		strMap("x", int32(0)), []any{[]any{int32(1), "zzz"}})})
	rwant := [][]any{
		{int32(1), []any{int32(1), int32(2), nil}, []any{"apple", "c", "b"}, strMap("a", int32(4), "b", int32(3)),
			[]any{[]any{int32(2), "c"}, []any{int32(17), "d"}}},
		want[1][:5],
	}
	return []goTable{
		{name: "go_pk_agg_collections", fields: fields, primaryKeys: []string{"id"}, options: options,
			engine: "aggregation", commits: commits, want: want, peerDeviates: map[string]string{
				"pypaimon": "pypaimon's merge-on-read keeps insertion order where Java's collect (distinct), merge_map, " +
					"nested_update and nested_partial_update produce java.util.HashMap order"}},
		{name: "go_pk_agg_collections_compacted", fields: fields, primaryKeys: []string{"id"}, options: options,
			engine: "aggregation", commits: commits, want: want, mode: "compact"},
		{name: "go_pk_agg_collections_retract", fields: rfields, primaryKeys: []string{"id"}, options: roptions,
			engine: "aggregation", commits: rcommits, want: rwant, mode: "compact"},
	}
}
