package rowfmt

import (
	"bytes"
	"errors"
	"math"
	"math/big"
	"strings"
	"testing"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"
	"github.com/apache/arrow-go/v18/arrow/decimal128"
	"github.com/apache/arrow-go/v18/arrow/decimal256"
	"github.com/apache/arrow-go/v18/arrow/memory"

	"github.com/paimon-go/paimon/types"
)

// column is one test column: its Arrow field, a builder callback and the
// optional Paimon field.
type column struct {
	field  arrow.Field
	build  func(b array.Builder)
	paimon *types.DataField
}

// record builds a one-batch record from columns.
func record(t *testing.T, cols ...column) arrow.RecordBatch {
	t.Helper()
	mem := memory.NewCheckedAllocator(memory.DefaultAllocator)
	t.Cleanup(func() { mem.AssertSize(t, 0) })
	fields := make([]arrow.Field, len(cols))
	for i, c := range cols {
		fields[i] = c.field
	}
	rb := array.NewRecordBuilder(mem, arrow.NewSchema(fields, nil))
	defer rb.Release()
	for i, c := range cols {
		c.build(rb.Field(i))
	}
	rec := rb.NewRecordBatch()
	t.Cleanup(rec.Release)
	return rec
}

// render writes recs in format f and returns the output.
func render(t *testing.T, f Format, opts *Options, recs ...arrow.RecordBatch) string {
	t.Helper()
	var out bytes.Buffer
	w, err := NewWriter(&out, f, opts)
	if err != nil {
		t.Fatal(err)
	}
	for _, r := range recs {
		if err := w.Write(r); err != nil {
			t.Fatalf("Write: %v", err)
		}
	}
	if err := w.Close(); err != nil {
		t.Fatalf("Close: %v", err)
	}
	return out.String()
}

// jsonValues renders a single-column record as JSONL and returns the value
// text of each row (the part after `{"v":` and before `}`).
func jsonValues(t *testing.T, c column) []string {
	t.Helper()
	c.field.Name = "v"
	var opts *Options
	if c.paimon != nil {
		p := *c.paimon
		p.Name = "v"
		opts = &Options{Fields: []types.DataField{p}}
	}
	out := render(t, JSONL, opts, record(t, c))
	var vals []string
	for _, line := range strings.Split(strings.TrimSuffix(out, "\n"), "\n") {
		if !strings.HasPrefix(line, `{"v":`) || !strings.HasSuffix(line, "}") {
			t.Fatalf("line %q is not a one-column object", line)
		}
		vals = append(vals, line[len(`{"v":`):len(line)-1])
	}
	return vals
}

func checkValues(t *testing.T, got, want []string) {
	t.Helper()
	if len(got) != len(want) {
		t.Fatalf("got %d values %q, want %d %q", len(got), got, len(want), want)
	}
	for i := range want {
		if got[i] != want[i] {
			t.Errorf("row %d: got %s, want %s", i, got[i], want[i])
		}
	}
}

func pfield(dt types.DataType) *types.DataField {
	return &types.DataField{ID: 0, Name: "v", Type: dt}
}

func TestIntegers(t *testing.T) {
	cases := []struct {
		name string
		col  column
		want []string
	}{
		{"int8", column{arrow.Field{Type: arrow.PrimitiveTypes.Int8, Nullable: true}, func(b array.Builder) {
			b.(*array.Int8Builder).AppendValues([]int8{-128, 0, 127}, nil)
			b.AppendNull()
		}, nil}, []string{"-128", "0", "127", "null"}},
		{"int16", column{arrow.Field{Type: arrow.PrimitiveTypes.Int16}, func(b array.Builder) {
			b.(*array.Int16Builder).AppendValues([]int16{-32768, 302, 32767}, nil)
		}, nil}, []string{"-32768", "302", "32767"}},
		{"int32", column{arrow.Field{Type: arrow.PrimitiveTypes.Int32}, func(b array.Builder) {
			b.(*array.Int32Builder).AppendValues([]int32{math.MinInt32, 300001, math.MaxInt32}, nil)
		}, nil}, []string{"-2147483648", "300001", "2147483647"}},
		{"int64", column{arrow.Field{Type: arrow.PrimitiveTypes.Int64}, func(b array.Builder) {
			b.(*array.Int64Builder).AppendValues([]int64{math.MinInt64, 3000000001, math.MaxInt64, 9007199254740993}, nil)
		}, nil}, []string{"-9223372036854775808", "3000000001", "9223372036854775807", "9007199254740993"}},
		{"uint64", column{arrow.Field{Type: arrow.PrimitiveTypes.Uint64}, func(b array.Builder) {
			b.(*array.Uint64Builder).AppendValues([]uint64{0, math.MaxUint64}, nil)
		}, nil}, []string{"0", "18446744073709551615"}},
		{"bool", column{arrow.Field{Type: arrow.FixedWidthTypes.Boolean, Nullable: true}, func(b array.Builder) {
			b.(*array.BooleanBuilder).AppendValues([]bool{true, false}, nil)
			b.AppendNull()
		}, nil}, []string{"true", "false", "null"}},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) { checkValues(t, jsonValues(t, c.col), c.want) })
	}
}

func TestFloats(t *testing.T) {
	f32 := column{arrow.Field{Type: arrow.PrimitiveTypes.Float32, Nullable: true}, func(b array.Builder) {
		b.(*array.Float32Builder).AppendValues([]float32{3.1, 5.141, 0.1, 16777216, 1e-7, 1e21, float32(math.NaN()),
			float32(math.Inf(1)), float32(math.Inf(-1)), 0, -2.5, math.MaxFloat32, math.SmallestNonzeroFloat32}, nil)
		b.AppendNull()
	}, nil}
	checkValues(t, jsonValues(t, f32), []string{"3.1", "5.141", "0.1", "16777216", "1e-7", "1e+21", `"NaN"`,
		`"Infinity"`, `"-Infinity"`, "0", "-2.5", "3.4028235e+38", "1e-45", "null"})

	f64 := column{arrow.Field{Type: arrow.PrimitiveTypes.Float64}, func(b array.Builder) {
		b.(*array.Float64Builder).AppendValues([]float64{300.000000001, 11.0, 11.1, 0.000001, 0.0000001, 1e20, 1e21,
			123456789012345680000, math.NaN(), math.Inf(1), math.Inf(-1), math.Copysign(0, -1), 5e-324, math.MaxFloat64}, nil)
	}, nil}
	checkValues(t, jsonValues(t, f64), []string{"300.000000001", "11", "11.1", "0.000001", "1e-7", "100000000000000000000",
		"1e+21", "123456789012345680000", `"NaN"`, `"Infinity"`, `"-Infinity"`, "-0", "5e-324", "1.7976931348623157e+308"})
}

func dec128(s string) decimal128.Num {
	v, ok := new(big.Int).SetString(s, 10)
	if !ok {
		panic(s)
	}
	return decimal128.FromBigInt(v)
}

func TestDecimals(t *testing.T) {
	cases := []struct {
		name      string
		precision int32
		scale     int32
		unscaled  []string
		want      []string
	}{
		{"2_2", 2, 2, []string{"12", "-12", "91", "5", "-5", "0", "99", "-99"},
			[]string{`"0.12"`, `"-0.12"`, `"0.91"`, `"0.05"`, `"-0.05"`, `"0.00"`, `"0.99"`, `"-0.99"`}},
		{"5_0", 5, 0, []string{"123", "-7", "0", "99999"}, []string{`"123"`, `"-7"`, `"0"`, `"99999"`}},
		{"23_5", 23, 5, []string{"12345678998765432145678", "-12345678998765432145678", "1230000", "-12345000", "0", "172855141010010010"},
			[]string{`"123456789987654321.45678"`, `"-123456789987654321.45678"`, `"12.30000"`, `"-123.45000"`, `"0.00000"`, `"1728551410100.10010"`}},
		{"10_3", 10, 3, []string{"-1", "1", "1000", "-1000"}, []string{`"-0.001"`, `"0.001"`, `"1.000"`, `"-1.000"`}},
		{"38_10", 38, 10, []string{"99999999999999999999999999999999999999", "-99999999999999999999999999999999999999"},
			[]string{`"9999999999999999999999999999.9999999999"`, `"-9999999999999999999999999999.9999999999"`}},
		// The int64 fast path boundaries.
		{"20_2", 20, 2, []string{"-9223372036854775808", "9223372036854775807", "9223372036854775808", "-9223372036854775809"},
			[]string{`"-92233720368547758.08"`, `"92233720368547758.07"`, `"92233720368547758.08"`, `"-92233720368547758.09"`}},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			col := column{arrow.Field{Type: &arrow.Decimal128Type{Precision: c.precision, Scale: c.scale}}, func(b array.Builder) {
				for _, u := range c.unscaled {
					b.(*array.Decimal128Builder).Append(dec128(u))
				}
			}, nil}
			checkValues(t, jsonValues(t, col), c.want)
		})
	}
	t.Run("256", func(t *testing.T) {
		v, _ := new(big.Int).SetString("-123456789012345678901234567890123456789012345", 10)
		col := column{arrow.Field{Type: &arrow.Decimal256Type{Precision: 50, Scale: 7}}, func(b array.Builder) {
			b.(*array.Decimal256Builder).Append(decimal256.FromBigInt(v))
		}, nil}
		checkValues(t, jsonValues(t, col), []string{`"-12345678901234567890123456789012345678.9012345"`})
	})
}

func TestDates(t *testing.T) {
	col := column{arrow.Field{Type: arrow.FixedWidthTypes.Date32, Nullable: true}, func(b array.Builder) {
		for _, d := range []int32{0, -1, 81, 1234, -1234, 19909, 20006, -719162, -719528, -719529, 2932896, 2932897} {
			b.(*array.Date32Builder).Append(arrow.Date32(d))
		}
		b.AppendNull()
	}, nil}
	checkValues(t, jsonValues(t, col), []string{`"1970-01-01"`, `"1969-12-31"`, `"1970-03-23"`, `"1973-05-19"`,
		`"1966-08-16"`, `"2024-07-05"`, `"2024-10-10"`, `"0001-01-01"`, `"0000-01-01"`, `"-0001-12-31"`,
		`"9999-12-31"`, `"+10000-01-01"`, "null"})

	col64 := column{arrow.Field{Type: arrow.FixedWidthTypes.Date64}, func(b array.Builder) {
		b.(*array.Date64Builder).AppendValues([]arrow.Date64{0, -1, 86_400_000}, nil)
	}, nil}
	checkValues(t, jsonValues(t, col64), []string{`"1970-01-01"`, `"1969-12-31"`, `"1970-01-02"`})
}

func TestTimes(t *testing.T) {
	ms := func(vals ...int32) func(b array.Builder) {
		return func(b array.Builder) {
			for _, v := range vals {
				b.(*array.Time32Builder).Append(arrow.Time32(v))
			}
		}
	}
	time32ms := arrow.FixedWidthTypes.Time32ms
	// Without Paimon fields: three digits (the Arrow unit).
	checkValues(t, jsonValues(t, column{arrow.Field{Type: time32ms}, ms(0, 3723004, 86399999), nil}),
		[]string{`"00:00:00.000"`, `"01:02:03.004"`, `"23:59:59.999"`})
	// TIME(0): no fraction unless the value needs one.
	checkValues(t, jsonValues(t, column{arrow.Field{Type: time32ms}, ms(3723000, 3723004),
		pfield(types.DataType{Kind: types.KindTime, Precision: 0})}),
		[]string{`"01:02:03"`, `"01:02:03.004"`})
	// TIME(6) over milliseconds: six digits.
	checkValues(t, jsonValues(t, column{arrow.Field{Type: time32ms}, ms(3723004),
		pfield(types.DataType{Kind: types.KindTime, Precision: 6})}),
		[]string{`"01:02:03.004000"`})
	checkValues(t, jsonValues(t, column{arrow.Field{Type: arrow.FixedWidthTypes.Time64ns}, func(b array.Builder) {
		b.(*array.Time64Builder).AppendValues([]arrow.Time64{1, 45296_123456789, -1_000_000_000}, nil)
	}, nil}), []string{`"00:00:00.000000001"`, `"12:34:56.123456789"`, `"-00:00:01.000000000"`})
}

func TestTimestamps(t *testing.T) {
	ts := func(vals ...int64) func(b array.Builder) {
		return func(b array.Builder) {
			for _, v := range vals {
				b.(*array.TimestampBuilder).Append(arrow.Timestamp(v))
			}
		}
	}
	tsType := func(u arrow.TimeUnit, tz string) arrow.DataType { return &arrow.TimestampType{Unit: u, TimeZone: tz} }
	paimonTS := func(p int) *types.DataField {
		return pfield(types.DataType{Kind: types.KindTimestamp, Precision: p, Nullable: true})
	}
	paimonLTZ := func(p int) *types.DataField {
		return pfield(types.DataType{Kind: types.KindLocalZonedTimestamp, Precision: p, Nullable: true})
	}
	// 1899-01-01T00:59:20.001001001 = -2240521240 s + 1001001 ns.
	const pre1900 = -2240521240*1_000_000_000 + 1_001_001
	cases := []struct {
		name string
		col  column
		want []string
	}{
		{"ms_no_fields", column{arrow.Field{Type: tsType(arrow.Millisecond, "")}, ts(0, -1, 1000), nil},
			[]string{`"1970-01-01T00:00:00.000"`, `"1969-12-31T23:59:59.999"`, `"1970-01-01T00:00:01.000"`}},
		{"s_no_fields", column{arrow.Field{Type: tsType(arrow.Second, "")}, ts(-1, 2000000000), nil},
			[]string{`"1969-12-31T23:59:59"`, `"2033-05-18T03:33:20"`}},
		{"timestamp0", column{arrow.Field{Type: tsType(arrow.Millisecond, "")}, ts(1000, 3000, 1500), paimonTS(0)},
			[]string{`"1970-01-01T00:00:01"`, `"1970-01-01T00:00:03"`, `"1970-01-01T00:00:01.500"`}},
		{"timestamp3", column{arrow.Field{Type: tsType(arrow.Millisecond, "")}, ts(1, -2240521239999), paimonTS(3)},
			[]string{`"1970-01-01T00:00:00.001"`, `"1899-01-01T00:59:20.001"`}},
		{"timestamp6", column{arrow.Field{Type: tsType(arrow.Microsecond, "")}, ts(1, 71, -1), paimonTS(6)},
			[]string{`"1970-01-01T00:00:00.000001"`, `"1970-01-01T00:00:00.000071"`, `"1969-12-31T23:59:59.999999"`}},
		{"timestamp9", column{arrow.Field{Type: tsType(arrow.Nanosecond, "")},
			ts(71000, 2000000000_000000000, 2000000000_000001001, pre1900, 1230422400_000123450, math.MinInt64, math.MaxInt64), paimonTS(9)},
			[]string{`"1970-01-01T00:00:00.000071000"`, `"2033-05-18T03:33:20.000000000"`, `"2033-05-18T03:33:20.000001001"`,
				`"1899-01-01T00:59:20.001001001"`, `"2008-12-28T00:00:00.000123450"`, `"1677-09-21T00:12:43.145224192"`,
				`"2262-04-11T23:47:16.854775807"`}},
		{"timestamp3_over_micros", column{arrow.Field{Type: tsType(arrow.Microsecond, "")}, ts(1500, 2000), paimonTS(3)},
			[]string{`"1970-01-01T00:00:00.001500"`, `"1970-01-01T00:00:00.002"`}},
		{"ltz_no_fields", column{arrow.Field{Type: tsType(arrow.Millisecond, "UTC")}, ts(2), nil},
			[]string{`"1970-01-01T00:00:00.002Z"`}},
		{"ltz0", column{arrow.Field{Type: tsType(arrow.Millisecond, "UTC")}, ts(2000, 4000), paimonLTZ(0)},
			[]string{`"1970-01-01T00:00:02Z"`, `"1970-01-01T00:00:04Z"`}},
		{"ltz9", column{arrow.Field{Type: tsType(arrow.Nanosecond, "UTC")}, ts(2, pre1900), paimonLTZ(9)},
			[]string{`"1970-01-01T00:00:00.000000002Z"`, `"1899-01-01T00:59:20.001001001Z"`}},
		// Paimon type wins over the Arrow zone: TIMESTAMP over a zoned Arrow column prints no Z.
		{"plain_over_zoned_arrow", column{arrow.Field{Type: tsType(arrow.Microsecond, "UTC")}, ts(6), paimonTS(6)},
			[]string{`"1970-01-01T00:00:00.000006"`}},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) { checkValues(t, jsonValues(t, c.col), c.want) })
	}
}

func TestStringsAndBinary(t *testing.T) {
	str := column{arrow.Field{Type: arrow.BinaryTypes.String, Nullable: true}, func(b array.Builder) {
		b.(*array.StringBuilder).AppendValues([]string{"s31", "", "a\"b\\c\n\r\t\b\f\x01\x1f<>&é\u2028\u2029😀", "x\xffy\xc3", "\x7f"}, nil)
		b.AppendNull()
	}, nil}
	checkValues(t, jsonValues(t, str), []string{`"s31"`, `""`,
		`"a\"b\\c\n\r\t\b\f\u0001\u001f<>&é\u2028\u2029😀"`, "\"x\ufffdy\ufffd\"", "\"\x7f\"", "null"})

	large := column{arrow.Field{Type: arrow.BinaryTypes.LargeString}, func(b array.Builder) {
		b.(*array.LargeStringBuilder).Append("big")
	}, nil}
	checkValues(t, jsonValues(t, large), []string{`"big"`})

	bin := column{arrow.Field{Type: arrow.BinaryTypes.Binary, Nullable: true}, func(b array.Builder) {
		b.(*array.BinaryBuilder).AppendValues([][]byte{[]byte("a31"), {}, {0xff}, {0xfb, 0xff}, []byte("add")}, nil)
		b.AppendNull()
	}, nil}
	checkValues(t, jsonValues(t, bin), []string{`"YTMx"`, `""`, `"/w=="`, `"+/8="`, `"YWRk"`, "null"})

	fixed := column{arrow.Field{Type: &arrow.FixedSizeBinaryType{ByteWidth: 2}}, func(b array.Builder) {
		b.(*array.FixedSizeBinaryBuilder).Append([]byte{0, 1})
	}, nil}
	checkValues(t, jsonValues(t, fixed), []string{`"AAE="`})
}

// f10Type is MAP<ARRAY<FLOAT>, ROW<f0 BOOLEAN, f1 BIGINT>> of the
// parquet_append_table fixture.
func f10Type() (arrow.DataType, types.DataType) {
	rowArrow := arrow.StructOf(
		arrow.Field{Name: "f0", Type: arrow.FixedWidthTypes.Boolean, Nullable: true},
		arrow.Field{Name: "f1", Type: arrow.PrimitiveTypes.Int64, Nullable: true})
	at := arrow.MapOf(arrow.ListOf(arrow.PrimitiveTypes.Float32), rowArrow)
	fl := types.DataType{Kind: types.KindFloat, Nullable: true}
	pt := types.DataType{Kind: types.KindMap, Nullable: true,
		Key: &types.DataType{Kind: types.KindArray, Elem: &fl},
		Value: &types.DataType{Kind: types.KindRow, Nullable: true, Fields: []types.DataField{
			{ID: 10, Name: "f0", Type: types.DataType{Kind: types.KindBoolean, Nullable: true}},
			{ID: 11, Name: "f1", Type: types.DataType{Kind: types.KindBigInt, Nullable: true}},
		}}}
	return at, pt
}

func TestNested(t *testing.T) {
	at, pt := f10Type()
	appendEntry := func(mb *array.MapBuilder, key []float32, f0 bool, f1 int64, null bool) {
		kb := mb.KeyBuilder().(*array.ListBuilder)
		kb.Append(true)
		kb.ValueBuilder().(*array.Float32Builder).AppendValues(key, nil)
		ib := mb.ItemBuilder().(*array.StructBuilder)
		if null {
			ib.AppendNull()
			return
		}
		ib.Append(true)
		ib.FieldBuilder(0).(*array.BooleanBuilder).Append(f0)
		ib.FieldBuilder(1).(*array.Int64Builder).Append(f1)
	}
	col := column{arrow.Field{Type: at, Nullable: true}, func(b array.Builder) {
		mb := b.(*array.MapBuilder)
		mb.Append(true)
		appendEntry(mb, []float32{5.11, 5.21}, true, 61, false)
		mb.AppendNull()
		mb.Append(true)
		appendEntry(mb, []float32{5.141, 5.241}, false, 641, false)
		appendEntry(mb, []float32{5.14, 5.24}, false, 64, false)
		mb.Append(true)
		appendEntry(mb, []float32{5.16, 5.26}, false, 0, true)
		mb.Append(true) // empty map
	}, pfield(pt)}
	checkValues(t, jsonValues(t, col), []string{
		`[[[5.11,5.21],{"f0":true,"f1":61}]]`,
		`null`,
		`[[[5.141,5.241],{"f0":false,"f1":641}],[[5.14,5.24],{"f0":false,"f1":64}]]`,
		`[[[5.16,5.26],null]]`,
		`[]`,
	})

	// ROW<f0 STRING, f1 INT, f2 ARRAY<INT>, ts TIMESTAMP(0)> with a nested
	// timestamp whose precision only the Paimon type knows.
	rowArrow := arrow.StructOf(
		arrow.Field{Name: "f0", Type: arrow.BinaryTypes.String, Nullable: true},
		arrow.Field{Name: "f1", Type: arrow.PrimitiveTypes.Int32, Nullable: true},
		arrow.Field{Name: "f2", Type: arrow.ListOf(arrow.PrimitiveTypes.Int32), Nullable: true},
		arrow.Field{Name: "ts", Type: &arrow.TimestampType{Unit: arrow.Millisecond}, Nullable: true})
	rowPaimon := types.DataType{Kind: types.KindRow, Nullable: true, Fields: []types.DataField{
		{ID: 5, Name: "f0", Type: types.DataType{Kind: types.KindVarChar, Length: types.MaxLength, Nullable: true}},
		{ID: 6, Name: "f1", Type: types.DataType{Kind: types.KindInt, Nullable: true}},
		{ID: 7, Name: "f2", Type: types.DataType{Kind: types.KindArray, Nullable: true, Elem: &types.DataType{Kind: types.KindInt, Nullable: true}}},
		{ID: 9, Name: "ts", Type: types.DataType{Kind: types.KindTimestamp, Precision: 0, Nullable: true}},
	}}
	rowCol := column{arrow.Field{Type: rowArrow, Nullable: true}, func(b array.Builder) {
		sb := b.(*array.StructBuilder)
		sb.Append(true)
		sb.FieldBuilder(0).(*array.StringBuilder).Append("str-5")
		sb.FieldBuilder(1).(*array.Int32Builder).Append(500)
		lb := sb.FieldBuilder(2).(*array.ListBuilder)
		lb.Append(true)
		lb.ValueBuilder().(*array.Int32Builder).AppendValues([]int32{5, 0, 6}, []bool{true, false, true})
		sb.FieldBuilder(3).(*array.TimestampBuilder).Append(-1000)
		sb.AppendNull()
		sb.Append(true)
		sb.FieldBuilder(0).AppendNull()
		sb.FieldBuilder(1).AppendNull()
		sb.FieldBuilder(2).AppendNull()
		sb.FieldBuilder(3).AppendNull()
	}, pfield(rowPaimon)}
	checkValues(t, jsonValues(t, rowCol), []string{
		`{"f0":"str-5","f1":500,"f2":[5,null,6],"ts":"1969-12-31T23:59:59"}`,
		`null`,
		`{"f0":null,"f1":null,"f2":null,"ts":null}`,
	})
	// Without Paimon fields the nested timestamp prints its Arrow unit digits.
	rowCol.paimon = nil
	checkValues(t, jsonValues(t, rowCol)[:1], []string{`{"f0":"str-5","f1":500,"f2":[5,null,6],"ts":"1969-12-31T23:59:59.000"}`})

	// MULTISET<STRING> is Map(elem, Int32): [element, count] pairs.
	msCol := column{arrow.Field{Type: arrow.MapOf(arrow.BinaryTypes.String, arrow.PrimitiveTypes.Int32)}, func(b array.Builder) {
		mb := b.(*array.MapBuilder)
		mb.Append(true)
		mb.KeyBuilder().(*array.StringBuilder).AppendValues([]string{"a", "b"}, nil)
		mb.ItemBuilder().(*array.Int32Builder).AppendValues([]int32{2, 1}, nil)
	}, pfield(types.DataType{Kind: types.KindMultiset, Elem: &types.DataType{Kind: types.KindVarChar, Length: 3}})}
	checkValues(t, jsonValues(t, msCol), []string{`[["a",2],["b",1]]`})
}

func TestSlicedNested(t *testing.T) {
	// A sliced record (non-zero offsets in map, list and struct children).
	mapType := arrow.MapOf(arrow.PrimitiveTypes.Int32, arrow.PrimitiveTypes.Int32)
	rec := record(t,
		column{arrow.Field{Name: "shopId", Type: arrow.PrimitiveTypes.Int32}, func(b array.Builder) {
			b.(*array.Int32Builder).AppendValues([]int32{1000, 1001, 1002}, nil)
		}, nil},
		column{arrow.Field{Name: "col2", Type: mapType, Nullable: true}, func(b array.Builder) {
			mb := b.(*array.MapBuilder)
			for n := int32(0); n < 3; n++ {
				mb.Append(true)
				mb.KeyBuilder().(*array.Int32Builder).AppendValues([]int32{n, 100 + n}, nil)
				mb.ItemBuilder().(*array.Int32Builder).AppendValues([]int32{n, 100 + n}, nil)
			}
		}, nil})
	sliced := rec.NewSlice(1, 3)
	defer sliced.Release()
	got := render(t, JSONL, nil, sliced)
	want := `{"shopId":1001,"col2":[[1,1],[101,101]]}` + "\n" + `{"shopId":1002,"col2":[[2,2],[102,102]]}` + "\n"
	if got != want {
		t.Errorf("got\n%s\nwant\n%s", got, want)
	}
}

func TestDictionaryAndNull(t *testing.T) {
	mem := memory.NewCheckedAllocator(memory.DefaultAllocator)
	defer mem.AssertSize(t, 0)
	dt := &arrow.DictionaryType{IndexType: arrow.PrimitiveTypes.Int8, ValueType: arrow.BinaryTypes.String}
	db := array.NewDictionaryBuilder(mem, dt).(*array.BinaryDictionaryBuilder)
	defer db.Release()
	for _, s := range []string{"x", "y", "x"} {
		if err := db.AppendString(s); err != nil {
			t.Fatal(err)
		}
	}
	db.AppendNull()
	dict := db.NewArray()
	defer dict.Release()
	nb := array.NewNullBuilder(mem)
	defer nb.Release()
	nb.AppendNulls(4)
	nulls := nb.NewArray()
	defer nulls.Release()
	schema := arrow.NewSchema([]arrow.Field{{Name: "d", Type: dt, Nullable: true}, {Name: "n", Type: arrow.Null, Nullable: true}}, nil)
	rec := array.NewRecordBatch(schema, []arrow.Array{dict, nulls}, 4)
	defer rec.Release()
	got := render(t, JSONL, nil, rec)
	want := `{"d":"x","n":null}` + "\n" + `{"d":"y","n":null}` + "\n" + `{"d":"x","n":null}` + "\n" + `{"d":null,"n":null}` + "\n"
	if got != want {
		t.Errorf("got\n%s\nwant\n%s", got, want)
	}
}

// sample returns a two-batch table of mixed types for the writer tests.
func sample(t *testing.T) (arrow.RecordBatch, arrow.RecordBatch, []types.DataField) {
	build := func(names []string, ids []int32, decs []string, ts []int64, tags [][]string) arrow.RecordBatch {
		return record(t,
			column{arrow.Field{Name: "name", Type: arrow.BinaryTypes.String, Nullable: true}, func(b array.Builder) {
				for _, n := range names {
					if n == "<null>" {
						b.AppendNull()
					} else {
						b.(*array.StringBuilder).Append(n)
					}
				}
			}, nil},
			column{arrow.Field{Name: "id", Type: arrow.PrimitiveTypes.Int32}, func(b array.Builder) {
				b.(*array.Int32Builder).AppendValues(ids, nil)
			}, nil},
			column{arrow.Field{Name: "amount", Type: &arrow.Decimal128Type{Precision: 5, Scale: 2}, Nullable: true}, func(b array.Builder) {
				for _, d := range decs {
					if d == "" {
						b.AppendNull()
					} else {
						b.(*array.Decimal128Builder).Append(dec128(d))
					}
				}
			}, nil},
			column{arrow.Field{Name: "ts", Type: &arrow.TimestampType{Unit: arrow.Millisecond}, Nullable: true}, func(b array.Builder) {
				for _, v := range ts {
					b.(*array.TimestampBuilder).Append(arrow.Timestamp(v))
				}
			}, nil},
			column{arrow.Field{Name: "tags", Type: arrow.ListOf(arrow.BinaryTypes.String), Nullable: true}, func(b array.Builder) {
				lb := b.(*array.ListBuilder)
				for _, tg := range tags {
					if tg == nil {
						lb.AppendNull()
						continue
					}
					lb.Append(true)
					lb.ValueBuilder().(*array.StringBuilder).AppendValues(tg, nil)
				}
			}, nil},
		)
	}
	r1 := build([]string{"Alice", "Bob, \"the\" builder"}, []int32{1, -20}, []string{"1234", ""},
		[]int64{1000, 1500}, [][]string{{"a", "b"}, nil})
	r2 := build([]string{"<null>"}, []int32{300}, []string{"-5"}, []int64{-1000}, [][]string{{}})
	str := types.DataType{Kind: types.KindVarChar, Length: types.MaxLength, Nullable: true}
	fields := []types.DataField{
		{ID: 0, Name: "name", Type: str},
		{ID: 1, Name: "id", Type: types.DataType{Kind: types.KindInt}},
		{ID: 2, Name: "amount", Type: types.DataType{Kind: types.KindDecimal, Precision: 5, Scale: 2, Nullable: true}},
		{ID: 3, Name: "ts", Type: types.DataType{Kind: types.KindTimestamp, Precision: 0, Nullable: true}},
		{ID: 4, Name: "tags", Type: types.DataType{Kind: types.KindArray, Nullable: true, Elem: &str}},
	}
	return r1, r2, fields
}

func TestWriterJSONL(t *testing.T) {
	r1, r2, fields := sample(t)
	got := render(t, JSONL, &Options{Fields: fields}, r1, r2)
	want := `{"name":"Alice","id":1,"amount":"12.34","ts":"1970-01-01T00:00:01","tags":["a","b"]}
{"name":"Bob, \"the\" builder","id":-20,"amount":null,"ts":"1970-01-01T00:00:01.500","tags":null}
{"name":null,"id":300,"amount":"-0.05","ts":"1969-12-31T23:59:59","tags":[]}
`
	if got != want {
		t.Errorf("got\n%s\nwant\n%s", got, want)
	}
}

func TestWriterCSV(t *testing.T) {
	r1, r2, fields := sample(t)
	got := render(t, CSV, &Options{Fields: fields}, r1, r2)
	want := `name,id,amount,ts,tags
Alice,1,12.34,1970-01-01T00:00:01,"[""a"",""b""]"
"Bob, ""the"" builder",-20,,1970-01-01T00:00:01.500,
,300,-0.05,1969-12-31T23:59:59,[]
`
	if got != want {
		t.Errorf("got\n%s\nwant\n%s", got, want)
	}
	got = render(t, CSV, &Options{NoHeader: true}, r2)
	if want := ",300,-0.05,1969-12-31T23:59:59.000,[]\n"; got != want {
		t.Errorf("no header: got %q, want %q", got, want)
	}
}

func TestWriterTable(t *testing.T) {
	r1, r2, fields := sample(t)
	got := render(t, Table, &Options{Fields: fields, MaxWidth: 12}, r1, r2)
	want := "" +
		"name         |  id | amount | ts           | tags\n" +
		"-------------+-----+--------+--------------+----------\n" +
		"Alice        |   1 |  12.34 | 1970-01-01T… | [\"a\",\"b\"]\n" +
		"Bob, \"the\" … | -20 |   NULL | 1970-01-01T… | NULL\n" +
		"NULL         | 300 |  -0.05 | 1969-12-31T… | []\n" +
		"(3 rows)\n"
	if got != want {
		t.Errorf("got\n%s\nwant\n%s", got, want)
	}
}

func TestWriterTableEscapes(t *testing.T) {
	rec := record(t, column{arrow.Field{Name: "s", Type: arrow.BinaryTypes.String}, func(b array.Builder) {
		b.(*array.StringBuilder).AppendValues([]string{"a\nb\tc\x1b", "日本語"}, nil)
	}, nil})
	got := render(t, Table, nil, rec)
	want := "s\n" + "-----------\n" + `a\nb\tc\x1b` + "\n日本語\n(2 rows)\n"
	if got != want {
		t.Errorf("got\n%q\nwant\n%q", got, want)
	}
	one := rec.NewSlice(1, 2)
	defer one.Release()
	if got, want := render(t, Table, nil, one), "s\n---\n日本語\n(1 row)\n"; got != want {
		t.Errorf("got %q, want %q", got, want)
	}
}

func TestParseFormat(t *testing.T) {
	for name, want := range map[string]Format{"jsonl": JSONL, "JSON": JSONL, "csv": CSV, "table": Table} {
		got, err := ParseFormat(name)
		if err != nil || got != want {
			t.Errorf("ParseFormat(%q) = %v, %v; want %v", name, got, err, want)
		}
	}
	if _, err := ParseFormat("xml"); !errors.Is(err, ErrUnknownFormat) {
		t.Errorf("ParseFormat(xml) error = %v, want ErrUnknownFormat", err)
	}
	if _, err := NewWriter(&bytes.Buffer{}, Format(99), nil); !errors.Is(err, ErrUnknownFormat) {
		t.Errorf("NewWriter(99) error = %v, want ErrUnknownFormat", err)
	}
	if s := CSV.String(); s != "csv" {
		t.Errorf("CSV.String() = %q", s)
	}
}

func TestWriterErrors(t *testing.T) {
	r1, _, fields := sample(t)
	other := record(t, column{arrow.Field{Name: "x", Type: arrow.PrimitiveTypes.Int32}, func(b array.Builder) {
		b.(*array.Int32Builder).Append(1)
	}, nil})

	w, _ := NewWriter(&bytes.Buffer{}, JSONL, nil)
	if err := w.Write(r1); err != nil {
		t.Fatal(err)
	}
	if err := w.Write(other); !errors.Is(err, ErrSchemaMismatch) {
		t.Errorf("second schema: error = %v, want ErrSchemaMismatch", err)
	}
	w.Close()
	if err := w.Write(r1); !errors.Is(err, ErrClosed) {
		t.Errorf("after Close: error = %v, want ErrClosed", err)
	}

	w, _ = NewWriter(&bytes.Buffer{}, JSONL, &Options{Fields: fields[:2]})
	if err := w.Write(r1); !errors.Is(err, ErrSchemaMismatch) {
		t.Errorf("short Fields: error = %v, want ErrSchemaMismatch", err)
	}
	bad := append([]types.DataField(nil), fields...)
	bad[3].Type = types.DataType{Kind: types.KindRow}
	w, _ = NewWriter(&bytes.Buffer{}, JSONL, &Options{Fields: bad})
	if err := w.Write(r1); !errors.Is(err, ErrSchemaMismatch) {
		t.Errorf("ROW over timestamp: error = %v, want ErrSchemaMismatch", err)
	}

	interval := record(t, column{arrow.Field{Name: "i", Type: arrow.FixedWidthTypes.MonthInterval}, func(b array.Builder) {
		b.(*array.MonthIntervalBuilder).Append(3)
	}, nil})
	for _, f := range []Format{JSONL, CSV, Table} {
		w, _ = NewWriter(&bytes.Buffer{}, f, nil)
		if err := w.Write(interval); !errors.Is(err, ErrUnsupportedType) {
			t.Errorf("%v interval: error = %v, want ErrUnsupportedType", f, err)
		}
	}
}

func TestFormatWriterEmpty(t *testing.T) {
	// A zero-row record still yields the CSV header and the table frame.
	_, r2, _ := sample(t)
	empty := r2.NewSlice(0, 0)
	defer empty.Release()
	if got, want := render(t, CSV, nil, empty), "name,id,amount,ts,tags\n"; got != want {
		t.Errorf("csv: got %q, want %q", got, want)
	}
	if got := render(t, JSONL, nil, empty); got != "" {
		t.Errorf("jsonl: got %q, want empty", got)
	}
	if got, want := render(t, Table, nil, empty), "name | id | amount | ts | tags\n-----+----+--------+----+-----\n(0 rows)\n"; got != want {
		t.Errorf("table: got %q, want %q", got, want)
	}
	// Nothing written at all: no output.
	if got := render(t, Table, nil); got != "" {
		t.Errorf("table without records: got %q", got)
	}
}
