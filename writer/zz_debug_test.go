package writer_test

import (
	"context"
	"fmt"
	"time"
	"os"
	"runtime"
	"runtime/debug"
	"runtime/pprof"
	"testing"

	"github.com/apache/arrow-go/v18/arrow/memory"

	"github.com/paimon-go/paimon/catalog"
	"github.com/paimon-go/paimon/writer"
)

func TestZZDebugMem(t *testing.T) {
	ctx := context.Background()
	batches, _ := loadFlights(t)
	tbl := newTable(t, "", catalog.Schema{Fields: flightsFields, PrimaryKeys: []string{"origin", "destination", "date"},
		Options: map[string]string{"bucket": "2", "write-buffer-size": "64 mb"}})
	mem := &countingAllocator{mem: memory.NewGoAllocator()}
	w, _ := writer.New(tbl.FileIO, tbl.Schema, "u", writer.WithAllocator(mem), writer.WithSpillDir(t.TempDir()))
	defer w.Close()
	defer debug.SetGCPercent(debug.SetGCPercent(10))
	runtime.GC()
	var ms runtime.MemStats
	runtime.ReadMemStats(&ms)
	base := ms.HeapInuse
	for i, b := range batches {
		w.Write(ctx, b)
		if i%5 == 0 || i == len(batches)-1 {
			runtime.GC()
			runtime.ReadMemStats(&ms)
			st := w.BufferStats()
			t.Logf("batch %d: heap +%.1f arrow cur %.1f peak %.1f buffered %.1f spills %d", i, mib(int64(ms.HeapInuse)-int64(base)), mib(mem.cur.Load()), mib(mem.peak.Load()), mib(st.BufferedBytes), st.Spills)
		}
	}
	f, _ := os.Create("/tmp/heap_before_prepare.pprof")
	pprof.WriteHeapProfile(f)
	f.Close()
	go func() {
		for i := 0; i < 8; i++ {
			time.Sleep(400 * time.Millisecond)
			runtime.ReadMemStats(&ms)
			t.Logf("during prepare %d: heap +%.1f", i, mib(int64(ms.HeapInuse)-int64(base)))
			f, _ := os.Create(fmt.Sprintf("/tmp/heap_prep_%d.pprof", i))
			pprof.WriteHeapProfile(f)
			f.Close()
		}
	}()
	w.PrepareCommit(ctx)
	runtime.GC()
	runtime.ReadMemStats(&ms)
	runtime.KeepAlive(batches)
	t.Logf("after prepare: heap +%.1f arrow cur %.1f peak %.1f", mib(int64(ms.HeapInuse)-int64(base)), mib(mem.cur.Load()), mib(mem.peak.Load()))
}
