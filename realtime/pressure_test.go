package realtime_test

import (
	"context"
	"errors"
	"slices"
	"sync"
	"testing"
	"time"

	"github.com/paimon-go/paimon/realtime"
)

// blockFlush makes rc's prepares stop after their seal until release is
// called; started receives a value per prepare that reached that point. A
// failing test releases them too, before the context is closed.
func blockFlush(t *testing.T, rc *realtime.Context) (started chan struct{}, release func()) {
	started, ch := make(chan struct{}, 4), make(chan struct{})
	var once sync.Once
	release = func() { once.Do(func() { close(ch) }) }
	t.Cleanup(release)
	realtime.SetFlushHook(rc, func() {
		started <- struct{}{}
		<-ch
	})
	return started, release
}

// waitFor polls cond for at most 30 s (the machine may be loaded).
func waitFor(t *testing.T, what string, cond func() bool) {
	t.Helper()
	for deadline := time.Now().Add(30 * time.Second); !cond(); {
		if time.Now().After(deadline) {
			t.Fatalf("gave up waiting for %s", what)
		}
		time.Sleep(time.Millisecond)
	}
}

// TestWriteBackPressure: with write-buffer-size = 1 kb, a Write waits while a
// prepare is writing data files and the stores hold more than that, and
// stores its batch when the prepare ends; a Write whose context ends while
// it waits stores nothing and returns the context's error; with no prepare
// running nothing waits, however full the stores.
func TestWriteBackPressure(t *testing.T) {
	ctx := context.Background()
	tbl := newFooTable(t, nil, nil, map[string]string{"write-buffer-size": "1 kb"})
	rc := newContext(t, tbl)
	w, w2 := newWrite(t, rc, "u"), newWrite(t, rc, "u2")
	cm := newCommit(t, rc, "u")

	write(t, w, fooRows(t, "a", seq(0, 100)...)) // about 4 KiB stored, no prepare: no wait
	if n := realtime.WriteWaits(rc); n != 0 {
		t.Fatalf("%d Writes waited without a prepare running", n)
	}
	started, release := blockFlush(t, rc)
	prepared := make(chan []realtime.Progress, 1)
	go func() {
		prog, err := w.PrepareCommitWithProgress(ctx, 1)
		if err != nil {
			t.Error(err)
		}
		prepared <- prog
	}()
	<-started

	wrote := make(chan error, 1)
	go func() {
		rec := fooRows(t, "a", seq(100, 110)...)
		defer rec.Release()
		wrote <- w.Write(ctx, rec)
	}()
	waitFor(t, "the Write to wait", func() bool { return realtime.WriteWaits(rc) == 1 })
	select {
	case err := <-wrote:
		t.Fatalf("Write returned (%v) while the prepare was flushing above write-buffer-size", err)
	default:
	}

	cctx, cancel := context.WithCancel(ctx)
	cancelled := make(chan error, 1)
	go func() {
		rec := fooRows(t, "a", seq(200, 210)...)
		defer rec.Release()
		cancelled <- w2.Write(cctx, rec)
	}()
	waitFor(t, "the second Write to wait", func() bool { return realtime.WriteWaits(rc) == 2 })
	cancel()
	if err := <-cancelled; !errors.Is(err, context.Canceled) {
		t.Fatalf("cancelled Write: %v, want context.Canceled", err)
	}

	release()
	if err := <-wrote; err != nil {
		t.Fatal(err)
	}
	commitProg(t, cm, <-prepared, 1)
	commitProg(t, cm, prepare(t, w, 2), 2)
	got := scanRows(t, rc)
	slices.Sort(got)
	want := fooStrings("a", seq(0, 110)...)
	slices.Sort(want)
	if !slices.Equal(got, want) {
		t.Errorf("rows after the commits: %d rows %v...\nwant %d rows %v...", len(got), got[:min(3, len(got))], len(want), want[:3])
	}
	if n := realtime.WriteWaits(rc); n != 2 {
		t.Errorf("WriteWaits = %d, want 2", n)
	}
}

// TestWriteNoPressureBelowLimit: under the default write-buffer-size
// (256 MiB) a Write during a running prepare does not wait.
func TestWriteNoPressureBelowLimit(t *testing.T) {
	ctx := context.Background()
	tbl := newFooTable(t, nil, nil, nil)
	rc := newContext(t, tbl)
	w := newWrite(t, rc, "u")
	write(t, w, fooRows(t, "a", seq(0, 100)...))
	started, release := blockFlush(t, rc)
	done := make(chan error, 1)
	go func() {
		_, err := w.PrepareCommitWithProgress(ctx, 1)
		done <- err
	}()
	<-started
	write(t, w, fooRows(t, "a", seq(100, 200)...)) // returns while the prepare is blocked
	if n := realtime.WriteWaits(rc); n != 0 {
		t.Errorf("WriteWaits = %d below the limit, want 0", n)
	}
	release()
	if err := <-done; err != nil {
		t.Fatal(err)
	}
	if got := len(scanRows(t, rc)); got != 200 {
		t.Errorf("%d rows, want 200", got)
	}
}
