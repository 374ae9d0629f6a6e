package expire

import (
	"context"
	"errors"
	"fmt"
	"maps"
	"slices"

	"github.com/paimon-go/paimon/fileio"
	"github.com/paimon-go/paimon/internal/snapfiles"
	"github.com/paimon-go/paimon/manifest"
	"github.com/paimon-go/paimon/schema"
	"github.com/paimon-go/paimon/snapshot"
)

// Target names what Rollback rolls back to: a snapshot id or a tag name
// (exactly one of them).
type Target struct {
	// Snapshot is the snapshot id (> 0) when Tag is empty.
	Snapshot int64
	// Tag is the tag name.
	Tag string
}

// RollbackOptions configure Rollback.
type RollbackOptions struct {
	// Branch is the branch to roll back ("" or "main" for the main branch).
	Branch string
	// DeleteFiles also deletes the data files, manifests, index and offsets
	// files that only the removed snapshots and tags named, as Java Paimon
	// before 1.2 did. By default they are left to orphan cleaning, as Java's
	// RollbackHelper does today: a reader still reading a removed snapshot
	// keeps its files.
	DeleteFiles bool
	// Parallelism is the number of concurrent reads and deletions
	// (default 8).
	Parallelism int

	beforeDelete func(path string) error
}

// RollbackResult reports what Rollback did.
type RollbackResult struct {
	// Snapshot is the id of the snapshot rolled back to, now the latest.
	Snapshot int64
	// Created reports that the snapshot file was recreated from the tag,
	// because the tagged snapshot had expired.
	Created bool
	// Snapshots are the ids of the snapshots removed, newest first.
	Snapshots []int64
	// Tags are the names of the tags removed (tags of newer snapshots).
	Tags []string
	// Deleted are the other files deleted (paths relative to the table
	// root), in deletion order; files already gone are not listed.
	Deleted []string
	// Skipped are the files of the removed snapshots and tags that
	// DeleteFiles left alone because their names are unsafe or name no
	// offsets file (see Skipped); they do not stop the rollback.
	Skipped []Skipped
}

// Rollback makes the snapshot to names the latest snapshot of the table
// rooted at fio (schema ts) (Java FileStoreTable.rollbackTo with
// RollbackHelper): it writes the LATEST hint, deletes every newer snapshot
// file, newest first, and the tags of newer snapshots, and then, with
// opts.DeleteFiles, the files that only the removed snapshots and tags
// named (data and changelog files they added, their index files, manifests,
// manifest lists and offsets files) in the order Expire uses. A tag target
// whose snapshot has expired is rolled back to by writing the snapshot file
// from the tag first and setting the EARLIEST hint to it
// (RollbackHelper.createSnapshotFileIfNeeded). A snapshot id without a
// snapshot file, but with a tag of that id, rolls back to that tag, as in
// Java.
//
// Errors: ErrInvalidArgument for a target that is not exactly one of a
// positive id or a tag name; snapshot.ErrNotFound for a target that does not
// exist (a snapshot below EARLIEST counts as expired); and the errors of
// reading and deleting. Nothing is changed when reading fails. An interrupted
// rollback is finished by running it again, except that files of snapshots
// already removed are then left to orphan cleaning.
func Rollback(ctx context.Context, fio *fileio.FileIO, ts *schema.TableSchema, to Target, opts RollbackOptions) (RollbackResult, error) {
	if (to.Tag == "") == (to.Snapshot == 0) || to.Snapshot < 0 {
		return RollbackResult{}, fmt.Errorf("%w: rollback target must be a snapshot id > 0 or a tag name, got %+v", ErrInvalidArgument, to)
	}
	t, err := snapfiles.Open(fio, ts, opts.Branch)
	if err != nil {
		return RollbackResult{}, err
	}
	defer t.Close()
	sm := t.Snapshots
	par := width(opts.Parallelism)

	ids, err := sm.IDs(ctx)
	if err != nil {
		return RollbackResult{}, err
	}
	earliest := int64(0)
	if len(ids) > 0 {
		if earliest, err = sm.EarliestID(ctx); err != nil {
			return RollbackResult{}, err
		}
	}
	tags, err := sm.Tags(ctx)
	if err != nil {
		return RollbackResult{}, err
	}

	// Resolve the target.
	var target *snapshot.Snapshot
	var fromTag *snapshot.Tag
	if to.Tag != "" {
		tg, err := sm.Tag(ctx, to.Tag)
		if err != nil {
			return RollbackResult{}, err
		}
		fromTag = tg
	} else {
		if _, ok := slices.BinarySearch(ids, to.Snapshot); ok && to.Snapshot >= earliest {
			s, err := sm.Get(ctx, to.Snapshot)
			if err != nil {
				return RollbackResult{}, err
			}
			target = s
		} else {
			for _, tg := range tags {
				if tg.ID == to.Snapshot {
					fromTag = tg
					break
				}
			}
			if fromTag == nil {
				return RollbackResult{}, fmt.Errorf("%w: rollback snapshot %d does not exist (earliest is %d)", snapshot.ErrNotFound, to.Snapshot, earliest)
			}
		}
	}
	create := false
	if fromTag != nil {
		target = &fromTag.Snapshot
		_, exists := slices.BinarySearch(ids, target.ID)
		create = !exists
	}
	tid := target.ID
	res := RollbackResult{Snapshot: tid, Created: create}

	// What goes: newer snapshots and the tags of newer snapshots.
	var newer []*snapshot.Snapshot
	for i := len(ids) - 1; i >= 0 && ids[i] > tid; i-- {
		s, err := sm.Get(ctx, ids[i])
		if errors.Is(err, snapshot.ErrNotFound) {
			continue
		}
		if err != nil {
			return RollbackResult{}, err
		}
		newer = append(newer, s)
	}
	var goneTags, keptTags []*snapshot.Tag
	for _, tg := range tags {
		if tg.ID > tid {
			goneTags = append(goneTags, tg)
		} else {
			keptTags = append(keptTags, tg)
		}
	}
	p := &snapfiles.Plan{}
	if opts.DeleteFiles {
		if p, err = planRollback(ctx, t, target, newer, goneTags, keptTags, par); err != nil {
			return RollbackResult{}, err
		}
		res.Skipped = p.Screen()
	}

	d := &snapfiles.Deleter{FIO: fio, Width: par, Hook: opts.beforeDelete}
	if create {
		data, err := target.Encode()
		if err != nil {
			return RollbackResult{}, err
		}
		// fileio.ErrOutcomeUnknown (the snapshot may be absent) stops the
		// rollback before any hint or deletion; a retry completes it.
		if err := fio.CreateIfAbsent(ctx, sm.Path(tid), data); err != nil && !errors.Is(err, fileio.ErrExist) {
			return res, fmt.Errorf("expire: rollback: recreate %s from tag %q: %w", sm.Path(tid), fromTag.Name, err)
		}
	}
	if err := sm.CommitLatestHint(ctx, tid); err != nil {
		return res, err
	}
	// The EARLIEST hint moves before the newer snapshots go: the snapshot
	// it named may be one of them, and a rollback interrupted after deleting
	// it would leave a hint naming a missing snapshot.
	if create || tid < earliest {
		if err := sm.CommitEarliestHint(ctx, tid); err != nil {
			return res, err
		}
	}
	for _, s := range newer {
		if err := d.One(ctx, sm.Path(s.ID)); err != nil {
			return res, err
		}
		res.Snapshots = append(res.Snapshots, s.ID)
	}
	for i := len(goneTags) - 1; i >= 0; i-- {
		if err := d.One(ctx, sm.TagPath(goneTags[i].Name)); err != nil {
			return res, err
		}
		res.Tags = append(res.Tags, goneTags[i].Name)
	}
	skip := len(d.Removed())
	err = d.Plan(ctx, p)
	res.Deleted = d.Removed()[skip:]
	return res, err
}

// planRollback returns the files only the removed snapshots and tags name:
// the data files of the oldest removed snapshot and of removed tags whose
// snapshot has expired, the data files the deltas of the other removed
// snapshots add and their changelog files, less the target's data files; and
// their metadata and offsets files that neither the target nor a kept tag
// (nor another branch, for offsets) names.
func planRollback(ctx context.Context, t *snapfiles.Table, target *snapshot.Snapshot, newer []*snapshot.Snapshot,
	goneTags, keptTags []*snapshot.Tag, par int) (*snapfiles.Plan, error) {
	keep, err := t.LiveDataFiles(ctx, target)
	if err != nil {
		return nil, err
	}
	skip := map[string]bool{}
	for _, s := range append([]*snapshot.Snapshot{target}, tagSnapshots(keptTags)...) {
		m, err := t.MetaOf(ctx, s, false)
		if err != nil {
			return nil, err
		}
		for _, x := range m.All() {
			skip[x] = true
		}
	}
	newerIDs := map[int64]bool{}
	for _, s := range newer {
		newerIDs[s.ID] = true
	}
	// Removed tags of expired snapshots contribute all their files.
	var expiredTags []*snapshot.Snapshot
	for _, tg := range goneTags {
		if !newerIDs[tg.ID] {
			expiredTags = append(expiredTags, &tg.Snapshot)
			newerIDs[tg.ID] = true
		}
	}

	data := map[string]bool{}
	addEntries := func(es []manifest.Entry, addsOnly bool) error {
		for i := range es {
			if addsOnly && es[i].Kind != manifest.Add {
				continue
			}
			ps, ok, err := t.EntryPaths(&es[i])
			if err != nil {
				return err
			}
			if ok && !keep[ps[0]] {
				for _, x := range ps {
					data[x] = true
				}
			}
		}
		return nil
	}
	gone := append(append([]*snapshot.Snapshot(nil), newer...), expiredTags...)
	for i, s := range gone {
		var lists []string
		if i < len(newer)-1 {
			// A newer snapshot: the files its delta adds.
			lists = append(lists, s.DeltaManifestList)
		} else {
			// The oldest newer snapshot (which may not succeed the target
			// directly when the target was recreated from a tag), or a
			// removed tag of an expired snapshot: all its data files.
			var all []manifest.Entry
			for _, l := range []string{s.BaseManifestList, s.DeltaManifestList} {
				es, err := t.Entries(ctx, l, true)
				if err != nil {
					return nil, fmt.Errorf("expire: rollback: snapshot %d: %w", s.ID, err)
				}
				all = append(all, es...)
			}
			merged, err := manifest.Merge(all)
			if err != nil {
				return nil, fmt.Errorf("expire: rollback: snapshot %d: %w", s.ID, err)
			}
			if err := addEntries(merged, true); err != nil {
				return nil, err
			}
		}
		if s.ChangelogManifestList != nil && *s.ChangelogManifestList != "" {
			lists = append(lists, *s.ChangelogManifestList)
		}
		for _, l := range lists {
			es, err := t.Entries(ctx, l, true)
			if err != nil {
				return nil, fmt.Errorf("expire: rollback: snapshot %d: %w", s.ID, err)
			}
			if err := addEntries(es, true); err != nil {
				return nil, err
			}
		}
	}

	metas := make([]snapfiles.Meta, len(gone))
	if err := snapfiles.Parallel(ctx, len(gone), par, func(i int) error {
		m, err := t.MetaOf(ctx, gone[i], true)
		metas[i] = m
		return err
	}); err != nil {
		return nil, err
	}
	p := &snapfiles.Plan{Data: slices.Sorted(maps.Keys(data))}
	add := func(dst *[]string, paths ...string) {
		for _, x := range paths {
			if x != "" && !skip[x] {
				skip[x] = true
				*dst = append(*dst, x)
			}
		}
	}
	for _, m := range metas {
		add(&p.Index, m.IndexFiles...)
		add(&p.Manifests, m.Manifests...)
		add(&p.Manifests, m.ChangelogManifests...)
		add(&p.Lists, m.Lists...)
		add(&p.Lists, m.IndexManifest, m.Statistics)
	}
	for _, g := range [][]string{p.Index, p.Manifests, p.Lists} {
		slices.Sort(g)
	}

	cands := map[string]bool{}
	for _, s := range gone {
		if op, ok := t.OffsetsCandidate(s); ok {
			cands[op] = true
		}
	}
	if len(cands) > 0 {
		// The target (which may not exist as a file yet), the snapshots
		// before it and the kept tags stay.
		used, err := offsetsInUse(ctx, t, func(id int64) bool { return id < target.ID }, keptTags)
		if err != nil {
			return nil, err
		}
		if op, ok, err := t.OffsetsPath(target); err == nil && ok {
			used[op] = true // a property naming no offsets file protects none
		}
		for op := range used {
			delete(cands, op)
		}
		p.Offsets = slices.Sorted(maps.Keys(cands))
	}
	return p, nil
}

func tagSnapshots(tags []*snapshot.Tag) []*snapshot.Snapshot {
	out := make([]*snapshot.Snapshot, len(tags))
	for i, tg := range tags {
		out[i] = &tg.Snapshot
	}
	return out
}
