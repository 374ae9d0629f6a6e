package parquet

import (
	"bytes"
	"context"
	"strings"
	"testing"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"
	"github.com/apache/arrow-go/v18/arrow/memory"
	"github.com/apache/arrow-go/v18/parquet/file"
	"github.com/apache/arrow-go/v18/parquet/schema"

	"github.com/paimon-go/paimon/format"
	"github.com/paimon-go/paimon/types"
)

// allTypes covers every storable kind: integers, floats, strings, binaries,
// decimals of each physical width, date/time, timestamps of each precision
// band with and without local time zone, nested ARRAY/MAP/MULTISET/ROW and
// an INT96 timestamp nested in a map value.
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
		f(34, "var", types.Variant()),
	}
}

// allTypesJSON holds three rows: typical values, nulls and empty
// containers, extremes (type bounds, year 1 and 9999, the int64 nanosecond
// range ends, a pre-1900 instant). Timestamps are integers in the column's
// unit; binaries base64.
const allTypesJSON = `[
{"b":true,"t":-128,"s":32767,"i":1,"l":9223372036854775807,"f":1.5,"d":-2.25,"c":"abc","v":"héllo",
 "bin":"QUI=","vb":"eHl6","dec9":"1234567.89","dec18":"-12345678901234.5678",
 "dec38":"1234567890123456789012345678.0123456789","date":19000,"time":45296789,
 "ts0":1000,"ts3":1700000000123,"ts6":1700000000123456,"ts9":1700000000123456789,
 "ltz3":-1,"ltz6":-1,"ltz9":-1,"arr":[1,null,3],"arr2":[["a","b"],[],null],
 "m":[{"key":"k1","value":1},{"key":"k2","value":null}],"ms":[{"key":"x","value":2}],
 "row":{"x":7,"y":[1.0,2.5],"z":{"q":"deep"}},
 "mr":[{"key":1,"value":{"a":-2240521239998998999}}],"var":{"value":"dmFs","metadata":"bWV0YQ=="}},
{"b":null,"t":null,"s":null,"i":2,"l":null,"f":null,"d":null,"c":null,"v":null,"bin":null,"vb":null,
 "dec9":null,"dec18":null,"dec38":null,"date":null,"time":null,"ts0":null,"ts3":null,"ts6":null,
 "ts9":null,"ltz3":null,"ltz6":null,"ltz9":null,"arr":[],"arr2":[],"m":[],"ms":null,
 "row":{"x":null,"y":null,"z":null},"mr":[],"var":null},
{"b":false,"t":127,"s":-32768,"i":-2147483648,"l":-9223372036854775808,"f":3.4028235e38,"d":5e-324,
 "c":"xyz","v":"","bin":"QUI=","vb":"","dec9":"-9999999.99","dec18":"99999999999999.9999",
 "dec38":"-9999999999999999999999999999.9999999999","date":-719162,"time":0,
 "ts0":-62135596800000,"ts3":null,"ts6":-62135596800000000,"ts9":9223372036854775807,
 "ltz3":253402300799999,"ltz6":null,"ltz9":-9223372036854775808,"arr":null,"arr2":[[null]],
 "m":null,"ms":[{"key":"a","value":1},{"key":"b","value":3}],"row":null,
 "mr":[{"key":2,"value":null},{"key":3,"value":{"a":null}}],"var":{"value":"","metadata":""}}
]`

// allTypesRows is allTypesJSON as render prints it, written by hand.
var allTypesRows = []string{
	"true | -128 | 32767 | 1 | 9223372036854775807 | 1.5 | -2.25 | abc | héllo | AB | xyz | 1234567.89 | -12345678901234.5678 | " +
		"1234567890123456789012345678.0123456789 | 19000 | 45296789 | 1970-01-01 00:00:01.000 | 2023-11-14 22:13:20.123 | " +
		"2023-11-14 22:13:20.123456 | 2023-11-14 22:13:20.123456789 | 1969-12-31 23:59:59.999 | 1969-12-31 23:59:59.999999 | " +
		"1969-12-31 23:59:59.999999999 | [1, null, 3] | [[a, b], [], null] | {k1: 1, k2: null} | {x: 2} | (7, [1, 2.5], (deep)) | " +
		"{1: (1899-01-01 00:59:20.001001001)} | (val, meta)",
	"null | null | null | 2 | null | null | null | null | null | null | null | null | null | null | null | null | null | null | " +
		"null | null | null | null | null | [] | [] | {} | null | (null, null, null) | {} | null",
	"false | 127 | -32768 | -2147483648 | -9223372036854775808 | 3.4028235e+38 | 5e-324 | xyz |  | AB |  | -9999999.99 | " +
		"99999999999999.9999 | -9999999999999999999999999999.9999999999 | -719162 | 0 | 0001-01-01 00:00:00.000 | null | " +
		"0001-01-01 00:00:00.000000 | 2262-04-11 23:47:16.854775807 | 9999-12-31 23:59:59.999 | null | " +
		"1677-09-21 00:12:43.145224192 | null | [[null]] | null | {a: 1, b: 3} | null | {2: null, 3: (null)} | (, )",
}

// allTypesParquetSchema is the Parquet schema Java Paimon's
// ParquetSchemaConverter produces for allTypes (derived by hand from the
// converter; element/key/value ids per SpecialFields: 536870911 ± 1024·id ±
// depth), in arrow-go's PrintSchema notation, with the three annotations
// arrow-go always writes and Java does not: INT32/INT64 columns carry
// Int(32/64, signed), TIME has isAdjustedToUTC=false (Java: true), and
// key_value groups lack the legacy MAP_KEY_VALUE converted type. Java's
// reader accepts all three (ParquetVectorUpdaterFactory).
const allTypesParquetSchema = `required group field_id=-1 paimon_schema {
  optional boolean field_id=0 b;
  optional int32 field_id=1 t (Int(bitWidth=8, isSigned=true));
  optional int32 field_id=2 s (Int(bitWidth=16, isSigned=true));
  required int32 field_id=3 i (Int(bitWidth=32, isSigned=true));
  optional int64 field_id=4 l (Int(bitWidth=64, isSigned=true));
  optional float field_id=5 f;
  optional double field_id=6 d;
  optional byte_array field_id=7 c (String);
  optional byte_array field_id=8 v (String);
  optional byte_array field_id=9 bin;
  optional byte_array field_id=10 vb;
  optional int32 field_id=11 dec9 (Decimal(precision=9, scale=2));
  optional int64 field_id=12 dec18 (Decimal(precision=18, scale=4));
  optional fixed_len_byte_array field_id=13 dec38 (Decimal(precision=38, scale=10));
  optional int32 field_id=14 date (Date);
  optional int32 field_id=15 time (Time(isAdjustedToUTC=false, timeUnit=milliseconds));
  optional int64 field_id=16 ts0 (Timestamp(isAdjustedToUTC=false, timeUnit=milliseconds, is_from_converted_type=false, force_set_converted_type=false));
  optional int64 field_id=17 ts3 (Timestamp(isAdjustedToUTC=false, timeUnit=milliseconds, is_from_converted_type=false, force_set_converted_type=false));
  optional int64 field_id=18 ts6 (Timestamp(isAdjustedToUTC=false, timeUnit=microseconds, is_from_converted_type=false, force_set_converted_type=false));
  optional int96 field_id=19 ts9;
  optional int64 field_id=20 ltz3 (Timestamp(isAdjustedToUTC=true, timeUnit=milliseconds, is_from_converted_type=false, force_set_converted_type=false));
  optional int64 field_id=21 ltz6 (Timestamp(isAdjustedToUTC=true, timeUnit=microseconds, is_from_converted_type=false, force_set_converted_type=false));
  optional int96 field_id=22 ltz9;
  optional group field_id=23 arr (List) {
    repeated group field_id=-1 list {
      optional int32 field_id=536894464 element (Int(bitWidth=32, isSigned=true));
    }
  }
  optional group field_id=24 arr2 (List) {
    repeated group field_id=-1 list {
      optional group field_id=536895488 element (List) {
        repeated group field_id=-1 list {
          optional byte_array field_id=536895489 element (String);
        }
      }
    }
  }
  optional group field_id=25 m (Map) {
    repeated group field_id=-1 key_value {
      required byte_array field_id=536845310 key (String);
      optional int64 field_id=536896512 value (Int(bitWidth=64, isSigned=true));
    }
  }
  optional group field_id=26 ms (Map) {
    repeated group field_id=-1 key_value {
      required byte_array field_id=536844286 key (String);
      required int32 field_id=536897536 value (Int(bitWidth=32, isSigned=true));
    }
  }
  optional group field_id=27 row {
    optional int32 field_id=28 x (Int(bitWidth=32, isSigned=true));
    optional group field_id=29 y (List) {
      repeated group field_id=-1 list {
        optional double field_id=536900608 element;
      }
    }
    optional group field_id=30 z {
      optional byte_array field_id=31 q (String);
    }
  }
  optional group field_id=32 mr (Map) {
    repeated group field_id=-1 key_value {
      required int32 field_id=536838142 key (Int(bitWidth=32, isSigned=true));
      optional group field_id=536903680 value {
        optional int96 field_id=33 a;
      }
    }
  }
  optional group field_id=34 var {
    required byte_array field_id=0 value;
    required byte_array field_id=1 metadata;
  }
}
`

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
	w, err := NewWriter(ctx, &buf, "test.parquet", fields, format.WriteOptions{Options: opts})
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

func readBytes(t testing.TB, data []byte, want []types.DataField, opts format.ReadOptions) ([]string, []int64) {
	t.Helper()
	r, err := NewReader(context.Background(), bytesFile(data), "test.parquet", want, opts)
	if err != nil {
		t.Fatal(err)
	}
	defer r.Close()
	if got := r.Schema(); !got.Equal(types.SchemaToArrow(want)) {
		t.Fatalf("schema\n%s\nwant\n%s", got, types.SchemaToArrow(want))
	}
	return readAll(t, r)
}

func parquetSchemaText(t testing.TB, data []byte) string {
	t.Helper()
	pf, err := file.NewParquetReader(bytes.NewReader(data))
	if err != nil {
		t.Fatal(err)
	}
	var sb strings.Builder
	schema.PrintSchema(pf.MetaData().Schema.Root(), &sb, 2)
	return sb.String()
}

func TestRoundTripAllTypes(t *testing.T) {
	fields := allTypes()
	rec := recordFromJSON(t, fields, allTypesJSON)
	defer rec.Release()
	for _, codec := range []string{"zstd", "snappy", "lz4", "gzip", "none"} {
		t.Run(codec, func(t *testing.T) {
			data, res := writeFile(t, fields, map[string]string{"file.compression": codec}, rec)
			if res.RowCount != 3 {
				t.Errorf("RowCount %d", res.RowCount)
			}
			if got := parquetSchemaText(t, data); got != allTypesParquetSchema {
				t.Errorf("parquet schema:\n%s\nwant:\n%s", got, allTypesParquetSchema)
			}
			rows, firsts := readBytes(t, data, fields, format.ReadOptions{})
			equalRows(t, "rows", rows, allTypesRows)
			if len(firsts) != 1 || firsts[0] != 0 {
				t.Errorf("batch starts %v", firsts)
			}
		})
	}
}

// TestNoLeaks runs a write and a read (nested types, INT96, casts, missing
// columns) on a checked allocator: every buffer must be released.
func TestNoLeaks(t *testing.T) {
	mem := memory.NewCheckedAllocator(memory.NewGoAllocator())
	ctx := context.Background()
	fields := allTypes()
	rec := recordFromJSON(t, fields, allTypesJSON)
	var buf bytes.Buffer
	w, err := NewWriter(ctx, &buf, "leak.parquet", fields, format.WriteOptions{Allocator: mem})
	if err != nil {
		t.Fatal(err)
	}
	if err := w.Write(ctx, rec); err != nil {
		t.Fatal(err)
	}
	rec.Release()
	if _, err := w.Close(ctx); err != nil {
		t.Fatal(err)
	}
	want := append(allTypes(), types.Field(99, "added", types.ArrayOf(types.String())))
	want[3] = types.Field(3, "i", types.BigInt()) // INT -> BIGINT
	r, err := NewReader(ctx, bytesFile(buf.Bytes()), "leak.parquet", want, format.ReadOptions{Allocator: mem, BatchSize: 2})
	if err != nil {
		t.Fatal(err)
	}
	rows, _ := readAll(t, r)
	if err := r.Close(); err != nil {
		t.Fatal(err)
	}
	if len(rows) != 3 {
		t.Fatalf("%d rows", len(rows))
	}
	mem.AssertSize(t, 0)
}
