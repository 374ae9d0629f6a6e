package types

import (
	"errors"
	"math"
	"math/big"
	"testing"
)

func dec(unscaled int64, p, s int) Decimal {
	return Decimal{Unscaled: big.NewInt(unscaled), Precision: p, Scale: s}
}

func TestCompare(t *testing.T) {
	negZero := math.Copysign(0, -1)
	cases := []struct {
		t    DataType
		a, b any
		want int
	}{
		{Int(), nil, nil, 0},
		{Int(), nil, int32(-5), -1},
		{Int(), int32(-5), nil, 1},
		{Boolean(), false, true, -1},
		{Boolean(), true, true, 0},
		{Boolean(), true, false, 1},
		{TinyInt(), int8(-128), int8(127), -1},
		{SmallInt(), int16(300), int16(-300), 1},
		{Int(), int32(7), int32(7), 0},
		{Int(), int32(7), int64(8), -1}, // neighbouring width accepted
		{BigInt(), int64(math.MinInt64), int64(math.MaxInt64), -1},
		{Date(), int32(19723), int32(19722), 1},
		{TimeOf(3), int32(1000), int32(999), 1},
		{Float(), float32(1.5), float32(2.5), -1},
		{Double(), negZero, 0.0, -1},
		{Double(), 0.0, negZero, 1},
		{Double(), math.NaN(), math.Inf(1), 1},
		{Double(), math.NaN(), math.NaN(), 0},
		{Double(), math.Inf(-1), -1e308, -1},
		{String(), "a", "b", -1},
		{String(), "ab", "a", 1},
		{String(), "", "a", -1},
		// byte order, not UTF-16 order: U+FF61 (EF BD A1) < U+1F600 (F0 9F 98 80)
		{String(), "\uff61", "\U0001F600", -1},
		{String(), "é", "z", 1}, // C3 A9 > 7A
		{Bytes(), []byte{0x01}, []byte{0xff}, -1},
		{Bytes(), []byte{0x80}, []byte{0x7f}, 1}, // unsigned
		{Bytes(), []byte{1, 2}, []byte{1, 2, 0}, -1},
		{DecimalOf(10, 2), dec(1050, 10, 2), dec(105, 10, 1), 0},
		{DecimalOf(10, 2), dec(-1, 10, 2), dec(0, 10, 0), -1},
		{DecimalOf(38, 5), dec(123456, 38, 5), dec(2, 38, 0), -1},
		{DecimalOf(38, 5), Decimal{Unscaled: new(big.Int).Lsh(big.NewInt(1), 100), Scale: 5}, dec(math.MaxInt64, 38, 0), 1},
		{TimestampOf(9), Timestamp{Millis: 1, NanoOfMilli: 5}, Timestamp{Millis: 1, NanoOfMilli: 6}, -1},
		{TimestampOf(9), Timestamp{Millis: 2}, Timestamp{Millis: 1, NanoOfMilli: 999999}, 1},
		{LocalZonedTimestampOf(3), Timestamp{Millis: -1}, Timestamp{Millis: -1}, 0},
		{ArrayOf(Int()), []any{int32(1), nil}, []any{int32(1), int32(0)}, -1},
		{ArrayOf(Int()), []any{int32(1)}, []any{int32(1), int32(0)}, -1},
		{ArrayOf(Int()), []any{int32(2)}, []any{int32(1), int32(0)}, 1},
		{RowOf(Field(0, "a", Int()), Field(1, "b", String())), []any{int32(1), "b"}, []any{int32(1), "a"}, 1},
		{MapOf(String(), Int()), Map{Keys: []any{"a"}, Values: []any{int32(1)}}, Map{Keys: []any{"a"}, Values: []any{int32(2)}}, -1},
		// ill-typed values sort after well-typed ones
		{Int(), "x", int32(1), 1},
		{Int(), int32(1), "x", -1},
		{Int(), "x", 1.5, 0},
	}
	for i, c := range cases {
		if got := Compare(c.t, c.a, c.b); got != c.want {
			t.Errorf("case %d: Compare(%s, %v, %v) = %d, want %d", i, c.t, c.a, c.b, got, c.want)
		}
	}
}

func TestCheckValue(t *testing.T) {
	good := []struct {
		t DataType
		v any
	}{
		{Int(), nil},
		{Int().NotNull(), int32(1)},
		{TinyInt(), int8(1)},
		{SmallInt(), int16(1)},
		{BigInt(), int64(1)},
		{Float(), float32(1)},
		{Double(), 1.0},
		{String(), "x"},
		{Bytes(), []byte("x")},
		{DecimalOf(5, 2), dec(1, 5, 2)},
		{Date(), int32(3)},
		{TimeOf(0), int32(3)},
		{TimestampOf(9), Timestamp{Millis: 1, NanoOfMilli: 999999}},
		{ArrayOf(Int()), []any{int32(1), nil}},
		{MapOf(String(), Int()), Map{Keys: []any{"a"}, Values: []any{nil}}},
		{MultisetOf(String()), Map{Keys: []any{"a"}, Values: []any{int32(2)}}},
		{RowOf(Field(0, "a", Int()), Field(1, "b", String())), []any{int32(1), nil}},
	}
	for _, c := range good {
		if err := CheckValue(c.t, c.v); err != nil {
			t.Errorf("CheckValue(%s, %#v): %v", c.t, c.v, err)
		}
	}
	bad := []struct {
		t DataType
		v any
	}{
		{Int().NotNull(), nil},
		{Int(), int64(1)},
		{BigInt(), 1},
		{String(), []byte("x")},
		{DecimalOf(5, 2), Decimal{}},
		{TimestampOf(9), Timestamp{NanoOfMilli: 1000000}},
		{ArrayOf(Int()), []any{"x"}},
		{MapOf(String(), Int()), Map{Keys: []any{"a"}}},
		{MultisetOf(String()), Map{Keys: []any{"a"}, Values: []any{nil}}},
		{RowOf(Field(0, "a", Int())), []any{int32(1), int32(2)}},
		{RowOf(Field(0, "a", Int().NotNull())), []any{nil}},
	}
	for _, c := range bad {
		if err := CheckValue(c.t, c.v); !errors.Is(err, ErrValue) {
			t.Errorf("CheckValue(%s, %#v) = %v, want ErrValue", c.t, c.v, err)
		}
	}
}
