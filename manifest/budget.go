package manifest

import (
	"errors"
	"reflect"
)

// ErrTooLarge reports a manifest file (list, manifest or index manifest) whose decoding would
// exceed its budget (see [DecodeBudget]): blocks that decompress, or records and values that
// decode, to far more than a file of its size can hold. Such a file is hostile or corrupt; the
// error names it and is returned before the memory is spent.
var ErrTooLarge = errors.New("manifest: file decodes beyond its memory budget")

// Decoding budget of one Avro manifest file. A block of a valid file stays within Java's
// 64 KB sync interval and compresses a few times to a few dozen times (zstd on repeated stats
// rows); a block that expands a thousandfold, or a file of many such blocks, is an attack on the
// reader's memory. These limits leave two orders of magnitude of room to real files.
const (
	// minDecodeBudget is the budget of every file, however small (bytes).
	minDecodeBudget = 32 << 20
	// decodeBudgetRatio is the budget per byte of file beyond minDecodeBudget.
	decodeBudgetRatio = 256
)

// DecodeBudget returns the number of bytes the decoding of an Avro manifest file of size bytes
// may decompress and allocate: max(32 MiB, 256 × size). Decompressed blocks count their size,
// each decoded row its Go struct plus 64 bytes, each string and byte slice its length, each
// array its elements. Readers fail with [ErrTooLarge] beyond it.
func DecodeBudget(size int) int64 {
	return max(minDecodeBudget, decodeBudgetRatio*int64(size))
}

// recordCost is what a decoded row of type T is charged: its struct plus the small allocations
// of its pointer fields.
func recordCost[T any]() int64 {
	return int64(reflect.TypeFor[T]().Size()) + 64
}
