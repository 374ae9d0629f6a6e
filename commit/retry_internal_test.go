package commit

import (
	"context"
	"errors"
	"testing"
	"time"

	"github.com/paimon-go/paimon/schema"
)

// TestRetryWaiterWindows: the wait after the retry-th lost race is uniform
// in [0, min(max-retry-wait, min-retry-wait·2^min(retry, 2))): with a random
// source that returns its bound minus one, the waits are the windows minus
// 1 ns.
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
	for retry, want := range []time.Duration{10 * time.Millisecond, 20 * time.Millisecond, 40 * time.Millisecond, 40 * time.Millisecond, 40 * time.Millisecond} {
		d, ok := w.next(retry, now, ctx)
		if !ok || d != want-1 {
			t.Errorf("retry %d: wait %v, %v; want %v, true", retry, d, ok, want-1)
		}
	}
	// The window is capped by commit.max-retry-wait.
	w.maxWait = 15 * time.Millisecond
	if d, _ := w.next(3, now, ctx); d != 15*time.Millisecond-1 {
		t.Errorf("capped wait %v, want 15ms-1ns", d)
	}
	// Zero waits.
	w.minWait = 0
	if d, ok := w.next(3, now, ctx); d != 0 || !ok {
		t.Errorf("zero window: %v, %v", d, ok)
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
	}{{50 * time.Millisecond, true}, {100 * time.Millisecond, true}, {0, false}} {
		if d, ok := w.next(retry, now, ctx); d != want.d || ok != want.ok {
			t.Errorf("retry %d: %v, %v; want %v, %v", retry, d, ok, want.d, want.ok)
		}
	}
	// Deadline 120 ms ahead: a 100 ms wait fits, a 150 ms one does not.
	dctx, cancel := context.WithDeadline(ctx, now.Add(120*time.Millisecond))
	defer cancel()
	w.maxRetries = DefaultMaxRetries
	if d, ok := w.next(1, now, dctx); d != 100*time.Millisecond || !ok {
		t.Errorf("wait within the deadline: %v, %v", d, ok)
	}
	w.randN = func(n int64) int64 { return n * 3 / 4 }
	if d, ok := w.next(1, now, dctx); d != 0 || ok {
		t.Errorf("wait past the deadline: %v, %v; want 0, false", d, ok)
	}
	if _, err := newRetryWaiter(schema.Options{"commit.max-retries": "-1"}); !errors.Is(err, schema.ErrInvalidOption) {
		t.Errorf("commit.max-retries = -1: %v, want ErrInvalidOption", err)
	}
}
