package types

import (
	"bytes"
	"fmt"
	"strings"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"
)

// ArrowValue returns element i of a (an array of the Arrow type ToArrow(t)
// gives) as the Go value of t, in the convention of the package comment; nil
// for null. Strings and byte slices are copied, so the value outlives a.
// Only atomic types are supported (the ones partition keys, bucket keys,
// primary keys, statistics and predicates use); other types give an error
// wrapping ErrValue.
func ArrowValue(t DataType, a arrow.Array, i int) (any, error) { return arrowScalar(t, a, i, true) }

// ArrowView is ArrowValue without copying strings and byte slices: the value
// shares a's memory and must not outlive it.
func ArrowView(t DataType, a arrow.Array, i int) (any, error) { return arrowScalar(t, a, i, false) }

func arrowScalar(t DataType, arr arrow.Array, i int, clone bool) (any, error) {
	if arr.IsNull(i) {
		return nil, nil
	}
	switch a := arr.(type) {
	case *array.Boolean:
		return a.Value(i), nil
	case *array.Int8:
		return a.Value(i), nil
	case *array.Int16:
		return a.Value(i), nil
	case *array.Int32:
		return a.Value(i), nil
	case *array.Int64:
		return a.Value(i), nil
	case *array.Float32:
		return a.Value(i), nil
	case *array.Float64:
		return a.Value(i), nil
	case *array.String:
		if clone {
			return strings.Clone(a.Value(i)), nil
		}
		return a.Value(i), nil
	case *array.Binary:
		if clone {
			return bytes.Clone(a.Value(i)), nil
		}
		return a.Value(i), nil
	case *array.Date32:
		return int32(a.Value(i)), nil
	case *array.Time32:
		return int32(a.Value(i)), nil
	case *array.Decimal128:
		return Decimal{Unscaled: a.Value(i).BigInt(), Precision: t.Precision, Scale: t.Scale}, nil
	case *array.Timestamp:
		return TimestampFromArrow(int64(a.Value(i)), a.DataType().(*arrow.TimestampType).Unit), nil
	}
	return nil, fmt.Errorf("%w: no scalar Go value for Arrow type %s (column type %s)", ErrValue, arr.DataType(), t)
}

// TimestampFromArrow converts an Arrow timestamp value in unit to a
// Timestamp (milliseconds plus nanoseconds within the millisecond, floored
// for instants before 1970).
func TimestampFromArrow(v int64, unit arrow.TimeUnit) Timestamp {
	var perMilli int64 // units per millisecond
	switch unit {
	case arrow.Second:
		return Timestamp{Millis: v * 1000}
	case arrow.Millisecond:
		return Timestamp{Millis: v}
	case arrow.Microsecond:
		perMilli = 1000
	default:
		perMilli = 1000000
	}
	ms, rem := v/perMilli, v%perMilli
	if rem < 0 {
		ms--
		rem += perMilli
	}
	return Timestamp{Millis: ms, NanoOfMilli: int32(rem * (1000000 / perMilli))}
}
