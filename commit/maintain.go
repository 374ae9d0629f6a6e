package commit

import "context"

// Maintainer is table maintenance that runs after each successful commit of a
// Committer, as Java's TableCommitImpl runs snapshot and partition expiration
// after FileStoreCommit.commit and overwrite (TableCommitImpl.expire).
// Package maintain implements it with Java's options and defaults; the
// front door (paimon.Table.NewCommit, realtime.Context.NewCommit) installs
// it by default.
//
// A Maintainer must be safe for concurrent use. It never fails the commit
// that called it: the snapshot is published when AfterCommit runs, so a
// maintenance error is reported by the Maintainer itself (logged, or handed
// to a callback), never returned to the committer's caller, who would
// otherwise retry a commit that landed.
type Maintainer interface {
	// AfterCommit is called when Commit, CommitWithProgress, Overwrite,
	// OverwriteDynamic, DropPartitions or Truncate returned without error,
	// with the id of the last snapshot the Committer published (0 when it
	// has published none yet, e.g. after an ignored empty commit or a retry
	// of a commit that had landed) and the call's commit identifier (BatchIdentifier for
	// DropPartitions and Truncate). ctx is the commit's context.
	AfterCommit(ctx context.Context, snapshotID, identifier int64)
	// Close waits for maintenance still running in the background; the
	// Committer's Close calls it.
	Close() error
}

// WithMaintainer installs m to run after every successful commit (see
// Maintainer); nil removes the one installed by default.
func WithMaintainer(m Maintainer) Option { return func(c *Committer) { c.maintainer = m } }

// afterCommit hands a commit that returned id and err to the Maintainer,
// with the id of the last snapshot this Committer published when that is
// higher (CommitWithProgress returns the id of the snapshot with the
// progress, which a COMPACT snapshot may follow).
func (c *Committer) afterCommit(ctx context.Context, id, identifier int64, err error) {
	if err != nil || c.maintainer == nil {
		return
	}
	c.mu.Lock()
	if l := c.last; l != nil && l.snap != nil && l.snap.ID > id {
		id = l.snap.ID
	}
	c.mu.Unlock()
	c.maintainer.AfterCommit(ctx, id, identifier)
}
