package deletionvector

import (
	"errors"
	"fmt"
)

var (
	// ErrCorrupt means bytes of an index file or blob are not a valid
	// deletion vector: wrong version byte, size prefix, magic number,
	// checksum, roaring layout, or a range from the manifest that does not
	// match the file.
	ErrCorrupt = errors.New("corrupt deletion vector")

	// ErrPosition means a row position is outside what the deletion vector
	// can hold: 0..2147483647 for 32-bit vectors (Java RoaringBitmap32),
	// 0..[MaxPosition64] for 64-bit vectors (Java OptimizedRoaringBitmap64).
	ErrPosition = errors.New("row position out of range")

	// ErrInvalid means a write request cannot be honoured: a nil vector, a
	// data file written twice into one index file, or a blob or file larger
	// than the format's int32 sizes and offsets allow; or RestoreMaintainer
	// was given an index file it cannot read (another index type, a file in
	// an external path).
	ErrInvalid = errors.New("invalid deletion vector write")
)

// corrupt wraps err, a description of malformed bytes, with ErrCorrupt and
// the place (file, offset) it was found.
func corrupt(where string, err error) error {
	return fmt.Errorf("deletionvector: %s: %w: %w", where, ErrCorrupt, err)
}
