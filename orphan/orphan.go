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
//   - with Options.ExternalPaths only, the same bucket directories below
//     each data-file.external-paths root (as Java's listPaimonFileDirs;
//     candidates are canonical locations, and, as in Java, files there are
//     matched by name). Java always lists them; we do not by default, a
//     deliberate difference: the layout below a root does not name the
//     table, so when two tables share a root, each table's files look like
//     the other's orphans and Java's cleaner deletes live data;
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
// A snapshot that disappears while the cleaner reads it (a concurrent
// expiration) is no reason to skip anything: it is a sign that a newer
// snapshot holds its live files, and the walk goes on until it has read
// that one (next section). Missing files of snapshots and tags that are
// being removed are tolerated: a manifest list, index manifest or manifest
// that is gone, named only by snapshots whose file is gone or that lie
// below the EARLIEST hint (an interrupted or running expiration, package
// expire, deletes manifests before the lists naming them and writes
// EARLIEST first) and by tags whose file is gone (tag.Delete deletes the
// tag file first). Missing changelog manifest lists, and missing files of long-lived
// changelogs, are tolerated too: Java's expiration deletes the changelog of
// tagged snapshots, and the manifests of long-lived changelogs on its own
// schedule. Every other missing or unreadable file aborts the run: a
// manifest that an existing snapshot at or above EARLIEST, or an existing
// tag, names and that is gone ends it with an error naming both and
// wrapping fileio.ErrNotExist.
//
// Consumers (consumer/consumer-<id>, Java ConsumerManager) pin snapshots
// against expiration, not files: the snapshots they pin exist and are read
// like any other. Java's OrphanFilesClean does not read consumer files
// either.
//
// # Concurrent commits and expirations
//
// Clean may run while other processes commit, compact, expire snapshots and
// create or delete tags. It proceeds in this order:
//
//  1. List the candidates (above), with their modification times, once.
//  2. Walk the references in passes. A pass lists, for the main branch and
//     then for every branch (the branch directory listed after main's
//     files): the snapshot ids, then probes snapshot-(m+1), snapshot-(m+2)
//     ... past the largest id m seen so far and the snapshot the EARLIEST
//     hint names; then the tags; then the long-lived changelogs. Every
//     file that was not read in an earlier pass (or that was gone when
//     read and exists again) is read, with the manifest lists, index
//     manifests and manifests it names; manifests already read are not read
//     again. A file that is gone when read is marked vanished and never
//     skips anything else.
//  3. The walk ends with the first pass that lists nothing new: every
//     snapshot, tag and changelog listed in that pass was read before it
//     began. If the listing after Options.MaxPasses reading passes still
//     finds new files, the run fails with ErrUnsettled and deletes nothing.
//  4. Delete the candidates the walk did not find.
//
// Why no file that any snapshot, tag, branch or consumer needs is deleted,
// including snapshots created while the cleaner runs. Two facts of Paimon
// are used. (F1) A file that a commit makes a snapshot refer to is either
// written by that commit's writers or named by the snapshot it was based on,
// which is the latest snapshot of its branch and exists until the commit
// publishes (expiration always keeps the latest snapshot); snapshot ids are
// consecutive. A tag, a branch (Java BranchManager), a long-lived
// changelog and a rollback copy a snapshot or tag that exists when they are
// made. So a snapshot-shaped file created at time c names only files that
// a snapshot-shaped file existing at c names, plus files written for it.
// (F2) Expiration deletes a file only when no kept snapshot and no tag
// names it, and it never deletes the latest snapshot.
//
// Let t0 be the end of step 1 and f a candidate: f existed at t0 and was
// older than the threshold. Files written after t0 are not candidates, and
// files written before t0 but committed after it belong to commits in
// progress, which only the age threshold protects (as in Java). Let P be
// the last pass, which listed nothing new, and let R be a snapshot, tag or
// changelog that names f at any time after P (when f is deleted, or later).
//
//   - R existed while its directory was listed in P: then R was read before
//     P, completely (its files are used) or as a snapshot below EARLIEST,
//     which readers never resolve and whose own files expiration deletes
//     anyway (what such a snapshot shares with kept ones, a kept snapshot
//     or tag names too, by F2). It was not found gone: a name that was gone
//     when read and exists again is read again.
//   - R is a snapshot of branch b made after b's ids were listed in P: let
//     m be the largest id P saw for b; P found no snapshot-(m+1) when it
//     probed, so m was the latest snapshot of b then (had an expiration
//     already removed snapshot-(m+1), the EARLIEST hint, which package
//     expire writes before deleting, would name a newer snapshot, and P
//     reads that one; Java's expiration writes the hint last, which leaves
//     this one window open to a commit, a second commit and a Java
//     expiration all inside one pass), and every snapshot of b made later
//     descends from it by commits. By F1 (by induction over
//     those commits) R names only files m names (read, above) and files
//     written after t0 or for commits in progress at t0.
//   - R is a tag or changelog of b made after P listed b's tags or
//     changelogs: by F1 it copies a snapshot S that existed when R was made,
//     after P listed b's snapshots. If S's id is at most m, S existed
//     throughout that listing (it is older than m, which was read before
//     P), so S was listed and read; otherwise S descends from m, as above.
//   - R belongs to a branch created after P listed the branches: the branch
//     copies a snapshot or tag of main that existed when it was made, after
//     P listed main's files; the two cases above apply to it.
//
// So every candidate named after P is used, and no candidate that is
// deleted was needed. The argument assumes that a listing returns every
// file that exists throughout it (local disks, S3 and GCS list strongly
// consistently) and that no rollback or fast-forward runs at the same time
// (they replace snapshot files under existing names); run those, like
// Java's, while no cleaner runs.
package orphan

import (
	"context"
	"errors"
	"fmt"
	"path"
	"slices"
	"strings"
	"time"

	"github.com/paimon-go/paimon/fileio"
	"github.com/paimon-go/paimon/internal/snapfiles"
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
	// ErrUnsettled reports that new snapshots, tags or changelogs kept
	// appearing for Options.MaxPasses passes of the reference walk (see
	// "Concurrent commits and expirations"); nothing was deleted.
	ErrUnsettled = errors.New("orphan: table kept changing")
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
	// ExternalPaths makes the bucket directories below the table's
	// data-file.external-paths roots candidates too. Set it only when no
	// other table writes below those roots: their layout does not name the
	// table, so another table's files there are taken for orphans and
	// deleted.
	ExternalPaths bool
	// MaxPasses bounds the reading passes of the reference walk (default
	// 100): a run whose listing after that many passes still finds
	// snapshots, tags or changelogs it has not read fails with ErrUnsettled
	// and deletes nothing.
	MaxPasses int

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
	// Bytes is their total size (as listed); files that were gone when
	// deleted (an expiration removed them meanwhile) count in neither.
	Bytes int64
}

// Clean deletes the files of the table rooted at fio that no snapshot, tag,
// changelog or branch refers to and that were last modified more than
// olderThan before opts.Now (Java's default is one day; files of commits in
// progress are young, so keep olderThan well above the longest commit). The
// table's latest schema decides partition and data directories. See the
// package documentation for what is scanned and what counts as used, and
// for why commits, compactions, expirations and tag changes may run
// meanwhile.
//
// Errors: ErrInvalidArgument for a negative olderThan, fileio.ErrNotExist
// when the table has no schema, ErrInvalidBranch, ErrUnsettled (naming the
// snapshot, tag or changelog that was still new after Options.MaxPasses
// passes), snapshot.ErrCorrupt, manifest.ErrCorrupt, progress.ErrCorrupt,
// fileio.ErrNotExist for missing metadata (naming the file and the
// snapshot or tag that needs it), and file-system errors. When reading
// fails nothing is deleted; when a deletion fails, Result lists what was
// deleted before.
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

	cands, err := candidates(ctx, fio, t, len(ts.PartitionKeys), branches, threshold, opts.ExternalPaths)
	if err != nil {
		return Result{}, err
	}
	if len(cands) == 0 {
		return Result{}, nil
	}
	u, err := newWalker(t, sch, par, opts.MaxPasses, opts.afterList).walk(ctx)
	if err != nil {
		return Result{}, err
	}
	var res Result
	var del []string
	size := map[string]int64{}
	for _, c := range cands {
		if u.used(c.Path) {
			continue
		}
		del = append(del, c.Path)
		size[c.Path] = c.Size
	}
	if opts.DryRun {
		res.Deleted = del
	} else {
		d := &snapfiles.Deleter{FIO: fio, Width: par}
		err = d.Group(ctx, del)
		res.Deleted = d.Removed()
	}
	for _, p := range res.Deleted {
		res.Bytes += size[p]
	}
	return res, err
}

// candidates lists the files that may be orphans: old enough, in the
// directories Paimon writes to, sorted by path. Besides the files the
// listing shows, every directory contributes the temporary files of
// interrupted writes (isTemp), which fileio hides on local disk
// (FileIO.ListTemp); the metadata directories that are not scanned otherwise
// (schema/, tag/, consumer/ of each branch) contribute only those.
func candidates(ctx context.Context, fio *fileio.FileIO, t *snapfiles.Table, partKeys int, branches []string, threshold time.Time, external bool) ([]fileio.FileInfo, error) {
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
	if external {
		var err error
		if out, err = externalCandidates(ctx, fio, t, partKeys, threshold); err != nil {
			return nil, err
		}
	}
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

// externalCandidates lists the files old enough in the bucket directories
// below each of the table's data-file.external-paths (whatever the
// strategy), at the partition depth of the table as
// OrphanFilesClean.listPaimonFileDirs does (without
// data-file.path-directory, as Java). Their paths are canonical locations
// (fileio.CanonicalLocation), which snapfiles.Deleter deletes. A root that
// does not exist yet lists nothing.
func externalCandidates(ctx context.Context, fio *fileio.FileIO, t *snapfiles.Table, partKeys int, threshold time.Time) ([]fileio.FileInfo, error) {
	var out []fileio.FileInfo
	for _, root := range strings.Split(t.Schema.Options.String(schema.KeyDataFileExternalPaths, ""), ",") {
		if root = strings.TrimSpace(root); root == "" {
			continue
		}
		ext, canon, err := fio.OpenDir(ctx, root)
		if err != nil {
			return nil, fmt.Errorf("orphan: external path %s: %w", root, err)
		}
		dirs, err := bucketDirs(ctx, ext, "", partKeys)
		if err == nil {
			for _, d := range dirs {
				var infos []fileio.FileInfo
				if infos, err = ext.List(ctx, d); err != nil {
					break
				}
				for _, fi := range infos {
					if !fi.IsDir && fi.ModTime.Before(threshold) {
						fi.Path = canon + "/" + fi.Path
						out = append(out, fi)
					}
				}
			}
		}
		ext.Close()
		if err != nil {
			return nil, fmt.Errorf("orphan: external path %s: %w", root, err)
		}
	}
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
