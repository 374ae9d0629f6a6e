package main

import (
	"bytes"
	"context"
	"os"
	"runtime/metrics"
	"runtime/pprof"
	"sync"
	"time"
)

// heapPeak keeps the heap profile of the moment the live heap was largest
// (--memprofile writes it beside the allocation profile, as F.peak): where
// the peak RSS of a run comes from, which the allocation profile at the end
// of the runs does not tell. It samples /gc/heap/live:bytes (the heap
// marked live by the last collection) every interval and takes a profile
// when it grew by an eighth over the last one taken.
type heapPeak struct {
	stop chan struct{}
	done sync.WaitGroup
	mu   sync.Mutex
	live uint64       // bytes live at the profile kept
	prof bytes.Buffer // pprof.Lookup("heap") at that moment
}

func startHeapPeak(ctx context.Context, interval time.Duration) *heapPeak {
	h := &heapPeak{stop: make(chan struct{})}
	h.done.Add(1)
	go func() {
		defer h.done.Done()
		s := []metrics.Sample{{Name: "/gc/heap/live:bytes"}}
		t := time.NewTicker(interval)
		defer t.Stop()
		for {
			select {
			case <-ctx.Done():
				return
			case <-h.stop:
				return
			case <-t.C:
			}
			metrics.Read(s)
			if s[0].Value.Kind() != metrics.KindUint64 {
				return
			}
			live := s[0].Value.Uint64()
			h.mu.Lock()
			if live > h.live+h.live/8 {
				h.prof.Reset()
				if pprof.Lookup("heap").WriteTo(&h.prof, 0) == nil {
					h.live = live
				}
			}
			h.mu.Unlock()
		}
	}()
	return h
}

// write stops the sampling and writes the kept profile to path.
func (h *heapPeak) write(path string) error {
	close(h.stop)
	h.done.Wait()
	h.mu.Lock()
	defer h.mu.Unlock()
	return os.WriteFile(path, h.prof.Bytes(), 0o644)
}
