package commit

import (
	"context"
	"fmt"
	"math/rand/v2"
	"time"

	"github.com/paimon-go/paimon/schema"
)

// DefaultMaxRetries is the number of lost races after which a commit gives
// up with ErrRetriesExhausted when the table does not set
// commit.max-retries. Java's default is 10, which assumes that a lock makes
// lost races rare; without a lock, losing is the normal outcome under
// contention (every loss means another commit succeeded). With the waits of
// retryWaiter each attempt of k committers racing for the next id wins with
// a probability of about 1/k, so 8 committers committing in a loop lose 100
// times in a row with a probability of about (7/8)^100 ≈ 2e-6 per commit
// (cmd/racebench, 8 processes × 100 commits on MinIO: at most 30 to 40).
const DefaultMaxRetries = 100

// retryWaiter decides, after a commit lost the race for the next snapshot
// id, whether it tries again and how long it waits first (Java RetryWaiter
// as FileStoreCommitImpl.tryCommit uses it, with other waits).
//
// Java waits min(commit.min-retry-wait·2^retry, commit.max-retry-wait) plus
// up to 20% jitter. That backoff suits an overloaded service but starves
// racing committers: a lost race is no sign of overload, and while a
// committer that lost ten times sleeps for seconds, the others commit again
// and again and it keeps losing (cmd/racebench, 8 processes × 100 commits on
// MinIO: p99 9 s and max 48 s against a p50 of 38 ms; one commit hit its
// 60 s deadline). Here the wait is "full jitter" in a window that stops
// growing after two doublings: after the retry-th lost race (0-based) it is
// uniform in [0, min(commit.max-retry-wait, commit.min-retry-wait ·
// 2^min(retry, 2))), 0 to 40 ms with the defaults. Losers come back about
// when the round's winner does, so every attempt has about the same chance
// and the number of losses per commit stays about geometric, whose tail is
// short (same benchmark: p99 about 9x p50, max about 15x p50, no commit
// gave up). Windows that grow further, or scale with the duration of the
// attempt, were measured too: they let the winner of a round, whose next
// attempt builds on its own snapshot without reading anything, win again
// and again (p99 40 to 70x p50).
//
// A commit gives up with ErrRetriesExhausted after commit.max-retries lost
// races (DefaultMaxRetries when unset), or when the wait would end after
// its context's deadline, which includes commit.timeout (unset by default,
// as in Java).
type retryWaiter struct {
	maxRetries int           // commit.max-retries
	minWait    time.Duration // commit.min-retry-wait (default 10 ms)
	maxWait    time.Duration // commit.max-retry-wait (default 10 s)
	timeout    time.Duration // commit.timeout; 0: none
	// randN returns a uniform value in [0, n) (math/rand/v2 when nil).
	randN func(n int64) int64
}

// growth is the number of doublings of the wait window.
const growth = 2

// newRetryWaiter reads commit.max-retries, commit.min-retry-wait,
// commit.max-retry-wait and commit.timeout; malformed values, and a negative
// commit.max-retries, wrap schema.ErrInvalidOption.
func newRetryWaiter(o schema.Options) (retryWaiter, error) {
	w := retryWaiter{maxRetries: DefaultMaxRetries}
	var err error
	if _, set := o.Get(schema.KeyCommitMaxRetries); set {
		if w.maxRetries, err = o.CommitMaxRetries(); err != nil {
			return w, err
		}
		if w.maxRetries < 0 {
			return w, fmt.Errorf("%w: %s = %d (must be >= 0)", schema.ErrInvalidOption, schema.KeyCommitMaxRetries, w.maxRetries)
		}
	}
	if w.minWait, err = o.CommitMinRetryWait(); err != nil {
		return w, err
	}
	if w.maxWait, err = o.CommitMaxRetryWait(); err != nil {
		return w, err
	}
	if d, set, err := o.CommitTimeout(); err != nil {
		return w, err
	} else if set {
		w.timeout = d
	}
	return w, nil
}

// window is the upper bound of the wait after the retry-th lost race
// (0-based).
func (w retryWaiter) window(retry int) time.Duration {
	return min(w.minWait<<min(retry, growth), w.maxWait)
}

// next reports how long to wait, at now, after the retry-th lost race
// (0-based) of a commit running under ctx; ok is false when the commit must
// give up instead: retry+1 lost races exceed commit.max-retries, or the wait
// would end after ctx's deadline (which includes commit.timeout, see
// Committer.Commit), so that a commit gives up at once instead of sleeping
// into its deadline.
func (w retryWaiter) next(retry int, now time.Time, ctx context.Context) (d time.Duration, ok bool) {
	if retry >= w.maxRetries {
		return 0, false
	}
	if win := w.window(retry); win > 0 {
		rnd := w.randN
		if rnd == nil {
			rnd = rand.Int64N
		}
		d = time.Duration(rnd(int64(win)))
	}
	if dl, set := ctx.Deadline(); set && now.Add(d).After(dl) {
		return 0, false
	}
	return d, true
}

// exhausted is ErrRetriesExhausted for a commit part that gives up after
// the lost races r counted; cause is the context's error when the wait was
// cut short (nil when next refused to wait).
func (c *Committer) exhausted(r *rebaser, cause error) error {
	limits := fmt.Sprintf("commit.max-retries = %d", c.retry.maxRetries)
	if c.retry.timeout > 0 {
		limits += fmt.Sprintf(", commit.timeout = %s", c.retry.timeout)
	}
	err := fmt.Errorf("%w: lost %d races for the next snapshot id, the last for %s (%s)",
		ErrRetriesExhausted, r.losses, c.snaps.Path(r.last), limits)
	if cause != nil {
		err = fmt.Errorf("%w: %w", err, cause)
	}
	return err
}
