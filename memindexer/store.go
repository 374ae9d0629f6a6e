package memindexer

import (
	"context"
	"fmt"
	"sync"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"
	"github.com/apache/arrow-go/v18/arrow/memory"

	"github.com/paimon-go/paimon/progress"
	"github.com/paimon-go/paimon/realtime"
	"github.com/paimon-go/paimon/types"
)

// store is the realtime.Store Factory creates (paimon-cpp
// ArrowRealtimeStore).
type store struct {
	// Immutable after Create.
	schema    *arrow.Schema
	mode      realtime.Mode
	offsetCol int   // index of realtime.OffsetColumn
	fixedCols int   // number of leading transport columns
	keys      []int // key column indexes (PrimaryKey)
	statsMode realtime.StatsMode
	colTypes  []types.DataType // per column (StatsFull)
	colStats  []bool           // per column: min/max kept (StatsFull)
	compact   float64          // Factory.CompactRatio resolved; <= 0: never copy
	alloc     memory.Allocator // for compacted copies and packed columns written out
	allCols   []int            // 0, 1, ..., columns of schema - 1

	zmu     sync.Mutex
	zeros   *memory.Buffer // see zerosFor
	layouts [8]keptLayout  // by the dropped system columns (bit i: column i); see keptLayout

	mu        sync.Mutex
	closed    bool
	next      int64 // lowest Range.Begin the next Write may have
	committed int64 // highest end given to AdvanceCommittedOffset
	building  []*entry
	sealed    []*segment
	usage     realtime.Usage
}

// entry is one stored batch. Its fields never change after newEntry; the
// Arrow memory behind rec and offsets is valid while some holder (the store,
// a view, a running reader) has a reference to rec.
type entry struct {
	// rec holds the batch's transport columns except the packed ones
	// (packSystem); cols maps each transport column to its column in rec,
	// or -1 when it is packed: the offset column in off, the sequence
	// number column in seq, an all-INSERT kind column in nothing.
	rec         arrow.RecordBatch
	cols        []int
	off, seq    packed
	zeros       *memory.Buffer // the store's zeros, when the kind column is packed
	pk          bool           // a PrimaryKey batch
	offCol      int            // the transport index of the offset column
	rng         progress.Range // envelope given to Write
	first, last int64          // smallest and largest offset present
	offsets     []int64        // the offset column's values when not packed (rec's memory)
	rows, bytes int64
	stats       *batchStats // nil unless StatsFull
}

// segment is a sealed segment (realtime.Segment). entries and the counters
// are immutable; reclaimed is guarded by owner.mu.
type segment struct {
	owner       *store
	entries     []*entry
	rng         progress.Range
	rows, bytes int64
	reclaimed   bool
}

// Range implements realtime.Segment: the envelope from the first batch's
// Range.Begin to the last batch's Range.End.
func (g *segment) Range() progress.Range { return g.rng }

// RowCount implements realtime.Segment.
func (g *segment) RowCount() int64 { return g.rows }

// Write implements realtime.Store. It checks, before taking the store lock,
// that b.Record has exactly the store's transport schema (arrow
// Schema.Equal: names, types, nullability, field metadata) else
// realtime.ErrSchemaMismatch; that it has rows and, for PrimaryKey, no
// nulls in the kind and sequence columns, else ErrInvalidBatch; and that
// b.Range is not empty, the offset column has no nulls and every offset lies
// in b.Range, strictly increasing for AppendOnly, else
// realtime.ErrOffsetOrder. Under the lock it checks that b.Range.Begin is at
// least the end of the previous batch, the committed end given to
// AdvanceCommittedOffset and 0 (realtime.ErrOffsetOrder) and that the store
// is open (realtime.ErrClosed). A rejected batch changes nothing.
//
// An accepted batch is retained, not copied, except for columns holding far
// more buffer capacity than their rows need (see Factory.CompactRatio),
// which are copied before the lock is taken. Either way the caller keeps its
// own reference to b.Record and releases it as usual.
func (s *store) Write(ctx context.Context, b realtime.Batch) error {
	if err := ctx.Err(); err != nil {
		return err
	}
	e, err := s.newEntry(b)
	if err != nil {
		return err
	}
	s.mu.Lock()
	if err := s.admit(b.Range); err != nil {
		s.mu.Unlock()
		e.rec.Release()
		return err
	}
	defer s.mu.Unlock()
	s.building = append(s.building, e)
	s.next = b.Range.End
	s.usage.BuildingRows += e.rows
	s.usage.BuildingBytes += e.bytes
	return nil
}

// admit checks, under s.mu, that a batch with range r may be appended.
func (s *store) admit(r progress.Range) error {
	if s.closed {
		return fmt.Errorf("%w: write of batch %s into a closed store", realtime.ErrClosed, r)
	}
	if r.Begin < s.next {
		return fmt.Errorf("%w: batch %s begins below the next expected offset %d",
			realtime.ErrOffsetOrder, r, s.next)
	}
	return nil
}

// newEntry validates b against everything that does not depend on the
// store's state and computes the entry's metadata (O(rows)). The entry owns
// one reference to its record (b.Record retained, or a compacted copy).
func (s *store) newEntry(b realtime.Batch) (*entry, error) {
	rec := b.Record
	if rec == nil {
		return nil, fmt.Errorf("%w: batch %s has no record", ErrInvalidBatch, b.Range)
	}
	if !rec.Schema().Equal(s.schema) {
		return nil, fmt.Errorf("%w: batch %s has schema %s, the store %s",
			realtime.ErrSchemaMismatch, b.Range, rec.Schema(), s.schema)
	}
	rows := rec.NumRows()
	if rows == 0 {
		return nil, fmt.Errorf("%w: batch %s has no rows", ErrInvalidBatch, b.Range)
	}
	for i, c := range rec.Columns() {
		if int64(c.Len()) != rows {
			return nil, fmt.Errorf("%w: batch %s: column %d has %d rows, the batch %d",
				ErrInvalidBatch, b.Range, i, c.Len(), rows)
		}
	}
	if b.Range.Empty() {
		return nil, fmt.Errorf("%w: batch of %d rows has empty range %s", realtime.ErrOffsetOrder, rows, b.Range)
	}
	oc, ok := rec.Column(s.offsetCol).(*array.Int64)
	if !ok {
		return nil, fmt.Errorf("%w: batch %s: offset column is %T", realtime.ErrSchemaMismatch, b.Range, rec.Column(s.offsetCol))
	}
	if oc.NullN() > 0 {
		return nil, fmt.Errorf("%w: batch %s has %d null offsets", realtime.ErrOffsetOrder, b.Range, oc.NullN())
	}
	offs := oc.Int64Values()
	e := &entry{rng: b.Range, rows: rows, first: offs[0], last: offs[0]}
	for i, o := range offs {
		if !b.Range.Contains(o) {
			return nil, fmt.Errorf("%w: batch %s: offset %d of row %d lies outside the batch range",
				realtime.ErrOffsetOrder, b.Range, o, i)
		}
		if s.mode == realtime.AppendOnly {
			if i > 0 && o <= offs[i-1] {
				return nil, fmt.Errorf("%w: batch %s: offset %d of row %d does not exceed %d of the row before",
					realtime.ErrOffsetOrder, b.Range, o, i, offs[i-1])
			}
			continue
		}
		e.first, e.last = min(e.first, o), max(e.last, o)
	}
	if s.mode == realtime.AppendOnly {
		e.last = offs[len(offs)-1]
	} else {
		for _, c := range []int{0, 1} { // KindColumn, SequenceColumn
			if n := rec.Column(c).NullN(); n > 0 {
				return nil, fmt.Errorf("%w: batch %s has %d nulls in %s",
					ErrInvalidBatch, b.Range, n, s.schema.Field(c).Name)
			}
		}
	}
	if s.statsMode == realtime.StatsFull {
		e.stats = s.computeStats(rec)
	}
	kept, cols, off, seq, zeros, size := s.packSystem(rec, offs)
	stored, copied := compact(kept, s.compact, s.alloc)
	if copied {
		kept.Release()
	}
	e.rec, e.cols, e.off, e.seq, e.zeros = stored, cols, off, seq, zeros
	e.pk, e.offCol = s.mode == realtime.PrimaryKey, s.offsetCol
	if k := cols[s.offsetCol]; k >= 0 {
		e.offsets = stored.Column(k).(*array.Int64).Int64Values()
	}
	e.bytes = recordBytes(stored) + size
	return e, nil
}

// recordBytes is the sum of the lengths of the distinct Arrow buffers
// reachable from rec's columns.
func recordBytes(rec arrow.RecordBatch) int64 {
	seen := make(map[*memory.Buffer]struct{})
	var n int64
	var walk func(d arrow.ArrayData)
	walk = func(d arrow.ArrayData) {
		if d == nil {
			return
		}
		for _, b := range d.Buffers() {
			if b == nil {
				continue
			}
			if _, dup := seen[b]; dup {
				continue
			}
			seen[b] = struct{}{}
			n += int64(b.Len())
		}
		for _, c := range d.Children() {
			walk(c)
		}
		if d.DataType().ID() == arrow.DICTIONARY {
			walk(d.Dictionary())
		}
	}
	for _, c := range rec.Columns() {
		walk(c.Data())
	}
	return n
}

// SealForCommit implements realtime.Store: under the lock (O(1) work) the
// building batches become a sealed segment and the building segment starts
// empty. It returns nil, nil when the building segment holds no batch, and
// realtime.ErrClosed after Close.
func (s *store) SealForCommit(ctx context.Context) (realtime.Segment, error) {
	if err := ctx.Err(); err != nil {
		return nil, err
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.closed {
		return nil, fmt.Errorf("%w: seal of a closed store", realtime.ErrClosed)
	}
	if len(s.building) == 0 {
		return nil, nil
	}
	g := &segment{
		owner:   s,
		entries: s.building,
		rng:     progress.Range{Begin: s.building[0].rng.Begin, End: s.building[len(s.building)-1].rng.End},
		rows:    s.usage.BuildingRows,
		bytes:   s.usage.BuildingBytes,
	}
	s.building = nil
	s.sealed = append(s.sealed, g)
	s.usage.SealedRows += g.rows
	s.usage.SealedBytes += g.bytes
	s.usage.BuildingRows, s.usage.BuildingBytes = 0, 0
	return g, nil
}

// AcquireReadView implements realtime.Store: under the lock it takes a
// reference to every sealed and building batch (O(batches)). The view's
// batches are in offset order. realtime.ErrClosed after Close.
func (s *store) AcquireReadView(ctx context.Context) (realtime.ReadView, error) {
	if err := ctx.Err(); err != nil {
		return nil, err
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.closed {
		return nil, fmt.Errorf("%w: read view of a closed store", realtime.ErrClosed)
	}
	n := len(s.building)
	for _, g := range s.sealed {
		n += len(g.entries)
	}
	v := &view{owner: s, entries: make([]*entry, 0, n)}
	for _, g := range s.sealed {
		v.entries = append(v.entries, g.entries...)
	}
	v.entries = append(v.entries, s.building...)
	for _, e := range v.entries {
		e.rec.Retain()
	}
	if n > 0 {
		v.rng = progress.Range{Begin: v.entries[0].rng.Begin, End: v.entries[n-1].rng.End}
	}
	return v, nil
}

// AdvanceCommittedOffset implements realtime.Store. When end exceeds every
// end given before, the store drops its reference to each sealed segment
// whose Range.End <= end and to each building batch (a prefix of them) whose
// Range.End <= end, and raises the next expected offset to at least end, so
// later writes below end fail. Dropped batches stay alive while views or
// running readers hold them. A lower or repeated end, or a closed store,
// changes nothing. It never fails except for a canceled ctx.
func (s *store) AdvanceCommittedOffset(ctx context.Context, end int64) error {
	if err := ctx.Err(); err != nil {
		return err
	}
	var drop []*entry
	s.mu.Lock()
	if s.closed || end <= s.committed {
		s.mu.Unlock()
		return nil
	}
	s.committed = end
	s.next = max(s.next, end)
	kept := s.sealed[:0]
	for _, g := range s.sealed {
		if g.rng.End <= end {
			g.reclaimed = true
			drop = append(drop, g.entries...)
			s.usage.SealedRows -= g.rows
			s.usage.SealedBytes -= g.bytes
			continue
		}
		kept = append(kept, g)
	}
	clear(s.sealed[len(kept):])
	s.sealed = kept
	i := 0
	for i < len(s.building) && s.building[i].rng.End <= end {
		e := s.building[i]
		drop = append(drop, e)
		s.usage.BuildingRows -= e.rows
		s.usage.BuildingBytes -= e.bytes
		i++
	}
	if i > 0 {
		s.building = append([]*entry(nil), s.building[i:]...)
	}
	s.mu.Unlock()
	for _, e := range drop {
		e.rec.Release()
	}
	return nil
}

// ClipsVisible implements realtime.ClipsVisible: QueryReaders yields only
// rows whose offsets lie in a non-empty Query.Visible.
func (s *store) ClipsVisible() bool { return true }

// Usage implements realtime.Store: bytes (see the package comment) and rows
// of the building batches and of the sealed, not reclaimed segments, read
// under the lock. All zero after Close.
func (s *store) Usage() realtime.Usage {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.usage
}

// Close implements realtime.Store: it drops the store's references to every
// batch; sealed segments count as reclaimed. Views acquired before stay
// valid until released. Closing twice is a no-op.
func (s *store) Close() error {
	s.mu.Lock()
	if s.closed {
		s.mu.Unlock()
		return nil
	}
	s.closed = true
	drop := append([]*entry(nil), s.building...)
	for _, g := range s.sealed {
		g.reclaimed = true
		drop = append(drop, g.entries...)
	}
	s.building, s.sealed, s.usage = nil, nil, realtime.Usage{}
	s.mu.Unlock()
	for _, e := range drop {
		e.rec.Release()
	}
	return nil
}
