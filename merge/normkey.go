package merge

import (
	"encoding/binary"
	"math"
)

// Normalized keys.
//
// Almost all the merge's work is comparing keys: the heap orders the run
// cursors by key, and every record is compared with its neighbour and with
// the runner-up run to find keys with several records and stretches that pass
// through. Comparing composite keys column by column (a switch on the column
// class, a bytes.Compare call per string) costs tens of nanoseconds. So each
// batch, when it is loaded, gets for every row a normKey: the first
// normKeyBytes bytes of an order-preserving byte encoding of the whole key,
// held as two big-endian uint64. Comparing two keys is then one or two
// integer comparisons; only when the prefixes are equal and one of the keys
// did not fit (or has a null) does the comparison fall back to
// Merger.cmpKeys. The fallback keeps the ordering exactly the one of
// compareAt / compareNullable (Java's), whatever the keys look like.
//
// The encoding of a key is the concatenation of its columns' encodings, in
// key order:
//   - integers and temporals (8 to 64 bit): big-endian two's complement with
//     the sign bit flipped;
//   - booleans: one byte, 0 or 1;
//   - floats (float32 widened, exactly, to float64): the IEEE bits of Java's
//     Double.doubleToLongBits (NaN canonical), with all bits flipped for
//     negative values and the sign bit flipped otherwise, which orders them
//     as Double.compare does (-0.0 < 0.0, NaN greatest);
//   - decimal128 (one scale per column): the 16-byte big-endian two's
//     complement with the sign bit flipped;
//   - fixed-size binary: the bytes as they are (all values have one width);
//   - strings and binaries: each byte, with 0x00 written as 0x01 0x00 and
//     0x01 as 0x01 0x01, then a 0x00 terminator. An unsigned byte-wise
//     comparison of the encodings orders the values as bytes.Compare does,
//     and no encoding is a prefix of another.
//
// Each column's encoding orders its values as compareAt does and the
// encodings of whole keys are prefix-free, so byte-wise comparison of whole
// encodings orders keys as cmpKeys does, and equal encodings mean equal
// keys. The prefix is the first normKeyBytes bytes, padded with zero bytes;
// truncating and zero padding keep the order weak: a < b implies prefix(a)
// <= prefix(b). Hence different prefixes decide the order, and equal prefixes
// decide equality when both keys are whole (their encoding fit completely).
//
// A null key column (possible only in hand-made input: Paimon's primary key
// columns are NOT NULL) ends the encoding: the rest of the prefix stays zero
// and the key is not whole. Zero bytes sort first, so such a prefix is at
// most that of any key that agrees on the columns before the null, as
// Java's nulls-first order requires; ties go to cmpKeys.
const normKeyBytes = 16

// normKey is the normalized key prefix of one row.
type normKey struct {
	hi, lo uint64 // bytes 0-7 and 8-15 of the prefix, big-endian
	whole  bool   // the key has no null and its encoding fits in the prefix
}

// cmpNorm compares two normalized keys. sure is false when the prefixes are
// equal but a key is not whole: the keys must then be compared in full.
func cmpNorm(x, y *normKey) (c int, sure bool) {
	switch {
	case x.hi != y.hi:
		if x.hi < y.hi {
			return -1, true
		}
		return 1, true
	case x.lo != y.lo:
		if x.lo < y.lo {
			return -1, true
		}
		return 1, true
	}
	return 0, x.whole && y.whole
}

// keyEncoder builds the normalized keys of batches. It keeps scratch space
// between batches; one belongs to each merge.
type keyEncoder struct {
	buf  []byte  // normKeyBytes per row
	pos  []uint8 // bytes written per row
	stop []bool  // the row's encoding has ended (null or prefix full)
}

// encode fills dst (len n) with the normalized keys of the n rows of keys,
// whose classes are cls. The key columns are encoded one after another over
// all rows, so the class switch stays out of the per-row loops.
func (e *keyEncoder) encode(dst []normKey, cls []class, keys []colView, n int) {
	if cap(e.buf) < n*normKeyBytes {
		e.buf = make([]byte, n*normKeyBytes)
		e.pos = make([]uint8, n)
		e.stop = make([]bool, n)
	}
	buf, pos, stop := e.buf[:n*normKeyBytes], e.pos[:n], e.stop[:n]
	clear(buf)
	clear(pos)
	clear(stop)
	for k := range keys {
		v := &keys[k]
		switch cls[k] {
		case clsI64:
			for i, x := range v.i64[:n] {
				e.putFixed(i, v, binary.BigEndian.AppendUint64(nil, uint64(x)^1<<63))
			}
		case clsI32:
			for i, x := range v.i32[:n] {
				e.putFixed(i, v, binary.BigEndian.AppendUint32(nil, uint32(x)^1<<31))
			}
		case clsI16:
			for i, x := range v.i16[:n] {
				e.putFixed(i, v, binary.BigEndian.AppendUint16(nil, uint16(x)^1<<15))
			}
		case clsI8:
			for i, x := range v.i8[:n] {
				e.putFixed(i, v, []byte{uint8(x) ^ 1<<7})
			}
		case clsBool:
			for i := range n {
				b := byte(0)
				if !v.isNull(i) && v.b.Value(i) {
					b = 1
				}
				e.putFixed(i, v, []byte{b})
			}
		case clsF32, clsF64:
			for i := range n {
				bits := uint64(javaDoubleBits(v.floatAt(i)))
				if bits&(1<<63) != 0 {
					bits = ^bits
				} else {
					bits ^= 1 << 63
				}
				e.putFixed(i, v, binary.BigEndian.AppendUint64(nil, bits))
			}
		case clsDec128:
			for i, x := range v.dec[:n] {
				b := binary.BigEndian.AppendUint64(nil, uint64(x.HighBits())^1<<63)
				e.putFixed(i, v, binary.BigEndian.AppendUint64(b, x.LowBits()))
			}
		case clsFixed:
			for i := range n {
				e.putFixed(i, v, v.bytesAt(i))
			}
		case clsBytes:
			for i := range n {
				if !stop[i] {
					e.putBytes(i, v, v.data[v.offs[i]:v.offs[i+1]])
				}
			}
		case clsLBytes:
			for i := range n {
				if !stop[i] {
					e.putBytes(i, v, v.data[v.loffs[i]:v.loffs[i+1]])
				}
			}
		default:
			// Not reached: NewMerger accepts comparable key classes only.
			// Leave every prefix as it is and let cmpKeys decide.
			clear(stop[:0])
			for i := range n {
				stop[i] = true
			}
			for i := range dst {
				dst[i] = normKey{}
			}
		}
	}
	for i := range dst[:n] {
		p := buf[i*normKeyBytes : (i+1)*normKeyBytes]
		dst[i] = normKey{
			hi:    binary.BigEndian.Uint64(p[:8]),
			lo:    binary.BigEndian.Uint64(p[8:]),
			whole: !stop[i],
		}
	}
}

// putFixed appends the fixed-width encoding val of row i of column v to the
// row's prefix; a null ends the row's encoding, and so does a value that
// does not fit completely.
func (e *keyEncoder) putFixed(i int, v *colView, val []byte) {
	if e.stop[i] {
		return
	}
	if v.nulls && v.isNull(i) {
		e.stop[i] = true
		return
	}
	p := int(e.pos[i])
	n := copy(e.buf[i*normKeyBytes+p:(i+1)*normKeyBytes], val)
	e.pos[i] = uint8(p + n)
	if n < len(val) {
		e.stop[i] = true
	}
}

// putBytes appends the escaped, terminated encoding of the string or binary
// s (row i of column v) to the row's prefix.
func (e *keyEncoder) putBytes(i int, v *colView, s []byte) {
	if v.nulls && v.isNull(i) {
		e.stop[i] = true
		return
	}
	dst := e.buf[i*normKeyBytes : (i+1)*normKeyBytes]
	p := int(e.pos[i])
	for _, c := range s {
		if c <= 1 {
			if p == normKeyBytes {
				e.stop[i] = true
				return
			}
			dst[p] = 1
			p++
		}
		if p == normKeyBytes {
			e.stop[i] = true
			return
		}
		dst[p] = c
		p++
	}
	if p == normKeyBytes { // no room for the terminator
		e.stop[i] = true
		return
	}
	e.pos[i] = uint8(p + 1) // the terminator 0x00 is already there
}

// javaFloatKeyBits is the order-preserving unsigned form of a float key.
var _ = math.Float64bits
