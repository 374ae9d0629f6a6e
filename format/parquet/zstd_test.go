package parquet

import (
	"bytes"
	"fmt"
	"math/rand/v2"
	"runtime"
	"sync"
	"testing"

	"github.com/apache/arrow-go/v18/parquet/compress"
	"github.com/klauspost/compress/zstd"
)

// pageLike returns n bytes that compress as Parquet pages do: runs of
// repeated words from a small vocabulary, and some random bytes.
func pageLike(rng *rand.Rand, n int) []byte {
	words := []string{"SFO", "LAX", "JFK", "ORD", "delay", "2006-01-02", "\x00\x00\x00\x07", "distance"}
	var b bytes.Buffer
	for b.Len() < n {
		if rng.IntN(8) == 0 {
			var x [8]byte
			for i := range x {
				x[i] = byte(rng.Uint32())
			}
			b.Write(x[:])
			continue
		}
		b.WriteString(words[rng.IntN(len(words))])
	}
	return b.Bytes()[:n]
}

// TestZstdPageCodec checks that the registered zstd codec is ours and
// writes, for pages up to its window, exactly the bytes of arrow-go's own
// codec at each level, and that larger pages decode to their input.
func TestZstdPageCodec(t *testing.T) {
	c, err := compress.GetCodec(compress.Codecs.Zstd)
	if err != nil {
		t.Fatal(err)
	}
	ours, ok := c.(*zstdPageCodec)
	if !ok {
		t.Fatalf("registered zstd codec is %T, want *zstdPageCodec", c)
	}
	arrow := ours.Codec
	rng := rand.New(rand.NewPCG(1, 2))
	for _, n := range []int{1, 100, 1 << 10, 100 << 10, 128 << 10, 129 << 10, 1 << 20, zstdWindow} {
		src := pageLike(rng, n)
		for _, level := range []int{compress.DefaultCompressionLevel, 1, 3, 9, 19} {
			got := ours.EncodeLevel(nil, src, level)
			want := arrow.EncodeLevel(nil, src, level)
			if !bytes.Equal(got, want) {
				t.Errorf("%d bytes, level %d: %d compressed bytes differ from arrow-go's %d", n, level, len(got), len(want))
			}
		}
		if got, want := ours.Encode(nil, src), arrow.Encode(nil, src); !bytes.Equal(got, want) {
			t.Errorf("%d bytes, Encode: %d compressed bytes differ from arrow-go's %d", n, len(got), len(want))
		}
	}
	for _, n := range []int{zstdWindow + 1, 3 << 20} {
		src := pageLike(rng, n)
		enc := ours.EncodeLevel(nil, src, 1)
		dec, err := ours.DecodeWithError(make([]byte, 0, n), enc)
		if err != nil || !bytes.Equal(dec, src) {
			t.Errorf("%d bytes: decoded %d bytes, err %v; want the input back", n, len(dec), err)
		}
		std, err := zstd.NewReader(nil)
		if err != nil {
			t.Fatal(err)
		}
		dec, err = std.DecodeAll(enc, nil)
		std.Close()
		if err != nil || !bytes.Equal(dec, src) {
			t.Errorf("%d bytes: a standard decoder read %d bytes, err %v; want the input back", n, len(dec), err)
		}
	}
}

// TestZstdPageCodecConcurrent encodes from more goroutines than the
// encoder serves at once; every page must round-trip.
func TestZstdPageCodecConcurrent(t *testing.T) {
	c, _ := compress.GetCodec(compress.Codecs.Zstd)
	var wg sync.WaitGroup
	errs := make(chan error, 16)
	for g := range 16 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			rng := rand.New(rand.NewPCG(uint64(g), 7))
			for i := range 8 {
				src := pageLike(rng, 1+rng.IntN(600<<10))
				dec, err := compress.Decode(c, make([]byte, 0, len(src)), c.EncodeLevel(nil, src, 1+i%3))
				if err != nil || !bytes.Equal(dec, src) {
					errs <- fmt.Errorf("goroutine %d page %d (%d bytes): err %v, equal %v", g, i, len(src), err, bytes.Equal(dec, src))
					return
				}
			}
		}()
	}
	wg.Wait()
	close(errs)
	for err := range errs {
		t.Error(err)
	}
}

// BenchmarkZstdPage compresses 1 MiB pages at level 1 (Paimon's default
// zstd level) with arrow-go's codec and with ours; gcEvery > 0 collects
// garbage after every that many pages, as a writer under a small heap
// sees it (arrow-go's pooled encoders are dropped by collections).
func BenchmarkZstdPage(b *testing.B) {
	c, _ := compress.GetCodec(compress.Codecs.Zstd)
	ours := c.(*zstdPageCodec)
	src := pageLike(rand.New(rand.NewPCG(3, 4)), 1<<20)
	for _, gcEvery := range []int{0, 8} {
		for _, cc := range []struct {
			name  string
			codec compress.Codec
		}{{"arrow-go", ours.Codec}, {"ours", ours}} {
			b.Run(fmt.Sprintf("%s/gc-every-%d", cc.name, gcEvery), func(b *testing.B) {
				dst := make([]byte, 0, 2<<20)
				b.SetBytes(int64(len(src)))
				b.ReportAllocs()
				for i := 0; b.Loop(); i++ {
					dst = cc.codec.EncodeLevel(dst[:0], src, 1)
					if gcEvery > 0 && i%gcEvery == gcEvery-1 {
						runtime.GC()
					}
				}
			})
		}
	}
}
