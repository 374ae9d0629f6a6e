package cast

import (
	"errors"
	"math"
	"math/big"
	"reflect"
	"testing"

	"github.com/apache/arrow-go/v18/arrow/array"
	"github.com/apache/arrow-go/v18/arrow/memory"

	"github.com/paimon-go/paimon/format"
	"github.com/paimon-go/paimon/types"
)

// build makes an array of type t from Go values (nil = null).
func build(t *testing.T, mem memory.Allocator, typ types.DataType, vals []any) *array.Builder {
	t.Helper()
	b := array.NewBuilder(mem, types.ToArrow(typ))
	for _, v := range vals {
		if err := appendValue(b, v); err != nil {
			t.Fatal(err)
		}
	}
	return &b
}

func dec(s string, p, sc int) types.Decimal {
	u, ok := new(big.Int).SetString(s, 10)
	if !ok {
		panic(s)
	}
	return types.Decimal{Unscaled: u, Precision: p, Scale: sc}
}

func ts(ms int64, nano int32) types.Timestamp { return types.Timestamp{Millis: ms, NanoOfMilli: nano} }

// bad marks an expected ErrInvalid (Java throws on the value).
type bad struct{}

func TestArrayJavaValues(t *testing.T) {
	str := types.String()
	cases := []struct {
		name     string
		from, to types.DataType
		in, want []any
	}{
		// NumericPrimitiveCastRule: narrowing wraps, floats saturate.
		{"bigint-int", types.BigInt(), types.Int(),
			[]any{int64(1), int64(1<<32 + 1), int64(-1), int64(1 << 31), int64(math.MinInt64), nil},
			[]any{int32(1), int32(1), int32(-1), int32(math.MinInt32), int32(0), nil}},
		{"int-tinyint", types.Int(), types.TinyInt(),
			[]any{int32(383), int32(-129), int32(127)}, []any{int8(127), int8(127), int8(127)}},
		{"int-smallint", types.Int(), types.SmallInt(), []any{int32(65535), int32(-32769)}, []any{int16(-1), int16(32767)}},
		{"smallint-bigint", types.SmallInt(), types.BigInt(), []any{int16(-32768)}, []any{int64(-32768)}},
		{"bigint-float", types.BigInt(), types.Float(), []any{int64(1<<53 + 1), int64(16777217)}, []any{float32(1 << 53), float32(16777216)}},
		{"bigint-double", types.BigInt(), types.Double(), []any{int64(1<<53 + 1)}, []any{float64(1 << 53)}},
		{"double-float", types.Double(), types.Float(),
			[]any{0.1, 1e40, -1e40, math.NaN(), 5e-46}, []any{float32(0.1), float32(math.Inf(1)), float32(math.Inf(-1)), float32(math.NaN()), float32(0)}},
		{"double-int", types.Double(), types.Int(),
			[]any{1e10, -1e10, math.NaN(), -1.9, 2.9}, []any{int32(math.MaxInt32), int32(math.MinInt32), int32(0), int32(-1), int32(2)}},
		{"double-tinyint", types.Double(), types.TinyInt(), []any{300.7, -1e10}, []any{int8(44), int8(0)}},
		{"float-bigint", types.Float(), types.BigInt(), []any{float32(1e20), float32(math.Inf(-1))}, []any{int64(math.MaxInt64), int64(math.MinInt64)}},
		{"float-double", types.Float(), types.Double(), []any{float32(0.1)}, []any{float64(float32(0.1))}},
		// Numeric to DECIMAL: HALF_UP, null on overflow, doubles through Double.toString.
		{"int-decimal", types.Int(), types.DecimalOf(5, 2), []any{int32(999), int32(-999), int32(1000)},
			[]any{dec("99900", 5, 2), dec("-99900", 5, 2), bad{}}},
		{"tinyint-decimal", types.TinyInt(), types.DecimalOf(3, 0), []any{int8(-128)}, []any{dec("-128", 3, 0)}},
		{"double-decimal", types.Double(), types.DecimalOf(10, 2),
			[]any{1.005, -1.005, 1e10, 0.0, 1e-7, 12.345}, []any{dec("101", 10, 2), dec("-101", 10, 2), bad{}, dec("0", 10, 2), dec("0", 10, 2), dec("1235", 10, 2)}},
		{"float-decimal", types.Float(), types.DecimalOf(10, 9), []any{float32(0.1)}, []any{dec("100000001", 10, 9)}},
		{"double-decimal-nan", types.Double(), types.DecimalOf(10, 2), []any{math.NaN()}, []any{bad{}}},
		{"double-decimal-inf", types.Double(), types.DecimalOf(10, 2), []any{math.Inf(1)}, []any{bad{}}},
		// DECIMAL to numbers: truncation toward zero, low 64 bits, wrap.
		{"decimal-int", types.DecimalOf(10, 3), types.Int(), []any{dec("123999", 10, 3), dec("-123999", 10, 3)}, []any{int32(123), int32(-123)}},
		{"decimal38-int", types.DecimalOf(38, 0), types.Int(), []any{dec("18446744073709551621", 38, 0)}, []any{int32(5)}},
		{"decimal38-bigint", types.DecimalOf(38, 0), types.BigInt(), []any{dec("9223372036854775808", 38, 0)}, []any{int64(math.MinInt64)}},
		{"decimal-tinyint", types.DecimalOf(10, 0), types.TinyInt(), []any{dec("200", 10, 0)}, []any{int8(-56)}},
		{"decimal-double", types.DecimalOf(10, 1), types.Double(), []any{dec("11", 10, 1)}, []any{1.1}},
		{"decimal38-double", types.DecimalOf(38, 10), types.Double(), []any{dec("12345678901234567890123", 38, 10)}, []any{1234567890123.4567890123}},
		{"decimal-float", types.DecimalOf(10, 1), types.Float(), []any{dec("11", 10, 1)}, []any{float32(1.1)}},
		// DECIMAL to DECIMAL: HALF_UP, null when the precision overflows.
		{"decimal-decimal", types.DecimalOf(10, 3), types.DecimalOf(5, 1),
			[]any{dec("1234550", 10, 3), dec("-1234550", 10, 3), dec("12345600", 10, 3), dec("49", 10, 3)},
			[]any{dec("12346", 5, 1), dec("-12346", 5, 1), bad{}, dec("0", 5, 1)}},
		{"decimal-decimal-up", types.DecimalOf(5, 2), types.DecimalOf(12, 4), []any{dec("-12345", 5, 2)}, []any{dec("-1234500", 12, 4)}},
		// BOOLEAN <-> numbers.
		{"boolean-int", types.Boolean(), types.Int(), []any{true, false, nil}, []any{int32(1), int32(0), nil}},
		{"boolean-double", types.Boolean(), types.Double(), []any{true}, []any{1.0}},
		{"boolean-decimal", types.Boolean(), types.DecimalOf(1, 1), []any{true, false}, []any{bad{}, dec("0", 1, 1)}},
		{"int-boolean", types.Int(), types.Boolean(), []any{int32(0), int32(-5)}, []any{false, true}},
		// To STRING.
		{"int-string", types.Int(), str, []any{int32(-42)}, []any{"-42"}},
		{"int-char", types.Int(), types.CharOf(3), []any{int32(12), int32(12345)}, []any{"12 ", "123"}},
		{"bigint-varchar", types.BigInt(), types.VarCharOf(2), []any{int64(123)}, []any{"12"}},
		{"float-string", types.Float(), str, []any{float32(1e7), float32(0.1), float32(100), float32(math.NaN())}, []any{"1.0E7", "0.1", "100.0", "NaN"}},
		{"double-string", types.Double(), str, []any{1e-5, 123456789.0, 0.001, math.Copysign(0, -1), math.Inf(-1)}, []any{"1.0E-5", "1.23456789E8", "0.001", "-0.0", "-Infinity"}},
		{"decimal-string", types.DecimalOf(5, 2), str, []any{dec("150", 5, 2), dec("-5", 5, 2)}, []any{"1.50", "-0.05"}},
		{"boolean-string", types.Boolean(), str, []any{true, false}, []any{"true", "false"}},
		{"boolean-char", types.Boolean(), types.CharOf(2), []any{true}, []any{"tr"}},
		{"date-string", types.Date(), str, []any{int32(0), int32(-1), int32(19000)}, []any{"1970-01-01", "1969-12-31", "2022-01-08"}},
		{"time-string", types.TimeOf(0), str, []any{int32(3723000)}, []any{"01:02:03"}},
		{"time3-string", types.TimeOf(3), str, []any{int32(3723500)}, []any{"01:02:03.5"}},
		{"timestamp6-string", types.TimestampOf(6), str, []any{ts(1704164645123, 456000), ts(0, 0)}, []any{"2024-01-02 03:04:05.123456", "1970-01-01 00:00:00.000000"}},
		{"timestamp0-string", types.TimestampOf(0), str, []any{ts(1000, 0)}, []any{"1970-01-01 00:00:01"}},
		{"string-varchar", str, types.VarCharOf(3), []any{"héllo", "ab"}, []any{"hél", "ab"}},
		{"varchar-char", types.VarCharOf(10), types.CharOf(4), []any{"ab"}, []any{"ab  "}},
		{"bytes-string", types.Bytes(), str, []any{[]byte("abc")}, []any{"abc"}},
		// From STRING: Java parses, and fails where it cannot.
		{"string-int", str, types.Int(),
			[]any{"12", "-7.9", "+5", "2147483647", "-2147483648", "2147483648", " 1", "abc", "", "-", "1.x"},
			[]any{int32(12), int32(-7), int32(5), int32(math.MaxInt32), int32(math.MinInt32), bad{}, bad{}, bad{}, bad{}, bad{}, bad{}}},
		{"string-tinyint", str, types.TinyInt(), []any{"127", "128", "-128"}, []any{int8(127), bad{}, int8(-128)}},
		{"string-bigint", str, types.BigInt(), []any{"9223372036854775807", "-9223372036854775808", "9223372036854775808", "-9223372036854775809"},
			[]any{int64(math.MaxInt64), int64(math.MinInt64), bad{}, bad{}}},
		{"string-double", str, types.Double(),
			[]any{" 1.5 ", "1e3", "NaN", "-Infinity", "1.0f", "0x1p3", ".5", "inf", "1_0", "abc"},
			[]any{1.5, 1000.0, math.NaN(), math.Inf(-1), 1.0, 8.0, 0.5, bad{}, bad{}, bad{}}},
		{"string-float", str, types.Float(), []any{"0.1", "1e39"}, []any{float32(0.1), float32(math.Inf(1))}},
		{"string-boolean", str, types.Boolean(), []any{"YES", "0", "t", "maybe", " true"}, []any{true, false, true, bad{}, bad{}}},
		{"string-decimal", str, types.DecimalOf(5, 2),
			[]any{"123.456", "-0.005", "1e2", "12345", "x", "1.5e-1", ".5"},
			[]any{dec("12346", 5, 2), dec("-1", 5, 2), dec("10000", 5, 2), bad{}, bad{}, dec("15", 5, 2), dec("50", 5, 2)}},
		{"string-date", str, types.Date(),
			[]any{"2024-01-02", "2024-2-9", "19000", "2024-01-02 10:00:00", "2024-02-30", "2023-02-29", "2024-02-29", "x"},
			[]any{int32(19724), int32(19762), int32(19000), int32(19724), bad{}, bad{}, int32(19782), bad{}}},
		{"string-time", str, types.TimeOf(0), []any{"01:02:03.5", "25", "25:00", "1:2", "x"}, []any{int32(3723500), int32(25), int32(90000000), int32(3720000), bad{}}},
		{"string-timestamp", str, types.TimestampOf(3),
			[]any{"2024-01-02 03:04:05.6789", "2024-1-2", "1000", "2024-02-30 00:00:00", "2024-01-02T03:04:05", "x"},
			[]any{ts(1704164645678, 0), ts(1704153600000, 0), ts(1000, 0), ts(1709164800000, 0), bad{}, bad{}}},
		{"string-timestamp6-epoch", str, types.TimestampOf(6), []any{"-1500"}, []any{ts(-2, 500000)}},
		{"string-bytes", str, types.BinaryOf(4), []any{"ab"}, []any{[]byte{'a', 'b', 0, 0}}},
		// Date/time/timestamp rules (Java's integer division and remainder).
		{"timestamp-date", types.TimestampOf(6), types.Date(), []any{ts(-1, 0), ts(2*86400000+5, 0)}, []any{int32(0), int32(2)}},
		{"timestamp-time", types.TimestampOf(3), types.TimeOf(0), []any{ts(-1, 0), ts(86400000+5, 0)}, []any{int32(-1), int32(5)}},
		{"date-timestamp", types.Date(), types.TimestampOf(3), []any{int32(1), int32(-1)}, []any{ts(86400000, 0), ts(-86400000, 0)}},
		{"time-timestamp", types.TimeOf(0), types.TimestampOf(3), []any{int32(5)}, []any{ts(5, 0)}},
		{"timestamp6-timestamp3", types.TimestampOf(6), types.TimestampOf(3), []any{ts(-1501, 500000), ts(5, 123000)}, []any{ts(-1501, 0), ts(5, 0)}},
		{"timestamp6-timestamp0", types.TimestampOf(6), types.TimestampOf(0), []any{ts(-1501, 500000), ts(2999, 0)}, []any{ts(-1000, 0), ts(2000, 0)}},
		{"timestamp3-timestamp6", types.TimestampOf(3), types.TimestampOf(6), []any{ts(-1501, 0)}, []any{ts(-1501, 0)}},
		{"timestamp-bigint", types.TimestampOf(3), types.BigInt(), []any{ts(-1500, 0), ts(2500, 0)}, []any{int64(-1), int64(2)}},
		{"timestamp-int", types.TimestampOf(3), types.Int(), []any{ts(5_000_000_000_000, 0)}, []any{int32(705032704)}},
		{"bigint-timestamp", types.BigInt(), types.TimestampOf(3), []any{int64(5), int64(-2)}, []any{ts(5000, 0), ts(-2000, 0)}},
		{"int-timestamp6", types.Int(), types.TimestampOf(6), []any{int32(7)}, []any{ts(7000, 0)}},
		// Binary rules.
		{"bytes-binary", types.Bytes(), types.BinaryOf(4), []any{[]byte{1, 2}, []byte{1, 2, 3, 4, 5}}, []any{[]byte{1, 2, 0, 0}, []byte{1, 2, 3, 4}}},
		{"bytes-varbinary", types.Bytes(), types.VarBinaryOf(2), []any{[]byte{1, 2, 3}, []byte{1}}, []any{[]byte{1, 2}, []byte{1}}},
	}
	mem := memory.NewCheckedAllocator(memory.DefaultAllocator)
	defer mem.AssertSize(t, 0)
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			for i, in := range c.in {
				b := *build(t, mem, c.from, []any{in})
				arr := b.NewArray()
				b.Release()
				out, err := Array(mem, arr, c.from, c.to)
				arr.Release()
				want := c.want[i]
				if _, isBad := want.(bad); isBad {
					if !errors.Is(err, ErrInvalid) || !errors.Is(err, format.ErrOutOfRange) {
						t.Errorf("%v: err = %v, want ErrInvalid", in, err)
					}
					if out != nil {
						out.Release()
					}
					continue
				}
				if err != nil {
					t.Errorf("%v: %v", in, err)
					continue
				}
				got, err := types.ArrowValue(c.to, out, 0)
				out.Release()
				if err != nil {
					t.Fatal(err)
				}
				if !same(got, want) {
					t.Errorf("%v (%T) as %s = %#v, want %#v", in, in, c.to, got, want)
				}
			}
		})
	}
}

func same(got, want any) bool {
	switch w := want.(type) {
	case float64:
		g, ok := got.(float64)
		return ok && (g == w && math.Signbit(g) == math.Signbit(w) || math.IsNaN(g) && math.IsNaN(w))
	case float32:
		g, ok := got.(float32)
		return ok && (g == w || g != g && w != w)
	case types.Decimal:
		g, ok := got.(types.Decimal)
		return ok && g.Unscaled.Cmp(w.Unscaled) == 0 && g.Precision == w.Precision && g.Scale == w.Scale
	}
	return reflect.DeepEqual(got, want)
}

func TestArrayUnsupported(t *testing.T) {
	for _, c := range [][2]types.DataType{
		{types.Date(), types.Int()},
		{types.TimestampOf(3), types.DecimalOf(10, 0)},
		{types.TinyInt(), types.TimestampOf(3)},
		{types.DecimalOf(10, 0), types.TimestampOf(3)},
		{types.Date(), types.VarCharOf(10)},
		{types.Double(), types.Boolean()},
		{types.Int(), types.Bytes()},
	} {
		if Supported(c[0], c[1]) {
			t.Errorf("Supported(%s, %s) = true", c[0], c[1])
		}
		b := array.NewBuilder(memory.DefaultAllocator, types.ToArrow(c[0]))
		b.AppendNull()
		arr := b.NewArray()
		_, err := Array(nil, arr, c[0], c[1])
		if !errors.Is(err, ErrUnsupported) || !errors.Is(err, format.ErrSchemaMismatch) {
			t.Errorf("%s to %s: err = %v", c[0], c[1], err)
		}
		arr.Release()
		b.Release()
	}
}

func TestArrayTimestampOutOfRange(t *testing.T) {
	b := *build(t, memory.DefaultAllocator, types.BigInt(), []any{int64(1) << 50})
	arr := b.NewArray()
	defer arr.Release()
	if _, err := Array(nil, arr, types.BigInt(), types.TimestampOf(9)); !errors.Is(err, format.ErrOutOfRange) {
		t.Errorf("err = %v, want ErrOutOfRange", err)
	}
}
