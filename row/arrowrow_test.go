package row_test

import (
	"bytes"
	"math"
	"math/rand/v2"
	"strings"
	"testing"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"
	"github.com/apache/arrow-go/v18/arrow/memory"

	"github.com/paimon-go/paimon/row"
	"github.com/paimon-go/paimon/types"
)

// TestArrowEncoder: for 2,000 random rows over every type the encoder
// takes, with nulls, strings and binaries of 0 to 20 bytes (inline up to 7)
// and NaNs, Row gives exactly Encode's bytes of the same values (and so
// the same bucket); a column of another Arrow type, or a type it does not
// take, is refused.
func TestArrowEncoder(t *testing.T) {
	fields := []types.DataType{
		types.Boolean(), types.TinyInt(), types.SmallInt(), types.Int(), types.BigInt(),
		types.Float(), types.Double(), types.Date(), types.TimeOf(3), types.String(), types.VarCharOf(10),
		types.CharOf(3), types.Bytes(), types.VarBinaryOf(4), types.BinaryOf(5),
	}
	mem := memory.NewGoAllocator()
	b := array.NewRecordBuilder(mem, types.SchemaToArrow(dataFields(fields)))
	defer b.Release()
	rnd := rand.New(rand.NewPCG(1, 2))
	str := func() string { return strings.Repeat(string(rune('a'+rnd.IntN(26))), rnd.IntN(21)) }
	const n = 2000
	for range n {
		for k, fb := range b.Fields() {
			if rnd.IntN(5) == 0 {
				fb.AppendNull()
				continue
			}
			switch fb := fb.(type) {
			case *array.BooleanBuilder:
				fb.Append(rnd.IntN(2) == 1)
			case *array.Int8Builder:
				fb.Append(int8(rnd.Int32()))
			case *array.Int16Builder:
				fb.Append(int16(rnd.Int32()))
			case *array.Int32Builder:
				fb.Append(rnd.Int32() - math.MaxInt32/2)
			case *array.Int64Builder:
				fb.Append(rnd.Int64() - math.MaxInt64/2)
			case *array.Float32Builder:
				fb.Append([]float32{float32(math.NaN()), float32(math.Copysign(0, -1)), rnd.Float32()}[rnd.IntN(3)])
			case *array.Float64Builder:
				fb.Append([]float64{math.NaN(), math.Inf(-1), rnd.NormFloat64()}[rnd.IntN(3)])
			case *array.Date32Builder:
				fb.Append(arrow.Date32(rnd.Int32N(40000)))
			case *array.Time32Builder:
				fb.Append(arrow.Time32(rnd.Int32N(86400000)))
			case *array.StringBuilder:
				fb.Append(str())
			case *array.BinaryBuilder:
				fb.Append([]byte(str()))
			default:
				t.Fatalf("field %d: builder %T", k, fb)
			}
		}
	}
	rec := b.NewRecordBatch()
	defer rec.Release()
	enc, ok := row.NewArrowEncoder(fields, rec.Columns())
	if !ok {
		t.Fatal("NewArrowEncoder refused the scalar types")
	}
	vals := make([]any, len(fields))
	buckets := map[int]int{}
	for i := range n {
		for k, f := range fields {
			v, err := types.ArrowView(f, rec.Column(k), i)
			if err != nil {
				t.Fatal(err)
			}
			vals[k] = v
		}
		want, err := row.Encode(fields, vals)
		if err != nil {
			t.Fatal(err)
		}
		got := enc.Row(i)
		if !bytes.Equal(row.Serialize(got), row.Serialize(want)) {
			t.Fatalf("row %d %v: got %x, want %x", i, vals, row.Serialize(got), row.Serialize(want))
		}
		if gb, wb := row.Bucket(got, 7), row.Bucket(want, 7); gb != wb {
			t.Fatalf("row %d: bucket %d, want %d", i, gb, wb)
		}
		buckets[row.Bucket(got, 7)]++
	}
	if len(buckets) != 7 {
		t.Errorf("rows fell into %d of 7 buckets: %v", len(buckets), buckets)
	}

	// Refusals: a type it does not take, a column of another Arrow type,
	// a count mismatch.
	if _, ok := row.NewArrowEncoder([]types.DataType{types.DecimalOf(10, 2)}, rec.Columns()[:1]); ok {
		t.Error("DECIMAL over a BOOLEAN column was taken")
	}
	if _, ok := row.NewArrowEncoder([]types.DataType{types.BigInt()}, rec.Columns()[3:4]); ok {
		t.Error("BIGINT over an INT column was taken")
	}
	if _, ok := row.NewArrowEncoder(fields[:2], rec.Columns()[:1]); ok {
		t.Error("2 fields over 1 column were taken")
	}
}

func dataFields(ts []types.DataType) []types.DataField {
	out := make([]types.DataField, len(ts))
	for i, t := range ts {
		out[i] = types.DataField{ID: i, Name: "f" + string(rune('a'+i)), Type: t}
	}
	return out
}
