package expire

import "github.com/paimon-go/paimon/internal/snapfiles"

// Skipped is a file the table's metadata names that Expire or Rollback
// would delete but leaves alone, because the name cannot be a file table
// maintenance may delete (a crafted name below or outside the table root,
// or an offsets property naming some other file). Path is relative to the
// table root as resolved (a data file "../x" of bucket 0 is "bucket-0/../x");
// Reason is ReasonUnsafePath or ReasonNotOffsetsFile. Tag deletion reports
// the same type (tag.DeleteResult.Skipped).
type Skipped = snapfiles.Skipped

// Reasons of Skipped.
const (
	// ReasonUnsafePath: the path has an empty, "." or ".." element (a file
	// name such as "../x" or "/x"), is empty or not valid UTF-8: it may lie
	// outside the table root, and fileio refuses it (fileio.ErrInvalidPath).
	ReasonUnsafePath = snapfiles.ReasonUnsafePath
	// ReasonNotOffsetsFile: a realtime.offsets snapshot property resolves to
	// a file that is not <Dir(branch)>/<name>.offsets (progress.IsFilePath),
	// such as schema/schema-0 or a data file.
	ReasonNotOffsetsFile = snapfiles.ReasonNotOffsetsFile
)
