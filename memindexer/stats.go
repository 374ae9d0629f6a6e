package memindexer

import (
	"bytes"
	"cmp"
	"strings"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"
	"github.com/apache/arrow-go/v18/arrow/decimal128"

	"github.com/paimon-go/paimon/types"
)

// batchStats are the statistics of one stored batch, indexed by transport
// column, in the shape predicate.Predicate.TestStats takes: Go values of
// package types (nil = unknown or all null) and null counts (always known).
type batchStats struct {
	min, max []any
	nulls    []int64
}

// statsSupported reports whether min/max are kept for columns of Arrow type
// t: the types paimon-cpp's Arrow store keeps statistics for (boolean,
// integers, floats, string, binary, date32, timestamp, decimal128) plus
// time32, whose values order like int32.
func statsSupported(t arrow.DataType) bool {
	switch t.ID() {
	case arrow.BOOL, arrow.INT8, arrow.INT16, arrow.INT32, arrow.INT64,
		arrow.FLOAT32, arrow.FLOAT64, arrow.STRING, arrow.BINARY,
		arrow.DATE32, arrow.TIME32, arrow.TIMESTAMP, arrow.DECIMAL128:
		return true
	}
	return false
}

// computeStats collects min, max and null count of every column of rec. It
// is O(rows × columns) and runs before the store lock is taken.
func (s *store) computeStats(rec arrow.RecordBatch) *batchStats {
	n := int(rec.NumCols())
	st := &batchStats{min: make([]any, n), max: make([]any, n), nulls: make([]int64, n)}
	for i := range n {
		col := rec.Column(i)
		st.nulls[i] = int64(col.NullN())
		if !s.colStats[i] || col.NullN() == col.Len() {
			continue
		}
		lo, hi := minMaxIndex(col)
		if lo < 0 {
			continue
		}
		// ArrowValue cannot fail for the supported types; on error the
		// statistic simply stays unknown.
		if v, err := types.ArrowValue(s.colTypes[i], col, lo); err == nil {
			st.min[i] = v
		}
		if v, err := types.ArrowValue(s.colTypes[i], col, hi); err == nil {
			st.max[i] = v
		}
	}
	return st
}

// minMaxIndex returns the indexes of a minimum and a maximum non-null value
// of col under types.Compare's order (floats as Java Float.compare: -0.0 <
// +0.0, NaN above everything), or -1, -1 when col has no non-null value or
// an unsupported type.
func minMaxIndex(col arrow.Array) (int, int) {
	switch a := col.(type) {
	case *array.Boolean:
		lo, hi := -1, -1
		for i := range a.Len() {
			if a.IsNull(i) {
				continue
			}
			v := a.Value(i)
			if lo < 0 || (!v && a.Value(lo)) {
				lo = i
			}
			if hi < 0 || (v && !a.Value(hi)) {
				hi = i
			}
		}
		return lo, hi
	case *array.Int8:
		return scanMinMax(a, a.Int8Values(), cmp.Compare[int8])
	case *array.Int16:
		return scanMinMax(a, a.Int16Values(), cmp.Compare[int16])
	case *array.Int32:
		return scanMinMax(a, a.Int32Values(), cmp.Compare[int32])
	case *array.Int64:
		return scanMinMax(a, a.Int64Values(), cmp.Compare[int64])
	case *array.Float32:
		return scanMinMax(a, a.Float32Values(), func(x, y float32) int { return types.CompareFloat(float64(x), float64(y)) })
	case *array.Float64:
		return scanMinMax(a, a.Float64Values(), types.CompareFloat)
	case *array.Date32:
		return scanMinMax(a, a.Date32Values(), cmp.Compare[arrow.Date32])
	case *array.Time32:
		return scanMinMax(a, a.Time32Values(), cmp.Compare[arrow.Time32])
	case *array.Timestamp:
		return scanMinMax(a, a.TimestampValues(), cmp.Compare[arrow.Timestamp])
	case *array.Decimal128:
		return scanMinMax(a, a.Values(), func(x, y decimal128.Num) int { return x.Cmp(y) })
	case *array.String:
		return scanMinMaxAt(a, func(i, j int) int { return strings.Compare(a.Value(i), a.Value(j)) })
	case *array.Binary:
		return scanMinMaxAt(a, func(i, j int) int { return bytes.Compare(a.Value(i), a.Value(j)) })
	}
	return -1, -1
}

// scanMinMax finds the indexes of a minimum and a maximum non-null element of
// vals (the values of a) under compare.
func scanMinMax[T any](a arrow.Array, vals []T, compare func(T, T) int) (int, int) {
	lo, hi := -1, -1
	nulls := a.NullN() > 0
	for i := range vals {
		if nulls && a.IsNull(i) {
			continue
		}
		if lo < 0 {
			lo, hi = i, i
			continue
		}
		if compare(vals[i], vals[lo]) < 0 {
			lo = i
		}
		if compare(vals[i], vals[hi]) > 0 {
			hi = i
		}
	}
	return lo, hi
}

// scanMinMaxAt is scanMinMax for arrays compared by index.
func scanMinMaxAt(a arrow.Array, compare func(i, j int) int) (int, int) {
	lo, hi := -1, -1
	nulls := a.NullN() > 0
	for i := range a.Len() {
		if nulls && a.IsNull(i) {
			continue
		}
		if lo < 0 {
			lo, hi = i, i
			continue
		}
		if compare(i, lo) < 0 {
			lo = i
		}
		if compare(i, hi) > 0 {
			hi = i
		}
	}
	return lo, hi
}
