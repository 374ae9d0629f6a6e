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

// rawCol is one column of one input batch resolved to its buffers, for
// copying. Buffer lengths are validated when the batch is loaded.
type rawCol struct {
	arr    arrow.Array
	width  int     // fixed-width: bytes per value
	data   []byte  // fixed-width: values of rows 0..n-1; var-width: the data buffer
	bits   []byte  // boolean values bitmap
	offs32 []int32 // var-width offsets of rows 0..n (int32 offsets)
	offs64 []int64 // var-width offsets of rows 0..n (int64 offsets)
	valid  []byte  // validity bitmap, nil when the column has no nulls
	off    int     // bit offset of row 0 in valid and bits
}

// loadRaw resolves arr's buffers for copying.
func loadRaw(cls class, arr arrow.Array) (rawCol, error) {
	d := arr.Data()
	n, off := d.Len(), d.Offset()
	bufs := d.Buffers()
	rc := rawCol{arr: arr, off: off}
	if arr.NullN() > 0 && len(bufs) > 0 && bufs[0] != nil {
		rc.valid = bufs[0].Bytes()
		if len(rc.valid)*8 < off+n {
			return rc, fmt.Errorf("%w: validity bitmap shorter than %d rows", ErrSchema, off+n)
		}
	}
	buf := func(i, need int) ([]byte, error) {
		if need == 0 {
			return nil, nil
		}
		if len(bufs) <= i || bufs[i] == nil || bufs[i].Len() < need {
			return nil, fmt.Errorf("%w: %s buffer %d shorter than %d bytes", ErrSchema, arr.DataType(), i, need)
		}
		return bufs[i].Bytes(), nil
	}
	var err error
	switch cls {
	case clsBool:
		rc.bits, err = buf(1, int(bitutil.BytesForBits(int64(off+n))))
	case clsI8, clsI16, clsI32, clsI64, clsF32, clsF64, clsDec128, clsFixed:
		rc.width = arr.DataType().(arrow.FixedWidthDataType).BitWidth() / 8
		var b []byte
		if b, err = buf(1, (off+n)*rc.width); err == nil && b != nil {
			rc.data = b[off*rc.width : (off+n)*rc.width]
		}
	case clsBytes, clsLBytes:
		w := 4
		if cls == clsLBytes {
			w = 8
		}
		var ob []byte
		if ob, err = buf(1, (off+n+1)*w); err != nil || ob == nil {
			break
		}
		if len(bufs) > 2 && bufs[2] != nil {
			rc.data = bufs[2].Bytes()
		}
		var first, last int64
		if w == 4 {
			rc.offs32 = arrow.GetData[int32](ob[:len(ob)/4*4])[off : off+n+1]
			first, last = int64(rc.offs32[0]), int64(rc.offs32[n])
		} else {
			rc.offs64 = arrow.GetData[int64](ob[:len(ob)/8*8])[off : off+n+1]
			first, last = rc.offs64[0], rc.offs64[n]
		}
		if first < 0 || last < first || last > int64(len(rc.data)) {
			err = fmt.Errorf("%w: offsets [%d, %d] outside data buffer of %d bytes", ErrSchema, first, last, len(rc.data))
		} else if !offsetsAscending(rc.offs32) || !offsetsAscending(rc.offs64) {
			err = fmt.Errorf("%w: %s offsets decrease", ErrSchema, arr.DataType())
		}
	}
	return rc, err
}

// offsetsAscending reports whether offsets never decrease, so that every
// value slice taken from them is in bounds once the first and last are.
func offsetsAscending[O int32 | int64](offs []O) bool {
	for i := 1; i < len(offs); i++ {
		if offs[i] < offs[i-1] {
			return false
		}
	}
	return true
}

func (rc *rawCol) isValid(i int) bool {
	return rc.valid == nil || bitutil.BitIsSet(rc.valid, rc.off+i)
}

// copyValidity copies the validity of rows [start, start+n) into dst at pos.
func (rc *rawCol) copyValidity(start, n int, dst []byte, pos int) {
	switch {
	case n == 1:
		if rc.isValid(start) {
			bitutil.SetBit(dst, pos)
		}
	case rc.valid == nil:
		bitutil.SetBitsTo(dst, int64(pos), int64(n), true)
	default:
		bitutil.CopyBitmap(rc.valid, rc.off+start, n, dst, pos)
	}
}

// outCell returns the value of output column oc for computed row k.
func (s *mergeState) outCell(oc outCol, k int) cell {
	switch oc.role {
	case roleKey:
		e := s.ckey[k]
		if !e.b.raw[oc.in].isValid(int(e.row)) {
			return cell{}
		}
		return cell{st: cRef, b: e.b, row: e.row}
	case roleSeq:
		return cell{st: cInt, i: s.cseq[k]}
	case roleKind:
		return cell{st: cInt, i: int64(s.ckind[k])}
	}
	return s.ccells[oc.vc][k]
}

// gatherer builds one output column from the pending segments. Fixed-width,
// boolean and string/binary columns are assembled straight into fresh Go
// memory; other types (lists, maps, structs) by concatenating slices.
type gatherer interface {
	build(s *mergeState, oc outCol) (arrow.Array, error)
}

func newGatherer(dt arrow.DataType) gatherer {
	switch cls := classOf(dt); cls {
	case clsBool:
		return boolGather{dt: dt}
	case clsI8, clsI16, clsI32, clsI64, clsF32, clsF64, clsDec128, clsFixed:
		return fixedGather{dt: dt, cls: cls, width: dt.(arrow.FixedWidthDataType).BitWidth() / 8}
	case clsBytes:
		return varGather{dt: dt}
	case clsLBytes:
		return varGather{dt: dt, wide: true}
	}
	return otherGather{dt: dt}
}

func computedMismatch(c *cell, dt arrow.DataType) error {
	return fmt.Errorf("%w: computed value of state %d does not fit column type %s", ErrSchema, c.st, dt)
}

func newArray(dt arrow.DataType, n int, valid []byte, bufs ...[]byte) arrow.Array {
	nulls := n - bitutil.CountSetBits(valid, 0, n)
	mb := make([]*memory.Buffer, 1, 1+len(bufs))
	if nulls > 0 {
		mb[0] = memory.NewBufferBytes(valid)
	}
	for _, b := range bufs {
		mb = append(mb, memory.NewBufferBytes(b))
	}
	d := array.NewData(dt, n, mb, nil, nulls, 0)
	defer d.Release()
	return array.MakeFromData(d)
}

// fixedGather copies raw little-endian values of fixed-width types.
type fixedGather struct {
	dt    arrow.DataType
	cls   class
	width int
}

func (g fixedGather) build(s *mergeState, oc outCol) (arrow.Array, error) {
	w := g.width
	data := make([]byte, s.rows*w)
	valid := make([]byte, bitutil.BytesForBits(int64(s.rows)))
	pos := 0
	for _, seg := range s.segs {
		if seg.b != nil {
			rc := &seg.b.raw[oc.in]
			if seg.n == 1 && w == 8 {
				binary.LittleEndian.PutUint64(data[pos*8:], binary.LittleEndian.Uint64(rc.data[seg.start*8:]))
			} else {
				copy(data[pos*w:], rc.data[seg.start*w:(seg.start+seg.n)*w])
			}
			rc.copyValidity(seg.start, seg.n, valid, pos)
			pos += seg.n
			continue
		}
		for k := seg.start; k < seg.start+seg.n; k++ {
			c := s.outCell(oc, k)
			switch {
			case c.st == cNull:
			case c.st == cRef:
				rc := &c.b.raw[oc.in]
				copy(data[pos*w:], rc.data[int(c.row)*w:int(c.row+1)*w])
				bitutil.SetBit(valid, pos)
			case c.st == cInt && g.cls.isInt():
				switch w {
				case 1:
					data[pos] = byte(c.i)
				case 2:
					binary.LittleEndian.PutUint16(data[pos*2:], uint16(c.i))
				case 4:
					binary.LittleEndian.PutUint32(data[pos*4:], uint32(c.i))
				default:
					binary.LittleEndian.PutUint64(data[pos*8:], uint64(c.i))
				}
				bitutil.SetBit(valid, pos)
			case c.st == cFloat && g.cls == clsF32:
				binary.LittleEndian.PutUint32(data[pos*4:], math.Float32bits(float32(math.Float64frombits(uint64(c.i)))))
				bitutil.SetBit(valid, pos)
			case c.st == cFloat && g.cls == clsF64:
				binary.LittleEndian.PutUint64(data[pos*8:], uint64(c.i))
				bitutil.SetBit(valid, pos)
			case c.st == cDec && g.cls == clsDec128:
				binary.LittleEndian.PutUint64(data[pos*16:], uint64(c.i))
				binary.LittleEndian.PutUint64(data[pos*16+8:], uint64(c.hi))
				bitutil.SetBit(valid, pos)
			default:
				return nil, computedMismatch(&c, g.dt)
			}
			pos++
		}
	}
	return newArray(g.dt, s.rows, valid, data), nil
}

// boolGather copies bit-packed booleans.
type boolGather struct{ dt arrow.DataType }

func (g boolGather) build(s *mergeState, oc outCol) (arrow.Array, error) {
	nb := bitutil.BytesForBits(int64(s.rows))
	bits := make([]byte, nb)
	valid := make([]byte, nb)
	pos := 0
	for _, seg := range s.segs {
		if seg.b != nil {
			rc := &seg.b.raw[oc.in]
			bitutil.CopyBitmap(rc.bits, rc.off+seg.start, seg.n, bits, pos)
			rc.copyValidity(seg.start, seg.n, valid, pos)
			pos += seg.n
			continue
		}
		for k := seg.start; k < seg.start+seg.n; k++ {
			c := s.outCell(oc, k)
			switch c.st {
			case cNull:
			case cRef:
				rc := &c.b.raw[oc.in]
				bitutil.SetBitTo(bits, pos, bitutil.BitIsSet(rc.bits, rc.off+int(c.row)))
				bitutil.SetBit(valid, pos)
			case cBool:
				bitutil.SetBitTo(bits, pos, c.i != 0)
				bitutil.SetBit(valid, pos)
			default:
				return nil, computedMismatch(&c, g.dt)
			}
			pos++
		}
	}
	return newArray(g.dt, s.rows, valid, bits), nil
}

// varGather copies string / binary values with int32 offsets, or int64
// offsets when wide.
type varGather struct {
	dt   arrow.DataType
	wide bool
}

// offAt returns offset i of a var-width raw column.
func (rc *rawCol) offAt(i int) int64 {
	if rc.offs32 != nil {
		return int64(rc.offs32[i])
	}
	return rc.offs64[i]
}

func (g varGather) build(s *mergeState, oc outCol) (arrow.Array, error) {
	// pass 1: size the data buffer
	var size int64
	for _, seg := range s.segs {
		if seg.b != nil {
			rc := &seg.b.raw[oc.in]
			size += rc.offAt(seg.start+seg.n) - rc.offAt(seg.start)
			continue
		}
		for k := seg.start; k < seg.start+seg.n; k++ {
			switch c := s.outCell(oc, k); c.st {
			case cRef:
				rc := &c.b.raw[oc.in]
				size += rc.offAt(int(c.row)+1) - rc.offAt(int(c.row))
			case cBytes:
				size += int64(len(c.s))
			}
		}
	}
	if !g.wide && size > math.MaxInt32 {
		return nil, fmt.Errorf("%w: output column %s needs %d bytes, more than int32 offsets address", ErrUnsupported, g.dt, size)
	}
	data := make([]byte, 0, size)
	var offs32 []int32
	var offs64 []int64
	if g.wide {
		offs64 = make([]int64, s.rows+1)
	} else {
		offs32 = make([]int32, s.rows+1)
	}
	valid := make([]byte, bitutil.BytesForBits(int64(s.rows)))
	pos := 0
	for _, seg := range s.segs {
		if seg.b != nil {
			rc := &seg.b.raw[oc.in]
			first, last := rc.offAt(seg.start), rc.offAt(seg.start+seg.n)
			base := int64(len(data)) - first
			data = append(data, rc.data[first:last]...)
			switch {
			case !g.wide && rc.offs32 != nil:
				b32 := int32(base)
				for i, o := range rc.offs32[seg.start+1 : seg.start+seg.n+1] {
					offs32[pos+1+i] = o + b32
				}
			case g.wide && rc.offs64 != nil:
				for i, o := range rc.offs64[seg.start+1 : seg.start+seg.n+1] {
					offs64[pos+1+i] = o + base
				}
			default:
				return nil, fmt.Errorf("%w: offsets width of column %s", ErrSchema, g.dt)
			}
			rc.copyValidity(seg.start, seg.n, valid, pos)
			pos += seg.n
			continue
		}
		for k := seg.start; k < seg.start+seg.n; k++ {
			c := s.outCell(oc, k)
			switch c.st {
			case cNull:
			case cRef:
				rc := &c.b.raw[oc.in]
				data = append(data, rc.data[rc.offAt(int(c.row)):rc.offAt(int(c.row)+1)]...)
				bitutil.SetBit(valid, pos)
			case cBytes:
				data = append(data, c.s...)
				bitutil.SetBit(valid, pos)
			default:
				return nil, computedMismatch(&c, g.dt)
			}
			if g.wide {
				offs64[pos+1] = int64(len(data))
			} else {
				offs32[pos+1] = int32(len(data))
			}
			pos++
		}
	}
	if g.wide {
		return newArray(g.dt, s.rows, valid, arrow.GetBytes(offs64), data), nil
	}
	return newArray(g.dt, s.rows, valid, arrow.GetBytes(offs32), data), nil
}

// otherGather handles every other type (lists, maps, structs, ...) by
// concatenating slices of the input arrays.
type otherGather struct{ dt arrow.DataType }

func (g otherGather) build(s *mergeState, oc outCol) (arrow.Array, error) {
	type part struct {
		arr      arrow.Array // nil: nulls
		start, n int
	}
	var parts []part
	add := func(arr arrow.Array, start, n int) {
		if k := len(parts) - 1; k >= 0 && parts[k].arr == arr && (arr == nil || parts[k].start+parts[k].n == start) {
			parts[k].n += n
			return
		}
		parts = append(parts, part{arr, start, n})
	}
	for _, seg := range s.segs {
		if seg.b != nil {
			add(seg.b.raw[oc.in].arr, seg.start, seg.n)
			continue
		}
		for k := seg.start; k < seg.start+seg.n; k++ {
			switch c := s.outCell(oc, k); c.st {
			case cNull:
				add(nil, 0, 1)
			case cRef:
				add(c.b.raw[oc.in].arr, int(c.row), 1)
			case cNested:
				add(c.arr, 0, 1)
			default:
				return nil, computedMismatch(&c, g.dt)
			}
		}
	}
	mem := s.m.opts.Allocator
	slices := make([]arrow.Array, 0, len(parts))
	defer func() {
		for _, a := range slices {
			a.Release()
		}
	}()
	for _, p := range parts {
		if p.arr == nil {
			slices = append(slices, array.MakeArrayOfNull(mem, g.dt, p.n))
		} else {
			slices = append(slices, array.NewSlice(p.arr, int64(p.start), int64(p.start+p.n)))
		}
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
