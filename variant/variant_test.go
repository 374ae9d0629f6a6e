package variant

import (
	"encoding/binary"
	"errors"
	"math"
	"testing"
)

// meta is a sorted metadata dictionary of one-byte offsets.
func meta(keys ...string) []byte {
	m := []byte{0x11, byte(len(keys))}
	off := 0
	m = append(m, 0)
	for _, k := range keys {
		off += len(k)
		m = append(m, byte(off))
	}
	for _, k := range keys {
		m = append(m, k...)
	}
	return m
}

func prim(id int, payload ...byte) []byte { return append([]byte{byte(id << 2)}, payload...) }

func f64(f float64) []byte {
	return prim(primDouble, binary.LittleEndian.AppendUint64(nil, math.Float64bits(f))...)
}

func i64(id int, v int64, n int) []byte {
	b := binary.LittleEndian.AppendUint64(nil, uint64(v))
	return prim(id, b[:n]...)
}

// TestToJSON: each encoding prints as Java's GenericVariant.toJson(UTC)
// does (expected strings are Java's, e.g. Double.toString "1.0E10").
func TestToJSON(t *testing.T) {
	empty := meta()
	obj := append([]byte{0x02, 2, 0, 1, 0, 2, 4}, 0x05, 'x', 0x0C, 1) // {"a":"x","b":1}
	arr := []byte{0x03, 2, 0, 1, 2, 0x04, 0x00}                       // [true,null]
	for _, tc := range []struct {
		name  string
		value []byte
		meta  []byte
		want  string
	}{
		{"int1", prim(primInt1, 123), empty, "123"},
		{"int2", i64(primInt2, -300, 2), empty, "-300"},
		{"int8", i64(primInt8, math.MinInt64, 8), empty, "-9223372036854775808"},
		{"double big", f64(1e10), empty, "1.0E10"},
		{"double small", f64(1e-7), empty, "1.0E-7"},
		{"double 1e-4", f64(0.0001), empty, "1.0E-4"},
		{"double 1e-3", f64(0.001), empty, "0.001"},
		{"double half", f64(-0.5), empty, "-0.5"},
		{"double int", f64(100), empty, "100.0"},
		{"double 1e7", f64(1e7), empty, "1.0E7"},
		{"double below 1e7", f64(1234567.25), empty, "1234567.25"},
		{"double nan", f64(math.NaN()), empty, `"NaN"`},
		{"float", prim(primFloat, binary.LittleEndian.AppendUint32(nil, math.Float32bits(0.1))...), empty, "0.1"},
		{"decimal4", prim(primDecimal4, append([]byte{2}, binary.LittleEndian.AppendUint32(nil, uint32(0xFFFFFFFF-424))...)...), empty, "-4.25"},
		{"decimal8 trailing zeros", prim(primDecimal8, append([]byte{3}, binary.LittleEndian.AppendUint64(nil, 1000)...)...), empty, "1"},
		{"decimal8 small", prim(primDecimal8, append([]byte{4}, binary.LittleEndian.AppendUint64(nil, 5)...)...), empty, "0.0005"},
		{"short string", append([]byte{byte(5<<2 | 1)}, "a\"b\\\x01"...), empty, `"a\"b\\\u0001"`},
		{"long string", prim(primLongStr, append(binary.LittleEndian.AppendUint32(nil, 3), "é\n"...)...), empty, `"é\n"`},
		{"binary", prim(primBinary, append(binary.LittleEndian.AppendUint32(nil, 3), "a31"...)...), empty, `"YTMx"`},
		{"date", i64(primDate, 19723, 4), empty, `"2024-01-01"`},
		{"timestamp", i64(primTimestamp, 1_500_000, 8), empty, `"1970-01-01 00:00:01.5+00:00"`},
		{"timestamp ntz before epoch", i64(primTimestampNTZ, -1, 8), empty, `"1969-12-31 23:59:59.999999"`},
		{"uuid", prim(primUUID, 0x12, 0x34, 0x56, 0x78, 0x9a, 0xbc, 0xde, 0xf0, 0, 1, 2, 3, 4, 5, 6, 7), empty, `"12345678-9abc-def0-0001-020304050607"`},
		{"null", prim(primNull), empty, "null"},
		{"object", obj, meta("a", "b"), `{"a":"x","b":1}`},
		{"array", arr, empty, "[true,null]"},
	} {
		got, err := ToJSON(tc.value, tc.meta)
		if err != nil || got != tc.want {
			t.Errorf("%s: %q, %v; want %q", tc.name, got, err, tc.want)
		}
	}
}

// TestToJSONMalformed: truncated buffers, unknown type ids, key ids outside
// the dictionary and bad metadata wrap ErrMalformed.
func TestToJSONMalformed(t *testing.T) {
	for _, tc := range []struct {
		name        string
		value, meta []byte
	}{
		{"empty value", nil, meta()},
		{"truncated double", prim(primDouble, 1, 2), meta()},
		{"unknown type", prim(30), meta()},
		{"key out of range", []byte{0x02, 1, 5, 0, 2, 0x0C, 1}, meta("a")},
		{"offset out of range", []byte{0x03, 1, 0, 200}, meta()},
		{"bad metadata version", prim(primNull), []byte{0x02, 0, 0}},
		{"empty metadata", prim(primNull), nil},
		{"long string too long", prim(primLongStr, 0xff, 0xff, 0xff, 0x7f), meta()},
	} {
		if _, err := ToJSON(tc.value, tc.meta); !errors.Is(err, ErrMalformed) {
			t.Errorf("%s: err %v, want ErrMalformed", tc.name, err)
		}
	}
}
