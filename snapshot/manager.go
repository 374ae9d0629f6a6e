package snapshot

import (
	"context"
	"errors"
	"fmt"
	"math"
	"path"
	"slices"
	"sort"
	"strconv"
	"strings"
	"time"

	"github.com/paimon-go/paimon/fileio"
)

// FS is the part of the file system the Manager uses; *fileio.FileIO satisfies it. Paths are
// relative to the table root.
type FS interface {
	// ReadFile returns the content of path; a missing file yields an error matching
	// fileio.ErrNotExist.
	ReadFile(ctx context.Context, path string) ([]byte, error)
	// List returns the entries of directory dir (paths relative to the root); a missing
	// directory has no entries.
	List(ctx context.Context, dir string) ([]fileio.FileInfo, error)
	// Exists reports whether path exists.
	Exists(ctx context.Context, path string) (bool, error)
	// CreateIfAbsent atomically creates path with data, failing with fileio.ErrExist if it
	// exists.
	CreateIfAbsent(ctx context.Context, path string, data []byte) error
	// WriteFile creates or overwrites path.
	WriteFile(ctx context.Context, path string, data []byte) error
}

// File and directory names (Java SnapshotManager, HintFileUtils, TagManager, BranchManager).
const (
	SnapshotDir    = "snapshot"
	SnapshotPrefix = "snapshot-"
	// ChangelogDir and ChangelogPrefix hold the long-lived changelogs of a
	// table whose changelog outlives its snapshots (Java ChangelogManager:
	// changelog/changelog-<id>, snapshot JSON, with EARLIEST and LATEST
	// hints beside them).
	ChangelogDir    = "changelog"
	ChangelogPrefix = "changelog-"
	TagDir          = "tag"
	TagPrefix       = "tag-"
	HintEarliest    = "EARLIEST"
	HintLatest      = "LATEST"
	MainBranch      = "main"
	// earliestRetry is how many ids past the EARLIEST hint Java tries when the earliest snapshot
	// disappears concurrently (SnapshotManager.EARLIEST_SNAPSHOT_DEFAULT_RETRY_NUM).
	earliestRetry = 300
	hintAttempts  = 3
)

// Manager reads and commits the snapshots and tags of one branch of a table (Java
// SnapshotManager and TagManager).
type Manager struct {
	fs        FS
	root      string // "" for the main branch, "branch/branch-<name>/" otherwise
	changelog bool   // the long-lived changelogs (Changelogs)
}

// NewManager returns the Manager of the main branch of the table whose root fs is.
func NewManager(fs FS) *Manager { return &Manager{fs: fs} }

// Branch returns the Manager of branch name ("" or "main" is the main branch), whose files
// live under branch/branch-<name>/ (Java BranchManager.branchPath).
func (m *Manager) Branch(name string) *Manager {
	if name == "" || name == MainBranch {
		return &Manager{fs: m.fs}
	}
	return &Manager{fs: m.fs, root: "branch/branch-" + name + "/"}
}

// Changelogs returns the Manager of the branch's long-lived changelogs
// (Java ChangelogManager): the same operations over changelog/changelog-<id>
// files, which hold the JSON of expired snapshots whose changelog is kept
// (Java Changelog), and the EARLIEST and LATEST hints of changelog/.
func (m *Manager) Changelogs() *Manager {
	return &Manager{fs: m.fs, root: m.root, changelog: true}
}

// dir is the directory of the Manager's files.
func (m *Manager) dir() string {
	if m.changelog {
		return m.root + ChangelogDir
	}
	return m.root + SnapshotDir
}

func (m *Manager) prefix() string {
	if m.changelog {
		return ChangelogPrefix
	}
	return SnapshotPrefix
}

// Path returns the path of snapshot id relative to the table root.
func (m *Manager) Path(id int64) string {
	return m.dir() + "/" + m.prefix() + strconv.FormatInt(id, 10)
}

func (m *Manager) hintPath(name string) string { return m.dir() + "/" + name }

// Get reads snapshot id. Errors wrap ErrNotFound (and fileio.ErrNotExist) if it does not exist,
// ErrCorrupt if it cannot be parsed or holds another id (a file copied to the wrong name),
// naming the file.
func (m *Manager) Get(ctx context.Context, id int64) (*Snapshot, error) {
	p := m.Path(id)
	data, err := readFile(ctx, m.fs, p)
	if err != nil {
		if errors.Is(err, fileio.ErrNotExist) {
			return nil, fmt.Errorf("%w: snapshot %d: %w", ErrNotFound, id, err)
		}
		return nil, fmt.Errorf("snapshot: read %s: %w", p, err)
	}
	s, err := Decode(data)
	if err != nil {
		return nil, fmt.Errorf("snapshot: %s: %w", p, err)
	}
	if s.ID != id {
		// A file copied or renamed to the wrong id: serving it would make
		// readers see another snapshot's files under this id, and the
		// committer build on a base that is not the latest.
		return nil, fmt.Errorf("snapshot: %s: %w: the file holds snapshot %d", p, ErrCorrupt, s.ID)
	}
	return s, nil
}

// Exists reports whether snapshot id exists.
func (m *Manager) Exists(ctx context.Context, id int64) (bool, error) {
	ok, err := m.fs.Exists(ctx, m.Path(id))
	if err != nil {
		return false, fmt.Errorf("snapshot: exists %s: %w", m.Path(id), err)
	}
	return ok, nil
}

// readHint reads a hint file as Java's HintFileUtils.readHint does: a missing or unparsable
// hint is absent; other read errors are retried and then treated as absent too (listing
// follows and surfaces real I/O problems).
func (m *Manager) readHint(ctx context.Context, name string) (int64, bool) {
	for attempt := 0; attempt < hintAttempts; attempt++ {
		data, err := fileio.ReadLimit(ctx, m.fs, m.hintPath(name), maxHintSize)
		if err == nil {
			id, err := strconv.ParseInt(strings.TrimSpace(string(data)), 10, 64)
			return id, err == nil
		}
		if errors.Is(err, fileio.ErrNotExist) || errors.Is(err, fileio.ErrTooLarge) || ctx.Err() != nil {
			return 0, false
		}
		select {
		case <-ctx.Done():
			return 0, false
		case <-time.After(time.Millisecond):
		}
	}
	return 0, false
}

// IDs lists the ids of all snapshot files, ascending. Names that are not snapshot-<digits>
// (temporary files, hints) are ignored.
func (m *Manager) IDs(ctx context.Context) ([]int64, error) {
	return m.listVersioned(ctx, m.dir(), m.prefix())
}

func (m *Manager) listVersioned(ctx context.Context, dir, prefix string) ([]int64, error) {
	infos, err := m.fs.List(ctx, dir)
	if err != nil {
		return nil, fmt.Errorf("snapshot: list %s: %w", dir, err)
	}
	var ids []int64
	for _, fi := range infos {
		if fi.IsDir {
			continue
		}
		name := path.Base(fi.Path)
		rest, ok := strings.CutPrefix(name, prefix)
		if !ok || rest == "" || strings.TrimLeft(rest, "0123456789") != "" {
			continue
		}
		id, err := strconv.ParseInt(rest, 10, 64)
		if err != nil || strconv.FormatInt(id, 10) != rest {
			continue // not a name Path gives (snapshot-007 is not snapshot 7)
		}
		ids = append(ids, id)
	}
	slices.Sort(ids)
	return ids, nil
}

// LatestID returns the id of the latest snapshot (Java HintFileUtils.findLatest, made safe
// against a hint that lies): the id h the LATEST hint names when snapshot-h exists and
// snapshot-(h+1) does not (two concurrent existence checks), otherwise the largest listed id.
// A hint naming a missing snapshot, which an interrupted rollback or a hand-deleted snapshot
// leaves, therefore resolves to the latest snapshot that exists (Java would return h and then
// fail to read it). Errors wrap ErrNotFound when the table has no snapshot.
func (m *Manager) LatestID(ctx context.Context) (int64, error) {
	if id, ok := m.readHint(ctx, HintLatest); ok && id > 0 {
		var hinted bool
		var herr error
		done := make(chan struct{})
		go func() {
			defer close(done)
			hinted, herr = m.Exists(ctx, id)
		}()
		next := false
		var err error
		if id < math.MaxInt64 {
			next, err = m.Exists(ctx, id+1)
		}
		<-done
		if err = errors.Join(err, herr); err != nil {
			return 0, err
		}
		if hinted && !next {
			return id, nil
		}
	}
	return m.listedLatest(ctx)
}

// listedLatest returns the largest snapshot id listed; errors wrap ErrNotFound when there is
// none.
func (m *Manager) listedLatest(ctx context.Context) (int64, error) {
	ids, err := m.IDs(ctx)
	if err != nil {
		return 0, err
	}
	if len(ids) == 0 {
		return 0, fmt.Errorf("%w: no snapshot in %s", ErrNotFound, m.dir())
	}
	return ids[len(ids)-1], nil
}

// EarliestID returns the id of the earliest snapshot (Java HintFileUtils.findEarliest): the
// EARLIEST hint if that snapshot exists, otherwise the smallest listed id. Errors wrap
// ErrNotFound when the table has no snapshot.
func (m *Manager) EarliestID(ctx context.Context) (int64, error) {
	if id, ok := m.readHint(ctx, HintEarliest); ok {
		exists, err := m.Exists(ctx, id)
		if err != nil {
			return 0, err
		}
		if exists {
			return id, nil
		}
	}
	ids, err := m.IDs(ctx)
	if err != nil {
		return 0, err
	}
	if len(ids) == 0 {
		return 0, fmt.Errorf("%w: no snapshot in %s", ErrNotFound, m.dir())
	}
	return ids[0], nil
}

// Latest reads the latest snapshot, resolved as LatestID does. When the LATEST hint names
// snapshot h, snapshot-h is read while the absence of snapshot-(h+1) is checked, so that a
// true hint costs no more requests than reading the snapshot (one GET and one HEAD, at once).
func (m *Manager) Latest(ctx context.Context) (*Snapshot, error) {
	if id, ok := m.readHint(ctx, HintLatest); ok && id > 0 && id < math.MaxInt64 {
		var next bool
		var nerr error
		done := make(chan struct{})
		go func() {
			defer close(done)
			next, nerr = m.Exists(ctx, id+1)
		}()
		s, err := m.Get(ctx, id)
		<-done
		switch {
		case nerr != nil:
			return nil, nerr
		case next:
			// The hint lags: list.
		case err == nil:
			return s, nil
		case !errors.Is(err, ErrNotFound):
			return nil, err
		}
	}
	id, err := m.listedLatest(ctx)
	if err != nil {
		return nil, err
	}
	return m.Get(ctx, id)
}

// Earliest reads the earliest snapshot. Like Java's retryEarliestSnapshot it tolerates the
// snapshot being expired concurrently by trying up to 300 following ids.
func (m *Manager) Earliest(ctx context.Context) (*Snapshot, error) {
	id, err := m.EarliestID(ctx)
	if err != nil {
		return nil, err
	}
	return m.earliestFrom(ctx, id, id+earliestRetry)
}

func (m *Manager) earliestFrom(ctx context.Context, id, stop int64) (*Snapshot, error) {
	for cur := id; ; cur++ {
		s, err := m.Get(ctx, cur)
		if err == nil || !errors.Is(err, ErrNotFound) {
			return s, err
		}
		if cur >= stop {
			return nil, fmt.Errorf("%w: cannot find earliest snapshot from #%d to #%d", ErrNotFound, id, stop)
		}
	}
}

// List reads every live snapshot, ascending by id. Snapshots deleted while listing are
// skipped, and so are snapshot files below the EARLIEST hint when the snapshot it names
// exists: an interrupted expiration writes EARLIEST first, so those files are being expired
// and their data files may already be gone (IDs still lists them, for the expiration to
// finish).
func (m *Manager) List(ctx context.Context) ([]*Snapshot, error) {
	ids, err := m.IDs(ctx)
	if err != nil {
		return nil, err
	}
	if len(ids) > 0 {
		earliest, err := m.EarliestID(ctx)
		if err != nil && !errors.Is(err, ErrNotFound) {
			return nil, err
		}
		if err == nil {
			ids = ids[sort.Search(len(ids), func(i int) bool { return ids[i] >= earliest }):]
		}
	}
	out := make([]*Snapshot, 0, len(ids))
	for _, id := range ids {
		s, err := m.Get(ctx, id)
		if errors.Is(err, ErrNotFound) {
			continue
		}
		if err != nil {
			return nil, err
		}
		out = append(out, s)
	}
	return out, nil
}

// ByTimestamp returns the latest snapshot committed at or before millis (epoch milliseconds),
// by binary search between the earliest and latest snapshot as Java's
// SnapshotManager.earlierOrEqualTimeMills does. Errors wrap ErrNotFound when there is none.
func (m *Manager) ByTimestamp(ctx context.Context, millis int64) (*Snapshot, error) {
	latest, err := m.LatestID(ctx)
	if err != nil {
		return nil, err
	}
	eid, err := m.EarliestID(ctx)
	if err != nil {
		return nil, err
	}
	earliest, err := m.earliestFrom(ctx, eid, latest)
	if err != nil {
		return nil, err
	}
	if earliest.TimeMillis > millis {
		return nil, fmt.Errorf("%w: no snapshot at or before %d (earliest is %d at %d)",
			ErrNotFound, millis, earliest.ID, earliest.TimeMillis)
	}
	lo, hi := earliest.ID, latest
	var found *Snapshot
	for lo <= hi {
		mid := lo + (hi-lo)/2
		s, err := m.Get(ctx, mid)
		if err != nil {
			return nil, err
		}
		switch {
		case s.TimeMillis > millis:
			hi = mid - 1
		case s.TimeMillis < millis:
			lo = mid + 1
			found = s
		default:
			return s, nil
		}
	}
	if found == nil {
		return nil, fmt.Errorf("%w: no snapshot at or before %d", ErrNotFound, millis)
	}
	return found, nil
}

// Commit publishes s as snapshot s.ID: it creates snapshot/snapshot-<id> only if absent (the
// atomic step of a commit, format doc 13.4) and then updates the LATEST hint on a best-effort
// basis (a failed hint write does not fail the commit: readers fall back to listing). Errors
// wrap ErrExist when another writer already committed that id.
func (m *Manager) Commit(ctx context.Context, s *Snapshot) error {
	if s.ID <= 0 {
		return fmt.Errorf("snapshot: commit: invalid snapshot id %d", s.ID)
	}
	data, err := s.Encode()
	if err != nil {
		return err
	}
	p := m.Path(s.ID)
	if err := m.fs.CreateIfAbsent(ctx, p, data); err != nil {
		if errors.Is(err, fileio.ErrExist) {
			return fmt.Errorf("%w: %s: %w", ErrExist, p, err)
		}
		return fmt.Errorf("snapshot: commit %s: %w", p, err)
	}
	_ = m.CommitLatestHint(ctx, s.ID)
	return nil
}

// CommitLatestHint overwrites snapshot/LATEST with id (Java HintFileUtils.commitLatestHint),
// trying up to three times.
func (m *Manager) CommitLatestHint(ctx context.Context, id int64) error {
	return m.writeHint(ctx, HintLatest, id)
}

// EarliestHint reads snapshot/EARLIEST once: ok is false when there is no
// such file (no expiration ever ran) or it does not hold a number (Java
// ignores such a hint too). Errors are those of reading it, other than
// fileio.ErrNotExist. Expiration writes the hint before it deletes any
// snapshot file, so every snapshot file it deletes has an id below the
// hint (Java ExpireSnapshotsImpl writes it after; see package expire).
func (m *Manager) EarliestHint(ctx context.Context) (int64, bool, error) {
	data, err := fileio.ReadLimit(ctx, m.fs, m.hintPath(HintEarliest), maxHintSize)
	if errors.Is(err, fileio.ErrNotExist) || errors.Is(err, fileio.ErrTooLarge) {
		return 0, false, nil // missing, or too large to hold a number
	}
	if err != nil {
		return 0, false, err
	}
	id, perr := strconv.ParseInt(strings.TrimSpace(string(data)), 10, 64)
	return id, perr == nil, nil
}

// ConfirmEarliestHint judges id, a value of the EARLIEST hint just read (EarliestHint): ok
// is true, with the hint's current value, when that value names an existing snapshot. An
// expiration writes the hint before it deletes anything and never deletes the snapshot the
// hint names, so a hint naming a missing snapshot either moved meanwhile (another expiration
// raised it: the hint is read again and judged anew, up to three times, after which the last
// value is trusted) or lies: ok is false when the hint still holds the same value, or is gone.
// A lying hint is what a rollback interrupted after deleting the hinted snapshot leaves, or
// a hint written by hand; callers must then ignore it (Java HintFileUtils.findEarliest falls
// back to listing in that case too). Errors are those of reading the hint and checking the
// snapshot.
func (m *Manager) ConfirmEarliestHint(ctx context.Context, id int64) (int64, bool, error) {
	for attempt := 0; ; attempt++ {
		exists, err := m.Exists(ctx, id)
		if err != nil {
			return 0, false, err
		}
		if exists {
			return id, true, nil
		}
		again, ok, err := m.EarliestHint(ctx)
		if err != nil || !ok {
			return 0, false, err
		}
		if again == id {
			return 0, false, nil
		}
		if id = again; attempt >= hintAttempts-1 {
			return id, true, nil
		}
	}
}

// CommitEarliestHint overwrites snapshot/EARLIEST with id (written by snapshot expiration).
func (m *Manager) CommitEarliestHint(ctx context.Context, id int64) error {
	return m.writeHint(ctx, HintEarliest, id)
}

func (m *Manager) writeHint(ctx context.Context, name string, id int64) error {
	var err error
	for attempt := 0; attempt < hintAttempts; attempt++ {
		if err = m.fs.WriteFile(ctx, m.hintPath(name), []byte(strconv.FormatInt(id, 10))); err == nil {
			return nil
		}
		if ctx.Err() != nil {
			break
		}
	}
	return fmt.Errorf("snapshot: write hint %s: %w", m.hintPath(name), err)
}

// TagPath returns the path of tag name relative to the table root.
func (m *Manager) TagPath(name string) string { return m.root + TagDir + "/" + TagPrefix + name }

// Tag reads tag/tag-<name>. Errors wrap ErrNotFound if the tag does not exist, ErrCorrupt if it
// cannot be parsed.
func (m *Manager) Tag(ctx context.Context, name string) (*Tag, error) {
	p := m.TagPath(name)
	data, err := readFile(ctx, m.fs, p)
	if err != nil {
		if errors.Is(err, fileio.ErrNotExist) {
			return nil, fmt.Errorf("%w: tag %q: %w", ErrNotFound, name, err)
		}
		return nil, fmt.Errorf("snapshot: read %s: %w", p, err)
	}
	t, err := DecodeTag(data)
	if err != nil {
		return nil, fmt.Errorf("snapshot: %s: %w", p, err)
	}
	t.Name = name
	return t, nil
}

// Tags reads every tag, ordered by snapshot id, then name (Java TagManager.tags order).
func (m *Manager) Tags(ctx context.Context) ([]*Tag, error) {
	dir := m.root + TagDir
	infos, err := m.fs.List(ctx, dir)
	if err != nil {
		return nil, fmt.Errorf("snapshot: list %s: %w", dir, err)
	}
	var out []*Tag
	for _, fi := range infos {
		name, ok := strings.CutPrefix(path.Base(fi.Path), TagPrefix)
		if fi.IsDir || !ok || name == "" {
			continue
		}
		t, err := m.Tag(ctx, name)
		if errors.Is(err, ErrNotFound) {
			continue
		}
		if err != nil {
			return nil, err
		}
		out = append(out, t)
	}
	slices.SortFunc(out, func(a, b *Tag) int {
		if a.ID != b.ID {
			if a.ID < b.ID {
				return -1
			}
			return 1
		}
		return strings.Compare(a.Name, b.Name)
	})
	return out, nil
}
