package reader

import (
	"context"
	"fmt"
	"iter"
	"strings"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"

	"github.com/paimon-go/paimon/types"
)

// rawWith reads an append split's files one after another, then every mem
// stream in order (ReadSplitWith).
func (sr *splitRead) rawWith(ctx context.Context, mem []iter.Seq2[arrow.RecordBatch, error]) iter.Seq2[arrow.RecordBatch, error] {
	return func(yield func(arrow.RecordBatch, error) bool) {
		for rec, err := range sr.raw(ctx) {
			if !yield(rec, err) || err != nil {
				return
			}
		}
		target := types.SchemaToArrow(sr.valueCols)
		for i, m := range mem {
			for rec, err := range sr.adaptMem(ctx, m, i, sr.valueCols, target) {
				if !yield(rec, err) || err != nil {
					return
				}
			}
		}
	}
}

// adaptMem turns the batches of mem stream idx into batches of schema sc
// (whose fields are fields: the value columns of an append read, or the
// key-value layout, kvFields, of a merge): each target column is taken from the memory
// column of the same name (for _KEY_<k> columns: of name k), which must
// exist and have the target's Arrow type. Other memory columns are dropped.
// Batches longer than the plan's batch size are cut into zero-copy slices.
// It takes ownership of the stream's batches.
func (sr *splitRead) adaptMem(ctx context.Context, m iter.Seq2[arrow.RecordBatch, error], idx int,
	fields []types.DataField, sc *arrow.Schema) iter.Seq2[arrow.RecordBatch, error] {
	src := make([]string, len(fields))
	for j, f := range fields {
		src[j] = f.Name
		if f.ID >= keyFieldIDOffset && f.ID < sequenceNumberID-16 {
			src[j] = strings.TrimPrefix(f.Name, keyFieldPrefix)
		}
	}
	batchSize := int64(sr.plan.cfg.batchSize)
	return func(yield func(arrow.RecordBatch, error) bool) {
		var lastSchema *arrow.Schema
		cols := make([]int, len(fields))
		for rec, err := range m {
			if err != nil {
				yield(nil, fmt.Errorf("reader: memory run %d of split %s: %w", idx, sr.sp.BucketPath, err))
				return
			}
			if rec == nil {
				continue
			}
			if err := ctx.Err(); err != nil {
				rec.Release()
				yield(nil, err)
				return
			}
			if rec.Schema() != lastSchema {
				if err := sr.mapMemColumns(rec.Schema(), src, sc, idx, cols); err != nil {
					rec.Release()
					yield(nil, err)
					return
				}
				lastSchema = rec.Schema()
			}
			out, err := sr.pickMemColumns(rec, cols, sc, idx)
			rec.Release()
			if err != nil {
				yield(nil, err)
				return
			}
			n := out.NumRows()
			if n <= batchSize {
				if n == 0 {
					out.Release()
					continue
				}
				if !yield(out, nil) {
					return
				}
				continue
			}
			for lo := int64(0); lo < n; lo += batchSize {
				part := out.NewSlice(lo, min(lo+batchSize, n))
				if !yield(part, nil) {
					out.Release()
					return
				}
			}
			out.Release()
		}
	}
}

// mapMemColumns fills cols with the position in the memory schema in of
// each target column named src, checking names and Arrow types.
func (sr *splitRead) mapMemColumns(in *arrow.Schema, src []string, sc *arrow.Schema, idx int, cols []int) error {
	for j, name := range src {
		pos := in.FieldIndices(name)
		if len(pos) == 0 {
			return fmt.Errorf("%w: memory run %d of split %s has no column %q", ErrInvalidScan, idx, sr.sp.BucketPath, name)
		}
		want := sc.Field(j).Type
		if got := in.Field(pos[0]).Type; !arrow.TypeEqual(got, want) {
			return fmt.Errorf("%w: column %q of memory run %d of split %s is %s, want %s",
				ErrInvalidScan, name, idx, sr.sp.BucketPath, got, want)
		}
		cols[j] = pos[0]
	}
	return nil
}

// pickMemColumns builds the target batch from the memory batch rec. The
// system columns _SEQUENCE_NUMBER and _VALUE_KIND must hold no nulls.
func (sr *splitRead) pickMemColumns(rec arrow.RecordBatch, cols []int, sc *arrow.Schema, idx int) (arrow.RecordBatch, error) {
	arrs := make([]arrow.Array, len(cols))
	for j, c := range cols {
		a := rec.Column(c)
		if name := sc.Field(j).Name; (name == sequenceNumberField || name == valueKindField) && a.NullN() > 0 {
			return nil, fmt.Errorf("%w: column %s of memory run %d of split %s has %d nulls",
				ErrInvalidScan, name, idx, sr.sp.BucketPath, a.NullN())
		}
		arrs[j] = a
	}
	return array.NewRecordBatch(sc, arrs, rec.NumRows()), nil
}
