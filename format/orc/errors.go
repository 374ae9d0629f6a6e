package orc

import (
	"fmt"

	"github.com/paimon-go/paimon/format"
)

// ErrCorrupt reports ORC bytes that violate the ORC v1 specification: a
// truncated tail, a malformed protobuf message, a stream that ends before the
// values its column needs, an inconsistent type tree, and so on. Errors that
// wrap it name the file part that failed (postscript, footer, stripe N,
// column N, stream kind). It is format.ErrCorrupt, so callers may test
// either name with errors.Is.
var ErrCorrupt = format.ErrCorrupt

// ErrUnsupportedFormat reports a valid ORC feature this package does not
// implement: LZO compression, UNION columns, column encryption,
// unknown compression/type/encoding kinds, or a plain timestamp column whose
// writer time zone is unknown to the system. It is
// format.ErrUnsupportedFormat.
var ErrUnsupportedFormat = format.ErrUnsupportedFormat

// corruptf returns an error wrapping ErrCorrupt.
func corruptf(msg string, args ...any) error {
	return fmt.Errorf("%w: orc: "+msg, append([]any{ErrCorrupt}, args...)...)
}

// unsupportedf returns an error wrapping ErrUnsupportedFormat.
func unsupportedf(msg string, args ...any) error {
	return fmt.Errorf("%w: orc: "+msg, append([]any{ErrUnsupportedFormat}, args...)...)
}

// mismatchf returns an error wrapping format.ErrSchemaMismatch: a requested
// Arrow type the ORC column cannot be read as.
func mismatchf(msg string, args ...any) error {
	return fmt.Errorf("%w: orc: "+msg, append([]any{format.ErrSchemaMismatch}, args...)...)
}

// outOfRangef returns an error wrapping format.ErrOutOfRange: a stored
// value the requested Arrow type cannot hold.
func outOfRangef(msg string, args ...any) error {
	return fmt.Errorf("%w: orc: "+msg, append([]any{format.ErrOutOfRange}, args...)...)
}
