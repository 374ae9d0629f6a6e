package row

import (
	"errors"
	"math"
	"math/big"
	"testing"
	"time"

	"github.com/paimon-go/paimon/types"
)

func TestEscapePathName(t *testing.T) {
	cases := map[string]string{
		"plain.value-1_x":  "plain.value-1_x",
		"a b/c:d=e%":       "a b%2Fc%3Ad%3De%25",
		"\n\x00\x1f\x7f":   "%0A%00%1F%7F",
		`"#'*?\{}[]^`:      "%22%23%27%2A%3F%5C%7B%7D%5B%5D%5E",
		"/leading":         "%2Fleading",
		"héllo 世界":         "héllo 世界",
		"2024-01-01T10:00": "2024-01-01T10%3A00",
	}
	for in, want := range cases {
		if got := EscapePathName(in); got != want {
			t.Errorf("EscapePathName(%q) = %q, want %q", in, got, want)
		}
		if back := UnescapePathName(want); back != in {
			t.Errorf("UnescapePathName(%q) = %q, want %q", want, back, in)
		}
	}
	// Java quirks: '%' needs two more characters, Integer.parseInt accepts '+',
	// and each %XX becomes one UTF-16 char (not a UTF-8 byte).
	for in, want := range map[string]string{
		"%zz": "%zz", "a%2": "a%2", "%": "%", "%+F": "\x0f", "%-1": "%-1", "%C3%A9": "\u00c3\u00a9", "%41%42": "AB",
	} {
		if got := UnescapePathName(in); got != want {
			t.Errorf("UnescapePathName(%q) = %q, want %q", in, got, want)
		}
	}
}

func ts(y int, mo time.Month, d, h, mi, s, ns int) types.Timestamp {
	tm := time.Date(y, mo, d, h, mi, s, ns, time.UTC)
	ms := tm.UnixMilli()
	return types.Timestamp{Millis: ms, NanoOfMilli: int32(ns % 1_000_000)}
}

func TestPartitionPath(t *testing.T) {
	f := func(name string, dt types.DataType) types.DataField { return types.Field(0, name, dt) }
	shanghai := time.FixedZone("UTC+8", 8*3600)
	cases := []struct {
		name     string
		fields   []types.DataField
		values   []any
		legacy   bool
		zone     *time.Location
		defName  string
		want     string
		noRevert bool // the value does not round trip (default name, truncated)
	}{
		{"string and int", []types.DataField{f("dt", tString), f("hr", tInt)}, []any{"2024-01-01", int32(5)}, true, nil, "", "dt=2024-01-01/hr=5/", false},
		{"fixture f1", []types.DataField{f("f1", tInt.NotNull())}, []any{int32(10)}, true, nil, "", "f1=10/", false},
		{"no partition", nil, nil, true, nil, "", "", false},
		{"null", []types.DataField{f("p", tString)}, []any{nil}, true, nil, "", "p=__DEFAULT_PARTITION__/", false},
		{"empty string", []types.DataField{f("p", tString)}, []any{""}, true, nil, "", "p=__DEFAULT_PARTITION__/", true},
		{"whitespace", []types.DataField{f("p", tString)}, []any{" \t\u2003"}, true, nil, "", "p=__DEFAULT_PARTITION__/", true},
		{"nbsp is not whitespace", []types.DataField{f("p", tString)}, []any{"\u00a0"}, true, nil, "", "p=\u00a0/", false},
		{"custom default", []types.DataField{f("p", tInt)}, []any{nil}, true, nil, "NULLV", "p=NULLV/", false},
		{"escaping", []types.DataField{f("a=b", tString)}, []any{"x/y:z"}, true, nil, "", "a%3Db=x%2Fy%3Az/", false},
		{"legacy date", []types.DataField{f("d", types.Date())}, []any{int32(19723)}, true, nil, "", "d=19723/", false},
		{"date", []types.DataField{f("d", types.Date())}, []any{int32(19723)}, false, nil, "", "d=2024-01-01/", false},
		{"date 1899-12-31", []types.DataField{f("d", types.Date())}, []any{int32(-25568)}, false, nil, "", "d=1899-12-31/", false},
		{"legacy time", []types.DataField{f("t", types.TimeOf(0))}, []any{int32(3723004)}, true, nil, "", "t=3723004/", false},
		{"time(3)", []types.DataField{f("t", types.TimeOf(3))}, []any{int32(3723004)}, false, nil, "", "t=01%3A02%3A03.004/", false},
		{"time(0)", []types.DataField{f("t", types.TimeOf(0))}, []any{int32(3723000)}, false, nil, "", "t=01%3A02%3A03/", false},
		{"legacy timestamp minutes", []types.DataField{f("ts", types.TimestampOf(3))}, []any{ts(2024, 1, 1, 10, 0, 0, 0)}, true, nil, "", "ts=2024-01-01T10%3A00/", false},
		{"legacy timestamp seconds", []types.DataField{f("ts", types.TimestampOf(3))}, []any{ts(2024, 1, 1, 10, 0, 5, 0)}, true, nil, "", "ts=2024-01-01T10%3A00%3A05/", false},
		{"legacy timestamp millis", []types.DataField{f("ts", types.TimestampOf(3))}, []any{ts(2024, 1, 1, 10, 0, 0, 120_000_000)}, true, nil, "", "ts=2024-01-01T10%3A00%3A00.120/", false},
		{"legacy timestamp micros", []types.DataField{f("ts", types.TimestampOf(6))}, []any{ts(2024, 1, 1, 10, 0, 0, 123_456_000)}, true, nil, "", "ts=2024-01-01T10%3A00%3A00.123456/", false},
		{"legacy timestamp nanos", []types.DataField{f("ts", types.TimestampOf(9))}, []any{ts(2024, 1, 1, 10, 0, 0, 123_456_789)}, true, nil, "", "ts=2024-01-01T10%3A00%3A00.123456789/", false},
		{"timestamp(3)", []types.DataField{f("ts", types.TimestampOf(3))}, []any{ts(2024, 1, 1, 10, 0, 0, 0)}, false, nil, "", "ts=2024-01-01 10%3A00%3A00.000/", false},
		{"timestamp(0)", []types.DataField{f("ts", types.TimestampOf(0))}, []any{ts(2024, 1, 1, 10, 0, 0, 0)}, false, nil, "", "ts=2024-01-01 10%3A00%3A00/", false},
		{"timestamp(6) keeps digits", []types.DataField{f("ts", types.TimestampOf(6))}, []any{ts(2024, 1, 1, 10, 0, 0, 120_000_000)}, false, nil, "", "ts=2024-01-01 10%3A00%3A00.120000/", false},
		{"timestamp(3) more digits", []types.DataField{f("ts", types.TimestampOf(3))}, []any{ts(2024, 1, 1, 10, 0, 0, 123_456_000)}, false, nil, "", "ts=2024-01-01 10%3A00%3A00.123456/", false},
		{"ltz in zone", []types.DataField{f("ts", types.LocalZonedTimestampOf(0))}, []any{ts(2024, 1, 1, 10, 0, 0, 0)}, false, shanghai, "", "ts=2024-01-01 18%3A00%3A00/", false},
		{"decimal", []types.DataField{f("d", types.DecimalOf(10, 2))}, []any{dec("12345", 10, 2)}, true, nil, "", "d=123.45/", false},
		{"small negative decimal", []types.DataField{f("d", types.DecimalOf(10, 3))}, []any{dec("-5", 10, 3)}, false, nil, "", "d=-0.005/", false},
		{"boolean tinyint smallint bigint", []types.DataField{f("a", types.Boolean()), f("b", types.TinyInt()), f("c", types.SmallInt()), f("d", tBigInt)},
			[]any{true, int8(-3), int16(300), int64(-9000000000)}, true, nil, "", "a=true/b=-3/c=300/d=-9000000000/", false},
		{"double", []types.DataField{f("x", types.Double())}, []any{1e10}, true, nil, "", "x=1.0E10/", false},
		{"float", []types.DataField{f("x", types.Float())}, []any{float32(0.1)}, false, nil, "", "x=0.1/", false},
		{"binary cast", []types.DataField{f("b", types.Bytes())}, []any{[]byte("abc")}, false, nil, "", "b=abc/", false},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			pc := PartitionComputer{Fields: c.fields, DefaultName: c.defName, Legacy: c.legacy, Zone: c.zone}
			got, err := pc.Path(c.values)
			if err != nil {
				t.Fatal(err)
			}
			if got != c.want {
				t.Fatalf("Path = %q, want %q", got, c.want)
			}
			if c.zone == nil {
				if p, err := PartitionPath(c.fields, c.values, c.defName, c.legacy); err != nil || p != got {
					t.Fatalf("PartitionPath = %q, %v", p, err)
				}
			}
			if c.noRevert {
				return
			}
			back, err := pc.Parse(got)
			if err != nil {
				t.Fatal(err)
			}
			if !sameValue(back, c.values) && !(len(back) == 0 && len(c.values) == 0) {
				t.Fatalf("Parse(%q) = %#v, want %#v", got, back, c.values)
			}
		})
	}
}

func TestPartitionErrors(t *testing.T) {
	bin := []types.DataField{types.Field(0, "b", types.Bytes())}
	if _, err := PartitionPath(bin, []any{[]byte("x")}, "", true); !errors.Is(err, ErrValue) {
		t.Errorf("legacy binary: %v", err)
	}
	arr := []types.DataField{types.Field(0, "a", types.ArrayOf(tInt))}
	if _, err := PartitionPath(arr, []any{[]any{}}, "", false); !errors.Is(err, ErrUnsupported) {
		t.Errorf("array: %v", err)
	}
	intf := []types.DataField{types.Field(0, "i", tInt)}
	if _, err := PartitionPath(intf, []any{int64(1)}, "", true); !errors.Is(err, ErrValue) {
		t.Errorf("wrong Go type: %v", err)
	}
	if _, err := PartitionPath(intf, nil, "", true); !errors.Is(err, ErrSchema) {
		t.Errorf("arity: %v", err)
	}
	if _, err := SpecPath([]PartitionKV{{Key: "", Value: "x"}}); !errors.Is(err, ErrValue) {
		t.Errorf("empty key: %v", err)
	}
	pc := PartitionComputer{Fields: intf, Legacy: true}
	for _, p := range []string{"j=1/", "i=x/", "i=1/j=2/", "", "i=99999999999/"} {
		if _, err := pc.Parse(p); err == nil {
			t.Errorf("Parse(%q) succeeded", p)
		}
	}
}

func TestParsePartitionPath(t *testing.T) {
	got := ParsePartitionPath("/tmp/t/dt=a%3Db/hr=5/bucket-0/data-1.parquet")
	want := []PartitionKV{{"dt", "a=b"}, {"hr", "5"}}
	if len(got) != len(want) || got[0] != want[0] || got[1] != want[1] {
		t.Fatalf("got %v", got)
	}
	if got := ParsePartitionPath("bucket-0"); got == nil || len(got) != 0 {
		t.Fatalf("got %#v", got)
	}
	if got := ParsePartitionPath("a=b=c/"); len(got) != 1 || got[0] != (PartitionKV{"a=b", "c"}) {
		t.Fatalf("greedy key: %v", got)
	}
	name, err := PartitionName(want)
	if err != nil || name != "dt=a%3Db/hr=5" {
		t.Fatalf("PartitionName = %q, %v", name, err)
	}
}

func TestPathOf(t *testing.T) {
	fields := []types.DataField{types.Field(1, "dt", tString), types.Field(2, "hr", tInt)}
	r, err := Encode(FieldTypes(fields), []any{"2025-04-14", int32(10)})
	if err != nil {
		t.Fatal(err)
	}
	p, err := PartitionComputer{Fields: fields, Legacy: true}.PathOf(r)
	if err != nil || p != "dt=2025-04-14/hr=10/" {
		t.Fatalf("PathOf = %q, %v", p, err)
	}
	if s, err := PartitionString(fields, r); err != nil || s != "dt=2025-04-14/hr=10" {
		t.Fatalf("PartitionString = %q, %v", s, err)
	}
	if s, err := PartitionString(nil, EmptyRow()); err != nil || s != "" {
		t.Fatalf("PartitionString(unpartitioned) = %q, %v", s, err)
	}
	if _, err := PartitionString(fields, EmptyRow()); !errors.Is(err, ErrSchema) {
		t.Fatalf("PartitionString(arity mismatch): %v", err)
	}
}

// TestJavaFloatString checks Java's Float/Double.toString outputs.
func TestJavaFloatString(t *testing.T) {
	doubles := map[float64]string{
		1: "1.0", -1: "-1.0", 0.5: "0.5", 100: "100.0", 1e10: "1.0E10", 1e7: "1.0E7", 9999999: "9999999.0",
		0.001: "0.001", 0.0001: "1.0E-4", 123456.789: "123456.789", 1.5e-5: "1.5E-5", 12345678.9: "1.23456789E7",
		math.MaxFloat64: "1.7976931348623157E308", math.SmallestNonzeroFloat64: "4.9E-324", 2e23: "2.0E23",
		math.Inf(1): "Infinity", math.Inf(-1): "-Infinity", 0.30000000000000004: "0.30000000000000004",
	}
	for x, want := range doubles {
		if got := javaFloatString(x, 64); got != want {
			t.Errorf("Double.toString(%v) = %q, want %q", x, got, want)
		}
	}
	floats := map[float32]string{
		0.1: "0.1", 1.1: "1.1", 100.0 / 3: "33.333332", math.MaxFloat32: "3.4028235E38",
		math.SmallestNonzeroFloat32: "1.4E-45", 1e10: "1.0E10",
	}
	for x, want := range floats {
		if got := javaFloatString(float64(x), 32); got != want {
			t.Errorf("Float.toString(%v) = %q, want %q", x, got, want)
		}
	}
	if javaFloatString(math.NaN(), 64) != "NaN" || javaFloatString(math.Copysign(0, -1), 64) != "-0.0" || javaFloatString(0, 32) != "0.0" {
		t.Error("special values")
	}
}

func TestJavaDateTimeStrings(t *testing.T) {
	ldt := map[types.Timestamp]string{
		ts(2024, 1, 1, 10, 0, 0, 0):        "2024-01-01T10:00",
		ts(999, 12, 31, 23, 59, 59, 1000):  "0999-12-31T23:59:59.000001",
		ts(-1, 1, 1, 0, 0, 0, 1):           "-0001-01-01T00:00:00.000000001",
		ts(10000, 1, 1, 0, 0, 0, 0):        "+10000-01-01T00:00",
		ts(1899, 1, 1, 0, 59, 20, 1001001): "1899-01-01T00:59:20.001001001",
	}
	for v, want := range ldt {
		if got := javaLocalDateTimeString(v); got != want {
			t.Errorf("LocalDateTime.toString(%v) = %q, want %q", v, got, want)
		}
	}
	dates := map[int32]string{0: "1970-01-01", 19723: "2024-01-01", -719162: "0001-01-01", -1: "1969-12-31"}
	for d, want := range dates {
		if got := formatDate(d); got != want {
			t.Errorf("formatDate(%d) = %q, want %q", d, got, want)
		}
	}
	times := []struct {
		ms   int32
		p    int
		want string
	}{{3723004, 3, "01:02:03.004"}, {3723500, 3, "01:02:03.5"}, {3723500, 0, "01:02:03"}, {-1000, 0, "23:59:59"}}
	for _, c := range times {
		if got := formatTimeMillis(c.ms, c.p); got != c.want {
			t.Errorf("formatTimeMillis(%d, %d) = %q, want %q", c.ms, c.p, got, c.want)
		}
	}
	for _, c := range []struct {
		unscaled string
		scale    int
		want     string
	}{{"12345", 2, "123.45"}, {"5", 3, "0.005"}, {"-5", 3, "-0.005"}, {"0", 5, "0.00000"}, {"-12345", 0, "-12345"}, {"12", -2, "1200"}} {
		u, _ := new(big.Int).SetString(c.unscaled, 10)
		if got := plainDecimalString(u, c.scale); got != c.want {
			t.Errorf("toPlainString(%s, %d) = %q, want %q", c.unscaled, c.scale, got, c.want)
		}
	}
}
