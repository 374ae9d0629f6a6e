package predicate

import (
	"errors"
	"math/big"
	"reflect"
	"testing"

	"github.com/paimon-go/paimon/types"
)

var parseFields = []types.DataField{
	types.Field(0, "a", types.Int()),
	types.Field(1, "b", types.String()),
	types.Field(2, "c", types.BigInt()),
	types.Field(3, "d", types.SmallInt()),
	types.Field(4, "e", types.Double()),
	types.Field(5, "dec", types.DecimalOf(10, 2)),
	types.Field(6, "dt", types.Date()),
	types.Field(7, "ts", types.TimestampOf(9)),
	types.Field(8, "flag", types.Boolean()),
	types.Field(9, "Mixed Case", types.TinyInt()),
	types.Field(10, "bin", types.Bytes()),
	types.Field(11, "t", types.TimeOf(3)),
	types.Field(12, "f", types.Float()),
	types.Field(13, "ltz", types.LocalZonedTimestampOf(3)),
}

func mustParse(t *testing.T, expr string) Predicate {
	t.Helper()
	p, err := Parse(expr, parseFields)
	if err != nil {
		t.Fatalf("Parse(%q): %v", expr, err)
	}
	return p
}

func TestParseExample(t *testing.T) {
	p := mustParse(t, "a = 1 AND (b > 'x' OR c IS NULL) AND d IN (1,2) AND NOT e <= 3.5")
	want := "`a` = 1 AND (`b` > 'x' OR `c` IS NULL) AND `d` IN (1, 2) AND `e` > 3.5"
	if got := p.String(); got != want {
		t.Fatalf("String = %s\nwant     %s", got, want)
	}
	c := p.(*Compound)
	if !c.And || len(c.Children) != 4 {
		t.Fatalf("shape: %#v", c)
	}
	leaf0 := c.Children[0].(*Leaf)
	if leaf0.Op != OpEqual || leaf0.Ref.Index != 0 || !reflect.DeepEqual(leaf0.Literals, []any{int32(1)}) {
		t.Errorf("a = 1 -> %#v", leaf0)
	}
	in := c.Children[2].(*Leaf)
	if in.Op != OpIn || in.Ref.Index != 3 || !reflect.DeepEqual(in.Literals, []any{int16(1), int16(2)}) {
		t.Errorf("d IN -> %#v", in)
	}
	e := c.Children[3].(*Leaf)
	if e.Op != OpGreaterThan || !reflect.DeepEqual(e.Literals, []any{3.5}) {
		t.Errorf("NOT e <= 3.5 -> %#v", e)
	}
	row := make([]any, len(parseFields))
	row[0], row[1], row[2], row[3], row[4] = int32(1), "y", int64(7), int16(2), 4.0
	if !p.Test(row) {
		t.Error("row should match")
	}
	row[4] = 3.5
	if p.Test(row) {
		t.Error("e = 3.5 should not match")
	}
	row[4], row[1], row[2] = 4.0, "a", nil
	if !p.Test(row) {
		t.Error("c IS NULL branch should match")
	}
	row[2] = int64(1)
	if p.Test(row) {
		t.Error("neither OR branch holds")
	}
}

func TestParseLiterals(t *testing.T) {
	cases := []struct {
		expr string
		lit  any
	}{
		{"a = -17", int32(-17)},
		{"a = '42'", int32(42)},
		{"c = 9223372036854775807", int64(9223372036854775807)},
		{"d = 32767", int16(32767)},
		{"`Mixed Case` = -128", int8(-128)},
		{"e = 1e3", 1000.0},
		{"e = .5", 0.5},
		{"f = 1.5", float32(1.5)},
		{"dec = 12.3", types.Decimal{Unscaled: big.NewInt(1230), Precision: 10, Scale: 2}},
		{"dec = -0.07", types.Decimal{Unscaled: big.NewInt(-7), Precision: 10, Scale: 2}},
		{"dec = 5.000", types.Decimal{Unscaled: big.NewInt(500), Precision: 10, Scale: 2}},
		{"dt = '2024-01-01'", int32(19723)},
		{"dt = DATE '1969-12-31'", int32(-1)},
		{"ts = '2024-01-01 10:00:00'", types.Timestamp{Millis: 1704103200000}},
		{"ts = TIMESTAMP '2024-01-01T10:00:00.123456789'", types.Timestamp{Millis: 1704103200123, NanoOfMilli: 456789}},
		{"ts = '1969-12-31 23:59:59.9995'", types.Timestamp{Millis: -1, NanoOfMilli: 500000}},
		{"ts = '2024-01-01'", types.Timestamp{Millis: 1704067200000}},
		{"ltz = '2024-01-01 10:00'", types.Timestamp{Millis: 1704103200000}},
		{"t = '01:02:03.004'", int32(3723004)},
		{"t = TIME '23:59'", int32(86340000)},
		{"flag = TRUE", true},
		{"flag = false", false},
		{"flag = 'true'", true},
		{"b = 'it''s'", "it's"},
		{"b = 12", "12"},
		{"b = ''", ""},
		{"bin = X'00ff'", []byte{0x00, 0xff}},
		{"bin = 'ab'", []byte("ab")},
		{"a = NULL", nil},
		{`"b" = 'q'`, "q"},
	}
	for _, c := range cases {
		p := mustParse(t, c.expr)
		l, ok := p.(*Leaf)
		if !ok || l.Op != OpEqual {
			t.Errorf("%s: %#v", c.expr, p)
			continue
		}
		if !reflect.DeepEqual(l.Literals[0], c.lit) {
			t.Errorf("%s: literal = %#v (%T), want %#v", c.expr, l.Literals[0], l.Literals[0], c.lit)
		}
	}
	// case-insensitive column match, keywords in any case
	p := mustParse(t, "A is not null and B Like 'ab%' or not (C between 1 and 5)")
	want := "(`a` IS NOT NULL AND `b` LIKE 'ab%') OR `c` < 1 OR `c` > 5"
	if p.String() != want {
		t.Errorf("got %s\nwant %s", p, want)
	}
	if got := mustParse(t, "b NOT LIKE 'x%'").String(); got != "NOT (`b` LIKE 'x%')" {
		t.Errorf("NOT LIKE = %s", got)
	}
	if got := mustParse(t, "b LIKE 'exact'").String(); got != "`b` = 'exact'" {
		t.Errorf("LIKE without %% = %s", got)
	}
	if got := mustParse(t, "a <> 1 AND a != 2 AND a == 3 AND a >= 4 AND a < 5").String(); got != "`a` <> 1 AND `a` <> 2 AND `a` = 3 AND `a` >= 4 AND `a` < 5" {
		t.Errorf("operators = %s", got)
	}
	if got := mustParse(t, "a NOT IN (1, NULL)").String(); got != "`a` NOT IN (1, NULL)" {
		t.Errorf("NOT IN = %s", got)
	}
	if got := mustParse(t, "a between 1 and 3").String(); got != "`a` >= 1 AND `a` <= 3" {
		t.Errorf("BETWEEN = %s", got)
	}
}

// String output parses back to the same predicate.
func TestStringRoundTrip(t *testing.T) {
	exprs := []string{
		"a = 1 AND (b > 'x' OR c IS NULL) AND d IN (1, 2) AND NOT e <= 3.5",
		"dec >= 12.34 OR dt = '2024-02-29' OR ts < '2024-01-01 00:00:00.000000001'",
		"bin = X'0aff' AND flag = FALSE AND t > '10:00:00.5' AND f <> 0.25",
		"NOT b LIKE 'p%' AND b NOT IN ('it''s', NULL)",
		"ltz >= '2020-05-06 07:08:09.123'",
	}
	for _, e := range exprs {
		p := mustParse(t, e)
		q, err := Parse(p.String(), parseFields)
		if err != nil {
			t.Errorf("reparse %q: %v", p.String(), err)
			continue
		}
		if !reflect.DeepEqual(p, q) {
			t.Errorf("round trip of %q:\n%s\n%s", e, p, q)
		}
	}
}

func TestParseErrors(t *testing.T) {
	syntax := []string{
		"", "a", "a =", "a = 1 AND", "(a = 1", "a = 1)", "a IN 1", "a IN (1,", "a IN ()",
		"a = 2147483648", "d = 40000", "a = 1.5", "a = 'x'", "dec = 1.234", "dec = 123456789.1",
		"dt = '2024-13-01'", "ts = 'yesterday'", "flag = 1", "a = TRUE", "b LIKE 'a%b%'",
		"b LIKE 'a_'", "a LIKE '1%'", "b LIKE x", "a IS 1", "a NOT = 1", "a BETWEEN 1 OR 2",
		"'x' = a", "a = 'unterminated", "a = 1 b = 2", "a # 1", "AND a = 1", "bin = X'zz'",
		"t = '25:00'", "e = abc", "a ! 1",
	}
	for _, e := range syntax {
		if _, err := Parse(e, parseFields); !errors.Is(err, ErrSyntax) {
			t.Errorf("Parse(%q) = %v, want ErrSyntax", e, err)
		}
	}
	dup := []types.DataField{types.Field(0, "x", types.Int()), types.Field(1, "X", types.Int())}
	for _, c := range []struct {
		expr   string
		fields []types.DataField
	}{
		{"zz = 1", parseFields},
		{"`a ` = 1", parseFields},
		{"x1 = 1", dup},
		{"`x` = 1 AND xX = 2", dup},
	} {
		if _, err := Parse(c.expr, c.fields); !errors.Is(err, ErrUnknownField) {
			t.Errorf("Parse(%q) = %v, want ErrUnknownField", c.expr, err)
		}
	}
	// exact match wins over the ambiguous case-insensitive one
	if p, err := Parse("X = 1", dup); err != nil || p.(*Leaf).Ref.Index != 1 {
		t.Errorf("exact-case match: %v %v", p, err)
	}
}

// Parse and String never panic on arbitrary input.
func FuzzParse(f *testing.F) {
	for _, s := range []string{"a = 1 AND (b > 'x' OR c IS NULL)", "dt = DATE '2024-01-01'", "b LIKE 'a%'",
		"NOT NOT a IN (1, NULL)", "ts >= '2024-01-01T00:00'", "bin = X'00'", "((", "a BETWEEN", "DATE"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, expr string) {
		p, err := Parse(expr, parseFields)
		if err == nil {
			_ = p.String()
			_ = p.Test(make([]any, len(parseFields)))
			_ = p.TestStats(1, nil, nil, nil)
		}
	})
}
