package manifest

import (
	"bytes"
	"errors"
	"fmt"
	"reflect"
	"strings"
	"testing"

	"github.com/klauspost/compress/flate"
	"github.com/klauspost/compress/zstd"

	"github.com/paimon-go/paimon/internal/memcheck"
	"github.com/paimon-go/paimon/internal/ocf"
)

// peakLimit is the heap a reader may use on any hostile file (issue 12 part 3).
const peakLimit = 256 << 20

// hostileManifest builds a valid manifest whose blocks each hold one record repeated to just
// under blockSize bytes (at most ocf.MaxBlockSize), compressed with codec (a zstd block of
// 64 MiB takes 7 KB, a deflate one 261 KB), repeated blocks times.
func hostileManifest(t testing.TB, codec string, blocks, blockSize int, withSize bool) []byte {
	t.Helper()
	one, err := EncodeManifest([]Entry{sampleEntry()}, WriteOptions{Compression: "null"})
	if err != nil {
		t.Fatal(err)
	}
	return hostileFile(t, one, codec, blocks, blockSize, withSize)
}

// hostileFile is hostileManifest for the one-row file one of any kind.
func hostileFile(t testing.TB, one []byte, codec string, blocks, blockSize int, withSize bool) []byte {
	t.Helper()
	f, err := ocf.Open(one)
	if err != nil {
		t.Fatal(err)
	}
	_, rec, err := f.Next()
	if err != nil {
		t.Fatal(err)
	}
	w, err := ocf.NewWriter(f.Schema, codec, -1)
	if err != nil {
		t.Fatal(err)
	}
	header, err := w.Finish()
	if err != nil {
		t.Fatal(err)
	}
	sync := header[len(header)-16:]
	n := blockSize / len(rec)
	plain := bytes.Repeat(rec, n)
	var packed []byte
	switch codec {
	case ocf.CodecZstandard:
		var buf bytes.Buffer
		zw, err := zstd.NewWriter(&buf, zstd.WithEncoderLevel(zstd.SpeedBestCompression), zstd.WithEncoderConcurrency(1))
		if err != nil {
			t.Fatal(err)
		}
		if withSize {
			zw.ResetContentSize(&buf, int64(len(plain)))
		}
		if _, err := zw.Write(plain); err != nil {
			t.Fatal(err)
		}
		if err := zw.Close(); err != nil {
			t.Fatal(err)
		}
		packed = buf.Bytes()
	case ocf.CodecDeflate:
		var buf bytes.Buffer
		fw, err := flate.NewWriter(&buf, flate.BestCompression)
		if err != nil {
			t.Fatal(err)
		}
		if _, err := fw.Write(plain); err != nil {
			t.Fatal(err)
		}
		if err := fw.Close(); err != nil {
			t.Fatal(err)
		}
		packed = buf.Bytes()
	default:
		t.Fatalf("codec %s", codec)
	}
	e := ocf.Encoder{Buf: header}
	for range blocks {
		e.Long(int64(n))
		e.Long(int64(len(packed)))
		e.Buf = append(e.Buf, packed...)
		e.Buf = append(e.Buf, sync...)
	}
	return e.Buf
}

// TestHostileManifestBoundedMemory decodes manifests of repeated valid blocks that expand
// ten-thousandfold: each fails with ErrTooLarge naming the file, within 256 MiB of heap.
func TestHostileManifestBoundedMemory(t *testing.T) {
	cases := []struct {
		name     string
		codec    string
		blocks   int
		size     int // decompressed size of a block
		withSize bool
	}{
		{"zstd-8KB", ocf.CodecZstandard, 1, ocf.MaxBlockSize - 1, false},
		{"zstd-110KB", ocf.CodecZstandard, 16, ocf.MaxBlockSize - 1, false},
		{"zstd-content-size-110KB", ocf.CodecZstandard, 16, ocf.MaxBlockSize - 1, true},
		{"zstd-small-blocks-110KB", ocf.CodecZstandard, 110, 16 << 20, false},
		{"zstd-1MiB-blocks-110KB", ocf.CodecZstandard, 600, 1 << 20, false},
		{"deflate-110KB", ocf.CodecDeflate, 4, 7 << 20, false},
	}
	// The same attack on a manifest list and an index manifest.
	for _, kind := range []string{"list", "index"} {
		t.Run(kind+"-zstd-110KB", func(t *testing.T) {
			res, peak := memcheck.Peak(t, peakLimit, func() []byte {
				var one []byte
				var err error
				if kind == "list" {
					one, err = EncodeManifestList([]FileMeta{{FileName: "manifest-1", FileSize: 1000,
						PartitionStats: SimpleStats{MinValues: EmptyRow(), MaxValues: EmptyRow(), NullCounts: []int64{}}}},
						WriteOptions{Compression: "null"})
				} else {
					one, err = EncodeIndexManifest([]IndexManifestEntry{{Partition: EmptyRow(),
						IndexFile: IndexFileMeta{IndexType: "HASH", FileName: "index-1"}}}, WriteOptions{Compression: "null"})
				}
				if err != nil {
					t.Fatal(err)
				}
				data := hostileFile(t, one, ocf.CodecZstandard, 16, ocf.MaxBlockSize-1, false)
				t.Logf("%d bytes", len(data))
				return data
			}, func(data []byte) string {
				_, err := decodeKind(kind, data)
				return tooLargeResult(err, ErrTooLarge, "x")
			})
			t.Logf("peak heap %d MiB", peak>>20)
			if peak > peakLimit {
				t.Errorf("peak heap %d bytes, want ≤ %d", peak, peakLimit)
			}
			if res != "ok" {
				t.Errorf("decode: %s", res)
			}
		})
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			res, peak := memcheck.Peak(t, peakLimit, func() []byte {
				data := hostileManifest(t, c.codec, c.blocks, c.size, c.withSize)
				t.Logf("%d bytes", len(data))
				return data
			}, func(data []byte) string {
				_, err := DecodeManifest(data, "manifest-hostile")
				return tooLargeResult(err, ErrTooLarge, "manifest-hostile")
			})
			t.Logf("peak heap %d MiB", peak>>20)
			if peak > peakLimit {
				t.Errorf("peak heap %d bytes, want ≤ %d", peak, peakLimit)
			}
			if res != "ok" {
				t.Errorf("decode: %s", res)
			}
		})
	}
}

// tooLargeResult returns "ok" when err wraps sentinel and names the file, else a description.
func tooLargeResult(err, sentinel error, name string) string {
	if errors.Is(err, sentinel) && strings.Contains(err.Error(), name) {
		return "ok"
	}
	return fmt.Sprintf("err = %v, want %v naming %s", err, sentinel, name)
}

// TestCompressibleBlocksWithinBudget decodes blocks that expand ~4000 times but stay within the
// budget, in zstd frames without a content size (as Java's zstd streams): the decompression
// buffer grows until the block fits.
func TestCompressibleBlocksWithinBudget(t *testing.T) {
	one, err := EncodeManifest([]Entry{sampleEntry()}, WriteOptions{Compression: "null"})
	if err != nil {
		t.Fatal(err)
	}
	f, err := ocf.Open(one)
	if err != nil {
		t.Fatal(err)
	}
	_, rec, err := f.Next()
	if err != nil {
		t.Fatal(err)
	}
	for _, codec := range []string{ocf.CodecZstandard, ocf.CodecDeflate} {
		data := hostileManifest(t, codec, 3, 2<<20, false)
		got, err := DecodeManifest(data, "m")
		if want := 3 * ((2 << 20) / len(rec)); err != nil || len(got) != want {
			t.Fatalf("%s: %d entries, %v; want %d", codec, len(got), err, want)
		}
		if !reflect.DeepEqual(got[len(got)-1], sampleEntry()) {
			t.Errorf("%s: last entry %+v", codec, got[len(got)-1])
		}
	}
}
