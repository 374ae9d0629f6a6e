package orphan

import (
	"context"
	"errors"
	"fmt"
	"path"
	"slices"
	"strings"
	"sync"

	"github.com/paimon-go/paimon/fileio"
	"github.com/paimon-go/paimon/internal/snapfiles"
	"github.com/paimon-go/paimon/manifest"
	"github.com/paimon-go/paimon/schema"
	"github.com/paimon-go/paimon/snapshot"
)

// defaultMaxPasses bounds the passes of a walk (Options.MaxPasses).
const defaultMaxPasses = 100

// used holds what the table refers to.
type used struct {
	mu      sync.Mutex
	names   map[string]bool // data, manifest, index and statistics file names
	offsets map[string]bool // offsets file paths
}

func (u *used) used(p string) bool {
	if strings.HasSuffix(p, ".offsets") && path.Base(path.Dir(p)) == "metadata" {
		return u.offsets[p]
	}
	return u.names[path.Base(p)]
}

func (u *used) add(paths ...string) {
	u.mu.Lock()
	for _, p := range paths {
		u.names[path.Base(p)] = true
	}
	u.mu.Unlock()
}

func (u *used) addOffsets(p string) {
	u.mu.Lock()
	u.offsets[p] = true
	u.mu.Unlock()
}

// refKind is the kind of a snapshot-shaped file.
type refKind int

const (
	kindSnapshot  refKind = iota // snapshot/snapshot-<id>
	kindTag                      // tag/tag-<name>
	kindChangelog                // changelog/changelog-<id>
)

// refState is what reading a ref found.
type refState int

const (
	stateRead     refState = iota // every file it names was read
	stateVanished                 // the file was gone when read (deleted meanwhile)
	stateDying                    // a snapshot being expired or a tag being deleted: some of its metadata is gone
)

// ref is one snapshot-shaped file (snapshot, tag or long-lived changelog)
// whose references the walk collects.
type ref struct {
	path  string // the file, relative to the table root
	kind  refKind
	sm    *snapshot.Manager // its branch
	id    int64             // snapshot or changelog id
	name  string            // tag name
	s     *snapshot.Snapshot
	state refState
}

// manifestState tracks one manifest file (by name) across the walk.
type manifestState struct {
	// strict are the snapshots and tags that name it in their base or delta
	// manifest list; changelog manifests and long-lived changelogs may
	// miss their manifests (Java deletes them on its own schedule).
	strict  []*ref
	checked int  // strict[:checked] were checked against a missing file
	read    bool // read (or found missing)
	missing bool
	err     error // the ErrNotExist of the read, when missing
}

// walker collects the used files of a table in passes until the set of
// snapshots, tags and changelogs it read is closed: see "Concurrent
// commits and expirations" in the package documentation.
type walker struct {
	t         *snapfiles.Table
	sch       *schema.Manager
	par       int
	maxPasses int
	afterList func(ctx context.Context, pass int) error

	u         *used
	refs      map[string]*ref           // by path
	manifests map[string]*manifestState // by file name
	maxID     map[string]int64          // per branch: the largest snapshot id listed or probed
	branches  map[string]bool           // branches whose schema was checked
}

func newWalker(t *snapfiles.Table, sch *schema.Manager, par, maxPasses int, afterList func(context.Context, int) error) *walker {
	if maxPasses <= 0 {
		maxPasses = defaultMaxPasses
	}
	return &walker{
		t: t, sch: sch, par: par, maxPasses: maxPasses, afterList: afterList,
		u:         &used{names: map[string]bool{}, offsets: map[string]bool{}},
		refs:      map[string]*ref{},
		manifests: map[string]*manifestState{},
		maxID:     map[string]int64{},
		branches:  map[string]bool{"": true},
	}
}

// walk runs passes until one lists nothing new, and returns the used files.
// Each pass lists every snapshot, tag and changelog of every branch (and
// probes for snapshots past the largest id seen); a pass that finds files
// it has not read reads them and another pass follows. Errors: ErrUnsettled
// when the listing after maxPasses reading passes still finds new files,
// and those of read.
func (w *walker) walk(ctx context.Context) (*used, error) {
	for pass := 1; ; pass++ {
		fresh, err := w.list(ctx)
		if err != nil {
			return nil, err
		}
		if w.afterList != nil {
			if err := w.afterList(ctx, pass); err != nil {
				return nil, err
			}
		}
		if len(fresh) == 0 {
			return w.u, nil
		}
		if pass > w.maxPasses {
			return nil, fmt.Errorf("%w: %s appeared after %d passes", ErrUnsettled, fresh[0].path, w.maxPasses)
		}
		if err := w.read(ctx, fresh); err != nil {
			return nil, err
		}
	}
}

// list returns the snapshots, tags and changelogs of every branch that
// were not read yet (or that vanished when read and exist again), main's
// first, then each branch's; within a branch snapshots first, then tags,
// then changelogs (the order the argument in the package documentation
// needs).
func (w *walker) list(ctx context.Context) ([]*ref, error) {
	var fresh []*ref
	add := func(r *ref) {
		if old, ok := w.refs[r.path]; ok && old.state != stateVanished {
			return
		}
		fresh = append(fresh, r)
	}
	if err := w.listBranch(ctx, "", add); err != nil {
		return nil, err
	}
	branches, err := snapfiles.Branches(ctx, w.t.FIO)
	if err != nil {
		return nil, fmt.Errorf("orphan: %w", err)
	}
	for _, b := range branches {
		if !w.branches[b] {
			if _, err := w.sch.Branch(b).Latest(ctx); err != nil {
				return nil, fmt.Errorf("%w: branch %q: %w", ErrInvalidBranch, b, err)
			}
			w.branches[b] = true
		}
		if err := w.listBranch(ctx, b, add); err != nil {
			return nil, err
		}
	}
	return fresh, nil
}

func (w *walker) listBranch(ctx context.Context, b string, add func(*ref)) error {
	sm := snapshot.NewManager(w.t.FIO).Branch(b)
	ids, err := sm.IDs(ctx)
	if err != nil {
		return fmt.Errorf("orphan: %w", err)
	}
	snap := func(id int64) {
		add(&ref{path: sm.Path(id), kind: kindSnapshot, sm: sm, id: id})
		w.maxID[b] = max(w.maxID[b], id)
	}
	for _, id := range ids {
		snap(id)
	}
	// Snapshots committed after the listing: ids are consecutive, so probe
	// past the largest one seen. The EARLIEST hint names a snapshot too: if
	// it lies past that id, an expiration already removed the snapshots in
	// between (package expire writes the hint before deleting anything).
	for {
		next := w.maxID[b] + 1
		ok, err := sm.Exists(ctx, next)
		if err != nil {
			return fmt.Errorf("orphan: %w", err)
		}
		if !ok {
			break
		}
		snap(next)
	}
	if e, ok, err := sm.EarliestHint(ctx); err != nil {
		return fmt.Errorf("orphan: %w", err)
	} else if ok && e > w.maxID[b] {
		exists, err := sm.Exists(ctx, e)
		if err != nil {
			return fmt.Errorf("orphan: %w", err)
		}
		if exists {
			snap(e)
		}
	}

	root := snapfiles.BranchRoot(b)
	tags, err := w.t.FIO.List(ctx, root+snapshot.TagDir)
	if err != nil {
		return fmt.Errorf("orphan: list %s: %w", root+snapshot.TagDir, err)
	}
	for _, fi := range tags {
		name, ok := strings.CutPrefix(path.Base(fi.Path), snapshot.TagPrefix)
		if fi.IsDir || !ok || name == "" {
			continue
		}
		add(&ref{path: sm.TagPath(name), kind: kindTag, sm: sm, name: name})
	}
	cls, err := w.t.FIO.List(ctx, root+snapfiles.ChangelogDir)
	if err != nil {
		return fmt.Errorf("orphan: list %s: %w", root+snapfiles.ChangelogDir, err)
	}
	for _, fi := range cls {
		name := path.Base(fi.Path)
		if fi.IsDir || !versioned(name, snapfiles.ChangelogPrefix) || name == snapshot.HintEarliest || name == snapshot.HintLatest {
			continue
		}
		add(&ref{path: fi.Path, kind: kindChangelog, sm: sm})
	}
	return nil
}

// read reads the refs, the metadata they name and the manifests not read
// yet, and records the files they use.
func (w *walker) read(ctx context.Context, refs []*ref) error {
	for _, r := range refs {
		w.refs[r.path] = r
	}
	var mu sync.Mutex
	err := snapfiles.Parallel(ctx, len(refs), w.par, func(i int) error {
		r := refs[i]
		if err := w.readRef(ctx, r); err != nil {
			return err
		}
		if r.state == stateVanished {
			return nil
		}
		m, err := w.t.MetaOf(ctx, r.s, r.kind == kindChangelog)
		if err != nil && errors.Is(err, fileio.ErrNotExist) {
			st, g, gerr := w.gone(ctx, r)
			if gerr != nil {
				return fmt.Errorf("orphan: %s: %w", r.path, gerr)
			}
			if g {
				r.state = st
				m, err = w.t.MetaOf(ctx, r.s, true)
			}
		}
		if err != nil {
			return fmt.Errorf("orphan: %s: %w", r.path, err)
		}
		w.u.add(m.Lists...)
		w.u.add(m.IndexFiles...)
		if m.IndexManifest != "" {
			w.u.add(m.IndexManifest)
		}
		if m.Statistics != "" {
			w.u.add(m.Statistics)
		}
		op, ok, err := w.t.OffsetsPath(r.s)
		if err != nil {
			return fmt.Errorf("orphan: %s: %w", r.path, err)
		}
		if ok {
			w.u.addOffsets(op)
		}
		mu.Lock()
		defer mu.Unlock()
		for _, x := range m.Manifests {
			st := w.manifest(path.Base(x))
			if r.kind != kindChangelog {
				st.strict = append(st.strict, r)
			}
		}
		for _, x := range m.ChangelogManifests {
			w.manifest(path.Base(x))
		}
		return nil
	})
	if err != nil {
		return err
	}

	var names []string
	for n, st := range w.manifests {
		if !st.read {
			names = append(names, n)
		}
	}
	slices.Sort(names)
	err = snapfiles.Parallel(ctx, len(names), w.par, func(i int) error {
		name := names[i]
		mu.Lock()
		st := w.manifests[name]
		mu.Unlock()
		es, err := w.t.Manifest(ctx, name)
		if errors.Is(err, fileio.ErrNotExist) {
			st.read, st.missing, st.err = true, true, err
			return nil
		}
		if err != nil {
			return fmt.Errorf("orphan: %w", err)
		}
		w.u.add(manifest.Path(name))
		for j := range es {
			w.u.add(es[j].File.FileName)
			w.u.add(es[j].File.ExtraFiles...)
		}
		st.read = true
		return nil
	})
	if err != nil {
		return err
	}
	return w.checkMissing(ctx)
}

// manifest returns the state of manifest name, creating it.
func (w *walker) manifest(name string) *manifestState {
	st, ok := w.manifests[name]
	if !ok {
		st = &manifestState{}
		w.manifests[name] = st
	}
	return st
}

// checkMissing accepts a missing manifest only when every snapshot and tag
// that names it is being removed (gone): an interrupted or running
// expiration deletes manifests before the lists that name them, and a tag
// deletion deletes the tag file first.
func (w *walker) checkMissing(ctx context.Context) error {
	names := make([]string, 0, len(w.manifests))
	for n := range w.manifests {
		names = append(names, n)
	}
	slices.Sort(names)
	for _, n := range names {
		st := w.manifests[n]
		if !st.missing {
			continue
		}
		for _, r := range st.strict[st.checked:] {
			if r.state == stateRead {
				state, g, err := w.gone(ctx, r)
				if err != nil {
					return fmt.Errorf("orphan: %s: %w", r.path, err)
				}
				if g {
					r.state = state
				}
			}
			if r.state == stateRead {
				return fmt.Errorf("orphan: %s names %s: %w", r.path, manifest.Path(n), st.err)
			}
		}
		st.checked = len(st.strict)
	}
	return nil
}

// readRef reads the snapshot, tag or changelog file of r; a file that is
// gone marks r vanished.
func (w *walker) readRef(ctx context.Context, r *ref) error {
	var err error
	switch r.kind {
	case kindSnapshot:
		r.s, err = r.sm.Get(ctx, r.id)
		if errors.Is(err, snapshot.ErrNotFound) {
			r.state = stateVanished
			return nil
		}
	case kindTag:
		var tg *snapshot.Tag
		tg, err = r.sm.Tag(ctx, r.name)
		if errors.Is(err, snapshot.ErrNotFound) {
			r.state = stateVanished
			return nil
		}
		if err == nil {
			r.s = &tg.Snapshot
		}
	case kindChangelog:
		var data []byte
		data, err = w.t.FIO.ReadFileLimit(ctx, r.path, snapshot.MaxFileSize)
		if errors.Is(err, fileio.ErrNotExist) {
			r.state = stateVanished
			return nil
		}
		if err != nil {
			return fmt.Errorf("orphan: read %s: %w", r.path, err)
		}
		r.s, err = snapshot.Decode(data)
	}
	if err != nil {
		return fmt.Errorf("orphan: %s: %w", r.path, err)
	}
	return nil
}

// gone reports whether the files r names may be missing because r is
// being removed, and the state r gets then: stateVanished for a file that
// is gone (a name that exists again is read again), stateDying for a
// snapshot below the EARLIEST hint (an expiration writes the hint, then
// deletes the snapshot's files, then the snapshot file). tag.Delete deletes
// the tag file first, then the files only it kept. Changelogs are read
// tolerantly and never get here.
func (w *walker) gone(ctx context.Context, r *ref) (refState, bool, error) {
	switch r.kind {
	case kindSnapshot:
		ok, err := r.sm.Exists(ctx, r.id)
		if err != nil {
			return 0, false, err
		}
		if !ok {
			return stateVanished, true, nil
		}
		earliest, err := r.sm.EarliestID(ctx)
		if err != nil {
			return 0, false, err
		}
		return stateDying, r.id < earliest, nil
	case kindTag:
		ok, err := w.t.FIO.Exists(ctx, r.path)
		if err != nil {
			return 0, false, fmt.Errorf("orphan: exists %s: %w", r.path, err)
		}
		return stateVanished, !ok, nil
	}
	return 0, false, nil
}
