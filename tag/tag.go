// Package tag creates, lists and deletes the tags of a Paimon table: named,
// long-lived copies of snapshots (tag/tag-<name>) that time travel can read
// (reader.WithTag) and that protect the snapshot's files from expiration.
//
// It mirrors Java Paimon's org.apache.paimon.utils.TagManager (createTag,
// deleteTag, tags), FileStoreTable.createTag / deleteTag and
// operation.TagDeletion. Reading tags is snapshot.Manager's (Tag, Tags).
//
// A tag file holds the snapshot's JSON, plus "tagCreateTime" and
// "tagTimeRetained" when the tag has a retention time (CreateOptions
// .TimeRetained or the table option tag.default-time-retained); without one
// Java writes the plain snapshot JSON, which Paimon 0.7 and older can read.
package tag

import (
	"context"
	"errors"
	"fmt"
	"maps"
	"slices"
	"strings"
	"time"

	"github.com/paimon-go/paimon/fileio"
	"github.com/paimon-go/paimon/internal/snapfiles"
	"github.com/paimon-go/paimon/schema"
	"github.com/paimon-go/paimon/snapshot"
)

// Sentinel errors; test with errors.Is. Missing tags and snapshots wrap
// snapshot.ErrNotFound.
var (
	// ErrInvalidName: a tag name that is blank (Java "Tag name shouldn't be
	// blank.") or is not a single path element.
	ErrInvalidName = errors.New("tag: invalid tag name")
	// ErrExist: the tag already exists (Java "Tag '...' already exists.").
	ErrExist = errors.New("tag: already exists")
)

// CreateOptions configure Create.
type CreateOptions struct {
	// Branch is the branch ("" or "main" for the main branch).
	Branch string
	// TimeRetained is the tag's retention time (tagTimeRetained); 0 means
	// the table option tag.default-time-retained, and none when that is
	// unset.
	TimeRetained time.Duration
	// IgnoreIfExists makes creating an existing tag a no-op returning the
	// existing tag, instead of ErrExist.
	IgnoreIfExists bool
	// Now is the creation time recorded with a retention time (zero: the
	// current time). Java records its local wall-clock time; Create records
	// UTC.
	Now time.Time
}

func validName(name string) error {
	if strings.TrimSpace(name) == "" {
		return fmt.Errorf("%w: tag name shouldn't be blank", ErrInvalidName)
	}
	if strings.ContainsAny(name, "/\\") || name == "." || name == ".." {
		return fmt.Errorf("%w: %q is not a file name", ErrInvalidName, name)
	}
	return nil
}

// Create tags snapshot id (the latest snapshot when id is 0) of the table
// rooted at fio (schema ts) as name and returns the tag written. A snapshot id
// without a snapshot file, but held by another tag, is taken from that tag
// (Java AbstractFileStoreTable.findSnapshot); a snapshot below the EARLIEST
// hint counts as expired.
//
// Errors: ErrInvalidName, ErrExist (unless opts.IgnoreIfExists),
// snapshot.ErrNotFound when the snapshot does not exist,
// schema.ErrInvalidOption for a malformed tag.default-time-retained,
// fileio.ErrOutcomeUnknown when the tag file may have been written by this
// call (an answer was lost and reading it back failed; never ErrExist then),
// and file-system errors.
func Create(ctx context.Context, fio *fileio.FileIO, ts *schema.TableSchema, name string, id int64, opts CreateOptions) (*snapshot.Tag, error) {
	if err := validName(name); err != nil {
		return nil, err
	}
	sm := snapshot.NewManager(fio).Branch(opts.Branch)
	if old, err := sm.Tag(ctx, name); err == nil {
		if opts.IgnoreIfExists {
			return old, nil
		}
		return nil, fmt.Errorf("%w: tag %q", ErrExist, name)
	} else if !errors.Is(err, snapshot.ErrNotFound) {
		return nil, err
	}
	s, err := find(ctx, sm, id)
	if err != nil {
		return nil, err
	}
	retain := opts.TimeRetained
	if retain == 0 {
		if retain, err = ts.Options.Duration("tag.default-time-retained", 0); err != nil {
			return nil, err
		}
	}
	tg := &snapshot.Tag{Snapshot: *s, Name: name}
	if retain > 0 {
		now := opts.Now
		if now.IsZero() {
			now = time.Now()
		}
		now = now.UTC()
		tg.CreateTime, tg.TimeRetained = &now, &retain
	}
	data, err := tg.Encode()
	if err != nil {
		return nil, err
	}
	p := sm.TagPath(name)
	if err := fio.CreateIfAbsent(ctx, p, data); err != nil {
		if errors.Is(err, fileio.ErrExist) {
			return nil, fmt.Errorf("%w: tag %q: %w", ErrExist, name, err)
		}
		return nil, fmt.Errorf("tag: create %s: %w", p, err)
	}
	return tg, nil
}

// find returns snapshot id of sm (the latest for 0), or the snapshot of a tag
// with that id when its file is gone.
func find(ctx context.Context, sm *snapshot.Manager, id int64) (*snapshot.Snapshot, error) {
	if id == 0 {
		s, err := sm.Latest(ctx)
		if err != nil {
			return nil, fmt.Errorf("tag: cannot create a tag because the latest snapshot doesn't exist: %w", err)
		}
		return s, nil
	}
	if id < 0 {
		return nil, fmt.Errorf("%w: snapshot %d", snapshot.ErrNotFound, id)
	}
	live, err := alive(ctx, sm, id)
	if err != nil {
		return nil, err
	}
	if live {
		return sm.Get(ctx, id)
	}
	tags, err := sm.Tags(ctx)
	if err != nil {
		return nil, err
	}
	for _, tg := range tags {
		if tg.ID == id {
			return &tg.Snapshot, nil
		}
	}
	return nil, fmt.Errorf("%w: cannot create a tag because snapshot %d doesn't exist", snapshot.ErrNotFound, id)
}

// alive reports whether snapshot id exists and is not below the EARLIEST
// hint (snapshots below it are being expired, see package expire).
func alive(ctx context.Context, sm *snapshot.Manager, id int64) (bool, error) {
	ok, err := sm.Exists(ctx, id)
	if err != nil || !ok {
		return false, err
	}
	earliest, err := sm.EarliestID(ctx)
	if err != nil {
		return false, err
	}
	return id >= earliest, nil
}

// List returns the tags of branch ("" or "main" for the main branch) of the
// table rooted at fio, ordered by snapshot id, then name (snapshot.Manager.Tags).
func List(ctx context.Context, fio *fileio.FileIO, branch string) ([]*snapshot.Tag, error) {
	return snapshot.NewManager(fio).Branch(branch).Tags(ctx)
}

// DeleteOptions configure Delete.
type DeleteOptions struct {
	// Branch is the branch ("" or "main" for the main branch).
	Branch string
	// Parallelism is the number of concurrent deletions (default 8).
	Parallelism int
}

// DeleteResult reports what Delete did.
type DeleteResult struct {
	// Tag is the tag deleted.
	Tag *snapshot.Tag
	// Deleted are the files deleted besides the tag file (paths relative to
	// the table root), in deletion order.
	Deleted []string
	// Skipped are files the tag's metadata names that Delete leaves alone
	// because table maintenance may not delete them: a crafted data-file
	// name ("../x", "/x") or an offsets property naming some other file
	// (the screening of expiration, see expire.Skipped).
	Skipped []Skipped
}

// Skipped is a file a deletion leaves alone (see DeleteResult.Skipped); it
// is the type expire.Skipped names too.
type Skipped = snapfiles.Skipped

// Delete deletes tag name of the table rooted at fio (schema ts) (Java
// TagManager.deleteTag). When the tagged snapshot has expired and no other
// tag holds it, the files only this tag kept are deleted too
// (TagManager.doClean with TagDeletion): data files, index files, manifests,
// manifest lists and statistics that neither the neighbouring tags nor the
// earliest snapshot hold, and its offsets file unless a snapshot, another tag
// or another branch names it. The tag file goes first, so an interruption
// leaves at worst files for orphan cleaning.
//
// Errors: ErrInvalidName, snapshot.ErrNotFound when the tag does not exist,
// and the errors of reading metadata (nothing is deleted then) and deleting.
func Delete(ctx context.Context, fio *fileio.FileIO, ts *schema.TableSchema, name string, opts DeleteOptions) (DeleteResult, error) {
	if err := validName(name); err != nil {
		return DeleteResult{}, err
	}
	t, err := snapfiles.Open(fio, ts, opts.Branch)
	if err != nil {
		return DeleteResult{}, err
	}
	defer t.Close()
	sm := t.Snapshots
	tg, err := sm.Tag(ctx, name)
	if err != nil {
		return DeleteResult{}, err
	}
	res := DeleteResult{Tag: tg}
	live, err := alive(ctx, sm, tg.ID)
	if err != nil {
		return res, err
	}
	if !live {
		if exists, err := sm.Exists(ctx, tg.ID); err != nil {
			return res, err
		} else if exists {
			// Below EARLIEST: the next expiration run deletes what this tag
			// no longer protects.
			live = true
		}
	}
	var p *snapfiles.Plan
	if !live {
		tags, err := sm.Tags(ctx)
		if err != nil {
			return res, err
		}
		shared := false
		for _, o := range tags {
			if o.ID == tg.ID && o.Name != tg.Name {
				shared = true
			}
		}
		if !shared {
			if p, err = planDelete(ctx, t, tg, tags); err != nil {
				return res, err
			}
		}
	}
	if _, err := snapfiles.Delete(ctx, fio, sm.TagPath(name)); err != nil {
		return res, fmt.Errorf("tag: delete %s: %w", sm.TagPath(name), err)
	}
	if p == nil {
		return res, nil
	}
	res.Skipped = p.Screen()
	w := opts.Parallelism
	if w <= 0 {
		w = 8
	}
	d := &snapfiles.Deleter{FIO: fio, Width: w}
	err = d.Plan(ctx, p)
	res.Deleted = d.Removed()
	return res, err
}

// planDelete returns the files of tg (whose snapshot expired) that its left
// neighbour tag and its right neighbour (the earliest snapshot or the next
// tag, whichever is older) do not hold (TagManager.doClean).
func planDelete(ctx context.Context, t *snapfiles.Table, tg *snapshot.Tag, tags []*snapshot.Tag) (*snapfiles.Plan, error) {
	var neighbours []*snapshot.Snapshot
	var left, right *snapshot.Tag
	for _, o := range tags {
		if o.ID < tg.ID {
			left = o
		}
		if o.ID > tg.ID && right == nil {
			right = o
		}
	}
	if left != nil {
		neighbours = append(neighbours, &left.Snapshot)
	}
	earliest, err := t.Snapshots.Earliest(ctx)
	if err != nil && !errors.Is(err, snapshot.ErrNotFound) {
		return nil, err
	}
	switch {
	case earliest != nil && (right == nil || earliest.ID < right.ID):
		neighbours = append(neighbours, earliest)
	case right != nil:
		neighbours = append(neighbours, &right.Snapshot)
	}

	keep := map[string]bool{}
	skip := map[string]bool{}
	for _, s := range neighbours {
		live, err := t.LiveDataFiles(ctx, s)
		if err != nil {
			return nil, err
		}
		maps.Copy(keep, live)
		m, err := t.MetaOf(ctx, s, false)
		if err != nil {
			return nil, err
		}
		for _, x := range m.All() {
			skip[x] = true
		}
	}
	own, err := t.LiveDataFiles(ctx, &tg.Snapshot)
	if err != nil {
		return nil, fmt.Errorf("tag: %q: %w", tg.Name, err)
	}
	p := &snapfiles.Plan{}
	for x := range own {
		if !keep[x] {
			p.Data = append(p.Data, x)
		}
	}
	slices.Sort(p.Data)
	m, err := t.MetaOf(ctx, &tg.Snapshot, true)
	if err != nil {
		return nil, err
	}
	add := func(dst *[]string, paths ...string) {
		for _, x := range paths {
			if x != "" && !skip[x] {
				skip[x] = true
				*dst = append(*dst, x)
			}
		}
	}
	add(&p.Index, m.IndexFiles...)
	add(&p.Manifests, m.Manifests...)
	add(&p.Lists, m.Lists...)
	add(&p.Lists, m.IndexManifest, m.Statistics)
	for _, g := range [][]string{p.Index, p.Manifests, p.Lists} {
		slices.Sort(g)
	}
	if op, ok := t.OffsetsCandidate(&tg.Snapshot); ok {
		used, err := offsetsInUse(ctx, t, tg.Name)
		if err != nil {
			return nil, err
		}
		if !used[op] {
			p.Offsets = []string{op}
		}
	}
	return p, nil
}

// offsetsInUse returns the offsets files named by every snapshot and every
// tag but the one named except, on every branch.
func offsetsInUse(ctx context.Context, t *snapfiles.Table, except string) (map[string]bool, error) {
	used := map[string]bool{}
	branches, err := snapfiles.Branches(ctx, t.FIO)
	if err != nil {
		return nil, err
	}
	for _, b := range append([]string{""}, branches...) {
		bm := snapshot.NewManager(t.FIO).Branch(b)
		snaps, err := bm.List(ctx)
		if err != nil {
			return nil, err
		}
		tags, err := bm.Tags(ctx)
		if err != nil {
			return nil, err
		}
		for _, tg := range tags {
			if b == t.Branch && tg.Name == except {
				continue
			}
			snaps = append(snaps, &tg.Snapshot)
		}
		for _, s := range snaps {
			// A property that names no offsets file protects none.
			if op, ok, err := t.OffsetsPath(s); err == nil && ok {
				used[op] = true
			}
		}
	}
	return used, nil
}
