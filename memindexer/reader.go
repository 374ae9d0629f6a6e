package memindexer

import (
	"context"
	"fmt"
	"iter"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/memory"

	"github.com/paimon-go/paimon/progress"
	"github.com/paimon-go/paimon/realtime"
)

// reader is one iterator over batches of a store.
type reader = iter.Seq2[arrow.RecordBatch, error]

// CommitReaders implements realtime.Store. For AppendOnly it returns one
// reader yielding the segment's batches in write order; for PrimaryKey one
// reader per stored batch (each sorted by key then sequence number, as
// written). Batches are yielded as stored (all transport columns, the rows
// of a sliced input exactly); each yield hands a new reference to the
// consumer.
//
// Errors: realtime.ErrForeignHandle when seg is not a segment of this
// store; ErrReclaimed (with realtime.ErrClosed after Close) when the store
// already dropped seg's batches — also yielded by a reader started after
// that.
func (s *store) CommitReaders(ctx context.Context, seg realtime.Segment) ([]reader, error) {
	if err := ctx.Err(); err != nil {
		return nil, err
	}
	g, ok := seg.(*segment)
	if !ok || g == nil || g.owner != s {
		return nil, fmt.Errorf("%w: commit readers for segment %T", realtime.ErrForeignHandle, seg)
	}
	if err := s.pinSegment(g, nil); err != nil {
		return nil, err
	}
	if s.mode == realtime.AppendOnly {
		return []reader{s.commitReader(ctx, g, g.entries)}, nil
	}
	rs := make([]reader, len(g.entries))
	for i := range g.entries {
		rs[i] = s.commitReader(ctx, g, g.entries[i:i+1])
	}
	return rs, nil
}

// pinSegment retains es (batches of g) unless g was reclaimed.
func (s *store) pinSegment(g *segment, es []*entry) error {
	s.mu.Lock()
	defer s.mu.Unlock()
	if g.reclaimed {
		if s.closed {
			return fmt.Errorf("%w: %w: segment %s of a closed store", ErrReclaimed, realtime.ErrClosed, g.rng)
		}
		return fmt.Errorf("%w: segment %s is covered by the committed end %d", ErrReclaimed, g.rng, s.committed)
	}
	for _, e := range es {
		e.rec.Retain()
	}
	return nil
}

// commitReader yields the records of es, pinned for the iteration.
func (s *store) commitReader(ctx context.Context, g *segment, es []*entry) reader {
	return func(yield func(arrow.RecordBatch, error) bool) {
		if err := s.pinSegment(g, es); err != nil {
			yield(nil, err)
			return
		}
		for i, e := range es {
			if err := ctx.Err(); err != nil {
				releaseFrom(es[i:])
				yield(nil, err)
				return
			}
			// The consumer gets a record of its own (the packed columns
			// written out); the pin taken for e is dropped after it.
			rec := e.record(s.alloc, s.schema, s.allCols, 0, int(e.rows))
			e.rec.Release()
			if !yield(rec, nil) {
				releaseFrom(es[i+1:])
				return
			}
		}
	}
}

func releaseFrom(es []*entry) {
	for _, e := range es {
		e.rec.Release()
	}
}

// QueryReaders implements realtime.Store. The readers yield the view's
// batches projected to q.Columns (transport column names, any order;
// realtime.ErrSchemaMismatch for an unknown name), in pieces of at most
// q.BatchSize rows (ErrInvalidQuery when q.BatchSize <= 0). For AppendOnly
// there is one reader in offset order; for PrimaryKey one per stored batch,
// each sorted by key then sequence number, or with q.Keys one reader of the
// rows of those keys in all batches, sorted by key then sequence number
// (keysReader). A view without candidate batches gets no readers.
//
// Pruning: a batch whose offset bounds miss a non-empty q.Visible is
// skipped, and only rows whose offsets lie in q.Visible are yielded
// (realtime.ClipsVisible): AppendOnly batches are cut by binary search,
// PrimaryKey batches whose offset bounds lie inside q.Visible are yielded
// whole and the others as their runs of visible rows (each run sorted, so
// each reader stays sorted). With
// realtime.StatsFull and a q.Filter (over transport column indexes), a batch
// whose statistics cannot match (predicate TestStats) is skipped. Exact
// filtering is left to the caller, and so is the choice of a filter that is
// safe to prune with: for PrimaryKey only predicates on key columns are
// (pruning on value columns before the merge could hide the newest version
// of a key).
//
// Errors: realtime.ErrForeignHandle for a view of another store,
// ErrReleased for a released view (also yielded by a reader started after
// the view was released; readers started before keep their batches pinned).
func (s *store) QueryReaders(ctx context.Context, rv realtime.ReadView, q realtime.Query) ([]reader, error) {
	if err := ctx.Err(); err != nil {
		return nil, err
	}
	v, ok := rv.(*view)
	if !ok || v == nil || v.owner != s {
		return nil, fmt.Errorf("%w: query over read view %T", realtime.ErrForeignHandle, rv)
	}
	if q.BatchSize <= 0 {
		return nil, fmt.Errorf("%w: batch size %d", ErrInvalidQuery, q.BatchSize)
	}
	cols := make([]int, len(q.Columns))
	fields := make([]arrow.Field, len(q.Columns))
	for i, name := range q.Columns {
		idx := s.schema.FieldIndices(name)
		if len(idx) == 0 {
			return nil, fmt.Errorf("%w: query column %q is not in the transport schema %s",
				realtime.ErrSchemaMismatch, name, s.schema)
		}
		cols[i], fields[i] = idx[0], s.schema.Field(idx[0])
	}
	if k := q.Keys; k != nil {
		if len(k.Types) != len(k.Columns) {
			return nil, fmt.Errorf("%w: %d key columns, %d key types", ErrInvalidQuery, len(k.Columns), len(k.Types))
		}
		for _, c := range k.Columns {
			if c < 0 || c >= s.schema.NumFields() {
				return nil, fmt.Errorf("%w: key column %d of a %d-column transport schema", ErrInvalidQuery, c, s.schema.NumFields())
			}
		}
		for _, v := range k.Values {
			if len(v) != len(k.Columns) {
				return nil, fmt.Errorf("%w: key of %d values for %d key columns", ErrInvalidQuery, len(v), len(k.Columns))
			}
		}
	}
	md := s.schema.Metadata()
	p := &projection{schema: arrow.NewSchema(fields, &md), cols: cols, batchSize: int64(q.BatchSize), mem: s.alloc}
	if !q.Visible.Empty() {
		p.visible = q.Visible
		p.cut = s.mode == realtime.AppendOnly
	}
	v.mu.Lock()
	released := v.released
	v.mu.Unlock()
	if released {
		return nil, fmt.Errorf("%w: query over a released view %s", ErrReleased, v.rng)
	}
	var keep []*entry
	for _, e := range v.entries {
		if !p.visible.Empty() && (e.last < p.visible.Begin || e.first >= p.visible.End) {
			continue
		}
		if q.Filter != nil && e.stats != nil &&
			!q.Filter.TestStats(e.rows, e.stats.min, e.stats.max, e.stats.nulls) {
			continue
		}
		keep = append(keep, e)
	}
	if len(keep) == 0 {
		return []reader{}, nil
	}
	if s.mode == realtime.AppendOnly {
		return []reader{p.reader(ctx, v, keep)}, nil
	}
	if q.Keys != nil {
		return []reader{p.keysReader(ctx, v, keep, q.Keys, s.alloc)}, nil
	}
	rs := make([]reader, len(keep))
	for i := range keep {
		rs[i] = p.reader(ctx, v, keep[i:i+1])
	}
	return rs, nil
}

// projection is what a query reader does to each stored batch.
type projection struct {
	schema    *arrow.Schema
	cols      []int
	batchSize int64
	visible   progress.Range // empty: no clipping
	cut       bool           // slice batches to visible (sorted offsets)
	mem       memory.Allocator
}

// reader yields es (batches of v), pinned for the iteration, projected and
// cut into pieces.
func (p *projection) reader(ctx context.Context, v *view, es []*entry) reader {
	return func(yield func(arrow.RecordBatch, error) bool) {
		if err := v.pin(es); err != nil {
			yield(nil, err)
			return
		}
		defer releaseFrom(es)
		for _, e := range es {
			lo, hi := int64(0), e.rows
			switch {
			case p.cut:
				l, h := e.sortedBounds(p.visible)
				lo, hi = int64(l), int64(h)
			case !p.visible.Empty() && (e.first < p.visible.Begin || e.last >= p.visible.End):
				// A PrimaryKey batch (sorted by key) with rows on both sides
				// of the visible range: its visible rows, as runs of
				// consecutive rows, in order.
				n := int(e.rows)
				for i := 0; i < n; {
					if !p.visible.Contains(e.offsetAt(i)) {
						i++
						continue
					}
					j := i + 1
					for j < n && p.visible.Contains(e.offsetAt(j)) {
						j++
					}
					if !p.emit(ctx, e, int64(i), int64(j), yield) {
						return
					}
					i = j
				}
				continue
			}
			if lo >= hi {
				continue
			}
			if !p.emit(ctx, e, lo, hi, yield) {
				return
			}
		}
	}
}

// emit yields rows [lo, hi) of e projected, at most batchSize rows at a
// time; false when the iteration must stop.
func (p *projection) emit(ctx context.Context, e *entry, lo, hi int64, yield func(arrow.RecordBatch, error) bool) bool {
	for at := lo; at < hi; at += p.batchSize {
		if err := ctx.Err(); err != nil {
			yield(nil, err)
			return false
		}
		if !yield(e.record(p.mem, p.schema, p.cols, int(at), int(min(hi, at+p.batchSize))), nil) {
			return false
		}
	}
	return true
}
