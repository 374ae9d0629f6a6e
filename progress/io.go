package progress

import (
	"context"
	"errors"
	"fmt"
	"strings"

	"github.com/google/uuid"

	"github.com/paimon-go/paimon/fileio"
	"github.com/paimon-go/paimon/snapshot"
)

// Dir returns the directory of a branch's offsets files relative to the
// table root (paimon-cpp RealtimeCommitProperties::OffsetsDirectory over
// BranchManager::BranchPath): "metadata" for the main branch (branch "" or
// "main"), "branch/branch-<branch>/metadata" otherwise.
func Dir(branch string) string {
	if branch == "" || branch == "main" {
		return "metadata"
	}
	return "branch/branch-" + branch + "/metadata"
}

// FileSuffix ends the name of every offsets file.
const FileSuffix = ".offsets"

// IsFilePath reports whether rel, a path relative to the table root, has
// the form of an offsets file: <Dir(branch)>/<name>.offsets for the main
// branch or any branch, with <name> a non-empty file name (no '/'). A
// Property value that Path resolves to anything else (a schema file, a data
// file) names no offsets file, and table maintenance must neither delete
// nor trust it (package expire skips it).
func IsFilePath(rel string) bool {
	dir, name, ok := cutLast(rel)
	if !ok {
		return false
	}
	if stem, ok := strings.CutSuffix(name, FileSuffix); !ok || stem == "" || stem == "." {
		return false
	}
	if dir == Dir("") {
		return true
	}
	b, ok := strings.CutSuffix(dir, "/"+Dir(""))
	if !ok {
		return false
	}
	branch, ok := strings.CutPrefix(b, "branch/branch-")
	return ok && branch != "" && branch != "." && !strings.Contains(branch, "/") && !strings.HasPrefix(branch, ".")
}

// cutLast splits p at its last '/'.
func cutLast(p string) (dir, name string, ok bool) {
	i := strings.LastIndexByte(p, '/')
	if i < 0 {
		return "", "", false
	}
	return p[:i], p[i+1:], true
}

// Location returns the full location of rel, a path below fio's root, in
// the form a snapshot property records it (paimon-cpp records the path its
// file system was given: the table path joined with the relative path):
// the absolute file-system path on local disk ("/tmp/wh/db.db/t/metadata/x"),
// scheme://bucket/key on object stores (the URL's query parameters, such as
// an S3 endpoint, are left out), mem://key for memory stores.
func Location(fio *fileio.FileIO, rel string) string {
	root := rootLocation(fio)
	if strings.HasSuffix(root, "/") {
		return root + rel
	}
	return root + "/" + rel
}

// rootLocation is fio's root in the form of Location.
func rootLocation(fio *fileio.FileIO) string {
	u, _, _ := strings.Cut(fio.URL(), "?")
	if local, ok := strings.CutPrefix(u, "file://"); ok {
		return local
	}
	return u
}

// Path resolves a Property value, as written by Write or by paimon-cpp, to
// the path of the offsets file below fio's root (the table root). A value
// that begins with the root's Location is taken relative to it; otherwise
// (a table copied, or written through another URL or scheme such as Java's
// "file:/...") the path is the value's tail from its last "metadata/"
// element on, including a "branch/branch-<name>/" in front of it. Errors
// wrap ErrCorrupt when the value names no file in a metadata directory.
func Path(fio *fileio.FileIO, property string) (string, error) {
	root := rootLocation(fio)
	if !strings.HasSuffix(root, "/") {
		root += "/"
	}
	if rel, ok := strings.CutPrefix(property, root); ok && rel != "" {
		return rel, nil
	}
	segs := strings.Split(property, "/")
	for i := len(segs) - 2; i >= 0; i-- {
		if segs[i] != "metadata" {
			continue
		}
		start := i
		if i >= 2 && segs[i-2] == "branch" && strings.HasPrefix(segs[i-1], "branch-") {
			start = i - 2
		}
		return strings.Join(segs[start:], "/"), nil
	}
	return "", fmt.Errorf("%w: snapshot property %s = %q names no offsets file below %s", ErrCorrupt, Property, property, root)
}

// Write writes o as a new offsets file <Dir(branch)>/<random UUID>.offsets
// below fio's root (the table root) with create-if-absent semantics and
// returns the value to record as the snapshot's Property: the file's
// Location (paimon-cpp RealtimeCommitProperties::WriteOffsets). Errors wrap
// ErrInvalidRange (see Encode) or the file system's error (fileio.ErrExist
// should the UUID be taken, fileio.ErrOutcomeUnknown when the file may have
// been written: nothing refers to it, so it is an orphan at worst), naming
// the file.
func Write(ctx context.Context, fio *fileio.FileIO, branch string, o Offsets) (string, error) {
	data, err := Encode(o)
	if err != nil {
		return "", err
	}
	rel := Dir(branch) + "/" + uuid.NewString() + ".offsets"
	if err := fio.CreateIfAbsent(ctx, rel, data); err != nil {
		return "", fmt.Errorf("progress: write offsets file %s: %w", rel, err)
	}
	return Location(fio, rel), nil
}

// Read reads the offsets file a Property value names (see Path for how it
// is resolved below fio, the table root). branch is the branch whose
// snapshot carries the value; it only appears in messages, because the
// file may live in another branch's directory (a branch created from a
// snapshot of main shares main's files). Errors wrap fileio.ErrNotExist
// when the file is missing, ErrCorrupt (see Path and Decode) and other
// file-system errors, and name the file.
func Read(ctx context.Context, fio *fileio.FileIO, branch string, property string) (Offsets, error) {
	rel, err := Path(fio, property)
	if err != nil {
		return Offsets{}, err
	}
	data, err := fio.ReadFileLimit(ctx, rel, MaxFileSize)
	if err != nil {
		return Offsets{}, fmt.Errorf("progress: offsets file %s of branch %s: %w", rel, branchName(branch), err)
	}
	o, err := Decode(data)
	if err != nil {
		return Offsets{}, fmt.Errorf("progress: offsets file %s of branch %s: %w", rel, branchName(branch), err)
	}
	return o, nil
}

func branchName(branch string) string {
	if branch == "" {
		return "main"
	}
	return branch
}

// OfSnapshot returns the durable progress s records (paimon-cpp
// RealtimeCommitProperties::ReadOffsets) and true, or empty Offsets and
// false when s is nil, has no properties or no Property key; then the
// snapshot says nothing about progress (see docs/realtime-design.md
// section 5, interop note: a snapshot written by another engine may have
// dropped it). branch is the branch s belongs to. Errors are those of Read.
func OfSnapshot(ctx context.Context, fio *fileio.FileIO, branch string, s *snapshot.Snapshot) (Offsets, bool, error) {
	if s == nil {
		return Offsets{}, false, nil
	}
	prop, ok := s.Properties[Property]
	if !ok {
		return Offsets{}, false, nil
	}
	o, err := Read(ctx, fio, branch, prop)
	if err != nil {
		return Offsets{}, false, fmt.Errorf("progress: snapshot %d: %w", s.ID, err)
	}
	return o, true, nil
}

// ReadCommitted returns the durable progress of snapshot snapshotID of
// branch ("" or "main" for the main branch) of the table rooted at fio, or
// of its latest snapshot when snapshotID <= 0 (paimon-cpp
// RealtimeSnapshotOffsets::ReadAllOffsets). A table without snapshots, or
// a snapshot without progress, gives empty Offsets. Errors wrap
// snapshot.ErrNotFound for a missing explicit snapshot, and those of
// OfSnapshot.
func ReadCommitted(ctx context.Context, fio *fileio.FileIO, branch string, snapshotID int64) (Offsets, error) {
	m := snapshot.NewManager(fio).Branch(branch)
	var s *snapshot.Snapshot
	var err error
	if snapshotID <= 0 {
		s, err = m.Latest(ctx)
		if errors.Is(err, snapshot.ErrNotFound) {
			return Offsets{}, nil
		}
	} else {
		s, err = m.Get(ctx, snapshotID)
	}
	if err != nil {
		return Offsets{}, fmt.Errorf("progress: branch %s: %w", branchName(branch), err)
	}
	o, _, err := OfSnapshot(ctx, fio, branch, s)
	return o, err
}

// ReadOffset returns the committed end of pb in the progress ReadCommitted
// returns, or -1 when pb has none (paimon-cpp
// RealtimeSnapshotOffsets::ReadOffset). Errors are those of ReadCommitted.
func ReadOffset(ctx context.Context, fio *fileio.FileIO, branch string, snapshotID int64, pb PartitionBucket) (int64, error) {
	o, err := ReadCommitted(ctx, fio, branch, snapshotID)
	if err != nil {
		return 0, err
	}
	if end, ok := o.End(pb); ok {
		return end, nil
	}
	return -1, nil
}
