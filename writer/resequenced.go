package writer

import (
	"context"
	"fmt"
	"sync"

	"github.com/paimon-go/paimon/commit"
	"github.com/paimon-go/paimon/manifest"
)

// resequenced collects what committers report through
// commit.Message.OnResequenced: another writer committed to one of this
// Write's primary-key buckets, and the committer replaced this Write's new
// files by copies with higher sequence numbers (see package commit,
// Sequence numbers across writers). The reports arrive on the committing
// goroutine; the Write applies them on its own, at its next Write or
// PrepareCommit (applyResequenced).
type resequenced struct {
	mu      sync.Mutex
	pending []commit.Resequenced
	refused map[string]bool // groupKey of buckets whose compaction was refused
}

// report is the OnResequenced callback of the Write's messages.
func (r *resequenced) report(m commit.Resequenced) {
	r.mu.Lock()
	r.pending = append(r.pending, m)
	r.mu.Unlock()
}

// refuse is the OnCompactionRefused callback of the Write's messages.
func (r *resequenced) refuse(partition []byte, bucket int32) {
	r.mu.Lock()
	if r.refused == nil {
		r.refused = map[string]bool{}
	}
	r.refused[groupKey(partition, bucket)] = true
	r.mu.Unlock()
}

// take returns and clears the pending reports.
func (r *resequenced) take() ([]commit.Resequenced, map[string]bool) {
	r.mu.Lock()
	defer r.mu.Unlock()
	p, f := r.pending, r.refused
	r.pending, r.refused = nil, nil
	return p, f
}

// applyResequenced brings the bucket writers named by pending reports in
// step with the table: their sequence counters continue after the copies'
// highest number, so the next commit need not be re-sequenced unless
// another writer commits in between, and their levels hold the copies in
// place of the replaced files, so that compaction reads and deletes the
// files the table has. A replaced file no longer in the levels (a
// compaction took it; that compaction's commit fails with
// commit.ErrCompactionNotCommitted, after which the Write is restored)
// is skipped.
//
// A bucket whose compaction a commit refused (commit.Message.OnCompactionRefused)
// gets its levels (and deletion vectors) rebuilt from the latest snapshot,
// keeping its buffered rows and the files it has not handed out yet, as if
// its writer had been restored: its running compaction is waited for and
// its unhanded outputs deleted.
func (w *Write) applyResequenced(ctx context.Context) error {
	pending, refused := w.reseq.take()
	if len(refused) > 0 {
		if err := w.reloadLevels(ctx, refused); err != nil {
			return err
		}
	}
	for _, m := range pending {
		w.rebucketed(m)
		bw := w.writers[groupKey(m.Partition, m.Bucket)]
		if bw == nil {
			continue
		}
		var before, after []manifest.DataFileMeta
		for name, copies := range m.Files {
			for _, f := range copies {
				bw.seq = max(bw.seq, f.MaxSequenceNumber+1)
			}
			if bw.comp == nil || bw.comp.levels == nil {
				continue
			}
			for _, f := range bw.comp.levels.Level0() {
				if f.FileName == name {
					before = append(before, f)
					after = append(after, copies...)
				}
			}
		}
		if len(before) > 0 {
			if err := bw.comp.levels.Update(before, after); err != nil {
				return err
			}
		}
	}
	return nil
}

// reloadLevels rebuilds the compaction state of the buckets keys from the
// latest snapshot (see applyResequenced).
func (w *Write) reloadLevels(ctx context.Context, keys map[string]bool) error {
	if err := w.scanRestore(ctx); err != nil {
		return err
	}
	for key := range keys {
		bw := w.writers[key]
		if bw == nil || bw.comp == nil {
			continue
		}
		if err := bw.abortCompact(ctx); err != nil {
			return err
		}
		r := w.restored[key]
		bc, err := w.newBucketCompaction(ctx, bw.dir, bw.partition, bw.bucket, r.files)
		if err != nil {
			return fmt.Errorf("writer: restore bucket %s: %w", bw.dir, err)
		}
		bc.touched = bw.comp.touched
		bw.comp = bc
		if err := bw.addNewFiles(bw.newFiles); err != nil {
			return err
		}
		if _, ok := w.restored[key]; ok {
			bw.seq = max(bw.seq, r.maxSeq+1)
		}
	}
	return nil
}
