package merge

import (
	"fmt"
	"math"
	"strings"
	"testing"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"
	"github.com/apache/arrow-go/v18/arrow/decimal128"
	"github.com/apache/arrow-go/v18/arrow/memory"
)

// normKeyValues are edge values per Arrow key type, in ascending order (Java's
// order; nil is null, first). Values of one entry are distinct.
var normKeyValues = []struct {
	dt   arrow.DataType
	vals []any
}{
	{arrow.PrimitiveTypes.Int64, []any{nil, int64(math.MinInt64), int64(-256), int64(-1), int64(0), int64(1), int64(255), int64(256), int64(math.MaxInt64)}},
	{arrow.PrimitiveTypes.Int32, []any{nil, int32(math.MinInt32), int32(-1), int32(0), int32(1), int32(math.MaxInt32)}},
	{arrow.PrimitiveTypes.Int16, []any{nil, int16(math.MinInt16), int16(-1), int16(0), int16(math.MaxInt16)}},
	{arrow.PrimitiveTypes.Int8, []any{nil, int8(math.MinInt8), int8(-1), int8(0), int8(math.MaxInt8)}},
	{arrow.FixedWidthTypes.Boolean, []any{nil, false, true}},
	{arrow.PrimitiveTypes.Float64, []any{nil, math.Inf(-1), -1.5, math.Copysign(0, -1), 0.0, 5e-324, 1.5, math.Inf(1), math.NaN()}},
	{arrow.PrimitiveTypes.Float32, []any{nil, float32(math.Inf(-1)), float32(-2), float32(math.Copysign(0, -1)), float32(0), float32(3), float32(math.NaN())}},
	{&arrow.Decimal128Type{Precision: 38, Scale: 2}, []any{nil, decimal128.FromI64(math.MinInt64).Mul(decimal128.FromI64(1 << 40)), decimal128.FromI64(-1), decimal128.FromI64(0), decimal128.FromI64(1), decimal128.FromU64(math.MaxUint64), decimal128.MaxDecimal128}},
	{&arrow.FixedSizeBinaryType{ByteWidth: 3}, []any{nil, []byte{0, 0, 0}, []byte{0, 0, 1}, []byte{1, 0, 0}, []byte{0xff, 0xff, 0xff}}},
	{arrow.BinaryTypes.String, []any{nil, "", "\x00", "\x00\x00", "\x00\x01", "\x01", "\x01\x00", "\x02", "A", "AB", "ABC", "ABC\x00", "ABC\x01", "ABCD",
		"ABCDEFG", "ABCDEFGH", "ABCDEFGHI", "ABCDEFGHIJKLMN", "ABCDEFGHIJKLMNO", "ABCDEFGHIJKLMNOP", "ABCDEFGHIJKLMNOPQ", "ABCDEFGHIJKLMNOPQRSTUVWXYZ",
		"ABCDEFGHIJKLMNOPQRSTUVWXYZ\x00", "ABCDEFGHIJKLMNOQ", "ABD", "\x7f", "\xc3\xa9", "\xff", "\xff\xff\xff\xff\xff\xff\xff\xff\xff"}},
	{arrow.BinaryTypes.LargeString, []any{nil, "", "\x00", "\x01", "a", "a\x00b", "a\x01", "ab", strings.Repeat("x", 20), strings.Repeat("x", 21), "y"}},
	{arrow.BinaryTypes.Binary, []any{nil, []byte{}, []byte{0}, []byte{0, 0}, []byte{1}, []byte{1, 1}, []byte{2}, []byte{0xfe, 0xff}, []byte{0xff}}},
}

// normKeyArray builds an array of dt from vals (nil: null).
func normKeyArray(t *testing.T, dt arrow.DataType, vals []any) arrow.Array {
	t.Helper()
	b := array.NewBuilder(memory.DefaultAllocator, dt)
	defer b.Release()
	for _, v := range vals {
		if v == nil {
			b.AppendNull()
			continue
		}
		switch b := b.(type) {
		case *array.Int64Builder:
			b.Append(v.(int64))
		case *array.TimestampBuilder:
			b.Append(arrow.Timestamp(v.(int64)))
		case *array.Int32Builder:
			b.Append(v.(int32))
		case *array.Int16Builder:
			b.Append(v.(int16))
		case *array.Int8Builder:
			b.Append(v.(int8))
		case *array.BooleanBuilder:
			b.Append(v.(bool))
		case *array.Float64Builder:
			b.Append(v.(float64))
		case *array.Float32Builder:
			b.Append(v.(float32))
		case *array.Decimal128Builder:
			b.Append(v.(decimal128.Num))
		case *array.FixedSizeBinaryBuilder:
			b.Append(v.([]byte))
		case *array.StringBuilder:
			b.Append(v.(string))
		case *array.LargeStringBuilder:
			b.Append(v.(string))
		case *array.BinaryBuilder:
			b.Append(v.([]byte))
		default:
			t.Fatalf("no builder for %s", dt)
		}
	}
	return b.NewArray()
}

// normKeyBatch loads the key columns of a batch whose row i has the values
// rows[i][k] for key column k of type dts[k] (at least one row), encoded
// with e.
func normKeyBatch(t *testing.T, e *keyEncoder, dts []arrow.DataType, rows [][]any) (*Merger, *batch) {
	t.Helper()
	m := &Merger{}
	b := &batch{n: len(rows)}
	for k, dt := range dts {
		// The arrays are slices starting at row 1 of a longer array, so
		// that offsets and validity bits do not start at 0.
		col := make([]any, len(rows)+1)
		col[0] = rows[len(rows)-1][k]
		for i := range rows {
			col[i+1] = rows[i][k]
		}
		whole := normKeyArray(t, dt, col)
		arr := array.NewSlice(whole, 1, int64(len(col)))
		whole.Release()
		t.Cleanup(arr.Release)
		var v colView
		cls := classOf(dt)
		if err := v.load(cls, arr); err != nil {
			t.Fatal(err)
		}
		m.keyCls = append(m.keyCls, cls)
		b.keys = append(b.keys, v)
	}
	m.wideKey = wideKey(m.keyCls)
	b.nk.hi = make([]uint64, b.n)
	if m.wideKey {
		b.nk.lo = make([]uint64, b.n)
	}
	for i := range b.n { // garbage: encode must not rely on zeroed words
		b.nk.hi[i] = 0x5555555555555555
		if b.nk.lo != nil {
			b.nk.lo[i] = 0xaaaaaaaaaaaaaaaa
		}
	}
	e.encode(&b.nk, m.keyCls, b.keys)
	return m, b
}

// checkNormOrder checks, for every pair of rows of a and b, that the
// normalized keys agree with cmpKeys wherever they decide, and that compare
// always does. It returns the number of pairs the prefixes decided.
func checkNormOrder(t *testing.T, m *Merger, a, b *batch) int {
	t.Helper()
	decided := 0
	for i := range a.n {
		for j := range b.n {
			want := m.cmpKeys(a, i, b, j)
			x, xw := a.nk.at(i)
			y, yw := b.nk.at(j)
			o := x.cmp(y)
			if o != 0 || xw && yw {
				decided++
				if o != want {
					t.Fatalf("rows %d and %d: prefixes %016x%016x (whole %v) and %016x%016x (whole %v) compare %d, keys compare %d",
						i, j, x.hi, x.lo, xw, y.hi, y.lo, yw, o, want)
				}
			}
			if got := m.compare(a, i, b, j); got != want {
				t.Fatalf("rows %d and %d: compare = %d, cmpKeys = %d", i, j, got, want)
			}
		}
	}
	return decided
}

// TestNormKeySingleColumn checks the normalized keys of single-column keys
// of every orderable class against the Java order: values listed ascending
// must get strictly ascending prefixes where whole, and agree with cmpKeys
// on every pair.
func TestNormKeySingleColumn(t *testing.T) {
	for _, tc := range normKeyValues {
		t.Run(tc.dt.String(), func(t *testing.T) {
			rows := make([][]any, 0, 2*len(tc.vals))
			for _, v := range tc.vals {
				rows = append(rows, []any{v}, []any{v}) // each twice: equal keys
			}
			var e keyEncoder
			m, b := normKeyBatch(t, &e, []arrow.DataType{tc.dt}, rows)
			for i := 0; i+2 < b.n; i += 2 {
				if c := m.cmpKeys(b, i, b, i+2); c >= 0 {
					t.Fatalf("test values %q and %q are not ascending (cmpKeys %d)", tc.vals[i/2], tc.vals[i/2+1], c)
				}
			}
			checkNormOrder(t, m, b, b)
			// Without the null row, keys of at most 15 encoded bytes are whole.
			for i := 2; i < b.n; i++ {
				_, whole := b.nk.at(i)
				long := false
				if s, ok := tc.vals[i/2].(string); ok {
					escaped := len(s) + strings.Count(s, "\x00") + strings.Count(s, "\x01")
					long = escaped+1 > normKeyBytes
				}
				if whole == long {
					t.Errorf("row %d (%q): whole = %v", i, tc.vals[i/2], whole)
				}
			}
			if _, whole := b.nk.at(0); whole {
				t.Errorf("null key is whole")
			}
		})
	}
}

// TestNormKeyComposite checks composite keys: all combinations of a few
// values per column, within one batch and across a batch with nulls
// (encoded row by row) and one without (encoded column at a time).
func TestNormKeyComposite(t *testing.T) {
	byType := map[string][]any{}
	for _, tc := range normKeyValues {
		byType[tc.dt.String()] = tc.vals
	}
	pick := func(dt arrow.DataType, idx ...int) []any {
		var out []any
		for _, i := range idx {
			out = append(out, byType[dt.String()][i])
		}
		return out
	}
	str, i64, i32, dec := arrow.BinaryTypes.String, arrow.PrimitiveTypes.Int64, arrow.PrimitiveTypes.Int32, &arrow.Decimal128Type{Precision: 38, Scale: 2}
	f64, bin, fixed, b8 := arrow.PrimitiveTypes.Float64, arrow.BinaryTypes.Binary, &arrow.FixedSizeBinaryType{ByteWidth: 3}, arrow.FixedWidthTypes.Boolean
	ts := &arrow.TimestampType{Unit: arrow.Microsecond}
	tsVals := []any{nil, int64(-1), int64(0), int64(1_700_000_000_000_000), int64(1_700_000_060_000_000)}
	cases := []struct {
		dts  []arrow.DataType
		vals [][]any
	}{
		// The flights key: two short strings and a timestamp fill the 16 bytes.
		{[]arrow.DataType{str, str, ts}, [][]any{pick(str, 0, 1, 2, 8, 10, 11, 12, 13), pick(str, 0, 1, 5, 10, 13, 25), tsVals}},
		{[]arrow.DataType{str, i64}, [][]any{pick(str, 0, 1, 2, 10, 14, 16, 17, 18, 19, 21, 23), pick(i64, 0, 1, 4, 5, 8)}},
		{[]arrow.DataType{i32, str}, [][]any{pick(i32, 0, 1, 3, 5), pick(str, 0, 1, 3, 6, 12, 15, 17, 18)}},
		{[]arrow.DataType{i64, i64}, [][]any{pick(i64, 0, 1, 3, 4, 5, 8), pick(i64, 0, 1, 4, 7, 8)}},
		{[]arrow.DataType{i64, i64, i32}, [][]any{pick(i64, 0, 4, 5), pick(i64, 0, 1, 5), pick(i32, 0, 1, 3, 5)}},
		{[]arrow.DataType{dec, i64}, [][]any{pick(dec, 0, 1, 2, 3, 6), pick(i64, 0, 1, 5)}},
		{[]arrow.DataType{i32, dec}, [][]any{pick(i32, 0, 2, 3), pick(dec, 0, 1, 3, 4, 5)}},
		{[]arrow.DataType{f64, f64}, [][]any{pick(f64, 0, 1, 3, 4, 7, 8), pick(f64, 0, 2, 3, 4, 8)}},
		{[]arrow.DataType{b8, bin, fixed}, [][]any{pick(b8, 0, 1, 2), pick(bin, 0, 1, 2, 4, 5, 8), pick(fixed, 0, 1, 2, 4)}},
		{[]arrow.DataType{fixed, i64, i64}, [][]any{pick(fixed, 1, 3, 4), pick(i64, 1, 4, 5), pick(i64, 0, 4, 8)}},
	}
	for _, tc := range cases {
		name := fmt.Sprint(tc.dts)
		t.Run(name, func(t *testing.T) {
			// All combinations, in key order as the loops nest (values are
			// ascending per column).
			// withNull has nulls everywhere (encoded row by row from the
			// first column on), lastNull only in the last column (encoded
			// column at a time up to it), noNull none.
			var withNull, lastNull, noNull [][]any
			var rec func(k int, row []any)
			rec = func(k int, row []any) {
				if k == len(tc.vals) {
					r := append([]any(nil), row...)
					withNull = append(withNull, r)
					if !containsNil(r[:len(r)-1]) {
						lastNull = append(lastNull, r)
					}
					if !containsNil(r) {
						noNull = append(noNull, r)
					}
					return
				}
				for _, v := range tc.vals[k] {
					rec(k+1, append(row, v))
				}
			}
			rec(0, nil)
			var e keyEncoder
			m, a := normKeyBatch(t, &e, tc.dts, withNull)
			_, b := normKeyBatch(t, &e, tc.dts, noNull)
			_, c := normKeyBatch(t, &e, tc.dts, lastNull)
			for i := 0; i+1 < a.n; i++ {
				if c := m.cmpKeys(a, i, a, i+1); c >= 0 {
					t.Fatalf("rows %v and %v are not ascending", withNull[i], withNull[i+1])
				}
			}
			checkNormOrder(t, m, a, a)
			checkNormOrder(t, m, a, b)
			checkNormOrder(t, m, c, c)
			checkNormOrder(t, m, c, a)
			checkNormOrder(t, m, b, c)
			if decided := checkNormOrder(t, m, b, b); decided == 0 {
				t.Errorf("no pair decided by the prefixes")
			}
		})
	}
}

func containsNil(row []any) bool {
	for _, v := range row {
		if v == nil {
			return true
		}
	}
	return false
}

// TestNormKeyFlightsWhole pins the encoding (computed by hand from the rules
// in normkey.go) and the layout that makes the flights key fast: (origin,
// destination) of three letters each and a timestamp encode into exactly 16
// bytes, so every such key is whole.
func TestNormKeyFlightsWhole(t *testing.T) {
	ts := &arrow.TimestampType{Unit: arrow.Microsecond}
	var e keyEncoder
	_, b := normKeyBatch(t, &e, []arrow.DataType{arrow.BinaryTypes.String, arrow.BinaryTypes.String, ts},
		[][]any{{"SFO", "JFK", int64(1)}, {"ABC", "DE", int64(-1)}})
	want := []normKey{
		{hi: 0x53464f004a464b00, lo: 0x8000000000000001}, // "SFO\0" "JFK\0" 1^(1<<63)
		{hi: 0x414243004445007f, lo: 0xffffffffffffff00}, // "ABC\0" "DE\0" (-1)^(1<<63), then zero padding
	}
	for i, w := range want {
		if got, whole := b.nk.at(i); got != w || !whole {
			t.Errorf("row %d: prefix %016x %016x whole %v, want %016x %016x whole", i, got.hi, got.lo, whole, w.hi, w.lo)
		}
	}
}
