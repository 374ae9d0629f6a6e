package expire

import (
	"context"
	"errors"
	"fmt"
	"maps"
	"slices"
	"strings"
	"time"

	"github.com/paimon-go/paimon/consumer"
	"github.com/paimon-go/paimon/fileio"
	"github.com/paimon-go/paimon/internal/snapfiles"
	"github.com/paimon-go/paimon/manifest"
	"github.com/paimon-go/paimon/metrics"
	"github.com/paimon-go/paimon/schema"
	"github.com/paimon-go/paimon/snapshot"
)

// Sentinel errors; test with errors.Is.
var (
	// ErrInvalidArgument: retention settings Java rejects
	// (snapshot.num-retained.min below 1, max below min) or a rollback
	// target that is neither a snapshot id nor a tag.
	ErrInvalidArgument = errors.New("expire: invalid argument")
	// ErrCorrupt: a consumer file that is not {"nextSnapshot": <id>}.
	ErrCorrupt = errors.New("expire: corrupt metadata")
	// ErrUnsupported: a table whose changelog outlives its snapshots
	// (changelog.num-retained.min/max or changelog.time-retained above the
	// snapshot values, Java ExpireConfig.isChangelogDecoupled) without a
	// changelog-producer: its long-lived changelog would be the snapshots'
	// level-0 data files, which Java keeps through the snapshot expiration
	// and this package does not.
	ErrUnsupported = errors.New("expire: unsupported table")
)

// Options select the branch and override the table's retention options for
// one Expire run (Java ExpireConfig, or the arguments of the
// expire_snapshots procedure).
type Options struct {
	// Branch is the branch to expire ("" or "main" for the main branch).
	Branch string
	// RetainMin overrides snapshot.num-retained.min when > 0.
	RetainMin int
	// RetainMax overrides snapshot.num-retained.max when > 0.
	RetainMax int
	// OlderThan overrides the time threshold: a snapshot expires only when
	// its successor was committed before it. Zero means now −
	// snapshot.time-retained.
	OlderThan time.Time
	// MaxDeletes overrides snapshot.expire.limit when > 0. A table limit
	// below 1 expires nothing, as in Java (ExpireSnapshotsImpl.expire stops
	// at earliest + limit).
	MaxDeletes int
	// DryRun computes the result without deleting or writing anything.
	DryRun bool
	// Parallelism is the number of concurrent reads and deletions
	// (default 8).
	Parallelism int
	// Reporter receives a *metrics.ExpirationReport per Expire call (the
	// snapshots expired, data and manifest files deleted, duration and
	// store requests; a dry run counts what it would delete); nil reports
	// nothing.
	Reporter metrics.Reporter

	// beforeDelete, when set, is called before each deletion; an error
	// stops the run (tests use it to interrupt a run).
	beforeDelete func(path string) error
	// Now is the clock that judges the age of snapshot files below EARLIEST
	// (see youngBelow: for 10 minutes only their snapshot files are
	// deleted); default time.Now.
	Now func() time.Time
}

// Result reports what Expire did.
type Result struct {
	// Expired are the ids of the snapshots expired, ascending.
	Expired []int64
	// Earliest is the earliest snapshot id after the run (0 when the table
	// has no snapshot).
	Earliest int64
	// Deleted are the files deleted (paths relative to the table root), in
	// deletion order: data and changelog files, index files, manifests,
	// manifest lists / index manifests / statistics files, offsets files,
	// snapshot files. Files that were already gone are not listed. For a dry
	// run, the files that would be deleted.
	Deleted []string
	// KeptChangelogs are the ids of the expired snapshots whose changelog
	// outlives them (changelog/changelog-<id> written), ascending;
	// ExpiredChangelogs the ids of the long-lived changelogs expired.
	KeptChangelogs, ExpiredChangelogs []int64
	// Skipped are the files the expired snapshots name that the run left
	// alone because their names are unsafe or name no offsets file (see
	// Skipped), in deletion order; they do not stop the run.
	Skipped []Skipped
}

type config struct {
	retainMin, retainMax, maxDeletes int
	olderThan                        int64 // epoch millis
	consumers                        bool  // consumers protect their next snapshot
	// decoupled: the changelog outlives the snapshots (changelog.go);
	// clMin, clMax and clTime are its retention.
	decoupled    bool
	clMin, clMax int
	clTime       time.Duration
}

func resolve(ts *schema.TableSchema, o Options) (config, error) {
	var c config
	var err error
	if c.retainMin = o.RetainMin; c.retainMin <= 0 {
		if c.retainMin, err = ts.Options.SnapshotNumRetainedMin(); err != nil {
			return c, err
		}
	}
	if c.retainMax = o.RetainMax; c.retainMax <= 0 {
		if c.retainMax, err = ts.Options.SnapshotNumRetainedMax(); err != nil {
			return c, err
		}
	}
	if c.maxDeletes = o.MaxDeletes; c.maxDeletes <= 0 {
		if c.maxDeletes, err = ts.Options.SnapshotExpireLimit(); err != nil {
			return c, err
		}
	}
	timeRetained, err := ts.Options.SnapshotTimeRetained()
	if err != nil {
		return c, err
	}
	if o.OlderThan.IsZero() {
		c.olderThan = time.Now().Add(-timeRetained).UnixMilli()
	} else {
		c.olderThan = o.OlderThan.UnixMilli()
	}
	// ExpireConfig.isChangelogDecoupled, with the table's snapshot options.
	snapMin, err := ts.Options.SnapshotNumRetainedMin()
	if err != nil {
		return c, err
	}
	snapMax, err := ts.Options.SnapshotNumRetainedMax()
	if err != nil {
		return c, err
	}
	clMin, err := ts.Options.Int("changelog.num-retained.min", snapMin)
	if err != nil {
		return c, err
	}
	clMax, err := ts.Options.Int("changelog.num-retained.max", snapMax)
	if err != nil {
		return c, err
	}
	clTime, err := ts.Options.Duration("changelog.time-retained", timeRetained)
	if err != nil {
		return c, err
	}
	if clMin > snapMin || clMax > snapMax || clTime > timeRetained {
		cp, err := ts.Options.ChangelogProducer()
		if err != nil {
			return c, err
		}
		if cp == schema.ChangelogNone {
			return c, fmt.Errorf("%w: the changelog is retained longer than snapshots (changelog.num-retained.min/max, changelog.time-retained) with changelog-producer = none", ErrUnsupported)
		}
		c.decoupled = true
		c.clMin, c.clMax, c.clTime = clMin, clMax, clTime
		switch {
		case c.clMin < 1:
			return c, fmt.Errorf("%w: changelog.num-retained.min %d, must be at least 1", ErrInvalidArgument, c.clMin)
		case c.clMax < c.clMin:
			return c, fmt.Errorf("%w: changelog retainMax (%d) must not be less than retainMin (%d)", ErrInvalidArgument, c.clMax, c.clMin)
		}
	}
	changelogOnly, err := ts.Options.Bool("consumer.changelog-only", false)
	if err != nil {
		return c, err
	}
	c.consumers = !changelogOnly
	switch {
	case c.retainMin < 1:
		return c, fmt.Errorf("%w: snapshot.num-retained.min %d, must be at least 1", ErrInvalidArgument, c.retainMin)
	case c.retainMax < c.retainMin:
		return c, fmt.Errorf("%w: retainMax (%d) must not be less than retainMin (%d)", ErrInvalidArgument, c.retainMax, c.retainMin)
	}
	return c, nil
}

func width(n int) int {
	if n <= 0 {
		return 8
	}
	return n
}

// Expire expires the snapshots of the table rooted at fio (schema ts) that
// the retention rules let go, with the files only they refer to; see the
// package documentation for the rules and the deletion order. It never
// expires the latest snapshot, nor a file a kept snapshot or any tag refers
// to. A table without snapshots is left alone.
//
// Errors: ErrInvalidArgument and schema.ErrInvalidOption for bad retention
// settings, ErrUnsupported for a table whose changelog outlives its
// snapshots, ErrCorrupt for a bad consumer file, and the errors of reading
// snapshots (snapshot.ErrCorrupt), manifests (manifest.ErrCorrupt,
// fileio.ErrNotExist for missing metadata of a kept snapshot or a tag) and
// of deleting; nothing is deleted when reading fails. An error during the
// deletions leaves the table readable from its EARLIEST snapshot on, and
// running Expire again completes the job.
func Expire(ctx context.Context, fio *fileio.FileIO, ts *schema.TableSchema, opts Options) (Result, error) {
	if opts.Reporter == nil {
		return expire(ctx, fio, ts, opts)
	}
	start, before := time.Now(), fio.Stats()
	res, err := expire(ctx, fio, ts, opts)
	s := fio.Stats().Since(before)
	r := &metrics.ExpirationReport{
		Table: fileio.Redact(fio.URL()), Duration: time.Since(start), Snapshots: len(res.Expired), Err: err,
		Requests: metrics.Requests(s),
	}
	for _, p := range res.Deleted {
		switch {
		case strings.HasPrefix(p, "manifest/"):
			r.ManifestFiles++
		case strings.HasPrefix(p, "bucket-") || strings.Contains(p, "/bucket-"):
			r.DataFiles++
		}
	}
	opts.Reporter.Report(ctx, r)
	return res, err
}

// expire is Expire without the report.
func expire(ctx context.Context, fio *fileio.FileIO, ts *schema.TableSchema, opts Options) (Result, error) {
	cfg, err := resolve(ts, opts)
	if err != nil {
		return Result{}, err
	}
	t, err := snapfiles.Open(fio, ts, opts.Branch)
	if err != nil {
		return Result{}, err
	}
	defer t.Close()
	sm := t.Snapshots

	// The latest snapshot first: snapshots committed meanwhile are listed
	// too, and ignored.
	latest, err := sm.LatestID(ctx)
	if errors.Is(err, snapshot.ErrNotFound) {
		return Result{}, nil
	}
	if err != nil {
		return Result{}, err
	}
	earliest, err := sm.EarliestID(ctx)
	if err != nil {
		return Result{}, err
	}
	if !opts.DryRun {
		if err := repairEarliest(ctx, sm, earliest); err != nil {
			return Result{}, err
		}
	}
	ids, err := snapshotIDs(ctx, sm, earliest, latest)
	if err != nil {
		return Result{}, err
	}
	now := time.Now
	if opts.Now != nil {
		now = opts.Now
	}
	young, err := youngBelow(ctx, sm, ids, earliest, now())
	if err != nil {
		return Result{}, err
	}
	if len(ids) == 0 {
		return Result{}, nil
	}
	first := ids[0] // below earliest: left by an interrupted run

	// ExpireSnapshotsImpl.expire.
	lo := max(latest-int64(cfg.retainMax)+1, earliest)
	maxExclusive := latest - int64(cfg.retainMin) + 1
	if cfg.consumers {
		next, ok, err := minNextSnapshot(ctx, fio, opts.Branch)
		if err != nil {
			return Result{}, err
		}
		if ok {
			maxExclusive = min(maxExclusive, next)
		}
	}
	maxExclusive = min(maxExclusive, earliest+int64(cfg.maxDeletes))
	end := maxExclusive
	for id := lo; id < maxExclusive; id++ {
		next, err := sm.Get(ctx, id+1)
		if errors.Is(err, snapshot.ErrNotFound) {
			continue
		}
		if err != nil {
			return Result{}, err
		}
		if cfg.olderThan <= next.TimeMillis {
			end = id
			break
		}
	}
	// Snapshots below EARLIEST were given up by an interrupted run.
	end = max(end, earliest)
	// end is the first kept snapshot: the smallest existing id >= end.
	if i, _ := slices.BinarySearch(ids, end); i < len(ids) {
		end = ids[i]
	} else {
		end = latest
	}
	if end <= first {
		if !opts.DryRun {
			// ExpireSnapshotsImpl writes a missing hint so that readers find
			// the earliest snapshot directly next time.
			hint := snapfiles.BranchRoot(opts.Branch) + snapshot.SnapshotDir + "/" + snapshot.HintEarliest
			ok, err := fio.Exists(ctx, hint)
			if err != nil {
				return Result{}, err
			}
			if !ok {
				if err := sm.CommitEarliestHint(ctx, earliest); err != nil {
					return Result{}, err
				}
			}
		}
		return Result{Earliest: earliest}, nil
	}

	p, expired, kept, err := planExpire(ctx, t, ids, first, end, young, width(opts.Parallelism), cfg.decoupled)
	if err != nil {
		return Result{}, err
	}
	res := Result{Expired: expired, Earliest: end, Skipped: p.Screen()}
	if opts.DryRun {
		res.Deleted = p.All()
		for _, id := range expired {
			res.Deleted = append(res.Deleted, sm.Path(id))
		}
		return res, nil
	}
	// Record the intent first: from now on readers see end as the earliest
	// snapshot, and a rerun expires everything below it.
	if err := raiseEarliest(ctx, sm, end); err != nil {
		return Result{}, err
	}
	d := &snapfiles.Deleter{FIO: fio, Width: width(opts.Parallelism), Hook: opts.beforeDelete}
	err = d.Plan(ctx, p)
	for i := 0; err == nil && i < len(expired); i++ {
		if s := kept[expired[i]]; s != nil {
			// The changelog outlives the snapshot: its JSON moves to
			// changelog/ first (ExpireSnapshotsImpl.commitChangelog).
			if err = keepChangelog(ctx, sm, s); err != nil {
				break
			}
			res.KeptChangelogs = append(res.KeptChangelogs, s.ID)
		}
		err = d.One(ctx, sm.Path(expired[i]))
	}
	res.Deleted = d.Removed()
	if err != nil {
		return res, err
	}
	if err := raiseEarliest(ctx, sm, end); err != nil {
		return res, err
	}
	if cfg.decoupled {
		return expireChangelogs(ctx, t, cfg, opts, now(), res)
	}
	return res, nil
}

// belowEarliestGrace is how old a snapshot below EARLIEST must be (by its
// commit time) before an expiration deletes the files it names.
const belowEarliestGrace = 10 * time.Minute

// youngBelow returns the ids (of ids, ascending) below earliest whose
// snapshot was committed less than belowEarliestGrace before now. A snapshot
// file below EARLIEST is left by an interrupted expiration, which a later
// run completes, or was just created by a commit in a gap an expiration
// left: that commit takes it back at once and commits again with the same
// data, changelog and index files (package commit, gap.go), which expiring
// the snapshot's files would delete. Of a young snapshot below EARLIEST an
// expiration deletes only the snapshot file (no reader looks below
// EARLIEST); what else only it named is left to orphan cleaning.
func youngBelow(ctx context.Context, sm *snapshot.Manager, ids []int64, earliest int64, now time.Time) (map[int64]bool, error) {
	young := map[int64]bool{}
	for _, id := range ids {
		if id >= earliest {
			break
		}
		s, err := sm.Get(ctx, id)
		if errors.Is(err, snapshot.ErrNotFound) {
			continue
		}
		if err != nil {
			return nil, err
		}
		if now.Sub(time.UnixMilli(s.TimeMillis)) < belowEarliestGrace {
			young[id] = true
		}
	}
	return young, nil
}

// raiseEarliest writes the EARLIEST hint end unless the hint is already
// higher: a concurrent run (another writer's automatic expiration) may have
// expired further, and moving the hint back would point readers, and the
// committers' check for ids created in an expired gap, below the real
// earliest snapshot.
func raiseEarliest(ctx context.Context, sm *snapshot.Manager, end int64) error {
	cur, ok, err := sm.EarliestHint(ctx)
	if err != nil {
		return err
	}
	if ok && cur > end {
		return nil
	}
	return sm.CommitEarliestHint(ctx, end)
}

// snapshotIDs returns the ids of the branch's snapshot files up to latest,
// ascending. When the EARLIEST hint names earliest and no snapshot file
// sits just below it, the ids are earliest..latest without listing the
// snapshot directory (one HEAD instead of a listing that grows with the
// number of snapshots kept, which matters when every commit expires):
// snapshot ids are created one after the other, an expiration deletes
// snapshot files oldest first, and an interrupted run leaves its snapshot
// files just below the hint, which sends the next run to the listing.
// Ids in the range whose files are missing are skipped by the callers.
func snapshotIDs(ctx context.Context, sm *snapshot.Manager, earliest, latest int64) ([]int64, error) {
	hint, ok, err := sm.EarliestHint(ctx)
	if err == nil && ok && hint == earliest && earliest <= latest {
		below := false
		if earliest > 1 {
			if below, err = sm.Exists(ctx, earliest-1); err != nil {
				return nil, err
			}
		}
		if !below {
			ids := make([]int64, 0, latest-earliest+1)
			for id := earliest; id <= latest; id++ {
				ids = append(ids, id)
			}
			return ids, nil
		}
	}
	return sm.IDs(ctx)
}

// planExpire reads everything the expiration of the snapshots in [begin, end)
// needs and returns the files to delete and the ids of the snapshot files.
// Of the young snapshots only the snapshot files are deleted (youngBelow).
// With decoupled (the changelog outlives the snapshots) the changelog files,
// changelog manifest lists and manifests of the expired snapshots are kept,
// and kept maps the id of each expired snapshot (not young) to it, for its
// changelog/changelog-<id> file.
func planExpire(ctx context.Context, t *snapfiles.Table, ids []int64, begin, end int64, young map[int64]bool, par int, decoupled bool) (_ *snapfiles.Plan, _ []int64, kept map[int64]*snapshot.Snapshot, _ error) {
	sm := t.Snapshots
	// Snapshots [begin, end], as far as they still exist.
	var snaps []*snapshot.Snapshot
	var youngIDs []int64
	for _, id := range ids {
		if id < begin || id > end {
			continue
		}
		if young[id] && id < end {
			youngIDs = append(youngIDs, id)
			continue
		}
		s, err := sm.Get(ctx, id)
		if errors.Is(err, snapshot.ErrNotFound) {
			continue
		}
		if err != nil {
			return nil, nil, nil, err
		}
		snaps = append(snaps, s)
	}
	if len(snaps) == 0 || snaps[len(snaps)-1].ID != end {
		return nil, nil, nil, fmt.Errorf("%w: snapshot %d, the first one to keep, disappeared during expiration", snapshot.ErrNotFound, end)
	}
	endSnap := snaps[len(snaps)-1]
	expired := snaps[:len(snaps)-1]
	tags, err := sm.Tags(ctx)
	if err != nil {
		return nil, nil, nil, err
	}

	// 1. Data files removed by the snapshots in (begin, end].
	keep, err := t.LiveDataFiles(ctx, endSnap)
	if err != nil {
		return nil, nil, nil, err
	}
	tagFiles := map[int64]map[string]bool{}
	var data []string
	seen := map[string]bool{}
	for _, s := range snaps {
		if s.ID == begin {
			continue
		}
		removed, err := deletedInDelta(ctx, t, s, s.ID < end)
		if err != nil {
			return nil, nil, nil, err
		}
		var tagKeep map[string]bool
		if tag := previousTag(tags, s.ID); tag != nil {
			if tagKeep = tagFiles[tag.ID]; tagKeep == nil {
				if tagKeep, err = t.LiveDataFiles(ctx, &tag.Snapshot); err != nil {
					return nil, nil, nil, fmt.Errorf("expire: tag %q: %w", tag.Name, err)
				}
				tagFiles[tag.ID] = tagKeep
			}
		}
		for _, r := range removed {
			if keep[r[0]] || tagKeep[r[0]] {
				continue
			}
			for _, p := range r {
				if !seen[p] {
					seen[p] = true
					data = append(data, p)
				}
			}
		}
	}
	// Changelog files of the expired snapshots (FileDeletionBase
	// .planAddedInChangelogManifest); a tag of the same snapshot keeps them.
	tagged := map[int64]bool{}
	for _, tg := range tags {
		tagged[tg.ID] = true
	}
	for _, s := range expired {
		if decoupled || s.ChangelogManifestList == nil || *s.ChangelogManifestList == "" || tagged[s.ID] {
			continue
		}
		es, err := t.Entries(ctx, *s.ChangelogManifestList, true)
		if err != nil {
			return nil, nil, nil, fmt.Errorf("expire: changelog of snapshot %d: %w", s.ID, err)
		}
		for i := range es {
			if es[i].Kind != manifest.Add {
				continue
			}
			ps, ok, err := t.EntryPaths(&es[i])
			if err != nil {
				return nil, nil, nil, err
			}
			for j := 0; ok && j < len(ps); j++ {
				if !seen[ps[j]] {
					seen[ps[j]] = true
					data = append(data, ps[j])
				}
			}
		}
	}

	// 2-4. Metadata no kept snapshot or tag names (manifestSkippingSet of end
	// and every tag).
	skip := map[string]bool{}
	protect := []*snapshot.Snapshot{endSnap}
	for _, tg := range tags {
		protect = append(protect, &tg.Snapshot)
	}
	for _, s := range protect {
		m, err := t.MetaOf(ctx, s, false)
		if err != nil {
			return nil, nil, nil, err
		}
		for _, p := range m.All() {
			skip[p] = true
		}
	}
	metas := make([]snapfiles.Meta, len(expired))
	if err := snapfiles.Parallel(ctx, len(expired), par, func(i int) error {
		m, err := t.MetaOf(ctx, expired[i], true)
		metas[i] = m
		return err
	}); err != nil {
		return nil, nil, nil, err
	}
	p := &snapfiles.Plan{Data: data}
	add := func(dst *[]string, paths ...string) {
		for _, x := range paths {
			if x != "" && !skip[x] {
				skip[x] = true
				*dst = append(*dst, x)
			}
		}
	}
	if decoupled {
		// FileDeletionBase.cleanUnusedManifests without deleteChangelog.
		kept = map[int64]*snapshot.Snapshot{}
		for i, s := range expired {
			kept[s.ID] = s
			metas[i].ChangelogManifests = nil
			if s.ChangelogManifestList != nil {
				metas[i].Lists = slices.DeleteFunc(metas[i].Lists, func(l string) bool { return l == manifest.Path(*s.ChangelogManifestList) })
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

	// 5. Offsets files.
	cands := map[string]bool{}
	for _, s := range expired {
		if op, ok := t.OffsetsCandidate(s); ok {
			cands[op] = true
		}
	}
	if len(cands) > 0 {
		used, err := offsetsInUse(ctx, t, func(id int64) bool { return id >= end }, tags)
		if err != nil {
			return nil, nil, nil, err
		}
		for op := range used {
			delete(cands, op)
		}
		p.Offsets = slices.Sorted(maps.Keys(cands))
	}
	for _, g := range [][]string{p.Data, p.Index, p.Manifests, p.Lists} {
		slices.Sort(g)
	}
	ids2 := youngIDs
	for _, s := range expired {
		ids2 = append(ids2, s.ID)
	}
	slices.Sort(ids2)
	return p, ids2, kept, nil
}

// deletedInDelta returns the data files the delta manifests of s remove, each
// as its path followed by the paths of its extra files
// (FileDeletionBase.planDeletedInDeltaManifest): DELETE entries whose path is
// not added again in the same delta (an upgraded file keeps its path).
func deletedInDelta(ctx context.Context, t *snapfiles.Table, s *snapshot.Snapshot, tolerant bool) ([][]string, error) {
	es, err := t.Entries(ctx, s.DeltaManifestList, tolerant)
	if err != nil {
		return nil, fmt.Errorf("expire: delta of snapshot %d: %w", s.ID, err)
	}
	byPath := map[string][]string{}
	var order []string
	for i := range es {
		ps, ok, err := t.EntryPaths(&es[i])
		if err != nil {
			return nil, err
		}
		if !ok {
			continue // external path: outside the table root
		}
		switch es[i].Kind {
		case manifest.Add:
			delete(byPath, ps[0])
		case manifest.Delete:
			if _, dup := byPath[ps[0]]; !dup {
				order = append(order, ps[0])
			}
			byPath[ps[0]] = ps
		}
	}
	var out [][]string
	for _, p := range order {
		if ps, ok := byPath[p]; ok {
			out = append(out, ps)
			delete(byPath, p)
		}
	}
	return out, nil
}

// previousTag returns the tag with the largest snapshot id below id, or nil
// (SnapshotManager.findPreviousSnapshot over the tagged snapshots).
func previousTag(tags []*snapshot.Tag, id int64) *snapshot.Tag {
	var out *snapshot.Tag
	for _, tg := range tags {
		if tg.ID < id {
			out = tg
		}
	}
	return out
}

// offsetsInUse returns the offsets files named by the snapshots of t's branch
// whose id keep accepts, by tags, and by every snapshot and tag of the other
// branches of the table (a branch may share the files of main).
func offsetsInUse(ctx context.Context, t *snapfiles.Table, keep func(id int64) bool, tags []*snapshot.Tag) (map[string]bool, error) {
	used := map[string]bool{}
	note := func(s *snapshot.Snapshot) error {
		// A property that names no offsets file protects none.
		if op, ok, err := t.OffsetsPath(s); err == nil && ok {
			used[op] = true
		}
		return nil
	}
	for _, tg := range tags {
		if err := note(&tg.Snapshot); err != nil {
			return nil, err
		}
	}
	snaps, err := list(ctx, t.Snapshots, keep)
	if err != nil {
		return nil, err
	}
	for _, s := range snaps {
		if err := note(s); err != nil {
			return nil, err
		}
	}
	branches, err := snapfiles.Branches(ctx, t.FIO)
	if err != nil {
		return nil, err
	}
	if t.Branch != "" {
		branches = append(branches, "")
	}
	for _, b := range branches {
		if b == t.Branch {
			continue
		}
		bm := snapshot.NewManager(t.FIO).Branch(b)
		snaps, err := list(ctx, bm, nil)
		if err != nil {
			return nil, err
		}
		btags, err := bm.Tags(ctx)
		if err != nil {
			return nil, err
		}
		for _, tg := range btags {
			snaps = append(snaps, &tg.Snapshot)
		}
		for _, s := range snaps {
			if err := note(s); err != nil {
				return nil, err
			}
		}
	}
	return used, nil
}

// list reads the snapshots of sm whose id keep accepts (all when keep is
// nil); snapshots deleted meanwhile are skipped.
func list(ctx context.Context, sm *snapshot.Manager, keep func(int64) bool) ([]*snapshot.Snapshot, error) {
	ids, err := sm.IDs(ctx)
	if err != nil {
		return nil, err
	}
	var out []*snapshot.Snapshot
	for _, id := range ids {
		if keep != nil && !keep(id) {
			continue
		}
		s, err := sm.Get(ctx, id)
		if errors.Is(err, snapshot.ErrNotFound) {
			continue
		}
		if err != nil {
			return nil, err
		}
		out = append(out, s)
	}
	return out, nil
}

// minNextSnapshot returns the smallest nextSnapshot of the branch's consumers
// through package consumer (Java ConsumerManager.minNextSnapshot); a damaged
// consumer file is ErrCorrupt (wrapping consumer.ErrCorrupt) naming it.
func minNextSnapshot(ctx context.Context, fio *fileio.FileIO, branch string) (int64, bool, error) {
	n, ok, err := consumer.New(fio, branch).MinNextSnapshot(ctx)
	if errors.Is(err, consumer.ErrCorrupt) {
		return 0, false, fmt.Errorf("expire: %w: %w", ErrCorrupt, err)
	}
	if err != nil {
		return 0, false, fmt.Errorf("expire: %w", err)
	}
	return n, ok, nil
}
