package fileindex

import (
	"errors"
	"math"
	"testing"

	"github.com/paimon-go/paimon/types"
)

func TestMightContainJava(t *testing.T) {
	x, err := Parse(javaIndex(t))
	if err != nil {
		t.Fatal(err)
	}
	bigint, str := types.DataType{Kind: types.KindBigInt}, types.DataType{Kind: types.KindVarChar}
	cases := []struct {
		col  string
		t    types.DataType
		vals []any
		want bool
	}{
		{"id", bigint, []any{int64(7 * 149)}, true},
		{"id", bigint, []any{int64(1)}, false},           // absent, rejected (i*7+1, i=0)
		{"id", bigint, []any{int64(1), int64(14)}, true}, // IN with one present value
		{"id", bigint, []any{int64(1), nil}, true},       // a null literal never skips
		{"id", bigint, []any{"1"}, true},                 // a literal of another Go type never skips
		{"name", str, []any{"k42"}, true},
		{"name", str, []any{"x0"}, false},
		{"e", bigint, []any{int64(5)}, false}, // empty body: the column held only nulls
		{"missing", bigint, []any{int64(1)}, true},
		{"id", types.DataType{Kind: types.KindBoolean}, []any{true}, true},
	}
	for _, c := range cases {
		got, err := x.MightContain(c.col, c.t, c.vals)
		if err != nil || got != c.want {
			t.Errorf("%s %v: %v, %v; want %v", c.col, c.vals, got, err, c.want)
		}
	}
	if _, ok := Hash(types.DataType{Kind: types.KindDouble}, math.NaN()); ok {
		t.Error("NaN hashed")
	}
	bad := &Index{Bodies: []Body{{Column: "id", Type: TypeBloomFilter, Bytes: []byte{0, 0, 0, 0, 1}}}}
	if ok, err := bad.MightContain("id", bigint, []any{int64(1)}); !ok || !errors.Is(err, ErrMalformed) {
		t.Errorf("malformed body: %v, %v", ok, err)
	}
}

// Values of every indexed kind hash as Java's FastHash: the integer kinds and
// DATE/TIME by their value, FLOAT/DOUBLE by their IEEE bits, TIMESTAMP by
// millis (precision <= 3) or micros.
func TestHashKinds(t *testing.T) {
	k := func(kind types.Kind, p int) types.DataType { return types.DataType{Kind: kind, Precision: p} }
	cases := []struct {
		t    types.DataType
		v    any
		want uint64
	}{
		{k(types.KindTinyInt, 0), int8(-3), HashLong(-3)},
		{k(types.KindSmallInt, 0), int16(300), HashLong(300)},
		{k(types.KindInt, 0), int32(-7), HashLong(-7)},
		{k(types.KindDate, 0), int32(19000), HashLong(19000)},
		{k(types.KindFloat, 0), float32(-1.5), HashLong(int64(int32(math.Float32bits(-1.5))))},
		{k(types.KindDouble, 0), 2.25, HashLong(int64(math.Float64bits(2.25)))},
		{k(types.KindTimestamp, 3), types.Timestamp{Millis: 1234, NanoOfMilli: 567000}, HashLong(1234)},
		{k(types.KindTimestamp, 6), types.Timestamp{Millis: 1234, NanoOfMilli: 567000}, HashLong(1234567)},
		{k(types.KindVarBinary, 0), []byte("ab"), HashBytes([]byte("ab"))},
	}
	for _, c := range cases {
		if got, ok := Hash(c.t, c.v); !ok || got != c.want {
			t.Errorf("%v %v: %x %v, want %x", c.t.Kind, c.v, got, ok, c.want)
		}
	}
	// XXH64 seed 0 of the empty input, the reference vector.
	if got := HashBytes(nil); got != 0xef46db3751d8e999 {
		t.Errorf("XXH64(\"\") = %x", got)
	}
}
