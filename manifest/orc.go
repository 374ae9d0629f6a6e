package manifest

import "fmt"

// decodeORC decodes a manifest stored as ORC (tables with manifest.format=orc, Paimon ≤ 2.0).
// The rows are read as Arrow records and converted by fromArrow.
func decodeORC[T any](data []byte, fromArrow arrowConverter[T]) ([]T, error) {
	_ = fromArrow
	return nil, fmt.Errorf("%w: ORC manifest (package format/orc is not wired in yet)", ErrUnsupportedFormat)
}
