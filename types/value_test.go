package types

import (
	"errors"
	"math/big"
	"testing"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"
	"github.com/apache/arrow-go/v18/arrow/decimal128"
	"github.com/apache/arrow-go/v18/arrow/memory"
)

func TestTimestampFromArrow(t *testing.T) {
	cases := []struct {
		v    int64
		unit arrow.TimeUnit
		want Timestamp
	}{
		{3, arrow.Second, Timestamp{Millis: 3000}},
		{-1, arrow.Millisecond, Timestamp{Millis: -1}},
		{1_234_567, arrow.Microsecond, Timestamp{Millis: 1234, NanoOfMilli: 567_000}},
		{-1, arrow.Microsecond, Timestamp{Millis: -1, NanoOfMilli: 999_000}},
		{-2_208_988_800_000_000_001, arrow.Nanosecond, Timestamp{Millis: -2_208_988_800_001, NanoOfMilli: 999_999}},
	}
	for _, c := range cases {
		if got := TimestampFromArrow(c.v, c.unit); got != c.want {
			t.Errorf("TimestampFromArrow(%d, %s) = %+v, want %+v", c.v, c.unit, got, c.want)
		}
	}
}

func TestArrowValue(t *testing.T) {
	mem := memory.DefaultAllocator
	sb := array.NewStringBuilder(mem)
	sb.AppendValues([]string{"ab", ""}, []bool{true, false})
	strs := sb.NewArray()
	defer strs.Release()
	if v, err := ArrowValue(String(), strs, 0); err != nil || v != "ab" {
		t.Fatalf("string: %v, %v", v, err)
	}
	if v, err := ArrowValue(String(), strs, 1); err != nil || v != nil {
		t.Fatalf("null: %v, %v", v, err)
	}
	db := array.NewDecimal128Builder(mem, &arrow.Decimal128Type{Precision: 5, Scale: 2})
	db.Append(decimal128.FromI64(-1234))
	dec := db.NewArray()
	defer dec.Release()
	v, err := ArrowValue(DecimalOf(5, 2), dec, 0)
	d, ok := v.(Decimal)
	if err != nil || !ok || d.Unscaled.Cmp(big.NewInt(-1234)) != 0 || d.Precision != 5 || d.Scale != 2 {
		t.Fatalf("decimal: %+v, %v", v, err)
	}
	lb := array.NewListBuilder(mem, arrow.PrimitiveTypes.Int32)
	lb.AppendEmptyValue()
	list := lb.NewArray()
	defer list.Release()
	if _, err := ArrowValue(ArrayOf(Int()), list, 0); !errors.Is(err, ErrValue) {
		t.Fatalf("list: err = %v, want ErrValue", err)
	}
}
