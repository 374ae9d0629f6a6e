package orc

import (
	"bytes"
	"compress/flate"
	"errors"
	"fmt"
	"strings"
	"testing"

	"github.com/klauspost/compress/zstd"

	"github.com/paimon-go/paimon/format"
	"github.com/paimon-go/paimon/internal/memcheck"
)

// original frames b as one uncompressed ("original") compression chunk.
func original(b []byte) []byte {
	h := len(b)<<1 | 1
	return append([]byte{byte(h), byte(h >> 8), byte(h >> 16)}, b...)
}

// hostileORC builds an ORC file with one BIGINT column and one row whose DATA stream is chunks
// compressed chunks of zeros: zstd chunks of 141 bytes expanding to 4 MiB, or zlib chunks of
// 8 KB expanding to 8 MiB - 1
// (the compression block size is 8 MiB - 1).
func hostileORC(t testing.TB, kind uint64, chunks int) []byte {
	t.Helper()
	const block = maxBlockSize
	var z []byte
	if kind == compressionZstd {
		enc, err := zstd.NewWriter(nil, zstd.WithEncoderLevel(zstd.SpeedBestCompression), zstd.WithEncoderConcurrency(1))
		if err != nil {
			t.Fatal(err)
		}
		z = enc.EncodeAll(make([]byte, 4<<20), nil)
	} else {
		var buf bytes.Buffer
		w, err := flate.NewWriter(&buf, flate.BestCompression)
		if err != nil {
			t.Fatal(err)
		}
		if _, err := w.Write(make([]byte, block)); err != nil {
			t.Fatal(err)
		}
		if err := w.Close(); err != nil {
			t.Fatal(err)
		}
		z = buf.Bytes()
	}
	h := len(z) << 1
	chunk := append([]byte{byte(h), byte(h >> 8), byte(h >> 16)}, z...)
	stream := bytes.Repeat(chunk, chunks)

	file := []byte("ORC")
	offset := uint64(len(file))
	file = append(file, stream...)
	sf := pb(nil).bytes(1, pb(nil).uint(1, streamData).uint(2, 1).uint(3, uint64(len(stream)))).
		bytes(2, pb(nil).uint(1, encodingDirect)).bytes(2, pb(nil).uint(1, encodingDirect))
	sfFramed := original(sf)
	file = append(file, sfFramed...)
	info := pb(nil).uint(1, offset).uint(2, 0).uint(3, uint64(len(stream))).uint(4, uint64(len(sfFramed))).uint(5, 1)
	footer := pb(nil).uint(1, 3).uint(2, uint64(len(file))).bytes(3, info).
		bytes(4, typeMsg(kindStruct, []uint64{1}, "x")).bytes(4, typeMsg(kindLong, nil)).uint(6, 1)
	footerFramed := original(footer)
	ps := pb(nil).uint(1, uint64(len(footerFramed))).uint(2, kind).uint(3, block).
		packed(4, 0, 12).uint(5, 0).bytes(8000, []byte("ORC"))
	file = append(file, footerFramed...)
	file = append(file, ps...)
	return append(file, byte(len(ps)))
}

// TestHostileORCBoundedMemory reads ORC files whose streams expand tens of thousands of times:
// each fails with format.ErrTooLarge within 256 MiB of heap.
func TestHostileORCBoundedMemory(t *testing.T) {
	for _, c := range []struct {
		kind   uint64
		chunks int
	}{{compressionZstd, 20}, {compressionZstd, 400}, {compressionZlib, 14}} {
		t.Run(fmt.Sprint(c.kind, "-", c.chunks, "-chunks"), func(t *testing.T) {
			res, peak := memcheck.Peak(t, 256<<20, func() []byte {
				data := hostileORC(t, c.kind, c.chunks)
				t.Logf("%d bytes", len(data))
				return data
			}, func(data []byte) string {
				err := exercise(data)
				if errors.Is(err, format.ErrTooLarge) && strings.Contains(err.Error(), "stream") {
					return "ok"
				}
				return fmt.Sprintf("err = %v, want format.ErrTooLarge", err)
			})
			t.Logf("peak heap %d MiB", peak>>20)
			if peak > 256<<20 {
				t.Errorf("peak heap %d bytes, want ≤ %d", peak, 256<<20)
			}
			if res != "ok" {
				t.Error(res)
			}
		})
	}
}

// TestZstdStreamOfManyChunks decodes a zstd stream of three 4 MiB chunks (compression block
// size 8 MiB - 1): the decoder's per-chunk limit must not count the chunks decoded before.
func TestZstdStreamOfManyChunks(t *testing.T) {
	enc, err := zstd.NewWriter(nil, zstd.WithEncoderConcurrency(1))
	if err != nil {
		t.Fatal(err)
	}
	plain := bytes.Repeat([]byte("paimon"), 4<<20/6)
	z := enc.EncodeAll(plain, nil)
	h := len(z) << 1
	chunk := append([]byte{byte(h), byte(h >> 8), byte(h >> 16)}, z...)
	c, err := newCodec(compressionZstd, maxBlockSize, 1<<30)
	if err != nil {
		t.Fatal(err)
	}
	got, err := c.decompress(bytes.Repeat(chunk, 3), "s")
	if err != nil || !bytes.Equal(got, bytes.Repeat(plain, 3)) {
		t.Fatalf("got %d bytes, %v; want %d bytes", len(got), err, 3*len(plain))
	}
}
