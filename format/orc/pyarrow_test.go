package orc

import (
	"bytes"
	"encoding/hex"
	"encoding/json"
	"math"
	"os"
	"os/exec"
	"path/filepath"
	"reflect"
	"strconv"
	"strings"
	"testing"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"

	"github.com/paimon-go/paimon/types"
)

// pyarrowJSON is writeTypesJSON without values outside the range of
// pyarrow's ORC timestamps (nanoseconds, years 1677..2262).
const pyarrowJSON = `[
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
 "ts0":-5000000000000,"ts3":null,"ts6":-5000000000000001,"ts9":9000000000000000001,
 "ltz3":7000000000000,"ltz6":null,"ltz9":-9000000000000000001,"arr":null,"arr2":[[null]],
 "m":null,"ms":[{"key":"a","value":1},{"key":"b","value":3}],"row":null,
 "mr":[{"key":2,"value":null},{"key":3,"value":{"a":null}}],"vc":"ü€"},
{"b":true,"t":0,"s":0,"i":0,"l":0,"f":-0.0,"d":1e300,"c":"a","v":"x","bin":"AAA=","vb":"AA==",
 "dec9":"0.01","dec18":"0.0001","dec38":"-0.0000000001","date":0,"time":86399999,
 "ts0":0,"ts3":-1000,"ts6":-1000001,"ts9":-3000000001,"ltz3":0,"ltz6":999999,"ltz9":1,"arr":[null],"arr2":null,
 "m":[{"key":"","value":-1}],"ms":[],"row":{"x":-1,"y":[],"z":null},"mr":null,"vc":"12345"}
]`

// pyarrowScript prints the ORC file argv[1] as JSON rows, each value in a
// canonical form: floats as their IEEE bits, binaries as hex, decimals as
// plain strings, dates as days, timestamps as epoch nanoseconds, maps as
// [key, value] pairs.
const pyarrowScript = `
import json, struct, sys, decimal
import pyarrow as pa, pyarrow.orc as orc
t = orc.ORCFile(sys.argv[1]).read()
def conv(ty, v):
    if v is None:
        return None
    if pa.types.is_float32(ty):
        return struct.unpack('<I', struct.pack('<f', v))[0]
    if pa.types.is_float64(ty):
        return struct.unpack('<Q', struct.pack('<d', v))[0]
    if pa.types.is_binary(ty):
        return v.hex()
    if pa.types.is_decimal(ty):
        return format(v, 'f')
    if pa.types.is_list(ty):
        return [conv(ty.value_type, x) for x in v]
    if pa.types.is_map(ty):
        return [[conv(ty.key_type, k), conv(ty.item_type, x)] for k, x in v]
    if pa.types.is_struct(ty):
        return {f.name: conv(f.type, v[f.name]) for f in ty}
    return v
def prep(col):
    ty = col.type
    if pa.types.is_date32(ty):
        return col.cast(pa.int32())
    if pa.types.is_timestamp(ty):
        return col.cast(pa.int64())
    return col
def deep(ty):
    # timestamps nested in lists/maps/structs: cast the whole column to a
    # type with int64 in their place
    if pa.types.is_timestamp(ty):
        return pa.int64()
    if pa.types.is_date32(ty):
        return pa.int32()
    if pa.types.is_list(ty):
        return pa.list_(pa.field(ty.value_field.name, deep(ty.value_type)))
    if pa.types.is_map(ty):
        return pa.map_(deep(ty.key_type), deep(ty.item_type))
    if pa.types.is_struct(ty):
        return pa.struct([pa.field(f.name, deep(f.type)) for f in ty])
    return ty
cols = []
for name in t.column_names:
    col = t.column(name)
    if pa.types.is_nested(col.type):
        col = col.cast(deep(col.type))
    else:
        col = prep(col)
    cols.append((name, col.type, col.to_pylist()))
rows = []
for i in range(t.num_rows):
    rows.append({n: conv(ty, vals[i]) for n, ty, vals in cols})
print(json.dumps({"schema": str(t.schema), "rows": rows}))
`

// TestPyArrowReadsWrittenFiles writes writeTypes with every compression and
// has pyarrow's ORC reader (Apache ORC C++) read the file: every value must
// be the one written. It needs PAIMON_INTEROP_PYTHON (a python with
// pyarrow); without it the test is skipped.
func TestPyArrowReadsWrittenFiles(t *testing.T) {
	py := os.Getenv("PAIMON_INTEROP_PYTHON")
	if py == "" {
		t.Skip("PAIMON_INTEROP_PYTHON not set")
	}
	fields := writeTypes()
	rec := recordFromJSON(t, fields, pyarrowJSON)
	defer rec.Release()
	want := canonicalRows(fields, rec)
	dir := t.TempDir()
	for _, codec := range []string{"zstd", "zlib", "snappy", "lz4", "none"} {
		t.Run(codec, func(t *testing.T) {
			data, _ := writeORC(t, fields, map[string]string{"file.compression": codec, "orc.compress.size": "64"}, rec)
			path := filepath.Join(dir, codec+".orc")
			if err := os.WriteFile(path, data, 0o644); err != nil {
				t.Fatal(err)
			}
			out, err := exec.Command(py, "-c", pyarrowScript, path).Output()
			if err != nil {
				msg := ""
				if ee, ok := err.(*exec.ExitError); ok {
					msg = string(ee.Stderr)
				}
				t.Fatalf("pyarrow: %v\n%s", err, msg)
			}
			var got struct {
				Schema string
				Rows   []any
			}
			dec := json.NewDecoder(bytes.NewReader(out))
			dec.UseNumber()
			if err := dec.Decode(&got); err != nil {
				t.Fatal(err)
			}
			for i := range want {
				if i >= len(got.Rows) {
					t.Fatalf("pyarrow read %d rows, want %d", len(got.Rows), len(want))
				}
				g := got.Rows[i].(map[string]any)
				for k, wv := range want[i].(map[string]any) {
					if !reflect.DeepEqual(g[k], wv) {
						t.Errorf("row %d %s: pyarrow %v, want %v", i, k, g[k], wv)
					}
				}
			}
			if len(got.Rows) != len(want) {
				t.Errorf("pyarrow read %d rows, want %d", len(got.Rows), len(want))
			}
		})
	}
}

// canonicalRows renders rec as pyarrowScript does, through JSON (numbers
// as json.Number).
func canonicalRows(fields []types.DataField, rec arrow.RecordBatch) []any {
	rows := make([]any, rec.NumRows())
	for i := range rows {
		m := map[string]any{}
		for c, f := range fields {
			m[f.Name] = canonical(f.Type, rec.Column(c), i)
		}
		rows[i] = m
	}
	b, _ := json.Marshal(rows)
	var out []any
	dec := json.NewDecoder(bytes.NewReader(b))
	dec.UseNumber()
	_ = dec.Decode(&out)
	return out
}

func canonical(t types.DataType, a arrow.Array, i int) any {
	if a.IsNull(i) {
		return nil
	}
	num := func(v int64) json.Number { return json.Number(strconv.FormatInt(v, 10)) }
	switch a := a.(type) {
	case *array.Boolean:
		return a.Value(i)
	case *array.Int8:
		return num(int64(a.Value(i)))
	case *array.Int16:
		return num(int64(a.Value(i)))
	case *array.Int32:
		return num(int64(a.Value(i)))
	case *array.Int64:
		return num(a.Value(i))
	case *array.Float32:
		return num(int64(math.Float32bits(a.Value(i))))
	case *array.Float64:
		return json.Number(strconv.FormatUint(math.Float64bits(a.Value(i)), 10))
	case *array.String:
		s := a.Value(i)
		if t.Kind == types.KindChar {
			s += strings.Repeat(" ", t.Length-len([]rune(s)))
		}
		return s
	case *array.Binary:
		return hex.EncodeToString(a.Value(i))
	case *array.Decimal128:
		return decimalString(a.Value(i), t.Scale)
	case *array.Date32:
		return num(int64(a.Value(i)))
	case *array.Time32:
		return num(int64(a.Value(i)))
	case *array.Timestamp:
		s, ns := splitTimestamp(int64(a.Value(i)), a.DataType().(*arrow.TimestampType).Unit)
		return num(s*1e9 + ns)
	case *array.Map:
		lo, hi := a.ValueOffsets(i)
		out := []any{}
		for k := lo; k < hi; k++ {
			kt, vt := t.Key, t.Value
			if t.Kind == types.KindMultiset {
				kt, vt = t.Elem, &types.DataType{Kind: types.KindInt}
			}
			out = append(out, []any{canonical(*kt, a.Keys(), int(k)), canonical(*vt, a.Items(), int(k))})
		}
		return out
	case *array.List:
		lo, hi := a.ValueOffsets(i)
		out := []any{}
		for k := lo; k < hi; k++ {
			out = append(out, canonical(*t.Elem, a.ListValues(), int(k)))
		}
		return out
	case *array.Struct:
		m := map[string]any{}
		for k, f := range t.Fields {
			m[f.Name] = canonical(f.Type, a.Field(k), i)
		}
		return m
	}
	return "unsupported " + a.DataType().String()
}
