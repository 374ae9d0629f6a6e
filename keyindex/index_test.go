package keyindex

import (
	"fmt"
	"runtime"
	"testing"

	"github.com/paimon-go/paimon/row"
	"github.com/paimon-go/paimon/types"
)

// TestAssign: new keys fill the lowest bucket below the target, then the
// lowest unused id; Decrement frees a place (Java BucketAssigner).
func TestAssign(t *testing.T) {
	x := New(2)
	p := x.Part([]byte("p1"))
	q := x.Part([]byte("p2"))
	if p != 0 || q != 1 || x.Part([]byte("p1")) != 0 {
		t.Fatalf("partition ids %d %d", p, q)
	}
	var got []int32
	for range 5 {
		got = append(got, x.Assign(p))
	}
	x.Decrement(p, 1)
	got = append(got, x.Assign(p), x.Assign(p), x.Assign(q))
	if fmt.Sprint(got) != "[0 0 1 1 2 1 2 0]" {
		t.Errorf("buckets %v, want [0 0 1 1 2 1 2 0]", got)
	}
	// Bootstrapped counts: bucket 3 holds two keys, so new keys start at 0.
	y := New(2)
	r := y.Part([]byte("p"))
	y.Load([]byte("a"), Loc{Part: r, Bucket: 3})
	y.Load([]byte("b"), Loc{Part: r, Bucket: 3})
	if b := []int32{y.Assign(r), y.Assign(r), y.Assign(r)}; fmt.Sprint(b) != "[0 0 1]" {
		t.Errorf("after bootstrap: %v, want [0 0 1]", b)
	}
	if l, ok := y.Get([]byte("a")); !ok || l != (Loc{Part: r, Bucket: 3}) {
		t.Errorf("Get(a) = %v, %v", l, ok)
	}
}

// BenchmarkIndexPut measures the heap bytes per key of an Index holding
// 1<<20 INT keys (reported as bytes/key).
func BenchmarkIndexPut(b *testing.B) {
	const n = 1 << 20
	kt := []types.DataType{types.Int()}
	keys := make([][]byte, n)
	for i := range keys {
		keys[i] = row.Serialize(must(row.Encode(kt, []any{int32(i)})))
	}
	for b.Loop() {
		var before, after runtime.MemStats
		runtime.GC()
		runtime.ReadMemStats(&before)
		x := New(1 << 30)
		p := x.Part([]byte("p"))
		for _, k := range keys {
			x.Put(k, Loc{Part: p, Bucket: 0})
		}
		runtime.GC()
		runtime.ReadMemStats(&after)
		b.ReportMetric(float64(after.HeapAlloc-before.HeapAlloc)/n, "bytes/key")
		runtime.KeepAlive(x)
	}
}

func must[T any](v T, err error) T {
	if err != nil {
		panic(err)
	}
	return v
}
