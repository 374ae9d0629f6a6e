package types_test

import (
	"fmt"
	"testing"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"
	"github.com/apache/arrow-go/v18/arrow/memory"

	"github.com/paimon-go/paimon/types"
)

// TestCompareArrow checks that CompareArrow orders every row against every
// key value exactly as Compare does (nulls first), for the column types it
// compares unboxed and one it leaves to Compare.
func TestCompareArrow(t *testing.T) {
	mem := memory.NewCheckedAllocator(memory.NewGoAllocator())
	defer mem.AssertSize(t, 0)
	build := func(dt arrow.DataType, vals []any) arrow.Array {
		b := array.NewBuilder(mem, dt)
		defer b.Release()
		for _, v := range vals {
			switch v := v.(type) {
			case nil:
				b.AppendNull()
			case string:
				b.(*array.StringBuilder).Append(v)
			case []byte:
				b.(*array.BinaryBuilder).Append(v)
			case int64:
				b.(*array.Int64Builder).Append(v)
			case int32:
				b.(*array.Int32Builder).Append(v)
			case float64:
				b.(*array.Float64Builder).Append(v)
			}
		}
		return b.NewArray()
	}
	cases := []struct {
		t    types.DataType
		dt   arrow.DataType
		vals []any
	}{
		{types.VarCharOf(10), arrow.BinaryTypes.String, []any{"", "a", "ab", "b", "é", nil}},
		{types.VarBinaryOf(10), arrow.BinaryTypes.Binary, []any{[]byte{}, []byte{0}, []byte{0, 1}, []byte{0xff}, nil}},
		{types.BigInt(), arrow.PrimitiveTypes.Int64, []any{int64(-1 << 62), int64(-1), int64(0), int64(7), nil}},
		{types.Int(), arrow.PrimitiveTypes.Int32, []any{int32(-5), int32(0), int32(1 << 30), nil}},
		{types.Double(), arrow.PrimitiveTypes.Float64, []any{-1.5, 0.0, 2.25, nil}},
	}
	for _, c := range cases {
		a := build(c.dt, c.vals)
		n := 0
		for row := range a.Len() {
			for _, v := range c.vals {
				if v == nil {
					continue // keys are never null
				}
				w, err := types.ArrowView(c.t, a, row)
				if err != nil {
					t.Fatal(err)
				}
				want := types.Compare(c.t, w, v)
				if got := types.CompareArrow(c.t, a, row, v); got != want {
					t.Errorf("%s row %d vs %v: %d, want %d", c.t, row, v, got, want)
				}
				n++
			}
		}
		a.Release()
		if want := (len(c.vals) - 1) * len(c.vals); n != want {
			t.Fatalf("%s: %d comparisons, want %d", c.t, n, want)
		}
	}
}

// TestSortedKeys: key tuples come sorted column by column and distinct; a
// null key or a column type outside the ordered set gives ok = false.
func TestSortedKeys(t *testing.T) {
	mem := memory.NewCheckedAllocator(memory.NewGoAllocator())
	defer mem.AssertSize(t, 0)
	sb := array.NewStringBuilder(mem)
	sb.AppendValues([]string{"b", "a", "b", "a"}, nil)
	s := sb.NewArray()
	sb.Release()
	defer s.Release()
	ib := array.NewInt64Builder(mem)
	ib.AppendValues([]int64{2, 9, 2, 1}, nil)
	ib.AppendNull()
	i := ib.NewArray()
	ib.Release()
	defer i.Release()
	ts := []types.DataType{types.String(), types.BigInt()}
	keys, ok := types.SortedKeys(ts, []arrow.Array{s, i}, 4)
	if got := fmt.Sprint(keys); !ok || got != "[[a 1] [a 9] [b 2]]" {
		t.Fatalf("keys %s, %v; want [[a 1] [a 9] [b 2]]", got, ok)
	}
	if _, ok := types.SortedKeys(ts[1:], []arrow.Array{i}, 5); ok {
		t.Fatal("a null key: ok")
	}
	if _, ok := types.SortedKeys([]types.DataType{types.Double()}, []arrow.Array{i}, 1); ok {
		t.Fatal("a DOUBLE key: ok")
	}
}
