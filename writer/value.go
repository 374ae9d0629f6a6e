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

// valueAt returns row i of arr as the Go value of t (types.ArrowValue),
// wrapping unsupported types in ErrSchemaMismatch.
func valueAt(arr arrow.Array, i int, t types.DataType) (any, error) {
	v, err := types.ArrowValue(t, arr, i)
	if err != nil {
		return nil, fmt.Errorf("%w: %w", ErrSchemaMismatch, err)
	}
	return v, nil
}

// viewAt is valueAt without copying strings and byte slices (types.ArrowView).
func viewAt(arr arrow.Array, i int, t types.DataType) (any, error) {
	v, err := types.ArrowView(t, arr, i)
	if err != nil {
		return nil, fmt.Errorf("%w: %w", ErrSchemaMismatch, err)
	}
	return v, nil
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
