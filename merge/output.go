package merge

import (
	"encoding/binary"
	"fmt"
	"math"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"
	"github.com/apache/arrow-go/v18/arrow/bitutil"
	"github.com/apache/arrow-go/v18/arrow/memory"
)

// gatherer builds one output column from ranges of input arrays and from
// computed cells. Buffers are plain Go memory handed to Arrow at finish; a
// gatherer starts fresh after every finish, so output batches never share
// memory with each other.
type gatherer interface {
	// appendRange appends rows [start, start+n) of arr (same type).
	appendRange(arr arrow.Array, start, n int) error
	// appendNull appends one null.
	appendNull()
	// appendComputed appends a computed (cInt, cFloat, cDec, cBytes, cBool) cell.
	appendComputed(c *cell) error
	// finish returns the column built so far and resets the gatherer.
	finish(mem memory.Allocator) (arrow.Array, error)
}

func newGatherer(dt arrow.DataType, capacity int) gatherer {
	switch cls := classOf(dt); cls {
	case clsBool:
		return &boolGather{dt: dt, capacity: capacity}
	case clsI8, clsI16, clsI32, clsI64, clsF32, clsF64, clsDec128, clsFixed:
		w := dt.(arrow.FixedWidthDataType).BitWidth() / 8
		return &fixedGather{dt: dt, cls: cls, width: w, capacity: capacity}
	case clsBytes:
		return &varGather[int32]{dt: dt, capacity: capacity, width: 4, max: math.MaxInt32}
	case clsLBytes:
		return &varGather[int64]{dt: dt, capacity: capacity, width: 8, max: math.MaxInt64}
	}
	return &otherGather{dt: dt}
}

// validity is a growing validity bitmap.
type validity struct {
	bits []byte
	n    int
}

func (v *validity) grow(n int) {
	need := int(bitutil.BytesForBits(int64(v.n + n)))
	if need > len(v.bits) {
		if need <= cap(v.bits) {
			v.bits = v.bits[:need]
		} else {
			v.bits = append(v.bits, make([]byte, need-len(v.bits))...)
		}
	}
}

func (v *validity) appendFrom(arr arrow.Array, start, n int) {
	v.grow(n)
	if arr.NullN() == 0 {
		if n == 1 {
			bitutil.SetBit(v.bits, v.n)
		} else {
			bitutil.SetBitsTo(v.bits, int64(v.n), int64(n), true)
		}
	} else {
		src := arr.NullBitmapBytes()
		off := arr.Data().Offset() + start
		if n == 1 {
			bitutil.SetBitTo(v.bits, v.n, bitutil.BitIsSet(src, off))
		} else {
			bitutil.CopyBitmap(src, off, n, v.bits, v.n)
		}
	}
	v.n += n
}

func (v *validity) appendBit(valid bool) {
	v.grow(1)
	bitutil.SetBitTo(v.bits, v.n, valid)
	v.n++
}

// take returns the bitmap buffer (nil when there are no nulls) and the null
// count, and resets v.
func (v *validity) take() (*memory.Buffer, int) {
	nulls := v.n - bitutil.CountSetBits(v.bits, 0, v.n)
	var buf *memory.Buffer
	if nulls > 0 {
		buf = memory.NewBufferBytes(v.bits)
	}
	*v = validity{}
	return buf, nulls
}

func shortBuffer(dt arrow.DataType) error {
	return fmt.Errorf("%w: %s column buffer shorter than its length", ErrSchema, dt)
}

// fixedGather handles fixed-width types by copying raw little-endian bytes.
type fixedGather struct {
	dt       arrow.DataType
	cls      class
	width    int
	capacity int
	data     []byte
	valid    validity
}

func (g *fixedGather) appendRange(arr arrow.Array, start, n int) error {
	d := arr.Data()
	lo := (d.Offset() + start) * g.width
	hi := lo + n*g.width
	bufs := d.Buffers()
	if len(bufs) < 2 || bufs[1] == nil || bufs[1].Len() < hi {
		return shortBuffer(g.dt)
	}
	if g.data == nil {
		g.data = make([]byte, 0, g.capacity*g.width)
	}
	g.data = append(g.data, bufs[1].Bytes()[lo:hi]...)
	g.valid.appendFrom(arr, start, n)
	return nil
}

func (g *fixedGather) appendNull() {
	for range g.width {
		g.data = append(g.data, 0)
	}
	g.valid.appendBit(false)
}

func (g *fixedGather) appendComputed(c *cell) error {
	switch {
	case c.st == cInt && g.cls.isInt():
		switch g.width {
		case 1:
			g.data = append(g.data, byte(c.i))
		case 2:
			g.data = binary.LittleEndian.AppendUint16(g.data, uint16(c.i))
		case 4:
			g.data = binary.LittleEndian.AppendUint32(g.data, uint32(c.i))
		default:
			g.data = binary.LittleEndian.AppendUint64(g.data, uint64(c.i))
		}
	case c.st == cFloat && g.cls == clsF32:
		g.data = binary.LittleEndian.AppendUint32(g.data, math.Float32bits(float32(c.f)))
	case c.st == cFloat && g.cls == clsF64:
		g.data = binary.LittleEndian.AppendUint64(g.data, math.Float64bits(c.f))
	case c.st == cDec && g.cls == clsDec128:
		g.data = binary.LittleEndian.AppendUint64(g.data, c.d.LowBits())
		g.data = binary.LittleEndian.AppendUint64(g.data, uint64(c.d.HighBits()))
	default:
		return fmt.Errorf("%w: computed value of state %d does not fit column type %s", ErrSchema, c.st, g.dt)
	}
	g.valid.appendBit(true)
	return nil
}

func (g *fixedGather) finish(memory.Allocator) (arrow.Array, error) {
	n := g.valid.n
	vbuf, nulls := g.valid.take()
	d := array.NewData(g.dt, n, []*memory.Buffer{vbuf, memory.NewBufferBytes(g.data)}, nil, nulls, 0)
	g.data = nil
	defer d.Release()
	return array.MakeFromData(d), nil
}

// boolGather handles booleans (bit-packed values).
type boolGather struct {
	dt       arrow.DataType
	capacity int
	values   validity // reused as a plain bitmap
	valid    validity
}

func (g *boolGather) appendRange(arr arrow.Array, start, n int) error {
	d := arr.Data()
	bufs := d.Buffers()
	if len(bufs) < 2 || bufs[1] == nil || bufs[1].Len()*8 < d.Offset()+start+n {
		return shortBuffer(g.dt)
	}
	g.values.grow(n)
	bitutil.CopyBitmap(bufs[1].Bytes(), d.Offset()+start, n, g.values.bits, g.values.n)
	g.values.n += n
	g.valid.appendFrom(arr, start, n)
	return nil
}

func (g *boolGather) appendNull() {
	g.values.appendBit(false)
	g.valid.appendBit(false)
}

func (g *boolGather) appendComputed(c *cell) error {
	if c.st != cBool {
		return fmt.Errorf("%w: computed value of state %d does not fit column type %s", ErrSchema, c.st, g.dt)
	}
	g.values.appendBit(c.i != 0)
	g.valid.appendBit(true)
	return nil
}

func (g *boolGather) finish(memory.Allocator) (arrow.Array, error) {
	n := g.valid.n
	vals := memory.NewBufferBytes(g.values.bits)
	g.values = validity{}
	vbuf, nulls := g.valid.take()
	d := array.NewData(g.dt, n, []*memory.Buffer{vbuf, vals}, nil, nulls, 0)
	defer d.Release()
	return array.MakeFromData(d), nil
}

// varGather handles string / binary types with int32 or int64 offsets.
type varGather[O int32 | int64] struct {
	dt       arrow.DataType
	capacity int
	width    int   // bytes per offset
	max      int64 // largest representable offset
	offsets  []O
	data     []byte
	valid    validity
}

func (g *varGather[O]) init() {
	if g.offsets == nil {
		g.offsets = make([]O, 1, g.capacity+1)
	}
}

func (g *varGather[O]) appendRange(arr arrow.Array, start, n int) error {
	g.init()
	d := arr.Data()
	bufs := d.Buffers()
	off := d.Offset() + start
	width := g.width
	if len(bufs) < 3 || bufs[1] == nil || bufs[1].Len() < (off+n+1)*width {
		return shortBuffer(g.dt)
	}
	raw := bufs[1].Bytes()
	src := arrow.GetData[O](raw[:len(raw)/width*width])[off : off+n+1]
	var data []byte
	if bufs[2] != nil {
		data = bufs[2].Bytes()
	}
	first, last := src[0], src[n]
	if first < 0 || last < first || int64(last) > int64(len(data)) {
		return shortBuffer(g.dt)
	}
	base := O(len(g.data)) - first
	if int64(len(g.data))+int64(last-first) > g.max {
		return fmt.Errorf("%w: output column %s exceeds its offset range", ErrUnsupported, g.dt)
	}
	g.data = append(g.data, data[first:last]...)
	for _, o := range src[1:] {
		g.offsets = append(g.offsets, o+base)
	}
	g.valid.appendFrom(arr, start, n)
	return nil
}

func (g *varGather[O]) appendNull() {
	g.init()
	g.offsets = append(g.offsets, O(len(g.data)))
	g.valid.appendBit(false)
}

func (g *varGather[O]) appendComputed(c *cell) error {
	if c.st != cBytes {
		return fmt.Errorf("%w: computed value of state %d does not fit column type %s", ErrSchema, c.st, g.dt)
	}
	g.init()
	if int64(len(g.data))+int64(len(c.s)) > g.max {
		return fmt.Errorf("%w: output column %s exceeds its offset range", ErrUnsupported, g.dt)
	}
	g.data = append(g.data, c.s...)
	g.offsets = append(g.offsets, O(len(g.data)))
	g.valid.appendBit(true)
	return nil
}

func (g *varGather[O]) finish(memory.Allocator) (arrow.Array, error) {
	g.init()
	n := g.valid.n
	vbuf, nulls := g.valid.take()
	d := array.NewData(g.dt, n, []*memory.Buffer{vbuf,
		memory.NewBufferBytes(arrow.GetBytes(g.offsets)), memory.NewBufferBytes(g.data)}, nil, nulls, 0)
	g.offsets, g.data = nil, nil
	defer d.Release()
	return array.MakeFromData(d), nil
}

// otherGather handles every other type (lists, maps, structs, ...) by
// concatenating slices of the input arrays.
type otherGather struct {
	dt    arrow.DataType
	parts []otherPart
}

type otherPart struct {
	arr      arrow.Array // nil: nulls
	start, n int
}

func (g *otherGather) appendRange(arr arrow.Array, start, n int) error {
	if k := len(g.parts) - 1; k >= 0 && g.parts[k].arr == arr && g.parts[k].start+g.parts[k].n == start {
		g.parts[k].n += n
		return nil
	}
	arr.Retain()
	g.parts = append(g.parts, otherPart{arr: arr, start: start, n: n})
	return nil
}

func (g *otherGather) appendNull() {
	if k := len(g.parts) - 1; k >= 0 && g.parts[k].arr == nil {
		g.parts[k].n++
		return
	}
	g.parts = append(g.parts, otherPart{n: 1})
}

func (g *otherGather) appendComputed(c *cell) error {
	return fmt.Errorf("%w: computed value for column type %s", ErrUnsupported, g.dt)
}

func (g *otherGather) finish(mem memory.Allocator) (arrow.Array, error) {
	parts := g.parts
	g.parts = nil
	slices := make([]arrow.Array, 0, len(parts))
	defer func() {
		for _, s := range slices {
			s.Release()
		}
		for _, p := range parts {
			if p.arr != nil {
				p.arr.Release()
			}
		}
	}()
	for _, p := range parts {
		if p.arr == nil {
			slices = append(slices, array.MakeArrayOfNull(mem, g.dt, p.n))
		} else {
			slices = append(slices, array.NewSlice(p.arr, int64(p.start), int64(p.start+p.n)))
		}
	}
	if len(slices) == 0 {
		return array.MakeArrayOfNull(mem, g.dt, 0), nil
	}
	if len(slices) == 1 {
		slices[0].Retain()
		return slices[0], nil
	}
	out, err := array.Concatenate(slices, mem)
	if err != nil {
		return nil, fmt.Errorf("%w: concatenating %s column: %v", ErrSchema, g.dt, err)
	}
	return out, nil
}
