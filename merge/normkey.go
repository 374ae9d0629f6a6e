package merge

import (
	"encoding/binary"
	"slices"
)

// Normalized keys.
//
// Almost all the merge's work is comparing keys: the heap orders the run
// cursors by key, and every record is compared with its neighbour and with
// the runner-up run to find keys with several records and stretches that pass
// through. Comparing composite keys column by column (a switch on the column
// class, a bytes.Compare call per string) costs tens of nanoseconds. So each
// batch, when it is loaded, gets for every row a normalized key: the first
// normKeyBytes bytes of an order-preserving byte encoding of the whole key,
// held as two big-endian uint64 (normKey). Comparing two keys is then one or
// two integer comparisons; only when the prefixes are equal and one of the
// keys did not fit (or has a null) does the comparison fall back to
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

// normKey is the normalized key prefix of one row: bytes 0-7 and 8-15,
// big-endian.
type normKey struct{ hi, lo uint64 }

// cmp compares two prefixes; 0 means equal prefixes, which decides equality
// of the keys only when both are whole.
func (x normKey) cmp(y normKey) int {
	switch {
	case x.hi != y.hi:
		if x.hi < y.hi {
			return -1
		}
		return 1
	case x.lo != y.lo:
		if x.lo < y.lo {
			return -1
		}
		return 1
	}
	return 0
}

// normKeys are the normalized keys of the rows of one batch, stored column
// by column so that keys of at most 8 encoded bytes (integer keys) cost 8
// bytes per row.
type normKeys struct {
	hi []uint64 // prefix bytes 0-7 of each row
	lo []uint64 // prefix bytes 8-15 of each row; nil when the merger's keys never reach them (all zero)
	// partial marks the rows whose key is not whole (a null key column, or
	// an encoding longer than the prefix); nil when every row is whole.
	partial []bool
}

// wideKey reports whether keys of the classes cls may encode to more than 8
// bytes, so that normKeys need their lo words.
func wideKey(cls []class) bool {
	width := 0
	for _, c := range cls {
		w := fixedWidth(c)
		if w < 0 {
			return true
		}
		width += w
	}
	return width > 8
}

// at returns the prefix of row i and whether the row's key is whole.
func (k *normKeys) at(i int) (normKey, bool) {
	var lo uint64
	if k.lo != nil {
		lo = k.lo[i]
	}
	return normKey{hi: k.hi[i], lo: lo}, k.partial == nil || !k.partial[i]
}

// keyEncoder builds the normalized keys of batches, keeping scratch space
// between batches; each merge has its own.
type keyEncoder struct {
	pos  []uint8 // per row: bytes of the prefix written so far
	stop []bool  // per row: the encoding has ended (a null, or the prefix is full)
}

// encode fills dst.hi and dst.lo (of the batch's length, any contents; lo
// may be nil when no encoding reaches byte 8) with the normalized keys of the
// key columns keys, whose classes are cls, and sets dst.partial.
//
// The columns are encoded one after another over all rows, so the class
// switch stays out of the per-row loops. While the columns so far all have
// fixed widths and no nulls in this batch, every row's encoding has the same
// length and a column's values are placed at one offset for all rows; after
// that the encoder keeps one offset per row.
func (e *keyEncoder) encode(dst *normKeys, cls []class, keys []colView) {
	n := len(dst.hi)
	// Zero the prefixes, except the first word where a BIGINT (or other
	// int64-stored) first key column overwrites it.
	if len(keys) == 0 || cls[0] != clsI64 || keys[0].nulls {
		clear(dst.hi)
	}
	clear(dst.lo)
	p := 0 // common offset of all rows while pos is nil
	var pos []uint8
	var stop []bool
	for k := range keys {
		v := &keys[k]
		w := fixedWidth(cls[k])
		if pos == nil && (w < 0 || v.nulls || p+w > normKeyBytes) {
			if cap(e.pos) < n {
				e.pos, e.stop = make([]uint8, n), make([]bool, n)
			}
			pos, stop = e.pos[:n], e.stop[:n]
			for i := range pos {
				pos[i] = uint8(p)
			}
			clear(stop)
		}
		if pos == nil {
			placeColumn(dst, cls[k], v, p, w)
			p += w
			continue
		}
		switch cls[k] {
		case clsBytes:
			e.putStrings(dst, v)
		case clsI64:
			e.putInt64s(dst, v)
		default:
			for i := range n {
				if !stop[i] {
					e.putRow(dst, i, cls[k], v)
				}
			}
		}
	}
	dst.partial = nil
	if pos != nil && slices.Contains(stop, true) {
		dst.partial = slices.Clone(stop)
	}
}

// putRow encodes row i of column v (class cls) into the prefix of row i at
// the row's offset, ending the row's encoding at a null or when the value
// does not fit.
func (e *keyEncoder) putRow(dst *normKeys, i int, cls class, v *colView) {
	if v.nulls && v.isNull(i) {
		e.stop[i] = true
		return
	}
	var nk normKey
	nk.hi = dst.hi[i]
	if dst.lo != nil {
		nk.lo = dst.lo[i]
	}
	end, ok := nk.putValue(int(e.pos[i]), cls, v, i)
	dst.hi[i] = nk.hi
	if dst.lo != nil {
		dst.lo[i] = nk.lo
	}
	e.pos[i], e.stop[i] = uint8(min(end, normKeyBytes)), !ok
}

// putStrings is putRow over a whole clsBytes column, with a fast path for
// strings of at most 8 bytes that fit the prefix with their terminator and
// need no escapes (keys such as codes and short names).
func (e *keyEncoder) putStrings(dst *normKeys, v *colView) {
	n := len(dst.hi)
	pos, stop := e.pos[:n], e.stop[:n]
	offs, data := v.offs[:n+1], v.data
	for i := range n {
		if stop[i] {
			continue
		}
		if !v.nulls {
			x, w, ok := shortString(data, int(offs[i]), int(offs[i+1]))
			if p := int(pos[i]); ok && p+w < normKeyBytes {
				dst.place(i, p, x, w)
				pos[i] = uint8(p + w + 1) // the terminator 0x00 is in place
				continue
			}
		}
		e.putRow(dst, i, clsBytes, v)
	}
}

// shortString returns data[from:to] as a big-endian number when it has at
// most 8 bytes, none of them 0x00 or 0x01 (which the encoding escapes).
func shortString(data []byte, from, to int) (x uint64, w int, ok bool) {
	w = to - from
	if w > 8 || w < 0 {
		return 0, 0, false
	}
	if from+8 <= len(data) {
		// Load 8 bytes and keep the w first; check them all at once: set the
		// bytes above the string to 0xff, clear bit 0 of every byte, and
		// look for a zero byte.
		x = binary.BigEndian.Uint64(data[from:]) >> (8 * (8 - w)) // 0 for w == 0
		y := (x | ^uint64(0)<<(8*w)) & 0xfefefefefefefefe
		return x, w, (y-0x0101010101010101)&^y&0x8080808080808080 == 0
	}
	for _, c := range data[from:to] {
		if c <= 1 {
			return 0, 0, false
		}
		x = x<<8 | uint64(c)
	}
	return x, w, true
}

// putInt64s is putRow over a whole clsI64 column, with a fast path for
// values that fit the prefix.
func (e *keyEncoder) putInt64s(dst *normKeys, v *colView) {
	n := len(dst.hi)
	pos, stop := e.pos[:n], e.stop[:n]
	for i, x := range v.i64[:n] {
		if stop[i] {
			continue
		}
		if p := int(pos[i]); p+8 <= normKeyBytes && !v.nulls {
			dst.place(i, p, uint64(x)^1<<63, 8)
			pos[i] = uint8(p + 8)
			continue
		}
		e.putRow(dst, i, clsI64, v)
	}
}

// fixedWidth is the length of the encoding of every value of class c, or
// -1 for strings and binaries (and fixed-size binaries, which are encoded
// row by row as well).
func fixedWidth(c class) int {
	switch c {
	case clsBool, clsI8:
		return 1
	case clsI16:
		return 2
	case clsI32:
		return 4
	case clsI64, clsF32, clsF64:
		return 8
	case clsDec128:
		return 16
	}
	return -1
}

// placer ORs values of w <= 8 bytes into the prefixes at one offset p, with
// shifts computed once per column: such a value ending at byte end = p+w <=
// 16 of the prefix is the 128-bit number x << (8*(16-end)). Go defines shifts
// by 64 or more to give 0, so no case needs a branch.
type placer struct {
	a, b, sh uint
	hi, lo   []uint64 // lo nil when the value stays within bytes 0-7
}

func placerAt(dst *normKeys, p, w int) placer {
	pl := placer{sh: uint(8 * (normKeyBytes - p - w)), hi: dst.hi, lo: dst.lo}
	if pl.sh >= 64 {
		pl.a, pl.lo = pl.sh-64, nil
	} else {
		pl.b = 64 - pl.sh
	}
	return pl
}

func (pl *placer) put(i int, x uint64) {
	pl.hi[i] |= x << pl.a >> pl.b
	if pl.lo != nil {
		pl.lo[i] |= x << pl.sh
	}
}

// placeColumn encodes column v of class cls, which has no nulls in this
// batch and whose encoding has the fixed width w, at offset p of every row;
// p+w <= normKeyBytes.
func placeColumn(dst *normKeys, cls class, v *colView, p, w int) {
	n := len(dst.hi)
	pl := placerAt(dst, p, min(w, 8))
	switch cls {
	case clsI64:
		if p == 0 { // the value is the whole first word (not zeroed by encode)
			for i, x := range v.i64[:n] {
				dst.hi[i] = uint64(x) ^ 1<<63
			}
			return
		}
		for i, x := range v.i64[:n] {
			pl.put(i, uint64(x)^1<<63)
		}
	case clsI32:
		for i, x := range v.i32[:n] {
			pl.put(i, uint64(uint32(x)^1<<31))
		}
	case clsDec128:
		low := placerAt(dst, p+8, 8)
		for i, x := range v.dec[:n] {
			pl.put(i, uint64(x.HighBits())^1<<63)
			low.put(i, x.LowBits())
		}
	default: // narrower integers, booleans, floats
		for i := range n {
			pl.put(i, keyBits(cls, v, i))
		}
	}
}

// floatKeyBits maps a float key (float32 widened exactly) to an unsigned
// integer in Double.compare order: Java's doubleToLongBits (NaN canonical),
// all bits flipped for negative values, the sign bit flipped otherwise.
func floatKeyBits(f float64) uint64 {
	bits := uint64(javaDoubleBits(f))
	if bits&(1<<63) != 0 {
		return ^bits
	}
	return bits ^ 1<<63
}

// place ORs the w (<= 8) low bytes of x, big-endian, into the prefix of row
// i at byte offset p, where p+w <= normKeyBytes.
func (k *normKeys) place(i, p int, x uint64, w int) {
	sh := uint(8 * (normKeyBytes - p - w))
	if sh >= 64 {
		k.hi[i] |= x << (sh - 64)
		return
	}
	k.hi[i] |= x >> (64 - sh)
	k.lo[i] |= x << sh // lo exists: the key reaches byte 8
}

// keyBits is the encoding of the non-null row i of column v, of a class of
// fixed width <= 8.
func keyBits(cls class, v *colView, i int) uint64 {
	switch cls {
	case clsI64:
		return uint64(v.i64[i]) ^ 1<<63
	case clsI32:
		return uint64(uint32(v.i32[i]) ^ 1<<31)
	case clsI16:
		return uint64(uint16(v.i16[i]) ^ 1<<15)
	case clsI8:
		return uint64(uint8(v.i8[i]) ^ 1<<7)
	case clsBool:
		if v.b.Value(i) {
			return 1
		}
		return 0
	case clsF32, clsF64:
		return floatKeyBits(v.floatAt(i))
	}
	return 0
}

// put ORs the w (<= 8) low bytes of x, big-endian, into k at byte offset p
// and reports whether they all fit.
func (k *normKey) put(p int, x uint64, w int) bool {
	end := p + w
	switch {
	case end <= 8:
		k.hi |= x << (8 * (8 - end))
	case p >= normKeyBytes:
		return false
	case p >= 8 && end <= normKeyBytes:
		k.lo |= x << (8 * (normKeyBytes - end))
	case p >= 8:
		k.lo |= x >> (8 * (end - normKeyBytes))
		return false
	default: // straddles hi and lo; end <= 16 as w <= 8
		k.hi |= x >> (8 * (end - 8))
		k.lo |= x << (8 * (normKeyBytes - end))
	}
	return true
}

// putValue encodes the non-null row i of column v (class cls) into k at
// offset p. It returns the offset after the value and whether the value fit
// completely.
func (k *normKey) putValue(p int, cls class, v *colView, i int) (int, bool) {
	switch cls {
	case clsI64, clsI32, clsI16, clsI8, clsBool, clsF32, clsF64:
		w := fixedWidth(cls)
		return p + w, k.put(p, keyBits(cls, v, i), w)
	case clsDec128:
		x := v.dec[i]
		return p + 16, k.put(p, uint64(x.HighBits())^1<<63, 8) && k.put(p+8, x.LowBits(), 8)
	case clsFixed:
		for _, c := range v.bytesAt(i) {
			if !k.put(p, uint64(c), 1) {
				return p, false
			}
			p++
		}
		return p, true
	case clsBytes, clsLBytes:
		for _, c := range v.bytesAt(i) {
			if c <= 1 {
				if !k.put(p, 1, 1) {
					return p, false
				}
				p++
			}
			if !k.put(p, uint64(c), 1) {
				return p, false
			}
			p++
		}
		return p + 1, k.put(p, 0, 1) // the terminator
	}
	return p, false // not reached: NewMerger accepts ordered key classes only
}
