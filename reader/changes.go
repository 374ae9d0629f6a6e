package reader

import (
	"cmp"
	"context"
	"fmt"
	"slices"
	"sync"

	"github.com/paimon-go/paimon/manifest"
	"github.com/paimon-go/paimon/snapshot"
)

// ChangeMode selects which files of a snapshot a change plan (WithChanges)
// reads.
type ChangeMode uint8

const (
	// ChangesDelta reads the files the snapshot's delta manifest list adds
	// (Java ScanMode.DELTA): the data files written by that commit. DELETE
	// entries are ignored, as Java's delta scans do.
	ChangesDelta ChangeMode = iota + 1
	// ChangesChangelog reads the files of the snapshot's changelog manifest
	// list (Java ScanMode.CHANGELOG); a snapshot without one has no rows.
	ChangesChangelog
)

// String returns "delta" or "changelog" (Java's incremental-between-scan-mode
// spelling).
func (m ChangeMode) String() string {
	switch m {
	case ChangesDelta:
		return "delta"
	case ChangesChangelog:
		return "changelog"
	}
	return fmt.Sprintf("ChangeMode(%d)", m)
}

// changeSpec is the WithChanges request.
type changeSpec struct {
	snapshotID int64
	mode       ChangeMode
}

// WithChanges plans the changes of one snapshot instead of a batch read of
// the table: the files the snapshot's delta manifest list adds
// (ChangesDelta) or the files of its changelog manifest list
// (ChangesChangelog), whatever the snapshot's commit kind; the caller picks
// the snapshots (Java's DeltaFollowUpScanner takes APPEND snapshots only,
// ChangelogFollowUpScanner every snapshot with a changelog).
//
// The files are read as Java reads streaming splits (DataSplit.isStreaming):
// one after another, without merging and without deletion vectors, each row
// with the row kind it was written with (_VALUE_KIND of key-value files; +I
// for append tables). Add WithRowKind to see the row kinds. Each
// partition-bucket is one split (Split.Changes set), its files ordered by
// level, then sequence number. The rows are read with the latest schema of
// the table, as Java's streaming reads are. WithFilter, WithWhere,
// WithColumns, WithBucket and WithBranch apply as to batch reads;
// bucket-postpone files (bucket -2) are left out.
//
// Plan fails with ErrNoSnapshot (wrapping ErrSnapshotExpired when the id is
// below the earliest snapshot) for a snapshot that does not exist, and with
// ErrInvalidScan for a snapshot id below 1, an unknown mode, or when combined
// with WithSnapshot, WithTag or WithTimestamp.
func WithChanges(snapshotID int64, mode ChangeMode) Option {
	return func(c *config) { c.changes = &changeSpec{snapshotID: snapshotID, mode: mode} }
}

// checkChanges rejects contradictory change-plan options.
func (s *Scan) checkChanges() error {
	ch := s.cfg.changes
	if ch == nil {
		return nil
	}
	if ch.mode != ChangesDelta && ch.mode != ChangesChangelog {
		return fmt.Errorf("%w: change mode %d", ErrInvalidScan, ch.mode)
	}
	if ch.snapshotID < 1 {
		return fmt.Errorf("%w: changes of snapshot %d", ErrInvalidScan, ch.snapshotID)
	}
	if s.timeTravel() {
		return fmt.Errorf("%w: WithChanges together with WithSnapshot, WithTag or WithTimestamp", ErrInvalidScan)
	}
	return nil
}

// changeLists returns the manifest lists mode reads of sn ("" entries are
// skipped by the caller).
func changeLists(sn *snapshot.Snapshot, mode ChangeMode) []string {
	if mode == ChangesChangelog {
		if sn.ChangelogManifestList == nil {
			return nil
		}
		return []string{*sn.ChangelogManifestList}
	}
	return []string{sn.DeltaManifestList}
}

// planChanges fills plan.Splits with the ADD entries of the manifest lists
// of the snapshots' changes, grouped into change splits. Level-0 files of
// deletion-vector and first-row tables are left out unless allLevels (Java's
// batch scans filter them, its streaming scans do not).
func (s *Scan) planChanges(ctx context.Context, t *tableState, plan *Plan, pr *pruner, lists []string, allLevels bool) error {
	entries, err := s.readAdded(ctx, t, lists, pr)
	if err != nil {
		return err
	}
	splits, err := buildSplits(t, plan.Schema, entries, nil, allLevels, false)
	if err != nil {
		return err
	}
	for _, sp := range splits {
		sp.Changes = true
		sp.RawConvertible = true
	}
	// Changes are read in commit order (the order of the entries), as Java
	// reads the files of its incremental and streaming splits: a lookup or
	// full-compaction changelog file sits at its compaction's output level,
	// so the level order of a merge read would put later changes first.
	manifestOrder(splits, entries)
	plan.Splits = splits
	return nil
}

// manifestOrder orders the files of change splits as their entries are
// ordered (commit order), as Java's incremental reads read them.
func manifestOrder(splits []*Split, entries []manifest.Entry) {
	pos := make(map[string]int, len(entries))
	for i := range entries {
		pos[entries[i].File.FileName] = i
	}
	for _, sp := range splits {
		slices.SortStableFunc(sp.Files, func(a, b manifest.DataFileMeta) int { return cmp.Compare(pos[a.FileName], pos[b.FileName]) })
	}
}

// readAdded reads the manifests of the given manifest lists (in order),
// drops manifests and entries the pruner rules out and returns the ADD
// entries in manifest order.
func (s *Scan) readAdded(ctx context.Context, t *tableState, lists []string, pr *pruner) ([]manifest.Entry, error) {
	var metas []manifest.FileMeta
	for _, name := range lists {
		if name == "" {
			continue
		}
		m, err := t.mc.ManifestList(ctx, t.fio, name)
		if err != nil {
			return nil, err
		}
		for i := range m {
			if pr.keepManifest(&m[i]) {
				metas = append(metas, m[i])
			}
		}
	}
	results := make([][]manifest.Entry, len(metas))
	errs := make([]error, len(metas))
	sem := make(chan struct{}, s.cfg.parallelism)
	var wg sync.WaitGroup
	for i, m := range metas {
		wg.Add(1)
		sem <- struct{}{}
		go func() {
			defer wg.Done()
			defer func() { <-sem }()
			results[i], errs[i] = t.mc.Manifest(ctx, t.fio, m.FileName)
		}()
	}
	wg.Wait()
	var out []manifest.Entry
	for i := range metas {
		if errs[i] != nil {
			return nil, errs[i]
		}
		for j := range results[i] {
			e := &results[i][j]
			if e.Kind != manifest.Add {
				continue
			}
			ok, err := pr.keep(ctx, e)
			if err != nil {
				return nil, err
			}
			if ok {
				out = append(out, *e)
			}
		}
	}
	return out, nil
}
