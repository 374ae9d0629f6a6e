package parquet

import (
	"fmt"
	"math"
	"math/big"
	"strconv"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"
	"github.com/apache/arrow-go/v18/arrow/decimal128"
	"github.com/apache/arrow-go/v18/arrow/memory"
)

// castArray converts a primitive array to type to for schema evolution.
// It implements the widening casts Paimon applies when a column's type was
// changed (Java CastExecutors for the implicit casts of DataTypeCasts):
//
//   - integer to a wider integer, to FLOAT/DOUBLE, to DECIMAL, to STRING;
//   - FLOAT to DOUBLE;
//   - DECIMAL to DECIMAL of the same or larger scale (exact, values that
//     exceed the target precision are an error);
//   - TIMESTAMP/LTZ to another precision (coarser units truncate toward
//     negative infinity, as Java's Timestamp truncation);
//   - DATE to TIMESTAMP (midnight UTC).
//
// Arrow's compute casts are not used: they run kernels on goroutines of
// their own, where a panic (e.g. a decimal rescale overflow on corrupt
// input) would kill the process. Unsupported pairs return ok=false; values
// that do not fit return an error.
func castArray(mem memory.Allocator, arr arrow.Array, to arrow.DataType) (out arrow.Array, ok bool, err error) {
	n := arr.Len()
	switch src := arr.(type) {
	case *array.Int8, *array.Int16, *array.Int32, *array.Int64:
		get := intGetter(arr)
		switch to.ID() {
		case arrow.INT8, arrow.INT16, arrow.INT32, arrow.INT64:
			lo, hi := intRange(to)
			b := array.NewBuilder(mem, to)
			defer b.Release()
			b.Reserve(n)
			for i := 0; i < n; i++ {
				if arr.IsNull(i) {
					b.AppendNull()
					continue
				}
				v := get(i)
				if v < lo || v > hi {
					return nil, true, fmt.Errorf("value %d does not fit %s", v, to)
				}
				appendInt(b, v)
			}
			return b.NewArray(), true, nil
		case arrow.FLOAT32:
			b := array.NewFloat32Builder(mem)
			defer b.Release()
			b.Reserve(n)
			for i := 0; i < n; i++ {
				if arr.IsNull(i) {
					b.AppendNull()
				} else {
					b.UnsafeAppend(float32(get(i)))
				}
			}
			return b.NewArray(), true, nil
		case arrow.FLOAT64:
			b := array.NewFloat64Builder(mem)
			defer b.Release()
			b.Reserve(n)
			for i := 0; i < n; i++ {
				if arr.IsNull(i) {
					b.AppendNull()
				} else {
					b.UnsafeAppend(float64(get(i)))
				}
			}
			return b.NewArray(), true, nil
		case arrow.DECIMAL128:
			dt := to.(*arrow.Decimal128Type)
			// n as DECIMAL(p, s) is n × 10^s (Java CastExecutors, numeric
			// to decimal), not the unscaled value n.
			return buildDecimals(mem, arr, dt, func(i int) *big.Int { return big.NewInt(get(i)) }, int(dt.Scale))
		case arrow.STRING:
			b := array.NewStringBuilder(mem)
			defer b.Release()
			b.Reserve(n)
			for i := 0; i < n; i++ {
				if arr.IsNull(i) {
					b.AppendNull()
				} else {
					b.Append(strconv.FormatInt(get(i), 10))
				}
			}
			return b.NewArray(), true, nil
		}
	case *array.Float32:
		if to.ID() != arrow.FLOAT64 {
			return nil, false, nil
		}
		b := array.NewFloat64Builder(mem)
		defer b.Release()
		b.Reserve(n)
		for i, v := range src.Float32Values() {
			if src.IsNull(i) {
				b.AppendNull()
			} else {
				b.UnsafeAppend(float64(v))
			}
		}
		return b.NewArray(), true, nil
	case *array.Decimal128:
		dt, isDec := to.(*arrow.Decimal128Type)
		from := src.DataType().(*arrow.Decimal128Type)
		if !isDec || dt.Scale < from.Scale {
			return nil, false, nil
		}
		return buildDecimals(mem, arr, dt, func(i int) *big.Int { return src.Value(i).BigInt() }, int(dt.Scale-from.Scale))
	case *array.Timestamp:
		tt, isTS := to.(*arrow.TimestampType)
		if !isTS {
			return nil, false, nil
		}
		from := src.DataType().(*arrow.TimestampType).Unit
		return convertTimestamps(mem, n, src.IsNull, func(i int) int64 { return int64(src.Value(i)) }, from, tt)
	case *array.Date32:
		tt, isTS := to.(*arrow.TimestampType)
		if !isTS {
			return nil, false, nil
		}
		return convertTimestamps(mem, n, src.IsNull, func(i int) int64 { return int64(src.Value(i)) * 86400 }, arrow.Second, tt)
	}
	return nil, false, nil
}

func intGetter(arr arrow.Array) func(int) int64 {
	switch a := arr.(type) {
	case *array.Int8:
		return func(i int) int64 { return int64(a.Value(i)) }
	case *array.Int16:
		return func(i int) int64 { return int64(a.Value(i)) }
	case *array.Int32:
		return func(i int) int64 { return int64(a.Value(i)) }
	}
	a := arr.(*array.Int64)
	return func(i int) int64 { return a.Value(i) }
}

func intRange(t arrow.DataType) (int64, int64) {
	switch t.ID() {
	case arrow.INT8:
		return math.MinInt8, math.MaxInt8
	case arrow.INT16:
		return math.MinInt16, math.MaxInt16
	case arrow.INT32:
		return math.MinInt32, math.MaxInt32
	}
	return math.MinInt64, math.MaxInt64
}

func appendInt(b array.Builder, v int64) {
	switch b := b.(type) {
	case *array.Int8Builder:
		b.Append(int8(v))
	case *array.Int16Builder:
		b.Append(int16(v))
	case *array.Int32Builder:
		b.Append(int32(v))
	case *array.Int64Builder:
		b.Append(v)
	}
}

// buildDecimals builds DECIMAL values unscaled(i) * 10^scaleUp, checking
// that each fits the target precision.
func buildDecimals(mem memory.Allocator, arr arrow.Array, dt *arrow.Decimal128Type, unscaled func(int) *big.Int, scaleUp int) (arrow.Array, bool, error) {
	b := array.NewDecimal128Builder(mem, dt)
	defer b.Release()
	b.Reserve(arr.Len())
	mul := new(big.Int).Exp(big.NewInt(10), big.NewInt(int64(scaleUp)), nil)
	limit := new(big.Int).Exp(big.NewInt(10), big.NewInt(int64(dt.Precision)), nil)
	for i := 0; i < arr.Len(); i++ {
		if arr.IsNull(i) {
			b.AppendNull()
			continue
		}
		u := unscaled(i)
		u.Mul(u, mul)
		if new(big.Int).Abs(u).Cmp(limit) >= 0 {
			return nil, true, fmt.Errorf("value %s does not fit %s", u, dt)
		}
		b.Append(decimal128.FromBigInt(u))
	}
	return b.NewArray(), true, nil
}

func unitsPerSecond(u arrow.TimeUnit) int64 {
	switch u {
	case arrow.Second:
		return 1
	case arrow.Millisecond:
		return 1e3
	case arrow.Microsecond:
		return 1e6
	}
	return 1e9
}

func convertTimestamps(mem memory.Allocator, n int, isNull func(int) bool, get func(int) int64, from arrow.TimeUnit, to *arrow.TimestampType) (arrow.Array, bool, error) {
	b := array.NewTimestampBuilder(mem, to)
	defer b.Release()
	b.Reserve(n)
	fu, tu := unitsPerSecond(from), unitsPerSecond(to.Unit)
	for i := 0; i < n; i++ {
		if isNull(i) {
			b.AppendNull()
			continue
		}
		v := get(i)
		if tu >= fu {
			m := tu / fu
			if v > math.MaxInt64/m || v < math.MinInt64/m {
				return nil, true, fmt.Errorf("timestamp %d does not fit %s", v, to)
			}
			v *= m
		} else {
			v = floorDiv(v, fu/tu)
		}
		b.UnsafeAppend(arrow.Timestamp(v))
	}
	return b.NewArray(), true, nil
}
