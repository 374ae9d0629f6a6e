package orc

import (
	"context"
	"fmt"
	"io"
	"iter"
	"strconv"
	"time"

	"github.com/apache/arrow-go/v18/arrow"

	"github.com/paimon-go/paimon/format"
	"github.com/paimon-go/paimon/types"
)

// Format is the ORC file format of package format (Java OrcFileFormat):
// Name is "orc", NewReader returns a *Reader, NewWriter a *Writer.
type Format struct{}

var _ format.Format = Format{}

// Name returns "orc", the value of the file.format option and the data
// file extension.
func (Format) Name() string { return "orc" }

// NewReader is NewReader of this package.
func (Format) NewReader(ctx context.Context, f format.File, fileName string, want []types.DataField, opts format.ReadOptions) (format.Reader, error) {
	r, err := NewReader(ctx, f, fileName, want, opts)
	if err != nil {
		return nil, err
	}
	return r, nil
}

// NewWriter is NewWriter of this package.
func (Format) NewWriter(ctx context.Context, w io.Writer, fileName string, fields []types.DataField, opts format.WriteOptions) (format.Writer, error) {
	wr, err := NewWriter(ctx, w, fileName, fields, opts)
	if err != nil {
		return nil, err
	}
	return wr, nil
}

// Reader reads one ORC data file as Arrow record batches of schema
// types.SchemaToArrow(want); it implements format.Reader (Java
// OrcReaderFactory). A Reader is not safe for concurrent use.
type Reader struct {
	file   *File
	name   string
	want   []types.DataField
	schema *arrow.Schema
	plans  []*colPlan
	ctx    context.Context // context of the current Next call
	next   func() (format.Batch, error, bool)
	stop   func()
}

// NewReader opens the ORC file f (named fileName in errors) for reading the
// fields want, in that order.
//
// Top-level columns are matched to want by Paimon field id (the paimon.id
// type attribute) when every top-level column carries one, else by name
// (Paimon 0.9 and older wrote no ids); fields of nested ROW types likewise.
// Fields missing from the file read as nulls (added columns). A column may
// be read as its own type or a wider one (TINYINT/SMALLINT/INT to a wider
// integer, FLOAT to DOUBLE, DECIMAL to another precision/scale, TIMESTAMP to
// any precision, and the LTZ variants), other type changes are
// format.ErrSchemaMismatch. Stripes are the row groups of
// opts.RowGroupFilter; their column statistics are not decoded (reported
// unknown), except that fields missing from the file have NullCount = rows.
//
// Errors name fileName and wrap format.ErrCorrupt, format.ErrUnsupportedFormat,
// format.ErrSchemaMismatch or format.ErrOutOfRange (see the package doc); an
// I/O error of f is returned wrapped.
func NewReader(ctx context.Context, f format.File, fileName string, want []types.DataField, opts format.ReadOptions) (*Reader, error) {
	if err := ctx.Err(); err != nil {
		return nil, err
	}
	file, err := Open(f, f.Size())
	if err != nil {
		return nil, fmt.Errorf("%s: %w", fileName, err)
	}
	r := &Reader{file: file, name: fileName, want: want, schema: types.SchemaToArrow(want), ctx: ctx}
	byID := hasIDs(file.root.children)
	for i, w := range want {
		n := matchField(file.root.children, w, byID)
		p, err := planField(n, w.Type, r.schema.Field(i).Type)
		if err != nil {
			return nil, fmt.Errorf("%s: field %q: %w", fileName, w.Name, err)
		}
		r.plans = append(r.plans, p)
	}
	var skip func(int, int64, int64) bool
	if opts.RowGroupFilter != nil {
		skip = func(si int, first, rows int64) bool {
			st := format.RowGroupStats{Index: si, FirstRow: first, NumRows: rows, Columns: make([]format.ColumnStats, len(r.plans))}
			for i, p := range r.plans {
				if p.n == nil {
					st.Columns[i] = format.ColumnStats{NullCount: rows, NullCountKnown: true}
				}
			}
			return !opts.RowGroupFilter(st)
		}
	}
	seq := func(yield func(format.Batch, error) bool) {
		err := file.scan(ctxFunc(r), r.plans, r.schema, opts.Allocator, opts.BatchSize, skip,
			func(rec arrow.RecordBatch, first int64) bool {
				return yield(format.Batch{Record: rec, FirstRow: first}, nil)
			})
		if err != nil {
			yield(format.Batch{}, fmt.Errorf("%s: %w", fileName, err))
		}
	}
	r.next, r.stop = iter.Pull2(iter.Seq2[format.Batch, error](seq))
	return r, nil
}

// ctxFunc returns a context that follows the reader's current Next context.
func ctxFunc(r *Reader) context.Context { return readerCtx{r} }

// readerCtx forwards Err/Done/Deadline/Value to the context of the Next call
// being served, so cancellation of any Next call stops decoding.
type readerCtx struct{ r *Reader }

func (c readerCtx) Deadline() (deadline time.Time, ok bool) { return c.r.ctx.Deadline() }
func (c readerCtx) Done() <-chan struct{}                   { return c.r.ctx.Done() }
func (c readerCtx) Err() error                              { return c.r.ctx.Err() }
func (c readerCtx) Value(key any) any                       { return c.r.ctx.Value(key) }

// Schema returns types.SchemaToArrow(want), the schema of every batch.
func (r *Reader) Schema() *arrow.Schema { return r.schema }

// NumRows returns the number of rows in the file.
func (r *Reader) NumRows() int64 { return r.file.NumRows() }

// NumRowGroups returns the number of stripes.
func (r *Reader) NumRowGroups() int { return r.file.NumStripes() }

// Next returns the next batch (the caller releases its Record), or io.EOF
// after the last one. After an error every call returns io.EOF.
func (r *Reader) Next(ctx context.Context) (format.Batch, error) {
	if r.next == nil {
		return format.Batch{}, io.EOF
	}
	if err := ctx.Err(); err != nil {
		return format.Batch{}, err
	}
	r.ctx = ctx
	b, err, ok := r.next()
	if !ok {
		return format.Batch{}, io.EOF
	}
	if err != nil {
		r.Close()
	}
	return b, err
}

// Close stops decoding; it does not close the format.File.
func (r *Reader) Close() error {
	if r.stop != nil {
		r.stop()
		r.next, r.stop = nil, nil
	}
	return nil
}

// hasIDs reports whether every node carries a parsable paimon.id.
func hasIDs(nodes []*node) bool {
	for _, n := range nodes {
		if _, err := strconv.Atoi(n.t.attributes[FieldIDAttribute]); err != nil {
			return false
		}
	}
	return len(nodes) > 0
}

// matchField finds the file column of field w among nodes, by id or by
// name; nil when absent.
func matchField(nodes []*node, w types.DataField, byID bool) *node {
	for _, n := range nodes {
		if byID {
			if id, _ := strconv.Atoi(n.t.attributes[FieldIDAttribute]); id == w.ID {
				return n
			}
		} else if n.name == w.Name {
			return n
		}
	}
	return nil
}

// planField plans reading file column n (nil: absent) as the Paimon type t
// with Arrow type at, matching ROW fields by id or name.
func planField(n *node, t types.DataType, at arrow.DataType) (*colPlan, error) {
	if n == nil {
		return &colPlan{at: at}, nil
	}
	p := &colPlan{n: n, at: at}
	if t.Kind == types.KindMultiset && t.Elem != nil {
		// Java stores MULTISET<T> as MAP<T, INT NOT NULL> (OrcFileFormat.refineDataType).
		t = types.DataType{Kind: types.KindMap, Nullable: t.Nullable, Key: t.Elem, Value: &types.DataType{Kind: types.KindInt}}
	}
	switch t.Kind {
	case types.KindRow:
		st, ok := at.(*arrow.StructType)
		if n.t.kind != kindStruct || !ok {
			return nil, cannotRead(n, at)
		}
		byID := hasIDs(n.children)
		for i, w := range t.Fields {
			cp, err := planField(matchField(n.children, w, byID), w.Type, st.Field(i).Type)
			if err != nil {
				return nil, err
			}
			p.children = append(p.children, cp)
		}
		return p, nil
	case types.KindArray:
		lt, ok := at.(*arrow.ListType)
		if n.t.kind != kindList || !ok || t.Elem == nil {
			return nil, cannotRead(n, at)
		}
		cp, err := planField(n.children[0], *t.Elem, lt.Elem())
		if err != nil {
			return nil, err
		}
		p.children = []*colPlan{cp}
		return p, nil
	case types.KindMap, types.KindMultiset:
		// Java stores MULTISET<T> as MAP<T, INT NOT NULL> (element → count).
		key, value := t.Key, t.Value
		if t.Kind == types.KindMultiset {
			count := types.Int()
			count.Nullable = false
			key, value = t.Elem, &count
		}
		mt, ok := at.(*arrow.MapType)
		if n.t.kind != kindMap || !ok || key == nil || value == nil {
			return nil, cannotRead(n, at)
		}
		kp, err := planField(n.children[0], *key, mt.KeyType())
		if err != nil {
			return nil, err
		}
		vp, err := planField(n.children[1], *value, mt.ItemType())
		if err != nil {
			return nil, err
		}
		p.children = []*colPlan{kp, vp}
		return p, nil
	}
	switch n.t.kind {
	case kindList, kindMap, kindStruct:
		return nil, cannotRead(n, at)
	}
	if err := checkLeaf(n, at); err != nil {
		return nil, err
	}
	return p, nil
}
