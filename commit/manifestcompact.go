package commit

import (
	"context"
	"errors"
	"fmt"
	"maps"

	"github.com/google/uuid"

	"github.com/paimon-go/paimon/fileio"
	"github.com/paimon-go/paimon/manifest"
	"github.com/paimon-go/paimon/snapshot"
)

// CompactManifests rewrites the manifests of the latest snapshot into as few
// manifests as the thresholds allow, with the ADD and DELETE entries of
// each data file netted, and publishes them as one COMPACT snapshot that
// changes no data file (Java FileStoreCommitImpl.compactManifest, the
// compact_manifest procedure). It is the on-demand counterpart of the merge
// every commit runs by threshold (manifest.merge-min-count,
// manifest.full-compaction-threshold-size): a full manifest compaction is
// forced, as Java does by setting both thresholds to their minimum. Every
// manifest that has DELETE entries or is smaller than
// manifest.target-file-size is rewritten, keeping only the ADD entries of
// files no DELETE entry removes; entries are matched by file identifier
// (partition, bucket, level, file name, extra files, embedded index,
// external path), so a file upgraded to a higher level under the same name
// stays live at its new level and is gone at its old one.
//
// The new snapshot has id latest+1, the latest snapshot's schema id, index
// manifest, total record count, watermark, statistics and properties
// (real-time progress included: the offsets file is shared), a base
// manifest list with the rewritten manifests, an empty delta manifest list,
// delta record count 0 and commit identifier BatchIdentifier. It is recorded
// under a fresh random commit user, as Java's procedure commits through a
// batch write builder of its own: under the Committer's user its identifier
// would make every later commit of that user look committed already.
//
// It returns the new snapshot's id, or 0 and nil when the table has no
// snapshot or its manifests need no rewrite (Java likewise commits nothing
// when the merged list equals the old one). A lost race for the id is
// retried on the new latest snapshot with the backoff and limits of Commit
// (ErrRetriesExhausted). Other errors: malformed manifests
// (manifest.ErrMerge and the manifest package's decoding errors), ctx
// errors and file-system errors; after an error nothing was published, and
// the files written for it are deleted, except after ErrOutcomeUnknown
// (creating the snapshot may have succeeded; nothing is deleted).
func (c *Committer) CompactManifests(ctx context.Context) (int64, error) {
	if c.retry.timeout > 0 {
		var cancel context.CancelFunc
		ctx, cancel = context.WithTimeout(ctx, c.retry.timeout)
		defer cancel()
	}
	user := uuid.NewString()
	for retry := 0; ; retry++ {
		id, lost, err := c.compactManifestsOnce(ctx, user)
		if err != nil || !lost {
			return id, err
		}
		wait, ok := c.retry.next(retry, 0, c.now(), ctx)
		if !ok {
			return 0, fmt.Errorf("%w: manifest compaction: %d attempts lost the race for the next snapshot id", ErrRetriesExhausted, retry+1)
		}
		if err := c.sleep(ctx, wait); err != nil {
			return 0, fmt.Errorf("%w: manifest compaction after %d lost races: %w", ErrRetriesExhausted, retry+1, err)
		}
	}
}

// compactManifestsOnce is one attempt of CompactManifests
// (compactManifestOnce); lost reports that another committer took the id.
func (c *Committer) compactManifestsOnce(ctx context.Context, user string) (id int64, lost bool, err error) {
	b, err := c.readBase(ctx)
	if err != nil || b.snap == nil {
		return 0, false, err
	}
	if _, err := snapshot.NextID(b.snap.ID); err != nil {
		return 0, false, fmt.Errorf("commit: manifest compaction after %s: %w", c.snaps.Path(b.snap.ID), err)
	}
	forced := mergeConfig{targetSize: c.merge.targetSize, minCount: 1, fullThreshold: 1}
	merged, pending, err := c.mw.merge(ctx, b.metas, forced, c.ts.PartitionFields())
	if err != nil {
		return 0, false, fmt.Errorf("commit: manifest compaction of snapshot %d: %w", b.snap.ID, err)
	}
	if sameManifests(b.metas, merged) {
		return 0, false, nil
	}
	baseList, err := c.mw.encodeList(merged)
	if err != nil {
		return 0, false, err
	}
	deltaList, err := c.mw.encodeList(nil)
	if err != nil {
		return 0, false, err
	}
	files := append(pending, baseList, deltaList)
	if err := c.mw.putAll(ctx, nil, files...); err != nil {
		return 0, false, err
	}
	clean := func() { c.mw.deleteFiles(context.WithoutCancel(ctx), names(files)...) }

	latest := b.snap
	baseSize, deltaSize := int64(len(baseList.data)), int64(len(deltaList.data))
	s := &snapshot.Snapshot{
		Version:               snapshot.CurrentVersion,
		ID:                    latest.ID + 1,
		SchemaID:              latest.SchemaID,
		BaseManifestList:      baseList.name,
		BaseManifestListSize:  &baseSize,
		DeltaManifestList:     deltaList.name,
		DeltaManifestListSize: &deltaSize,
		IndexManifest:         latest.IndexManifest,
		CommitUser:            user,
		CommitIdentifier:      BatchIdentifier,
		CommitKind:            snapshot.KindCompact,
		TimeMillis:            c.now().UnixMilli(),
		TotalRecordCount:      latest.TotalRecordCount,
		DeltaRecordCount:      0,
		Watermark:             latest.Watermark,
		Statistics:            latest.Statistics,
		Properties:            maps.Clone(latest.Properties),
		NextRowID:             latest.NextRowID,
	}
	data, err := s.Encode()
	if err != nil {
		clean()
		return 0, false, err
	}
	path := c.snaps.Path(s.ID)
	err = c.fio.CreateIfAbsent(ctx, path, data)
	err = newOutcomeResolver(c.fio, c.sleep).resolve(ctx, path, data, err)
	if err == nil {
		// As for commits: the id may have been used and expired since
		// latest was read (see createdInGap).
		gap, gerr := c.takeBackIfInGap(ctx, path, latest.ID, s.ID, nil)
		switch {
		case gerr != nil:
			return 0, false, gerr
		case gap:
			clean()
			return 0, true, nil
		}
	}
	switch {
	case err == nil:
		c.forgetLast()
		c.hints.update(ctx, s.ID)
		return s.ID, false, nil
	case errors.Is(err, fileio.ErrExist):
		clean()
		return 0, true, nil
	}
	if errors.Is(err, ErrOutcomeUnknown) {
		c.forgetLast() // the snapshot may now follow the one it knows
		return 0, false, err
	}
	clean()
	return 0, false, fmt.Errorf("commit: create %s: %w", path, err)
}

// forgetLast forgets the snapshot this Committer published last (and the
// base list prepared after it): a snapshot of another commit user now
// follows it, so the next commit reads the latest snapshot instead of
// building on a stale base first.
func (c *Committer) forgetLast() {
	c.mu.Lock()
	next := c.next
	c.last, c.next = nil, nil
	c.mu.Unlock()
	c.discard(context.Background(), next)
}

// sameManifests reports whether two manifest lists name the same manifests
// (Java compares them as sets).
func sameManifests(a, b []manifest.FileMeta) bool {
	if len(a) != len(b) {
		return false
	}
	in := make(map[string]bool, len(a))
	for _, m := range a {
		in[m.FileName] = true
	}
	for _, m := range b {
		if !in[m.FileName] {
			return false
		}
	}
	return true
}
