package fileindex

import (
	"encoding/binary"
	"fmt"
	"math"

	"github.com/cespare/xxhash/v2"
)

// Bloom is the bloom filter of one column in one data file, as Java's
// BloomFilter64 (paimon-common utils/BloomFilter64.java): numBits bits,
// k probes derived from one 64-bit hash (h1 = low 32 bits, h2 = high 32
// bits, probe i = h1 + i*h2 for i in 1..k, complemented when negative,
// modulo numBits), bit p stored in byte p>>3 at bit p&7.
type Bloom struct {
	k    int32
	bits []byte
}

// NewBloom sizes a filter for items values at false-positive probability
// fpp exactly as BloomFilter64(long items, double fpp). Java's defaults are
// items 1,000,000 and fpp 0.1 (BloomFilterFileIndex.DEFAULT_ITEMS/_FPP).
func NewBloom(items int64, fpp float64) *Bloom {
	nb := int32(-float64(items) * math.Log(fpp) / (math.Ln2 * math.Ln2))
	numBits := nb + (8 - nb%8)
	k := int32(math.Round(float64(numBits) / float64(items) * math.Ln2))
	if k < 1 {
		k = 1
	}
	return &Bloom{k: k, bits: make([]byte, numBits/8)}
}

// DecodeBloom reads a bloom-filter index body (BloomFilterFileIndex.Writer
// serializedBytes: k as a big-endian int32, then the bit bytes). Errors wrap
// ErrMalformed.
func DecodeBloom(b []byte) (*Bloom, error) {
	if len(b) < 5 {
		return nil, fmt.Errorf("%w: bloom-filter body of %d bytes", ErrMalformed, len(b))
	}
	k := int32(binary.BigEndian.Uint32(b))
	if k < 1 || k > 1<<10 {
		return nil, fmt.Errorf("%w: bloom-filter with %d hash functions", ErrMalformed, k)
	}
	if len(b)-4 > math.MaxInt32/8 {
		return nil, fmt.Errorf("%w: bloom-filter of %d bytes", ErrMalformed, len(b))
	}
	return &Bloom{k: k, bits: b[4:]}, nil
}

// Bytes is the index body Java's BloomFilterFileIndex writes.
func (f *Bloom) Bytes() []byte {
	out := binary.BigEndian.AppendUint32(make([]byte, 0, 4+len(f.bits)), uint32(f.k))
	return append(out, f.bits...)
}

// HashFunctions is k, the number of probes per value.
func (f *Bloom) HashFunctions() int { return int(f.k) }

func (f *Bloom) probes(h uint64, visit func(pos int32) bool) bool {
	numBits := int32(len(f.bits) * 8)
	h1, h2 := int32(uint32(h)), int32(uint32(h>>32))
	for i := int32(1); i <= f.k; i++ {
		c := h1 + i*h2
		if c < 0 {
			c = ^c
		}
		if !visit(c % numBits) {
			return false
		}
	}
	return true
}

// AddHash records a value by its 64-bit hash (see HashLong, HashBytes).
func (f *Bloom) AddHash(h uint64) {
	f.probes(h, func(p int32) bool { f.bits[p>>3] |= 1 << (p & 7); return true })
}

// MightContainHash is false only when the value of hash h was never added.
func (f *Bloom) MightContainHash(h uint64) bool {
	return f.probes(h, func(p int32) bool { return f.bits[p>>3]&(1<<(p&7)) != 0 })
}

// HashLong is Java's FastHash.getLongHash (Thomas Wang's 64-bit mix), used
// for TINYINT, SMALLINT, INT, BIGINT, DATE, TIME (the value sign-extended to
// 64 bits), FLOAT (Float.floatToIntBits), DOUBLE (Double.doubleToLongBits)
// and TIMESTAMP (epoch millis for precision <= 3, else epoch micros).
func HashLong(v int64) uint64 {
	v = ^v + v<<21
	v ^= v >> 24
	v = v + v<<3 + v<<8
	v ^= v >> 14
	v = v + v<<2 + v<<4
	v ^= v >> 28
	v += v << 31
	return uint64(v)
}

// HashBytes is Java's FastHash.hash64: XXH64 with seed 0 of the bytes
// (UTF-8 for CHAR/VARCHAR), as zero-allocation-hashing's LongHashFunction.xx().
func HashBytes(b []byte) uint64 { return xxhash.Sum64(b) }
