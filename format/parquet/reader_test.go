package parquet

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"strconv"
	"strings"
	"testing"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"
	"github.com/apache/arrow-go/v18/arrow/memory"
	"github.com/apache/arrow-go/v18/parquet"
	"github.com/apache/arrow-go/v18/parquet/file"
	"github.com/apache/arrow-go/v18/parquet/pqarrow"
	"github.com/apache/arrow-go/v18/parquet/schema"

	"github.com/paimon-go/paimon/format"
	"github.com/paimon-go/paimon/types"
)

// TestSchemaEvolution writes a file with the old schema and reads it with a
// newer one: widened primitives (TINYINT->INT, INT->BIGINT, FLOAT->DOUBLE,
// DECIMAL(5,2)->DECIMAL(10,2), TIMESTAMP(3)->TIMESTAMP(6)), a renamed
// column (matched by id), an added top-level column and an added nested
// ROW field (nulls), a dropped column, and a new column order.
func TestSchemaEvolution(t *testing.T) {
	f := types.Field
	old := []types.DataField{
		f(0, "a", types.TinyInt()),
		f(1, "b", types.Int()),
		f(2, "c", types.Float()),
		f(3, "d", types.DecimalOf(5, 2)),
		f(4, "e", types.TimestampOf(3)),
		f(5, "gone", types.String()),
		f(6, "r", types.RowOf(f(7, "x", types.Int()))),
		f(9, "l", types.ArrayOf(types.Int())),
	}
	rec := recordFromJSON(t, old, `[
		{"a":-5,"b":2147483647,"c":0.5,"d":"-123.45","e":1500,"gone":"x","r":{"x":1},"l":[1,2]},
		{"a":null,"b":-2147483648,"c":null,"d":"999.99","e":-1,"gone":null,"r":null,"l":null}]`)
	defer rec.Release()
	data, _ := writeFile(t, old, nil, rec)

	newer := []types.DataField{
		f(10, "added", types.String()),
		f(6, "r", types.RowOf(f(8, "y", types.String()), f(7, "x2", types.BigInt()))),
		f(4, "e", types.TimestampOf(6)),
		f(3, "d", types.DecimalOf(10, 2)),
		f(2, "c", types.Double()),
		f(1, "b_renamed", types.BigInt()),
		f(0, "a", types.Int()),
		f(9, "l", types.ArrayOf(types.BigInt())),
	}
	rows, _ := readBytes(t, data, newer, format.ReadOptions{})
	equalRows(t, "rows", rows, []string{
		"null | (null, 1) | 1970-01-01 00:00:01.500000 | -123.45 | 0.5 | 2147483647 | -5 | [1, 2]",
		"null | null | 1969-12-31 23:59:59.999000 | 999.99 | null | -2147483648 | null | null",
	})

	// A narrowing wraps as Java's (short) cast does (CastExecutors).
	narrow := []types.DataField{f(1, "b", types.SmallInt())}
	rows, _ = readBytes(t, data, narrow, format.ReadOptions{})
	equalRows(t, "INT as SMALLINT", rows, []string{"-1", "0"})
	// A primitive column cannot be read as a ROW.
	r2, err := NewReader(context.Background(), bytesFile(data), "old.parquet", []types.DataField{f(1, "b", types.RowOf(f(20, "z", types.Int())))}, format.ReadOptions{})
	if err != nil {
		t.Fatal(err)
	}
	defer r2.Close()
	if _, err := r2.Next(context.Background()); !errors.Is(err, format.ErrSchemaMismatch) {
		t.Errorf("INT as ROW: %v", err)
	}
}

// TestReadByNameWithoutIDs writes a file through pqarrow without field ids
// (as old writers did); columns, and nested ROW fields, match by name.
func TestReadByNameWithoutIDs(t *testing.T) {
	sc := arrow.NewSchema([]arrow.Field{
		{Name: "z", Type: arrow.PrimitiveTypes.Int32, Nullable: true},
		{Name: "row", Type: arrow.StructOf(
			arrow.Field{Name: "q", Type: arrow.BinaryTypes.String, Nullable: true},
			arrow.Field{Name: "p", Type: arrow.PrimitiveTypes.Int64, Nullable: true},
		), Nullable: true},
	}, nil)
	rec := recordFromArrowJSON(t, sc, `[{"z":1,"row":{"q":"a","p":10}},{"z":null,"row":null}]`)
	defer rec.Release()
	var buf bytes.Buffer
	w, err := pqarrow.NewFileWriter(sc, &buf, nil, pqarrow.DefaultWriterProps())
	if err != nil {
		t.Fatal(err)
	}
	if err := w.Write(rec); err != nil {
		t.Fatal(err)
	}
	if err := w.Close(); err != nil {
		t.Fatal(err)
	}
	f := types.Field
	want := []types.DataField{
		f(100, "row", types.RowOf(f(101, "p", types.BigInt()), f(102, "missing", types.Int()))),
		f(103, "z", types.BigInt()),
	}
	rows, _ := readBytes(t, buf.Bytes(), want, format.ReadOptions{})
	equalRows(t, "rows", rows, []string{"(10, null) | 1", "null | null"})
}

// TestRowGroupsPruningAndPositions writes five row groups of ten rows
// (parquet.block.size 1 rolls after every batch), skips row groups 1 and 3
// through the filter, and checks positions and values of what is read.
func TestRowGroupsPruningAndPositions(t *testing.T) {
	fields := []types.DataField{types.Field(0, "pos", types.BigInt().NotNull()), types.Field(1, "s", types.String())}
	var recs []arrow.RecordBatch
	for g := 0; g < 5; g++ {
		var sb strings.Builder
		sb.WriteString("[")
		for i := 0; i < 10; i++ {
			if i > 0 {
				sb.WriteString(",")
			}
			pos := g*10 + i
			fmt.Fprintf(&sb, `{"pos":%d,"s":"v%02d"}`, pos, pos)
		}
		sb.WriteString("]")
		recs = append(recs, recordFromJSON(t, fields, sb.String()))
	}
	data, res := writeFile(t, fields, map[string]string{"parquet.block.size": "1"}, recs...)
	for _, r := range recs {
		r.Release()
	}
	if res.RowCount != 50 {
		t.Fatalf("RowCount %d", res.RowCount)
	}
	if got := res.Stats[0]; got.Min != int64(0) || got.Max != int64(49) || got.NullCount != 0 || !got.NullCountKnown {
		t.Errorf("pos stats %+v", got)
	}
	if got := res.Stats[1]; got.Min != "v00" || got.Max != "v49" {
		t.Errorf("s stats %+v", got)
	}

	var seen []string
	filter := func(s format.RowGroupStats) bool {
		seen = append(seen, fmt.Sprintf("%d@%d+%d[%v..%v]", s.Index, s.FirstRow, s.NumRows, s.Columns[0].Min, s.Columns[0].Max))
		return s.Index != 1 && s.Index != 3
	}
	r, err := NewReader(context.Background(), bytesFile(data), "rg.parquet", fields, format.ReadOptions{BatchSize: 4, RowGroupFilter: filter})
	if err != nil {
		t.Fatal(err)
	}
	defer r.Close()
	if r.NumRowGroups() != 5 || r.NumRows() != 50 {
		t.Fatalf("%d row groups, %d rows", r.NumRowGroups(), r.NumRows())
	}
	rows, firsts := readAll(t, r)
	equalRows(t, "row groups seen", seen, []string{"0@0+10[0..9]", "1@10+10[10..19]", "2@20+10[20..29]", "3@30+10[30..39]", "4@40+10[40..49]"})
	if got := fmt.Sprint(firsts); got != "[0 4 8 20 24 28 40 44 48]" {
		t.Errorf("batch positions %s", got)
	}
	var want []string
	for _, g := range []int{0, 2, 4} {
		for i := 0; i < 10; i++ {
			pos := g*10 + i
			want = append(want, fmt.Sprintf("%d | v%02d", pos, pos))
		}
	}
	equalRows(t, "rows", rows, want)
}

// TestWriterStats checks the statistics Close returns for allTypes: min/max
// per primitive column from the footer, TIMESTAMP(9) from the data, nested
// columns null counts only.
func TestWriterStats(t *testing.T) {
	fields := allTypes()
	rec := recordFromJSON(t, fields, allTypesJSON)
	defer rec.Release()
	_, res := writeFile(t, fields, nil, rec)
	ts := func(ms int64, nano int32) types.Timestamp { return types.Timestamp{Millis: ms, NanoOfMilli: nano} }
	bigDec := func(s string, p, sc int) types.Decimal {
		d := dec(0, p, sc)
		d.Unscaled.SetString(s, 10)
		return d
	}
	want := map[string][3]any{ // min, max, null count
		"b":     {false, true, int64(1)},
		"t":     {int8(-128), int8(127), int64(1)},
		"s":     {int16(-32768), int16(32767), int64(1)},
		"i":     {int32(-2147483648), int32(2), int64(0)},
		"l":     {int64(-9223372036854775808), int64(9223372036854775807), int64(1)},
		"f":     {float32(1.5), float32(3.4028235e38), int64(1)},
		"d":     {float64(-2.25), float64(5e-324), int64(1)},
		"c":     {"abc", "xyz", int64(1)},
		"v":     {"", "héllo", int64(1)},
		"bin":   {[]byte("AB"), []byte("AB"), int64(1)},
		"vb":    {[]byte{}, []byte("xyz"), int64(1)},
		"dec9":  {dec(-999999999, 9, 2), dec(123456789, 9, 2), int64(1)},
		"dec18": {dec(-123456789012345678, 18, 4), dec(999999999999999999, 18, 4), int64(1)},
		"dec38": {bigDec("-99999999999999999999999999999999999999", 38, 10), bigDec("12345678901234567890123456780123456789", 38, 10), int64(1)},
		"date":  {int32(-719162), int32(19000), int64(1)},
		"time":  {int32(0), int32(45296789), int64(1)},
		"ts0":   {ts(-62135596800000, 0), ts(1000, 0), int64(1)},
		"ts3":   {ts(1700000000123, 0), ts(1700000000123, 0), int64(2)},
		"ts6":   {ts(-62135596800000, 0), ts(1700000000123, 456000), int64(1)},
		"ts9":   {ts(1700000000123, 456789), ts(9223372036854, 775807), int64(1)},
		"ltz3":  {ts(-1, 0), ts(253402300799999, 0), int64(1)},
		"ltz6":  {ts(-1, 999000), ts(-1, 999000), int64(2)},
		"ltz9":  {ts(-9223372036855, 224192), ts(-1, 999999), int64(1)},
		"arr":   {nil, nil, int64(1)},
		"arr2":  {nil, nil, int64(0)},
		"m":     {nil, nil, int64(1)},
		"ms":    {nil, nil, int64(1)},
		"row":   {nil, nil, int64(1)},
		"mr":    {nil, nil, int64(0)},
		"var":   {nil, nil, int64(1)},
	}
	if len(res.Stats) != len(fields) {
		t.Fatalf("%d stats", len(res.Stats))
	}
	for i, f := range fields {
		w, ok := want[f.Name]
		if !ok {
			t.Fatalf("no expectation for %s", f.Name)
		}
		got := res.Stats[i]
		if (w[0] == nil) != (got.Min == nil) || (w[1] == nil) != (got.Max == nil) ||
			types.Compare(f.Type, got.Min, w[0]) != 0 || types.Compare(f.Type, got.Max, w[1]) != 0 ||
			!got.NullCountKnown || got.NullCount != w[2].(int64) {
			t.Errorf("%s: got %+v, want %v", f.Name, got, w)
		}
		if err := checkStatValue(f.Type, got.Min); err != nil {
			t.Errorf("%s min: %v", f.Name, err)
		}
	}
}

func checkStatValue(t types.DataType, v any) error {
	if v == nil {
		return nil
	}
	return types.CheckValue(t, v)
}

// TestWriterStatsNaN: a float column holding NaN gets no min/max.
func TestWriterStatsNaN(t *testing.T) {
	fields := []types.DataField{types.Field(0, "f", types.Double()), types.Field(1, "g", types.Float())}
	rec := recordFromJSON(t, fields, `[{"f":1.0,"g":"NaN"},{"f":2.0,"g":1}]`)
	defer rec.Release()
	_, res := writeFile(t, fields, nil, rec)
	if s := res.Stats[0]; s.Min != 1.0 || s.Max != 2.0 {
		t.Errorf("f %+v", s)
	}
	if s := res.Stats[1]; s.Min != nil || s.Max != nil || s.NullCount != 0 || !s.NullCountKnown {
		t.Errorf("g (NaN) %+v", s)
	}
}

// TestWriterRejects covers the writer's error paths: a batch of another
// schema, nulls in a NOT NULL column, invalid options, types Parquet
// cannot store, and misuse after Close.
func TestWriterRejects(t *testing.T) {
	ctx := context.Background()
	fields := []types.DataField{types.Field(0, "a", types.Int().NotNull())}
	w, err := NewWriter(ctx, io.Discard, "x.parquet", fields, format.WriteOptions{})
	if err != nil {
		t.Fatal(err)
	}
	other := recordFromJSON(t, []types.DataField{types.Field(0, "a", types.BigInt().NotNull())}, `[{"a":1}]`)
	defer other.Release()
	if err := w.Write(ctx, other); !errors.Is(err, format.ErrSchemaMismatch) || !strings.Contains(err.Error(), "x.parquet") {
		t.Errorf("other schema: %v", err)
	}
	nullable := recordFromJSON(t, []types.DataField{types.Field(0, "a", types.Int())}, `[{"a":null}]`)
	defer nullable.Release()
	if err := w.Write(ctx, nullable); !errors.Is(err, format.ErrSchemaMismatch) {
		t.Errorf("nullable field: %v", err)
	}
	// A nullable batch schema whose NOT NULL-ness differs is a mismatch even
	// without nulls; a correct batch still goes through afterwards.
	good := recordFromJSON(t, fields, `[{"a":7}]`)
	defer good.Release()
	if err := w.Write(ctx, good); err != nil {
		t.Fatal(err)
	}
	if _, err := w.Close(ctx); err != nil {
		t.Fatal(err)
	}
	if err := w.Write(ctx, good); err == nil {
		t.Error("Write after Close succeeded")
	}
	if _, err := w.Close(ctx); err == nil {
		t.Error("second Close succeeded")
	}

	for _, opts := range []map[string]string{
		{"file.compression": "lzo"},
		{"file.compression": "bzip2"},
		{"parquet.block.size": "128mb"},
		{"parquet.page.size": "0"},
		{"parquet.enable.dictionary": "maybe"},
		{"file.compression.zstd-level": "23"},
		{"parquet.writer.version": "PARQUET_3_0"},
	} {
		if _, err := NewWriter(ctx, io.Discard, "x.parquet", fields, format.WriteOptions{Options: opts}); !errors.Is(err, format.ErrUnsupportedFormat) {
			t.Errorf("%v: %v", opts, err)
		}
	}
	if _, err := NewWriter(ctx, io.Discard, "x.parquet", []types.DataField{types.Field(0, "x", types.DataType{Kind: types.KindInvalid})}, format.WriteOptions{}); err == nil {
		t.Error("invalid type accepted")
	}
}

// TestWriterOptions checks that the options reach the file: codec per
// file.compression (parquet.compression wins), dictionary on/off, v2 pages.
func TestWriterOptions(t *testing.T) {
	fields := []types.DataField{types.Field(0, "s", types.String())}
	rec := recordFromJSON(t, fields, `[{"s":"a"},{"s":"a"},{"s":"b"}]`)
	defer rec.Release()
	for _, c := range []struct {
		opts  map[string]string
		codec string
		dict  bool
	}{
		{nil, "ZSTD", true},
		{map[string]string{"file.compression": "SNAPPY"}, "SNAPPY", true},
		{map[string]string{"file.compression": "snappy", "parquet.compression": "gzip"}, "GZIP", true},
		{map[string]string{"file.compression": "lz4"}, "LZ4_RAW", true},
		{map[string]string{"file.compression": "none", "parquet.enable.dictionary": "false"}, "UNCOMPRESSED", false},
		{map[string]string{"parquet.writer.version": "PARQUET_2_0"}, "ZSTD", true},
	} {
		data, _ := writeFile(t, fields, c.opts, rec)
		pf, err := file.NewParquetReader(bytes.NewReader(data))
		if err != nil {
			t.Fatal(err)
		}
		cc, err := pf.MetaData().RowGroup(0).ColumnChunk(0)
		if err != nil {
			t.Fatal(err)
		}
		if got := cc.Compression().String(); got != c.codec {
			t.Errorf("%v: codec %s, want %s", c.opts, got, c.codec)
		}
		if cc.HasDictionaryPage() != c.dict {
			t.Errorf("%v: dictionary page %v", c.opts, cc.HasDictionaryPage())
		}
		rows, _ := readBytes(t, data, fields, format.ReadOptions{})
		equalRows(t, fmt.Sprint(c.opts), rows, []string{"a", "a", "b"})
	}
}

// TestEstimatedSize: the estimate grows with buffered data before any byte
// is flushed, and is not below the final size.
func TestEstimatedSize(t *testing.T) {
	ctx := context.Background()
	fields := []types.DataField{types.Field(0, "n", types.BigInt()), types.Field(1, "s", types.String())}
	var buf bytes.Buffer
	w, err := NewWriter(ctx, &buf, "e.parquet", fields, format.WriteOptions{})
	if err != nil {
		t.Fatal(err)
	}
	if w.EstimatedSize() != 4 { // the leading magic "PAR1"
		t.Errorf("empty writer estimates %d", w.EstimatedSize())
	}
	var sb strings.Builder
	sb.WriteString("[")
	for i := 0; i < 1000; i++ {
		if i > 0 {
			sb.WriteString(",")
		}
		fmt.Fprintf(&sb, `{"n":%d,"s":"row-%d"}`, i*7919, i)
	}
	sb.WriteString("]")
	rec := recordFromJSON(t, fields, sb.String())
	defer rec.Release()
	prev := int64(0)
	for i := 0; i < 3; i++ {
		if err := w.Write(ctx, rec); err != nil {
			t.Fatal(err)
		}
		if est := w.EstimatedSize(); est <= prev {
			t.Errorf("estimate after %d writes: %d (before %d)", i+1, est, prev)
		} else {
			prev = est
		}
	}
	res, err := w.Close(ctx)
	if err != nil {
		t.Fatal(err)
	}
	if prev < res.FileSize-int64(bytesFooter(t, buf.Bytes())) {
		t.Errorf("estimate %d below data size of %d-byte file", prev, res.FileSize)
	}
	if res.RowCount != 3000 || w.RowCount() != 3000 {
		t.Errorf("rows %d", res.RowCount)
	}
}

// bytesFooter returns the footer length of a Parquet file (metadata + 8).
func bytesFooter(t testing.TB, data []byte) int {
	t.Helper()
	n := len(data)
	if n < 12 {
		t.Fatal("short file")
	}
	return int(uint32(data[n-8])|uint32(data[n-7])<<8|uint32(data[n-6])<<16|uint32(data[n-5])<<24) + 8
}

// TestNestedJavaInt96 builds, with arrow-go's low-level writer, a file whose
// ARRAY<TIMESTAMP(9)> elements hold INT96 values in Java's encoding
// (negative nanos-of-day before 1970) and reads it back through the nested
// path.
func TestNestedJavaInt96(t *testing.T) {
	elem := schema.NewInt96Node("element", parquet.Repetitions.Optional, 536872960)
	list, err := schema.ListOfWithName("ts", elem, parquet.Repetitions.Optional, 2)
	if err != nil {
		t.Fatal(err)
	}
	root, err := schema.NewGroupNode("paimon_schema", parquet.Repetitions.Required, schema.FieldList{list}, -1)
	if err != nil {
		t.Fatal(err)
	}
	var buf bytes.Buffer
	w := file.NewParquetWriter(&buf, root)
	rg, err := w.AppendRowGroupChecked()
	if err != nil {
		t.Fatal(err)
	}
	cw, err := rg.NextColumn()
	if err != nil {
		t.Fatal(err)
	}
	// rows: [1899-01-01 00:59:20.001001001, null, 1970-01-01 00:00:00.000000001], null, [], [1969-12-31 23:59:59.999999999]
	vals := []parquet.Int96{javaInt96(-2240521239999, 1001), javaInt96(0, 1), javaInt96(-1, 999999)}
	defs := []int16{3, 2, 3, 0, 1, 3}
	reps := []int16{0, 1, 1, 0, 0, 0}
	if _, err := cw.(*file.Int96ColumnChunkWriter).WriteBatch(vals, defs, reps); err != nil {
		t.Fatal(err)
	}
	if err := cw.Close(); err != nil {
		t.Fatal(err)
	}
	if err := rg.Close(); err != nil {
		t.Fatal(err)
	}
	if err := w.Close(); err != nil {
		t.Fatal(err)
	}
	for _, p := range []int{9, 6} {
		want := []types.DataField{types.Field(2, "ts", types.ArrayOf(types.TimestampOf(p)))}
		rows, _ := readBytes(t, buf.Bytes(), want, format.ReadOptions{BatchSize: 3})
		expect := []string{
			"[1899-01-01 00:59:20.001001001, null, 1970-01-01 00:00:00.000000001]", "null", "[]", "[1969-12-31 23:59:59.999999999]",
		}
		if p == 6 {
			expect = []string{"[1899-01-01 00:59:20.001001, null, 1970-01-01 00:00:00.000000]", "null", "[]", "[1969-12-31 23:59:59.999999]"}
		}
		equalRows(t, "TIMESTAMP("+strconv.Itoa(p)+")", rows, expect)
	}
}

// TestInt96OutOfRange: an INT96 instant outside the Arrow nanosecond range
// (year 1500) is an ErrOutOfRange error for TIMESTAMP(9) and reads fine as
// TIMESTAMP(6).
func TestInt96OutOfRange(t *testing.T) {
	// 1500-01-01T00:00:00Z = -14831769600000 ms.
	v := javaInt96(-14831769600000, 0)
	if _, ok := int96ToUnit(v, arrow.Nanosecond); ok {
		t.Error("year 1500 fits in nanoseconds")
	}
	if n, ok := int96ToUnit(v, arrow.Microsecond); !ok || n != -14831769600000000 {
		t.Errorf("micros %d %v", n, ok)
	}
	if _, err := buildTimestamps(memory.DefaultAllocator, &arrow.TimestampType{Unit: arrow.Nanosecond}, []parquet.Int96{v}, []bool{true}, "c"); !errors.Is(err, format.ErrOutOfRange) {
		t.Errorf("error %v", err)
	}
}

func recordFromArrowJSON(t testing.TB, sc *arrow.Schema, js string) arrow.RecordBatch {
	t.Helper()
	rec, _, err := array.RecordFromJSON(memory.DefaultAllocator, sc, strings.NewReader(js))
	if err != nil {
		t.Fatal(err)
	}
	return rec
}

// TestIntegerAsDecimal: after ALTER TABLE … MODIFY c DECIMAL(12,2) on an
// integer column, Java reads 9 from an old file as 9.00; the unscaled value
// 9 was returned (0.09). An integer n read as DECIMAL(p, s) is n × 10^s
// (Java CastExecutors: numeric to decimal).
func TestIntegerAsDecimal(t *testing.T) {
	f := types.Field
	old := []types.DataField{f(0, "s", types.SmallInt()), f(1, "i", types.Int()), f(2, "b", types.BigInt())}
	rec := recordFromJSON(t, old, `[{"s":9,"i":-7,"b":1234567890},{"s":null,"i":0,"b":-1}]`)
	defer rec.Release()
	data, _ := writeFile(t, old, nil, rec)
	newer := []types.DataField{f(0, "s", types.DecimalOf(12, 2)), f(1, "i", types.DecimalOf(5, 3)), f(2, "b", types.DecimalOf(20, 4))}
	rows, _ := readBytes(t, data, newer, format.ReadOptions{})
	equalRows(t, "rows", rows, []string{
		"9.00 | -7.000 | 1234567890.0000",
		"null | 0.000 | -1.0000",
	})
}
