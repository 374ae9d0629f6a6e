package writer

import (
	"context"
	"fmt"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"
	"github.com/apache/arrow-go/v18/arrow/memory"

	"github.com/paimon-go/paimon/format"
)

// input is a checked batch: the table columns in table order under the
// table's Arrow schema, the row kinds and the rows to keep.
type input struct {
	rec   arrow.RecordBatch
	kinds []int8  // nil: every row is +I
	seqs  []int64 // WithSequenceColumn's numbers (owned copy); nil without it
	keep  []bool  // nil: keep every row
	// buckets, set by routeCross for cross-partition upsert tables, is
	// the bucket of every row (then keep is nil).
	buckets []int32
}

func (in *input) numRows() int { return int(in.rec.NumRows()) }

func (in *input) release() { in.rec.Release() }

func (in *input) cols(idx []int) []arrow.Array {
	out := make([]arrow.Array, len(idx))
	for k, i := range idx {
		out[k] = in.rec.Column(i)
	}
	return out
}

// take returns the rows of in listed in rows (nil = all) as a new record
// (the caller releases it), their kinds (nil = all +I) and their sequence
// numbers (nil without WithSequenceColumn).
func (in *input) take(ctx context.Context, mem memory.Allocator, rows []int32) (arrow.RecordBatch, []int8, []int64, error) {
	if rows == nil {
		in.rec.Retain()
		return in.rec, in.kinds, in.seqs, nil
	}
	kinds, seqs := pick(in.kinds, rows), pick(in.seqs, rows)
	// Rows that are one ascending contiguous range need no copy. The first
	// and last positions alone do not prove it: a permutation such as
	// [0 2 1 3] spans the same range.
	if contiguous(rows) {
		return in.rec.NewSlice(int64(rows[0]), int64(rows[len(rows)-1])+1), kinds, seqs, nil
	}
	out, err := format.Take(ctx, mem, in.rec, rows)
	if err != nil {
		return nil, nil, nil, fmt.Errorf("writer: select rows: %w", err)
	}
	return out, kinds, seqs, nil
}

// pick returns vals[rows[0]], vals[rows[1]], ... as a new slice (nil for nil
// vals).
func pick[T any](vals []T, rows []int32) []T {
	if vals == nil {
		return nil
	}
	out := make([]T, len(rows))
	for k, r := range rows {
		out[k] = vals[r]
	}
	return out
}

// prepare checks rec against the table (TableWriteImpl.checkNullability and
// the row kind handling) and returns it in table column order.
func (w *Write) prepare(rec arrow.RecordBatch) (*input, error) {
	if rec == nil {
		return nil, fmt.Errorf("%w: nil record batch", ErrSchemaMismatch)
	}
	sc := rec.Schema()
	fields := w.ts.Fields
	cols := make([]arrow.Array, len(fields))
	kindCol, seqCol := -1, -1
	used := 0
	for i, f := range sc.Fields() {
		if f.Name == w.cfg.rowKindColumn && w.tableSchema.FieldIndices(f.Name) == nil {
			if kindCol >= 0 {
				return nil, fmt.Errorf("%w: duplicate row kind column %q", ErrSchemaMismatch, f.Name)
			}
			kindCol = i
			continue
		}
		if f.Name == w.cfg.seqColumn && w.cfg.seqColumn != "" {
			if seqCol >= 0 {
				return nil, fmt.Errorf("%w: duplicate sequence number column %q", ErrSchemaMismatch, f.Name)
			}
			if f.Type.ID() != arrow.INT64 {
				return nil, fmt.Errorf("%w: sequence number column %q is %s, want int64", ErrSchemaMismatch, f.Name, f.Type)
			}
			seqCol = i
			continue
		}
		idx := w.tableSchema.FieldIndices(f.Name)
		if len(idx) == 0 {
			return nil, fmt.Errorf("%w: column %q is not a table column (table columns %v)", ErrSchemaMismatch, f.Name, w.ts.FieldNames())
		}
		t := idx[0]
		if cols[t] != nil {
			return nil, fmt.Errorf("%w: duplicate column %q", ErrSchemaMismatch, f.Name)
		}
		want := w.tableSchema.Field(t).Type
		if !arrow.TypeEqual(f.Type, want) {
			return nil, fmt.Errorf("%w: column %q is %s, table type %s needs %s", ErrSchemaMismatch, f.Name, f.Type, fields[t].Type, want)
		}
		cols[t] = rec.Column(i)
		used++
	}
	if used != len(fields) {
		for t, c := range cols {
			if c == nil {
				return nil, fmt.Errorf("%w: column %q is missing", ErrSchemaMismatch, fields[t].Name)
			}
		}
	}
	if w.cfg.seqColumn != "" && seqCol < 0 {
		return nil, fmt.Errorf("%w: sequence number column %q is missing", ErrSchemaMismatch, w.cfg.seqColumn)
	}
	for _, t := range w.notNull {
		if n := cols[t].NullN(); n > 0 {
			return nil, fmt.Errorf("%w: cannot write null to non-null column %q (%d nulls)", ErrNullViolation, fields[t].Name, n)
		}
	}
	in := &input{}
	var err error
	if seqCol >= 0 {
		if in.seqs, err = parseSeqs(rec.Column(seqCol).(*array.Int64), sc.Field(seqCol).Name); err != nil {
			return nil, err
		}
	}
	switch {
	case w.rowKindField >= 0:
		in.kinds, err = parseKinds(cols[w.rowKindField], fields[w.rowKindField].Name)
	case kindCol >= 0:
		in.kinds, err = parseKinds(rec.Column(kindCol), sc.Field(kindCol).Name)
	}
	if err != nil {
		return nil, err
	}
	if in.kinds != nil {
		if err := w.filterKinds(in); err != nil {
			return nil, err
		}
	}
	in.rec = array.NewRecordBatch(w.tableSchema, cols, rec.NumRows())
	return in, nil
}

// parseSeqs copies a sequence number column, which must be non-null and
// non-negative.
func parseSeqs(col *array.Int64, name string) ([]int64, error) {
	if n := col.NullN(); n > 0 {
		return nil, fmt.Errorf("%w: cannot write null to sequence number column %q (%d nulls)", ErrNullViolation, name, n)
	}
	seqs := make([]int64, col.Len()) // never nil: nil means "no column"
	copy(seqs, col.Int64Values())
	for i, s := range seqs {
		if s < 0 {
			return nil, fmt.Errorf("%w: %d in column %q, row %d (sequence numbers are >= 0)", ErrSequenceNumber, s, name, i)
		}
	}
	return seqs, nil
}

// parseKinds reads a row kind column: Int8 RowKind bytes or short strings.
func parseKinds(col arrow.Array, name string) ([]int8, error) {
	if col.NullN() > 0 {
		return nil, fmt.Errorf("%w: row kind column %q holds nulls", ErrRowKind, name)
	}
	kinds := make([]int8, col.Len())
	switch a := col.(type) {
	case *array.Int8:
		for i, v := range a.Int8Values() {
			if v < 0 || v > 3 {
				return nil, fmt.Errorf("%w: row kind byte %d in column %q (want 0..3)", ErrRowKind, v, name)
			}
			kinds[i] = v
		}
	case *array.String:
		for i := range kinds {
			switch s := a.Value(i); s {
			case "+I":
				kinds[i] = 0
			case "-U":
				kinds[i] = 1
			case "+U":
				kinds[i] = 2
			case "-D":
				kinds[i] = 3
			default:
				return nil, fmt.Errorf("%w: %q in column %q (want +I, -U, +U or -D)", ErrRowKind, s, name)
			}
		}
	default:
		return nil, fmt.Errorf("%w: row kind column %q is %s, want int8 or utf8", ErrSchemaMismatch, name, col.DataType())
	}
	return kinds, nil
}

// filterKinds applies ignore-delete / ignore-update-before (RowKindFilter)
// and, for append tables, AppendOnlyWriter's rule that only +I and +U rows
// are accepted.
func (w *Write) filterKinds(in *input) error {
	allInsert := true
	for i, k := range in.kinds {
		drop := (k == 3 && w.ignoreDelete) || (k == 1 && (w.ignoreDelete || w.ignoreUpdateBefore))
		if drop {
			if in.keep == nil {
				in.keep = make([]bool, len(in.kinds))
				for j := range i {
					in.keep[j] = true
				}
			}
			continue
		}
		if in.keep != nil {
			in.keep[i] = true
		}
		if w.pk == nil && (k == 1 || k == 3) {
			return fmt.Errorf("%w: append tables accept only +I and +U rows, row %d is %s; set 'ignore-delete' to drop retractions",
				ErrRowKind, i, kindString(k))
		}
		if k != 0 {
			allInsert = false
		}
	}
	if allInsert {
		in.kinds = nil
	}
	return nil
}

func kindString(k int8) string {
	switch k {
	case 0:
		return "+I"
	case 1:
		return "-U"
	case 2:
		return "+U"
	case 3:
		return "-D"
	}
	return fmt.Sprintf("?%d", k)
}

// contiguous reports whether rows is exactly first, first+1, ..., first+n-1.
func contiguous(rows []int32) bool {
	for k, r := range rows {
		if r != rows[0]+int32(k) {
			return false
		}
	}
	return true
}
