package deletionvector

import (
	"encoding/binary"
	"fmt"
	"hash/crc32"
	"math"
)

const (
	// FileVersion is the first byte of every deletion-vector index file
	// (Java DeletionVectorsIndexFile.VERSION_ID_V1).
	FileVersion = 1

	// Magic32 starts the payload of a 32-bit blob, written big-endian (Java
	// BitmapDeletionVector.MAGIC_NUMBER; bytes 5E 43 F2 D0).
	Magic32 = 1581511376

	// Magic64 starts the payload of a 64-bit blob, written little-endian
	// (Java Bitmap64DeletionVector.MAGIC_NUMBER; bytes D1 D3 39 64).
	Magic64 = 1681511377

	// maxBlob is the largest blob (size prefix, payload, CRC) Java writes
	// (Bitmap64DeletionVector: "Can't serialize index > 2GB").
	maxBlob = math.MaxInt32
)

// emptyPortable is the portable serialization of an empty RoaringBitmap.
var emptyPortable = [8]byte{0x3a, 0x30, 0, 0, 0, 0, 0, 0}

// Encode returns the blob of dv as Java's DeletionVector.serializeTo writes
// it: int32 BE size, magic, bitmap, int32 BE CRC-32 of magic and bitmap.
// The bitmap is run-optimized first, in place, exactly as Java does, so
// encoding the same sequence of deletions gives Java's bytes. The
// manifest length of the blob ([Range].Length) is len-8 for 32-bit vectors
// and len for 64-bit ones; [FileWriter] records it.
//
// Errors: ErrInvalid for a nil vector or a blob over 2 GiB (a 64-bit vector
// whose largest position needs more empty bitmaps than that).
func Encode(dv *DeletionVector) ([]byte, error) {
	return appendBlob(nil, dv)
}

// metaLength returns the DeletionVectorMeta length of a blob of n bytes.
func (dv *DeletionVector) metaLength(n int) int32 {
	if dv.is64 {
		return int32(n)
	}
	return int32(n - 8)
}

// appendBlob appends the blob of dv to dst.
func appendBlob(dst []byte, dv *DeletionVector) ([]byte, error) {
	if dv == nil {
		return dst, fmt.Errorf("deletionvector: encode: %w: nil deletion vector", ErrInvalid)
	}
	start := len(dst)
	dst = append(dst, 0, 0, 0, 0) // size, set below
	if !dv.is64 {
		dst = binary.BigEndian.AppendUint32(dst, Magic32)
		dst = dv.b32.appendPortable(dst)
	} else {
		// Every key below count costs at least its key and an empty bitmap.
		if lower := 4 + 4 + 8 + 12*int64(dv.count) + 4; lower > maxBlob {
			return dst[:start], fmt.Errorf("deletionvector: encode: %w: a 64-bit vector with %d bitmaps needs more than 2 GiB", ErrInvalid, dv.count)
		}
		dst = binary.LittleEndian.AppendUint32(dst, Magic64)
		dst = binary.LittleEndian.AppendUint64(dst, uint64(dv.count))
		next := 0
		for key := range dv.count {
			dst = binary.LittleEndian.AppendUint32(dst, uint32(key))
			if next < len(dv.parts) && int(dv.parts[next].key) == key {
				dst = dv.parts[next].b.appendPortable(dst)
				next++
			} else {
				dst = append(dst, emptyPortable[:]...)
			}
		}
	}
	size := len(dst) - start - 4
	if int64(size)+8 > maxBlob {
		return dst[:start], fmt.Errorf("deletionvector: encode: %w: blob of %d bytes exceeds 2 GiB", ErrInvalid, size+8)
	}
	binary.BigEndian.PutUint32(dst[start:], uint32(size))
	crc := crc32.ChecksumIEEE(dst[start+4:])
	return binary.BigEndian.AppendUint32(dst, crc), nil
}

// DecodeBlob decodes one blob as [Encode] writes it (Java
// DeletionVector.deserializeFromBytes): blob must be exactly the size
// prefix, the payload it announces and the CRC. Unlike Java, the CRC and
// the whole bitmap layout are verified, and trailing bytes inside the
// payload and positions the vector cannot hold (above MaxPosition32 or
// MaxPosition64, which Java's isDeleted rejects) are refused.
//
// Errors: ErrCorrupt, describing the first problem found.
func DecodeBlob(blob []byte) (*DeletionVector, error) {
	dv, err := decodeBlob(blob)
	if err != nil {
		return nil, corrupt("decode blob", err)
	}
	return dv, nil
}

// decodeBlob is DecodeBlob without the error context.
func decodeBlob(blob []byte) (*DeletionVector, error) {
	if len(blob) < 12 {
		return nil, fmt.Errorf("blob of %d bytes is shorter than size, magic and checksum", len(blob))
	}
	size := int64(int32(binary.BigEndian.Uint32(blob)))
	if size < 4 || size+8 != int64(len(blob)) {
		return nil, fmt.Errorf("size prefix %d does not match a blob of %d bytes", size, len(blob))
	}
	payload := blob[4 : 4+size]
	if want, got := binary.BigEndian.Uint32(blob[4+size:]), crc32.ChecksumIEEE(payload); want != got {
		return nil, fmt.Errorf("checksum %#08x, computed %#08x", want, got)
	}
	magic := binary.BigEndian.Uint32(payload)
	switch {
	case magic == Magic32:
		b, n, err := parsePortable(payload[4:])
		if err != nil {
			return nil, err
		}
		if n != len(payload)-4 {
			return nil, fmt.Errorf("%d bytes after the bitmap", len(payload)-4-n)
		}
		if m, ok := b.maximum(); ok && m > MaxPosition32 {
			return nil, fmt.Errorf("position %d out of range of a 32-bit deletion vector", m)
		}
		return &DeletionVector{b32: b}, nil
	case binary.LittleEndian.Uint32(payload) == Magic64:
		return decode64(payload[4:])
	}
	return nil, fmt.Errorf("magic number %#08x is neither %#08x (32-bit) nor %#08x little-endian (64-bit)", magic, Magic32, Magic64)
}

// decode64 decodes the bitmap of a 64-bit blob (Java
// OptimizedRoaringBitmap64.deserialize): int64 LE count, then count pairs of
// int32 LE key (ascending, 0..MaxInt32-1) and portable RoaringBitmap.
func decode64(data []byte) (*DeletionVector, error) {
	r := byteReader{b: data}
	cnt, ok := r.u64()
	if !ok {
		return nil, fmt.Errorf("64-bit bitmap truncated in its count")
	}
	if cnt > math.MaxInt32 {
		return nil, fmt.Errorf("64-bit bitmap count %d out of range", int64(cnt))
	}
	dv := &DeletionVector{is64: true}
	last := -1
	for i := range int(cnt) {
		k, ok := r.u32()
		if !ok {
			return nil, fmt.Errorf("64-bit bitmap truncated at bitmap %d of %d", i, cnt)
		}
		key := int(int32(k))
		if key < 0 || key > math.MaxInt32-1 {
			return nil, fmt.Errorf("64-bit bitmap key %d out of range", key)
		}
		if key <= last {
			return nil, fmt.Errorf("64-bit bitmap keys not ascending (%d after %d)", key, last)
		}
		b, n, err := parsePortable(data[r.pos:])
		if err != nil {
			return nil, fmt.Errorf("64-bit bitmap key %d: %w", key, err)
		}
		r.pos += n
		if m, ok := b.maximum(); ok && int64(key)<<32|int64(m) > MaxPosition64 {
			return nil, fmt.Errorf("position %d out of range of a 64-bit deletion vector", int64(key)<<32|int64(m))
		}
		if b.cardinality() > 0 {
			dv.parts = append(dv.parts, part{key: uint32(key), b: b})
		}
		last = key
	}
	if r.pos != len(data) {
		return nil, fmt.Errorf("%d bytes after the 64-bit bitmap", len(data)-r.pos)
	}
	dv.count = last + 1
	return dv, nil
}
