package reader

import (
	"fmt"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"
	"github.com/apache/arrow-go/v18/arrow/memory"

	"github.com/paimon-go/paimon/predicate"
	"github.com/paimon-go/paimon/types"
)

// filterColumns maps each field of schemaFields (the fields a filter is
// written against) to the position of the column of the same name in cols,
// -1 when cols lacks it.
func filterColumns(cols []types.DataField, schemaFields []types.DataField) []int {
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
	return colOf
}

// filterRecord keeps the rows of rec for which the predicate p, written
// against the fields of schemaFields, holds; colOf maps those fields to the
// columns of rec (filterColumns). It returns nil when no row is left.
func filterRecord(rec arrow.RecordBatch, colOf []int, schemaFields []types.DataField, p predicate.Predicate, mem memory.Allocator) (arrow.RecordBatch, error) {
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
	return selectSpans(rec, spans, mem)
}

// span is the rows [lo, hi) of a batch.
type span struct{ lo, hi int }

// selectSpans returns a record with the rows of the ascending, disjoint
// spans of rec, sharing rec's buffers when one span covers everything or
// there is one span.
func selectSpans(rec arrow.RecordBatch, spans []span, mem memory.Allocator) (arrow.RecordBatch, error) {
	n := int(rec.NumRows())
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
// (types.ArrowView; the value is only used while the batch is alive).
// Nested values are not needed by predicates and come back as nil.
func valueAt(t types.DataType, a arrow.Array, i int) any {
	v, err := types.ArrowView(t, a, i)
	if err != nil {
		return nil
	}
	return v
}
