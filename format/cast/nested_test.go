package cast

import (
	"encoding/json"
	"errors"
	"strings"
	"testing"

	"github.com/apache/arrow-go/v18/arrow/array"
	"github.com/apache/arrow-go/v18/arrow/memory"

	"github.com/paimon-go/paimon/format"
	"github.com/paimon-go/paimon/types"
)

// TestArrayNested casts sliced ROW, ARRAY and MAP arrays: ROW fields by
// id (renamed, retyped, dropped, added as null), ARRAY elements and MAP
// values with Java's atomic casts, nulls at every level kept.
func TestArrayNested(t *testing.T) {
	mem := memory.NewCheckedAllocator(memory.DefaultAllocator)
	defer mem.AssertSize(t, 0)
	f := types.Field
	from := types.RowOf(f(1, "a", types.BigInt()), f(2, "b", types.String()), f(3, "gone", types.Int()),
		f(4, "l", types.ArrayOf(types.BigInt())), f(5, "m", types.MapOf(types.String(), types.Double())))
	to := types.RowOf(f(2, "b2", types.Int()), f(1, "a", types.Int()), f(6, "added", types.String()),
		f(4, "l", types.ArrayOf(types.SmallInt())), f(5, "m", types.MapOf(types.String(), types.DecimalOf(5, 1))))
	data := `[
		{"a": 0, "b": "0", "gone": 0, "l": [], "m": []},
		{"a": 4294967297, "b": "-7.9", "gone": 1, "l": [65537, null, -1], "m": [{"key": "x", "value": 1.25}, {"key": "y", "value": null}]},
		null,
		{"a": null, "b": null, "gone": null, "l": null, "m": null},
		{"a": -1, "b": "12", "gone": 2, "l": [32768], "m": [{"key": "z", "value": -0.05}]}
	]`
	arr, _, err := array.FromJSON(mem, types.ToArrow(from), strings.NewReader(data))
	if err != nil {
		t.Fatal(err)
	}
	defer arr.Release()
	sliced := array.NewSlice(arr, 1, 5)
	defer sliced.Release()
	out, err := Array(mem, sliced, from, to)
	if err != nil {
		t.Fatal(err)
	}
	defer out.Release()
	if got := out.DataType().String(); !strings.HasPrefix(got, "struct<b2: int32 nullable, a: int32 nullable, added: utf8") {
		t.Errorf("type %s", got)
	}
	gotJSON, _ := out.MarshalJSON()
	got := normJSON(t, string(gotJSON))
	want := `[{"b2":-7,"a":1,"added":null,"l":[1,null,-1],"m":[{"key":"x","value":"1.3"},{"key":"y","value":null}]}` +
		`,null` +
		`,{"b2":null,"a":null,"added":null,"l":null,"m":null}` +
		`,{"b2":12,"a":-1,"added":null,"l":[-32768],"m":[{"key":"z","value":"-0.1"}]}]`
	if want = normJSON(t, want); got != want {
		t.Errorf("got\n%s\nwant\n%s", got, want)
	}
	// A field Java cannot cast fails the cast naming it.
	bad := types.RowOf(f(1, "a", types.Date()))
	if Supported(from, bad) {
		t.Errorf("Supported(%s, %s)", from, bad)
	}
	if _, err := Array(mem, sliced, from, bad); !errors.Is(err, ErrUnsupported) || !errors.Is(err, format.ErrSchemaMismatch) {
		t.Errorf("ROW with a BIGINT -> DATE field: %v", err)
	}
}

// normJSON re-marshals a JSON document (object keys sorted).
func normJSON(t *testing.T, s string) string {
	t.Helper()
	var v any
	if err := json.Unmarshal([]byte(s), &v); err != nil {
		t.Fatal(err)
	}
	b, _ := json.Marshal(v)
	return string(b)
}
