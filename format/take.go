package format

import (
	"context"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"
	"github.com/apache/arrow-go/v18/arrow/compute"
	"github.com/apache/arrow-go/v18/arrow/memory"
)

// Take returns a new batch of the rows idx of rec, in the order of idx
// (idx[k] is the row of rec that becomes row k; a row may repeat), with
// rec's schema; the caller releases it. Buffers come from mem. rec is not
// retained or released. The error is arrow compute's (an index out of
// range, an allocation failure), returned as it is for the caller to wrap.
// It is the row selection every table layer shares (routing, sorting,
// splitting of batches); Java has no counterpart, its rows are objects.
func Take(ctx context.Context, mem memory.Allocator, rec arrow.RecordBatch, idx []int32) (arrow.RecordBatch, error) {
	b := array.NewInt32Builder(mem)
	b.AppendValues(idx, nil)
	ia := b.NewArray()
	b.Release()
	defer ia.Release()
	// NewDatumWithoutOwning: NewDatum would retain rec and ia, and the
	// datums are never released.
	out, err := compute.Take(compute.WithAllocator(ctx, mem), *compute.DefaultTakeOptions(),
		compute.NewDatumWithoutOwning(rec), compute.NewDatumWithoutOwning(ia))
	if err != nil {
		return nil, err
	}
	return out.(*compute.RecordDatum).Value, nil
}
