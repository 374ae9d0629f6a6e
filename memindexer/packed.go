package memindexer

import (
	"math"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"
	"github.com/apache/arrow-go/v18/arrow/memory"

	"github.com/paimon-go/paimon/realtime"
)

// Transport columns of a primary-key store (Factory.Create checks them).
const (
	kindCol = 0 // realtime.KindColumn
	seqCol  = 1 // realtime.SequenceColumn
)

// packed is an Int64 transport column held as a base plus 2- or 4-byte
// deltas per row, or as no bytes at all when its values are base, base+1,
// ... (the offsets of an append batch). Rows of one batch have offsets and
// sequence numbers from a narrow range (a batch of n rows without
// application offsets spans n of each), so 8 bytes per value are mostly
// zeros; a primary-key batch, sorted by key, holds a permutation of them.
type packed struct {
	base int64
	u16  []uint16 // value i is base + u16[i]
	u32  []uint32 // value i is base + u32[i]
	// Both nil: value i is base + i.
}

// pack packs v; false when its values span 2^32 or more.
func pack(v []int64) (packed, bool) {
	if len(v) == 0 {
		return packed{}, true
	}
	lo, hi := v[0], v[0]
	for _, x := range v {
		lo, hi = min(lo, x), max(hi, x)
	}
	// hi - lo overflows int64 for a span beyond 2^63: take it in uint64.
	span := uint64(hi) - uint64(lo)
	if span > math.MaxUint32 {
		return packed{}, false
	}
	// Within a span below 2^32, differences of values are exact.
	step := true
	for i, x := range v {
		if x-v[0] != int64(i) {
			step = false
			break
		}
	}
	if step {
		return packed{base: v[0]}, true
	}
	if span <= math.MaxUint16 {
		d := make([]uint16, len(v))
		for i, x := range v {
			d[i] = uint16(x - lo)
		}
		return packed{base: lo, u16: d}, true
	}
	d := make([]uint32, len(v))
	for i, x := range v {
		d[i] = uint32(x - lo)
	}
	return packed{base: lo, u32: d}, true
}

// at returns value i.
func (p *packed) at(i int) int64 {
	switch {
	case p.u16 != nil:
		return p.base + int64(p.u16[i])
	case p.u32 != nil:
		return p.base + int64(p.u32[i])
	}
	return p.base + int64(i)
}

// fill sets dst[i] to value lo+i.
func (p *packed) fill(dst []int64, lo int) {
	switch {
	case p.u16 != nil:
		for i, d := range p.u16[lo : lo+len(dst)] {
			dst[i] = p.base + int64(d)
		}
	case p.u32 != nil:
		for i, d := range p.u32[lo : lo+len(dst)] {
			dst[i] = p.base + int64(d)
		}
	default:
		for i := range dst {
			dst[i] = p.base + int64(lo+i)
		}
	}
}

// size is the bytes of p's deltas.
func (p *packed) size() int64 { return int64(2*len(p.u16) + 4*len(p.u32)) }

// sameDeltas reports whether q's deltas are p's (the sequence numbers of a
// primary-key batch follow its offsets: both are the rows' input positions
// plus a base), so that q can share p's slice.
func sameDeltas(p packed, v []int64) bool {
	d := v[0] - p.at(0)
	for i, x := range v {
		if x-p.at(i) != d {
			return false
		}
	}
	return true
}

// packSystem drops from rec the system columns it can hold in packed form:
// the offset column (and for primary keys the sequence number column) when
// their values span less than 2^32, and the kind column when every row is
// an INSERT (0). It returns the record of the columns kept (a new
// reference), each transport column's index in it (-1: packed), the packed
// columns with their bytes (a shared delta slice counted once) and, for a
// packed kind column, the zeros its reads slice.
func (s *store) packSystem(rec arrow.RecordBatch, offs []int64) (kept arrow.RecordBatch, cols []int, off, seq packed, zeros *memory.Buffer, size int64) {
	n := int(rec.NumCols())
	drop := make([]bool, n)
	var ok bool
	if off, ok = pack(offs); ok {
		drop[s.offsetCol] = true
		size += off.size()
	}
	if s.mode == realtime.PrimaryKey {
		seqs := rec.Column(seqCol).(*array.Int64).Int64Values()
		if drop[s.offsetCol] && sameDeltas(off, seqs) {
			seq = packed{base: off.base + seqs[0] - off.at(0), u16: off.u16, u32: off.u32}
			drop[seqCol] = true
		} else if seq, ok = pack(seqs); ok {
			drop[seqCol] = true
			size += seq.size()
		}
		if drop[kindCol] = allZero(rec.Column(kindCol).(*array.Int8).Int8Values()); drop[kindCol] {
			zeros = s.zerosFor(int(rec.NumRows()))
		}
	}
	sc, cols := s.keptLayout(drop)
	arrs := make([]arrow.Array, 0, sc.NumFields())
	for i, k := range cols {
		if k >= 0 {
			arrs = append(arrs, rec.Column(i))
		}
	}
	return array.NewRecordBatch(sc, arrs, rec.NumRows()), cols, off, seq, zeros, size
}

// keptLayout returns the schema of the columns drop keeps and each
// transport column's index among them (-1: dropped). Only the system
// columns (the first s.fixedCols) are ever dropped, so a store has at most
// 2^fixedCols layouts; each is built once and shared by the batches.
func (s *store) keptLayout(drop []bool) (*arrow.Schema, []int) {
	var key int
	for i := range s.fixedCols {
		if drop[i] {
			key |= 1 << i
		}
	}
	s.zmu.Lock()
	defer s.zmu.Unlock()
	if l := s.layouts[key]; l.schema != nil {
		return l.schema, l.cols
	}
	cols := make([]int, len(drop))
	var fields []arrow.Field
	for i := range drop {
		if drop[i] {
			cols[i] = -1
			continue
		}
		cols[i] = len(fields)
		fields = append(fields, s.schema.Field(i))
	}
	md := s.schema.Metadata()
	l := keptLayout{schema: arrow.NewSchema(fields, &md), cols: cols}
	s.layouts[key] = l
	return l.schema, l.cols
}

// keptLayout is a schema of the columns a batch keeps, with each transport
// column's index in it (-1: packed). cols is shared and never written.
type keptLayout struct {
	schema *arrow.Schema
	cols   []int
}

// zerosFor returns a buffer of at least n zero bytes, shared by the store's
// batches of INSERT rows as their kind column's values. It is Go memory
// (not the request's allocator), grown by doubling, never written after it
// is made, and not counted in Usage.
func (s *store) zerosFor(n int) *memory.Buffer {
	s.zmu.Lock()
	defer s.zmu.Unlock()
	if s.zeros == nil || s.zeros.Len() < n {
		size := 1024
		if s.zeros != nil {
			size = 2 * s.zeros.Len()
		}
		s.zeros = memory.NewBufferBytes(make([]byte, max(size, n)))
	}
	return s.zeros
}

func allZero(v []int8) bool {
	for _, x := range v {
		if x != 0 {
			return false
		}
	}
	return true
}

// offsetAt returns the offset of row i.
func (e *entry) offsetAt(i int) int64 {
	if e.offsets != nil {
		return e.offsets[i]
	}
	return e.off.at(i)
}

// packedOf returns the packed form of transport column c (the offset or
// the sequence number column, packed).
func (e *entry) packedOf(c int) *packed {
	if e.pk && c == seqCol {
		return &e.seq
	}
	return &e.off
}

// column returns rows [lo, hi) of transport column c as a new reference:
// a slice of the stored column, or the packed values written out into a
// new array allocated from mem.
func (e *entry) column(mem memory.Allocator, c int, lo, hi int) arrow.Array {
	if k := e.cols[c]; k >= 0 {
		a := e.rec.Column(k)
		if lo == 0 && hi == a.Len() {
			a.Retain()
			return a
		}
		return array.NewSlice(a, int64(lo), int64(hi))
	}
	n := hi - lo
	var d arrow.ArrayData
	if e.pk && c == kindCol {
		// INSERT rows: a slice of the store's shared zeros, never written.
		d = array.NewData(arrow.PrimitiveTypes.Int8, n, []*memory.Buffer{nil, e.zeros}, nil, 0, 0)
	} else {
		buf := memory.NewResizableBuffer(mem)
		buf.Resize(8 * n)
		e.packedOf(c).fill(arrow.Int64Traits.CastFromBytes(buf.Bytes()), lo)
		d = array.NewData(arrow.PrimitiveTypes.Int64, n, []*memory.Buffer{nil, buf}, nil, 0, 0)
		buf.Release()
	}
	a := array.MakeFromData(d)
	d.Release()
	return a
}

// record returns rows [lo, hi) of transport columns cols as a record of
// schema sc (a new reference).
func (e *entry) record(mem memory.Allocator, sc *arrow.Schema, cols []int, lo, hi int) arrow.RecordBatch {
	arrs := make([]arrow.Array, len(cols))
	for i, c := range cols {
		arrs[i] = e.column(mem, c, lo, hi)
	}
	rec := array.NewRecordBatch(sc, arrs, int64(hi-lo))
	for _, a := range arrs {
		a.Release()
	}
	return rec
}

// int64At returns row i of an Int64 system column c (offset or sequence
// number), packed or not.
func (e *entry) int64At(c, i int) int64 {
	if k := e.cols[c]; k >= 0 {
		return e.rec.Column(k).(*array.Int64).Value(i)
	}
	return e.packedOf(c).at(i)
}

// kindAt returns row i of the kind column.
func (e *entry) kindAt(i int) int8 {
	if k := e.cols[kindCol]; k >= 0 {
		return e.rec.Column(k).(*array.Int8).Value(i)
	}
	return 0
}
