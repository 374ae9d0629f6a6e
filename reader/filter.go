package reader

import (
	"fmt"
	"math/big"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"
	"github.com/apache/arrow-go/v18/arrow/decimal128"
	"github.com/apache/arrow-go/v18/arrow/memory"

	"github.com/paimon-go/paimon/deletionvector"
	"github.com/paimon-go/paimon/predicate"
	"github.com/paimon-go/paimon/types"
)

// applyDeletionVector drops the rows of rec whose file position
// (firstRow + i) the deletion vector marks deleted.
func applyDeletionVector(rec arrow.RecordBatch, firstRow int64, dv *deletionvector.DeletionVector, mem memory.Allocator) (arrow.RecordBatch, error) {
	return selectRows(rec, func(i int) bool { return !dv.IsDeleted(firstRow + int64(i)) }, mem)
}

// filterRecord keeps the rows of rec (whose columns are cols) for which the
// predicate p, written against the fields of schemaFields, holds. It returns
// nil when no row is left.
func filterRecord(rec arrow.RecordBatch, cols []types.DataField, schemaFields []types.DataField, p predicate.Predicate, mem memory.Allocator) (arrow.RecordBatch, error) {
	// predicate field index -> column of rec
	colOf := make([]int, len(schemaFields))
	for i, f := range schemaFields {
		colOf[i] = -1
		for j, c := range cols {
			if c.Name == f.Name {
				colOf[i] = j
				break
			}
		}
	}
	used := p.Fields()
	for _, i := range used {
		if i >= len(colOf) || colOf[i] < 0 {
			return nil, fmt.Errorf("%w: filter column %d is not read", ErrInvalidScan, i)
		}
	}
	values := make([]any, len(schemaFields))
	out, err := selectRows(rec, func(r int) bool {
		for _, i := range used {
			values[i] = valueAt(schemaFields[i].Type, rec.Column(colOf[i]), r)
		}
		return p.Test(values)
	}, mem)
	if err != nil {
		return nil, err
	}
	if out.NumRows() == 0 {
		out.Release()
		return nil, nil
	}
	return out, nil
}

// selectRows returns a record with the rows of rec for which keep is true,
// sharing rec's buffers when every row is kept or one contiguous range is.
func selectRows(rec arrow.RecordBatch, keep func(int) bool, mem memory.Allocator) (arrow.RecordBatch, error) {
	n := int(rec.NumRows())
	type span struct{ lo, hi int }
	var spans []span
	for i := 0; i < n; {
		if !keep(i) {
			i++
			continue
		}
		j := i + 1
		for j < n && keep(j) {
			j++
		}
		spans = append(spans, span{i, j})
		i = j
	}
	switch {
	case len(spans) == 1 && spans[0].lo == 0 && spans[0].hi == n:
		rec.Retain()
		return rec, nil
	case len(spans) == 0:
		return rec.NewSlice(0, 0), nil
	case len(spans) == 1:
		return rec.NewSlice(int64(spans[0].lo), int64(spans[0].hi)), nil
	}
	cols := make([]arrow.Array, rec.NumCols())
	total := 0
	for _, s := range spans {
		total += s.hi - s.lo
	}
	for c := range cols {
		parts := make([]arrow.Array, len(spans))
		for k, s := range spans {
			parts[k] = array.NewSlice(rec.Column(c), int64(s.lo), int64(s.hi))
		}
		joined, err := array.Concatenate(parts, mem)
		for _, p := range parts {
			p.Release()
		}
		if err != nil {
			for _, done := range cols[:c] {
				done.Release()
			}
			return nil, fmt.Errorf("reader: selecting rows: %w", err)
		}
		cols[c] = joined
	}
	out := array.NewRecordBatch(rec.Schema(), cols, int64(total))
	for _, c := range cols {
		c.Release()
	}
	return out, nil
}

// valueAt returns row i of an Arrow column as the Go value of Paimon type t
// (types package convention). Nested values are not needed by predicates
// and come back as nil.
func valueAt(t types.DataType, a arrow.Array, i int) any {
	if a.IsNull(i) {
		return nil
	}
	switch c := a.(type) {
	case *array.Boolean:
		return c.Value(i)
	case *array.Int8:
		return c.Value(i)
	case *array.Int16:
		return c.Value(i)
	case *array.Int32:
		return c.Value(i)
	case *array.Int64:
		return c.Value(i)
	case *array.Float32:
		return c.Value(i)
	case *array.Float64:
		return c.Value(i)
	case *array.String:
		return c.Value(i)
	case *array.Binary:
		return c.Value(i)
	case *array.Date32:
		return int32(c.Value(i))
	case *array.Time32:
		return int32(c.Value(i))
	case *array.Decimal128:
		v := c.Value(i)
		return types.Decimal{Unscaled: decimalBig(v), Precision: t.Precision, Scale: t.Scale}
	case *array.Timestamp:
		unit := c.DataType().(*arrow.TimestampType).Unit
		return timestampOf(int64(c.Value(i)), unit)
	}
	return nil
}

func decimalBig(v decimal128.Num) *big.Int { return v.BigInt() }

// timestampOf converts an Arrow timestamp to types.Timestamp.
func timestampOf(v int64, unit arrow.TimeUnit) types.Timestamp {
	var perMilli int64
	switch unit {
	case arrow.Second:
		return types.Timestamp{Millis: v * 1000}
	case arrow.Millisecond:
		return types.Timestamp{Millis: v}
	case arrow.Microsecond:
		perMilli = 1000
	default:
		perMilli = 1_000_000
	}
	ms := v / perMilli
	rem := v % perMilli
	if rem < 0 {
		ms--
		rem += perMilli
	}
	nanos := rem
	if unit == arrow.Microsecond {
		nanos *= 1000
	}
	return types.Timestamp{Millis: ms, NanoOfMilli: int32(nanos)}
}
