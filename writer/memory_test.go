package writer_test

import (
	"context"
	"runtime"
	"runtime/debug"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"
	"github.com/apache/arrow-go/v18/arrow/memory"

	"github.com/paimon-go/paimon/catalog"
	"github.com/paimon-go/paimon/internal/flights"
	"github.com/paimon-go/paimon/writer"
)

// countingAllocator counts the bytes of live Arrow buffers and their peak.
type countingAllocator struct {
	mem       memory.Allocator
	cur, peak atomic.Int64
}

func (a *countingAllocator) add(n int) {
	c := a.cur.Add(int64(n))
	for {
		p := a.peak.Load()
		if c <= p || a.peak.CompareAndSwap(p, c) {
			return
		}
	}
}

func (a *countingAllocator) Allocate(size int) []byte {
	a.add(size)
	return a.mem.Allocate(size)
}

func (a *countingAllocator) Reallocate(size int, b []byte) []byte {
	a.add(size - len(b))
	return a.mem.Reallocate(size, b)
}

func (a *countingAllocator) Free(b []byte) {
	a.add(-len(b))
	a.mem.Free(b)
}

// heapPeak samples runtime.MemStats.HeapInuse until stopped and returns the
// largest value seen.
func heapPeak(every time.Duration) (stop func() uint64) {
	var peak uint64
	done := make(chan struct{})
	var wg sync.WaitGroup
	wg.Add(1)
	go func() {
		defer wg.Done()
		var ms runtime.MemStats
		tick := time.NewTicker(every)
		defer tick.Stop()
		for {
			runtime.ReadMemStats(&ms)
			peak = max(peak, ms.HeapInuse)
			select {
			case <-done:
				return
			case <-tick.C:
			}
		}
	}()
	return func() uint64 {
		close(done)
		wg.Wait()
		return peak
	}
}

// BenchmarkPKWriteMemoryBound streams the 3M-row flights data into a primary-key
// table keyed by (origin, destination, date) in 2 buckets with
// write-buffer-size 64 mb, and checks the bound: the heap in use
// while writing (buffers, spills and the final merge into level-0 files)
// grows by at most write-buffer-size + 64 MiB, counting the Parquet reader
// that streams the input (about 20 MiB on its own). The GC runs with GOGC=10
// during the measurement, so that the sampled HeapInuse follows live memory
// rather than the collector's pacing. It also checks that the buffer
// spilled and that the level-0 files hold exactly one record per distinct
// key.
//
// The bound is a memory target, so it is checked in a benchmark (run with
// go test -run '^$' -bench PKWriteMemoryBound -benchtime 1x ./writer), which
// reports the growth as peak-growth-MiB.
func BenchmarkPKWriteMemoryBound(b *testing.B) {
	for range b.N {
		grown := pkWriteMemoryBound(b)
		b.ReportMetric(mib(grown), "peak-growth-MiB")
	}
}

func pkWriteMemoryBound(t testing.TB) int64 {
	const writeBufferSize = 64 << 20
	const headroom = 64 << 20
	ctx := context.Background()
	tbl := newTable(t, "", catalog.Schema{Fields: flightsFields, PrimaryKeys: []string{"origin", "destination", "date"},
		Options: map[string]string{"bucket": "2", "write-buffer-size": "64 mb"}})
	mem := &countingAllocator{mem: memory.NewGoAllocator()}
	w, err := writer.New(tbl.FileIO, tbl.Schema, "u", writer.WithAllocator(mem), writer.WithSpillDir(t.TempDir()))
	if err != nil {
		t.Fatal(err)
	}
	defer w.Close()

	defer debug.SetGCPercent(debug.SetGCPercent(10))
	runtime.GC()
	var ms runtime.MemStats
	runtime.ReadMemStats(&ms)
	base := ms.HeapInuse
	stop := heapPeak(2 * time.Millisecond)
	var maxBuffered, rows int64
	var st writer.BufferStats
	flights.Each(t, flights.Options{}, func(b arrow.RecordBatch) error {
		rows += b.NumRows()
		if err := w.Write(ctx, b); err != nil {
			stop()
			return err
		}
		st = w.BufferStats()
		maxBuffered = max(maxBuffered, st.BufferedBytes)
		return nil
	})
	msgs, err := w.PrepareCommit(ctx)
	peak := stop()
	if err != nil {
		t.Fatal(err)
	}
	grown := int64(peak) - int64(base)
	t.Logf("rows %d, write-buffer-size %d MiB: heap in use %.1f MiB before, peak %.1f MiB, growth %.1f MiB (bound %d MiB); "+
		"Arrow buffers peak %.1f MiB; largest buffer estimate %.1f MiB; %d spills, %d spilled runs (%.1f MiB) before PrepareCommit",
		rows, writeBufferSize>>20, mib(int64(base)), mib(int64(peak)), mib(grown), (writeBufferSize+headroom)>>20,
		mib(mem.peak.Load()), mib(maxBuffered), st.Spills, st.SpilledRuns, mib(st.SpilledBytes))
	if grown > writeBufferSize+headroom {
		t.Errorf("heap grew by %.1f MiB, more than write-buffer-size + 64 MiB = %d MiB", mib(grown), (writeBufferSize+headroom)>>20)
	}
	if st.Spills == 0 || st.Flushes != 0 {
		t.Errorf("buffer stats %+v: want spills and no level-0 flush before PrepareCommit", st)
	}
	if after := w.BufferStats(); after.BufferedBytes != 0 || after.SpilledRuns != 0 || after.SpilledBytes != 0 {
		t.Errorf("after PrepareCommit: buffer stats %+v, want nothing buffered or spilled", after)
	}

	// One level-0 record per distinct key.
	var written int64
	for _, m := range msgs {
		for _, f := range m.Data.NewFiles {
			written += f.RowCount
			if f.Level != 0 {
				t.Errorf("file %s at level %d", f.FileName, f.Level)
			}
		}
	}
	type key struct {
		origin, dest string
		date         int64
	}
	distinct := map[key]struct{}{}
	flights.Each(t, flights.Options{}, func(b arrow.RecordBatch) error {
		date := b.Column(flights.Date).(*array.Timestamp)
		origin, dest := b.Column(flights.Origin).(*array.String), b.Column(flights.Destination).(*array.String)
		for i := range int(b.NumRows()) {
			distinct[key{origin.Value(i), dest.Value(i), int64(date.Value(i))}] = struct{}{}
		}
		return nil
	})
	if written != int64(len(distinct)) {
		t.Errorf("level-0 files hold %d records, the data has %d distinct keys", written, len(distinct))
	}
	return grown
}

func mib(n int64) float64 { return float64(n) / (1 << 20) }
