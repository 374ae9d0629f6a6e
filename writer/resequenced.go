package writer

import (
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
}

// report is the OnResequenced callback of the Write's messages.
func (r *resequenced) report(m commit.Resequenced) {
	r.mu.Lock()
	r.pending = append(r.pending, m)
	r.mu.Unlock()
}

// take returns and clears the pending reports.
func (r *resequenced) take() []commit.Resequenced {
	r.mu.Lock()
	defer r.mu.Unlock()
	p := r.pending
	r.pending = nil
	return p
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
func (w *Write) applyResequenced() error {
	for _, m := range w.reseq.take() {
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
