package expire

// Long-lived changelog (Java ExpireSnapshotsImpl with a decoupled
// changelog, ExpireChangelogImpl, ChangelogDeletion): when
// changelog.num-retained.min/max or changelog.time-retained keep the
// changelog longer than the snapshots, a snapshot's expiration keeps its
// changelog files, changelog manifest list and changelog manifests and
// writes the snapshot's JSON as changelog/changelog-<id>; a later changelog
// expiration, run by the same Expire call, deletes them by the changelog
// retention. Only tables with a changelog-producer are handled (resolve).

import (
	"context"
	"errors"
	"fmt"
	"slices"
	"time"

	"github.com/paimon-go/paimon/internal/snapfiles"
	"github.com/paimon-go/paimon/manifest"
	"github.com/paimon-go/paimon/snapshot"
)

// keepChangelog writes s as changelog/changelog-<id> and the changelog
// LATEST hint (ChangelogManager.commitChangelog and
// commitLongLivedChangelogLatestHint). A file already there, left by an
// interrupted run, holds the same snapshot.
func keepChangelog(ctx context.Context, sm *snapshot.Manager, s *snapshot.Snapshot) error {
	cm := sm.Changelogs()
	err := cm.Commit(ctx, s)
	if errors.Is(err, snapshot.ErrExist) {
		return cm.CommitLatestHint(ctx, s.ID)
	}
	return err
}

// expireChangelogs expires the long-lived changelogs the changelog
// retention lets go (ExpireChangelogImpl.expire): ids from the earliest
// long-lived changelog up to, excluding, the first of
// [max(latest − changelog.num-retained.max + 1, earliest changelog), end]
// committed within changelog.time-retained of now, where end is
// latest − changelog.num-retained.min + 1, lowered to the consumers'
// least next snapshot, earliest changelog + snapshot.expire.limit and the
// latest long-lived changelog. Each goes with its changelog files,
// changelog manifest list and manifests, except what a tag, the first kept
// changelog or the earliest snapshot names; the changelog EARLIEST hint
// moves to the first kept id.
func expireChangelogs(ctx context.Context, t *snapfiles.Table, cfg config, opts Options, now time.Time, res Result) (Result, error) {
	sm := t.Snapshots
	cm := sm.Changelogs()
	latest, err := sm.LatestID(ctx)
	if err != nil {
		return res, err
	}
	earliestSnap, err := sm.Earliest(ctx)
	if err != nil {
		return res, err
	}
	latestCL, err := cm.LatestID(ctx)
	if errors.Is(err, snapshot.ErrNotFound) {
		return res, nil
	}
	if err != nil {
		return res, err
	}
	earliestCL, err := cm.EarliestID(ctx)
	if err != nil {
		return res, err
	}
	lo := max(latest-int64(cfg.clMax)+1, earliestCL)
	maxExclusive := latest - int64(cfg.clMin) + 1
	next, ok, err := minNextSnapshot(ctx, t.FIO, opts.Branch)
	if err != nil {
		return res, err
	}
	if ok {
		maxExclusive = min(maxExclusive, next)
	}
	maxExclusive = min(maxExclusive, earliestCL+int64(cfg.maxDeletes), latestCL)
	end := maxExclusive
	olderThan := now.Add(-cfg.clTime).UnixMilli()
	for id := lo; id <= maxExclusive; id++ {
		c, err := cm.Get(ctx, id)
		if errors.Is(err, snapshot.ErrNotFound) {
			continue
		}
		if err != nil {
			return res, err
		}
		if olderThan <= c.TimeMillis {
			end = id
			break
		}
	}
	if end <= earliestCL {
		return res, nil
	}

	// ChangelogDeletion.manifestSkippingSet of the tags, the first kept
	// changelog and the earliest snapshot (their changelog too, which Java
	// leaves out: a file something still names is never deleted).
	protect := []*snapshot.Snapshot{earliestSnap}
	if c, err := cm.Get(ctx, end); err == nil {
		protect = append(protect, c)
	} else if !errors.Is(err, snapshot.ErrNotFound) {
		return res, err
	}
	tags, err := sm.Tags(ctx)
	if err != nil {
		return res, err
	}
	for _, tg := range tags {
		protect = append(protect, &tg.Snapshot)
	}
	skip := map[string]bool{}
	for _, s := range protect {
		m, err := t.MetaOf(ctx, s, true)
		if err != nil {
			return res, err
		}
		for _, p := range m.All() {
			skip[p] = true
		}
		if s.ChangelogManifestList == nil || *s.ChangelogManifestList == "" {
			continue
		}
		paths, err := changelogFiles(ctx, t, s)
		if err != nil {
			return res, err
		}
		for _, p := range paths {
			skip[p] = true
		}
	}
	p := &snapfiles.Plan{}
	add := func(dst *[]string, paths ...string) {
		for _, x := range paths {
			if x != "" && !skip[x] {
				skip[x] = true
				*dst = append(*dst, x)
			}
		}
	}
	var gone []int64
	for id := earliestCL; id < end; id++ {
		c, err := cm.Get(ctx, id)
		if errors.Is(err, snapshot.ErrNotFound) {
			continue
		}
		if err != nil {
			return res, err
		}
		gone = append(gone, id)
		if c.ChangelogManifestList == nil || *c.ChangelogManifestList == "" {
			continue
		}
		paths, err := changelogFiles(ctx, t, c)
		if err != nil {
			return res, err
		}
		add(&p.Data, paths...)
		m, err := t.MetaOf(ctx, &snapshot.Snapshot{ID: c.ID, ChangelogManifestList: c.ChangelogManifestList}, true)
		if err != nil {
			return res, err
		}
		add(&p.Manifests, m.ChangelogManifests...)
		add(&p.Lists, m.Lists...)
	}
	for _, g := range [][]string{p.Data, p.Manifests, p.Lists} {
		slices.Sort(g)
	}
	if opts.DryRun {
		res.ExpiredChangelogs = gone
		res.Deleted = append(res.Deleted, p.All()...)
		for _, id := range gone {
			res.Deleted = append(res.Deleted, cm.Path(id))
		}
		return res, nil
	}
	d := &snapfiles.Deleter{FIO: t.FIO, Width: width(opts.Parallelism), Hook: opts.beforeDelete}
	err = d.Plan(ctx, p)
	for i := 0; err == nil && i < len(gone); i++ {
		err = d.One(ctx, cm.Path(gone[i]))
		if err == nil {
			res.ExpiredChangelogs = append(res.ExpiredChangelogs, gone[i])
		}
	}
	res.Deleted = append(res.Deleted, d.Removed()...)
	if err != nil {
		return res, err
	}
	if err := cm.CommitEarliestHint(ctx, end); err != nil {
		return res, fmt.Errorf("expire: changelog EARLIEST hint: %w", err)
	}
	return res, nil
}

// changelogFiles returns the paths of the changelog files s's changelog
// manifest list adds (a missing list names none).
func changelogFiles(ctx context.Context, t *snapfiles.Table, s *snapshot.Snapshot) ([]string, error) {
	es, err := t.Entries(ctx, *s.ChangelogManifestList, true)
	if err != nil {
		return nil, fmt.Errorf("expire: changelog %d: %w", s.ID, err)
	}
	var out []string
	for i := range es {
		if es[i].Kind != manifest.Add {
			continue
		}
		ps, ok, err := t.EntryPaths(&es[i])
		if err != nil {
			return nil, err
		}
		if ok {
			out = append(out, ps...)
		}
	}
	return out, nil
}
