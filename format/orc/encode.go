package orc

import (
	"encoding/binary"
	"math/bits"
)

// Encoders of the ORC v1 lightweight encodings (spec section "Run Length
// Encoding"), the write-side counterparts of rle.go: byte RLE, boolean RLE,
// integer RLE v2 and base-128 varints. Each appends to a byte slice.

// appendByteRLE appends vals in byte run-length encoding: runs of 3..130
// equal bytes as control 0..127 plus the byte, everything else as literal
// groups of up to 128 bytes (control 256-n).
func appendByteRLE(dst, vals []byte) []byte {
	i := 0
	litStart := 0
	flushLit := func(end int) {
		for litStart < end {
			n := min(128, end-litStart)
			dst = append(dst, byte(256-n))
			dst = append(dst, vals[litStart:litStart+n]...)
			litStart += n
		}
	}
	for i < len(vals) {
		j := i + 1
		for j < len(vals) && j-i < 130 && vals[j] == vals[i] {
			j++
		}
		if j-i >= 3 {
			flushLit(i)
			dst = append(dst, byte(j-i-3), vals[i])
			litStart = j
		}
		i = j
	}
	flushLit(len(vals))
	return dst
}

// bitSet collects booleans, packed most significant bit first as ORC's
// boolean RLE packs them.
type bitSet struct {
	b []byte
	n int
}

func (s *bitSet) add(v bool) {
	if s.n%8 == 0 {
		s.b = append(s.b, 0)
	}
	if v {
		s.b[len(s.b)-1] |= 0x80 >> (s.n % 8)
	}
	s.n++
}

func (s *bitSet) reset() { s.b, s.n = s.b[:0], 0 }

// appendBoolRLE appends the booleans of s: their bytes in byte RLE.
func appendBoolRLE(dst []byte, s *bitSet) []byte { return appendByteRLE(dst, s.b) }

func zigzag(v int64) uint64 { return uint64(v<<1) ^ uint64(v>>63) }

// appendVarint128 appends the signed 128-bit value hi:lo (two's complement)
// zigzag-encoded as an unbounded base-128 varint (DECIMAL DATA stream).
func appendVarint128(dst []byte, hi int64, lo uint64) []byte {
	// zigzag over 128 bits: (v << 1) ^ (v >> 127)
	sign := uint64(hi >> 63)
	zlo := lo<<1 ^ sign
	zhi := (uint64(hi)<<1 | lo>>63) ^ sign
	for zhi != 0 || zlo >= 0x80 {
		dst = append(dst, byte(zlo)|0x80)
		zlo = zlo>>7 | zhi<<57
		zhi >>= 7
	}
	return append(dst, byte(zlo))
}

// widthCode returns the 5-bit code and the packed width of a bit width of
// at least n bits (inverse of width5, rounding up as closestFixedBits).
func widthCode(n int) (byte, int) {
	w := closestFixedBits(n)
	switch {
	case w <= 24:
		return byte(w - 1), w
	case w == 26:
		return 24, w
	case w == 28:
		return 25, w
	case w == 30:
		return 26, w
	case w == 32:
		return 27, w
	case w == 40:
		return 28, w
	case w == 48:
		return 29, w
	case w == 56:
		return 30, w
	}
	return 31, 64
}

// appendIntRLEv2 appends vals in integer RLE v2 (zigzag when signed): runs
// of one value as SHORT_REPEAT (3..10 values) or fixed-step DELTA (up to
// 512 values, arithmetic progressions included), everything else as DIRECT
// groups of up to 512 values. PATCHED_BASE is never written; every reader
// of RLE v2 decodes all four sub-encodings.
func appendIntRLEv2(dst []byte, vals []int64, signed bool) []byte {
	i := 0
	litStart := 0
	for i < len(vals) {
		n := stepRun(vals[i:], signed)
		if n < 3 || (n < 8 && i > litStart) {
			// Too short to be worth breaking a literal group.
			i++
			continue
		}
		dst = appendDirect(dst, vals[litStart:i], signed)
		dst = appendStepRun(dst, vals[i:i+n], signed)
		i += n
		litStart = i
	}
	return appendDirect(dst, vals[litStart:], signed)
}

// stepRun returns the length (at most 512) of the arithmetic progression
// at the start of vals whose step fits int64 (and, for unsigned streams,
// whose values are all non-negative).
func stepRun(vals []int64, signed bool) int {
	if len(vals) < 3 {
		return 1
	}
	if !signed && (vals[0] < 0 || vals[1] < 0) {
		return 1
	}
	d, ok := sub(vals[1], vals[0])
	if !ok {
		return 1
	}
	n := 2
	for n < len(vals) && n < 512 {
		if !signed && vals[n] < 0 {
			break
		}
		e, ok := sub(vals[n], vals[n-1])
		if !ok || e != d {
			break
		}
		n++
	}
	return n
}

func sub(a, b int64) (int64, bool) {
	d := a - b
	if (a >= b) != (d >= 0) {
		return 0, false
	}
	return d, true
}

func appendStepRun(dst []byte, run []int64, signed bool) []byte {
	n := len(run)
	enc := func(v int64) uint64 {
		if signed {
			return zigzag(v)
		}
		return uint64(v)
	}
	if run[0] == run[n-1] && n <= 10 {
		u := enc(run[0])
		w := max(1, (bits.Len64(u)+7)/8)
		dst = append(dst, byte((w-1)<<3|(n-3)))
		for k := w - 1; k >= 0; k-- {
			dst = append(dst, byte(u>>(8*k)))
		}
		return dst
	}
	dst = append(dst, 0xc0|byte((n-1)>>8&1), byte(n-1))
	dst = binary.AppendUvarint(dst, enc(run[0]))
	return binary.AppendUvarint(dst, zigzag(run[1]-run[0]))
}

// appendDirect appends vals as DIRECT groups of up to 512 values.
func appendDirect(dst []byte, vals []int64, signed bool) []byte {
	var u [512]uint64
	for len(vals) > 0 {
		n := min(512, len(vals))
		var or uint64
		for k, v := range vals[:n] {
			x := uint64(v)
			if signed {
				x = zigzag(v)
			}
			u[k] = x
			or |= x
		}
		code, w := widthCode(bits.Len64(or))
		dst = append(dst, 0x40|code<<1|byte((n-1)>>8&1), byte(n-1))
		dst = packBits(dst, u[:n], w)
		vals = vals[n:]
	}
	return dst
}

// packBits appends vals as big-endian bit-packed w-bit values, padded to a
// whole byte.
func packBits(dst []byte, vals []uint64, w int) []byte {
	if w%8 == 0 {
		for _, v := range vals {
			for k := w/8 - 1; k >= 0; k-- {
				dst = append(dst, byte(v>>(8*k)))
			}
		}
		return dst
	}
	var acc uint64 // pending bits, right-aligned
	nacc := 0
	for _, v := range vals {
		left := w
		for left > 0 {
			take := min(left, 64-nacc, 8)
			if nacc+take > 8 {
				take = 8 - nacc
			}
			acc = acc<<take | (v>>(left-take))&(1<<take-1)
			nacc += take
			left -= take
			if nacc == 8 {
				dst = append(dst, byte(acc))
				acc, nacc = 0, 0
			}
		}
	}
	if nacc > 0 {
		dst = append(dst, byte(acc<<(8-nacc)))
	}
	return dst
}
