package orc

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"math"
	"math/big"
	"math/rand/v2"
	"reflect"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"
	"github.com/apache/arrow-go/v18/arrow/decimal128"
	"github.com/apache/arrow-go/v18/arrow/memory"
	"google.golang.org/protobuf/encoding/protowire"

	"github.com/paimon-go/paimon/format"
	"github.com/paimon-go/paimon/types"
)

// writeTypes covers every kind Java Paimon writes to ORC: integers, floats,
// CHAR/VARCHAR/STRING, binaries, decimals of each size, date/time,
// timestamps of each precision band with and without local time zone, and
// nested ARRAY/MAP/MULTISET/ROW.
func writeTypes() []types.DataField {
	f := types.Field
	return []types.DataField{
		f(0, "b", types.Boolean()),
		f(1, "t", types.TinyInt()),
		f(2, "s", types.SmallInt()),
		f(3, "i", types.Int().NotNull()),
		f(4, "l", types.BigInt()),
		f(5, "f", types.Float()),
		f(6, "d", types.Double()),
		f(7, "c", types.CharOf(3)),
		f(8, "v", types.String()),
		f(9, "bin", types.BinaryOf(2)),
		f(10, "vb", types.Bytes()),
		f(11, "dec9", types.DecimalOf(9, 2)),
		f(12, "dec18", types.DecimalOf(18, 4)),
		f(13, "dec38", types.DecimalOf(38, 10)),
		f(14, "date", types.Date()),
		f(15, "time", types.TimeOf(3)),
		f(16, "ts0", types.TimestampOf(0)),
		f(17, "ts3", types.TimestampOf(3)),
		f(18, "ts6", types.TimestampOf(6)),
		f(19, "ts9", types.TimestampOf(9)),
		f(20, "ltz3", types.LocalZonedTimestampOf(3)),
		f(21, "ltz6", types.LocalZonedTimestampOf(6)),
		f(22, "ltz9", types.LocalZonedTimestampOf(9)),
		f(23, "arr", types.ArrayOf(types.Int())),
		f(24, "arr2", types.ArrayOf(types.ArrayOf(types.String()))),
		f(25, "m", types.MapOf(types.String(), types.BigInt())),
		f(26, "ms", types.MultisetOf(types.String())),
		f(27, "row", types.RowOf(
			f(28, "x", types.Int()),
			f(29, "y", types.ArrayOf(types.Double())),
			f(30, "z", types.RowOf(f(31, "q", types.String()))),
		)),
		f(32, "mr", types.MapOf(types.Int().NotNull(), types.RowOf(f(33, "a", types.TimestampOf(9))))),
		f(34, "vc", types.VarCharOf(5)),
	}
}

// writeTypesJSON holds four rows: typical values, nulls and empty
// containers, extremes (type bounds, year 1 and 9999, the nanosecond range
// ends, instants before 1970 with and without a fraction), and a row whose
// struct is null over non-null-looking children. Timestamps are integers in
// the column's unit; binaries base64.
const writeTypesJSON = `[
{"b":true,"t":-128,"s":32767,"i":1,"l":9223372036854775807,"f":1.5,"d":-2.25,"c":"abc","v":"héllo",
 "bin":"QUI=","vb":"eHl6","dec9":"1234567.89","dec18":"-12345678901234.5678",
 "dec38":"1234567890123456789012345678.0123456789","date":19000,"time":45296789,
 "ts0":1000,"ts3":1700000000123,"ts6":1700000000123456,"ts9":1700000000123456789,
 "ltz3":-1500,"ltz6":-2000001,"ltz9":-1000000000,"arr":[1,null,3],"arr2":[["a","b"],[],null],
 "m":[{"key":"k1","value":1},{"key":"k2","value":null}],"ms":[{"key":"x","value":2}],
 "row":{"x":7,"y":[1.0,2.5],"z":{"q":"deep"}},
 "mr":[{"key":1,"value":{"a":-2240521239998998999}}],"vc":"ab"},
{"b":null,"t":null,"s":null,"i":2,"l":null,"f":null,"d":null,"c":null,"v":null,"bin":null,"vb":null,
 "dec9":null,"dec18":null,"dec38":null,"date":null,"time":null,"ts0":null,"ts3":null,"ts6":null,
 "ts9":null,"ltz3":null,"ltz6":null,"ltz9":null,"arr":[],"arr2":[],"m":[],"ms":null,
 "row":{"x":null,"y":null,"z":null},"mr":[],"vc":null},
{"b":false,"t":127,"s":-32768,"i":-2147483648,"l":-9223372036854775808,"f":3.4028235e38,"d":5e-324,
 "c":"xyz","v":"","bin":"QUI=","vb":"","dec9":"-9999999.99","dec18":"99999999999999.9999",
 "dec38":"-9999999999999999999999999999.9999999999","date":-719162,"time":0,
 "ts0":-62135596800000,"ts3":null,"ts6":-62135596800000000,"ts9":9223372036854775807,
 "ltz3":253402300799999,"ltz6":null,"ltz9":-9223372036000000000,"arr":null,"arr2":[[null]],
 "m":null,"ms":[{"key":"a","value":1},{"key":"b","value":3}],"row":null,
 "mr":[{"key":2,"value":null},{"key":3,"value":{"a":null}}],"vc":"ü€"},
{"b":true,"t":0,"s":0,"i":0,"l":0,"f":-0.0,"d":1e300,"c":"a","v":"x","bin":"AAA=","vb":"AA==",
 "dec9":"0.01","dec18":"0.0001","dec38":"-0.0000000001","date":0,"time":86399999,
 "ts0":0,"ts3":-1000,"ts6":-1000001,"ts9":-3000000001,"ltz3":0,"ltz6":999999,"ltz9":1,"arr":[null],"arr2":null,
 "m":[{"key":"","value":-1}],"ms":[],"row":{"x":-1,"y":[],"z":null},"mr":null,"vc":"12345"}
]`

func recordFromJSON(t testing.TB, fields []types.DataField, js string) arrow.RecordBatch {
	t.Helper()
	rec, _, err := array.RecordFromJSON(memory.DefaultAllocator, types.SchemaToArrow(fields), strings.NewReader(js))
	if err != nil {
		t.Fatal(err)
	}
	return rec
}

func writeORC(t testing.TB, fields []types.DataField, opts map[string]string, recs ...arrow.RecordBatch) ([]byte, format.WriteResult) {
	t.Helper()
	ctx := context.Background()
	var buf bytes.Buffer
	w, err := NewWriter(ctx, &buf, "test.orc", fields, format.WriteOptions{Options: opts})
	if err != nil {
		t.Fatal(err)
	}
	for _, r := range recs {
		if err := w.Write(ctx, r); err != nil {
			t.Fatal(err)
		}
	}
	res, err := w.Close(ctx)
	if err != nil {
		t.Fatal(err)
	}
	if res.FileSize != int64(buf.Len()) {
		t.Fatalf("FileSize %d, wrote %d bytes", res.FileSize, buf.Len())
	}
	return buf.Bytes(), res
}

// readORC reads data back as one record of want, and the batch start rows.
func readORC(t testing.TB, data []byte, want []types.DataField, opts format.ReadOptions) (arrow.RecordBatch, []int64) {
	t.Helper()
	r, err := NewReader(context.Background(), bytes.NewReader(data), "test.orc", want, opts)
	if err != nil {
		t.Fatal(err)
	}
	defer r.Close()
	var recs []arrow.RecordBatch
	var firsts []int64
	for {
		b, err := r.Next(context.Background())
		if err == io.EOF {
			break
		}
		if err != nil {
			t.Fatal(err)
		}
		recs = append(recs, b.Record)
		firsts = append(firsts, b.FirstRow)
	}
	s := types.SchemaToArrow(want)
	cols := make([]arrow.Array, s.NumFields())
	var n int64
	for i := range cols {
		var parts []arrow.Array
		for _, r := range recs {
			parts = append(parts, r.Column(i))
		}
		if len(parts) == 0 {
			cols[i] = array.MakeArrayOfNull(memory.DefaultAllocator, s.Field(i).Type, 0)
			continue
		}
		c, err := array.Concatenate(parts, memory.DefaultAllocator)
		if err != nil {
			t.Fatal(err)
		}
		cols[i] = c
		n = int64(c.Len())
	}
	for _, r := range recs {
		r.Release()
	}
	return array.NewRecordBatch(s, cols, n), firsts
}

// equalRecords compares got with want column by column, exactly.
func equalRecords(t *testing.T, got, want arrow.RecordBatch) {
	t.Helper()
	if got.NumRows() != want.NumRows() {
		t.Fatalf("%d rows, want %d", got.NumRows(), want.NumRows())
	}
	for i := range want.NumCols() {
		if !array.Equal(got.Column(int(i)), want.Column(int(i))) {
			t.Errorf("column %s:\n got %v\nwant %v", want.ColumnName(int(i)), got.Column(int(i)), want.Column(int(i)))
		}
	}
}

func TestWriteRoundTripAllTypes(t *testing.T) {
	fields := writeTypes()
	rec := recordFromJSON(t, fields, writeTypesJSON)
	defer rec.Release()
	for _, codec := range []string{"zstd", "zlib", "snappy", "lz4", "none"} {
		t.Run(codec, func(t *testing.T) {
			data, res := writeORC(t, fields, map[string]string{"file.compression": codec}, rec)
			if res.RowCount != 4 {
				t.Errorf("RowCount %d", res.RowCount)
			}
			f, err := Open(bytes.NewReader(data), int64(len(data)))
			if err != nil {
				t.Fatal(err)
			}
			if want := map[string]uint64{"zstd": compressionZstd, "zlib": compressionZlib, "snappy": compressionSnappy,
				"lz4": compressionLZ4, "none": compressionNone}[codec]; f.ps.compression != want {
				t.Errorf("compression kind %d, want %d", f.ps.compression, want)
			}
			got, firsts := readORC(t, data, fields, format.ReadOptions{})
			defer got.Release()
			equalRecords(t, got, rec)
			if !reflect.DeepEqual(firsts, []int64{0}) {
				t.Errorf("batch starts %v", firsts)
			}
		})
	}
	// A sliced batch (offsets into every buffer, nested ones included)
	// writes the rows of the slice.
	t.Run("slice", func(t *testing.T) {
		part := rec.NewSlice(1, 4)
		defer part.Release()
		data, _ := writeORC(t, fields, map[string]string{"orc.compress.size": "1024"}, part, part)
		got, _ := readORC(t, data, fields, format.ReadOptions{})
		defer got.Release()
		want := concatRecords(t, []arrow.RecordBatch{part, part})
		defer want.Release()
		equalRecords(t, got, want)
	})
}

// TestSmallCompressionBlocks: files whose compression block size
// (orc.compress.size) is below zstd's smallest window (1 KiB) are read, as
// pyarrow and Java read them, with every codec.
func TestSmallCompressionBlocks(t *testing.T) {
	fields := writeTypes()
	rec := recordFromJSON(t, fields, writeTypesJSON)
	defer rec.Release()
	for _, codec := range []string{"zstd", "zlib", "snappy", "lz4"} {
		for _, size := range []string{"64", "512", "1023"} {
			t.Run(codec+"-"+size, func(t *testing.T) {
				data, _ := writeORC(t, fields, map[string]string{"file.compression": codec, "orc.compress.size": size}, rec)
				got, _ := readORC(t, data, fields, format.ReadOptions{})
				defer got.Release()
				equalRecords(t, got, rec)
			})
		}
	}
}

// TestWriteSchema checks the ORC type tree and paimon.id attributes Java's
// OrcTypeUtil gives the same fields (ids of list elements and map keys and
// values per SpecialFields: 536870911 ± 1024·id ± depth).
func TestWriteSchema(t *testing.T) {
	f := types.Field
	fields := []types.DataField{
		f(1, "c", types.CharOf(3)),
		f(2, "v", types.VarCharOf(5)),
		f(3, "s", types.String()),
		f(4, "d", types.DecimalOf(20, 3)),
		f(5, "ts", types.TimestampOf(6)),
		f(6, "ltz", types.LocalZonedTimestampOf(3)),
		f(7, "a", types.ArrayOf(types.RowOf(f(8, "x", types.TimeOf(3))))),
		f(9, "m", types.MapOf(types.Int().NotNull(), types.Bytes())),
	}
	data, _ := writeORC(t, fields, nil)
	file, err := Open(bytes.NewReader(data), int64(len(data)))
	if err != nil {
		t.Fatal(err)
	}
	var got []string
	for _, ty := range file.ft.types {
		s := kindName(ty.kind)
		switch ty.kind {
		case kindChar, kindVarchar:
			s += fmt.Sprintf("(%d)", ty.maxLength)
		case kindDecimal:
			s += fmt.Sprintf("(%d,%d)", ty.precision, ty.scale)
		}
		if len(ty.fieldNames) > 0 {
			s += fmt.Sprint(ty.fieldNames)
		}
		s += fmt.Sprint(ty.subtypes, ty.attributes)
		got = append(got, s)
	}
	want := []string{
		"struct[c v s d ts ltz a m][1 2 3 4 5 6 7 10] map[]",
		"char(3)[] map[paimon.id:1]",
		"varchar(5)[] map[paimon.id:2]",
		"string[] map[paimon.id:3]",
		"decimal(20,3)[] map[paimon.id:4]",
		"timestamp[] map[paimon.id:5]",
		"timestamp with local time zone[] map[paimon.id:6]",
		"array[8] map[paimon.id:7]",
		"struct[x][9] map[paimon.id:536878080]",
		"int[] map[paimon.id:8]",
		"map[11 12] map[paimon.id:9]",
		"int[] map[paimon.id:536861694]",
		"binary[] map[paimon.id:536880128]",
	}
	if !reflect.DeepEqual(got, want) {
		t.Errorf("types\n got %q\nwant %q", got, want)
	}
}

func TestWriteStats(t *testing.T) {
	fields := writeTypes()
	rec := recordFromJSON(t, fields, writeTypesJSON)
	defer rec.Release()
	_, res := writeORC(t, fields, nil, rec)
	dec := func(s string, p, sc int) types.Decimal {
		u, _ := new(big.Int).SetString(s, 10)
		return types.Decimal{Unscaled: u, Precision: p, Scale: sc}
	}
	ts := func(ms int64, nano int32) types.Timestamp { return types.Timestamp{Millis: ms, NanoOfMilli: nano} }
	want := map[string]format.ColumnStats{
		"b":     {Min: false, Max: true, NullCount: 1},
		"t":     {Min: int8(-128), Max: int8(127), NullCount: 1},
		"i":     {Min: int32(-2147483648), Max: int32(2), NullCount: 0},
		"f":     {Min: float32(math.Copysign(0, -1)), Max: float32(3.4028235e38), NullCount: 1},
		"c":     {Min: "a  ", Max: "xyz", NullCount: 1},
		"v":     {Min: "", Max: "x", NullCount: 1},
		"bin":   {NullCount: 1},
		"dec9":  {Min: dec("-999999999", 9, 2), Max: dec("123456789", 9, 2), NullCount: 1},
		"date":  {Min: int32(-719162), Max: int32(19000), NullCount: 1},
		"time":  {Min: int32(0), Max: int32(86399999), NullCount: 1},
		"ts9":   {Min: ts(-3001, 999999), Max: ts(9223372036854, 775807), NullCount: 1},
		"ltz3":  {Min: ts(-1500, 0), Max: ts(253402300799999, 0), NullCount: 1},
		"arr":   {NullCount: 1},
		"row":   {NullCount: 1},
		"vc":    {Min: "12345", Max: "ü€", NullCount: 1},
		"ms":    {NullCount: 1},
		"dec38": {Min: dec("-99999999999999999999999999999999999999", 38, 10), Max: dec("12345678901234567890123456780123456789", 38, 10), NullCount: 1},
	}
	for i, f := range fields {
		w, ok := want[f.Name]
		if !ok {
			continue
		}
		w.NullCountKnown = true
		got := res.Stats[i]
		if fmt.Sprint(got) != fmt.Sprint(w) {
			t.Errorf("%s: stats %v, want %v", f.Name, got, w)
		}
	}
}

// TestWriteManyStripes writes 200,000 rows in batches of 3,000 with a
// 64 KiB stripe size: many stripes, batches never span one, row positions
// exact, values exact.
func TestWriteManyStripes(t *testing.T) {
	fields, recs := benchRows(t, 200_000, 3_000)
	defer func() {
		for _, r := range recs {
			r.Release()
		}
	}()
	data, res := writeORC(t, fields, map[string]string{"orc.stripe.size": "65536", "orc.compress.size": "4096"}, recs...)
	if res.RowCount != 200_000 {
		t.Fatalf("RowCount %d", res.RowCount)
	}
	f, err := Open(bytes.NewReader(data), int64(len(data)))
	if err != nil {
		t.Fatal(err)
	}
	if f.NumStripes() < 10 {
		t.Fatalf("%d stripes", f.NumStripes())
	}
	got, firsts := readORC(t, data, fields, format.ReadOptions{BatchSize: 5000})
	defer got.Release()
	want := concatRecords(t, recs)
	defer want.Release()
	equalRecords(t, got, want)
	var pos int64
	stripe := 0
	var stripeEnd int64 = int64(f.ft.stripes[0].numberOfRows)
	for _, fr := range firsts {
		if fr != pos {
			t.Fatalf("batch starts at %d, want %d", fr, pos)
		}
		// The next batch starts at the end of this one: at most 5000 rows,
		// never past a stripe end.
		n := min(pos+5000, stripeEnd)
		pos = n
		if pos == stripeEnd && stripe+1 < len(f.ft.stripes) {
			stripe++
			stripeEnd += int64(f.ft.stripes[stripe].numberOfRows)
		}
	}
	if pos != 200_000 {
		t.Fatalf("batches end at %d", pos)
	}
	if res.Stats[0].Min != int64(0) || res.Stats[0].Max != int64(199_999) {
		t.Errorf("id stats %v", res.Stats[0])
	}
	// One batch of all rows is cut into stripes just the same.
	one, _ := writeORC(t, fields, map[string]string{"orc.stripe.size": "65536"}, want)
	f1, err := Open(bytes.NewReader(one), int64(len(one)))
	if err != nil {
		t.Fatal(err)
	}
	if f1.NumStripes() < 10 {
		t.Errorf("one batch: %d stripes", f1.NumStripes())
	}
	got1, _ := readORC(t, one, fields, format.ReadOptions{})
	defer got1.Release()
	equalRecords(t, got1, want)
}

func concatRecords(t testing.TB, recs []arrow.RecordBatch) arrow.RecordBatch {
	t.Helper()
	s := recs[0].Schema()
	cols := make([]arrow.Array, s.NumFields())
	var n int64
	for i := range cols {
		var parts []arrow.Array
		for _, r := range recs {
			parts = append(parts, r.Column(i))
		}
		c, err := array.Concatenate(parts, memory.DefaultAllocator)
		if err != nil {
			t.Fatal(err)
		}
		cols[i] = c
		n = int64(c.Len())
	}
	return array.NewRecordBatch(s, cols, n)
}

// benchRows returns n rows in batches of size: an id, a low-cardinality
// string, a random double, a nullable decimal, a timestamp and a list.
func benchRows(t testing.TB, n, size int) ([]types.DataField, []arrow.RecordBatch) {
	f := types.Field
	fields := []types.DataField{
		f(0, "id", types.BigInt().NotNull()),
		f(1, "name", types.String()),
		f(2, "score", types.Double()),
		f(3, "price", types.DecimalOf(10, 2)),
		f(4, "ts", types.TimestampOf(6)),
		f(5, "tags", types.ArrayOf(types.Int())),
	}
	s := types.SchemaToArrow(fields)
	rnd := rand.New(rand.NewPCG(1, 2))
	var recs []arrow.RecordBatch
	for start := 0; start < n; start += size {
		b := array.NewRecordBuilder(memory.DefaultAllocator, s)
		for i := start; i < min(n, start+size); i++ {
			b.Field(0).(*array.Int64Builder).Append(int64(i))
			if i%7 == 0 {
				b.Field(1).AppendNull()
			} else {
				b.Field(1).(*array.StringBuilder).Append(fmt.Sprintf("name-%d", i%100))
			}
			b.Field(2).(*array.Float64Builder).Append(rnd.Float64() * 1000)
			if i%5 == 0 {
				b.Field(3).AppendNull()
			} else {
				b.Field(3).(*array.Decimal128Builder).Append(decimal128FromInt(int64(rnd.IntN(1_000_000))))
			}
			b.Field(4).(*array.TimestampBuilder).Append(arrow.Timestamp(1_700_000_000_000_000 + int64(i)*1_000_003))
			lb := b.Field(5).(*array.ListBuilder)
			if i%11 == 0 {
				lb.AppendNull()
			} else {
				lb.Append(true)
				for k := range i % 4 {
					lb.ValueBuilder().(*array.Int32Builder).Append(int32(i + k))
				}
			}
		}
		recs = append(recs, b.NewRecordBatch())
		b.Release()
	}
	return fields, recs
}

func TestWriteEmptyFile(t *testing.T) {
	fields := writeTypes()
	data, res := writeORC(t, fields, nil)
	if res.RowCount != 0 || len(res.Stats) != len(fields) {
		t.Fatalf("result %+v", res)
	}
	for i, s := range res.Stats {
		if s != (format.ColumnStats{NullCountKnown: true}) {
			t.Errorf("field %d stats %+v", i, s)
		}
	}
	got, firsts := readORC(t, data, fields, format.ReadOptions{})
	defer got.Release()
	if got.NumRows() != 0 || len(firsts) != 0 {
		t.Fatalf("%d rows in %d batches", got.NumRows(), len(firsts))
	}
}

func TestWriteErrors(t *testing.T) {
	ctx := context.Background()
	f := types.Field
	_, err := NewWriter(ctx, io.Discard, "v.orc", []types.DataField{f(0, "v", types.Variant())}, format.WriteOptions{})
	if !errors.Is(err, format.ErrUnsupportedFormat) || !strings.Contains(err.Error(), "v.orc") {
		t.Errorf("VARIANT: err = %v", err)
	}
	for _, opt := range []map[string]string{
		{"file.compression": "lzo"}, {"orc.compress": "brotli"}, {"orc.stripe.size": "0"},
		{"orc.compress.size": "x"}, {"file.block-size": "big"}, {"file.compression.zstd-level": "23"},
	} {
		_, err := NewWriter(ctx, io.Discard, "o.orc", []types.DataField{f(0, "i", types.Int())}, format.WriteOptions{Options: opt})
		if !errors.Is(err, format.ErrUnsupportedFormat) || !strings.Contains(err.Error(), "o.orc") {
			t.Errorf("%v: err = %v", opt, err)
		}
	}
	fields := []types.DataField{f(0, "i", types.Int().NotNull())}
	w, err := NewWriter(ctx, io.Discard, "s.orc", fields, format.WriteOptions{})
	if err != nil {
		t.Fatal(err)
	}
	other := recordFromJSON(t, []types.DataField{f(0, "i", types.BigInt().NotNull())}, `[{"i":1}]`)
	defer other.Release()
	if err := w.Write(ctx, other); !errors.Is(err, format.ErrSchemaMismatch) || !strings.Contains(err.Error(), "s.orc") {
		t.Errorf("BIGINT batch: err = %v", err)
	}
	nullable := []types.DataField{f(0, "i", types.Int())}
	nulls := recordFromJSON(t, nullable, `[{"i":null}]`)
	defer nulls.Release()
	// Same name and type, but nullable: a schema mismatch too.
	if err := w.Write(ctx, nulls); !errors.Is(err, format.ErrSchemaMismatch) {
		t.Errorf("nullable batch: err = %v", err)
	}
	if _, err := w.Close(ctx); err != nil {
		t.Fatal(err)
	}
	if _, err := w.Close(ctx); err == nil {
		t.Error("second Close succeeded")
	}
}

// TestIntRLEv2RoundTrip encodes integer sequences of every shape (runs,
// progressions, literals of every width, extremes) and decodes them with the
// reader's RLE v2 decoder.
func TestIntRLEv2RoundTrip(t *testing.T) {
	rnd := rand.New(rand.NewPCG(3, 4))
	var cases [][]int64
	cases = append(cases, nil, []int64{0}, []int64{-1, 1}, []int64{5, 5, 5}, []int64{-9223372036854775808, 9223372036854775807, 0})
	for _, n := range []int{3, 10, 11, 511, 512, 513, 2000} {
		run := make([]int64, n)
		prog := make([]int64, n)
		for i := range run {
			run[i] = 42
			prog[i] = int64(1000 - 3*i)
		}
		cases = append(cases, run, prog)
	}
	for w := 1; w <= 64; w++ {
		vals := make([]int64, 700)
		for i := range vals {
			vals[i] = int64(rnd.Uint64() >> (64 - w))
			if i%50 < 12 {
				vals[i] = 7 // embedded runs
			}
		}
		cases = append(cases, vals)
	}
	for ci, vals := range cases {
		for _, signed := range []bool{true, false} {
			if !signed {
				ok := true
				for _, v := range vals {
					ok = ok && v >= 0
				}
				if !ok {
					continue
				}
			}
			enc := appendIntRLEv2(nil, vals, signed)
			d := newIntDecoder(enc, signed, true, "test")
			got := make([]int64, len(vals))
			if err := d.next(got); err != nil {
				t.Fatalf("case %d signed=%v: %v", ci, signed, err)
			}
			if !reflect.DeepEqual(got, vals) && len(vals) > 0 {
				t.Fatalf("case %d signed=%v: got %v, want %v", ci, signed, got, vals)
			}
		}
	}
}

func TestByteRLERoundTrip(t *testing.T) {
	rnd := rand.New(rand.NewPCG(5, 6))
	for _, n := range []int{0, 1, 2, 3, 130, 131, 300, 5000} {
		vals := make([]byte, n)
		for i := range vals {
			if i%40 < 20 {
				vals[i] = 9
			} else {
				vals[i] = byte(rnd.Uint32())
			}
		}
		enc := appendByteRLE(nil, vals)
		d := &byteRLE{buf: enc, what: "test"}
		got := make([]byte, n)
		if err := d.next(got); err != nil {
			t.Fatalf("n=%d: %v", n, err)
		}
		if !bytes.Equal(got, vals) {
			t.Fatalf("n=%d: mismatch", n)
		}
	}
}

func decimal128FromInt(v int64) decimal128.Num { return decimal128.FromI64(v) }

// javaEpochTimestamps are the instants of the Java scenario
// orc_timestamps_epoch (interop/java ScenariosOrc) in epoch nanoseconds,
// and javaEpochRead how Java Paimon 1.4.2 reads them back from the ORC file
// its own writer made, as TIMESTAMP(3) and TIMESTAMP(9) (TIMESTAMP_LTZ
// reads the same). Values in (-1 s, 0) with more than a millisecond of
// fraction come back one second later: ORC's writer truncates the seconds
// toward zero and its readers cannot tell them from positive ones.
var (
	javaEpochTimestamps = []int64{-1, -999_999, -1_000_000, -1_000_001, -500_000_000, -999_999_999,
		-1_000_000_000, -1_000_000_001, -1_500_000_000, -1_999_000_000, -2_000_000_000,
		-86_400_123_456_789, 0, 1, 999_999_999, 1_500_000_000, -9_000_000_000_123_456_789}
	javaEpochRead = [][2]string{
		{"1970-01-01T00:00:00.999", "1970-01-01T00:00:00.999999999"},
		{"1970-01-01T00:00:00.999", "1970-01-01T00:00:00.999000001"},
		{"1970-01-01T00:00:00.999", "1970-01-01T00:00:00.999000000"},
		{"1970-01-01T00:00:00.998", "1970-01-01T00:00:00.998999999"},
		{"1970-01-01T00:00:00.500", "1970-01-01T00:00:00.500000000"},
		{"1969-12-31T23:59:59.000", "1969-12-31T23:59:59.000000001"},
		{"1969-12-31T23:59:59.000", "1969-12-31T23:59:59.000000000"},
		{"1969-12-31T23:59:58.999", "1969-12-31T23:59:58.999999999"},
		{"1969-12-31T23:59:58.500", "1969-12-31T23:59:58.500000000"},
		{"1969-12-31T23:59:58.001", "1969-12-31T23:59:58.001000000"},
		{"1969-12-31T23:59:58.000", "1969-12-31T23:59:58.000000000"},
		{"1969-12-30T23:59:59.876", "1969-12-30T23:59:59.876543211"},
		{"1970-01-01T00:00:00.000", "1970-01-01T00:00:00.000000000"},
		{"1970-01-01T00:00:00.000", "1970-01-01T00:00:00.000000001"},
		{"1970-01-01T00:00:00.999", "1970-01-01T00:00:00.999999999"},
		{"1970-01-01T00:00:01.500", "1970-01-01T00:00:01.500000000"},
		{"1684-10-19T07:59:59.876", "1684-10-19T07:59:59.876543211"},
	}
)

// TestWriteTimestampsAsJava writes the scenario's instants and reads them
// back: every value must be what Java reads from its own ORC file, so that
// a table's rows do not depend on which implementation wrote the file.
func TestWriteTimestampsAsJava(t *testing.T) {
	f := types.Field
	fields := []types.DataField{
		f(1, "ts3", types.TimestampOf(3)), f(2, "ts9", types.TimestampOf(9)),
		f(3, "ltz3", types.LocalZonedTimestampOf(3)), f(4, "ltz9", types.LocalZonedTimestampOf(9)),
	}
	b := array.NewRecordBuilder(memory.DefaultAllocator, types.SchemaToArrow(fields))
	defer b.Release()
	for _, ns := range javaEpochTimestamps {
		ms := ns / 1e6
		if ns%1e6 < 0 {
			ms--
		}
		for c, v := range []int64{ms, ns, ms, ns} {
			b.Field(c).(*array.TimestampBuilder).Append(arrow.Timestamp(v))
		}
	}
	rec := b.NewRecordBatch()
	defer rec.Release()
	data, _ := writeORC(t, fields, nil, rec)
	got, _ := readORC(t, data, fields, format.ReadOptions{})
	defer got.Release()
	iso := func(c, i int, layout string) string {
		v := int64(got.Column(c).(*array.Timestamp).Value(i))
		unit := got.Column(c).DataType().(*arrow.TimestampType).Unit
		s, ns := splitTimestamp(v, unit)
		return time.Unix(s, ns).UTC().Format(layout)
	}
	for i, want := range javaEpochRead {
		for c := range 4 {
			layout := "2006-01-02T15:04:05.000"
			if c%2 == 1 {
				layout += "000000"
			}
			if g := iso(c, i, layout); g != want[c%2] {
				t.Errorf("row %d (%d ns) %s: read %s, Java reads %s", i, javaEpochTimestamps[i], fields[c].Name, g, want[c%2])
			}
		}
	}
}

// TestWriteFooterStatistics decodes the footer's ColumnStatistics
// (orc_proto.proto field numbers) of a small file: the values Java's
// OrcSimpleStatsExtractor would read from it.
func TestWriteFooterStatistics(t *testing.T) {
	f := types.Field
	fields := []types.DataField{
		f(0, "i", types.Int()), f(1, "s", types.String()), f(2, "d", types.Double()),
		f(3, "b", types.Boolean()), f(4, "dec", types.DecimalOf(5, 2)), f(5, "dt", types.Date()),
		f(6, "bin", types.Bytes()), f(7, "arr", types.ArrayOf(types.Int())), f(8, "ts", types.TimestampOf(3)),
	}
	rec := recordFromJSON(t, fields, `[
{"i":1,"s":"b","d":1.5,"b":true,"dec":"1.50","dt":10,"bin":"YWI=","arr":[1,2],"ts":5},
{"i":null,"s":"a","d":null,"b":false,"dec":"-0.05","dt":-3,"bin":"","arr":null,"ts":null},
{"i":-5,"s":null,"d":-2,"b":true,"dec":null,"dt":null,"bin":null,"arr":[],"ts":6}]`)
	defer rec.Release()
	data, _ := writeORC(t, fields, map[string]string{"file.compression": "none"}, rec)
	psLen := int(data[len(data)-1])
	ps, err := parsePostScript(data[len(data)-1-psLen : len(data)-1])
	if err != nil {
		t.Fatal(err)
	}
	end := len(data) - 1 - psLen
	footerBytes := data[end-int(ps.footerLength) : end]
	var got []string
	err = eachField(footerBytes, "footer", func(fd pbField) error {
		if fd.num != 7 {
			return nil
		}
		var parts []string
		return eachField(fd.b, "stats", func(s pbField) error {
			switch s.num {
			case 1:
				parts = append(parts, fmt.Sprintf("n=%d", s.v))
			case 10:
				parts = append(parts, fmt.Sprintf("null=%v", s.v == 1))
				got = append(got, strings.Join(parts, " "))
			default:
				var sub []string
				if err := eachField(s.b, "sub", func(x pbField) error {
					switch {
					case s.num == 3: // doubles
						sub = append(sub, fmt.Sprint(math.Float64frombits(x.v)))
					case s.num == 5: // bucket counts, packed
						sub = append(sub, fmt.Sprint(x.b))
					case x.typ == protowire.BytesType:
						sub = append(sub, strconv.Quote(string(x.b)))
					default: // sint32/sint64
						sub = append(sub, fmt.Sprint(protowire.DecodeZigZag(x.v)))
					}
					return nil
				}); err != nil {
					return err
				}
				parts = append(parts, fmt.Sprintf("%d%v", s.num, sub))
			}
			return nil
		})
	})
	if err != nil {
		t.Fatal(err)
	}
	want := []string{
		"n=3 null=false",                  // root
		"n=2 2[-5 1 -4] null=true",        // i: int min, max, sum
		`n=2 4["a" "b" 2] null=true`,      // s: string min, max, total length
		"n=2 3[-2 1.5 -0.5] null=true",    // d: double min, max, sum
		"n=3 5[[2]] null=false",           // b: true count
		`n=2 6["-0.05" "1.50"] null=true`, // dec: decimal min, max
		"n=2 7[-3 10] null=true",          // dt: date min, max
		"n=2 8[2] null=true",              // bin: total length
		"n=2 null=true",                   // arr
		"n=2 2[1 2 3] null=false",         // arr element
		"n=2 null=true",                   // ts: counts only
	}
	if !reflect.DeepEqual(got, want) {
		t.Errorf("footer statistics\n got %q\nwant %q", got, want)
	}
}

// failAfter accepts n bytes, then fails every write.
type failAfter struct{ n int }

var errDiskFull = errors.New("disk full")

func (f *failAfter) Write(p []byte) (int, error) {
	if len(p) > f.n {
		k := f.n
		f.n = 0
		return k, errDiskFull
	}
	f.n -= len(p)
	return len(p), nil
}

// TestWriteOutputError: a failing output is returned wrapped, naming the
// file, from the Write that flushes a stripe and from every call after it;
// a canceled context stops Write and Close.
func TestWriteOutputError(t *testing.T) {
	ctx := context.Background()
	fields, recs := benchRows(t, 20_000, 5_000)
	defer func() {
		for _, r := range recs {
			r.Release()
		}
	}()
	for _, limit := range []int{0, 2, 100, 50_000} {
		w, err := NewWriter(ctx, &failAfter{n: limit}, "full.orc", fields,
			format.WriteOptions{Options: map[string]string{"orc.stripe.size": "1000"}})
		if err != nil {
			t.Fatal(err)
		}
		err = nil
		for _, r := range recs {
			if err = w.Write(ctx, r); err != nil {
				break
			}
		}
		if !errors.Is(err, errDiskFull) || !strings.Contains(err.Error(), "full.orc") {
			t.Fatalf("limit %d: Write err = %v", limit, err)
		}
		if err2 := w.Write(ctx, recs[0]); !errors.Is(err2, errDiskFull) {
			t.Errorf("limit %d: Write after failure: %v", limit, err2)
		}
		if _, err := w.Close(ctx); !errors.Is(err, errDiskFull) {
			t.Errorf("limit %d: Close err = %v", limit, err)
		}
	}
	// The tail fails on Close.
	w, err := NewWriter(ctx, &failAfter{n: 10}, "tail.orc", fields, format.WriteOptions{})
	if err != nil {
		t.Fatal(err)
	}
	if err := w.Write(ctx, recs[0]); err != nil {
		t.Fatal(err)
	}
	if _, err := w.Close(ctx); !errors.Is(err, errDiskFull) || !strings.Contains(err.Error(), "tail.orc") {
		t.Errorf("Close err = %v", err)
	}
	cctx, cancel := context.WithCancel(ctx)
	cancel()
	w, err = NewWriter(ctx, io.Discard, "c.orc", fields, format.WriteOptions{})
	if err != nil {
		t.Fatal(err)
	}
	if err := w.Write(cctx, recs[0]); !errors.Is(err, context.Canceled) {
		t.Errorf("canceled Write: %v", err)
	}
	if _, err := NewWriter(cctx, io.Discard, "c.orc", fields, format.WriteOptions{}); !errors.Is(err, context.Canceled) {
		t.Errorf("canceled NewWriter: %v", err)
	}
}
