package row

import (
	"encoding/binary"
	"fmt"
	"math/bits"
)

// hashSeed is MurmurHashUtils.DEFAULT_SEED.
const hashSeed = 42

// HashCode returns Java's BinaryRow.hashCode(): MurmurHashUtils.hashBytesByWords
// over the row bytes (header byte included, arity not included) with seed 42,
// i.e. Murmur3 x86_32 reading 4-byte little-endian words, then h ^= size and
// fmix32. Rows built by this package are multiples of 8 bytes; for a row
// whose size is not a multiple of 4 only the whole words are mixed (the size
// is still the full size). The zero BinaryRow hashes like EmptyRow.
func HashCode(b BinaryRow) int32 {
	if b.arity == 0 && len(b.data) == 0 {
		return hashBytesByWords(EmptyRow().data) // the zero value stands for EMPTY_ROW
	}
	return hashBytesByWords(b.data)
}

// hashBytesByWords is MurmurHashUtils.hashBytesByWords(segment, 0, len(data), 42).
func hashBytesByWords(data []byte) int32 {
	h := mixWords(hashSeed, data)
	h ^= uint32(len(data))
	return int32(fmix32(h))
}

// HashBytes returns Paimon's MurmurHashUtils.hashBytes(segment, 0,
// len(b), 42), the hashCode of a BinaryString with bytes b: Murmur3 x86_32
// over the 4-byte little-endian words, then each trailing byte
// sign-extended and mixed as a word of its own, h ^= len(b) and fmix32.
func HashBytes(b []byte) int32 {
	h := mixWords(hashSeed, b)
	for _, x := range b[len(b)/4*4:] {
		h = mixH1(h, mixK1(uint32(int32(int8(x)))))
	}
	h ^= uint32(len(b))
	return int32(fmix32(h))
}

// Murmur3 returns the standard Murmur3 x86_32 hash of data with seed: the
// 4-byte little-endian words, then the 1-3 trailing bytes as one
// little-endian word, h ^= len(data) and fmix32. With seed 0 it is Guava's
// Hashing.murmur3_32().hashBytes(data).asInt() (Java's
// EntropyInjectExternalPathProvider hashes file names with it).
func Murmur3(data []byte, seed uint32) uint32 {
	h := mixWords(seed, data)
	n := len(data) / 4 * 4
	var k uint32
	switch len(data) - n {
	case 3:
		k ^= uint32(data[n+2]) << 16
		fallthrough
	case 2:
		k ^= uint32(data[n+1]) << 8
		fallthrough
	case 1:
		k ^= uint32(data[n])
		h ^= mixK1(k)
	}
	h ^= uint32(len(data))
	return fmix32(h)
}

// mixWords mixes the whole 4-byte little-endian words of data into h (the
// body of Murmur3 x86_32); trailing bytes are left to the caller.
func mixWords(h uint32, data []byte) uint32 {
	for i := 0; i+4 <= len(data); i += 4 {
		h = mixH1(h, mixK1(binary.LittleEndian.Uint32(data[i:])))
	}
	return h
}

// mixK1 is MurmurHashUtils.mixK1.
func mixK1(k uint32) uint32 {
	k *= 0xcc9e2d51
	k = bits.RotateLeft32(k, 15)
	return k * 0x1b873593
}

// mixH1 is MurmurHashUtils.mixH1.
func mixH1(h, k uint32) uint32 {
	h ^= k
	h = bits.RotateLeft32(h, 13)
	return h*5 + 0xe6546b64
}

// fmix32 is MurmurHashUtils.fmix(int).
func fmix32(h uint32) uint32 {
	h ^= h >> 16
	h *= 0x85ebca6b
	h ^= h >> 13
	h *= 0xc2b2ae35
	h ^= h >> 16
	return h
}

// Bucket returns the bucket of a record whose bucket key row is keyRow, for
// a table with numBuckets fixed buckets: Math.abs(hashCode % numBuckets)
// (org.apache.paimon.bucket.DefaultBucketFunction, bucket-function.type =
// default). keyRow must hold exactly the bucket-key fields, in bucket-key
// order, with their schema types and row kind +I (Encode builds such rows).
// numBuckets must be positive; otherwise Bucket returns -1.
func Bucket(keyRow BinaryRow, numBuckets int) int {
	if numBuckets <= 0 {
		return -1
	}
	// Java int arithmetic: % truncates toward zero, then abs. numBuckets
	// fits an int32 in Java; compute in int64 to avoid any overflow.
	b := int64(HashCode(keyRow)) % int64(numBuckets)
	if b < 0 {
		b = -b
	}
	return int(b)
}

// ModBucket is bucket-function.type = mod (org.apache.paimon.bucket.ModBucketFunction):
// Math.floorMod(value, numBuckets) of a single INT or BIGINT bucket key
// (nil counts as 0, as the zeroed slot of a null key does in Java).
// Errors wrap ErrValue for other Go types or a non-positive bucket count.
func ModBucket(key any, numBuckets int) (int, error) {
	if numBuckets <= 0 {
		return 0, fmt.Errorf("%w: %d buckets", ErrValue, numBuckets)
	}
	var v int64
	switch x := key.(type) {
	case nil:
		v = 0 // a null key's slot is zero in Java
	case int32:
		v = int64(x)
	case int64:
		v = x
	default:
		return 0, fmt.Errorf("%w: mod bucket key of Go type %T (want int32 or int64)", ErrValue, key)
	}
	m := v % int64(numBuckets)
	if m < 0 {
		m += int64(numBuckets)
	}
	return int(m), nil
}
