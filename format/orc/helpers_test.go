package orc

import (
	"bytes"
	"context"
	"os"
	"testing"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"
)

// openFile opens the ORC file at path.
func openFile(t testing.TB, path string) *File {
	t.Helper()
	data, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	f, err := Open(bytes.NewReader(data), int64(len(data)))
	if err != nil {
		t.Fatalf("%s: %v", path, err)
	}
	return f
}

// rows decodes the file into Go values: one map column name -> cell per row.
func rows(t testing.TB, f *File, opts ReadOptions) []map[string]any {
	t.Helper()
	recs, err := f.Read(context.Background(), opts)
	if err != nil {
		t.Fatal(err)
	}
	var out []map[string]any
	for _, r := range recs {
		for i := 0; i < int(r.NumRows()); i++ {
			m := map[string]any{}
			for c, col := range r.Columns() {
				m[r.ColumnName(c)] = cell(col, i)
			}
			out = append(out, m)
		}
		r.Release()
	}
	return out
}

// cell converts one Arrow value to plain Go: nil, bool, int64 (all integer,
// date, time and timestamp types), float32, float64, string, []byte, the
// decimal's unscaled value as a decimal string, []any for lists, [][2]any
// for maps and map[string]any for structs.
func cell(a arrow.Array, i int) any {
	if a.IsNull(i) {
		return nil
	}
	switch a := a.(type) {
	case *array.Boolean:
		return a.Value(i)
	case *array.Int8:
		return int64(a.Value(i))
	case *array.Int16:
		return int64(a.Value(i))
	case *array.Int32:
		return int64(a.Value(i))
	case *array.Int64:
		return a.Value(i)
	case *array.Date32:
		return int64(a.Value(i))
	case *array.Time32:
		return int64(a.Value(i))
	case *array.Timestamp:
		return int64(a.Value(i))
	case *array.Float32:
		return a.Value(i)
	case *array.Float64:
		return a.Value(i)
	case *array.String:
		return a.Value(i)
	case *array.Binary:
		return bytes.Clone(a.Value(i))
	case *array.Decimal128:
		return a.Value(i).BigInt().String()
	case *array.Map:
		start, end := a.ValueOffsets(i)
		keys, items := a.Keys(), a.Items()
		out := [][2]any{}
		for j := int(start); j < int(end); j++ {
			out = append(out, [2]any{cell(keys, j), cell(items, j)})
		}
		return out
	case *array.List:
		start, end := a.ValueOffsets(i)
		out := []any{}
		for j := int(start); j < int(end); j++ {
			out = append(out, cell(a.ListValues(), j))
		}
		return out
	case *array.Struct:
		st := a.DataType().(*arrow.StructType)
		out := map[string]any{}
		for f := 0; f < a.NumField(); f++ {
			out[st.Field(f).Name] = cell(a.Field(f), i)
		}
		return out
	}
	return "unhandled Arrow type " + a.DataType().String()
}
