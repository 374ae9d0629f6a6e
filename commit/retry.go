package commit

import (
	"context"
	"fmt"
	"math/rand/v2"
	"sync"
	"time"

	"github.com/paimon-go/paimon/schema"
)

// DefaultMaxRetries is the number of lost races after which a commit gives
// up with ErrRetriesExhausted when the table does not set
// commit.max-retries. Java's default is 10, which assumes that a lock makes
// lost races rare; without a lock, losing is the normal outcome under
// contention (every loss means another commit succeeded): with 8 processes
// committing in a loop on MinIO (cmd/racebench, 8 × 100 commits) the most
// losses of one commit were 17 to 28, and the waits of retryWaiter favour a
// commit the more it lost. 100 losses take one to two minutes there.
const DefaultMaxRetries = 100

// retryWaiter decides, after a commit lost the race for the next snapshot
// id, whether it tries again and how long it waits first, and how long a
// Committer that saw contention waits before its next commit's first attempt
// (Java RetryWaiter as FileStoreCommitImpl.tryCommit uses it, with other
// waits). It is shared by the commits of one Committer and safe for
// concurrent use.
//
// Java waits min(commit.min-retry-wait·2^retry, commit.max-retry-wait) plus
// up to 20% jitter. That backoff suits an overloaded service but starves
// racing committers: a lost race is no sign of overload, and while a
// committer that lost ten times sleeps for seconds, the winners commit
// again and again and it keeps losing (cmd/racebench, 8 processes × 100
// commits on MinIO: p50 35 ms, p99 7–8 s, max 47–57 s; a commit hit its 60
// s deadline). Three rules replace it, each measured with cmd/racebench:
//
//   - The wait is random in a window of about two attempts: uniform in
//     [0, u·2/(2+retry)) after the retry-th lost race (0-based), with
//     u = max(commit.min-retry-wait, 2 × the duration of the attempt that
//     lost), at most commit.max-retry-wait. Windows of a few
//     commit.min-retry-wait (tens of milliseconds) made every loser come back
//     within the winner's next attempt: fair (p99 10x p50), but every round
//     ended in a pile-up and throughput halved.
//   - Committers that saw contention yield: the first attempt of a commit
//     whose Committer lost a race in its previous commit waits like a loser
//     (uniform in [0, u), u of that commit's last attempt). Otherwise the
//     winner of a round, whose next attempt builds on its own snapshot and
//     reads nothing, returns first and wins again (windows growing with
//     the losses or the attempt's length without this rule: p99 40–70x p50).
//   - Older commits are favoured: the window shrinks with the number of
//     losses (the 2/(2+retry) factor), so that a commit that lost often
//     tends to try first. Without it p99 was 12x and max 22x p50; with it
//     6.7x and 10.7x.
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
	seen  *contention
}

// contention is what the last commit part of a Committer saw: whether it
// lost a race, and how long its last attempt took.
type contention struct {
	mu        sync.Mutex
	contended bool
	attempt   time.Duration
}

// newRetryWaiter reads commit.max-retries, commit.min-retry-wait,
// commit.max-retry-wait and commit.timeout; malformed values, and a negative
// commit.max-retries, wrap schema.ErrInvalidOption.
func newRetryWaiter(o schema.Options) (retryWaiter, error) {
	w := retryWaiter{maxRetries: DefaultMaxRetries, seen: &contention{}}
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

// unit is the wait window after an attempt that took attempt:
// max(commit.min-retry-wait, 2·attempt), at most commit.max-retry-wait.
func (w retryWaiter) unit(attempt time.Duration) time.Duration {
	return min(max(w.minWait, 2*attempt), w.maxWait)
}

func (w retryWaiter) uniform(window time.Duration) time.Duration {
	if window <= 0 {
		return 0
	}
	rnd := w.randN
	if rnd == nil {
		rnd = rand.Int64N
	}
	return time.Duration(rnd(int64(window)))
}

// next reports how long to wait, at now, after the retry-th lost race
// (0-based) of a commit running under ctx, whose attempt took attempt; ok
// is false when the commit must give up instead: retry+1 lost races exceed
// commit.max-retries, or the wait would end after ctx's deadline (which
// includes commit.timeout, see Committer.Commit), so that a commit gives up
// at once instead of sleeping into its deadline.
func (w retryWaiter) next(retry int, attempt time.Duration, now time.Time, ctx context.Context) (d time.Duration, ok bool) {
	if retry >= w.maxRetries {
		return 0, false
	}
	d = w.uniform(w.unit(attempt) * 2 / time.Duration(2+retry))
	if dl, set := ctx.Deadline(); set && now.Add(d).After(dl) {
		return 0, false
	}
	return d, true
}

// politeWait is the wait before the first attempt of a commit part: none,
// unless the previous commit part of the Committer lost a race; then
// uniform in [0, unit of that part's last attempt).
func (w retryWaiter) politeWait() time.Duration {
	w.seen.mu.Lock()
	contended, attempt := w.seen.contended, w.seen.attempt
	w.seen.mu.Unlock()
	if !contended {
		return 0
	}
	return w.uniform(w.unit(attempt))
}

// note records what a published commit part saw: how many races it lost
// and how long its last attempt took.
func (w retryWaiter) note(lost int, attempt time.Duration) {
	w.seen.mu.Lock()
	w.seen.contended, w.seen.attempt = lost > 0, attempt
	w.seen.mu.Unlock()
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
