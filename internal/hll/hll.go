// Package hll unions Apache DataSketches HLL sketches exactly as
// datasketches-java 4.2.0 does for Paimon's hll_sketch aggregate function
// (FieldHllSketchAgg, HllSketchUtil.union): the accumulator is heapified as
// an HllSketch, a Union is heapified from the input (its lgMaxK is the
// input's lgConfigK), the accumulator is merged into it, and the result is
// serialized as a compact HLL_4 sketch (getResult(HLL_4).toCompactByteArray).
//
// Only the heap path of that union is here: reading every serialization
// Java writes (compact and updatable; LIST, SET and HLL modes; HLL_4 with
// its aux exception table, HLL_6 and HLL_8; lgConfigK 4..21), the union's
// HLL_8 gadget with its LIST -> SET -> HLL promotions, downsampling between
// lgConfigK values, the conversions to HLL_8 and HLL_4 and the compact
// serialization. The estimator fields of the HLL preamble (HIP accumulator,
// kxq0, kxq1, curMin, numAtCurMin, out-of-order flag) follow Java's
// arithmetic step by step, so the result is byte-identical.
//
// # Errors
//
// ErrCorrupt marks bytes that are no HLL sketch Java could union: too short
// for the preamble, the registers or the aux table; a family other than 7;
// serialization version other than 1; a preamble size that does not fit the
// mode; lgConfigK outside 4..21; an HLL_4 exception slot with no aux entry;
// a hash table with no free slot. Java rejects all of them with a
// SketchesArgumentException, SketchesStateException or an out-of-bounds
// read. Every loop is bounded by 2^21 registers or the input's length.
package hll

import (
	"encoding/binary"
	"errors"
	"fmt"
	"math"
)

// ErrCorrupt marks bytes that are no HLL sketch.
var ErrCorrupt = errors.New("hll: corrupt sketch")

const (
	modeList = 0
	modeSet  = 1
	modeHLL  = 2

	typ4 = 0
	typ6 = 1
	typ8 = 2

	keyBits    = 26
	keyMask    = 1<<keyBits - 1
	valMask6   = 0x3f
	auxToken   = 0xf
	minLgK     = 4
	maxLgK     = 21
	lgInitList = 3
	lgInitSet  = 5

	flagEmpty   = 4
	flagCompact = 8
	flagOoo     = 16
	flagRebuild = 32

	listPreInts = 2
	setPreInts  = 3
	hllPreInts  = 10
	listStart   = 8
	setStart    = 12
	hllStart    = 40
)

// lgAuxArrInts is HllUtil.LG_AUX_ARR_INTS: the starting size of the HLL_4
// aux table per lgConfigK.
var lgAuxArrInts = [...]int{
	0, 2, 2, 2, 2, 2, 2, 3, 3, 3,
	4, 4, 5, 5, 6, 7, 8, 9, 10, 11,
	12, 13, 14, 15, 16, 17, 18,
}

// sketch is one heap HllSketchImpl: a CouponList or CouponHashSet (mode
// LIST or SET) or an Hll4Array, Hll6Array or Hll8Array (mode HLL).
type sketch struct {
	lgK  int
	typ  int
	mode int

	// LIST and SET.
	lgArr   int
	count   int
	coupons []uint32

	// HLL.
	ooo, rebuild bool
	curMin       int
	numAtCurMin  int32
	hip          float64
	kxq0, kxq1   float64
	arr          []byte
	aux          *auxMap
}

func pair(slot, value int) uint32 {
	return uint32(value)<<keyBits | uint32(slot)&keyMask
}

// invPow2 is 2^-e, exact (Util.invPow2).
func invPow2(e int) float64 { return math.Ldexp(1, -e) }

func (s *sketch) isEmpty() bool { return s.mode != modeHLL && s.count == 0 }

// Union returns FieldHllSketchAgg.agg(acc, in): both serialized HLL
// sketches unioned at the input's lgConfigK, serialized as a compact HLL_4
// sketch. Errors wrap ErrCorrupt and name the operand and field.
func Union(acc, in []byte) ([]byte, error) {
	if len(in) > 3 {
		if lgK := int(int8(in[3])); lgK < minLgK || lgK > maxLgK {
			return nil, fmt.Errorf("%w: input: lgConfigK %d is outside %d..%d", ErrCorrupt, lgK, minLgK, maxLgK)
		}
	}
	src, err := heapify(acc, true)
	if err != nil {
		return nil, fmt.Errorf("accumulator: %w", err)
	}
	first, err := heapify(in, false)
	if err != nil {
		return nil, fmt.Errorf("input: %w", err)
	}
	lgMaxK := first.lgK
	g := newList(lgMaxK, typ8)
	if g, err = unionImpl(first, g, lgMaxK); err != nil {
		return nil, err
	}
	if g, err = unionImpl(src, g, lgMaxK); err != nil {
		return nil, err
	}
	if err := g.checkRebuild(); err != nil {
		return nil, err
	}
	res, err := g.copyAs(typ4)
	if err != nil {
		return nil, err
	}
	return res.compact()
}

// heapify reads one serialized sketch (HllSketch.heapify). checkRebuild
// recomputes the kxq registers of an HLL_8 image that a union left
// unfinished, as HllSketch.heapify(byte[]) does; Union.heapify does not.
func heapify(b []byte, checkRebuild bool) (*sketch, error) {
	if len(b) < 8 {
		return nil, fmt.Errorf("%w: %d bytes, too short for the preamble", ErrCorrupt, len(b))
	}
	preInts := int(b[0] & 0x3f)
	if len(b) < preInts*4 {
		return nil, fmt.Errorf("%w: %d bytes, too short for %d preamble ints", ErrCorrupt, len(b), preInts)
	}
	if b[2] != 7 {
		return nil, fmt.Errorf("%w: family %d is not HLL (7)", ErrCorrupt, b[2])
	}
	if b[1] != 1 {
		return nil, fmt.Errorf("%w: serialization version %d", ErrCorrupt, b[1])
	}
	mode := int(b[7] & 3)
	typ := int(b[7]>>2) & 3
	want := [...]int{listPreInts, setPreInts, hllPreInts, -1}[mode]
	if mode == 3 || preInts != want {
		return nil, fmt.Errorf("%w: mode %d with %d preamble ints", ErrCorrupt, mode, preInts)
	}
	if typ == 3 {
		return nil, fmt.Errorf("%w: target HLL type 3", ErrCorrupt)
	}
	lgK := int(b[3])
	// HllSketch.heapify leaves lgConfigK unchecked (Union.heapify checks
	// its own operand), so Java would union a crafted HLL image of
	// lgConfigK 22..26; no Java sketch has one (its constructors check
	// 4..21), and this package refuses it. LIST and SET images of any
	// lgConfigK are read as Java reads them: only their coupons matter.
	if mode == modeHLL && (lgK < minLgK || lgK > maxLgK) {
		return nil, fmt.Errorf("%w: lgConfigK %d is outside %d..%d", ErrCorrupt, lgK, minLgK, maxLgK)
	}
	if lgK > 63 {
		return nil, fmt.Errorf("%w: lgConfigK %d", ErrCorrupt, lgK)
	}
	flags := b[5]
	switch mode {
	case modeList:
		s := newList(lgK, typ)
		n := int(b[6])
		if n > len(s.coupons) || listStart+4*n > len(b) {
			return nil, fmt.Errorf("%w: list of %d coupons in %d bytes", ErrCorrupt, n, len(b))
		}
		for i := 0; i < n; i++ {
			s.coupons[i] = binary.LittleEndian.Uint32(b[listStart+4*i:])
		}
		s.count = n
		return s, nil
	case modeSet:
		return heapifySet(b, lgK, typ, flags)
	}
	if n := hllStart + arrBytes(lgK, typ); n > len(b) {
		return nil, fmt.Errorf("%w: %d bytes, too short for the HLL_%d registers of lgConfigK %d (%d bytes)", ErrCorrupt, len(b), 4+2*typ, lgK, n)
	}
	s := &sketch{lgK: lgK, typ: typ, mode: modeHLL}
	s.initHLL()
	s.ooo = flags&flagOoo != 0
	s.curMin = int(b[6])
	s.hip = math.Float64frombits(binary.LittleEndian.Uint64(b[8:]))
	s.kxq0 = math.Float64frombits(binary.LittleEndian.Uint64(b[16:]))
	s.kxq1 = math.Float64frombits(binary.LittleEndian.Uint64(b[24:]))
	s.numAtCurMin = int32(binary.LittleEndian.Uint32(b[32:]))
	s.rebuild = flags&flagRebuild != 0
	copy(s.arr, b[hllStart:])
	switch typ {
	case typ4:
		auxCount := int(int32(binary.LittleEndian.Uint32(b[36:])))
		if auxCount > 0 {
			aux, err := heapifyAux(b, hllStart+len(s.arr), lgK, auxCount, flags&flagCompact != 0)
			if err != nil {
				return nil, err
			}
			s.aux = aux
		}
	case typ8:
		if checkRebuild {
			if err := s.checkRebuild(); err != nil {
				return nil, err
			}
		}
	}
	return s, nil
}

func newList(lgK, typ int) *sketch {
	return &sketch{lgK: lgK, typ: typ, mode: modeList, lgArr: lgInitList, coupons: make([]uint32, 1<<lgInitList)}
}

func newSet(lgK, typ int) *sketch {
	return &sketch{lgK: lgK, typ: typ, mode: modeSet, lgArr: lgInitSet, coupons: make([]uint32, 1<<lgInitSet)}
}

// ceilPow2 is Util.ceilingIntPowerOf2.
func ceilPow2(n int) int {
	if n <= 1 {
		return 1
	}
	if n >= 1<<30 {
		return 1 << 30
	}
	p := 1
	for p < n {
		p <<= 1
	}
	return p
}

// computeLgArr is PreambleUtil.computeLgArr for SET (floor) and HLL (aux).
func computeLgArr(count, floor int) int {
	c := ceilPow2(count)
	if 4*count > 3*c {
		c <<= 1
	}
	lg := 0
	for 1<<lg < c {
		lg++
	}
	return max(floor, lg)
}

func heapifySet(b []byte, lgK, typ int, flags byte) (*sketch, error) {
	s := newSet(lgK, typ)
	count := int(int32(binary.LittleEndian.Uint32(b[8:])))
	lgArr := int(b[4])
	if lgArr < lgInitSet {
		lgArr = computeLgArr(count, lgInitSet)
	}
	if flags&flagCompact != 0 {
		if count > 0 && setStart+4*count > len(b) {
			return nil, fmt.Errorf("%w: set of %d coupons in %d bytes", ErrCorrupt, count, len(b))
		}
		for i := 0; i < count; i++ {
			// Java ignores a promotion here (CouponHashSet.heapifySet
			// drops couponUpdate's result): the set keeps the coupon.
			if _, err := s.setInsert(binary.LittleEndian.Uint32(b[setStart+4*i:]), false); err != nil {
				return nil, err
			}
		}
		return s, nil
	}
	if lgArr > 26 || setStart+4<<lgArr > len(b) {
		return nil, fmt.Errorf("%w: hash set of 2^%d coupons in %d bytes", ErrCorrupt, lgArr, len(b))
	}
	if count < 0 || count > 1<<lgArr {
		return nil, fmt.Errorf("%w: hash set count %d for 2^%d slots", ErrCorrupt, count, lgArr)
	}
	s.count = count
	s.lgArr = lgArr
	s.coupons = make([]uint32, 1<<lgArr)
	for i := range s.coupons {
		s.coupons[i] = binary.LittleEndian.Uint32(b[setStart+4*i:])
	}
	return s, nil
}

// findCoupon is AbstractCoupons.find: the slot holding c (>= 0) or ^ the
// first empty slot on c's probe path.
func findCoupon(arr []uint32, lgArr int, c uint32) (int, error) {
	mask := uint32(len(arr) - 1)
	probe := c & mask
	start := probe
	for {
		at := arr[probe]
		if at == 0 {
			return ^int(probe), nil
		}
		if at == c {
			return int(probe), nil
		}
		stride := (c&keyMask)>>uint(lgArr) | 1
		probe = (probe + stride) & mask
		if probe == start {
			return 0, fmt.Errorf("%w: coupon hash set has no free slot", ErrCorrupt)
		}
	}
}

// couponUpdate is HllSketchImpl.couponUpdate: it returns the sketch that
// replaces s (a LIST promoted to SET or HLL, a SET promoted to HLL).
func (s *sketch) couponUpdate(c uint32) (*sketch, error) {
	switch s.mode {
	case modeList:
		for i, at := range s.coupons {
			if at == 0 {
				s.coupons[i] = c
				s.count++
				if s.count >= len(s.coupons) {
					if s.lgK < 8 {
						return s.promoteToHLL()
					}
					return s.promoteListToSet()
				}
				return s, nil
			}
			if at == c {
				return s, nil
			}
		}
		return nil, fmt.Errorf("%w: coupon list full", ErrCorrupt)
	case modeSet:
		return s.setInsert(c, true)
	}
	if s.typ != typ8 {
		return nil, fmt.Errorf("%w: update of an HLL_%d array", ErrCorrupt, 4+2*s.typ)
	}
	s.update8(int(c&uint32(1<<s.lgK-1)), int(c>>keyBits))
	return s, nil
}

// setInsert is CouponHashSet.couponUpdate; promote false drops the
// promotion as heapifySet does.
func (s *sketch) setInsert(c uint32, promote bool) (*sketch, error) {
	idx, err := findCoupon(s.coupons, s.lgArr, c)
	if err != nil {
		return nil, err
	}
	if idx >= 0 {
		return s, nil
	}
	s.coupons[^idx] = c
	s.count++
	if 4*s.count > 3*(1<<s.lgArr) {
		if s.lgArr == s.lgK-3 {
			if promote {
				return s.promoteToHLL()
			}
			return s, nil
		}
		s.lgArr++
		grown := make([]uint32, 1<<s.lgArr)
		for _, f := range s.coupons {
			if f == 0 {
				continue
			}
			j, err := findCoupon(grown, s.lgArr, f)
			if err != nil {
				return nil, err
			}
			if j >= 0 {
				return nil, fmt.Errorf("%w: duplicate coupon %#x in hash set", ErrCorrupt, f)
			}
			grown[^j] = f
		}
		s.coupons = grown
	}
	return s, nil
}

func (s *sketch) promoteListToSet() (*sketch, error) {
	set := newSet(s.lgK, s.typ)
	for i := 0; i < s.count; i++ {
		if _, err := set.setInsert(s.coupons[i], false); err != nil {
			return nil, err
		}
	}
	return set, nil
}

// promoteToHLL is CouponList.promoteHeapListOrSetToHll.
func (s *sketch) promoteToHLL() (*sketch, error) {
	if s.typ != typ8 {
		return nil, fmt.Errorf("%w: promotion of an HLL_%d coupon set", ErrCorrupt, 4+2*s.typ)
	}
	t := &sketch{lgK: s.lgK, typ: typ8, mode: modeHLL}
	t.initHLL()
	for _, c := range s.coupons {
		if c != 0 {
			t.update8(int(c&uint32(1<<t.lgK-1)), int(c>>keyBits))
		}
	}
	est, err := couponEstimate(s.count)
	if err != nil {
		return nil, err
	}
	t.hip = est
	t.ooo = false
	return t, nil
}

// couponEstimate is AbstractCoupons.getEstimate.
func couponEstimate(count int) (float64, error) {
	x := float64(count)
	n := len(couponX)
	if x < couponX[0] || x > couponX[n-1] {
		return 0, fmt.Errorf("%w: coupon count %d out of range", ErrCorrupt, count)
	}
	var est float64
	if x == couponX[n-1] {
		est = couponY[n-1]
	} else {
		lo, hi := 0, n-1
		for lo+1 != hi {
			mid := lo + (hi-lo)/2
			if couponX[mid] <= x {
				lo = mid
			} else {
				hi = mid
			}
		}
		off := lo - 1
		switch lo {
		case 0:
			off = 0
		case n - 2:
			off = lo - 2
		}
		est = cubic(couponX[off:off+4], couponY[off:off+4], x)
	}
	return math.Max(est, x), nil
}

// cubic is CubicInterpolation.cubicInterpolate; the explicit float64
// conversions keep Go from fusing multiply-adds, as Java never does.
func cubic(xs, ys []float64, x float64) float64 {
	x0, x1, x2, x3 := xs[0], xs[1], xs[2], xs[3]
	y0, y1, y2, y3 := ys[0], ys[1], ys[2], ys[3]
	l0n := float64(float64((x-x1)*(x-x2)) * (x - x3))
	l1n := float64(float64((x-x0)*(x-x2)) * (x - x3))
	l2n := float64(float64((x-x0)*(x-x1)) * (x - x3))
	l3n := float64(float64((x-x0)*(x-x1)) * (x - x2))
	l0d := float64(float64((x0-x1)*(x0-x2)) * (x0 - x3))
	l1d := float64(float64((x1-x0)*(x1-x2)) * (x1 - x3))
	l2d := float64(float64((x2-x0)*(x2-x1)) * (x2 - x3))
	l3d := float64(float64((x3-x0)*(x3-x1)) * (x3 - x2))
	t0 := float64(y0*l0n) / l0d
	t1 := float64(y1*l1n) / l1d
	t2 := float64(y2*l2n) / l2d
	t3 := float64(y3*l3n) / l3d
	return float64(float64(t0+t1)+t2) + t3
}

// copyAs is HllSketchImpl.copyAs.
func (s *sketch) copyAs(typ int) (*sketch, error) {
	if s.mode != modeHLL {
		c := *s
		c.typ = typ
		c.coupons = append([]uint32(nil), s.coupons...)
		return &c, nil
	}
	if typ == s.typ {
		c := *s
		c.arr = append([]byte(nil), s.arr...)
		if s.aux != nil {
			c.aux = s.aux.clone()
		}
		return &c, nil
	}
	switch typ {
	case typ8:
		return s.toHll8()
	case typ4:
		return s.toHll4()
	}
	return nil, fmt.Errorf("%w: conversion to HLL_6", ErrCorrupt)
}

// compact is toCompactByteArray of a heap sketch.
func (s *sketch) compact() ([]byte, error) {
	if s.mode != modeHLL {
		start, pre := listStart, listPreInts
		if s.mode == modeSet {
			start, pre = setStart, setPreInts
		}
		out := make([]byte, start+4*s.count)
		out[0], out[1], out[2], out[3], out[4] = byte(pre), 1, 7, byte(s.lgK), byte(s.lgArr)
		flags := byte(flagCompact)
		if s.isEmpty() {
			flags |= flagEmpty
		}
		out[5] = flags
		out[7] = byte(s.mode | s.typ<<2)
		n := 0
		for _, c := range s.coupons {
			if c == 0 {
				continue
			}
			if start+4*n+4 > len(out) {
				return nil, fmt.Errorf("%w: hash set holds more coupons than its count %d", ErrCorrupt, s.count)
			}
			binary.LittleEndian.PutUint32(out[start+4*n:], c)
			n++
		}
		if s.mode == modeList {
			out[6] = byte(s.count)
		} else {
			binary.LittleEndian.PutUint32(out[8:], uint32(s.count))
		}
		return out, nil
	}
	auxBytes := 0
	if s.aux != nil {
		auxBytes = 4 * s.aux.count
	}
	out := make([]byte, hllStart+len(s.arr)+auxBytes)
	out[0], out[1], out[2], out[3] = hllPreInts, 1, 7, byte(s.lgK)
	flags := byte(flagCompact)
	if s.ooo {
		flags |= flagOoo
	}
	if s.rebuild {
		flags |= flagRebuild
	}
	out[5] = flags
	out[6] = byte(s.curMin)
	out[7] = byte(modeHLL | s.typ<<2)
	binary.LittleEndian.PutUint64(out[8:], math.Float64bits(s.hip))
	binary.LittleEndian.PutUint64(out[16:], math.Float64bits(s.kxq0))
	binary.LittleEndian.PutUint64(out[24:], math.Float64bits(s.kxq1))
	binary.LittleEndian.PutUint32(out[32:], uint32(s.numAtCurMin))
	copy(out[hllStart:], s.arr)
	if s.aux != nil {
		binary.LittleEndian.PutUint32(out[36:], uint32(s.aux.count))
		out[4] = byte(s.aux.lgArr)
		at := hllStart + len(s.arr)
		for _, p := range s.aux.arr {
			if p == 0 {
				continue
			}
			if at+4 > len(out) {
				return nil, fmt.Errorf("%w: aux table holds more entries than its count %d", ErrCorrupt, s.aux.count)
			}
			binary.LittleEndian.PutUint32(out[at:], p)
			at += 4
		}
	}
	return out, nil
}
