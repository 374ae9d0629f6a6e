package row

import (
	"encoding/hex"
	"errors"
	"fmt"
	"math"
	"math/big"
	"reflect"
	"strings"
	"testing"

	"github.com/paimon-go/paimon/types"
)

// unhex decodes hex with spaces for readability.
func unhex(t testing.TB, s string) []byte {
	t.Helper()
	b, err := hex.DecodeString(strings.ReplaceAll(s, " ", ""))
	if err != nil {
		t.Fatalf("bad hex %q: %v", s, err)
	}
	return b
}

func dec(unscaled string, p, s int) types.Decimal {
	u, ok := new(big.Int).SetString(unscaled, 10)
	if !ok {
		panic(unscaled)
	}
	return types.Decimal{Unscaled: u, Precision: p, Scale: s}
}

// sameValue is deep equality of Go values, comparing decimals numerically
// and floats by bits.
func sameValue(a, b any) bool {
	switch x := a.(type) {
	case types.Decimal:
		y, ok := b.(types.Decimal)
		return ok && x.Precision == y.Precision && x.Scale == y.Scale && x.Unscaled.Cmp(y.Unscaled) == 0
	case float32:
		y, ok := b.(float32)
		return ok && math.Float32bits(x) == math.Float32bits(y)
	case float64:
		y, ok := b.(float64)
		return ok && math.Float64bits(x) == math.Float64bits(y)
	case []any:
		y, ok := b.([]any)
		if !ok || len(x) != len(y) {
			return false
		}
		for i := range x {
			if !sameValue(x[i], y[i]) {
				return false
			}
		}
		return true
	case types.Map:
		y, ok := b.(types.Map)
		return ok && sameValue(x.Keys, y.Keys) && sameValue(x.Values, y.Values)
	}
	return reflect.DeepEqual(a, b)
}

var (
	tInt    = types.Int()
	tBigInt = types.BigInt()
	tString = types.String()
)

type vector struct {
	name   string
	fields []types.DataType
	values []any
	hex    string
}

// vectors are computed by hand from the layout in docs/paimon-format.md
// section 7 (checked against BinaryRowWriter / BinaryArrayWriter /
// AbstractBinaryWriter); decimal bytes are BigInteger.toByteArray.
func vectors() []vector {
	arrInt := types.ArrayOf(types.Int())
	return []vector{
		{"doc 7.5 (INT 1, STRING ab, BIGINT null)", []types.DataType{tInt, tString, tBigInt}, []any{int32(1), "ab", nil},
			"0004000000000000 0100000000000000 6162000000000082 0000000000000000"},
		{"doc 7.5 long string", []types.DataType{tString}, []any{"hello world!"},
			"0000000000000000 0c00000010000000 68656c6c6f20776f726c642100000000"},
		{"fixture (Alice, 1)", []types.DataType{tString, tInt}, []any{"Alice", int32(1)},
			"0000000000000000 416c696365000085 0100000000000000"},
		{"bool tinyint smallint", []types.DataType{types.Boolean(), types.TinyInt(), types.SmallInt()}, []any{true, int8(-1), int16(-2)},
			"0000000000000000 0100000000000000 ff00000000000000 feff000000000000"},
		{"float double", []types.DataType{types.Float(), types.Double()}, []any{float32(1.5), float64(-2)},
			"0000000000000000 0000c03f00000000 00000000000000c0"},
		{"date time", []types.DataType{types.Date(), types.TimeOf(0)}, []any{int32(19723), int32(3600000)},
			"0000000000000000 0b4d000000000000 80ee360000000000"},
		{"bigint -1 and null int", []types.DataType{tBigInt, tInt}, []any{int64(-1), nil},
			"0002000000000000 ffffffffffffffff 0000000000000000"},
		{"compact decimal", []types.DataType{types.DecimalOf(10, 2), types.DecimalOf(18, 0)}, []any{dec("12345", 10, 2), dec("-1", 18, 0)},
			"0000000000000000 3930000000000000 ffffffffffffffff"},
		{"non-compact decimal", []types.DataType{types.DecimalOf(20, 2)}, []any{dec("12345", 20, 2)},
			"0000000000000000 0200000010000000 3039000000000000 0000000000000000"},
		{"non-compact decimal -1", []types.DataType{types.DecimalOf(20, 0)}, []any{dec("-1", 20, 0)},
			"0000000000000000 0100000010000000 ff00000000000000 0000000000000000"},
		{"non-compact decimal max", []types.DataType{types.DecimalOf(38, 0)}, []any{dec("99999999999999999999999999999999999999", 38, 0)},
			"0000000000000000 1000000010000000 4b3b4ca85a86c47a098a223fffffffff"},
		{"non-compact decimal min", []types.DataType{types.DecimalOf(38, 0)}, []any{dec("-99999999999999999999999999999999999999", 38, 0)},
			"0000000000000000 1000000010000000 b4c4b357a5793b85f675ddc000000001"},
		{"non-compact decimal 128", []types.DataType{types.DecimalOf(19, 0)}, []any{dec("128", 19, 0)},
			"0000000000000000 0200000010000000 0080000000000000 0000000000000000"},
		{"null non-compact decimal reserves 16 bytes", []types.DataType{types.DecimalOf(20, 2)}, []any{nil},
			"0001000000000000 0000000010000000 0000000000000000 0000000000000000"},
		{"compact timestamp", []types.DataType{types.TimestampOf(3)}, []any{types.Timestamp{Millis: 1700000000123}},
			"0000000000000000 7b68e5cf8b010000"},
		{"non-compact timestamp", []types.DataType{types.TimestampOf(9)}, []any{types.Timestamp{Millis: 1700000000123, NanoOfMilli: 456789}},
			"0000000000000000 55f8060010000000 7b68e5cf8b010000"},
		{"negative ltz(6)", []types.DataType{types.LocalZonedTimestampOf(6)}, []any{types.Timestamp{Millis: -1, NanoOfMilli: 1}},
			"0000000000000000 0100000010000000 ffffffffffffffff"},
		{"null non-compact timestamp reserves 8 bytes", []types.DataType{types.TimestampOf(9)}, []any{nil},
			"0001000000000000 0000000010000000 0000000000000000"},
		{"null compact timestamp", []types.DataType{types.TimestampOf(3)}, []any{nil},
			"0001000000000000 0000000000000000"},
		{"7-byte string inline", []types.DataType{tString}, []any{"abcdefg"},
			"0000000000000000 6162636465666787"},
		{"8-byte string var part", []types.DataType{tString}, []any{"abcdefgh"},
			"0000000000000000 0800000010000000 6162636465666768"},
		{"empty string and empty bytes", []types.DataType{tString, types.Bytes()}, []any{"", []byte{}},
			"0000000000000000 0000000000000080 0000000000000080"},
		{"binary inline and var", []types.DataType{types.BinaryOf(3), types.Bytes()}, []any{[]byte{1, 2, 3}, []byte("0123456789")},
			"0000000000000000 0102030000000083 0a00000018000000 3031323334353637 3839000000000000"},
		{"array<int> [1,null,3]", []types.DataType{arrInt}, []any{[]any{int32(1), nil, int32(3)}},
			"0000000000000000 1800000010000000 0300000002000000 0100000000000000 0300000000000000"},
		{"empty array", []types.DataType{arrInt}, []any{[]any{}},
			"0000000000000000 0800000010000000 0000000000000000"}, // header 4 bytes, fixed part rounded to 8
		{"array<string>", []types.DataType{types.ArrayOf(tString)}, []any{[]any{"a", "hello world!"}},
			"0000000000000000 2800000010000000 0200000000000000 6100000000000081 0c00000018000000 68656c6c6f20776f 726c642100000000"},
		{"array<boolean>", []types.DataType{types.ArrayOf(types.Boolean())}, []any{[]any{true, false, nil}},
			"0000000000000000 1000000010000000 0300000004000000 0100000000000000"},
		{"array<decimal(20,2)>", []types.DataType{types.ArrayOf(types.DecimalOf(20, 2))}, []any{[]any{dec("100", 20, 2), nil}},
			"0000000000000000 2800000010000000 0200000002000000 0100000018000000 0000000000000000 6400000000000000 0000000000000000"},
		{"array<timestamp(6)>", []types.DataType{types.ArrayOf(types.TimestampOf(6))}, []any{[]any{types.Timestamp{Millis: 1000, NanoOfMilli: 5}}},
			"0000000000000000 1800000010000000 0100000000000000 0500000010000000 e803000000000000"},
		{"map<int,string>", []types.DataType{types.MapOf(types.Int(), tString)}, []any{types.Map{Keys: []any{int32(1), int32(2)}, Values: []any{"x", nil}}},
			"0000000000000000 2c00000010000000 10000000 0200000000000000 0100000002000000 0200000002000000 7800000000000081 0000000000000000 00000000"},
		{"multiset<string>", []types.DataType{types.MultisetOf(tString)}, []any{types.Map{Keys: []any{"a"}, Values: []any{int32(2)}}},
			"0000000000000000 2400000010000000 10000000 0100000000000000 6100000000000081 0100000000000000 0200000000000000 00000000"},
		{"row<int,string>", []types.DataType{types.RowOf(types.Field(0, "a", types.Int()), types.Field(1, "b", tString))},
			[]any{[]any{int32(7), "hello world!"}},
			"0000000000000000 2800000010000000 0000000000000000 0700000000000000 0c00000018000000 68656c6c6f20776f 726c642100000000"},
		{"row with null nested field", []types.DataType{types.RowOf(types.Field(0, "a", types.DecimalOf(20, 0)))},
			[]any{[]any{nil}},
			"0000000000000000 2000000010000000 0001000000000000 0000000010000000 0000000000000000 0000000000000000"},
	}
}

func TestEncodeDecodeVectors(t *testing.T) {
	for _, v := range vectors() {
		t.Run(v.name, func(t *testing.T) {
			want := unhex(t, v.hex)
			r, err := Encode(v.fields, v.values)
			if err != nil {
				t.Fatal(err)
			}
			if got := r.Bytes(); string(got) != string(want) {
				t.Fatalf("Encode =\n %x\nwant\n %x", got, want)
			}
			if r.Arity() != len(v.fields) || r.RowKind() != RowKindInsert {
				t.Fatalf("arity %d kind %d", r.Arity(), r.RowKind())
			}
			in, err := FromBytes(len(v.fields), want)
			if err != nil {
				t.Fatal(err)
			}
			got, err := Decode(v.fields, in)
			if err != nil {
				t.Fatal(err)
			}
			if !sameValue(got, v.values) {
				t.Fatalf("Decode = %#v, want %#v", got, v.values)
			}
			for i := range v.fields {
				f, err := DecodeField(v.fields[i], in, i)
				if err != nil || !sameValue(f, v.values[i]) {
					t.Fatalf("DecodeField(%d) = %#v, %v; want %#v", i, f, err, v.values[i])
				}
			}
		})
	}
}

func TestSerializeDocExample(t *testing.T) {
	r, err := Encode([]types.DataType{tInt, tString, tBigInt}, []any{int32(1), "ab", nil})
	if err != nil {
		t.Fatal(err)
	}
	want := unhex(t, "00000003 0004000000000000 0100000000000000 6162000000000082 0000000000000000")
	got := Serialize(r)
	if string(got) != string(want) {
		t.Fatalf("Serialize = %x", got)
	}
	back, err := Deserialize(got)
	if err != nil || !back.Equal(r) {
		t.Fatalf("Deserialize = %v, %v", back, err)
	}
}

func TestEmptyRow(t *testing.T) {
	want := unhex(t, "00000000 0000000000000000")
	if got := Serialize(EmptyRow()); string(got) != string(want) {
		t.Fatalf("Serialize(EmptyRow) = %x", got)
	}
	if got := Serialize(BinaryRow{}); string(got) != string(want) {
		t.Fatalf("Serialize(zero row) = %x", got)
	}
	enc, err := Encode(nil, nil)
	if err != nil || !enc.Equal(EmptyRow()) {
		t.Fatalf("Encode() = %v, %v", enc, err)
	}
	r, err := Deserialize(want)
	if err != nil || r.Arity() != 0 || r.Size() != 8 {
		t.Fatalf("Deserialize = %v, %v", r, err)
	}
	vals, err := Decode(nil, r)
	if err != nil || len(vals) != 0 {
		t.Fatalf("Decode = %v, %v", vals, err)
	}
	// Murmur3 x86_32, seed 42, of 8 zero bytes (computed with a Python Murmur3).
	if h := HashCode(EmptyRow()); h != -1670924195 || HashCode(BinaryRow{}) != h {
		t.Fatalf("hash %d", h)
	}
}

func TestBitSetWidth(t *testing.T) {
	for _, c := range []struct{ arity, bits, fixed int }{
		{0, 8, 8}, {1, 8, 16}, {56, 8, 456}, {57, 16, 472}, {120, 16, 976}, {121, 24, 992},
	} {
		if BitSetBytes(c.arity) != c.bits || FixedPartSize(c.arity) != c.fixed {
			t.Errorf("arity %d: bits %d fixed %d", c.arity, BitSetBytes(c.arity), FixedPartSize(c.arity))
		}
	}
	// Field 56 of a 57-field row: null bit 64 -> byte 8, mask 0x01.
	fields := make([]types.DataType, 57)
	values := make([]any, 57)
	for i := range fields {
		fields[i] = tInt
		values[i] = int32(i)
	}
	values[56] = nil
	values[0] = nil // bit 8 -> byte 1, mask 0x01
	r, err := Encode(fields, values)
	if err != nil {
		t.Fatal(err)
	}
	b := r.Bytes()
	if len(b) != 472 || b[1] != 0x01 || b[8] != 0x01 || b[16+8] != 1 || b[16+8*55] != 55 {
		t.Fatalf("bit set %x, len %d", b[:16], len(b))
	}
	got, err := Decode(fields, r)
	if err != nil || !sameValue(got, values) {
		t.Fatalf("Decode = %v, %v", got, err)
	}
}

func TestRowKind(t *testing.T) {
	r, err := EncodeKind(RowKindDelete, []types.DataType{tInt}, []any{int32(5)})
	if err != nil {
		t.Fatal(err)
	}
	if r.RowKind() != RowKindDelete || r.Bytes()[0] != 3 {
		t.Fatalf("kind %d", r.RowKind())
	}
	if k := r.WithRowKind(RowKindUpdateAfter); k.RowKind() != 2 || r.RowKind() != 3 {
		t.Fatal("WithRowKind must copy")
	}
	for k, s := range map[byte]string{0: "+I", 1: "-U", 2: "+U", 3: "-D", 9: "?9"} {
		if RowKindString(k) != s {
			t.Errorf("RowKindString(%d) = %s", k, RowKindString(k))
		}
	}
}

func TestNaN(t *testing.T) {
	odd32 := math.Float32frombits(0x7fc00001)
	odd64 := math.Float64frombits(0x7ff8000000000001)
	// Rows keep the raw bits (BinaryRowWriter.writeFloat), arrays write Java's
	// canonical NaN (BinaryArrayWriter.writeFloat / writeDouble).
	r, err := Encode([]types.DataType{types.Float(), types.Double()}, []any{odd32, odd64})
	if err != nil {
		t.Fatal(err)
	}
	if got, want := r.Bytes(), unhex(t, "0000000000000000 0100c07f00000000 010000000000f87f"); string(got) != string(want) {
		t.Fatalf("row NaN %x", got)
	}
	a, err := Encode([]types.DataType{types.ArrayOf(types.Float()), types.ArrayOf(types.Double())},
		[]any{[]any{odd32}, []any{odd64}})
	if err != nil {
		t.Fatal(err)
	}
	want := unhex(t, "0000000000000000 1000000018000000 1000000028000000 0100000000000000 0000c07f00000000 0100000000000000 000000000000f87f")
	if string(a.Bytes()) != string(want) {
		t.Fatalf("array NaN\n %x\nwant\n %x", a.Bytes(), want)
	}
}

func TestCompactTimestampDropsNanos(t *testing.T) {
	// Java writes only getMillisecond() for precision <= 3.
	r, err := Encode([]types.DataType{types.TimestampOf(3)}, []any{types.Timestamp{Millis: 5, NanoOfMilli: 7}})
	if err != nil {
		t.Fatal(err)
	}
	got, err := Decode([]types.DataType{types.TimestampOf(3)}, r)
	if err != nil || got[0] != (types.Timestamp{Millis: 5}) {
		t.Fatalf("got %v, %v", got, err)
	}
}

func TestEncodeErrors(t *testing.T) {
	cases := []struct {
		t    types.DataType
		v    any
		want error
	}{
		{tInt, int64(1), ErrValue},
		{tString, []byte("x"), ErrValue},
		{types.DecimalOf(5, 2), dec("100000", 5, 2), ErrValue}, // 1000.00 needs precision 6
		{types.DecimalOf(20, 2), dec("1", 20, 3), ErrValue},    // scale mismatch
		{types.DecimalOf(20, 2), types.Decimal{Scale: 2}, ErrValue},
		{types.TimestampOf(6), types.Timestamp{NanoOfMilli: 1_000_000}, ErrValue},
		{types.ArrayOf(tInt), []any{"x"}, ErrValue},
		{types.MapOf(tInt, tInt), types.Map{Keys: []any{int32(1)}}, ErrValue},
		{types.RowOf(types.Field(0, "a", tInt)), []any{}, ErrValue},
		{types.Variant(), []byte{1}, ErrUnsupported},
	}
	for i, c := range cases {
		_, err := Encode([]types.DataType{c.t}, []any{c.v})
		if !errors.Is(err, c.want) {
			t.Errorf("case %d: err = %v, want %v", i, err, c.want)
		}
	}
	if _, err := Encode([]types.DataType{tInt}, nil); !errors.Is(err, ErrSchema) {
		t.Errorf("arity mismatch: %v", err)
	}
}

func TestDecodeErrors(t *testing.T) {
	cases := []struct {
		name   string
		fields []types.DataType
		hex    string
	}{
		{"short fixed part", []types.DataType{tInt}, "0000000000000000 01000000"},
		{"string offset past end", []types.DataType{tString}, "0000000000000000 0800000018000000"},
		{"string negative length", []types.DataType{tString}, "0000000000000000 ffffffff10000000 0000000000000000"},
		{"string negative offset", []types.DataType{tString}, "0000000000000000 01000000ffffff7f"},
		{"inline length 9", []types.DataType{tString}, "0000000000000000 0000000000000089"},
		{"decimal zero length", []types.DataType{types.DecimalOf(20, 0)}, "0000000000000000 0000000010000000 0000000000000000 0000000000000000"},
		{"decimal over precision", []types.DataType{types.DecimalOf(19, 0)}, "0000000000000000 1000000010000000 4b3b4ca85a86c47a098a223fffffffff"},
		{"timestamp bad nanos", []types.DataType{types.TimestampOf(9)}, "0000000000000000 40420f0010000000 0000000000000000"},
		{"timestamp millis past end", []types.DataType{types.TimestampOf(9)}, "0000000000000000 0000000014000000 0000000000000000"},
		{"array count too big", []types.DataType{types.ArrayOf(tInt)}, "0000000000000000 0800000010000000 ffffff7f00000000"},
		{"array negative count", []types.DataType{types.ArrayOf(tInt)}, "0000000000000000 0800000010000000 ffffffff00000000"},
		{"array too short", []types.DataType{types.ArrayOf(tInt)}, "0000000000000000 0200000010000000 0000000000000000"},
		{"map key size too big", []types.DataType{types.MapOf(tInt, tInt)}, "0000000000000000 0800000010000000 ff00000000000000"},
		{"nested row too short", []types.DataType{types.RowOf(types.Field(0, "a", tInt))}, "0000000000000000 0800000010000000 0000000000000000"},
	}
	for _, c := range cases {
		r, err := FromBytes(len(c.fields), unhex(t, c.hex))
		if err == nil {
			_, err = Decode(c.fields, r)
		}
		if !errors.Is(err, ErrCorrupt) {
			t.Errorf("%s: err = %v, want ErrCorrupt", c.name, err)
		}
	}
	if _, err := Decode([]types.DataType{tInt, tInt}, EmptyRow()); !errors.Is(err, ErrSchema) {
		t.Errorf("arity mismatch: %v", err)
	}
	for _, s := range []string{"", "000000", "00000001 00000000", "ffffffff 0000000000000000"} {
		if _, err := Deserialize(unhex(t, s)); !errors.Is(err, ErrCorrupt) {
			t.Errorf("Deserialize(%s): %v", s, err)
		}
	}
}

func TestDecodeOverlapBudget(t *testing.T) {
	// An ARRAY<ARRAY<STRING>> whose 8 inner slots all point at one inner array
	// of 8 slots that all point at one 64-byte string: Java never writes
	// shared regions; decoding would expand 200 bytes into 4 KiB of strings.
	inner := make([]byte, 8+8*8)
	inner[0] = 8
	for i := 0; i < 8; i++ {
		putSlotLE(inner[8+8*i:], uint64(len(inner))<<32|64)
	}
	inner = append(inner, make([]byte, 64)...)
	outer := make([]byte, 8+8*8)
	outer[0] = 8
	for i := 0; i < 8; i++ {
		putSlotLE(outer[8+8*i:], uint64(len(outer))<<32|uint64(len(inner)))
	}
	outer = append(outer, inner...)
	rowBytes := make([]byte, 16)
	putSlotLE(rowBytes[8:], 16<<32|uint64(len(outer)))
	rowBytes = append(rowBytes, outer...)
	tt := []types.DataType{types.ArrayOf(types.ArrayOf(tString))}
	_, err := Decode(tt, BinaryRow{arity: 1, data: rowBytes})
	if !errors.Is(err, ErrCorrupt) {
		t.Fatalf("err = %v, want ErrCorrupt", err)
	}
}

func putSlotLE(b []byte, v uint64) {
	for i := 0; i < 8; i++ {
		b[i] = byte(v >> (8 * i))
	}
}

func TestUnscaledBytes(t *testing.T) {
	for _, c := range []struct {
		v   string
		hex string
	}{
		{"0", "00"}, {"1", "01"}, {"127", "7f"}, {"128", "0080"}, {"255", "00ff"}, {"256", "0100"},
		{"-1", "ff"}, {"-128", "80"}, {"-129", "ff7f"}, {"-256", "ff00"}, {"-32768", "8000"}, {"-32769", "ff7fff"},
	} {
		x, _ := new(big.Int).SetString(c.v, 10)
		got := fmt.Sprintf("%x", unscaledBytes(x))
		if got != c.hex {
			t.Errorf("unscaledBytes(%s) = %s, want %s", c.v, got, c.hex)
		}
		if back := fromUnscaledBytes(unhex(t, c.hex)); back.Cmp(x) != 0 {
			t.Errorf("fromUnscaledBytes(%s) = %s", c.hex, back)
		}
	}
}
