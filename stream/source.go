package stream

import (
	"context"
	"errors"
	"fmt"
	"iter"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"
	"github.com/apache/arrow-go/v18/arrow/memory"

	"github.com/paimon-go/paimon/fileio"
	"github.com/paimon-go/paimon/reader"
	"github.com/paimon-go/paimon/schema"
	"github.com/paimon-go/paimon/types"
)

// RowKindColumn is the name of the first column of every batch.
const RowKindColumn = "rowkind"

// ErrChangesUnsupported: the per-snapshot change read is not available in
// this build (it comes with reader.WithChanges).
var ErrChangesUnsupported = errors.New("stream: per-snapshot change reads are not available")

// ReaderSource is the Source over package reader: full reads plan snapshot
// id with the given reader options (columns, filter, branch).
type ReaderSource struct {
	FIO   *fileio.FileIO
	Table *schema.TableSchema
	// Columns projects the read (all when empty), in this order.
	Columns []string
	// Opts are further reader options (filter, branch, batch size).
	Opts []reader.Option
}

func (r *ReaderSource) options(id int64) []reader.Option {
	o := append([]reader.Option{}, r.Opts...)
	if len(r.Columns) > 0 {
		o = append(o, reader.WithColumns(r.Columns...))
	}
	return append(o, reader.WithSnapshot(id))
}

// Full yields snapshot id's rows with rowkind "+I".
func (r *ReaderSource) Full(ctx context.Context, id int64) iter.Seq2[arrow.RecordBatch, error] {
	return func(yield func(arrow.RecordBatch, error) bool) {
		p, err := reader.NewScan(r.FIO, r.options(id)...).Plan(ctx)
		if err != nil {
			yield(nil, fmt.Errorf("stream: plan snapshot %d: %w", id, err))
			return
		}
		for b, err := range p.Records(ctx) {
			if err != nil {
				yield(nil, err)
				return
			}
			out := withRowKind(b, "+I")
			b.Release()
			if !yield(out, nil) {
				return
			}
		}
	}
}

// Changes reports ErrChangesUnsupported until reader.WithChanges exists.
func (r *ReaderSource) Changes(ctx context.Context, id int64, changelog bool) iter.Seq2[arrow.RecordBatch, error] {
	return func(yield func(arrow.RecordBatch, error) bool) {
		yield(nil, fmt.Errorf("%w: snapshot %d", ErrChangesUnsupported, id))
	}
}

// Schema returns "rowkind" followed by the read columns.
func (r *ReaderSource) Schema() *arrow.Schema {
	fields := r.Table.Fields
	if len(r.Columns) > 0 {
		var sel []types.DataField
		for _, c := range r.Columns {
			for _, f := range r.Table.Fields {
				if f.Name == c {
					sel = append(sel, f)
				}
			}
		}
		fields = sel
	}
	return prepend(types.SchemaToArrow(fields))
}

func prepend(sc *arrow.Schema) *arrow.Schema {
	fs := append([]arrow.Field{{Name: RowKindColumn, Type: arrow.BinaryTypes.String}}, sc.Fields()...)
	return arrow.NewSchema(fs, nil)
}

// withRowKind returns b with a constant rowkind column kind in front.
func withRowKind(b arrow.RecordBatch, kind string) arrow.RecordBatch {
	bld := array.NewStringBuilder(memory.DefaultAllocator)
	defer bld.Release()
	for i := int64(0); i < b.NumRows(); i++ {
		bld.Append(kind)
	}
	kinds := bld.NewArray()
	defer kinds.Release()
	cols := append([]arrow.Array{kinds}, b.Columns()...)
	return array.NewRecordBatch(prepend(b.Schema()), cols, b.NumRows())
}
