// Package snapfiles finds the files a Paimon snapshot (or tag) refers to and
// deletes files in bulk: the common ground of snapshot expiration and rollback
// (package expire), tag deletion (package tag) and orphan file cleaning
// (package orphan).
//
// It plays the part of Java Paimon's org.apache.paimon.operation.FileDeletionBase
// (manifest skipping sets, data file skippers, path computation through
// FileStorePathFactory / DataFilePathFactory) without deciding anything: which
// snapshots to expire and in what order to delete is the callers' business.
//
// All paths are relative to the table root (the FileIO the Table is opened on).
// A branch keeps schema/, snapshot/, tag/ and metadata/ below
// branch/branch-<name>/ but shares manifest/, index/, statistics/ and the data
// directories with the main branch (Java builds FileStorePathFactory on the
// table path), so only the snapshot manager and the offsets directory depend on
// the branch.
package snapfiles

import (
	"context"
	"errors"
	"fmt"
	"path"
	"strconv"
	"strings"
	"sync"

	"github.com/paimon-go/paimon/fileio"
	"github.com/paimon-go/paimon/manifest"
	"github.com/paimon-go/paimon/progress"
	"github.com/paimon-go/paimon/row"
	"github.com/paimon-go/paimon/schema"
	"github.com/paimon-go/paimon/snapshot"
)

// Directories of the table root that hold metadata files referenced by name
// (Java FileStorePathFactory.MANIFEST_PATH, INDEX_PATH, STATISTICS_PATH).
const (
	ManifestDir   = manifest.Dir
	IndexDir      = "index"
	StatisticsDir = "statistics"
	// ChangelogDir holds long-lived changelog metadata (Java ChangelogManager).
	ChangelogDir    = "changelog"
	ChangelogPrefix = "changelog-"
	// ConsumerDir holds consumer progress files (Java ConsumerManager).
	ConsumerDir    = "consumer"
	ConsumerPrefix = "consumer-"
	// BranchDir holds the branches, each in BranchPrefix+name (Java BranchManager).
	BranchDir    = "branch"
	BranchPrefix = "branch-"
)

// Table is one branch of a table as the file deleters see it: its snapshot
// manager and the rules that place data, index and metadata files.
type Table struct {
	// FIO is the table root.
	FIO *fileio.FileIO
	// Branch is the branch name ("" for main).
	Branch string
	// Snapshots manages the branch's snapshots and tags.
	Snapshots *snapshot.Manager
	// Schema is the schema the table was opened with (its options decide paths).
	Schema *schema.TableSchema

	pc          row.PartitionComputer
	dataDir     string   // "" or data-file.path-directory + "/"
	extRoots    []string // canonical data-file.external-paths, each + "/"
	indexInData bool     // index-file-in-data-file-dir
	mr          *manifest.Reader

	mu       sync.Mutex
	partDirs map[string]string // serialized partition -> "k=v/" path
}

// Open returns the Table of branch ("" or "main" for the main branch) of the
// table rooted at fio whose schema is ts. Errors wrap schema.ErrInvalidOption
// for malformed path options. Close releases the manifest decoder.
func Open(fio *fileio.FileIO, ts *schema.TableSchema, branch string) (*Table, error) {
	if branch == snapshot.MainBranch {
		branch = ""
	}
	legacy, err := ts.Options.PartitionLegacyName()
	if err != nil {
		return nil, err
	}
	indexInData, err := ts.Options.Bool("index-file-in-data-file-dir", false)
	if err != nil {
		return nil, err
	}
	t := &Table{
		FIO: fio, Branch: branch, Snapshots: snapshot.NewManager(fio).Branch(branch), Schema: ts,
		pc:          row.PartitionComputer{Fields: ts.PartitionFields(), DefaultName: ts.Options.PartitionDefaultName(), Legacy: legacy},
		indexInData: indexInData,
		mr:          manifest.NewReader(fio),
		partDirs:    map[string]string{},
	}
	t.dataDir = ts.Options.DataFilePathDirectory()
	for _, r := range strings.Split(ts.Options.String(schema.KeyDataFileExternalPaths, ""), ",") {
		if c, err := fileio.CanonicalLocation(strings.TrimSuffix(strings.TrimSpace(r), "/")); err == nil {
			t.extRoots = append(t.extRoots, c+"/")
		}
	}
	return t, nil
}

// Close releases the manifest decoder.
func (t *Table) Close() { t.mr.Close() }

// BranchRoot returns the directory of a branch's schema/, snapshot/, tag/ and
// metadata/ relative to the table root: "" for main, "branch/branch-<name>/".
func BranchRoot(branch string) string {
	if branch == "" || branch == snapshot.MainBranch {
		return ""
	}
	return BranchDir + "/" + BranchPrefix + branch + "/"
}

// DataDir returns the directory below which partition directories live: ""
// (the table root) or data-file.path-directory followed by "/".
func (t *Table) DataDir() string { return t.dataDir }

// BucketDir returns the directory of the files of partition (serialized
// BinaryRow) and bucket, relative to the table root: Java
// FileStorePathFactory.bucketPath, "<partition path>bucket-<n>" or
// "bucket-postpone" for bucket -2. Errors wrap row.ErrCorrupt when the
// partition does not decode.
func (t *Table) BucketDir(partition []byte, bucket int32) (string, error) {
	key := string(partition)
	t.mu.Lock()
	dir, ok := t.partDirs[key]
	t.mu.Unlock()
	if !ok {
		br, err := row.Deserialize(partition)
		if err != nil {
			return "", err
		}
		p, err := t.pc.PathOf(br)
		if err != nil {
			return "", err
		}
		dir = t.dataDir + p
		t.mu.Lock()
		t.partDirs[key] = dir
		t.mu.Unlock()
	}
	if bucket == -2 {
		return dir + "bucket-postpone", nil
	}
	return dir + "bucket-" + strconv.Itoa(int(bucket)), nil
}

// EntryPaths returns the paths of the data file of e and of its extra files
// (Java DataFilePathFactory.toPath and toAlignedPath). A file stored at an
// external path (_EXTERNAL_PATH) lies outside the table root: when its
// location is below one of the table's data-file.external-paths, the paths
// are canonical locations (fileio.CanonicalLocation; the extra files beside
// the data file), which Delete and Deleter accept; otherwise ok is false and
// nothing is returned for it, so that a crafted location is never deleted.
func (t *Table) EntryPaths(e *manifest.Entry) (paths []string, ok bool, err error) {
	if e.File.ExternalPath != nil && *e.File.ExternalPath != "" {
		loc, err := fileio.CanonicalLocation(*e.File.ExternalPath)
		if err != nil || !t.externalRoot(loc) {
			return nil, false, nil
		}
		dir := loc[:strings.LastIndex(loc, "/")+1]
		paths = append(paths, loc)
		for _, x := range e.File.ExtraFiles {
			paths = append(paths, dir+x)
		}
		return paths, true, nil
	}
	dir, err := t.BucketDir(e.Partition, e.Bucket)
	if err != nil {
		return nil, false, fmt.Errorf("snapfiles: partition of data file %s: %w", e.File.FileName, err)
	}
	paths = append(paths, dir+"/"+e.File.FileName)
	for _, x := range e.File.ExtraFiles {
		paths = append(paths, dir+"/"+x)
	}
	return paths, true, nil
}

// externalRoot reports whether the canonical location loc lies below one of
// the table's data-file.external-paths.
func (t *Table) externalRoot(loc string) bool {
	for _, r := range t.extRoots {
		if rest, ok := strings.CutPrefix(loc, r); ok && safePath(rest) {
			return true
		}
	}
	return false
}

// IndexFilePath returns the path of an index file of e (Java
// IndexFilePathFactories): index/<name>, or the bucket directory when
// index-file-in-data-file-dir is set. ok is false for a file at an external
// path.
func (t *Table) IndexFilePath(e *manifest.IndexManifestEntry) (string, bool, error) {
	f := &e.IndexFile
	if f.ExternalPath != nil && *f.ExternalPath != "" {
		return "", false, nil
	}
	if t.indexInData && f.GlobalIndex == nil {
		dir, err := t.BucketDir(e.Partition, e.Bucket)
		if err != nil {
			return "", false, fmt.Errorf("snapfiles: partition of index file %s: %w", f.FileName, err)
		}
		return dir + "/" + f.FileName, true, nil
	}
	return IndexDir + "/" + f.FileName, true, nil
}

// ManifestList reads manifest/<name>.
func (t *Table) ManifestList(ctx context.Context, name string) ([]manifest.FileMeta, error) {
	return t.mr.ManifestList(ctx, name)
}

// Manifest reads manifest/<name>.
func (t *Table) Manifest(ctx context.Context, name string) ([]manifest.Entry, error) {
	return t.mr.Manifest(ctx, name)
}

// IndexManifest reads manifest/<name>, an index manifest.
func (t *Table) IndexManifest(ctx context.Context, name string) ([]manifest.IndexManifestEntry, error) {
	return t.mr.IndexManifest(ctx, name)
}

// Entries reads the manifests of the manifest list name in parallel and
// returns their entries in list order. With tolerant set, a missing list
// gives no entries and a missing manifest is skipped (expiration after an
// interrupted run, Java FileDeletionBase.tryReadManifestList); other errors
// are returned.
func (t *Table) Entries(ctx context.Context, list string, tolerant bool) ([]manifest.Entry, error) {
	metas, err := t.ManifestList(ctx, list)
	if err != nil {
		if tolerant && errors.Is(err, fileio.ErrNotExist) {
			return nil, nil
		}
		return nil, err
	}
	parts := make([][]manifest.Entry, len(metas))
	err = Parallel(ctx, len(metas), 8, func(i int) error {
		es, err := t.Manifest(ctx, metas[i].FileName)
		if err != nil && !(tolerant && errors.Is(err, fileio.ErrNotExist)) {
			return err
		}
		parts[i] = es
		return nil
	})
	if err != nil {
		return nil, err
	}
	var out []manifest.Entry
	for _, p := range parts {
		out = append(out, p...)
	}
	return out, nil
}

// MergedEntries returns the entries of snapshot s's base and delta
// manifests merged as Java's FileEntry.mergeEntries does: the live files,
// plus the DELETE entries whose ADD is not among them. Every manifest must
// be readable; errors name the file.
func (t *Table) MergedEntries(ctx context.Context, s *snapshot.Snapshot) ([]manifest.Entry, error) {
	var all []manifest.Entry
	for _, list := range []string{s.BaseManifestList, s.DeltaManifestList} {
		if list == "" {
			continue
		}
		es, err := t.Entries(ctx, list, false)
		if err != nil {
			return nil, err
		}
		all = append(all, es...)
	}
	return manifest.Merge(all)
}

// LiveDataFiles returns the paths (with extra files) of the data files of s:
// its base and delta manifests merged as Java's FileEntry.mergeEntries does
// (FileDeletionBase.addMergedDataFiles). Entries a DELETE leaves pending are
// kept, which only makes the set larger. Every file must be readable.
func (t *Table) LiveDataFiles(ctx context.Context, s *snapshot.Snapshot) (map[string]bool, error) {
	merged, err := t.MergedEntries(ctx, s)
	if err != nil {
		return nil, fmt.Errorf("snapfiles: data files of snapshot %d: %w", s.ID, err)
	}
	out := make(map[string]bool, len(merged))
	for i := range merged {
		ps, ok, err := t.EntryPaths(&merged[i])
		if err != nil {
			return nil, err
		}
		if ok {
			for _, p := range ps {
				out[p] = true
			}
		}
	}
	return out, nil
}

// Meta lists the metadata files one snapshot names, as paths relative to the
// table root.
type Meta struct {
	// Lists are the manifest lists (base, delta, changelog).
	Lists []string
	// Manifests are the data manifests the base and delta lists name.
	Manifests []string
	// ChangelogManifests are the manifests the changelog list names.
	ChangelogManifests []string
	// IndexManifest is the index manifest ("" when none).
	IndexManifest string
	// IndexFiles are the index files (deletion vectors, hash indexes) the index
	// manifest lists.
	IndexFiles []string
	// Statistics is the statistics file ("" when none).
	Statistics string
}

// All returns every path of m.
func (m *Meta) All() []string {
	out := append([]string(nil), m.Lists...)
	out = append(out, m.Manifests...)
	out = append(out, m.ChangelogManifests...)
	if m.IndexManifest != "" {
		out = append(out, m.IndexManifest)
	}
	out = append(out, m.IndexFiles...)
	if m.Statistics != "" {
		out = append(out, m.Statistics)
	}
	return out
}

// MetaOf reads the manifest lists and the index manifest of s and returns the
// metadata files s names (Java FileDeletionBase.manifestSkippingSet with the
// changelog list and its manifests added). With tolerant set a missing list
// or index manifest contributes only its own name; otherwise its absence is an
// error wrapping fileio.ErrNotExist, except for the changelog list, whose
// absence is always tolerated (Java's expiration deletes the changelog of
// tagged snapshots). Other read errors are always returned.
func (t *Table) MetaOf(ctx context.Context, s *snapshot.Snapshot, tolerant bool) (Meta, error) {
	var m Meta
	read := func(list string, tolerant bool) ([]string, error) {
		m.Lists = append(m.Lists, manifest.Path(list))
		metas, err := t.ManifestList(ctx, list)
		if err != nil {
			if tolerant && errors.Is(err, fileio.ErrNotExist) {
				return nil, nil
			}
			return nil, fmt.Errorf("snapfiles: snapshot %d: %w", s.ID, err)
		}
		out := make([]string, len(metas))
		for i := range metas {
			out[i] = manifest.Path(metas[i].FileName)
		}
		return out, nil
	}
	for _, list := range []string{s.BaseManifestList, s.DeltaManifestList} {
		if list == "" {
			continue
		}
		ms, err := read(list, tolerant)
		if err != nil {
			return Meta{}, err
		}
		m.Manifests = append(m.Manifests, ms...)
	}
	if s.ChangelogManifestList != nil && *s.ChangelogManifestList != "" {
		// Java's expiration deletes the changelog of tagged snapshots: a
		// missing changelog list is never an error.
		ms, err := read(*s.ChangelogManifestList, true)
		if err != nil {
			return Meta{}, err
		}
		m.ChangelogManifests = ms
	}
	if s.IndexManifest != nil && *s.IndexManifest != "" {
		m.IndexManifest = manifest.Path(*s.IndexManifest)
		es, err := t.IndexManifest(ctx, *s.IndexManifest)
		if err != nil && !(tolerant && errors.Is(err, fileio.ErrNotExist)) {
			return Meta{}, fmt.Errorf("snapfiles: snapshot %d: %w", s.ID, err)
		}
		for i := range es {
			p, ok, err := t.IndexFilePath(&es[i])
			if err != nil {
				return Meta{}, err
			}
			if ok {
				m.IndexFiles = append(m.IndexFiles, p)
			}
		}
	}
	if s.Statistics != nil && *s.Statistics != "" {
		m.Statistics = StatisticsDir + "/" + *s.Statistics
	}
	return m, nil
}

// OffsetsPath returns the path of the offsets file s records in its
// realtime.offsets property (progress.Property), resolved by progress.Path,
// and false when s has none. Errors wrap progress.ErrCorrupt for a property
// that names no offsets file.
func (t *Table) OffsetsPath(s *snapshot.Snapshot) (string, bool, error) {
	v, ok := s.Properties[progress.Property]
	if !ok {
		return "", false, nil
	}
	p, err := progress.Path(t.FIO, v)
	if err != nil {
		return "", false, fmt.Errorf("snapfiles: snapshot %d: %w", s.ID, err)
	}
	return p, true, nil
}

// OffsetsCandidate is OffsetsPath for deletion plans: a property that names
// no offsets file (progress.ErrCorrupt) comes back as it is, so that
// Plan.Screen skips and reports it instead of the run failing on every
// attempt; false when s has no property.
func (t *Table) OffsetsCandidate(s *snapshot.Snapshot) (string, bool) {
	p, ok, err := t.OffsetsPath(s)
	if err != nil {
		return s.Properties[progress.Property], true
	}
	return p, ok
}

// Branches lists the branches of the table below fio (names of the
// directories branch/branch-<name>), sorted.
func Branches(ctx context.Context, fio *fileio.FileIO) ([]string, error) {
	infos, err := fio.List(ctx, BranchDir)
	if err != nil {
		return nil, fmt.Errorf("snapfiles: list %s: %w", BranchDir, err)
	}
	var out []string
	for _, fi := range infos {
		name := path.Base(fi.Path)
		if fi.IsDir && len(name) > len(BranchPrefix) && name[:len(BranchPrefix)] == BranchPrefix {
			out = append(out, name[len(BranchPrefix):])
		}
	}
	return out, nil
}

// Delete removes path through fio, or, for a canonical location of an
// external data file (see EntryPaths), through fio.OpenLocation; a file that
// is already gone is not an error (Java FileIO.deleteQuietly, and reruns
// after an interruption). It reports whether a file was removed.
func Delete(ctx context.Context, fio *fileio.FileIO, p string) (bool, error) {
	if fileio.IsLocation(p) {
		ext, rel, done, err := fio.OpenLocation(ctx, p)
		if err != nil {
			return false, err
		}
		defer done()
		fio, p = ext, rel
	}
	err := fio.Delete(ctx, p)
	if err == nil {
		return true, nil
	}
	if errors.Is(err, fileio.ErrNotExist) {
		return false, nil
	}
	return false, err
}

// Parallel runs f(0..n-1) on at most width goroutines and returns the first
// error (by index); it stops starting new calls once one failed or ctx ended.
func Parallel(ctx context.Context, n, width int, f func(i int) error) error {
	if n == 0 {
		return nil
	}
	if width < 1 {
		width = 1
	}
	if width > n {
		width = n
	}
	errs := make([]error, n)
	var (
		wg     sync.WaitGroup
		mu     sync.Mutex
		next   int
		failed bool
	)
	for w := 0; w < width; w++ {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for {
				mu.Lock()
				if failed || next >= n {
					mu.Unlock()
					return
				}
				i := next
				next++
				mu.Unlock()
				if err := ctx.Err(); err != nil {
					errs[i] = err
				} else {
					errs[i] = f(i)
				}
				if errs[i] != nil {
					mu.Lock()
					failed = true
					mu.Unlock()
				}
			}
		}()
	}
	wg.Wait()
	for _, err := range errs {
		if err != nil {
			return err
		}
	}
	return nil
}

// Plan is a set of files to delete, grouped by the order in which deleting
// them is safe: a group is deleted only after the previous one is gone, so
// an interrupted run never leaves a file that names a deleted file whose
// own references were not yet handled (data files before the manifests
// listing them, manifests before the lists naming them, index files before
// their index manifest).
type Plan struct {
	// Data are data files, their extra files and changelog files.
	Data []string
	// Index are index files (deletion vectors, hash indexes).
	Index []string
	// Manifests are manifest files (data and changelog).
	Manifests []string
	// Lists are manifest lists, index manifests and statistics files.
	Lists []string
	// Offsets are offsets files of the real-time layer (package progress).
	Offsets []string
}

// Groups returns the groups of p in deletion order.
func (p *Plan) Groups() [][]string {
	return [][]string{p.Data, p.Index, p.Manifests, p.Lists, p.Offsets}
}

// All returns every path of p in deletion order.
func (p *Plan) All() []string {
	var out []string
	for _, g := range p.Groups() {
		out = append(out, g...)
	}
	return out
}

// Deleter deletes files below one FileIO, calling Hook (when set) before each
// deletion; a Hook error stops the deleter and is returned (tests use it to
// interrupt a run after a number of deletions).
type Deleter struct {
	FIO   *fileio.FileIO
	Width int // concurrent deletions within a group; < 1 means 1
	Hook  func(path string) error

	mu      sync.Mutex
	removed []string
}

// Removed returns the paths removed so far, group by group in the order given.
func (d *Deleter) Removed() []string { return d.removed }

// Group deletes paths concurrently (Width at a time); a path that does not
// exist is skipped. Removed paths are recorded in the order of paths.
func (d *Deleter) Group(ctx context.Context, paths []string) error {
	done := make([]bool, len(paths))
	err := Parallel(ctx, len(paths), d.Width, func(i int) error {
		if d.Hook != nil {
			if err := d.Hook(paths[i]); err != nil {
				return err
			}
		}
		ok, err := Delete(ctx, d.FIO, paths[i])
		if err != nil {
			return fmt.Errorf("snapfiles: delete %s: %w", paths[i], err)
		}
		done[i] = ok
		return nil
	})
	d.mu.Lock()
	for i, ok := range done {
		if ok {
			d.removed = append(d.removed, paths[i])
		}
	}
	d.mu.Unlock()
	return err
}

// One deletes a single path (see Group).
func (d *Deleter) One(ctx context.Context, p string) error { return d.Group(ctx, []string{p}) }

// Plan deletes the groups of p in order.
func (d *Deleter) Plan(ctx context.Context, p *Plan) error {
	for _, g := range p.Groups() {
		if err := d.Group(ctx, g); err != nil {
			return err
		}
	}
	return nil
}
