package reader

import (
	"context"
	"fmt"
	"sync"

	"github.com/paimon-go/paimon/manifest"
	"github.com/paimon-go/paimon/snapshot"
)

// maxDeltaSnapshots is the most snapshots a plan applies to a kept live
// set (liveSets) instead of reading its snapshot's manifests whole: each
// costs a GET of the snapshot file and of its delta manifest list.
const maxDeltaSnapshots = 64

// liveSets keeps, per table branch (the URL of its snapshot directory's
// FileIO), the live data files of the last snapshot planned through a
// Cache: planning a later snapshot then reads only the delta manifest lists
// of the snapshots since (Paimon's base list of snapshot N+1 holds exactly
// the live files of N plus N's delta, so live(N+1) = live(N) netted with
// delta(N+1)), not the new snapshot's base manifest list and whatever
// merged manifests it names. Sets are immutable once kept.
type liveSets struct {
	mu   sync.Mutex
	sets map[string]*liveSet
}

// liveSet is the netted ADD entries of snapshot id, unpruned. lists
// names its manifest lists: a rollback (expire.Rollback) frees ids, so a
// later snapshot of the same id is another snapshot, told apart by them.
type liveSet struct {
	id      int64
	lists   [2]string // base and delta manifest list
	entries []manifest.Entry
}

func listsOf(sn *snapshot.Snapshot) [2]string {
	return [2]string{sn.BaseManifestList, sn.DeltaManifestList}
}

func newLiveSets() *liveSets { return &liveSets{sets: map[string]*liveSet{}} }

func (l *liveSets) get(table string) *liveSet {
	if l == nil {
		return nil
	}
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.sets[table]
}

// put keeps s for table in place of the set kept before (a plan of an
// older snapshot, or of one committed again after a rollback, replaces a
// later one: plans check the kept set's manifest lists before use).
func (l *liveSets) put(table string, s *liveSet) {
	if l == nil {
		return
	}
	l.mu.Lock()
	defer l.mu.Unlock()
	l.sets[table] = s
}

// liveEntries returns the live entries of sn from the kept set of an
// earlier snapshot of t and the delta manifest lists of the snapshots
// after it, and keeps the result, with the number of delta manifests
// read; ok is false (and nothing is read but
// what was needed to find out) when there is no usable kept set: none, a
// later one, too far back, a snapshot in between expired, or deltas that do
// not net against it. The caller then plans sn from its manifests. The
// returned slice is shared: callers copy before changing it.
func liveEntries(ctx context.Context, t *tableState, sn *snapshot.Snapshot) ([]manifest.Entry, int, bool) {
	key := t.meta.URL()
	have := t.live.get(key)
	if have == nil || have.id > sn.ID || sn.ID-have.id > maxDeltaSnapshots {
		return nil, 0, false
	}
	if have.id == sn.ID {
		return have.entries, 0, have.lists == listsOf(sn)
	}
	snaps := snapshot.NewManager(t.meta)
	// The kept snapshot must still be the table's snapshot of its id (not
	// rolled back and committed again).
	if prev, err := snaps.Get(ctx, have.id); err != nil || listsOf(prev) != have.lists {
		return nil, 0, false
	}
	var deltas []manifest.Entry
	manifests := 0
	for id := have.id + 1; id <= sn.ID; id++ {
		s := sn
		if id != sn.ID {
			var err error
			if s, err = snaps.Get(ctx, id); err != nil {
				return nil, 0, false // expired meanwhile, or unreadable: plan whole
			}
		}
		if s.DeltaManifestList == "" {
			continue
		}
		metas, err := t.mc.ManifestList(ctx, t.fio, s.DeltaManifestList)
		if err != nil {
			return nil, 0, false
		}
		for _, m := range metas {
			manifests++
			es, err := t.mc.Manifest(ctx, t.fio, m.FileName)
			if err != nil {
				return nil, 0, false
			}
			deltas = append(deltas, es...)
		}
	}
	netted, err := netOnto(have.entries, deltas)
	if err != nil {
		return nil, 0, false
	}
	t.live.put(key, &liveSet{id: sn.ID, lists: listsOf(sn), entries: netted})
	return netted, manifests, true
}

// netOnto returns what manifest.Net returns for live followed by deltas,
// in the same order, where live is a netted set of ADD entries (a kept
// live set, not changed) and deltas the entries of later delta manifests
// in commit order; it fails with an error wrapping manifest.ErrMerge where
// Net fails. Only the entries of deltas are identified
// (manifest.Entry.Identifier) up front: live entries are found by file
// name and identified only when a delta entry names their file.
func netOnto(live, deltas []manifest.Entry) ([]manifest.Entry, error) {
	if len(deltas) == 0 {
		return live, nil
	}
	// byName holds the first live entry of each file name, next the
	// following one of the same name (-1 ends a chain).
	byName := make(map[string]int32, len(live))
	next := make([]int32, len(live))
	for i := len(live) - 1; i >= 0; i-- {
		name := live[i].File.FileName
		if j, ok := byName[name]; ok {
			next[i] = j
		} else {
			next[i] = -1
		}
		byName[name] = int32(i)
	}
	var removed []bool // live entries a delta deleted; nil until one is
	findLive := func(e *manifest.Entry, id string) int {
		j, ok := byName[e.File.FileName]
		for ok && j >= 0 {
			if (removed == nil || !removed[j]) && live[j].Identifier() == id {
				return int(j)
			}
			j = next[j]
		}
		return -1
	}
	type slot struct {
		i    int // index in deltas
		live bool
	}
	var added []slot            // ADD and pending DELETE entries of deltas, in order
	addedAt := map[string]int{} // identifier → index in added, of live slots
	dropped := 0
	for i := range deltas {
		e := &deltas[i]
		id := e.Identifier()
		switch e.Kind {
		case manifest.Add:
			if _, ok := addedAt[id]; ok || findLive(e, id) >= 0 {
				return nil, fmt.Errorf("%w: trying to add file %s (partition %x, bucket %d, level %d) which is already added",
					manifest.ErrMerge, e.File.FileName, e.Partition, e.Bucket, e.File.Level)
			}
			addedAt[id] = len(added)
			added = append(added, slot{i: i, live: true})
		case manifest.Delete:
			if k, ok := addedAt[id]; ok {
				added[k].live = false
				delete(addedAt, id)
				continue
			}
			j := findLive(e, id)
			if j < 0 {
				// Pending, as in manifest.Merge: Net fails on it below
				// unless a later DELETE of the same file cancels it.
				addedAt[id] = len(added)
				added = append(added, slot{i: i, live: true})
				continue
			}
			if removed == nil {
				removed = make([]bool, len(live))
			}
			removed[j] = true
			dropped++
		default:
			return nil, fmt.Errorf("%w: entry %d has unknown kind %d", manifest.ErrMerge, len(live)+i, e.Kind)
		}
	}
	for _, a := range added {
		if e := &deltas[a.i]; a.live && e.Kind == manifest.Delete {
			return nil, fmt.Errorf("%w: trying to delete file %s (partition %x, bucket %d, level %d) which is not previously added",
				manifest.ErrMerge, e.File.FileName, e.Partition, e.Bucket, e.File.Level)
		}
	}
	out := make([]manifest.Entry, 0, len(live)-dropped+len(addedAt))
	if removed == nil {
		out = append(out, live...)
	} else {
		for j := range live {
			if !removed[j] {
				out = append(out, live[j])
			}
		}
	}
	for _, a := range added {
		if a.live {
			out = append(out, deltas[a.i])
		}
	}
	return out, nil
}
