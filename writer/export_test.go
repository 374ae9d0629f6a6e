package writer

import "time"

// SetCompactionHooks installs test hooks on w's compaction: beforeRun runs in
// the compaction's goroutine (async compaction) before each rewrite starts;
// onStall when a flush waits for (async) or runs (sync) a compaction because
// the bucket has more than num-sorted-run.stop-trigger sorted runs. It
// reports false when w never compacts.
func SetCompactionHooks(w *Write, beforeRun, onStall func()) bool {
	if w.comp == nil {
		return false
	}
	w.comp.beforeRun, w.comp.onStall = beforeRun, onStall
	return true
}

// SetNow replaces w's clock (file creation times, the key index TTL).
func SetNow(w *Write, now func() time.Time) { w.now = now }
