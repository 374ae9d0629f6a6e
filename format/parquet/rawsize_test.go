package parquet

import (
	"testing"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"
	"github.com/apache/arrow-go/v18/arrow/memory"
)

// TestRawSizeSlices checks that rawSize counts only a slice's rows, at their
// plain-encoded size, for the layouts the estimate of EstimatedSize uses.
func TestRawSizeSlices(t *testing.T) {
	mem := memory.NewGoAllocator()

	sb := array.NewStringBuilder(mem)
	sb.AppendValues([]string{"ab", "cde", "f", "ghij"}, nil)
	str := sb.NewArray()
	defer str.Release()

	ib := array.NewInt64Builder(mem)
	ib.AppendValues([]int64{1, 2, 3, 4}, nil)
	i64 := ib.NewArray()
	defer i64.Release()

	lb := array.NewListBuilder(mem, arrow.PrimitiveTypes.Int32)
	vb := lb.ValueBuilder().(*array.Int32Builder)
	for _, l := range [][]int32{{1, 2}, {3}, {4, 5, 6}, {7}} {
		lb.Append(true)
		vb.AppendValues(l, nil)
	}
	lst := lb.NewArray()
	defer lst.Release()

	st, err := array.NewStructArray([]arrow.Array{str, i64}, []string{"s", "i"})
	if err != nil {
		t.Fatal(err)
	}
	defer st.Release()

	bb := array.NewBooleanBuilder(mem)
	bb.AppendValues(make([]bool, 20), nil)
	boo := bb.NewArray()
	defer boo.Release()

	for _, c := range []struct {
		name   string
		arr    arrow.Array
		lo, hi int64
		want   int64
	}{
		{"string whole", str, 0, 4, 10 + 4*4},
		{"string [1,3)", str, 1, 3, 4 + 2*4}, // "cde", "f"
		{"int64 [1,3)", i64, 1, 3, 16},
		{"list<int32> [1,3)", lst, 1, 3, 4 * 4},    // {3}, {4,5,6}
		{"struct [2,4)", st, 2, 4, (5 + 2*4) + 16}, // "f","ghij" + 2 int64
		{"boolean [3,20)", boo, 3, 20, 3},
	} {
		s := array.NewSlice(c.arr, c.lo, c.hi)
		if got := rawSize(s.Data()); got != c.want {
			t.Errorf("%s: rawSize = %d, want %d", c.name, got, c.want)
		}
		s.Release()
	}
}
