package commit

import (
	"context"
	"errors"
	"sync"

	"github.com/paimon-go/paimon/manifest"
	"github.com/paimon-go/paimon/snapshot"
)

// rebaser finds the base of the next attempt of one commit part after the
// race for a snapshot id was lost (the rebase of Java's
// FileStoreCommitImpl.tryCommit loop, which reads the latest snapshot
// again).
//
// What an attempt that lost leaves behind and what the next one reuses:
//
//   - the delta manifests and the delta list do not depend on the base and
//     are written once per commit part (commitPart; not for overwrites);
//   - the entries of every manifest this Committer wrote or read stay in the
//     entry cache, so merging and conflict checks on the new base read only
//     manifests that are new to it (the winners' deltas and merged
//     manifests);
//   - the id that was lost: that snapshot exists, so the new latest is
//     found by reading snapshot-<lost>, snapshot-<lost+1>, … up to the first
//     that does not exist (two concurrent GETs when one committer won),
//     instead of reading the LATEST hint, which lags behind under contention
//     (it is written in the background) and then costs a LIST of the
//     snapshot directory, growing with the table.
//
// The new base's manifest list is read from the latest snapshot (its base
// and delta lists, two concurrent GETs) rather than assembled from the lost
// base's list and the delta lists of the snapshots in between: such a list
// would name manifests that the latest snapshot no longer names (merged
// away), and expiration (package expire) deletes the manifests of expired
// snapshots that the snapshot it keeps does not name, so a commit must name
// only manifests of the latest snapshot and new ones.
type rebaser struct {
	// lost is the snapshot id whose race the last attempt lost (0: none, or
	// already used). One attempt uses it; an attempt redone for another
	// reason (a stale cached base, a snapshot taken back from an expired
	// gap) reads the latest snapshot afresh.
	lost int64
	// losses counts the lost races of the part and last is the id lost
	// last, for ErrRetriesExhausted.
	losses int
	last   int64
	// phantom counts races lost for an id that then could not be read
	// (ErrNoProgress).
	phantom phantoms
}

// lostAt records that the race for snapshot id was lost.
func (r *rebaser) lostAt(id int64) {
	r.lost, r.last = id, id
	r.losses++
}

// base returns the base of the next attempt: after a lost race the latest
// snapshot from the lost id on, else (or when the lost snapshot is gone
// again) the latest snapshot as readBase finds it.
func (r *rebaser) base(ctx context.Context, c *Committer) (base, error) {
	from := r.lost
	r.lost = 0
	if from <= 0 {
		return c.readBase(ctx)
	}
	latest, err := c.latestFrom(ctx, from)
	if errors.Is(err, snapshot.ErrNotFound) {
		if err := r.phantom.note(from, c.snaps.Path(from), err); err != nil {
			return base{}, err
		}
		return c.readBase(ctx)
	}
	r.phantom.reset()
	if err != nil {
		return base{}, err
	}
	return c.baseOf(ctx, latest)
}

// latestFrom returns the latest snapshot, knowing that snapshot id exists:
// it reads id and id+1 concurrently, then id+2, … until one does not exist.
// Errors wrap snapshot.ErrNotFound when snapshot id does not exist (taken
// back, or expired).
func (c *Committer) latestFrom(ctx context.Context, id int64) (*snapshot.Snapshot, error) {
	var next *snapshot.Snapshot
	var nextErr error
	var wg sync.WaitGroup
	wg.Add(1)
	go func() {
		defer wg.Done()
		next, nextErr = c.snaps.Get(ctx, id+1)
	}()
	cur, err := c.snaps.Get(ctx, id)
	wg.Wait()
	if err != nil {
		return nil, err
	}
	for {
		if errors.Is(nextErr, snapshot.ErrNotFound) {
			return cur, nil
		}
		if nextErr != nil {
			return nil, nextErr
		}
		if err := ctx.Err(); err != nil {
			return nil, err
		}
		cur = next
		next, nextErr = c.snaps.Get(ctx, cur.ID+1)
	}
}

// baseOf reads the base and delta manifest lists of snapshot s
// (concurrently) into a base. Errors: errBaseExpired when a list is missing
// because s was expired since it was read.
func (c *Committer) baseOf(ctx context.Context, s *snapshot.Snapshot) (base, error) {
	if c.beforeBaseLists != nil {
		c.beforeBaseLists()
	}
	var lists [2][]manifest.FileMeta
	var errs [2]error
	var wg sync.WaitGroup
	for i, name := range []string{s.BaseManifestList, s.DeltaManifestList} {
		wg.Add(1)
		go func() {
			defer wg.Done()
			lists[i], errs[i] = manifest.ReadManifestList(ctx, c.fio, name)
		}()
	}
	wg.Wait()
	if err := errors.Join(errs[:]...); err != nil {
		if c.expiredBase(ctx, s, err) {
			return base{}, errBaseExpired
		}
		return base{}, err
	}
	return base{snap: s, metas: append(lists[0], lists[1]...)}, nil
}
