package rbm

import (
	"encoding/binary"
	"fmt"
)

// Portable-format cookies (RoaringArray.SERIAL_COOKIE, SERIAL_COOKIE_NO_RUNCONTAINER)
// and the container count from which a file with run containers carries
// offsets (NO_OFFSET_THRESHOLD).
const (
	cookieRuns     = 12347
	cookieNoRuns   = 12346
	offsetsFromRun = 4
)

// bitmap32 is a RoaringBitmap as Java holds it after deserialize: keys in
// file order, each with its container in the type the file gave it.
type bitmap32 struct {
	keys []uint16
	cs   []*container
}

// Union32 returns the portable serialization of the union of two serialized
// RoaringBitmaps, byte for byte as Paimon's RoaringBitmap32 writes it after
// deserialize(acc).or(deserialize(in)): RoaringBitmap.or (Container.ior for
// keys in both, a copy for keys only in in), runOptimize (a run container
// becomes an array or bitmap container when that is smaller; array and
// bitmap containers become run containers when strictly smaller), then
// RoaringArray.serialize. Bytes that are no portable serialization give
// ErrCorrupt.
func Union32(acc, in []byte) ([]byte, error) {
	a, err := decode32(acc)
	if err != nil {
		return nil, err
	}
	b, err := decode32(in)
	if err != nil {
		return nil, err
	}
	a.or(b)
	for i, c := range a.cs {
		a.cs[i] = c.runOptimize32()
	}
	return a.encode(), nil
}

// or is RoaringBitmap.or(x2), walking both key lists as Java does.
func (m *bitmap32) or(x *bitmap32) {
	var keys []uint16
	var cs []*container
	i, j := 0, 0
	for i < len(m.keys) && j < len(x.keys) {
		switch k1, k2 := m.keys[i], x.keys[j]; {
		case k1 == k2:
			keys, cs = append(keys, k1), append(cs, ior(m.cs[i], x.cs[j]))
			i, j = i+1, j+1
		case k1 < k2:
			keys, cs = append(keys, k1), append(cs, m.cs[i])
			i++
		default:
			keys, cs = append(keys, k2), append(cs, x.cs[j].clone())
			j++
		}
	}
	keys, cs = append(keys, m.keys[i:]...), append(cs, m.cs[i:]...)
	for ; j < len(x.keys); j++ {
		keys, cs = append(keys, x.keys[j]), append(cs, x.cs[j].clone())
	}
	m.keys, m.cs = keys, cs
}

// runOptimize32 is Container.runOptimize of RoaringBitmap: a run container
// is RunContainer.toEfficientContainer (kept when its serialized size is at
// most that of a bitmap or an array of its values); the others as in
// Roaring64Bitmap.
func (c *container) runOptimize32() *container {
	if c.typ != runType {
		return c.runOptimize()
	}
	card := c.cardinality()
	if 2+2*len(c.runs) <= min(bitmapSize, 2*card+2) {
		return c
	}
	if card <= maxArray {
		return fromSet(arrayType, c.set())
	}
	return fromSet(bitmapType, c.set())
}

// sizeInBytes is Container.getArraySizeInBytes.
func (c *container) sizeInBytes() int {
	switch c.typ {
	case runType:
		return 2 + 2*len(c.runs)
	case bitmapType:
		return bitmapSize
	}
	return 2 * len(c.arr)
}

// encode is RoaringArray.serialize.
func (m *bitmap32) encode() []byte {
	n := len(m.keys)
	hasRun := false
	for _, c := range m.cs {
		hasRun = hasRun || c.typ == runType
	}
	var out []byte
	start := 0
	if hasRun {
		out = binary.LittleEndian.AppendUint32(out, uint32(cookieRuns|(n-1)<<16))
		flags := make([]byte, (n+7)/8)
		for i, c := range m.cs {
			if c.typ == runType {
				flags[i/8] |= 1 << (i % 8)
			}
		}
		out = append(out, flags...)
		start = 4 + 4*n + len(flags)
		if n >= offsetsFromRun {
			start += 4 * n
		}
	} else {
		out = binary.LittleEndian.AppendUint32(out, cookieNoRuns)
		out = binary.LittleEndian.AppendUint32(out, uint32(n))
		start = 8 + 8*n
	}
	for i, k := range m.keys {
		out = binary.LittleEndian.AppendUint16(out, k)
		out = binary.LittleEndian.AppendUint16(out, uint16(m.cs[i].cardinality()-1))
	}
	if !hasRun || n >= offsetsFromRun {
		for _, c := range m.cs {
			out = binary.LittleEndian.AppendUint32(out, uint32(start))
			start += c.sizeInBytes()
		}
	}
	for _, c := range m.cs {
		out = c.appendValues(out)
	}
	return out
}

// decode32 is RoaringArray.deserialize: containers flagged as runs are run
// containers, others with more than 4096 values bitmap containers, the
// rest array containers.
func decode32(data []byte) (*bitmap32, error) {
	r := &reader{b: data}
	cookie := r.u32()
	if r.err != nil {
		return nil, r.err
	}
	var n int
	var runs []byte
	switch {
	case cookie&0xFFFF == cookieRuns:
		n = int(cookie>>16) + 1
		runs = r.bytes((n + 7) / 8)
	case cookie == cookieNoRuns:
		n = int(int32(r.u32()))
		if r.err == nil && (n < 0 || n > 1<<16) {
			r.fail("%d containers", n)
		}
	default:
		return nil, fmt.Errorf("%w: no RoaringBitmap cookie (%#x)", ErrCorrupt, cookie)
	}
	if r.err != nil {
		return nil, r.err
	}
	// Every container takes at least 4 header bytes: a count the data
	// cannot hold fails before anything is allocated for it.
	if !r.need(4 * n) {
		return nil, r.err
	}
	m := &bitmap32{keys: make([]uint16, n), cs: make([]*container, n)}
	cards := make([]int, n)
	for i := range n {
		m.keys[i] = r.u16()
		cards[i] = int(r.u16()) + 1
	}
	if runs == nil || n >= offsetsFromRun {
		r.bytes(4 * n)
	}
	for i := range n {
		if r.err != nil {
			break
		}
		c := &container{card: cards[i]}
		switch {
		case runs != nil && runs[i/8]&(1<<(i%8)) != 0:
			c.typ = runType
			nr := int(r.u16())
			b := r.bytes(4 * nr)
			if b == nil {
				break
			}
			c.runs = make([]uint16, 2*nr)
			for k := range c.runs {
				c.runs[k] = binary.LittleEndian.Uint16(b[2*k:])
			}
		case cards[i] > maxArray:
			c.typ = bitmapType
			b := r.bytes(bitmapSize)
			if b == nil {
				break
			}
			c.bmp = make([]uint64, bitmapSize/8)
			for k := range c.bmp {
				c.bmp[k] = binary.LittleEndian.Uint64(b[8*k:])
			}
		default:
			c.typ = arrayType
			b := r.bytes(2 * cards[i])
			if b == nil {
				break
			}
			c.arr = make([]uint16, cards[i])
			for k := range c.arr {
				c.arr[k] = binary.LittleEndian.Uint16(b[2*k:])
			}
		}
		m.cs[i] = c
	}
	if r.err != nil {
		return nil, r.err
	}
	return m, nil
}
