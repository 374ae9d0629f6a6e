package writer

import (
	"context"
	"errors"
	"fmt"

	"github.com/paimon-go/paimon/compaction"
	"github.com/paimon-go/paimon/deletionvector"
	"github.com/paimon-go/paimon/fileio"
	"github.com/paimon-go/paimon/manifest"
	"github.com/paimon-go/paimon/reader"
)

// ErrStale reports that a Write's partition-bucket writers carry files that
// the table no longer has: the data files of a bucket's levels (or append
// compaction queue) or its deletion-vector index files, restored from an
// earlier snapshot or written by this Write and committed, were deleted
// since, because the table was rolled back (expire.Rollback) below the
// snapshot they came from, or because another job compacted them away and
// expiration deleted them. It is returned (wrapping the file system's
// fileio.ErrNotExist and naming the missing file) by Write or PrepareCommit
// when a compaction, or the restore of a bucket's deletion vectors, cannot
// read such a file, and only when the latest snapshot does not name the
// file either (a file that the latest snapshot names but the store lacks is
// a damaged table, reported as the plain error).
//
// Recovery: call Write.Restore, which discards the rows written since the
// last PrepareCommit and restores every writer from the latest snapshot,
// then write those rows again. Messages returned by PrepareCommit before the
// rollback that were not committed must not be committed any more.
var ErrStale = errors.New("writer: write is stale (the table changed under it): Restore drops the rows this Write has not committed, which must then be written again")

// staleCheck returns cause, or ErrStale wrapping it when cause wraps
// fileio.ErrNotExist and one of data (files of the bucket directory dir)
// or index (deletion-vector index files) that the Write's state names is
// missing from the store and not named by the latest snapshot. It runs only
// on the error path: it plans the latest snapshot and checks the existence
// of the files that snapshot does not name.
func (w *Write) staleCheck(ctx context.Context, dir string, data []manifest.DataFileMeta, index []manifest.IndexFileMeta, cause error) error {
	if !errors.Is(cause, fileio.ErrNotExist) || (len(data) == 0 && len(index) == 0) {
		return cause
	}
	ctx = context.WithoutCancel(ctx)
	plan, err := reader.NewScan(w.fio, reader.WithAllLevels(), reader.WithoutFallback()).Plan(ctx)
	if err != nil {
		return cause
	}
	live := map[string]bool{}
	for _, sp := range plan.Splits {
		for _, f := range sp.Files {
			live[f.FileName] = true
		}
	}
	if sn := plan.Snapshot; len(index) > 0 && sn != nil && sn.IndexManifest != nil && *sn.IndexManifest != "" {
		entries, err := manifest.ReadIndexManifest(ctx, w.fio, *sn.IndexManifest)
		if err != nil {
			return cause
		}
		for _, e := range entries {
			live[e.IndexFile.FileName] = true
		}
	}
	missing := func(name, path string, external *string) (bool, error) {
		if live[name] || external != nil {
			return false, nil
		}
		ok, err := w.fio.Exists(ctx, path)
		return !ok, err
	}
	for _, f := range data {
		p := dir + "/" + f.FileName
		if gone, err := missing(f.FileName, p, f.ExternalPath); err != nil {
			return cause
		} else if gone {
			return fmt.Errorf("%w: data file %s (level %d) of the Write's bucket state no longer exists and the latest snapshot does not name it: %w",
				ErrStale, p, f.Level, cause)
		}
	}
	for _, f := range index {
		p := deletionvector.Path(f.FileName)
		if gone, err := missing(f.FileName, p, f.ExternalPath); err != nil {
			return cause
		} else if gone {
			return fmt.Errorf("%w: index file %s of bucket %s no longer exists and the latest snapshot does not name it: %w",
				ErrStale, p, dir, cause)
		}
	}
	return cause
}

// taskFiles returns the data files a compaction task may read: every file
// of the bucket's levels (lookups read levels outside the picked unit) and
// the append groups.
func taskFiles(t *compaction.Task) []manifest.DataFileMeta {
	var out []manifest.DataFileMeta
	if t.Levels != nil {
		out = append(out, t.Levels.AllFiles()...)
	}
	for _, g := range t.Groups {
		out = append(out, g...)
	}
	return out
}
