package commit

import (
	"context"
	"errors"
	"fmt"

	"github.com/paimon-go/paimon/fileio"
	"github.com/paimon-go/paimon/internal/snapfiles"

	"github.com/paimon-go/paimon/manifest"
	"github.com/paimon-go/paimon/snapshot"
)

// An expired gap: a commit reads its base snapshot N, others then commit
// N+1, N+2, … and an expiration deletes N and N+1; creating N+1 now
// succeeds although the table has moved on, and the new snapshot sits below
// EARLIEST, where no reader looks for it: the commit's rows would be lost.
// Java's FileStoreCommitImpl does not check for this. After every create
// the Committer judges whether the snapshot it created sits in such a gap
// and takes it back (deletes it) when it does, then redoes the attempt on
// the latest snapshot.
//
// The EARLIEST hint alone cannot judge: a snapshot created at the head may
// be expired by others within milliseconds of its create (the hint then
// says "gap" for a snapshot others built on), two expirations running at
// once can move the hint backwards (each reads it, then writes its own
// end), and a snapshot created in a gap may briefly serve as another
// commit's base (internal/multiwriter TestWritersWithExpiration lost
// commits in all three ways). The judgment uses what expiration guarantees
// as well: it deletes snapshot files in ascending id order, never deletes
// the latest snapshot, and raises the hint above every snapshot it deletes
// before deleting any.
//
//  1. The base snapshot still exists and the EARLIEST hint is at most
//     created: no gap (had created been used and expired, the base would
//     have been deleted before it, and the hint raised above it).
//  2. Otherwise (the base is gone, there was none, or the hint is above
//     created), when the commit added data files: the table's latest
//     snapshot is found by listing (probing forward from a hint stops at a
//     gap). If it is the created one, no gap. Else the latest snapshot
//     either descends from the created one (it names the commit's data
//     files) or not (the created one is in a gap): its entries are read and
//     searched for one of the commit's data files.
//  3. A commit without data files (only index changes or deletions, or a
//     manifest compaction) cannot be searched for: the hint decides
//     (createdInGap).
//
// Cost: a HEAD of the base and a GET of the hint, at once, on the usual path; a
// listing and a read of the latest snapshot's manifests only when the base
// was expired during the attempt or the hint is above the created id.

// ErrFilesGone reports that a changelog or index file of a commit was
// deleted while the commit's snapshot sat in an expired gap (an expiration
// whose view of EARLIEST was older than the gap took the snapshot for one it
// expires). Nothing was published; the writer must write the data again.
var ErrFilesGone = errors.New("commit: files of the commit were deleted by a concurrent expiration")

// checkReusable makes sure that the changelog and index files of part p,
// which the next attempt after a take-back names again, still exist.
// Errors wrap ErrFilesGone, naming the first missing file.
func (c *Committer) checkReusable(ctx context.Context, p *part) error {
	var paths []string
	for _, e := range p.index {
		if e.Kind == manifest.Add && (e.IndexFile.ExternalPath == nil || *e.IndexFile.ExternalPath == "") {
			paths = append(paths, "index/"+e.IndexFile.FileName)
		}
	}
	if len(p.changelog.entries) > 0 {
		t, err := snapfiles.Open(c.fio, c.ts, "")
		if err != nil {
			return err
		}
		defer t.Close()
		for i := range p.changelog.entries {
			ps, ok, err := t.EntryPaths(&p.changelog.entries[i])
			if err != nil {
				return err
			}
			if ok {
				paths = append(paths, ps[0])
			}
		}
	}
	for _, path := range paths {
		ok, err := c.fio.Exists(ctx, path)
		if err != nil {
			return err
		}
		if !ok {
			return fmt.Errorf("%w: %s was deleted while this commit's snapshot sat in an expired gap; nothing was published", ErrFilesGone, path)
		}
	}
	return nil
}

// gapKey marks the delta of an attempt whose snapshot was taken back from a
// gap: no entries have this key, so the next attempt writes its delta anew.
const gapKey = "\x00gap"

// takeBackIfInGap judges the snapshot created just now at path, with id
// created, after the snapshot base (an id; 0: the table had none) for a
// commit of entries, and deletes it when it sits in an expired gap. gap
// reports that it was taken back. An error means the outcome is unknown:
// the snapshot exists and could not be judged or deleted (wraps
// ErrOutcomeUnknown).
func (c *Committer) takeBackIfInGap(ctx context.Context, path string, base, created int64, entries []manifest.Entry) (gap bool, err error) {
	ctx = context.WithoutCancel(ctx)
	gap, err = c.inGap(ctx, base, created, entries)
	if err != nil {
		return false, fmt.Errorf("%w: created %s but could not check that it does not sit in a gap an expiration left: %w", ErrOutcomeUnknown, path, err)
	}
	if !gap {
		return false, nil
	}
	// Gone already: a concurrent expiration took it for one of the
	// snapshots it expires (its EARLIEST was older than the gap).
	if err := c.fio.Delete(ctx, path); err != nil && !errors.Is(err, fileio.ErrNotExist) {
		return false, fmt.Errorf("%w: %s was created in a gap left by an expiration and could not be deleted: %w", ErrOutcomeUnknown, path, err)
	}
	return true, nil
}

// inGap is the judgment described above. The HEAD of the base runs
// alongside the read of the hint, so the usual path costs one round trip
// after the create, not two: each is an observation made after the create,
// and what each observes only moves one way (a deleted snapshot stays
// deleted), so their order does not matter.
func (c *Committer) inGap(ctx context.Context, base, created int64, entries []manifest.Entry) (bool, error) {
	var (
		baseExists bool
		existsErr  error
		headDone   = make(chan struct{})
	)
	if base > 0 {
		go func() {
			defer close(headDone)
			baseExists, existsErr = c.snaps.Exists(ctx, base)
		}()
	} else {
		close(headDone)
	}
	hinted, err := c.createdInGap(ctx, base)
	<-headDone
	if err != nil {
		return false, err
	}
	if base > 0 && !hinted && (existsErr != nil || baseExists) {
		return false, existsErr
	}
	added := map[string]bool{}
	for _, e := range entries {
		if e.Kind == manifest.Add {
			added[e.File.FileName] = true
		}
	}
	if len(added) == 0 {
		return hinted, nil
	}
	ids, err := c.snaps.IDs(ctx)
	if err != nil {
		return false, err
	}
	if len(ids) == 0 || ids[len(ids)-1] <= created {
		return false, nil
	}
	latest, err := c.snaps.Get(ctx, ids[len(ids)-1])
	if err != nil {
		return false, err
	}
	found, err := c.namesAny(ctx, latest, added)
	return !found, err
}

// namesAny reports whether snapshot s's live data files include one of
// names.
func (c *Committer) namesAny(ctx context.Context, s *snapshot.Snapshot, names map[string]bool) (bool, error) {
	b, err := c.baseOf(ctx, s)
	if err != nil {
		return false, err
	}
	lists, err := c.mw.readManifests(ctx, b.metas)
	if err != nil {
		return false, err
	}
	live := map[string]bool{}
	for _, es := range lists {
		for _, e := range es {
			if names[e.File.FileName] {
				live[e.File.FileName] = e.Kind == manifest.Add
			}
		}
	}
	for _, ok := range live {
		if ok {
			return true, nil
		}
	}
	return false, nil
}

// createdInGap reports whether the snapshot just created after base (an id;
// 0: the table had no snapshot) may sit in a gap of ids an expiration
// deleted rather than at the head of the table: the EARLIEST hint is above
// base + 1 and names a snapshot that exists
// (snapshot.Manager.ConfirmEarliestHint). An expiration writes the hint
// before it deletes any snapshot file and deletes only ids below it. Used
// for commits without data files (see above); a rollback running
// concurrently with commits is not covered (as in Java, writers must be
// stopped for it).
func (c *Committer) createdInGap(ctx context.Context, base int64) (bool, error) {
	hint, ok, err := c.snaps.EarliestHint(ctx)
	if err != nil || !ok || hint <= base+1 {
		// A hint at base+1 named a snapshot file of that id, which the
		// create found absent: it lies.
		return false, err
	}
	// A hint naming a snapshot that does not exist lies (a rollback
	// interrupted after deleting it); trusting it would take back every
	// commit.
	hint, ok, err = c.snaps.ConfirmEarliestHint(ctx, hint)
	return ok && hint > base+1, err
}

// baseID is the id of base, 0 when there is none (an empty table).
func baseID(base *snapshot.Snapshot) int64 {
	if base == nil {
		return 0
	}
	return base.ID
}
