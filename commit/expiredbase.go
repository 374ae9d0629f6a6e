package commit

import (
	"context"
	"errors"

	"github.com/paimon-go/paimon/fileio"
	"github.com/paimon-go/paimon/snapshot"
)

// errBaseExpired says that a file of the base snapshot an attempt read was
// deleted by an expiration before the attempt could read it; the attempt is
// redone on the latest snapshot, as after a lost race.
var errBaseExpired = errors.New("commit: the base snapshot was expired while it was read")

// expiredBase reports whether err, met while an attempt built on base,
// comes from a file of base that an expiration (or a rollback) deleted
// after base was read: err wraps fileio.ErrNotExist and base is no longer
// the latest snapshot, or below the EARLIEST hint (an expiration is deleting it: it raises the hint first and
// deletes the snapshot file last) or no longer the table's snapshot
// (Committer.baseGone). Java's tryCommit meets the
// same race as a FileNotFoundException and fails the commit; here the
// attempt is redone on the latest snapshot, counting as a lost race. A
// missing file of a snapshot that still exists stays an error (the table
// is damaged).
func (c *Committer) expiredBase(ctx context.Context, base *snapshot.Snapshot, err error) bool {
	if base == nil || err == nil || !errors.Is(err, fileio.ErrNotExist) && !errors.Is(err, errBaseExpired) {
		return false
	}
	if errors.Is(err, errBaseExpired) {
		return true
	}
	ctx = context.WithoutCancel(ctx)
	// The table moved on: this attempt would lose the race for base+1
	// anyway, and the missing file is one an expiration of base deleted
	// (concurrent expirations may even have moved the EARLIEST hint back
	// below base meanwhile, see gap.go).
	if next, err := c.snaps.Exists(ctx, base.ID+1); err == nil && next {
		return true
	}
	// An expiration raises the EARLIEST hint above the snapshots it expires
	// before it deletes any of their files, and deletes their snapshot
	// files last: the hint tells while the snapshot file is still there.
	if hint, ok, err := c.snaps.EarliestHint(ctx); err == nil && ok && hint > base.ID {
		if hint, ok, err = c.snaps.ConfirmEarliestHint(ctx, hint); err == nil && ok && hint > base.ID {
			return true
		}
	}
	gone, gerr := c.baseGone(ctx, base)
	return gerr == nil && gone
}
