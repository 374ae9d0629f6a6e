package merge

import "errors"

// Sentinel errors. Every error returned by this package wraps exactly one of
// them (test with errors.Is) and names the option key, column or run involved.
var (
	// ErrInvalidOption marks a table option that is malformed or contradicts
	// another option (Java throws IllegalArgumentException /
	// IllegalStateException for these when the table is opened). Returned by
	// NewConfig only.
	ErrInvalidOption = errors.New("merge: invalid option")

	// ErrUnsupported marks a valid Paimon option value or input type that this
	// implementation does not handle (theta sketches in serialization
	// versions 1, 2 and 4).
	ErrUnsupported = errors.New("merge: unsupported")

	// ErrSchema marks input records whose Arrow schema does not fit the
	// KeyValue layout or the table row type given to NewConfig (missing
	// _SEQUENCE_NUMBER / _VALUE_KIND, a value column that is not a table field,
	// a column type that does not match its aggregate function, a batch whose
	// schema differs from the merger's).
	ErrSchema = errors.New("merge: schema mismatch")

	// ErrUnsorted marks a sorted run whose keys decrease, which is a corrupt
	// or mis-ordered data file.
	ErrUnsorted = errors.New("merge: sorted run out of order")

	// ErrRetract marks a retraction (-U or -D record) that the merge engine
	// cannot accept, mirroring Java's IllegalArgumentException /
	// UnsupportedOperationException: first-row without ignore-delete,
	// partial-update deletes without ignore-delete, remove-record-on-delete or
	// sequence groups, and aggregate functions without retraction support.
	ErrRetract = errors.New("merge: retraction not accepted")

	// ErrArithmetic marks an integer overflow or a division that Java rejects
	// with ArithmeticException (sum / product of TINYINT..BIGINT, product
	// retraction dividing by zero or producing a non-terminating decimal).
	ErrArithmetic = errors.New("merge: arithmetic error")

	// ErrNull marks a null in a NOT NULL field where Java's partial-update and
	// aggregation engines reject it ("Field i can not be null").
	ErrNull = errors.New("merge: null in not-null field")

	// ErrCorruptValue marks a field value an aggregate function cannot
	// decode, such as rbm32 or rbm64 bytes that are no RoaringBitmap
	// serialization (Java: "Unable to se/deserialize roaring bitmap") or a
	// truncated theta sketch.
	ErrCorruptValue = errors.New("merge: corrupt aggregate value")

	// ErrValueKind marks a _VALUE_KIND byte outside 0..3.
	ErrValueKind = errors.New("merge: invalid value kind")
)
