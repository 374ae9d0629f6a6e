package realtime

import (
	"fmt"
	"math"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"
	"github.com/apache/arrow-go/v18/arrow/memory"

	"github.com/paimon-go/paimon/progress"
	"github.com/paimon-go/paimon/schema"
	"github.com/paimon-go/paimon/types"
)

// layout is the transport schema of a table's stores (paimon-cpp
// RealtimeSchemaLayout), built in one place: append tables
// [_REALTIME_OFFSET, table columns...], primary-key tables [_VALUE_KIND,
// _SEQUENCE_NUMBER, _REALTIME_OFFSET, table columns...].
type layout struct {
	mode      Mode
	table     *arrow.Schema // table columns, types.SchemaToArrow
	transport *arrow.Schema
	offset    int   // index of OffsetColumn in transport
	first     int   // index of the first table column in transport
	keys      []int // trimmed primary key in transport (PrimaryKey)
}

func newLayout(ts *schema.TableSchema) *layout {
	l := &layout{table: types.SchemaToArrow(ts.Fields)}
	var sys []arrow.Field
	if len(ts.PrimaryKeys) > 0 {
		l.mode = PrimaryKey
		sys = []arrow.Field{
			{Name: KindColumn, Type: arrow.PrimitiveTypes.Int8},
			{Name: SequenceColumn, Type: arrow.PrimitiveTypes.Int64},
			{Name: OffsetColumn, Type: arrow.PrimitiveTypes.Int64},
		}
		l.offset = 2
	} else {
		sys = []arrow.Field{{Name: OffsetColumn, Type: arrow.PrimitiveTypes.Int64}}
	}
	l.first = len(sys)
	l.transport = arrow.NewSchema(append(sys, l.table.Fields()...), nil)
	for _, k := range ts.TrimmedPrimaryKeys() {
		for i, f := range ts.Fields {
			if f.Name == k {
				l.keys = append(l.keys, l.first+i)
			}
		}
	}
	return l
}

// names returns the names of every transport column.
func (l *layout) names() []string {
	out := make([]string, l.transport.NumFields())
	for i, f := range l.transport.Fields() {
		out[i] = f.Name
	}
	return out
}

// build assembles a transport batch from the table columns of one share
// and its per-row offsets (and, for primary keys, kinds and sequence
// numbers). The caller releases the result.
func (l *layout) build(mem memory.Allocator, cols []arrow.Array, n int, offsets []int64, kinds []int8, seqs []int64) arrow.RecordBatch {
	out := make([]arrow.Array, 0, l.transport.NumFields())
	var owned []arrow.Array
	if l.mode == PrimaryKey {
		kb := array.NewInt8Builder(mem)
		if kinds == nil {
			kinds = make([]int8, n)
		}
		kb.AppendValues(kinds, nil)
		sb := array.NewInt64Builder(mem)
		sb.AppendValues(seqs, nil)
		owned = append(owned, kb.NewArray(), sb.NewArray())
		kb.Release()
		sb.Release()
	}
	ob := array.NewInt64Builder(mem)
	ob.AppendValues(offsets, nil)
	owned = append(owned, ob.NewArray())
	ob.Release()
	out = append(out, owned...)
	out = append(out, cols...)
	rec := array.NewRecordBatch(l.transport, out, int64(n))
	for _, a := range owned {
		a.Release()
	}
	return rec
}

// flushColumns returns the columns of a transport batch that the flush
// writer takes: everything but OffsetColumn (kinds and sequence numbers of
// primary-key tables are the writer's row kind and sequence columns).
func (l *layout) stripOffset(rec arrow.RecordBatch) (arrow.RecordBatch, error) {
	sc := rec.Schema()
	idx := sc.FieldIndices(OffsetColumn)
	if len(idx) != 1 {
		return nil, fmt.Errorf("%w: commit reader batch without a single %s column (schema %s)", ErrSchemaMismatch, OffsetColumn, sc)
	}
	fields := make([]arrow.Field, 0, sc.NumFields()-1)
	cols := make([]arrow.Array, 0, sc.NumFields()-1)
	for i, f := range sc.Fields() {
		if i != idx[0] {
			fields = append(fields, f)
			cols = append(cols, rec.Column(i))
		}
	}
	return array.NewRecordBatch(arrow.NewSchema(fields, nil), cols, rec.NumRows()), nil
}

// clip returns the rows of a query batch whose offset lies in r, in their
// order, and whether any row is left. It consumes rec (releases it or
// returns it). Rows are kept as runs of slices concatenated, so any column
// type works.
func clip(mem memory.Allocator, rec arrow.RecordBatch, r progress.Range) (arrow.RecordBatch, bool, error) {
	idx := rec.Schema().FieldIndices(OffsetColumn)
	if len(idx) != 1 {
		rec.Release()
		return nil, false, fmt.Errorf("%w: query batch without a single %s column", ErrSchemaMismatch, OffsetColumn)
	}
	col, ok := rec.Column(idx[0]).(*array.Int64)
	if !ok || col.NullN() > 0 {
		rec.Release()
		return nil, false, fmt.Errorf("%w: %s column of a query batch is not a non-null int64 column", ErrSchemaMismatch, OffsetColumn)
	}
	vals := col.Int64Values()
	type run struct{ from, to int64 }
	var runs []run
	kept := 0
	for i := 0; i < len(vals); {
		if !r.Contains(vals[i]) {
			i++
			continue
		}
		j := i + 1
		for j < len(vals) && r.Contains(vals[j]) {
			j++
		}
		runs = append(runs, run{int64(i), int64(j)})
		kept += j - i
		i = j
	}
	switch {
	case kept == len(vals):
		return rec, kept > 0, nil
	case kept == 0:
		rec.Release()
		return nil, false, nil
	case len(runs) == 1:
		out := rec.NewSlice(runs[0].from, runs[0].to)
		rec.Release()
		return out, true, nil
	}
	defer rec.Release()
	cols := make([]arrow.Array, rec.NumCols())
	defer func() {
		for _, c := range cols {
			if c != nil {
				c.Release()
			}
		}
	}()
	parts := make([]arrow.Array, len(runs))
	for c := range cols {
		for k, rn := range runs {
			parts[k] = array.NewSlice(rec.Column(c), rn.from, rn.to)
		}
		a, err := array.Concatenate(parts, mem)
		for _, p := range parts {
			p.Release()
		}
		if err != nil {
			return nil, false, fmt.Errorf("realtime: clip query batch to %s: %w", r, err)
		}
		cols[c] = a
	}
	return array.NewRecordBatch(rec.Schema(), cols, int64(kept)), true, nil
}

// checkOffsets validates application offsets given in a share's input
// order: strictly increasing, the first at least next, the last below
// math.MaxInt64-1 (progress.Validate rejects a range ending at
// math.MaxInt64). It returns the envelope [first, last+1).
func checkOffsets(offs []int64, next int64, pb progress.PartitionBucket) (progress.Range, error) {
	for i, o := range offs {
		switch {
		case i == 0 && o < next:
			return progress.Range{}, fmt.Errorf("%w: offset %d of %s is below the next expected offset %d", ErrOffsetOrder, o, pb, next)
		case i > 0 && o <= offs[i-1]:
			return progress.Range{}, fmt.Errorf("%w: offsets of %s are not strictly increasing (%d after %d)", ErrOffsetOrder, pb, o, offs[i-1])
		case o >= math.MaxInt64-1:
			return progress.Range{}, fmt.Errorf("%w: offset %d of %s: offsets must stay below math.MaxInt64-1 so that the exclusive end of a range is below math.MaxInt64", ErrOffsetOrder, o, pb)
		}
	}
	return progress.Range{Begin: offs[0], End: offs[len(offs)-1] + 1}, nil
}
