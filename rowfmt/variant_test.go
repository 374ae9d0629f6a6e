package rowfmt

import (
	"errors"
	"testing"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"
	"github.com/apache/arrow-go/v18/arrow/memory"

	"github.com/paimon-go/paimon/types"
	"github.com/paimon-go/paimon/variant"
)

// TestVariant: a VARIANT column (types.ToArrow's struct of value and
// metadata) prints as Java's Variant.toJson text: a JSON string in JSONL,
// the bare text in CSV; a null variant is null; malformed bytes are an
// error wrapping variant.ErrMalformed. Old code refused the column with
// ErrSchemaMismatch.
func TestVariant(t *testing.T) {
	fields := []types.DataField{types.Field(0, "v", types.Variant())}
	sc := types.SchemaToArrow(fields)
	build := func(values ...[]byte) arrow.RecordBatch {
		b := array.NewRecordBuilder(memory.DefaultAllocator, sc)
		defer b.Release()
		st := b.Field(0).(*array.StructBuilder)
		for _, v := range values {
			if v == nil {
				st.AppendNull()
				st.FieldBuilder(0).(*array.BinaryBuilder).Append(nil)
				st.FieldBuilder(1).(*array.BinaryBuilder).Append(nil)
				continue
			}
			st.Append(true)
			st.FieldBuilder(0).(*array.BinaryBuilder).Append(v)
			// metadata: version 1, sorted, one key "a"
			st.FieldBuilder(1).(*array.BinaryBuilder).Append([]byte{0x11, 1, 0, 1, 'a'})
		}
		return b.NewRecordBatch()
	}
	// {"a":"x\"y"} and 1.0E10 (DOUBLE)
	obj := []byte{0x02, 1, 0, 0, 4, byte(3<<2 | 1), 'x', '"', 'y'}
	dbl := []byte{7 << 2, 0, 0, 0, 32, 95, 160, 2, 66}
	rec := build(obj, dbl, nil)
	defer rec.Release()
	if got, want := render(t, JSONL, &Options{Fields: fields}, rec),
		`{"v":"{\"a\":\"x\\\"y\"}"}`+"\n"+`{"v":"1.0E10"}`+"\n"+`{"v":null}`+"\n"; got != want {
		t.Fatalf("JSONL\n%s\nwant\n%s", got, want)
	}
	if got, want := render(t, CSV, &Options{Fields: fields, NoHeader: true}, rec),
		`"{""a"":""x\""y""}"`+"\n1.0E10\n\n"; got != want {
		t.Fatalf("CSV\n%s\nwant\n%s", got, want)
	}
	bad := build([]byte{30 << 2})
	defer bad.Release()
	w, err := NewWriter(&discard{}, JSONL, &Options{Fields: fields})
	if err != nil {
		t.Fatal(err)
	}
	if err := w.Write(bad); !errors.Is(err, variant.ErrMalformed) {
		t.Fatalf("malformed variant: %v", err)
	}
}

type discard struct{}

func (discard) Write(p []byte) (int, error) { return len(p), nil }
