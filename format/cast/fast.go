package cast

import (
	"fmt"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"
	"github.com/apache/arrow-go/v18/arrow/decimal128"
	"github.com/apache/arrow-go/v18/arrow/memory"

	"github.com/paimon-go/paimon/types"
)

// fast casts the common numeric pairs without boxing each value (the same
// values as the rules in resolve): integer and floating types to each
// other, integers to DECIMAL. ok is false for other pairs.
func fast(mem memory.Allocator, arr arrow.Array, from, to types.DataType) (out arrow.Array, ok bool, err error) {
	fk, tk := from.Kind, to.Kind
	if !isInteger(fk) && !isApprox(fk) || !isInteger(tk) && !isApprox(tk) && tk != types.KindDecimal {
		return nil, false, nil
	}
	n := arr.Len()
	var long func(int) int64
	var double func(int) float64
	switch a := arr.(type) {
	case *array.Int8:
		long = func(i int) int64 { return int64(a.Value(i)) }
	case *array.Int16:
		long = func(i int) int64 { return int64(a.Value(i)) }
	case *array.Int32:
		long = func(i int) int64 { return int64(a.Value(i)) }
	case *array.Int64:
		long = a.Value
	case *array.Float32:
		double = func(i int) float64 { return float64(a.Value(i)) }
	case *array.Float64:
		double = a.Value
	default:
		return nil, false, nil
	}
	if double != nil && !isInteger(tk) && !isApprox(tk) {
		return nil, false, nil
	}
	b := array.NewBuilder(mem, types.ToArrow(to))
	defer b.Release()
	b.Reserve(n)
	var mul decimal128.Num
	if tk == types.KindDecimal {
		if long == nil || to.Scale > 38 {
			return nil, false, nil
		}
		mul = decimal128.GetScaleMultiplier(to.Scale)
	}
	for i := 0; i < n; i++ {
		if arr.IsNull(i) {
			b.AppendNull()
			continue
		}
		switch bb := b.(type) {
		case *array.Decimal128Builder:
			v := decimal128.FromI64(long(i)).Mul(mul)
			if !v.FitsInPrecision(int32(to.Precision)) {
				return nil, true, valueError(i, from, to, fmt.Sprint(long(i)), fmt.Errorf("needs more than %d digits", to.Precision))
			}
			bb.UnsafeAppend(v)
		case *array.Int8Builder:
			if long != nil {
				bb.UnsafeAppend(int8(long(i)))
			} else {
				bb.UnsafeAppend(int8(d2i(double(i))))
			}
		case *array.Int16Builder:
			if long != nil {
				bb.UnsafeAppend(int16(long(i)))
			} else {
				bb.UnsafeAppend(int16(d2i(double(i))))
			}
		case *array.Int32Builder:
			if long != nil {
				bb.UnsafeAppend(int32(long(i)))
			} else {
				bb.UnsafeAppend(d2i(double(i)))
			}
		case *array.Int64Builder:
			if long != nil {
				bb.UnsafeAppend(long(i))
			} else {
				bb.UnsafeAppend(d2l(double(i)))
			}
		case *array.Float32Builder:
			if long != nil {
				bb.UnsafeAppend(float32(long(i)))
			} else {
				bb.UnsafeAppend(float32(double(i)))
			}
		case *array.Float64Builder:
			if long != nil {
				bb.UnsafeAppend(float64(long(i)))
			} else {
				bb.UnsafeAppend(double(i))
			}
		default:
			return nil, false, nil
		}
	}
	return b.NewArray(), true, nil
}
