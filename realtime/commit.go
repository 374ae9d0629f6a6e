package realtime

import (
	"context"
	"errors"
	"fmt"
	"time"

	"github.com/paimon-go/paimon/commit"
	"github.com/paimon-go/paimon/maintain"
	"github.com/paimon-go/paimon/metrics"
	"github.com/paimon-go/paimon/progress"
)

// Commit publishes prepared real-time progress (paimon-cpp FileStoreCommit
// with a real-time context). It wraps a commit.Committer of the context's
// table; close it when done.
type Commit struct {
	c  *Context
	cm *commit.Committer
}

// NewCommit returns a real-time committer of the context's table as
// commitUser, with the options of package commit. Like
// paimon.Table.NewCommit it expires snapshots and partitions after every
// successful commit by the table's options (package maintain), without ever
// failing the commit for it; commit.WithMaintainer among opts replaces that
// (nil: none). It does its work after a commit in the background on every
// store (commit.WithBackground): Close the Commit before removing the
// table. It offers the manifest files it writes to the context's cache
// (commit.WithManifestCache), so the context's scans and lookups plan its
// snapshots without reading those files back. Errors: ErrClosed and those
// of commit.New and maintain.New.
func (c *Context) NewCommit(commitUser string, opts ...commit.Option) (*Commit, error) {
	if c.isClosed() {
		return nil, fmt.Errorf("%w: real-time context", ErrClosed)
	}
	m, err := maintain.New(c.cfio, c.ts, commitUser, maintain.Options{})
	if err != nil {
		return nil, err
	}
	pre := []commit.Option{commit.WithBackground(), commit.WithManifestCache(c.cache.Manifests())}
	if m.Enabled() {
		pre = append(pre, commit.WithMaintainer(m))
	}
	if c.reporter != nil {
		pre = append(pre, commit.WithReporter(c.reporter))
	}
	cm, err := commit.New(c.cfio, c.ts, commitUser, append(pre, opts...)...)
	if err != nil {
		return nil, err
	}
	return &Commit{c: c, cm: cm}, nil
}

// Committer returns the underlying committer, for commits without
// progress (compaction, overwrite, partition drops).
func (cm *Commit) Committer() *commit.Committer { return cm.cm }

// CommitWithProgress publishes the files and offset ranges of prog (from
// one or several PrepareCommitWithProgress calls, in any order) as one
// snapshot of commit identifier and returns the id of the last snapshot it
// created (the COMPACT snapshot of the flush writers' compaction when that
// landed; it carries the progress over); watermark, when not
// nil, is the input watermark to record (commit.Committer.CommitWithProgress
// and paimon-cpp FileStoreCommit::CommitWithProgress). Per
// partition-bucket the ranges must continue the latest snapshot's committed
// end without gap (progress.ErrNotContiguous). A retry of a commit that
// landed returns the latest snapshot's id. Call
// Context.RefreshCommittedSnapshot with the id afterwards so the stores can
// reclaim the committed rows. With nothing to publish (prog empty, as after
// an idle PrepareCommitWithProgress) it creates no snapshot and returns 0,
// which RefreshCommittedSnapshot accepts as a no-op.
//
// Errors: progress.ErrNotContiguous (a range that does not start at the
// committed end), progress.ErrInvalidRange, commit.ErrForeignProgress
// (ranges another commit user or identifier committed),
// commit.ErrPartialRetry (a retry mixing committed and uncommitted
// ranges), commit.ErrRealtimeDisabled, commit.ErrConflict and
// commit.ErrRetriesExhausted, and object-store errors naming the file;
// when the snapshot write failed and checking whether it landed failed
// too, the error says the outcome is unknown (the snapshot may exist).
//
// A commit whose data and progress landed but whose compaction changes were
// refused (commit.ErrCompactionNotCommitted: a concurrent compaction took
// their input files, or another writer committed to a bucket they compacted)
// succeeds: the Writes restore their flush writers from the table at their
// next PrepareCommitWithProgress.
//
// A failed commit is terminal for the writer state that produced prog,
// whatever the error: the documented recovery is to close the context (and
// its writers), create a new one, read the committed offsets of the latest
// snapshot (ReadCommittedOffsets), which tell whether an unknown outcome
// landed, and replay the input from there. The data files of a commit that
// did not land stay behind as orphans (orphan-file cleanup removes them).
func (cm *Commit) CommitWithProgress(ctx context.Context, prog []Progress, identifier int64, watermark *int64) (int64, error) {
	msgs := make([]commit.Message, 0, len(prog))
	adv := make([]progress.Advance, 0, len(prog))
	for _, p := range prog {
		if !p.Message.IsEmpty() {
			m := p.Message
			flushed := m.OnResequenced
			m.OnResequenced = func(r commit.Resequenced) {
				// Another writer committed to the partition-bucket: rows
				// written from now on continue above the copies, so they
				// order after the committed rows in the context's scans too.
				cm.c.continueAbove(r)
				if flushed != nil {
					flushed(r)
				}
			}
			msgs = append(msgs, m)
		}
		if p.Range.Empty() {
			continue // compaction changes only: no progress
		}
		adv = append(adv, progress.Advance{PartitionBucket: p.PartitionBucket, Range: p.Range})
	}
	var rep *metrics.RealtimeReport
	var start time.Time
	if cm.c.reporter != nil {
		start = time.Now()
		rep = cm.c.startReport(adv)
	}
	id, err := cm.cm.CommitWithProgress(ctx, identifier, msgs, adv, watermark)
	if rep != nil {
		defer func() {
			rep.Snapshot, rep.Err = id, err
			cm.c.finishReport(ctx, rep, start)
		}()
	}
	if errors.Is(err, commit.ErrCompactionNotCommitted) {
		// The data and the progress landed; only the compaction of the
		// flush writers was refused (a concurrent compaction, or another
		// writer's files in a bucket it compacted; package commit, Sequence
		// numbers across writers). The Writes restore their flush writers
		// from the table at their next prepare, and the commit succeeds.
		cm.c.lostCompactions.Add(1)
		err = nil
	}
	if err == nil {
		if id > 0 {
			cm.c.warmLookups(ctx, id, msgs)
		}
		cm.c.published(prog)
	}
	return id, err
}

// Close finishes the committer's background work (commit.Committer.Close).
func (cm *Commit) Close() error { return cm.cm.Close() }
