// Package row implements Paimon's BinaryRow format and the things built on it:
// the serialized row form stored in manifests, the bucket hash, partition
// directory names and the SimpleStats triple of a data file.
//
// Everything here is byte-compatible with Java Paimon (paimon-common
// org.apache.paimon.data.BinaryRow / BinaryRowWriter / BinaryArray / BinaryMap,
// org.apache.paimon.memory.MemorySegmentUtils, org.apache.paimon.utils.MurmurHashUtils,
// org.apache.paimon.utils.PartitionPathUtils and InternalRowPartitionComputer,
// org.apache.paimon.stats.SimpleStatsConverter). The byte layout is described in
// section 7 of docs/paimon-format.md: a null bit set whose first byte is the
// row kind, one 8-byte little-endian slot per field, and an 8-byte aligned
// variable-length part.
//
// Go values follow the convention of package types (INT int32, STRING string,
// DECIMAL types.Decimal, ...). Decoding never panics on corrupt input: it
// returns an error wrapping ErrCorrupt.
package row

import (
	"encoding/binary"
	"errors"
	"fmt"
)

// Sentinel errors. Every error returned by this package wraps one of them.
var (
	// ErrCorrupt reports bytes that are not a valid BinaryRow / BinaryArray /
	// BinaryMap / serialized row (truncated, offsets out of range, bad lengths).
	ErrCorrupt = errors.New("row: corrupt binary row")
	// ErrSchema reports a mismatch between a row and the field types given
	// for it (arity differs, unknown column name).
	ErrSchema = errors.New("row: row does not match schema")
	// ErrValue reports a Go value that cannot be stored in the given type
	// (wrong Go type, decimal out of precision, bad nano-of-millisecond,
	// partition value that has no path form).
	ErrValue = errors.New("row: value does not match type")
	// ErrUnsupported reports a type this package cannot encode or decode
	// (VARIANT, VECTOR, invalid kinds).
	ErrUnsupported = errors.New("row: unsupported type")
)

// Row kinds, stored in the header byte of a BinaryRow (Java org.apache.paimon.types.RowKind).
const (
	RowKindInsert       byte = 0 // +I
	RowKindUpdateBefore byte = 1 // -U
	RowKindUpdateAfter  byte = 2 // +U
	RowKindDelete       byte = 3 // -D
)

// RowKindString returns Java's short string of a row kind ("+I", "-U", "+U",
// "-D"), or "?<n>" for an unknown byte.
func RowKindString(k byte) string {
	switch k {
	case RowKindInsert:
		return "+I"
	case RowKindUpdateBefore:
		return "-U"
	case RowKindUpdateAfter:
		return "+U"
	case RowKindDelete:
		return "-D"
	}
	return fmt.Sprintf("?%d", k)
}

// BinaryRow is one row in Paimon's binary format: the raw bytes plus the
// field count (arity), which is not stored in the bytes themselves.
// It mirrors Java's org.apache.paimon.data.BinaryRow.
//
// The zero value is the empty row of arity 0 without bytes; use EmptyRow for
// Java's BinaryRow.EMPTY_ROW (arity 0, 8 zero bytes). A BinaryRow is an
// immutable value; the byte slice is shared, not copied.
type BinaryRow struct {
	arity int
	data  []byte
}

// EmptyRow returns Java's BinaryRow.EMPTY_ROW: arity 0, 8 zero bytes (just the
// header word). It is the partition of unpartitioned tables and the min/max
// key of append files.
func EmptyRow() BinaryRow {
	return BinaryRow{arity: 0, data: make([]byte, 8)}
}

// BitSetBytes returns the size in bytes of the null bit set (including the
// header byte) of a row with the given arity: ((arity+63+8)/64)*8
// (BinaryRow.calculateBitSetWidthInBytes).
func BitSetBytes(arity int) int {
	return ((arity + 63 + 8) / 64) * 8
}

// FixedPartSize returns bitSetBytes + 8*arity, the size of the fixed-length
// part of a row (BinaryRow.calculateFixPartSizeInBytes).
func FixedPartSize(arity int) int {
	return BitSetBytes(arity) + 8*arity
}

// FromBytes wraps data (not copied) as a BinaryRow with the given arity.
// It fails with ErrCorrupt if arity is negative or data is shorter than the
// fixed-length part.
func FromBytes(arity int, data []byte) (BinaryRow, error) {
	if arity < 0 {
		return BinaryRow{}, fmt.Errorf("%w: negative arity %d", ErrCorrupt, arity)
	}
	if arity > len(data) || len(data) < FixedPartSize(arity) {
		return BinaryRow{}, fmt.Errorf("%w: %d bytes cannot hold a row of arity %d (fixed part %d bytes)",
			ErrCorrupt, len(data), arity, FixedPartSize(arity))
	}
	return BinaryRow{arity: arity, data: data}, nil
}

// Arity returns the number of fields.
func (r BinaryRow) Arity() int { return r.arity }

// Bytes returns the row bytes (header byte first), shared with the row.
func (r BinaryRow) Bytes() []byte { return r.data }

// Size returns the row size in bytes.
func (r BinaryRow) Size() int { return len(r.data) }

// RowKind returns the header byte (one of the RowKind constants for valid
// rows), or RowKindInsert for a row without bytes.
func (r BinaryRow) RowKind() byte {
	if len(r.data) == 0 {
		return RowKindInsert
	}
	return r.data[0]
}

// WithRowKind returns a copy of the row with the header byte set to kind.
func (r BinaryRow) WithRowKind(kind byte) BinaryRow {
	d := make([]byte, len(r.data))
	copy(d, r.data)
	if len(d) > 0 {
		d[0] = kind
	}
	return BinaryRow{arity: r.arity, data: d}
}

// IsNullAt reports whether field pos is null (bit pos+8 of the bit set).
// It returns false for pos out of range.
func (r BinaryRow) IsNullAt(pos int) bool {
	if pos < 0 || pos >= r.arity {
		return false
	}
	bit := pos + 8
	idx := bit >> 3
	if idx >= len(r.data) {
		return false
	}
	return r.data[idx]&(1<<(bit&7)) != 0
}

// Equal reports whether both rows have the same arity and bytes (Java
// BinaryRow.equals).
func (r BinaryRow) Equal(o BinaryRow) bool {
	if r.arity != o.arity || len(r.data) != len(o.data) {
		return false
	}
	for i := range r.data {
		if r.data[i] != o.data[i] {
			return false
		}
	}
	return true
}

// String returns "arity=<n> <hex bytes>" for debugging.
func (r BinaryRow) String() string {
	return fmt.Sprintf("arity=%d %x", r.arity, r.data)
}

// Serialize returns the form Paimon stores in manifests (_PARTITION,
// _MIN_KEY, _MAX_KEY, _MIN_VALUES, _MAX_VALUES): a 4-byte big-endian arity
// followed by the row bytes (SerializationUtils.serializeBinaryRow).
// A zero-value BinaryRow serializes like EmptyRow.
func Serialize(r BinaryRow) []byte {
	data := r.data
	if r.arity == 0 && len(data) == 0 {
		data = make([]byte, 8)
	}
	out := make([]byte, 4+len(data))
	binary.BigEndian.PutUint32(out, uint32(r.arity))
	copy(out[4:], data)
	return out
}

// Deserialize parses the manifest form written by Serialize
// (SerializationUtils.deserializeBinaryRow). The returned row shares data.
// It fails with ErrCorrupt when data is shorter than 4 bytes, the arity is
// negative or the bytes are shorter than the row's fixed-length part.
func Deserialize(data []byte) (BinaryRow, error) {
	if len(data) < 4 {
		return BinaryRow{}, fmt.Errorf("%w: serialized row of %d bytes has no arity prefix", ErrCorrupt, len(data))
	}
	arity := int(int32(binary.BigEndian.Uint32(data)))
	r, err := FromBytes(arity, data[4:])
	if err != nil {
		return BinaryRow{}, fmt.Errorf("deserialize: %w", err)
	}
	return r, nil
}
