package cast

import (
	"errors"
	"strings"
	"testing"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"
	"github.com/apache/arrow-go/v18/arrow/memory"

	"github.com/paimon-go/paimon/format"
	"github.com/paimon-go/paimon/types"
)

// castJSON casts the rows data (Arrow JSON of type from), sliced from row
// 1 on to catch offset mistakes, to type to.
func castJSON(t *testing.T, mem memory.Allocator, from, to types.DataType, data string) (arrow.Array, error) {
	t.Helper()
	arr, _, err := array.FromJSON(mem, types.ToArrow(from), strings.NewReader(data))
	if err != nil {
		t.Fatal(err)
	}
	defer arr.Release()
	sliced := array.NewSlice(arr, 1, int64(arr.Len()))
	defer sliced.Release()
	return Array(mem, sliced, from, to)
}

// strings of a STRING array, "<null>" for null.
func stringsOf(a arrow.Array) []string {
	s := a.(*array.String)
	out := make([]string, s.Len())
	for i := range out {
		if s.IsNull(i) {
			out[i] = "<null>"
		} else {
			out[i] = s.Value(i)
		}
	}
	return out
}

// TestArrayConstructedToString: ARRAY, MAP and ROW to STRING, VARCHAR(n)
// and CHAR(n) as Java's ArrayToStringCastRule, MapToStringCastRule and
// RowToStringCastRule: elements through their own cast to STRING, nulls
// as "null", ", " between, no quotes, no cut or padding to the target
// length; the null value stays null. The first row of each input is
// sliced off.
func TestArrayConstructedToString(t *testing.T) {
	f := types.Field
	cases := []struct {
		name     string
		from, to types.DataType
		data     string
		want     []string
	}{
		{"array-int", types.ArrayOf(types.Int()), types.String(),
			`[[9], [1, null, 3], [], null, [-2147483648]]`,
			[]string{"[1, null, 3]", "[]", "<null>", "[-2147483648]"}},
		{"array-string-varchar3", types.ArrayOf(types.String()), types.VarCharOf(3),
			`[["x"], ["a", "b, c", ""], [null]]`,
			[]string{"[a, b, c, ]", "[null]"}},
		{"array-double-char20", types.ArrayOf(types.Double()), types.CharOf(20),
			`[[0], [0.1, 1e40, -0.0, 100.0]]`,
			[]string{"[0.1, 1.0E40, -0.0, 100.0]"}},
		{"array-float-decimal-bool", types.ArrayOf(types.RowOf(f(1, "f", types.Float()), f(2, "d", types.DecimalOf(5, 2)), f(3, "b", types.Boolean()))), types.String(),
			`[[], [{"f": 0.1, "d": "1.50", "b": true}, {"f": null, "d": "-0.05", "b": false}, null]]`,
			[]string{"[{0.1, 1.50, true}, {null, -0.05, false}, null]"}},
		{"array-array", types.ArrayOf(types.ArrayOf(types.BigInt())), types.String(),
			`[[], [[1, 2], [], null, [null]]]`,
			[]string{"[[1, 2], [], null, [null]]"}},
		{"map-string-double", types.MapOf(types.String(), types.Double()), types.String(),
			`[[], [{"key": "x", "value": 0.1}, {"key": "y", "value": null}], [], null]`,
			[]string{"{x -> 0.1, y -> null}", "{}", "<null>"}},
		{"map-int-array", types.MapOf(types.Int(), types.ArrayOf(types.String())), types.String(),
			`[[], [{"key": 1, "value": ["a", null]}, {"key": 2, "value": []}]]`,
			[]string{"{1 -> [a, null], 2 -> []}"}},
		{"row", types.RowOf(f(1, "a", types.Int()), f(2, "b", types.String()), f(3, "c", types.SmallInt())), types.String(),
			`[{"a": 0, "b": "z", "c": 0}, {"a": 1, "b": "a", "c": null}, null, {"a": null, "b": null, "c": null}, {"a": -1, "b": "{q, r}", "c": 7}]`,
			[]string{"{1, a, null}", "<null>", "{null, null, null}", "{-1, {q, r}, 7}"}},
		{"row-nested", types.RowOf(f(1, "l", types.ArrayOf(types.Int())), f(2, "m", types.MapOf(types.String(), types.Int())), f(3, "r", types.RowOf(f(4, "x", types.Int())))), types.String(),
			`[null, {"l": [1, 2], "m": [{"key": "k", "value": 3}], "r": {"x": 4}}, {"l": null, "m": null, "r": null}]`,
			[]string{"{[1, 2], {k -> 3}, {4}}", "{null, null, null}"}},
		{"row-date-time-timestamp", types.RowOf(f(1, "d", types.Date()), f(2, "t", types.TimestampOf(3)), f(3, "u", types.TimestampOf(6))), types.String(),
			`[null, {"d": 19782, "t": 1704164645123, "u": 1704164645123456}, {"d": -1, "t": 0, "u": 1}]`,
			[]string{"{2024-02-29, 2024-01-02 03:04:05.123, 2024-01-02 03:04:05.123456}", "{1969-12-31, 1970-01-01 00:00:00.000, 1970-01-01 00:00:00.000001}"}},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			mem := memory.NewCheckedAllocator(memory.DefaultAllocator)
			defer mem.AssertSize(t, 0)
			if !Supported(c.from, c.to) || !Resolves(c.from, c.to) {
				t.Fatalf("Supported %v, Resolves %v; want both", Supported(c.from, c.to), Resolves(c.from, c.to))
			}
			out, err := castJSON(t, mem, c.from, c.to, c.data)
			if err != nil {
				t.Fatal(err)
			}
			defer out.Release()
			if !arrow.TypeEqual(out.DataType(), types.ToArrow(c.to)) {
				t.Fatalf("type %s, want %s", out.DataType(), types.ToArrow(c.to))
			}
			got := stringsOf(out)
			if strings.Join(got, "|") != strings.Join(c.want, "|") {
				t.Fatalf("got  %q\nwant %q", got, c.want)
			}
		})
	}
}

// TestArrayConstructedToStringBinary: BINARY elements are their bytes as
// text (BinaryToStringCastRule, BinaryString.fromBytes).
func TestArrayConstructedToStringBinary(t *testing.T) {
	mem := memory.NewCheckedAllocator(memory.DefaultAllocator)
	defer mem.AssertSize(t, 0)
	from := types.ArrayOf(types.Bytes())
	lb := array.NewBuilder(mem, types.ToArrow(from)).(*array.ListBuilder)
	defer lb.Release()
	vb := lb.ValueBuilder().(*array.BinaryBuilder)
	lb.Append(true)
	vb.Append([]byte("héllo"))
	vb.AppendNull()
	vb.Append([]byte{})
	arr := lb.NewArray()
	defer arr.Release()
	out, err := Array(mem, arr, from, types.String())
	if err != nil {
		t.Fatal(err)
	}
	defer out.Release()
	if got := stringsOf(out); len(got) != 1 || got[0] != "[héllo, null, ]" {
		t.Fatalf("got %q", got)
	}
}

// TestValueErrorWording: a string that is no number says so (not "out of
// range"), one whose number does not fit says "out of range"; both wrap
// ErrInvalid and format.ErrOutOfRange and carry the 0-based index, which
// for an element nested in an ARRAY is the index of the list holding it.
func TestValueErrorWording(t *testing.T) {
	cases := []struct {
		name     string
		from, to types.DataType
		data     string
		index    int
		msg      string
	}{
		{"syntax", types.String(), types.Int(), `["0", "12", "7", "abc"]`, 2,
			`cast: value 2 (0-based) of the batch: STRING "abc" is not a valid INT`},
		{"overflow", types.String(), types.TinyInt(), `["0", "300"]`, 0,
			`cast: value 0 (0-based) of the batch: STRING "300" is out of range for TINYINT`},
		{"decimal", types.DecimalOf(10, 2), types.DecimalOf(4, 2), `["0", "1.00", "123.45"]`, 1,
			`cast: value 1 (0-based) of the batch: DECIMAL(10, 2) 12345 (scale 2) to DECIMAL(4, 2): 12345×10^-2 needs more than 4 digits`},
		{"nested", types.ArrayOf(types.String()), types.ArrayOf(types.Int()), `[["9"], ["1"], [], null, ["2", "3", "x"]]`, 3,
			`cast: value 3 (0-based) of the batch, element: STRING "x" is not a valid INT`},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			mem := memory.NewCheckedAllocator(memory.DefaultAllocator)
			defer mem.AssertSize(t, 0)
			out, err := castJSON(t, mem, c.from, c.to, c.data)
			if err == nil {
				out.Release()
				t.Fatal("no error")
			}
			var ve *ValueError
			if !errors.As(err, &ve) || !errors.Is(err, ErrInvalid) || !errors.Is(err, format.ErrOutOfRange) {
				t.Fatalf("%v: want a *ValueError wrapping ErrInvalid and format.ErrOutOfRange", err)
			}
			if ve.Index != c.index || err.Error() != c.msg {
				t.Fatalf("index %d, %q\nwant index %d, %q", ve.Index, err, c.index, c.msg)
			}
			ve.Row = 7
			if want := strings.Replace(c.msg, "value "+string(rune('0'+c.index))+" (0-based) of the batch", "row 7 of the file (1-based)", 1); err.Error() != want {
				t.Fatalf("with Row: %q, want %q", err, want)
			}
		})
	}
}
