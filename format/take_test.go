package format

import (
	"context"
	"slices"
	"testing"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"
	"github.com/apache/arrow-go/v18/arrow/memory"
)

func TestTake(t *testing.T) {
	mem := memory.NewCheckedAllocator(memory.NewGoAllocator())
	defer mem.AssertSize(t, 0)
	sc := arrow.NewSchema([]arrow.Field{{Name: "k", Type: arrow.PrimitiveTypes.Int64}, {Name: "v", Type: arrow.BinaryTypes.String}}, nil)
	b := array.NewRecordBuilder(mem, sc)
	b.Field(0).(*array.Int64Builder).AppendValues([]int64{10, 20, 30, 40}, nil)
	b.Field(1).(*array.StringBuilder).AppendValues([]string{"a", "b", "c", "d"}, nil)
	rec := b.NewRecordBatch()
	b.Release()
	defer rec.Release()

	out, err := Take(context.Background(), mem, rec, []int32{3, 0, 3, 1})
	if err != nil {
		t.Fatal(err)
	}
	defer out.Release()
	if got, want := out.Column(0).(*array.Int64).Int64Values(), []int64{40, 10, 40, 20}; !slices.Equal(got, want) {
		t.Fatalf("k = %v, want %v", got, want)
	}
	s := out.Column(1).(*array.String)
	var got []string
	for i := range s.Len() {
		got = append(got, s.Value(i))
	}
	if want := []string{"d", "a", "d", "b"}; !slices.Equal(got, want) {
		t.Fatalf("v = %v, want %v", got, want)
	}
	if !out.Schema().Equal(sc) {
		t.Fatalf("schema = %v", out.Schema())
	}

	if _, err := Take(context.Background(), mem, rec, []int32{4}); err == nil {
		t.Fatal("index 4 of 4 rows: no error")
	}
}
