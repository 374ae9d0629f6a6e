package writer

import (
	"bytes"
	"cmp"
	"fmt"
	"math"
	"strings"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"

	"github.com/paimon-go/paimon/types"
)

// valueAt returns row i of arr as the Go value of t (package types
// convention; nil for null). Only the scalar types that may appear in
// partition keys, bucket keys and primary keys are supported; strings and
// byte slices are copied, so the value outlives arr.
func valueAt(arr arrow.Array, i int, t types.DataType) (any, error) {
	return scalarAt(arr, i, t, true)
}

// viewAt is valueAt without copying strings and byte slices: the value
// shares arr's memory and must not outlive it.
func viewAt(arr arrow.Array, i int, t types.DataType) (any, error) {
	return scalarAt(arr, i, t, false)
}

func scalarAt(arr arrow.Array, i int, t types.DataType, clone bool) (any, error) {
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
		n := a.Value(i)
		return types.Decimal{Unscaled: n.BigInt(), Precision: t.Precision, Scale: t.Scale}, nil
	case *array.Timestamp:
		return timestampOf(int64(a.Value(i)), a.DataType().(*arrow.TimestampType).Unit), nil
	}
	return nil, fmt.Errorf("%w: %s values cannot be used as keys", ErrSchemaMismatch, arr.DataType())
}

// timestampOf converts an Arrow timestamp value to types.Timestamp.
func timestampOf(v int64, unit arrow.TimeUnit) types.Timestamp {
	var perMilli int64 // units per millisecond
	switch unit {
	case arrow.Second:
		return types.Timestamp{Millis: v * 1000}
	case arrow.Millisecond:
		return types.Timestamp{Millis: v}
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
	return types.Timestamp{Millis: ms, NanoOfMilli: int32(rem * (1000000 / perMilli))}
}

// comparator compares rows i and j of one column: negative, zero or positive,
// with nulls first and Java's orderings (section Ordering of package merge):
// signed integers and temporals numerically, strings and binaries by unsigned
// bytes, floats by Float.compare / Double.compare, false before true.
type comparator func(i, j int) int

func nullsFirst(arr arrow.Array, c comparator) comparator {
	if arr.NullN() == 0 {
		return c
	}
	return func(i, j int) int {
		ni, nj := arr.IsNull(i), arr.IsNull(j)
		switch {
		case ni && nj:
			return 0
		case ni:
			return -1
		case nj:
			return 1
		}
		return c(i, j)
	}
}

func ordered[T cmp.Ordered](v []T) comparator {
	return func(i, j int) int { return cmp.Compare(v[i], v[j]) }
}

// javaFloatCompare is Double.compare: -0.0 < 0.0 and NaN greater than
// everything, equal to itself.
func javaFloatCompare(x, y float64) int {
	switch {
	case x < y:
		return -1
	case x > y:
		return 1
	}
	bx, by := javaBits(x), javaBits(y)
	return cmp.Compare(bx, by)
}

func javaBits(f float64) int64 {
	if math.IsNaN(f) {
		return 0x7ff8000000000000
	}
	return int64(math.Float64bits(f))
}

// newComparator returns the comparator of column arr. Errors wrap
// ErrSchemaMismatch for types without an order (nested types).
func newComparator(arr arrow.Array) (comparator, error) {
	var c comparator
	switch a := arr.(type) {
	case *array.Boolean:
		c = func(i, j int) int {
			x, y := a.Value(i), a.Value(j)
			switch {
			case x == y:
				return 0
			case !x:
				return -1
			}
			return 1
		}
	case *array.Int8:
		c = ordered(a.Int8Values())
	case *array.Int16:
		c = ordered(a.Int16Values())
	case *array.Int32:
		c = ordered(a.Int32Values())
	case *array.Int64:
		c = ordered(a.Int64Values())
	case *array.Date32:
		c = ordered(a.Date32Values())
	case *array.Time32:
		c = ordered(a.Time32Values())
	case *array.Timestamp:
		c = ordered(a.TimestampValues())
	case *array.Float32:
		v := a.Float32Values()
		c = func(i, j int) int { return javaFloatCompare(float64(v[i]), float64(v[j])) }
	case *array.Float64:
		v := a.Float64Values()
		c = func(i, j int) int { return javaFloatCompare(v[i], v[j]) }
	case *array.String:
		c = func(i, j int) int { return strings.Compare(a.Value(i), a.Value(j)) }
	case *array.Binary:
		c = func(i, j int) int { return bytes.Compare(a.Value(i), a.Value(j)) }
	case *array.Decimal128:
		v := a.Values()
		c = func(i, j int) int { return v[i].Cmp(v[j]) }
	default:
		return nil, fmt.Errorf("%w: %s columns cannot be primary keys", ErrSchemaMismatch, arr.DataType())
	}
	return nullsFirst(arr, c), nil
}

// keyComparator compares rows by several columns in order.
func keyComparator(cols []arrow.Array) (comparator, error) {
	cs := make([]comparator, len(cols))
	for k, col := range cols {
		c, err := newComparator(col)
		if err != nil {
			return nil, err
		}
		cs[k] = c
	}
	if len(cs) == 1 {
		return cs[0], nil
	}
	return func(i, j int) int {
		for _, c := range cs {
			if r := c(i, j); r != 0 {
				return r
			}
		}
		return 0
	}, nil
}

// recordSize estimates the bytes rec's rows occupy in memory, counting only
// the rows of slices (util.TotalRecordSize counts whole shared buffers).
func recordSize(rec arrow.RecordBatch) int64 {
	var sum int64
	for _, c := range rec.Columns() {
		sum += arraySize(c)
	}
	return sum
}

func arraySize(arr arrow.Array) int64 {
	n := int64(arr.Len())
	var validity int64
	if arr.NullN() > 0 {
		validity = (n + 7) / 8
	}
	switch a := arr.(type) {
	case *array.String:
		if o := a.ValueOffsets(); len(o) > 0 {
			return validity + 4*n + int64(o[len(o)-1]-o[0])
		}
		return validity
	case *array.Binary:
		if o := a.ValueOffsets(); len(o) > 0 {
			return validity + 4*n + int64(o[len(o)-1]-o[0])
		}
		return validity
	case *array.Boolean:
		return validity + (n+7)/8
	}
	if fw, ok := arr.DataType().(arrow.FixedWidthDataType); ok {
		return validity + n*int64(fw.BitWidth()+7)/8
	}
	total := dataBytes(arr.Data())
	if all := int64(arr.Data().Offset()) + n; all > 0 {
		return total * n / all
	}
	return total
}

// dataBytes sums the buffer sizes of d and its children.
func dataBytes(d arrow.ArrayData) int64 {
	var sum int64
	for _, b := range d.Buffers() {
		if b != nil {
			sum += int64(b.Len())
		}
	}
	for _, c := range d.Children() {
		sum += dataBytes(c)
	}
	return sum
}
