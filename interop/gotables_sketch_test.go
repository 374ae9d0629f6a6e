//go:build interop

package interop

import (
	"encoding/hex"

	"github.com/paimon-go/paimon/types"
)

// Sketch values printed by Java Paimon 1.4.2 (interop/java SketchCases, mode
// dd): rbm64 bitmaps from RoaringBitmap64.bitmapOf, theta sketches from
// ThetaSketch.sketchOf, and Java's unions of them (FieldRoaringBitmap64Agg,
// FieldThetaSketchAgg folded in commit order).
const (
	rbmA   = "01010000000000000004000000000000000000000000000000000001000000fe0100000001020300000001000200030001000000000000000000000000000000"                                                             // {1, 2, 3}
	rbmB   = "010200000000000000000200000000ff0004000000000001000000000000000000000004000000ffffffffffff010000000000000001000000fe020000000102010000000000010201000000fbff02000000000000000000000001000000" // {2^40, -5}
	rbmC   = "01010000000000000004000000000000000000000000000000000001000000fe0100000001000600000001000500050001000000000000000000000000000000"                                                             // {5}
	rbmABC = "010300000000000000000200000000ff0000020001000000010004000000000000000000000000000000000004000000000001000000010000000000000004000000ffffffffffff020000000000000001000000fe03000000010009000000020001000200050005000102010000000000010201000000fbff03000000000000000000000002000000"
	rbmAC  = "01010000000000000004000000000000000000000000000000000001000000fe010000000100090000000200010002000500050001000000000000000000000000000000"
	thX    = "02030300001acc93030000000000803f15f97dcbbd86a105c397fc1281709d1eba40b3c1da06695d" // {1, 2, 3}
	thY    = "02030300001acc93020000000000803f40de2ee1c9db3d08ba40b3c1da06695d"                 // {3, 4}
	thZ    = "01030300003acc931ad1300b998c2f22"                                                 // {9}
	thXYZ  = "02030300001acc93050000000000803f15f97dcbbd86a10540de2ee1c9db3d08c397fc1281709d1e1ad1300b998c2f22ba40b3c1da06695d"
)

func unhex(s string) []byte {
	b, err := hex.DecodeString(s)
	if err != nil {
		panic(err) // test data literal, fixed at compile time
	}
	return b
}

// sketchGoTables are aggregation tables with rbm64 and theta_sketch columns
// written by us in three commits: read merging our level-0 files, and fully
// compacted by us (our merged bytes in the file). want is Java's union of
// the same values. pypaimon refuses the tables: it does not implement rbm64
// (its aggregators module says Roaring64Bitmap's format has no Python
// counterpart).
func sketchGoTables() []goTable {
	fields := []types.DataField{
		field("id", notNull(types.Int())),
		field("r", types.Bytes()),
		field("t", types.Bytes()),
	}
	options := map[string]string{"bucket": "1", "merge-engine": "aggregation",
		"fields.r.aggregate-function": "rbm64",
		"fields.t.aggregate-function": "theta_sketch",
	}
	commits := [][]goRow{
		{ins(int32(1), unhex(rbmA), unhex(thX)), ins(int32(2), unhex(rbmA), nil)},
		{ins(int32(1), unhex(rbmB), unhex(thY)), ins(int32(2), unhex(rbmC), unhex(thZ))},
		{ins(int32(1), unhex(rbmC), unhex(thZ)), ins(int32(3), nil, unhex(thY))},
	}
	want := [][]any{
		{int32(1), unhex(rbmABC), unhex(thXYZ)},
		{int32(2), unhex(rbmAC), unhex(thZ)},
		{int32(3), nil, unhex(thY)},
	}
	refuses := map[string]string{"pypaimon": "does not yet implement: fields.r.aggregate-function"}
	return []goTable{
		{name: "go_pk_agg_sketches", fields: fields, primaryKeys: []string{"id"}, options: options,
			engine: "aggregation", commits: commits, want: want, peerRefuses: refuses},
		{name: "go_pk_agg_sketches_compacted", fields: fields, primaryKeys: []string{"id"}, options: options,
			engine: "aggregation", commits: commits, want: want, mode: "compact", peerRefuses: refuses},
	}
}
