package deletionvector

import (
	"fmt"
	"iter"
	"math"
	"slices"
)

const (
	// MaxPosition32 is the largest row position a 32-bit deletion vector
	// holds (Java RoaringBitmap32.MAX_VALUE, Integer.MAX_VALUE).
	MaxPosition32 = math.MaxInt32

	// MaxPosition64 is the largest row position a 64-bit deletion vector
	// holds (Java OptimizedRoaringBitmap64.MAX_VALUE: key
	// Integer.MAX_VALUE-1, low 32 bits 0x80000000).
	MaxPosition64 = int64(math.MaxInt32-1)<<32 | 0x80000000
)

// DeletionVector is the set of deleted row positions of one data file (Java
// DeletionVector). It is either 32-bit (Java BitmapDeletionVector, the
// default) or 64-bit (Java Bitmap64DeletionVector, table option
// deletion-vectors.bitmap64); the two differ only in range and encoding.
//
// The zero value is an empty 32-bit vector. Methods that only read may run
// concurrently; Delete and [Encode] (which, like Java's serializeTo,
// run-optimizes the vector in place) must not run concurrently with any
// other method.
type DeletionVector struct {
	is64 bool
	b32  bitmap32 // 32-bit: the single RoaringBitmap
	// 64-bit (Java OptimizedRoaringBitmap64): the non-empty bitmaps by key
	// (high 32 bits of the position), ascending, and Java's bitmap array
	// length: keys 0..count-1 are written, empty ones included.
	parts []part
	count int
}

// part is the bitmap of one key of a 64-bit deletion vector.
type part struct {
	key uint32
	b   bitmap32
}

// New returns an empty deletion vector: 64-bit if bitmap64 (table option
// deletion-vectors.bitmap64), else 32-bit.
func New(bitmap64 bool) *DeletionVector {
	return &DeletionVector{is64: bitmap64}
}

// Bitmap64 reports whether dv is a 64-bit vector (Java
// Bitmap64DeletionVector), encoded with the 64-bit magic number.
func (dv *DeletionVector) Bitmap64() bool { return dv != nil && dv.is64 }

// Delete marks the row at position pos (0-based row number in the data
// file) as deleted (Java DeletionVector.delete). Deleting a deleted row
// changes nothing.
//
// Errors: ErrPosition if pos < 0 or pos > MaxPosition32 (32-bit) /
// MaxPosition64 (64-bit).
func (dv *DeletionVector) Delete(pos int64) error {
	if !dv.inRange(pos) {
		return dv.positionError(pos)
	}
	if !dv.is64 {
		dv.b32.add(uint32(pos))
		return nil
	}
	key := uint32(pos >> 32)
	i, found := dv.find(key)
	if !found {
		dv.parts = slices.Insert(dv.parts, i, part{key: key})
	}
	dv.parts[i].b.add(uint32(pos))
	dv.count = max(dv.count, int(key)+1)
	return nil
}

// IsDeleted reports whether the row at position pos is deleted (Java
// DeletionVector.isDeleted). Positions the vector cannot hold (see Delete)
// are never deleted. A nil vector deletes nothing.
func (dv *DeletionVector) IsDeleted(pos int64) bool {
	if dv == nil || !dv.inRange(pos) {
		return false
	}
	if !dv.is64 {
		return dv.b32.contains(uint32(pos))
	}
	i, found := dv.find(uint32(pos >> 32))
	return found && dv.parts[i].b.contains(uint32(pos))
}

// Cardinality returns the number of deleted rows (Java getCardinality; the
// _CARDINALITY of the manifest's DeletionVectorMeta).
func (dv *DeletionVector) Cardinality() int64 {
	if dv == nil {
		return 0
	}
	if !dv.is64 {
		return int64(dv.b32.cardinality())
	}
	var n uint64
	for _, p := range dv.parts {
		n += p.b.cardinality()
	}
	return int64(n)
}

// IsEmpty reports whether no row is deleted (Java isEmpty).
func (dv *DeletionVector) IsEmpty() bool { return dv.Cardinality() == 0 }

// All yields the deleted positions in ascending order (Java
// forEachDeletedPosition).
func (dv *DeletionVector) All() iter.Seq[int64] {
	return func(yield func(int64) bool) {
		if dv == nil {
			return
		}
		each := func(high int64, b *bitmap32) bool {
			if b.bm == nil {
				return true
			}
			it := b.bm.Iterator()
			for it.HasNext() {
				if !yield(high<<32 | int64(it.Next())) {
					return false
				}
			}
			return true
		}
		if !dv.is64 {
			each(0, &dv.b32)
			return
		}
		for i := range dv.parts {
			if !each(int64(dv.parts[i].key), &dv.parts[i].b) {
				return
			}
		}
	}
}

func (dv *DeletionVector) inRange(pos int64) bool {
	if dv.is64 {
		return pos >= 0 && pos <= MaxPosition64
	}
	return pos >= 0 && pos <= MaxPosition32
}

// find returns the index of key's part in dv.parts, or where to insert it.
func (dv *DeletionVector) find(key uint32) (int, bool) {
	return slices.BinarySearchFunc(dv.parts, key, func(p part, k uint32) int {
		switch {
		case p.key < k:
			return -1
		case p.key > k:
			return 1
		}
		return 0
	})
}

// positionError returns the error of Delete for a position out of range.
func (dv *DeletionVector) positionError(pos int64) error {
	if dv.is64 {
		return fmt.Errorf("deletionvector: delete position %d: %w of a 64-bit deletion vector (0..%d)", pos, ErrPosition, int64(MaxPosition64))
	}
	return fmt.Errorf("deletionvector: delete position %d: %w of a 32-bit deletion vector (0..%d)", pos, ErrPosition, MaxPosition32)
}
