package rbm

import (
	"encoding/binary"
	"math/bits"
)

// Container types, the tags Java's Containers.containerType writes.
const (
	runType    = 0
	bitmapType = 1
	arrayType  = 2
)

const (
	maxArray   = 4096 // ArrayContainer.DEFAULT_MAX_SIZE
	bitmapSize = 8192 // BitmapContainer serialized size in bytes
)

// container is a 16-bit roaring container as Java holds it: its type and
// its content in that type's form (run pairs as read, array values, bitmap
// words with the stored cardinality).
type container struct {
	typ  byte
	card int      // array and bitmap: the stored cardinality
	runs []uint16 // run: value, length pairs
	arr  []uint16
	bmp  []uint64
}

func decodeContainer(r *reader) *container {
	typ := r.u8()
	card := int(int32(r.u32()))
	if r.err != nil {
		return nil
	}
	c := &container{typ: typ, card: card}
	switch typ {
	case runType:
		n := int(r.u16())
		b := r.bytes(4 * n)
		if b == nil {
			return nil
		}
		c.runs = make([]uint16, 2*n)
		for i := range c.runs {
			c.runs[i] = binary.LittleEndian.Uint16(b[2*i:])
		}
	case bitmapType:
		b := r.bytes(bitmapSize)
		if b == nil {
			return nil
		}
		c.bmp = make([]uint64, bitmapSize/8)
		for i := range c.bmp {
			c.bmp[i] = binary.LittleEndian.Uint64(b[8*i:])
		}
	case arrayType:
		if card < 0 || card > 1<<16 {
			r.fail("array container of %d values", card)
			return nil
		}
		b := r.bytes(2 * card)
		if b == nil {
			return nil
		}
		c.arr = make([]uint16, card)
		for i := range c.arr {
			c.arr[i] = binary.LittleEndian.Uint16(b[2*i:])
		}
	default:
		r.fail("unknown container type %d", typ)
		return nil
	}
	return c
}

func (c *container) clone() *container {
	d := *c
	d.runs = append([]uint16(nil), c.runs...)
	d.arr = append([]uint16(nil), c.arr...)
	d.bmp = append([]uint64(nil), c.bmp...)
	return &d
}

// cardinality is Container.getCardinality.
func (c *container) cardinality() int {
	if c.typ != runType {
		return c.card
	}
	n := 0
	for i := 1; i < len(c.runs); i += 2 {
		n += int(c.runs[i]) + 1
	}
	return n
}

func (c *container) isFullRun() bool {
	return c.typ == runType && len(c.runs) == 2 && c.runs[0] == 0 && c.runs[1] == 0xFFFF
}

// set returns the container's values as 1024 words.
func (c *container) set() []uint64 {
	s := make([]uint64, 1024)
	switch c.typ {
	case bitmapType:
		copy(s, c.bmp)
	case arrayType:
		for _, v := range c.arr {
			s[v>>6] |= 1 << (v & 63)
		}
	case runType:
		for i := 0; i+1 < len(c.runs); i += 2 {
			start, end := int(c.runs[i]), int(c.runs[i])+int(c.runs[i+1])
			setRange(s, start, min(end, 0xFFFF))
		}
	}
	return s
}

// setRange sets the values start..end (inclusive) a word at a time.
func setRange(s []uint64, start, end int) {
	for w := start >> 6; w <= end>>6; w++ {
		lo, hi := max(start, w<<6), min(end, w<<6+63)
		n := uint(hi - lo + 1)
		mask := ^uint64(0)
		if n < 64 {
			mask = (1<<n - 1) << (uint(lo) & 63)
		}
		s[w] |= mask
	}
}

func popcount(s []uint64) int {
	n := 0
	for _, w := range s {
		n += bits.OnesCount64(w)
	}
	return n
}

// runsOf returns the maximal runs of a set as value, length pairs.
func runsOf(s []uint64) []uint16 {
	var out []uint16
	start, prev := -2, -2
	for w, word := range s {
		for word != 0 {
			v := w*64 + bits.TrailingZeros64(word)
			word &= word - 1
			if v != prev+1 {
				if start >= 0 {
					out = append(out, uint16(start), uint16(prev-start))
				}
				start = v
			}
			prev = v
		}
	}
	if start >= 0 {
		out = append(out, uint16(start), uint16(prev-start))
	}
	return out
}

func fromSet(typ byte, s []uint64) *container {
	c := &container{typ: typ}
	switch typ {
	case bitmapType:
		c.bmp, c.card = s, popcount(s)
	case arrayType:
		for w, word := range s {
			for word != 0 {
				c.arr = append(c.arr, uint16(w*64+bits.TrailingZeros64(word)))
				word &= word - 1
			}
		}
		c.card = len(c.arr)
	case runType:
		c.runs = runsOf(s)
	}
	return c
}

func fullRun() *container { return &container{typ: runType, runs: []uint16{0, 0xFFFF}} }

// efficient is RunContainer.toEfficientContainer over a union's values.
func efficient(s []uint64) *container {
	runs := runsOf(s)
	card := popcount(s)
	asRun := 2 + 2*len(runs)
	if asRun <= min(bitmapSize, 2*card+2) {
		return &container{typ: runType, runs: runs}
	}
	if card <= maxArray {
		return fromSet(arrayType, s)
	}
	return fromSet(bitmapType, s)
}

// ior is Container.ior(x) with the result type Java's container classes
// give each pairing of types.
func ior(a, b *container) *container {
	if a.isFullRun() {
		return a
	}
	s := a.set()
	for i, w := range b.set() {
		s[i] |= w
	}
	full := popcount(s) == 1<<16
	switch a.typ {
	case arrayType:
		switch b.typ {
		case arrayType:
			if a.card+b.card > maxArray {
				card := popcount(s)
				if card <= maxArray {
					return fromSet(arrayType, s)
				}
				if full {
					return fullRun()
				}
				return fromSet(bitmapType, s)
			}
			return fromSet(arrayType, s)
		case bitmapType:
			if full {
				return fullRun()
			}
			return fromSet(bitmapType, s)
		default:
			return efficient(s)
		}
	case bitmapType:
		if full && b.typ != arrayType {
			return fullRun()
		}
		return fromSet(bitmapType, s)
	default: // run
		if b.typ == bitmapType {
			if full {
				return fullRun()
			}
			return fromSet(bitmapType, s)
		}
		return efficient(s)
	}
}

// runOptimize is Container.runOptimize as Roaring64Bitmap.runOptimize keeps
// it: array and bitmap containers become run containers when strictly
// smaller; run containers are kept as they are.
func (c *container) runOptimize() *container {
	size, runs := bitmapSize, 0
	switch c.typ {
	case runType:
		return c
	case arrayType:
		size = 2 * c.card
		for i, v := range c.arr {
			if i == 0 || v != c.arr[i-1]+1 {
				runs++
			}
		}
	case bitmapType:
		runs = runCount(c.bmp)
	}
	if size > 2+4*runs {
		return &container{typ: runType, runs: runsOf(c.set())}
	}
	return c
}

// runCount returns the number of maximal runs in a set of 1024 words.
func runCount(s []uint64) int {
	n := 0
	carry := uint64(0) // the top bit of the previous word, as bit 0
	for _, w := range s {
		n += bits.OnesCount64(w &^ (w<<1 | carry))
		carry = w >> 63
	}
	return n
}

// encode appends the container as Containers.serialize writes it (after
// the not-null mark).
func (c *container) encode(out []byte) []byte {
	out = append(out, c.typ)
	out = binary.LittleEndian.AppendUint32(out, uint32(c.cardinality()))
	return c.appendValues(out)
}

// appendValues appends the container's values as Container.writeArray
// writes them: runs as their count and value, length pairs, bitmaps as
// 1024 words, arrays as their values, all little-endian.
func (c *container) appendValues(out []byte) []byte {
	switch c.typ {
	case runType:
		out = binary.LittleEndian.AppendUint16(out, uint16(len(c.runs)/2))
		for _, v := range c.runs {
			out = binary.LittleEndian.AppendUint16(out, v)
		}
	case bitmapType:
		for _, w := range c.bmp {
			out = binary.LittleEndian.AppendUint64(out, w)
		}
	case arrayType:
		for _, v := range c.arr {
			out = binary.LittleEndian.AppendUint16(out, v)
		}
	}
	return out
}
