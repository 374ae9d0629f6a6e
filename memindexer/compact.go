package memindexer

import (
	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"
	"github.com/apache/arrow-go/v18/arrow/memory"
)

// DefaultCompactRatio is the CompactRatio a zero Factory uses.
const DefaultCompactRatio = 1.5

// minCompactSlack is the least slack (bytes of buffer capacity beyond what a
// column's rows need) that makes a column worth copying: below it the copy
// saves less than the allocator's own rounding.
const minCompactSlack = 4 << 10

// compact returns rec, or a new record in which every flat column whose
// buffers pin more than ratio times the bytes its rows need (and at least
// minCompactSlack more) is replaced by an exact-size copy from mem. Such
// slack comes from builders and readers that grow buffers by doubling (the
// Parquet reader's Int64 columns hold twice their length) and from small
// slices of large records. The second result reports whether a copy was
// made; the caller owns a new record, not rec. Columns whose size cannot be
// estimated (nested, dictionary, view types) are never copied, and a copy
// that fails keeps the original column.
func compact(rec arrow.RecordBatch, ratio float64, mem memory.Allocator) (arrow.RecordBatch, bool) {
	if ratio <= 0 {
		return rec, false
	}
	var cols []arrow.Array
	for i, c := range rec.Columns() {
		need, ok := rawBytes(c)
		if !ok {
			continue
		}
		held := heldBytes(c.Data())
		if float64(held) <= ratio*float64(need) || held-need < minCompactSlack {
			continue
		}
		cp, err := array.Concatenate([]arrow.Array{c}, mem)
		if err != nil {
			continue
		}
		if cols == nil {
			cols = make([]arrow.Array, rec.NumCols())
		}
		cols[i] = cp
	}
	if cols == nil {
		return rec, false
	}
	for i, c := range rec.Columns() {
		if cols[i] == nil {
			c.Retain()
			cols[i] = c
		}
	}
	out := array.NewRecordBatch(rec.Schema(), cols, rec.NumRows())
	for _, c := range cols {
		c.Release()
	}
	return out, true
}

// rawBytes is the size of a's rows in Arrow's layout without slack (a
// validity bitmap only when a has nulls; fixed-width values; 4- or 8-byte
// offsets plus the referenced bytes for strings and binaries); false for
// types it does not estimate.
func rawBytes(a arrow.Array) (int64, bool) {
	n := int64(a.Len())
	var size int64
	if a.NullN() > 0 {
		size += (n + 7) / 8
	}
	switch c := a.(type) {
	case *array.String:
		o := c.ValueOffsets()
		return size + 4*(n+1) + int64(o[len(o)-1]-o[0]), true
	case *array.Binary:
		o := c.ValueOffsets()
		return size + 4*(n+1) + int64(o[len(o)-1]-o[0]), true
	case *array.LargeString:
		o := c.ValueOffsets()
		return size + 8*(n+1) + (o[len(o)-1] - o[0]), true
	case *array.LargeBinary:
		o := c.ValueOffsets()
		return size + 8*(n+1) + (o[len(o)-1] - o[0]), true
	}
	if len(a.Data().Children()) > 0 || a.DataType().ID() == arrow.DICTIONARY {
		return 0, false
	}
	fw, ok := a.DataType().(arrow.FixedWidthDataType)
	if !ok {
		return 0, false
	}
	return size + (n*int64(fw.BitWidth())+7)/8, true
}

// heldBytes is the capacity of the distinct buffers reachable from d: the
// memory d keeps alive.
func heldBytes(d arrow.ArrayData) int64 {
	var n int64
	seen := make(map[*memory.Buffer]struct{}, 3)
	var walk func(d arrow.ArrayData)
	walk = func(d arrow.ArrayData) {
		for _, b := range d.Buffers() {
			if b == nil {
				continue
			}
			if _, dup := seen[b]; dup {
				continue
			}
			seen[b] = struct{}{}
			n += int64(cap(b.Buf()))
		}
		for _, c := range d.Children() {
			walk(c)
		}
	}
	walk(d)
	return n
}
