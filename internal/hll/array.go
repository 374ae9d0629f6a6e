package hll

import (
	"encoding/binary"
	"fmt"
)

// initHLL sets up an empty HllArray of s.lgK and s.typ (HllArray's
// constructor): no registers set, kxq0 = 2^lgK.
func (s *sketch) initHLL() {
	k := 1 << s.lgK
	s.mode = modeHLL
	s.curMin = 0
	s.numAtCurMin = int32(k)
	s.hip = 0
	s.kxq0 = float64(k)
	s.kxq1 = 0
	s.arr = make([]byte, arrBytes(s.lgK, s.typ))
}

// arrBytes is the register array size: 4, 6 or 8 bits a slot (HLL_6 with
// one spare byte).
func arrBytes(lgK, typ int) int {
	k := 1 << lgK
	switch typ {
	case typ4:
		return k / 2
	case typ6:
		return k*3/4 + 1
	}
	return k
}

// putOOO is HllArray.putOutOfOrder: setting the flag zeroes the HIP
// accumulator.
func (s *sketch) putOOO(ooo bool) {
	if ooo {
		s.hip = 0
	}
	s.ooo = ooo
}

// hipKxQ is AbstractHllArray.hipAndKxQIncrementalUpdate.
func (s *sketch) hipKxQ(oldV, newV int) {
	s.hip += float64(int32(1)<<s.lgK) / (s.kxq0 + s.kxq1)
	if oldV < 32 {
		s.kxq0 -= invPow2(oldV)
	} else {
		s.kxq1 -= invPow2(oldV)
	}
	if newV < 32 {
		s.kxq0 += invPow2(newV)
	} else {
		s.kxq1 += invPow2(newV)
	}
}

// update8 is Hll8Array.updateSlotWithKxQ.
func (s *sketch) update8(slot, v int) {
	old := int(s.arr[slot] & valMask6)
	if v > old {
		s.arr[slot] = byte(v & valMask6)
		s.hipKxQ(old, v)
		if old == 0 {
			s.numAtCurMin--
		}
	}
}

// setNoKxQ8 is Hll8Array.updateSlotNoKxQ.
func (s *sketch) setNoKxQ8(slot, v int) {
	old := int(s.arr[slot] & valMask6)
	s.arr[slot] = byte(max(v, old))
}

func (s *sketch) nibble(slot int) int {
	b := s.arr[slot>>1]
	if slot&1 != 0 {
		b >>= 4
	}
	return int(b & 0xf)
}

func (s *sketch) putNibble(slot, v int) {
	i := slot >> 1
	if slot&1 == 0 {
		s.arr[i] = s.arr[i]&0xf0 | byte(v)&0xf
	} else {
		s.arr[i] = s.arr[i]&0xf | byte(v<<4)&0xf0
	}
}

func get6(arr []byte, slot int) int {
	bit := slot * 6
	w := int(binary.LittleEndian.Uint16(arr[bit>>3:]))
	return (w >> (bit & 7)) & valMask6
}

// value is the register of slot (getSlotValue; Hll8 masks to 6 bits).
func (s *sketch) value(slot int) (int, error) {
	switch s.typ {
	case typ8:
		return int(s.arr[slot] & valMask6), nil
	case typ6:
		return get6(s.arr, slot), nil
	}
	nib := s.nibble(slot)
	if nib != auxToken {
		return nib + s.curMin, nil
	}
	if s.aux == nil {
		return 0, fmt.Errorf("%w: HLL_4 slot %d holds the exception token and there is no aux table", ErrCorrupt, slot)
	}
	return s.aux.mustFind(slot)
}

// checkRebuild is Union.checkRebuildCurMinNumKxQ: an HLL_8 image a union
// left unfinished gets curMin, numAtCurMin, kxq0 and kxq1 from its registers.
func (s *sketch) checkRebuild() error {
	if !s.rebuild || s.mode != modeHLL || s.typ != typ8 {
		return nil
	}
	curMin, num := 64, int32(0)
	kxq0, kxq1 := float64(int32(1)<<s.lgK), 0.0
	for _, b := range s.arr {
		v := int(b & valMask6)
		if v > 0 {
			if v < 32 {
				kxq0 += invPow2(v) - 1.0
			} else {
				kxq1 += invPow2(v) - 1.0
			}
		}
		if v > curMin {
			continue
		}
		if v < curMin {
			curMin, num = v, 1
		} else {
			num++
		}
	}
	s.kxq0, s.kxq1, s.curMin, s.numAtCurMin, s.rebuild = kxq0, kxq1, curMin, num, false
	return nil
}

// toHll8 is Conversions.convertToHll8.
func (s *sketch) toHll8() (*sketch, error) {
	t := &sketch{lgK: s.lgK, typ: typ8}
	t.initHLL()
	t.putOOO(s.ooo)
	zeros := int32(1) << s.lgK
	for i := 0; i < 1<<s.lgK; i++ {
		v, err := s.value(i)
		if err != nil {
			return nil, err
		}
		if v != 0 {
			zeros--
			p := pair(i, v)
			t.update8(int(p&uint32(1<<t.lgK-1)), int(p>>keyBits))
		}
	}
	t.numAtCurMin = zeros
	t.hip = s.hip
	t.rebuild = false
	return t, nil
}

// toHll4 is Conversions.convertToHll4 of an HLL_8 array.
func (s *sketch) toHll4() (*sketch, error) {
	t := &sketch{lgK: s.lgK, typ: typ4}
	t.initHLL()
	t.putOOO(s.ooo)
	k := 1 << s.lgK
	curMin, num := 64, int32(0)
	for i := 0; i < k; i++ {
		v, err := s.value(i)
		if err != nil {
			return nil, err
		}
		if v > curMin {
			continue
		}
		if v < curMin {
			curMin, num = v, 1
		} else {
			num++
		}
	}
	// HllUtil.pair(numAtCurMin, curMin) then getPairValue/getPairLow26.
	p := pair(int(num), curMin)
	curMin, num = int(p>>keyBits), int32(p&keyMask)
	for i := 0; i < k; i++ {
		v, err := s.value(i)
		if err != nil {
			return nil, err
		}
		if v == 0 {
			continue
		}
		t.hipKxQ(0, v)
		if v >= curMin+15 {
			t.putNibble(i, auxToken)
			if t.aux == nil {
				t.aux = newAux(lgAuxArrInts[s.lgK], s.lgK)
			}
			if err := t.aux.mustAdd(i, v); err != nil {
				return nil, err
			}
		} else {
			t.putNibble(i, v-curMin)
		}
	}
	t.curMin = curMin
	t.numAtCurMin = num
	t.hip = s.hip
	t.rebuild = false
	return t, nil
}

// downsample is Union.downsample: an HLL_8 copy of s at lgK.
func (s *sketch) downsample(lgK int) (*sketch, error) {
	t := &sketch{lgK: lgK, typ: typ8}
	t.initHLL()
	mask := 1<<lgK - 1
	for i := 0; i < 1<<s.lgK; i++ {
		v, err := s.value(i)
		if err != nil {
			return nil, err
		}
		if v != 0 {
			p := pair(i, v)
			t.update8(int(p)&mask, int(p>>keyBits))
		}
	}
	t.hip = s.hip
	t.putOOO(s.ooo)
	t.rebuild = false
	return t, nil
}

// mergeHLL is Union.mergeHlltoHLLmode for heap sketches: tgt is HLL_8;
// registers of src fold onto tgt's when srcLgK > tgtLgK.
func mergeHLL(src, tgt *sketch, srcLgK, tgtLgK int) error {
	srcK := 1 << srcLgK
	mask := srcK - 1
	if srcLgK > tgtLgK {
		mask = 1<<tgtLgK - 1
	}
	switch src.typ {
	case typ8:
		for i := 0; i < srcK; i++ {
			j := i & mask
			// Java compares the raw bytes as signed values.
			if int8(src.arr[i]) > int8(tgt.arr[j]) {
				tgt.arr[j] = src.arr[i]
			}
		}
	case typ4:
		for j := 0; j < srcK; j++ {
			nib := src.nibble(j)
			v := nib + src.curMin
			if nib == auxToken {
				var err error
				if src.aux == nil {
					return fmt.Errorf("%w: HLL_4 slot %d holds the exception token and there is no aux table", ErrCorrupt, j)
				}
				if v, err = src.aux.mustFind(j); err != nil {
					return err
				}
			}
			tgt.setNoKxQ8(j&mask, v)
		}
	default:
		for j := 0; j < srcK; j++ {
			tgt.setNoKxQ8(j&mask, get6(src.arr, j))
		}
	}
	tgt.rebuild = true
	return nil
}

// mergeCoupons is CouponList.mergeTo through HllSketch.couponUpdate: every
// coupon of src (LIST or SET) goes into g, which may be promoted.
func mergeCoupons(src, g *sketch) (*sketch, error) {
	for _, c := range src.coupons {
		if c == 0 || c>>keyBits == 0 {
			continue
		}
		var err error
		if g, err = g.couponUpdate(c); err != nil {
			return nil, err
		}
	}
	return g, nil
}

// unionImpl is Union.unionImpl for a heap gadget: it returns the new
// gadget after merging src into g.
func unionImpl(src, g *sketch, lgMaxK int) (*sketch, error) {
	if src.isEmpty() {
		return g, nil
	}
	if src.mode == modeList {
		return mergeCoupons(src, g)
	}
	srcLgK, gLgK := src.lgK, g.lgK
	gEmpty := g.isEmpty()
	if src.mode == modeSet {
		if gEmpty && srcLgK == gLgK {
			return src.copyAs(typ8)
		}
		return mergeCoupons(src, g)
	}
	gMode := g.mode
	if gEmpty {
		gMode = 3
	}
	sw := gMode << 1
	if srcLgK < gLgK {
		sw |= 8
	}
	if srcLgK > lgMaxK {
		sw |= 16
	}
	switch sw {
	case 0, 8, 2, 10, 16, 18:
		var s8 *sketch
		var err error
		if sw >= 16 {
			s8, err = src.downsample(lgMaxK)
		} else {
			s8, err = src.copyAs(typ8)
		}
		if err != nil {
			return nil, err
		}
		return mergeCoupons(g, s8)
	case 4, 20:
		if err := mergeHLL(src, g, srcLgK, gLgK); err != nil {
			return nil, err
		}
		g.putOOO(true)
		return g, nil
	case 12:
		d, err := g.downsample(srcLgK)
		if err != nil {
			return nil, err
		}
		if err := mergeHLL(src, d, srcLgK, gLgK); err != nil {
			return nil, err
		}
		d.putOOO(true)
		return d, nil
	case 6, 14:
		return src.copyAs(typ8)
	case 22:
		return src.downsample(lgMaxK)
	}
	return g, nil
}

// auxMap is HeapAuxHashMap: HLL_4 registers too far above curMin for a
// nibble, as (value << 26 | slot) pairs in an open-addressing table.
type auxMap struct {
	lgK, lgArr, count int
	arr               []uint32
}

func newAux(lgArr, lgK int) *auxMap {
	return &auxMap{lgK: lgK, lgArr: lgArr, arr: make([]uint32, 1<<lgArr)}
}

func (m *auxMap) clone() *auxMap {
	c := *m
	c.arr = append([]uint32(nil), m.arr...)
	return &c
}

func (m *auxMap) find(slot int) (int, error) {
	mask := 1<<m.lgArr - 1
	kmask := uint32(1<<m.lgK - 1)
	probe := slot & mask
	start := probe
	for {
		v := m.arr[probe]
		if v == 0 {
			return ^probe, nil
		}
		if uint32(slot) == v&kmask {
			return probe, nil
		}
		probe = (probe + (slot>>m.lgArr | 1)) & mask
		if probe == start {
			return 0, fmt.Errorf("%w: aux table has no free slot", ErrCorrupt)
		}
	}
}

func (m *auxMap) mustFind(slot int) (int, error) {
	i, err := m.find(slot)
	if err != nil {
		return 0, err
	}
	if i < 0 {
		return 0, fmt.Errorf("%w: HLL_4 slot %d holds the exception token and has no aux entry", ErrCorrupt, slot)
	}
	return int(m.arr[i] >> keyBits), nil
}

func (m *auxMap) mustAdd(slot, v int) error {
	i, err := m.find(slot)
	if err != nil {
		return err
	}
	if i >= 0 {
		return fmt.Errorf("%w: aux table holds slot %d twice", ErrCorrupt, slot)
	}
	m.arr[^i] = pair(slot, v)
	m.count++
	if 4*m.count > 3*len(m.arr) {
		old := m.arr
		m.lgArr++
		m.arr = make([]uint32, 1<<m.lgArr)
		kmask := uint32(1<<m.lgK - 1)
		for _, f := range old {
			if f == 0 {
				continue
			}
			j, err := m.find(int(f & kmask))
			if err != nil {
				return err
			}
			if j >= 0 {
				return fmt.Errorf("%w: aux table holds slot %d twice", ErrCorrupt, f&kmask)
			}
			m.arr[^j] = f
		}
	}
	return nil
}

// heapifyAux is HeapAuxHashMap.heapify.
func heapifyAux(b []byte, start, lgK, count int, compact bool) (*auxMap, error) {
	kmask := uint32(1<<lgK - 1)
	var lgArr, n int
	if compact {
		lgArr = computeLgArr(count, lgAuxArrInts[lgK])
		n = count
	} else {
		lgArr = int(b[4])
		if lgArr > 26 {
			return nil, fmt.Errorf("%w: aux table of 2^%d ints", ErrCorrupt, lgArr)
		}
		n = 1 << lgArr
	}
	if start+4*n > len(b) {
		return nil, fmt.Errorf("%w: %d bytes, too short for %d aux ints", ErrCorrupt, len(b), n)
	}
	m := newAux(lgArr, lgK)
	for i := 0; i < n; i++ {
		p := binary.LittleEndian.Uint32(b[start+4*i:])
		if !compact && p == 0 {
			continue
		}
		if err := m.mustAdd(int(p&keyMask&kmask), int(p>>keyBits)); err != nil {
			return nil, err
		}
	}
	return m, nil
}
