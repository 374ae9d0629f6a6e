package avro

import (
	"bytes"
	"context"
	"errors"
	"io"
	"strconv"
	"strings"
	"testing"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"
	"github.com/apache/arrow-go/v18/arrow/memory"

	"github.com/paimon-go/paimon/format"
	"github.com/paimon-go/paimon/types"
)

// allTypes covers every type Java writes to Avro: integers, floats,
// strings, binaries, decimals, date/time, timestamps of precision 0..6 with
// and without local time zone, nested ARRAY/MAP (string and non-string
// keys)/MULTISET/ROW.
func allTypes() []types.DataField {
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
		f(19, "ltz3", types.LocalZonedTimestampOf(3)),
		f(20, "ltz6", types.LocalZonedTimestampOf(6)),
		f(21, "arr", types.ArrayOf(types.Int())),
		f(22, "arr2", types.ArrayOf(types.ArrayOf(types.String()))),
		f(23, "m", types.MapOf(types.String().NotNull(), types.BigInt())),
		f(24, "ms", types.MultisetOf(types.String().NotNull())),
		f(25, "row", types.RowOf(
			f(26, "x", types.Int()),
			f(27, "y", types.ArrayOf(types.Double())),
			f(28, "z", types.RowOf(f(29, "q", types.String()))),
		)),
		f(30, "mr", types.MapOf(types.Int().NotNull(), types.RowOf(f(31, "a", types.TimestampOf(6))))),
		f(32, "blob", types.Blob()),
	}
}

// allTypesJSON: typical values, nulls and empty containers, extremes.
const allTypesJSON = `[
{"b":true,"t":-128,"s":32767,"i":1,"l":9223372036854775807,"f":1.5,"d":-2.25,"c":"abc","v":"héllo",
 "bin":"QUI=","vb":"eHl6","dec9":"1234567.89","dec18":"-12345678901234.5678",
 "dec38":"1234567890123456789012345678.0123456789","date":19000,"time":45296789,
 "ts0":1000,"ts3":1700000000123,"ts6":1700000000123456,"ltz3":-1,"ltz6":-1,"arr":[1,null,3],"arr2":[["a","b"],[],null],
 "m":[{"key":"k1","value":1},{"key":"k2","value":null}],"ms":[{"key":"x","value":2}],
 "row":{"x":7,"y":[1.0,2.5],"z":{"q":"deep"}},"mr":[{"key":1,"value":{"a":-2240521239998998}}],"blob":"AAE="},
{"b":null,"t":null,"s":null,"i":2,"l":null,"f":null,"d":null,"c":null,"v":null,"bin":null,"vb":null,
 "dec9":null,"dec18":null,"dec38":null,"date":null,"time":null,"ts0":null,"ts3":null,"ts6":null,
 "ltz3":null,"ltz6":null,"arr":[],"arr2":[],"m":[],"ms":null,"row":{"x":null,"y":null,"z":null},"mr":[],"blob":null},
{"b":false,"t":127,"s":-32768,"i":-2147483648,"l":-9223372036854775808,"f":3.4028235e38,"d":5e-324,
 "c":"xyz","v":"","bin":"QUI=","vb":"","dec9":"-9999999.99","dec18":"99999999999999.9999",
 "dec38":"-9999999999999999999999999999.9999999999","date":-719162,"time":0,
 "ts0":-62135596800000,"ts3":null,"ts6":-62135596800000000,"ltz3":253402300799999,"ltz6":null,
 "arr":null,"arr2":[[null]],"m":null,"ms":[{"key":"a","value":1},{"key":"b","value":3}],"row":null,
 "mr":[{"key":2,"value":null},{"key":3,"value":{"a":null}}],"blob":""}
]`

type bytesFile []byte

func (b bytesFile) ReadAt(p []byte, off int64) (int, error) {
	if off >= int64(len(b)) {
		return 0, io.EOF
	}
	n := copy(p, b[off:])
	if n < len(p) {
		return n, io.EOF
	}
	return n, nil
}
func (b bytesFile) Size() int64 { return int64(len(b)) }

func recordFromJSON(t testing.TB, fields []types.DataField, js string) arrow.RecordBatch {
	t.Helper()
	rec, _, err := array.RecordFromJSON(memory.DefaultAllocator, types.SchemaToArrow(fields), strings.NewReader(js))
	if err != nil {
		t.Fatal(err)
	}
	return rec
}

func writeFile(t testing.TB, fields []types.DataField, opts map[string]string, recs ...arrow.RecordBatch) ([]byte, format.WriteResult) {
	t.Helper()
	ctx := context.Background()
	var buf bytes.Buffer
	w, err := NewWriter(ctx, &buf, "test.avro", fields, format.WriteOptions{Options: opts})
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

// readAll reads every batch of data as want and returns the records and
// their first row positions.
func readAll(t testing.TB, data []byte, want []types.DataField, opts format.ReadOptions) ([]arrow.RecordBatch, []int64, error) {
	t.Helper()
	ctx := context.Background()
	r, err := NewReader(ctx, bytesFile(data), "test.avro", want, opts)
	if err != nil {
		return nil, nil, err
	}
	defer r.Close()
	var recs []arrow.RecordBatch
	var firsts []int64
	for {
		b, err := r.Next(ctx)
		if errors.Is(err, io.EOF) {
			return recs, firsts, nil
		}
		if err != nil {
			return recs, firsts, err
		}
		recs = append(recs, b.Record)
		firsts = append(firsts, b.FirstRow)
	}
}

func jsonOf(t testing.TB, recs ...arrow.RecordBatch) string {
	t.Helper()
	var sb strings.Builder
	for _, r := range recs {
		for i := 0; i < int(r.NumRows()); i++ {
			b, err := r.NewSlice(int64(i), int64(i+1)).MarshalJSON()
			if err != nil {
				t.Fatal(err)
			}
			sb.Write(b)
		}
	}
	return sb.String()
}

// TestRoundTripAllTypes writes every Avro-storable type with each codec and
// reads it back: the rows read are exactly the rows written.
func TestRoundTripAllTypes(t *testing.T) {
	fields := allTypes()
	rec := recordFromJSON(t, fields, allTypesJSON)
	defer rec.Release()
	for _, codec := range []string{"zstd", "snappy", "deflate", "null"} {
		t.Run(codec, func(t *testing.T) {
			data, res := writeFile(t, fields, map[string]string{OptionFileCompression: codec}, rec)
			if res.RowCount != 3 {
				t.Fatalf("RowCount %d", res.RowCount)
			}
			recs, firsts, err := readAll(t, data, fields, format.ReadOptions{})
			if err != nil {
				t.Fatal(err)
			}
			if len(recs) != 1 || firsts[0] != 0 {
				t.Fatalf("%d batches, firsts %v", len(recs), firsts)
			}
			if !array.RecordEqual(recs[0], rec) {
				t.Fatalf("read\n%s\nwant\n%s", jsonOf(t, recs...), jsonOf(t, rec))
			}
			recs[0].Release()
		})
	}
}

// TestWriterSchema pins the writer schema to the one Java's
// AvroSchemaConverter derives (nullable unions with default null, logical
// types, nested record names, maps with non-string keys as arrays of
// key/value records).
func TestWriterSchema(t *testing.T) {
	f := types.Field
	got, err := writerSchema([]types.DataField{
		f(0, "id", types.Int().NotNull()),
		f(1, "dec", types.DecimalOf(10, 2)),
		f(2, "ts", types.TimestampOf(6)),
		f(3, "ltz", types.LocalZonedTimestampOf(3).NotNull()),
		f(4, "r", types.RowOf(f(5, "m", types.MapOf(types.Int().NotNull(), types.String())))),
		f(6, "ms", types.MultisetOf(types.String().NotNull())),
	})
	if err != nil {
		t.Fatal(err)
	}
	want := `["null",{"type":"record","name":"org.apache.paimon.avro.generated.record","fields":[` +
		`{"name":"id","type":"int"},` +
		`{"name":"dec","type":["null",{"type":"bytes","logicalType":"decimal","precision":10,"scale":2}],"default":null},` +
		`{"name":"ts","type":["null",{"type":"long","logicalType":"timestamp-micros"}],"default":null},` +
		`{"name":"ltz","type":{"type":"long","logicalType":"local-timestamp-millis"}},` +
		`{"name":"r","type":["null",{"type":"record","name":"org.apache.paimon.avro.generated.record_r","fields":[` +
		`{"name":"m","type":["null",{"type":"array","items":{"type":"record","name":"org.apache.paimon.avro.generated.record_r_m","fields":[` +
		`{"name":"key","type":"int"},{"name":"value","type":["null","string"],"default":null}]},"logicalType":"map"}],"default":null}]}],"default":null},` +
		`{"name":"ms","type":["null",{"type":"map","values":["null","int"]}],"default":null}]}]`
	if string(got) != want {
		t.Fatalf("schema\n%s\nwant\n%s", got, want)
	}
	for _, bad := range []types.DataType{types.TimestampOf(9), types.LocalZonedTimestampOf(7), types.TimeOf(6), types.Variant()} {
		if _, err := writerSchema([]types.DataField{f(0, "x", bad)}); !errors.Is(err, format.ErrUnsupportedFormat) {
			t.Errorf("%s: err %v, want ErrUnsupportedFormat", bad, err)
		}
	}
}

// TestProjectionAndBatches reads a subset of columns in another order plus
// a column the file lacks, in batches of 2 across container blocks: row
// positions are exact and the missing column is null.
func TestProjectionAndBatches(t *testing.T) {
	f := types.Field
	fields := []types.DataField{f(0, "a", types.Int().NotNull()), f(1, "s", types.String()), f(2, "l", types.BigInt())}
	var sb strings.Builder
	sb.WriteString("[")
	const n = 5000
	for i := range n {
		if i > 0 {
			sb.WriteString(",")
		}
		sb.WriteString(`{"a":` + strconv.Itoa(i) + `,"s":"` + strings.Repeat("x", 20) + strconv.Itoa(i) + `","l":` + strconv.Itoa(i*3) + `}`)
	}
	sb.WriteString("]")
	rec := recordFromJSON(t, fields, sb.String())
	defer rec.Release()
	data, _ := writeFile(t, fields, map[string]string{OptionFileCompression: "snappy"}, rec)
	want := []types.DataField{f(2, "l", types.BigInt()), f(9, "missing", types.String()), f(0, "a", types.Int().NotNull())}
	recs, firsts, err := readAll(t, data, want, format.ReadOptions{BatchSize: 2000})
	if err != nil {
		t.Fatal(err)
	}
	if len(recs) != 3 || firsts[0] != 0 || firsts[1] != 2000 || firsts[2] != 4000 {
		t.Fatalf("firsts %v", firsts)
	}
	row := 0
	for _, r := range recs {
		l, miss, a := r.Column(0).(*array.Int64), r.Column(1), r.Column(2).(*array.Int32)
		for i := 0; i < int(r.NumRows()); i++ {
			if a.Value(i) != int32(row) || l.Value(i) != int64(3*row) || miss.IsValid(i) {
				t.Fatalf("row %d: a=%d l=%d missing valid=%v", row, a.Value(i), l.Value(i), miss.IsValid(i))
			}
			row++
		}
		r.Release()
	}
	if row != n {
		t.Fatalf("%d rows", row)
	}
	rd, err := NewReader(context.Background(), bytesFile(data), "test.avro", want, format.ReadOptions{})
	if err != nil {
		t.Fatal(err)
	}
	if got := rd.NumRows(); got != n {
		t.Fatalf("NumRows %d", got)
	}
	rd.Close()
}
