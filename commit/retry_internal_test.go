package commit

import (
	"context"
	"errors"
	"testing"
	"time"

	"github.com/paimon-go/paimon/schema"
)

// TestRetryWaiterWindows: after the retry-th lost race of an attempt that
// took a, the wait is uniform in [0, u·2/(2+retry)) with u =
// max(min-retry-wait, 2a) capped by max-retry-wait; with a random source
// that returns its bound minus one, the waits are those bounds minus 1 ns.
func TestRetryWaiterWindows(t *testing.T) {
	w, err := newRetryWaiter(schema.Options{})
	if err != nil {
		t.Fatal(err)
	}
	if w.maxRetries != DefaultMaxRetries || w.minWait != 10*time.Millisecond || w.maxWait != 10*time.Second || w.timeout != 0 {
		t.Fatalf("defaults %+v", w)
	}
	w.randN = func(n int64) int64 { return n - 1 }
	ctx := context.Background()
	now := time.Unix(0, 0)
	for _, c := range []struct {
		retry   int
		attempt time.Duration
		bound   time.Duration
	}{
		{0, 30 * time.Millisecond, 60 * time.Millisecond},
		{1, 30 * time.Millisecond, 40 * time.Millisecond},
		{2, 30 * time.Millisecond, 30 * time.Millisecond},
		{4, 30 * time.Millisecond, 20 * time.Millisecond},
		{0, time.Millisecond, 10 * time.Millisecond},     // min-retry-wait
		{1, time.Millisecond, 6666666 * time.Nanosecond}, // 10 ms · 2/3
		{0, 20 * time.Second, 10 * time.Second},          // max-retry-wait
	} {
		d, ok := w.next(c.retry, c.attempt, now, ctx)
		if !ok || d != c.bound-1 {
			t.Errorf("retry %d after %v: wait %v, %v; want %v, true", c.retry, c.attempt, d, ok, c.bound-1)
		}
	}
	// Zero waits.
	w.minWait = 0
	if d, ok := w.next(3, 0, now, ctx); d != 0 || !ok {
		t.Errorf("zero window: %v, %v", d, ok)
	}
}

// TestRetryWaiterPolite: a Committer whose last commit part lost a race
// waits before the next one's first attempt, as a loser of an attempt of
// the same length would; after an uncontended commit it does not wait.
func TestRetryWaiterPolite(t *testing.T) {
	w, err := newRetryWaiter(schema.Options{})
	if err != nil {
		t.Fatal(err)
	}
	w.randN = func(n int64) int64 { return n - 1 }
	if d := w.politeWait(); d != 0 {
		t.Errorf("first commit waits %v", d)
	}
	w.note(2, 25*time.Millisecond)
	if d := w.politeWait(); d != 50*time.Millisecond-1 {
		t.Errorf("after a contended commit: %v, want 50ms-1ns", d)
	}
	w.note(0, 25*time.Millisecond)
	if d := w.politeWait(); d != 0 {
		t.Errorf("after an uncontended commit: %v, want 0", d)
	}
}

// TestRetryWaiterGivesUp: after commit.max-retries lost races, and when the
// wait would end after the context's deadline, next refuses.
func TestRetryWaiterGivesUp(t *testing.T) {
	w, err := newRetryWaiter(schema.Options{"commit.max-retries": "2", "commit.min-retry-wait": "100 ms", "commit.timeout": "1 s"})
	if err != nil {
		t.Fatal(err)
	}
	if w.maxRetries != 2 || w.minWait != 100*time.Millisecond || w.timeout != time.Second {
		t.Fatalf("options %+v", w)
	}
	w.randN = func(n int64) int64 { return n / 2 }
	now := time.Unix(100, 0)
	ctx := context.Background()
	for retry, want := range []struct {
		d  time.Duration
		ok bool
	}{{50 * time.Millisecond, true}, {100 * time.Millisecond / 3, true}, {0, false}} {
		if d, ok := w.next(retry, 0, now, ctx); d != want.d || ok != want.ok {
			t.Errorf("retry %d: %v, %v; want %v, %v", retry, d, ok, want.d, want.ok)
		}
	}
	// Deadline 60 ms ahead: a 50 ms wait fits, a 75 ms one does not.
	dctx, cancel := context.WithDeadline(ctx, now.Add(60*time.Millisecond))
	defer cancel()
	w.maxRetries = DefaultMaxRetries
	if d, ok := w.next(0, 0, now, dctx); d != 50*time.Millisecond || !ok {
		t.Errorf("wait within the deadline: %v, %v", d, ok)
	}
	w.randN = func(n int64) int64 { return n * 3 / 4 }
	if d, ok := w.next(0, 0, now, dctx); d != 0 || ok {
		t.Errorf("wait past the deadline: %v, %v; want 0, false", d, ok)
	}
	if _, err := newRetryWaiter(schema.Options{"commit.max-retries": "-1"}); !errors.Is(err, schema.ErrInvalidOption) {
		t.Errorf("commit.max-retries = -1: %v, want ErrInvalidOption", err)
	}
}
