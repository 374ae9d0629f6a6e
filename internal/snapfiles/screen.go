package snapfiles

import (
	"strings"
	"unicode/utf8"

	"github.com/paimon-go/paimon/fileio"
	"github.com/paimon-go/paimon/progress"
)

// Skipped is a file the table's metadata names that a deletion plan
// (expiration, rollback, tag deletion) would delete but leaves alone,
// because the name cannot be a file table maintenance may delete.
type Skipped struct {
	// Path is the path the metadata names, relative to the table root, as
	// resolved (a data file "../x" of bucket 0 is "bucket-0/../x").
	Path string
	// Reason says why: ReasonUnsafePath or ReasonNotOffsetsFile.
	Reason string
}

// Reasons of Skipped.
const (
	// ReasonUnsafePath: the path has an empty, "." or ".." element (a file
	// name such as "../x" or "/x"), is empty or not valid UTF-8: it may
	// lie outside the table root, and fileio refuses it
	// (fileio.ErrInvalidPath).
	ReasonUnsafePath = "unsafe path"
	// ReasonNotOffsetsFile: a realtime.offsets snapshot property resolves to
	// a file that is not <Dir(branch)>/<name>.offsets (progress.IsFilePath),
	// such as schema/schema-0 or a data file.
	ReasonNotOffsetsFile = "not an offsets file"
)

// Screen removes from p every path table maintenance must not delete and
// returns them, in p's order: paths that are not safe paths below the table
// root (see ReasonUnsafePath) from every group, and offsets paths that do
// not have the form of an offsets file. The remaining plan is what a run
// deletes, so that a crafted name neither blocks maintenance (fileio would
// fail the deletion, every run) nor makes it delete a file the name was not
// meant to reach.
func (p *Plan) Screen() []Skipped {
	var out []Skipped
	keep := func(paths []string, offsets, data bool) []string {
		kept := paths[:0]
		for _, x := range paths {
			switch {
			case !safePath(x) && !(data && fileio.IsLocation(x)):
				out = append(out, Skipped{Path: x, Reason: ReasonUnsafePath})
			case offsets && !progress.IsFilePath(x):
				out = append(out, Skipped{Path: x, Reason: ReasonNotOffsetsFile})
			default:
				kept = append(kept, x)
			}
		}
		return kept
	}
	// Data may hold canonical locations of external data files, which
	// EntryPaths returns only below the table's data-file.external-paths.
	p.Data = keep(p.Data, false, true)
	p.Index = keep(p.Index, false, false)
	p.Manifests = keep(p.Manifests, false, false)
	p.Lists = keep(p.Lists, false, false)
	p.Offsets = keep(p.Offsets, true, false)
	return out
}

// safePath reports whether p is a relative path of non-empty elements
// other than "." and "..", valid UTF-8 without NUL: a path below the table
// root (the paths fileio accepts).
func safePath(p string) bool {
	if p == "" || !utf8.ValidString(p) || strings.ContainsRune(p, 0) {
		return false
	}
	for elem := range strings.SplitSeq(p, "/") {
		if elem == "" || elem == "." || elem == ".." {
			return false
		}
	}
	return true
}
