package reader

import (
	"context"
	"errors"
	"fmt"

	"github.com/paimon-go/paimon/fileio"
	"github.com/paimon-go/paimon/snapshot"
)

// ErrSnapshotExpired: the snapshot a scan plans or reads was expired
// (package expire, or the automatic expiration after commits, package
// maintain) before the scan was done with it: a manifest, index or data
// file it names is gone and the snapshot is now below the table's EARLIEST
// snapshot or gone itself. The error also wraps the cause
// (fileio.ErrNotExist naming the file, or snapshot.ErrNotFound). The read
// stops there: rows are never silently missing. Plan again on a live
// snapshot (or keep the snapshot alive with a tag or a consumer). A scan of
// the latest snapshot does so itself while planning (Scan.Plan plans the
// new latest snapshot again, up to 4 plans in all); reading a plan's rows
// does not.
var ErrSnapshotExpired = errors.New("reader: snapshot expired")

// CheckExpired returns err wrapped with ErrSnapshotExpired when it reports
// a missing file (fileio.ErrNotExist) of snapshot sn of the table at meta
// (its root, or a branch's directory) and sn has been expired since: its id
// is below the EARLIEST hint or its snapshot file is gone. Otherwise, and
// when that cannot be told, it returns err as is. For callers that read a
// snapshot's files beside a Plan (e.g. its index manifest) and want to tell
// expiration from damage as Plan does.
func CheckExpired(ctx context.Context, meta *fileio.FileIO, sn *snapshot.Snapshot, err error) error {
	return expiredErr(ctx, meta, sn, false, err)
}

// expiredErr returns err wrapped with ErrSnapshotExpired when it reports a
// missing file (fileio.ErrNotExist) of snapshot sn read from branch meta and
// sn has been expired since: its id is below the EARLIEST hint or its
// snapshot file is gone. Tag reads are left alone (a tag keeps its files: a
// missing one is damage, not expiration). Otherwise err is returned as is.
func expiredErr(ctx context.Context, meta *fileio.FileIO, sn *snapshot.Snapshot, tag bool, err error) error {
	if err == nil || sn == nil || tag || !errors.Is(err, fileio.ErrNotExist) || errors.Is(err, ErrSnapshotExpired) {
		return err
	}
	ctx = context.WithoutCancel(ctx)
	sm := snapshot.NewManager(meta)
	hint, ok, herr := sm.EarliestHint(ctx)
	if herr == nil && ok && hint > sn.ID {
		return fmt.Errorf("%w: snapshot %d is below the earliest snapshot %d: %w", ErrSnapshotExpired, sn.ID, hint, err)
	}
	if exists, eerr := sm.Exists(ctx, sn.ID); eerr == nil && !exists {
		return fmt.Errorf("%w: snapshot %d no longer exists: %w", ErrSnapshotExpired, sn.ID, err)
	}
	return err
}
