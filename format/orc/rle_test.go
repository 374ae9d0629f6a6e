package orc

import (
	"bytes"
	"errors"
	"slices"
	"testing"

	"github.com/klauspost/compress/zstd"
)

// The vectors in this file are the worked examples of the ORC v1
// specification (sections "Run Length Encoding" and "Compression"), or
// computed by hand from its rules where noted.

func TestUvarintSpecTable(t *testing.T) {
	cases := []struct {
		in   []byte
		want uint64
	}{
		{[]byte{0x00}, 0},
		{[]byte{0x01}, 1},
		{[]byte{0x7f}, 127},
		{[]byte{0x80, 0x01}, 128},
		{[]byte{0x81, 0x01}, 129},
		{[]byte{0xff, 0x7f}, 16383},
		{[]byte{0x80, 0x80, 0x01}, 16384},
		{[]byte{0x81, 0x80, 0x01}, 16385},
	}
	for _, c := range cases {
		pos := 0
		got, err := readUvarint(c.in, &pos, "t")
		if err != nil || got != c.want || pos != len(c.in) {
			t.Errorf("readUvarint(% x) = %d, %v (pos %d); want %d", c.in, got, err, pos, c.want)
		}
	}
	// zigzag table of the spec
	for u, s := range map[uint64]int64{0: 0, 1: -1, 2: 1, 3: -2, 4: 2} {
		if got := unzigzag(u); got != s {
			t.Errorf("unzigzag(%d) = %d, want %d", u, got, s)
		}
	}
	pos := 0
	if _, err := readUvarint([]byte{0x80, 0x80}, &pos, "t"); !errors.Is(err, ErrCorrupt) {
		t.Errorf("truncated varint: err = %v, want ErrCorrupt", err)
	}
}

func TestByteRLESpecExamples(t *testing.T) {
	d := &byteRLE{buf: []byte{0x61, 0x00}, what: "t"}
	got := make([]byte, 100)
	if err := d.next(got); err != nil {
		t.Fatal(err)
	}
	if !slices.Equal(got, make([]byte, 100)) {
		t.Errorf("hundred zeros: got % x", got)
	}
	d = &byteRLE{buf: []byte{0xfe, 0x44, 0x45}, what: "t"}
	got = make([]byte, 2)
	if err := d.next(got); err != nil || !slices.Equal(got, []byte{0x44, 0x45}) {
		t.Errorf("literals: got % x, %v", got, err)
	}
	if err := d.next(make([]byte, 1)); !errors.Is(err, ErrCorrupt) {
		t.Errorf("reading past the end: err = %v, want ErrCorrupt", err)
	}
}

func TestBoolRLESpecExample(t *testing.T) {
	// [0xff, 0x80] is one true followed by seven false; as byte RLE the
	// two bytes are the literal group [0xfe, 0xff, 0x80].
	d := newBoolRLE([]byte{0xfe, 0xff, 0x80}, "t")
	got := make([]bool, 16)
	if err := d.next(got); err != nil {
		t.Fatal(err)
	}
	want := []bool{true, true, true, true, true, true, true, true, true, false, false, false, false, false, false, false}
	if !slices.Equal(got, want) {
		t.Errorf("got %v, want %v", got, want)
	}
}

func decodeInts(t *testing.T, d intDecoder, n int) []int64 {
	t.Helper()
	got := make([]int64, n)
	if err := d.next(got); err != nil {
		t.Fatal(err)
	}
	return got
}

func TestIntRLEv1SpecExamples(t *testing.T) {
	// 100 instances of 7
	got := decodeInts(t, newIntDecoder([]byte{0x61, 0x00, 0x07}, false, false, "t"), 100)
	for i, v := range got {
		if v != 7 {
			t.Fatalf("run of 7: value %d is %d", i, v)
		}
	}
	// 100 down to 1
	got = decodeInts(t, newIntDecoder([]byte{0x61, 0xff, 0x64}, false, false, "t"), 100)
	for i, v := range got {
		if v != int64(100-i) {
			t.Fatalf("descending run: value %d is %d", i, v)
		}
	}
	// literals [2, 3, 4, 7, 11]
	got = decodeInts(t, newIntDecoder([]byte{0xfb, 0x02, 0x03, 0x04, 0x07, 0x0b}, false, false, "t"), 5)
	if !slices.Equal(got, []int64{2, 3, 4, 7, 11}) {
		t.Errorf("literals: got %v", got)
	}
	// signed: zigzag literals 1 -> -1, 4 -> 2 (by hand)
	got = decodeInts(t, newIntDecoder([]byte{0xfe, 0x01, 0x04}, true, false, "t"), 2)
	if !slices.Equal(got, []int64{-1, 2}) {
		t.Errorf("signed literals: got %v", got)
	}
}

func TestIntRLEv2SpecExamples(t *testing.T) {
	cases := []struct {
		name string
		in   []byte
		want []int64
	}{
		{"short repeat", []byte{0x0a, 0x27, 0x10}, []int64{10000, 10000, 10000, 10000, 10000}},
		{"direct", []byte{0x5e, 0x03, 0x5c, 0xa1, 0xab, 0x1e, 0xde, 0xad, 0xbe, 0xef},
			[]int64{23713, 43806, 57005, 48879}},
		{"patched base", []byte{0x8e, 0x13, 0x2b, 0x21, 0x07, 0xd0, 0x1e, 0x00, 0x14, 0x70, 0x28, 0x32,
			0x3c, 0x46, 0x50, 0x5a, 0x64, 0x6e, 0x78, 0x82, 0x8c, 0x96, 0xa0, 0xaa, 0xb4, 0xbe, 0xfc, 0xe8},
			[]int64{2030, 2000, 2020, 1000000, 2040, 2050, 2060, 2070, 2080, 2090, 2100, 2110, 2120,
				2130, 2140, 2150, 2160, 2170, 2180, 2190}},
		{"delta", []byte{0xc6, 0x09, 0x02, 0x02, 0x22, 0x42, 0x42, 0x46},
			[]int64{2, 3, 5, 7, 11, 13, 17, 19, 23, 29}},
		// by hand: delta with width 0 (fixed delta -3), 4 values from 10
		{"fixed delta", []byte{0xc0, 0x03, 0x0a, 0x05}, []int64{10, 7, 4, 1}},
	}
	for _, c := range cases {
		got := decodeInts(t, newIntDecoder(c.in, false, true, c.name), len(c.want))
		if !slices.Equal(got, c.want) {
			t.Errorf("%s: got %v, want %v", c.name, got, c.want)
		}
	}
	// signed short repeat by hand: zigzag 3 -> -2, width 1 byte, 3 times
	got := decodeInts(t, newIntDecoder([]byte{0x00, 0x03}, true, true, "t"), 3)
	if !slices.Equal(got, []int64{-2, -2, -2}) {
		t.Errorf("signed short repeat: got %v", got)
	}
	// a run must not be read past the stream end
	for n := range 28 {
		d := newIntDecoder([]byte{0x8e, 0x13, 0x2b, 0x21, 0x07, 0xd0, 0x1e, 0x00, 0x14, 0x70, 0x28, 0x32,
			0x3c, 0x46, 0x50, 0x5a, 0x64, 0x6e, 0x78, 0x82, 0x8c, 0x96, 0xa0, 0xaa, 0xb4, 0xbe, 0xfc, 0xe8}[:n], false, true, "t")
		if err := d.next(make([]int64, 20)); !errors.Is(err, ErrCorrupt) {
			t.Errorf("patched base truncated to %d bytes: err = %v, want ErrCorrupt", n, err)
		}
	}
}

func TestDecodeNanosSpecExamples(t *testing.T) {
	for enc, want := range map[int64]int64{0x0a: 1000, 0x0c: 100000, 0: 0, 5 << 3: 5, 1<<3 | 7: 100000000} {
		if got, ok := decodeNanos(enc); !ok || got != want {
			t.Errorf("decodeNanos(%#x) = %d, %v; want %d", enc, got, ok, want)
		}
	}
	if _, ok := decodeNanos(10<<3 | 7); ok {
		t.Errorf("10e8 ns accepted")
	}
}

func TestChunkHeaderSpecExample(t *testing.T) {
	// "The header for 5 bytes that did not compress would be [0x0b, 0x00, 0x00]."
	c, err := newCodec(compressionZstd, 0, 1<<20)
	if err != nil {
		t.Fatal(err)
	}
	got, err := c.decompress([]byte{0x0b, 0x00, 0x00, 'h', 'e', 'l', 'l', 'o', 0x03, 0, 0, '!'}, "t")
	if err != nil || string(got) != "hello!" {
		t.Errorf("original chunks: got %q, %v", got, err)
	}
	if _, err := c.decompress([]byte{0x0b, 0x00, 0x00, 'h'}, "t"); !errors.Is(err, ErrCorrupt) {
		t.Errorf("short chunk: err = %v, want ErrCorrupt", err)
	}
	// a compressed chunk: header = compressedLength*2, little endian
	plain := bytes.Repeat([]byte("paimon "), 500)
	enc, _ := zstd.NewWriter(nil)
	z := enc.EncodeAll(plain, nil)
	h := len(z) * 2
	stream := append([]byte{byte(h), byte(h >> 8), byte(h >> 16)}, z...)
	if got, err := c.decompress(stream, "t"); err != nil || !bytes.Equal(got, plain) {
		t.Errorf("zstd chunk: got %d bytes, %v", len(got), err)
	}
	// a chunk may not expand beyond the compression block size
	small, err := newCodec(compressionZstd, 1024, 1<<20)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := small.decompress(stream, "t"); !errors.Is(err, ErrCorrupt) {
		t.Errorf("chunk larger than the block size: err = %v, want ErrCorrupt", err)
	}
	if _, err := newCodec(compressionLZO, 0, 1<<20); !errors.Is(err, ErrUnsupportedFormat) {
		t.Errorf("LZO: err = %v, want ErrUnsupportedFormat", err)
	}
}
