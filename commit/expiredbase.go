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
// after base was read: err wraps fileio.ErrNotExist and snapshot base is
// no longer the table's (Committer.baseGone). Java's tryCommit meets the
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
	gone, gerr := c.baseGone(context.WithoutCancel(ctx), base)
	return gerr == nil && gone
}
