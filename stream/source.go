package stream

import (
	"context"
	"fmt"
	"iter"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"
	"github.com/apache/arrow-go/v18/arrow/memory"

	"github.com/paimon-go/paimon/fileio"
	"github.com/paimon-go/paimon/format"
	"github.com/paimon-go/paimon/reader"
	"github.com/paimon-go/paimon/schema"
	"github.com/paimon-go/paimon/types"
)

// RowKindColumn is the name of the first column of every batch.
const RowKindColumn = "rowkind"

// ReaderSource is the Source over package reader: full reads plan snapshot
// id (reader.WithSnapshot), change reads plan its delta or changelog
// (reader.WithChanges), both with reader.WithRowKind and the given options.
type ReaderSource struct {
	FIO   *fileio.FileIO
	Table *schema.TableSchema
	// Columns projects the read (all when empty), in this order.
	Columns []string
	// Opts are further reader options (filter, branch, batch size).
	Opts []reader.Option
}

func (r *ReaderSource) options(extra ...reader.Option) []reader.Option {
	o := append([]reader.Option{}, r.Opts...)
	if len(r.Columns) > 0 {
		o = append(o, reader.WithColumns(r.Columns...))
	}
	return append(append(o, reader.WithRowKind()), extra...)
}

func (r *ReaderSource) read(ctx context.Context, what string, opts []reader.Option) iter.Seq2[arrow.RecordBatch, error] {
	return func(yield func(arrow.RecordBatch, error) bool) {
		p, err := reader.NewScan(r.FIO, opts...).Plan(ctx)
		if err != nil {
			yield(nil, fmt.Errorf("stream: plan %s: %w", what, err))
			return
		}
		for b, err := range p.Records(ctx) {
			if !yield(b, err) || err != nil {
				return
			}
		}
	}
}

// Full yields snapshot id's rows (merged, each with its row kind). Like
// Java's streaming read, and unlike its audit_log (the only caller of
// forceKeepDelete), it drops the retractions (-U, -D) that
// reader.WithRowKind keeps in a merged read.
func (r *ReaderSource) Full(ctx context.Context, id int64) iter.Seq2[arrow.RecordBatch, error] {
	return func(yield func(arrow.RecordBatch, error) bool) {
		for b, err := range r.read(ctx, fmt.Sprintf("snapshot %d", id), r.options(reader.WithSnapshot(id))) {
			if err != nil {
				yield(nil, err)
				return
			}
			kept, err := dropRetractions(ctx, b)
			if err != nil {
				yield(nil, fmt.Errorf("stream: snapshot %d: %w", id, err))
				return
			}
			if kept.NumRows() == 0 {
				kept.Release()
				continue
			}
			if !yield(kept, nil) {
				return
			}
		}
	}
}

// dropRetractions returns b without its -U and -D rows (column 0 is the row
// kind); it takes over b.
func dropRetractions(ctx context.Context, b arrow.RecordBatch) (arrow.RecordBatch, error) {
	kinds, ok := b.Column(0).(*array.String)
	if !ok {
		b.Release()
		return nil, fmt.Errorf("%w: column 0 is %s, want the row kind", reader.ErrInvalidScan, b.Column(0).DataType())
	}
	idx := make([]int32, 0, b.NumRows())
	for i := range kinds.Len() {
		if k := kinds.Value(i); k != "-U" && k != "-D" {
			idx = append(idx, int32(i))
		}
	}
	if len(idx) == kinds.Len() {
		return b, nil
	}
	defer b.Release()
	return format.Take(ctx, memory.DefaultAllocator, b, idx)
}

// Changes yields the changelog (changelog true) or the delta of snapshot id.
func (r *ReaderSource) Changes(ctx context.Context, id int64, changelog bool) iter.Seq2[arrow.RecordBatch, error] {
	mode := reader.ChangesDelta
	if changelog {
		mode = reader.ChangesChangelog
	}
	return r.read(ctx, fmt.Sprintf("%s of snapshot %d", mode, id), r.options(reader.WithChanges(id, mode)))
}

// Schema returns "rowkind" (utf8) followed by the read columns.
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
	// Java SpecialFields.ROW_KIND: id Integer.MAX_VALUE - 4, as reader.WithRowKind.
	kind := types.DataField{ID: 2147483643, Name: RowKindColumn, Type: types.String()}
	return types.SchemaToArrow(append([]types.DataField{kind}, fields...))
}
