package writer

import (
	"cmp"
	"encoding/binary"
	"slices"
	"sync"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"
)

// normKeyBytes is the length of a normalized key.
const normKeyBytes = 16

// normKey is a row's normalized key: the first 16 bytes of an
// order-preserving byte encoding of its primary key (as big-endian words),
// and the row's index. Comparing two normalized keys as unsigned integers
// orders the rows as the comparator of keyComparator does, except that
// equal normalized keys may belong to different keys when the encoding was
// cut short (Java's NormalizedKeyComputer with a full-key comparator behind
// it).
type normKey struct {
	hi, lo uint64
	idx    int32
}

// normalizedKeys encodes the key columns of n rows. Column by column:
// integers, dates, times and timestamps as big-endian two's complement with
// the sign bit flipped, booleans as one byte, and strings and binaries padded
// with zero bytes to the longest value of the column followed by a length
// byte (which orders a proper prefix first). exact reports that every column
// fit, so that equal normalized keys mean equal keys; a column with nulls,
// of another type, or that does not fit ends the encoding.
func normalizedKeys(cols []arrow.Array, n int) (keys []normKey, exact bool) {
	return normalizedKeysInto(&sortScratch{}, cols, n)
}

// sortScratch holds the buffers of one sort, reused across sorts
// (scratchPool): a writer sorts every batch it buffers and every flush,
// and these buffers (about 64 bytes per row) were most of its allocations.
type sortScratch struct {
	buf       []byte
	keys, tmp []normKey
}

var scratchPool = sync.Pool{New: func() any { return &sortScratch{} }}

// grow returns s[:n], reallocated when its capacity is short.
func grow[T any](s []T, n int) []T {
	if cap(s) < n {
		return make([]T, n)
	}
	return s[:n]
}

// normalizedKeysInto is normalizedKeys into the buffers of sc.
func normalizedKeysInto(sc *sortScratch, cols []arrow.Array, n int) (keys []normKey, exact bool) {
	sc.buf = grow(sc.buf, normKeyBytes*n)
	buf := sc.buf
	clear(buf)
	off := 0
	exact = true
	for _, col := range cols {
		w, fits := encodeColumn(col, buf, off, n)
		off += w
		if !fits {
			exact = false
			break
		}
	}
	sc.keys = grow(sc.keys, n)
	keys = sc.keys
	for i := range keys {
		b := buf[i*normKeyBytes:]
		keys[i] = normKey{hi: binary.BigEndian.Uint64(b), lo: binary.BigEndian.Uint64(b[8:]), idx: int32(i)}
	}
	return keys, exact
}

// encodeColumn writes col's encoding for every row at byte off of the row's
// 16 bytes in buf and returns the bytes used and whether the column fit
// whole.
func encodeColumn(col arrow.Array, buf []byte, off, n int) (int, bool) {
	room := normKeyBytes - off
	if room <= 0 || col.NullN() > 0 {
		return 0, false
	}
	switch a := col.(type) {
	case *array.Int8:
		return encodeInts(a.Int8Values(), 1, buf, off, room)
	case *array.Int16:
		return encodeInts(a.Int16Values(), 2, buf, off, room)
	case *array.Int32:
		return encodeInts(a.Int32Values(), 4, buf, off, room)
	case *array.Int64:
		return encodeInts(a.Int64Values(), 8, buf, off, room)
	case *array.Date32:
		return encodeInts(a.Date32Values(), 4, buf, off, room)
	case *array.Time32:
		return encodeInts(a.Time32Values(), 4, buf, off, room)
	case *array.Timestamp:
		return encodeInts(a.TimestampValues(), 8, buf, off, room)
	case *array.Boolean:
		for i := range n {
			if a.Value(i) {
				buf[i*normKeyBytes+off] = 1
			}
		}
		return 1, true
	case *array.String:
		return encodeBytes(a.ValueOffsets(), a.ValueBytes(), buf, off, room)
	case *array.Binary:
		return encodeBytes(a.ValueOffsets(), a.ValueBytes(), buf, off, room)
	}
	return 0, false
}

type signedInt interface {
	~int8 | ~int16 | ~int32 | ~int64
}

func encodeInts[T signedInt](vals []T, width int, buf []byte, off, room int) (int, bool) {
	use := min(width, room)
	shift := 8 * (width - 1)
	sign := uint64(1) << (8*width - 1)
	for i, v := range vals {
		u := uint64(int64(v)) ^ sign
		b := buf[i*normKeyBytes+off:]
		for k := range use {
			b[k] = byte(u >> (shift - 8*k))
		}
	}
	return use, use == width
}

// encodeBytes encodes a string or binary column given by its value offsets
// (n+1 of them) and value bytes (starting at offs[0]).
func encodeBytes(offs []int32, data []byte, buf []byte, off, room int) (int, bool) {
	n := len(offs) - 1
	base := offs[0]
	longest := 0
	for i := range n {
		longest = max(longest, int(offs[i+1]-offs[i]))
	}
	whole := longest+1 <= room && longest <= 255
	for i := range n {
		v := data[offs[i]-base : offs[i+1]-base]
		b := buf[i*normKeyBytes+off : (i+1)*normKeyBytes]
		copy(b, v)
		if whole {
			b[longest] = byte(len(v))
		}
	}
	if whole {
		return longest + 1, true
	}
	return room, false
}

// sortPermutation returns the order of the rows of keyCols by key, equal
// keys in row order (a stable sort), or nil when the rows are already in
// that order. It sorts normalized keys with an LSD radix sort and orders
// rows whose normalized keys tie with the full comparator, unless the
// normalized keys are exact.
func sortPermutation(keyCols []arrow.Array, n int) ([]int32, error) {
	sc := scratchPool.Get().(*sortScratch)
	defer scratchPool.Put(sc)
	keys, exact := normalizedKeysInto(sc, keyCols, n)
	var full comparator
	if !exact {
		var err error
		if full, err = keyComparator(keyCols); err != nil {
			return nil, err
		}
	}
	compare := func(a, b normKey) int {
		if c := cmp.Compare(a.hi, b.hi); c != 0 {
			return c
		}
		if c := cmp.Compare(a.lo, b.lo); c != 0 {
			return c
		}
		if full != nil {
			if c := full(int(a.idx), int(b.idx)); c != 0 {
				return c
			}
		}
		return cmp.Compare(a.idx, b.idx)
	}
	if slices.IsSortedFunc(keys, compare) {
		return nil, nil
	}
	if n < radixMinRows {
		slices.SortFunc(keys, compare)
	} else {
		sc.tmp = grow(sc.tmp, n)
		keys = radixSortInto(keys, sc.tmp)
		if full != nil {
			// Rows with equal normalized keys, in row order after the
			// stable radix sort, ordered by their full keys.
			for i := 0; i < n; {
				j := i + 1
				for j < n && keys[j].hi == keys[i].hi && keys[j].lo == keys[i].lo {
					j++
				}
				if j-i > 1 {
					slices.SortFunc(keys[i:j], compare)
				}
				i = j
			}
		}
	}
	perm := make([]int32, n)
	for i, k := range keys {
		perm[i] = k.idx
	}
	return perm, nil
}

// radixMinRows is the least number of rows sorted by radix sort; fewer are
// sorted by comparison.
const radixMinRows = 512

// radixSortInto sorts keys by (hi, lo) with a stable least-significant-digit
// radix sort over the 16 bytes, skipping bytes that are equal in every key,
// with tmp (of len(keys)) as the second buffer. It returns the sorted keys
// (in keys or in tmp).
func radixSortInto(keys, tmp []normKey) []normKey {
	var counts [normKeyBytes][256]int
	for _, k := range keys {
		for b := range 8 {
			counts[b][byte(k.lo>>(8*b))]++
			counts[8+b][byte(k.hi>>(8*b))]++
		}
	}
	n := len(keys)
	src, dst := keys, tmp
	for d := range normKeyBytes {
		c := &counts[d]
		if c[digit(src[0], d)] == n {
			continue // every key has the same byte here
		}
		var pos [256]int
		sum := 0
		for v := range 256 {
			pos[v] = sum
			sum += c[v]
		}
		for _, k := range src {
			v := digit(k, d)
			dst[pos[v]] = k
			pos[v]++
		}
		src, dst = dst, src
	}
	return src
}

// digit is byte d of k's normalized key, counting from the least
// significant byte of lo (d = 0) to the most significant byte of hi (15).
func digit(k normKey, d int) byte {
	if d < 8 {
		return byte(k.lo >> (8 * d))
	}
	return byte(k.hi >> (8 * (d - 8)))
}
