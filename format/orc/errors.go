package orc

import (
	"errors"
	"fmt"
)

// ErrCorrupt reports ORC bytes that violate the ORC v1 specification: a
// truncated tail, a malformed protobuf message, a stream that ends before the
// values its column needs, an inconsistent type tree, and so on. Errors that
// wrap it name the file part that failed (postscript, footer, stripe N,
// column N, stream kind).
var ErrCorrupt = errors.New("orc: corrupt file")

// ErrUnsupportedFormat reports a valid ORC feature this read-only decoder
// does not implement: LZO compression, UNION columns, column encryption,
// unknown compression/type/encoding kinds, or a requested Arrow type the ORC
// column cannot be converted to.
var ErrUnsupportedFormat = errors.New("orc: unsupported format feature")

// corruptf returns an error wrapping ErrCorrupt.
func corruptf(format string, args ...any) error {
	return fmt.Errorf("%w: "+format, append([]any{ErrCorrupt}, args...)...)
}

// unsupportedf returns an error wrapping ErrUnsupportedFormat.
func unsupportedf(format string, args ...any) error {
	return fmt.Errorf("%w: "+format, append([]any{ErrUnsupportedFormat}, args...)...)
}
