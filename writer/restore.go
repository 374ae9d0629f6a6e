package writer

import (
	"context"
	"errors"
	"fmt"

	"github.com/paimon-go/paimon/hashindex"
	"github.com/paimon-go/paimon/manifest"
	"github.com/paimon-go/paimon/reader"
	"github.com/paimon-go/paimon/snapshot"
)

// loadRestore reads the live files of the latest snapshot once per Write
// and records, per partition-bucket, the highest sequence number and, per
// partition, the bucket count the files were written with
// (AbstractFileStoreWrite.scanExistingFileMetas with
// write.sequence-number-init-mode = scan).
func (w *Write) loadRestore(ctx context.Context) error {
	if w.restored != nil {
		return nil
	}
	return w.scanRestore(ctx)
}

// restoreAttempts bounds the plans of scanRestore when the snapshot it
// planned is expired before its index manifest is read.
const restoreAttempts = 4

// scanRestore plans the latest snapshot (again) and replaces the restore.
// The plan itself plans the new latest snapshot when the one it picked is
// expired meanwhile (reader.Scan.Plan); the index manifest is read after
// it, so a snapshot expired between the two is planned again here, up to
// restoreAttempts plans.
func (w *Write) scanRestore(ctx context.Context) error {
	var plan *reader.Plan
	var entries []manifest.IndexManifestEntry
	for attempt := 1; ; attempt++ {
		var err error
		plan, err = reader.NewScan(w.fio, reader.WithAllLevels(), reader.WithoutFallback()).Plan(ctx)
		if err != nil {
			return fmt.Errorf("writer: restore from latest snapshot: %w", err)
		}
		sn := plan.Snapshot
		if sn == nil || !((w.comp != nil && w.comp.dv) || w.dyn != nil) || sn.IndexManifest == nil || *sn.IndexManifest == "" {
			break
		}
		if entries, err = manifest.ReadIndexManifest(ctx, w.fio, *sn.IndexManifest); err == nil {
			break
		}
		err = reader.CheckExpired(ctx, w.fio, sn, err)
		if attempt == restoreAttempts || !errors.Is(err, reader.ErrSnapshotExpired) || ctx.Err() != nil {
			return fmt.Errorf("writer: restore from snapshot %d: index manifest: %w", sn.ID, err)
		}
	}
	restored := map[string]restoredBucket{}
	parts := map[string]int32{}
	var mixed map[string][2]int32
	for _, sp := range plan.Splits {
		key := groupKey(sp.Partition, sp.Bucket)
		r, ok := restored[key]
		if !ok {
			r.maxSeq = -1
		}
		for _, f := range sp.Files {
			r.maxSeq = max(r.maxSeq, f.MaxSequenceNumber)
		}
		if w.comp != nil {
			r.files = append(r.files, sp.Files...)
		}
		restored[key] = r
		if sp.TotalBuckets > 0 {
			if tb, ok := parts[string(sp.Partition)]; ok && tb != sp.TotalBuckets {
				if mixed == nil {
					mixed = map[string][2]int32{}
				}
				mixed[string(sp.Partition)] = [2]int32{tb, sp.TotalBuckets}
			}
			parts[string(sp.Partition)] = sp.TotalBuckets
		}
	}
	w.restored, w.partBkts, w.partBktsMixed, w.indexEntries = restored, parts, mixed, entries
	w.restoredSnap = 0
	if plan.Snapshot != nil {
		w.restoredSnap = plan.Snapshot.ID
	}
	return nil
}

// NextSequenceNumber returns the sequence number a new writer of the
// partition-bucket starts at: the highest MaxSequenceNumber of the bucket's
// live files in the latest snapshot plus one, 0 when it has none
// (AbstractFileStoreWrite.createWriterContainer with
// write.sequence-number-init-mode = scan). partition is the serialized
// partition BinaryRow (row.Serialize, as in commit messages and Share).
// Bucket-unaware append tables (bucket = -1) always return 0: their writers
// ignore existing files, as Java's do.
//
// Rows this Write buffers and files it has not committed are not counted.
// Each call reads the table's latest snapshot id (snapshot.Manager.LatestID)
// and plans the snapshot again only when it is newer than the one the Write
// restored from last; a newer restore is also what writers this Write
// creates later start from.
//
// Errors: ErrClosed after Close; errors of reading the snapshot, manifests
// or schema, wrapped.
func (w *Write) NextSequenceNumber(ctx context.Context, partition []byte, bucket int32) (int64, error) {
	if w.closed {
		return 0, ErrClosed
	}
	if w.unaware {
		return 0, nil
	}
	latest, err := snapshot.NewManager(w.fio).LatestID(ctx)
	switch {
	case errors.Is(err, snapshot.ErrNotFound):
		latest = 0
	case err != nil:
		return 0, fmt.Errorf("writer: restore from latest snapshot: %w", err)
	}
	if w.restored == nil || latest != w.restoredSnap {
		if err := w.scanRestore(ctx); err != nil {
			return 0, err
		}
	}
	if r, ok := w.restored[groupKey(partition, bucket)]; ok {
		return r.maxSeq + 1, nil
	}
	return 0, nil
}

// Restore drops what the Write's partition-bucket writers carry from one
// commit to the next (sequence numbers, LSM levels, deletion vectors) and
// the snapshot they were restored from, so that each writer is restored
// again from the latest snapshot when it is next written to, as in a new
// Write (Java restores its writers from the latest snapshot when a job
// restarts after a failed commit). Call it when the messages of a
// PrepareCommit will not be committed, e.g. after commit.ErrConflict: the
// writers' levels and deletion vectors then describe files and index files
// that no snapshot holds, and every later compaction would conflict again.
// Call it too after ErrStale (the table was rolled back, or the files the
// writers carry were compacted and expired by another job), then write the
// rows of the failed PrepareCommit again. The example of Write.Restore shows
// that loop (write, prepare, commit; on ErrStale or commit.ErrConflict
// restore and write the held rows again).
//
// Rows written since the last PrepareCommit, and files and compaction
// outputs not yet handed out, are discarded as Close discards them (a
// running background compaction is waited for first); files named by
// messages already returned are left alone.
//
// Errors: ErrClosed after Close; errors of deleting discarded files, after
// which the Write is restored all the same.
func (w *Write) Restore(ctx context.Context) error {
	if w.closed {
		return ErrClosed
	}
	var errs []error
	for _, bw := range w.sortedWriters() {
		errs = append(errs, bw.abortCompact(ctx), bw.abort(ctx))
	}
	w.writers = map[string]*bucketWriter{}
	w.restored, w.partBkts, w.partBktsMixed, w.indexEntries, w.restoredSnap = nil, nil, nil, nil, 0
	if w.post != nil {
		w.post.num = map[string]int{} // chosen again from the latest snapshot
	}
	if w.xp != nil {
		w.xp.idx, w.xp.from, w.xp.pending, w.xp.reboot = nil, 0, false, false // bootstrapped again from the latest snapshot
	}
	if w.dyn != nil {
		// The assignment is rebuilt from the latest snapshot too.
		w.dyn.parts, w.dyn.seen = map[string]*hashindex.Partition{}, map[string]map[int32]string{}
	}
	return errors.Join(errs...)
}
