package types

import (
	"bytes"
	"cmp"
	"fmt"
	"slices"
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

// CompareArrow orders element i of a (an array of the Arrow type ToArrow(t)
// gives) against v, a value of t as ArrowValue gives it, exactly as
// Compare(t, ArrowView(t, a, i), v) does (a null element first). Strings,
// byte slices and 32- and 64-bit integers are compared without boxing the
// element, so a binary search over a column allocates nothing.
func CompareArrow(t DataType, a arrow.Array, i int, v any) int {
	if a.IsNull(i) {
		return Compare(t, nil, v)
	}
	switch a := a.(type) {
	case *array.String:
		if s, ok := v.(string); ok {
			return strings.Compare(a.Value(i), s)
		}
	case *array.Binary:
		if b, ok := v.([]byte); ok {
			return bytes.Compare(a.Value(i), b)
		}
	case *array.Int64:
		if x, ok := v.(int64); ok {
			return cmp.Compare(a.Value(i), x)
		}
	case *array.Int32:
		if x, ok := v.(int32); ok {
			return cmp.Compare(a.Value(i), x)
		}
	}
	w, err := ArrowView(t, a, i)
	if err != nil {
		w = nil
	}
	return Compare(t, w, v)
}

// SortedKeys returns the rows of cols (arrays of the Arrow types ToArrow of
// ts gives) as key tuples of values as ArrowValue gives them, sorted by
// Compare column by column and distinct, for binary searches over batches
// sorted by those columns. ok is false when a column's type is one whose
// order here may differ from the order a primary-key sort gives it (only
// booleans, integers, dates, times, timestamps, strings and binaries are
// taken), or a value is null or does not convert.
func SortedKeys(ts []DataType, cols []arrow.Array, rows int) (keys [][]any, ok bool) {
	for _, t := range ts {
		switch t.Kind {
		case KindBoolean, KindTinyInt, KindSmallInt, KindInt, KindBigInt, KindDate, KindTime,
			KindTimestamp, KindLocalZonedTimestamp, KindChar, KindVarChar, KindBinary, KindVarBinary:
		default:
			return nil, false
		}
	}
	for r := range rows {
		key := make([]any, len(cols))
		for i, a := range cols {
			v, err := ArrowValue(ts[i], a, r)
			if err != nil || v == nil {
				return nil, false
			}
			key[i] = v
		}
		keys = append(keys, key)
	}
	cmpKeys := func(a, b []any) int {
		for i, t := range ts {
			if o := Compare(t, a[i], b[i]); o != 0 {
				return o
			}
		}
		return 0
	}
	slices.SortFunc(keys, cmpKeys)
	return slices.CompactFunc(keys, func(a, b []any) bool { return cmpKeys(a, b) == 0 }), true
}

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
