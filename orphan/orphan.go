// Package orphan removes the files of a Paimon table that nothing refers to
// any more ("orphan files"): leftovers of failed or abandoned commits,
// of interrupted expirations, rollbacks and tag deletions, and offsets files of
// the real-time layer that no snapshot names.
//
// It mirrors Java Paimon's org.apache.paimon.operation.OrphanFilesClean and
// LocalOrphanFilesClean (the remove_orphan_files procedure), with one
// deliberate difference: metadata that cannot be read aborts the run with an
// error and nothing is deleted. Java treats a manifest that cannot be found
// as empty, which can turn every file it lists into an "orphan".
//
// # Candidates
//
// Files older than the threshold (by modification time) in
//
//   - manifest/, index/ and statistics/;
//   - the bucket directories of the data directory (the table root, or
//     data-file.path-directory): one level of partition directories (k=v)
//     per partition key, then bucket-<n> directories;
//   - metadata/*.offsets of the main branch and of every branch
//     (branch/branch-<name>/metadata/, paimon-cpp's orphan cleaner);
//   - snapshot/ and changelog/ of every branch, except snapshot-<id>,
//     changelog-<id>, EARLIEST and LATEST (OrphanFilesClean.cleanSnapshotDir);
//   - temporary files of interrupted writes, ".<name>.<random>.tmp", in all
//     of the above and in schema/, tag/ and consumer/ of every branch.
//
// # Temporary files
//
// A crash during a write leaves a hidden temporary file next to its target:
// fileio's local driver writes ".<name>.<16 hex digits>.tmp" and publishes it
// by rename or link (for example bucket-0/.data-<uuid>-0.parquet.<hex>.tmp,
// snapshot/.LATEST.<hex>.tmp), and Java's FileIO.tryToWriteAtomic writes
// ".<name>.<UUID>.tmp" (Path.createTempPath). No snapshot names such a file,
// so it is an orphan once older than the threshold. Java's cleaner lists
// hidden files like any other (LocalFileIO.listStatus), so it removes them in
// the directories it scans; this package does the same and also removes them
// from schema/, tag/ and consumer/, where Java leaves them (only temporary
// files are candidates there). fileio hides them from List on local disk
// and shows them through ListTemp; other stores list them as ordinary
// objects.
//
// # Used files
//
// Everything named by any snapshot, tag or long-lived changelog
// (changelog/changelog-<id>) of any branch: manifest lists, manifests,
// index manifests, index files, statistics files, data files with their
// extra files, changelog files, and offsets files. As in Java, data, manifest,
// index and statistics files are matched by file name (names are unique);
// offsets files by path.
//
// Snapshots that disappear while the cleaner reads them (a concurrent
// expiration) are skipped, and so are missing files of snapshots below the
// EARLIEST hint, which an interrupted expiration gave up (package expire).
// Missing changelog manifest lists, and missing files of long-lived
// changelogs, are tolerated too: Java's expiration deletes the changelog of
// tagged snapshots, and the manifests of long-lived changelogs on its own
// schedule. Every other missing or unreadable file aborts the run.
package orphan

import (
	"context"
	"errors"
	"fmt"
	"path"
	"slices"
	"strings"
	"sync"
	"time"

	"github.com/paimon-go/paimon/fileio"
	"github.com/paimon-go/paimon/internal/snapfiles"
	"github.com/paimon-go/paimon/manifest"
	"github.com/paimon-go/paimon/progress"
	"github.com/paimon-go/paimon/schema"
	"github.com/paimon-go/paimon/snapshot"
)

// Sentinel errors; test with errors.Is.
var (
	// ErrInvalidBranch reports a branch directory without a schema: Java
	// aborts ("Branches ... have no schemas. Orphan files cleaning aborted.").
	ErrInvalidBranch = errors.New("orphan: branch without schema")
	// ErrInvalidArgument reports a negative age threshold, which would put
	// files still being written at risk (Java: "The arg olderThan must be less
	// than now").
	ErrInvalidArgument = errors.New("orphan: invalid argument")
)

// Options configure Clean.
type Options struct {
	// DryRun reports the orphan files without deleting them.
	DryRun bool
	// Now is the time the age threshold is measured from (zero: the current
	// time).
	Now time.Time
	// Parallelism is the number of concurrent reads and deletions
	// (default 8).
	Parallelism int

	// afterList, when set (tests, export_test.go), runs after the cleaner
	// listed the snapshots, tags and changelogs of the table and before it
	// reads them; pass counts from 1.
	afterList func(ctx context.Context, pass int) error
}

// Result reports what Clean did.
type Result struct {
	// Deleted are the orphan files removed (or, for a dry run, found), as
	// paths relative to the table root, sorted.
	Deleted []string
	// Bytes is their total size.
	Bytes int64
}

// Clean deletes the files of the table rooted at fio that no snapshot, tag,
// changelog or branch refers to and that were last modified more than
// olderThan before opts.Now (Java's default is one day; files of commits in
// progress are young, so keep olderThan well above the longest commit). The
// table's latest schema decides partition and data directories. See the
// package documentation for what is scanned and what counts as used.
//
// Errors: ErrInvalidArgument for a negative olderThan, fileio.ErrNotExist
// when the table has no schema, ErrInvalidBranch, snapshot.ErrCorrupt, manifest.ErrCorrupt,
// progress.ErrCorrupt, fileio.ErrNotExist for missing metadata, and
// file-system errors. When reading fails nothing is deleted.
func Clean(ctx context.Context, fio *fileio.FileIO, olderThan time.Duration, opts Options) (Result, error) {
	if olderThan < 0 {
		return Result{}, fmt.Errorf("%w: negative age threshold %v", ErrInvalidArgument, olderThan)
	}
	now := opts.Now
	if now.IsZero() {
		now = time.Now()
	}
	threshold := now.Add(-olderThan)
	par := opts.Parallelism
	if par <= 0 {
		par = 8
	}
	sch := schema.NewManager(fio, "")
	ts, err := sch.Latest(ctx)
	if err != nil {
		return Result{}, fmt.Errorf("orphan: %w", err)
	}
	branches, err := snapfiles.Branches(ctx, fio)
	if err != nil {
		return Result{}, err
	}
	for _, b := range branches {
		if _, err := sch.Branch(b).Latest(ctx); err != nil {
			return Result{}, fmt.Errorf("%w: branch %q: %w", ErrInvalidBranch, b, err)
		}
	}
	branches = append([]string{""}, branches...)
	t, err := snapfiles.Open(fio, ts, "")
	if err != nil {
		return Result{}, err
	}
	defer t.Close()

	cands, err := candidates(ctx, fio, t, len(ts.PartitionKeys), branches, threshold)
	if err != nil {
		return Result{}, err
	}
	if len(cands) == 0 {
		return Result{}, nil
	}
	u, err := usedFiles(ctx, t, branches, par, opts.afterList)
	if err != nil {
		return Result{}, err
	}
	var res Result
	var del []string
	for _, c := range cands {
		if u.used(c.Path) {
			continue
		}
		del = append(del, c.Path)
		res.Bytes += c.Size
	}
	if opts.DryRun {
		res.Deleted = del
		return res, nil
	}
	d := &snapfiles.Deleter{FIO: fio, Width: par}
	err = d.Group(ctx, del)
	res.Deleted = d.Removed()
	return res, err
}

// candidates lists the files that may be orphans: old enough, in the
// directories Paimon writes to, sorted by path. Besides the files the
// listing shows, every directory contributes the temporary files of
// interrupted writes (isTemp), which fileio hides on local disk
// (FileIO.ListTemp); the metadata directories that are not scanned otherwise
// (schema/, tag/, consumer/ of each branch) contribute only those.
func candidates(ctx context.Context, fio *fileio.FileIO, t *snapfiles.Table, partKeys int, branches []string, threshold time.Time) ([]fileio.FileInfo, error) {
	type filtered struct {
		dir  string
		keep func(name string) bool
	}
	all := func(string) bool { return true }
	var fdirs []filtered
	for _, d := range []string{snapfiles.ManifestDir, snapfiles.IndexDir, snapfiles.StatisticsDir} {
		fdirs = append(fdirs, filtered{d, all})
	}
	dataDirs, err := bucketDirs(ctx, fio, strings.TrimSuffix(t.DataDir(), "/"), partKeys)
	if err != nil {
		return nil, err
	}
	for _, d := range dataDirs {
		fdirs = append(fdirs, filtered{d, all})
	}
	for _, b := range branches {
		root := snapfiles.BranchRoot(b)
		fdirs = append(fdirs,
			filtered{progress.Dir(b), func(n string) bool { return strings.HasSuffix(n, ".offsets") || isTemp(n) }},
			filtered{root + snapshot.SnapshotDir, func(n string) bool { return !versioned(n, snapshot.SnapshotPrefix) }},
			filtered{root + snapfiles.ChangelogDir, func(n string) bool { return !versioned(n, snapfiles.ChangelogPrefix) }},
			filtered{root + schemaDir, isTemp},
			filtered{root + snapshot.TagDir, isTemp},
			filtered{root + snapfiles.ConsumerDir, isTemp},
		)
	}
	var out []fileio.FileInfo
	seen := map[string]bool{}
	for _, fd := range fdirs {
		infos, err := fio.List(ctx, fd.dir)
		if err != nil {
			return nil, fmt.Errorf("orphan: list %s: %w", fd.dir, err)
		}
		temps, err := fio.ListTemp(ctx, fd.dir)
		if err != nil {
			return nil, err
		}
		for _, fi := range append(infos, temps...) {
			if fi.IsDir || seen[fi.Path] || !fi.ModTime.Before(threshold) || !fd.keep(path.Base(fi.Path)) {
				continue
			}
			seen[fi.Path] = true
			out = append(out, fi)
		}
	}
	slices.SortFunc(out, func(a, b fileio.FileInfo) int { return strings.Compare(a.Path, b.Path) })
	return out, nil
}

// schemaDir holds a branch's schema files (Java SchemaManager).
const schemaDir = "schema"

// isTemp reports whether name is a temporary file of an interrupted write:
// ".<name>.<random>.tmp", as fileio's local driver names them
// (".<name>.<16 hex digits>.tmp") and Java's Path.createTempPath
// (".<name>.<UUID>.tmp", used by FileIO.tryToWriteAtomic and the
// rename-based writes of HadoopFileIO). No table file is named like that, so
// such a file is never in use; like any candidate it is removed only once
// older than the threshold, which protects writes in progress.
func isTemp(name string) bool {
	return len(name) > len(".x.tmp") && name[0] == '.' && strings.HasSuffix(name, ".tmp")
}

// versioned reports whether name is prefix<digits>, EARLIEST or LATEST.
func versioned(name, prefix string) bool {
	if name == snapshot.HintEarliest || name == snapshot.HintLatest {
		return true
	}
	rest, ok := strings.CutPrefix(name, prefix)
	return ok && rest != "" && strings.Trim(rest, "0123456789") == ""
}

// bucketDirs returns the bucket directories below root (OrphanFilesClean
// .listFileDirs): levels partition directories (names with '='), then
// directories named bucket-*.
func bucketDirs(ctx context.Context, fio *fileio.FileIO, root string, levels int) ([]string, error) {
	infos, err := fio.List(ctx, root)
	if err != nil {
		return nil, fmt.Errorf("orphan: list %q: %w", root, err)
	}
	var out []string
	for _, fi := range infos {
		if !fi.IsDir {
			continue
		}
		name := path.Base(fi.Path)
		if levels == 0 {
			if strings.HasPrefix(name, "bucket-") {
				out = append(out, fi.Path)
			}
			continue
		}
		if !strings.Contains(name, "=") {
			continue
		}
		sub, err := bucketDirs(ctx, fio, fi.Path, levels-1)
		if err != nil {
			return nil, err
		}
		out = append(out, sub...)
	}
	return out, nil
}

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

// ref is one snapshot-shaped file to collect references from.
type ref struct {
	s      *snapshot.Snapshot
	what   string // for messages
	branch *snapshot.Manager
	// snapshot marks a snapshot file, which may vanish or be an expiration
	// leftover; changelog a long-lived changelog, whose manifest lists Java
	// deletes on its own schedule: missing files of both may be skipped.
	snapshot, changelog bool
}

// usedFiles collects the files every snapshot, tag and changelog of every
// branch refers to.
func usedFiles(ctx context.Context, t *snapfiles.Table, branches []string, par int, afterList func(context.Context, int) error) (*used, error) {
	u := &used{names: map[string]bool{}, offsets: map[string]bool{}}
	var refs []ref
	for _, b := range branches {
		sm := snapshot.NewManager(t.FIO).Branch(b)
		ids, err := sm.IDs(ctx)
		if err != nil {
			return nil, err
		}
		if afterList != nil && b == "" {
			if err := afterList(ctx, 1); err != nil {
				return nil, err
			}
		}
		for _, id := range ids {
			s, err := sm.Get(ctx, id)
			if errors.Is(err, snapshot.ErrNotFound) {
				continue // expired meanwhile
			}
			if err != nil {
				return nil, err
			}
			refs = append(refs, ref{s: s, what: sm.Path(id), branch: sm, snapshot: true})
		}
		tags, err := sm.Tags(ctx)
		if err != nil {
			return nil, err
		}
		for _, tg := range tags {
			refs = append(refs, ref{s: &tg.Snapshot, what: sm.TagPath(tg.Name), branch: sm})
		}
		cls, err := changelogs(ctx, t.FIO, b)
		if err != nil {
			return nil, err
		}
		for _, c := range cls {
			refs = append(refs, ref{s: c.s, what: c.path, branch: sm, changelog: true})
		}
	}

	// Metadata of every snapshot; manifests to read, with whether a missing
	// one may be skipped.
	var mu sync.Mutex
	manifests := map[string]bool{} // name -> tolerant
	noteManifest := func(name string, tolerant bool) {
		mu.Lock()
		old, seen := manifests[name]
		manifests[name] = (!seen || old) && tolerant
		mu.Unlock()
	}
	err := snapfiles.Parallel(ctx, len(refs), par, func(i int) error {
		r := refs[i]
		m, err := t.MetaOf(ctx, r.s, r.changelog)
		tolerant := r.changelog
		if err != nil && r.snapshot && errors.Is(err, fileio.ErrNotExist) {
			g, gerr := gone(ctx, r.branch, r.s.ID)
			if gerr != nil {
				return fmt.Errorf("orphan: %s: %w", r.what, gerr)
			}
			if g {
				tolerant = true
				m, err = t.MetaOf(ctx, r.s, true)
			}
		}
		if err != nil {
			return fmt.Errorf("orphan: %s: %w", r.what, err)
		}
		u.add(m.Lists...)
		u.add(m.IndexFiles...)
		if m.IndexManifest != "" {
			u.add(m.IndexManifest)
		}
		if m.Statistics != "" {
			u.add(m.Statistics)
		}
		for _, x := range m.Manifests {
			noteManifest(path.Base(x), tolerant)
		}
		for _, x := range m.ChangelogManifests {
			noteManifest(path.Base(x), true)
		}
		op, ok, err := t.OffsetsPath(r.s)
		if err != nil {
			return fmt.Errorf("orphan: %s: %w", r.what, err)
		}
		if ok {
			u.mu.Lock()
			u.offsets[op] = true
			u.mu.Unlock()
		}
		return nil
	})
	if err != nil {
		return nil, err
	}

	names := make([]string, 0, len(manifests))
	for n := range manifests {
		names = append(names, n)
	}
	slices.Sort(names)
	err = snapfiles.Parallel(ctx, len(names), par, func(i int) error {
		name := names[i]
		es, err := t.Manifest(ctx, name)
		if err != nil {
			if manifests[name] && errors.Is(err, fileio.ErrNotExist) {
				return nil
			}
			return fmt.Errorf("orphan: %w", err)
		}
		u.add(manifest.Path(name))
		for j := range es {
			u.add(es[j].File.FileName)
			u.add(es[j].File.ExtraFiles...)
		}
		return nil
	})
	if err != nil {
		return nil, err
	}
	return u, nil
}

// gone reports whether snapshot id of sm has been deleted meanwhile or lies
// below the EARLIEST hint (an expiration is deleting its files).
func gone(ctx context.Context, sm *snapshot.Manager, id int64) (bool, error) {
	ok, err := sm.Exists(ctx, id)
	if err != nil {
		return false, err
	}
	if !ok {
		return true, nil
	}
	earliest, err := sm.EarliestID(ctx)
	if err != nil {
		return false, err
	}
	return id < earliest, nil
}

type changelog struct {
	path string
	s    *snapshot.Snapshot
}

// changelogs reads the long-lived changelogs of branch
// (changelog/changelog-<id>, snapshot-shaped JSON, Java ChangelogManager).
func changelogs(ctx context.Context, fio *fileio.FileIO, branch string) ([]changelog, error) {
	dir := snapfiles.BranchRoot(branch) + snapfiles.ChangelogDir
	infos, err := fio.List(ctx, dir)
	if err != nil {
		return nil, fmt.Errorf("orphan: list %s: %w", dir, err)
	}
	var out []changelog
	for _, fi := range infos {
		name := path.Base(fi.Path)
		if fi.IsDir || !versioned(name, snapfiles.ChangelogPrefix) || name == snapshot.HintEarliest || name == snapshot.HintLatest {
			continue
		}
		data, err := fio.ReadFile(ctx, fi.Path)
		if errors.Is(err, fileio.ErrNotExist) {
			continue
		}
		if err != nil {
			return nil, fmt.Errorf("orphan: read %s: %w", fi.Path, err)
		}
		s, err := snapshot.Decode(data)
		if err != nil {
			return nil, fmt.Errorf("orphan: %s: %w", fi.Path, err)
		}
		out = append(out, changelog{path: fi.Path, s: s})
	}
	return out, nil
}
