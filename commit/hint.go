package commit

import (
	"context"
	"sync"
	"time"

	"github.com/paimon-go/paimon/snapshot"
)

// hintWriter keeps snapshot/LATEST up to date for the snapshots one
// Committer creates (Java SnapshotManager.commitLatestHint, called after each
// successful commit).
//
// On object stores the hint is written in the background, so that the
// commit's latency is the create-if-absent PUT of the snapshot and not that
// plus the hint's PUT. This is safe because the hint is only ever a hint:
// Java's HintFileUtils.findLatest (and snapshot.Manager.LatestID) trusts
// LATEST = n only when snapshot n+1 does not exist and otherwise lists the
// snapshot directory, so a hint that lags, or that a slower writer set back
// to an older id, costs readers a listing and never yields a wrong latest
// snapshot; and the hint is written only after its snapshot exists, so it
// never names a missing one. At most one write is in flight per Committer;
// ids that arrive meanwhile are coalesced into one write of the highest.
//
// On local file systems a write costs tens of microseconds, and a write
// still running after the caller moved on could race with the removal of
// the table directory, so there the hint is written before Commit returns.
type hintWriter struct {
	snaps *snapshot.Manager
	sync  bool

	mu      sync.Mutex
	pending int64         // highest id to write
	written int64         // highest id written (or given up on)
	done    chan struct{} // non-nil while the background writer runs
}

// hintTimeout bounds one background hint write (with its three attempts).
const hintTimeout = time.Minute

func newHintWriter(snaps *snapshot.Manager, sync bool) *hintWriter {
	return &hintWriter{snaps: snaps, sync: sync}
}

// update records that snapshot id was created.
func (h *hintWriter) update(ctx context.Context, id int64) {
	if h.sync {
		_ = h.snaps.CommitLatestHint(ctx, id) // best effort, like Java
		return
	}
	h.mu.Lock()
	defer h.mu.Unlock()
	h.pending = max(h.pending, id)
	if h.done != nil {
		return
	}
	done := make(chan struct{})
	h.done = done
	go h.run(context.WithoutCancel(ctx), done)
}

func (h *hintWriter) run(ctx context.Context, done chan struct{}) {
	defer close(done)
	for {
		h.mu.Lock()
		id := h.pending
		if id <= h.written {
			h.done = nil
			h.mu.Unlock()
			return
		}
		h.mu.Unlock()
		wctx, cancel := context.WithTimeout(ctx, hintTimeout)
		_ = h.snaps.CommitLatestHint(wctx, id) // best effort: readers fall back to listing
		cancel()
		h.mu.Lock()
		h.written = max(h.written, id)
		h.mu.Unlock()
	}
}

// wait blocks until no background write is in flight.
func (h *hintWriter) wait() {
	h.mu.Lock()
	d := h.done
	h.mu.Unlock()
	if d != nil {
		<-d
	}
}
