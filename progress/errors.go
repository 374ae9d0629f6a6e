package progress

import "errors"

// Sentinel errors; test with errors.Is. Every error of this package wraps
// one of them (or a fileio / snapshot error) and says what is wrong.
var (
	// ErrCorrupt: an offsets file is not valid (paimon-cpp
	// RealtimeCommitProperties::ParseOffsets failures): not UTF-8 JSON, a
	// missing key, a value of the wrong JSON type, a version other than 1,
	// a negative bucket or offset, a duplicate partition-bucket, a duplicate
	// key, trailing data after the object; or a snapshot property that names
	// no offsets file below the table.
	ErrCorrupt = errors.New("progress: corrupt offsets")
	// ErrInvalidRange: progress that cannot be recorded: a negative bucket,
	// an empty or negative offset range, a range ending at math.MaxInt64,
	// a negative committed end, or a partition string that is not UTF-8
	// (paimon-cpp "real-time commit bucket ... is invalid", "offset range is
	// invalid", "invalid offset").
	ErrInvalidRange = errors.New("progress: invalid offset range")
	// ErrNotContiguous: a range does not begin where the committed (or the
	// previous) range of its partition-bucket ends (paimon-cpp "real-time
	// commit offsets for bucket ... are not contiguous").
	ErrNotContiguous = errors.New("progress: offset ranges not contiguous")
	// ErrInvalidPartition: partition values that do not fit the partition
	// fields of the table (count or Go type).
	ErrInvalidPartition = errors.New("progress: invalid partition")
)

// MaxFileSize is the largest offsets file (bytes) Read and Decode accept: about 300,000
// partition-buckets. The bound keeps a damaged or hostile file from being read whole into
// memory.
const MaxFileSize = 32 << 20
