package keyindex

import (
	"context"
	"errors"
	"fmt"
	"time"

	"github.com/paimon-go/paimon/fileio"
	"github.com/paimon-go/paimon/manifest"
	"github.com/paimon-go/paimon/snapshot"
)

// ErrExpired: a snapshot between a key index's snapshot and a later one
// no longer exists (snapshot expiration removed it), so the keys it placed
// are unknown. Errors wrapping it are *ExpiredError values.
var ErrExpired = errors.New("keyindex: snapshot expired")

// ExpiredError names the expired snapshot found by Range. It wraps
// ErrExpired and the snapshot.ErrNotFound of reading it.
type ExpiredError struct {
	ID  int64 // the missing snapshot
	Err error // the error of reading it
}

func (e *ExpiredError) Error() string {
	return fmt.Sprintf("keyindex: snapshot %d expired: %v", e.ID, e.Err)
}

// Unwrap returns ErrExpired and the read error.
func (e *ExpiredError) Unwrap() []error { return []error{ErrExpired, e.Err} }

// Range returns the snapshots after from up to and including to (whose id
// ends the range; to itself is not read again) that may have placed keys,
// in id order: every commit kind but COMPACT (compaction keeps each key in
// its partition-bucket) and ANALYZE (no data files). from <= 0 starts at
// snapshot 1. A snapshot of the range that does not exist fails with an
// *ExpiredError (ErrExpired); other read errors are wrapped with the
// snapshot id. The committer's cross-partition guard and the writer's key
// index refresh both walk the snapshots with it; Java keeps one key index
// per table and has no counterpart.
func Range(ctx context.Context, snaps *snapshot.Manager, from int64, to *snapshot.Snapshot) ([]*snapshot.Snapshot, error) {
	var out []*snapshot.Snapshot
	for id := max(from, 0) + 1; id <= to.ID; id++ {
		s := to
		if id != to.ID {
			var err error
			if s, err = snaps.Get(ctx, id); err != nil {
				if errors.Is(err, snapshot.ErrNotFound) {
					return nil, &ExpiredError{ID: id, Err: err}
				}
				return nil, fmt.Errorf("keyindex: snapshot %d: %w", id, err)
			}
		}
		if s.CommitKind != snapshot.KindCompact && s.CommitKind != snapshot.KindAnalyze {
			out = append(out, s)
		}
	}
	return out, nil
}

// Added returns the ADD entries of the delta manifests of s (the data
// files its commit added), in manifest order. Errors are those of package
// manifest, wrapped with the snapshot id.
func Added(ctx context.Context, fio *fileio.FileIO, s *snapshot.Snapshot) ([]manifest.Entry, error) {
	metas, err := manifest.ReadManifestList(ctx, fio, s.DeltaManifestList)
	if err != nil {
		return nil, fmt.Errorf("keyindex: files added by snapshot %d: %w", s.ID, err)
	}
	var out []manifest.Entry
	for _, m := range metas {
		es, err := manifest.ReadManifest(ctx, fio, m.FileName)
		if err != nil {
			return nil, fmt.Errorf("keyindex: files added by snapshot %d: %w", s.ID, err)
		}
		for _, e := range es {
			if e.Kind == manifest.Add {
				out = append(out, e)
			}
		}
	}
	return out, nil
}

// Fresh reports whether a partition-bucket whose live data files are files
// is bootstrapped into a key index under cross-partition-upsert.index-ttl
// ttl at now (Java IndexBootstrap.filterSplit): some file was created at
// most ttl before now. A file's creation time is the writer's local wall
// clock stored as if UTC (manifest.DataFileMeta.CreationTime); it is read
// back in the local time zone, as Java's creationTimeEpochMillis does. A
// file without a creation time counts as fresh.
func Fresh(files []manifest.DataFileMeta, ttl time.Duration, now time.Time) bool {
	for _, f := range files {
		if f.CreationTime == nil {
			return true
		}
		w := time.UnixMilli(*f.CreationTime).UTC()
		created := time.Date(w.Year(), w.Month(), w.Day(), w.Hour(), w.Minute(), w.Second(), w.Nanosecond(), time.Local)
		if now.UnixMilli() <= created.UnixMilli()+ttl.Milliseconds() {
			return true
		}
	}
	return false
}
