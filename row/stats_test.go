package row

import (
	"errors"
	"slices"
	"testing"

	"github.com/paimon-go/paimon/types"
)

var statsFields = []types.DataField{
	types.Field(0, "a", tInt.NotNull()),
	types.Field(1, "b", tString),
	types.Field(2, "c", tBigInt),
}

func TestEncodeStatsDense(t *testing.T) {
	enc, err := EncodeStats(statsFields, []ColStats{
		{Min: int32(1), Max: int32(5), NullCount: 0},
		{NullCount: -1}, // "none": dropped in dense mode
		{NullCount: 2},  // counts only: kept
	}, true)
	if err != nil {
		t.Fatal(err)
	}
	if !slices.Equal(enc.Cols, []string{"a", "c"}) || !slices.Equal(enc.NullCounts, []int64{0, 2}) {
		t.Fatalf("cols %v nulls %v", enc.Cols, enc.NullCounts)
	}
	// arity 2, field 1 (c) null -> bit 9 -> byte 1 mask 0x02.
	if got, want := Serialize(enc.Min), unhex(t, "00000002 0002000000000000 0100000000000000 0000000000000000"); string(got) != string(want) {
		t.Fatalf("min %x", got)
	}
	if got, want := Serialize(enc.Max), unhex(t, "00000002 0002000000000000 0500000000000000 0000000000000000"); string(got) != string(want) {
		t.Fatalf("max %x", got)
	}
	st, err := DecodeStats(statsFields, enc.Cols, enc.Min, enc.Max, enc.NullCounts)
	if err != nil {
		t.Fatal(err)
	}
	if !sameValue(st.Min, []any{int32(1), nil, nil}) || !sameValue(st.Max, []any{int32(5), nil, nil}) ||
		!slices.Equal(st.NullCounts, []int64{0, -1, 2}) {
		t.Fatalf("decoded %+v", st)
	}
}

func TestEncodeStatsAllAndNone(t *testing.T) {
	all, err := EncodeStats(statsFields, []ColStats{
		{Min: int32(1), Max: int32(1), NullCount: 0},
		{Min: "a", Max: "b", NullCount: 0},
		{Min: int64(-1), Max: int64(7), NullCount: 1},
	}, true)
	if err != nil {
		t.Fatal(err)
	}
	if all.Cols != nil || all.Min.Arity() != 3 {
		t.Fatalf("all kept: cols %#v arity %d", all.Cols, all.Min.Arity())
	}
	none, err := EncodeStats(statsFields, []ColStats{{NullCount: -1}, {NullCount: -1}, {NullCount: -1}}, true)
	if err != nil {
		t.Fatal(err)
	}
	if none.Cols == nil || len(none.Cols) != 0 || len(none.NullCounts) != 0 || !none.Min.Equal(EmptyRow()) || !none.Max.Equal(EmptyRow()) {
		t.Fatalf("none kept: %+v", none)
	}
	st, err := DecodeStats(statsFields, none.Cols, none.Min, none.Max, none.NullCounts)
	if err != nil || !slices.Equal(st.NullCounts, []int64{-1, -1, -1}) || !sameValue(st.Min, []any{nil, nil, nil}) {
		t.Fatalf("decoded %+v, %v", st, err)
	}
	// Not dense: every column is stored, "none" ones as nulls.
	full, err := EncodeStats(statsFields, []ColStats{{NullCount: -1}, {NullCount: -1}, {NullCount: -1}}, false)
	if err != nil || full.Cols != nil || full.Min.Arity() != 3 || !slices.Equal(full.NullCounts, []int64{-1, -1, -1}) {
		t.Fatalf("not dense: %+v, %v", full, err)
	}
	// EMPTY_STATS decodes to all unknown for any field list.
	st, err = DecodeStats(statsFields, nil, EmptyRow(), EmptyRow(), nil)
	if err != nil || !slices.Equal(st.NullCounts, []int64{-1, -1, -1}) {
		t.Fatalf("empty stats: %+v, %v", st, err)
	}
}

func TestDecodeStatsErrors(t *testing.T) {
	r, err := Encode([]types.DataType{tInt}, []any{int32(1)})
	if err != nil {
		t.Fatal(err)
	}
	if _, err := DecodeStats(statsFields, []string{"zz"}, r, r, []int64{0}); !errors.Is(err, ErrSchema) {
		t.Errorf("unknown column: %v", err)
	}
	if _, err := DecodeStats(statsFields, nil, r, r, []int64{0}); !errors.Is(err, ErrSchema) {
		t.Errorf("arity: %v", err)
	}
	if _, err := DecodeStats(statsFields, []string{"a"}, r, r, nil); !errors.Is(err, ErrSchema) {
		t.Errorf("null counts length: %v", err)
	}
	bad := BinaryRow{arity: 1, data: unhex(t, "0000000000000000 0800000010000000")}
	if _, err := DecodeStats(statsFields, []string{"b"}, bad, bad, []int64{0}); !errors.Is(err, ErrCorrupt) {
		t.Errorf("corrupt: %v", err)
	}
	if _, err := EncodeStats(statsFields, nil, true); !errors.Is(err, ErrSchema) {
		t.Errorf("EncodeStats length: %v", err)
	}
}

func TestEvolveStats(t *testing.T) {
	// b renamed, c added, a widened INT -> BIGINT (stats kept, converted), d
	// narrowed BIGINT -> INT (Java drops filters on it: all unknown).
	from := []types.DataField{types.Field(0, "a", tInt), types.Field(1, "b", tString), types.Field(3, "d", tBigInt)}
	to := []types.DataField{types.Field(1, "b2", tString.NotNull()), types.Field(2, "c", tInt), types.Field(0, "a", tBigInt), types.Field(3, "d", tInt)}
	s := Stats{Min: []any{int32(1), "x", int64(1 << 40)}, Max: []any{int32(9), "y", int64(1<<40 + 1)}, NullCounts: []int64{3, 4, 0}}
	got := EvolveStats(from, s, to, 10)
	if !sameValue(got.Min, []any{"x", nil, int64(1), nil}) || !sameValue(got.Max, []any{"y", nil, int64(9), nil}) ||
		!slices.Equal(got.NullCounts, []int64{4, 10, 3, -1}) {
		t.Fatalf("evolved %+v", got)
	}
}
