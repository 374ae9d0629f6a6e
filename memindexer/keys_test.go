package memindexer

import (
	"testing"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"
	"github.com/apache/arrow-go/v18/arrow/decimal128"
	"github.com/apache/arrow-go/v18/arrow/memory"
)

// TestGather checks gather against slicing and concatenating, for every
// column type it copies value by value and two it leaves to Concatenate,
// with nulls, across pieces of two batches in a projected column order.
func TestGather(t *testing.T) {
	mem := memory.NewCheckedAllocator(memory.NewGoAllocator())
	defer mem.AssertSize(t, 0)
	ts := &arrow.TimestampType{Unit: arrow.Microsecond}
	sc := arrow.NewSchema([]arrow.Field{
		{Name: "s", Type: arrow.BinaryTypes.String, Nullable: true},
		{Name: "b", Type: arrow.BinaryTypes.Binary, Nullable: true},
		{Name: "i64", Type: arrow.PrimitiveTypes.Int64, Nullable: true},
		{Name: "i32", Type: arrow.PrimitiveTypes.Int32, Nullable: true},
		{Name: "i8", Type: arrow.PrimitiveTypes.Int8, Nullable: true},
		{Name: "f64", Type: arrow.PrimitiveTypes.Float64, Nullable: true},
		{Name: "ts", Type: ts, Nullable: true},
		{Name: "dec", Type: &arrow.Decimal128Type{Precision: 10, Scale: 2}, Nullable: true},
		{Name: "list", Type: arrow.ListOf(arrow.PrimitiveTypes.Int32), Nullable: true},
	}, nil)
	build := func(base int) arrow.RecordBatch {
		b := array.NewRecordBuilder(mem, sc)
		defer b.Release()
		for i := range 5 {
			v := base + i
			if i == 2 {
				for _, f := range b.Fields() {
					f.AppendNull()
				}
				continue
			}
			b.Field(0).(*array.StringBuilder).Append(string(rune('a' + v)))
			b.Field(1).(*array.BinaryBuilder).Append([]byte{byte(v), 0})
			b.Field(2).(*array.Int64Builder).Append(int64(v) << 40)
			b.Field(3).(*array.Int32Builder).Append(int32(-v))
			b.Field(4).(*array.Int8Builder).Append(int8(v))
			b.Field(5).(*array.Float64Builder).Append(float64(v) / 4)
			b.Field(6).(*array.TimestampBuilder).Append(arrow.Timestamp(v * 1000))
			b.Field(7).(*array.Decimal128Builder).Append(decimal128.FromI64(int64(v * 100)))
			lb := b.Field(8).(*array.ListBuilder)
			lb.Append(true)
			for k := range v % 3 {
				lb.ValueBuilder().(*array.Int32Builder).Append(int32(k))
			}
		}
		return b.NewRecordBatch()
	}
	r1, r2 := build(0), build(10)
	defer r1.Release()
	defer r2.Release()
	// Entries of the table columns only (no system column to pack).
	plain := func(r arrow.RecordBatch) *entry {
		cols := make([]int, r.NumCols())
		for i := range cols {
			cols[i] = i
		}
		return &entry{rec: r, cols: cols, offCol: -1, rows: r.NumRows()}
	}
	e1, e2 := plain(r1), plain(r2)
	pieces := []piece{{e1, 1, 4}, {e2, 0, 2}, {e1, 4, 5}, {e2, 2, 5}}
	cols := []int{8, 7, 6, 5, 4, 3, 2, 1, 0} // projected in reverse
	fields := make([]arrow.Field, len(cols))
	for j, c := range cols {
		fields[j] = sc.Field(c)
	}
	out, err := gather(mem, arrow.NewSchema(fields, nil), cols, pieces)
	if err != nil {
		t.Fatal(err)
	}
	defer out.Release()
	if out.NumRows() != 9 {
		t.Fatalf("%d rows, want 9", out.NumRows())
	}
	for j, c := range cols {
		parts := make([]arrow.Array, len(pieces))
		for k, pc := range pieces {
			parts[k] = array.NewSlice(pc.e.rec.Column(c), int64(pc.lo), int64(pc.hi))
		}
		want, err := array.Concatenate(parts, mem)
		for _, p := range parts {
			p.Release()
		}
		if err != nil {
			t.Fatal(err)
		}
		if !array.Equal(out.Column(j), want) {
			t.Errorf("column %s: %v, want %v", sc.Field(c).Name, out.Column(j), want)
		}
		if out.Column(j).NullN() != 2 {
			t.Errorf("column %s: %d nulls, want 2", sc.Field(c).Name, out.Column(j).NullN())
		}
		want.Release()
	}
}
