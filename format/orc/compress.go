package orc

import (
	"bytes"
	"compress/flate"
	"errors"
	"fmt"
	"io"

	"github.com/klauspost/compress/snappy"
	"github.com/klauspost/compress/zstd"
	"github.com/pierrec/lz4/v4"

	"github.com/paimon-go/paimon/format"
)

// maxBlockSize bounds PostScript.compressionBlockSize: the chunk header
// stores a 23-bit length, and an incompressible chunk of blockSize bytes is
// stored as an "original" chunk, so no writer can use a larger block.
const maxBlockSize = 1<<23 - 1

// codec undoes the generic compression of ORC streams (spec section
// "Compression"): every stream, footer and stripe footer is a sequence of
// chunks, each with a 3-byte little-endian header holding
// compressedLength*2 + isOriginal. Files without compression store streams
// directly.
type codec struct {
	kind      uint64
	blockSize int
	zstd      *zstd.Decoder
	// left is what the file may still decompress (format.DecodeBudget of
	// its size, shared by footer, stripe footers and streams).
	left int64
}

func newCodec(kind, blockSize uint64, budget int64) (*codec, error) {
	c := &codec{kind: kind, left: budget}
	switch kind {
	case compressionNone:
		return c, nil
	case compressionZlib, compressionSnappy, compressionLZ4, compressionZstd:
	case compressionLZO:
		return nil, unsupportedf("LZO compression")
	default:
		return nil, unsupportedf("compression kind %d", kind)
	}
	if blockSize == 0 {
		blockSize = 256 << 10 // the ORC default when the field is absent
	}
	if blockSize > maxBlockSize {
		return nil, corruptf("postscript: compression block size %d exceeds %d", blockSize, maxBlockSize)
	}
	c.blockSize = int(blockSize)
	if kind == compressionZstd {
		// zstd's smallest window is 1 KiB: a lower limit refuses every
		// frame, so the limit is at least that and decompressChunk checks
		// the block size itself.
		d, err := zstd.NewReader(nil,
			zstd.WithDecoderConcurrency(1),
			zstd.WithDecoderMaxMemory(max(blockSize, 1<<10)),
			zstd.WithDecoderLowmem(true))
		if err != nil {
			return nil, unsupportedf("zstd decoder: %v", err)
		}
		c.zstd = d
	}
	return c, nil
}

// decompress returns the decompressed bytes of a whole stream. what names
// the stream in errors. For uncompressed files src itself is returned.
func (c *codec) decompress(src []byte, what string) ([]byte, error) {
	if c.kind == compressionNone {
		return src, nil
	}
	out := make([]byte, 0, int(min(int64(len(src))*2, 1<<20, max(c.left, 0))))
	for len(src) > 0 {
		if len(src) < 3 {
			return nil, corruptf("%s: truncated compression chunk header", what)
		}
		h := int(src[0]) | int(src[1])<<8 | int(src[2])<<16
		n := h >> 1
		src = src[3:]
		if n > len(src) {
			return nil, corruptf("%s: compression chunk of %d bytes exceeds the %d bytes left", what, n, len(src))
		}
		chunk := src[:n]
		src = src[n:]
		if h&1 == 1 {
			out = append(out, chunk...)
			continue
		}
		var err error
		before := len(out)
		if out, err = c.decompressChunk(out, chunk); err != nil {
			return nil, corruptf("%s: %v", what, err)
		}
		if c.left -= int64(len(out) - before); c.left < 0 {
			return nil, fmt.Errorf("%w: orc: %s: the file decompresses to more than format.DecodeBudget allows",
				format.ErrTooLarge, what)
		}
	}
	return out, nil
}

// decompressChunk appends the decompressed chunk to out; a chunk may expand
// to at most blockSize bytes.
func (c *codec) decompressChunk(out, chunk []byte) ([]byte, error) {
	switch c.kind {
	case compressionZstd:
		// Decode into the spare capacity as a fresh slice: the decoder's
		// WithDecoderMaxMemory limit counts what dst already holds.
		d, err := c.zstd.DecodeAll(chunk, out[len(out):])
		if err != nil {
			return nil, err
		}
		if len(d) > c.blockSize {
			return nil, fmt.Errorf("zstd chunk expands to %d bytes, more than the block size %d", len(d), c.blockSize)
		}
		return append(out, d...), nil
	case compressionSnappy:
		n, err := snappy.DecodedLen(chunk)
		if err != nil {
			return nil, err
		}
		if n > c.blockSize {
			return nil, fmt.Errorf("snappy chunk expands to %d bytes, more than the block size %d", n, c.blockSize)
		}
		start := len(out)
		out = grow(out, n)
		d, err := snappy.Decode(out[start:start+n], chunk)
		if err != nil {
			return nil, err
		}
		if len(d) != n {
			return nil, fmt.Errorf("snappy chunk decoded to %d bytes, header said %d", len(d), n)
		}
		return out, nil
	case compressionLZ4:
		start := len(out)
		out = grow(out, c.blockSize)
		n, err := lz4.UncompressBlock(chunk, out[start:start+c.blockSize])
		if err != nil {
			return nil, err
		}
		return out[:start+n], nil
	case compressionZlib:
		r := flate.NewReader(bytes.NewReader(chunk))
		defer r.Close()
		w := appendWriter{b: out, limit: len(out) + c.blockSize}
		if _, err := io.Copy(&w, r); err != nil {
			return nil, err
		}
		return w.b, nil
	}
	return nil, fmt.Errorf("compression kind %d", c.kind)
}

// grow returns b with room for n more bytes; the new bytes are part of the
// returned slice (len grows by n).
func grow(b []byte, n int) []byte {
	if cap(b)-len(b) < n {
		nb := make([]byte, len(b), 2*cap(b)+n)
		copy(nb, b)
		b = nb
	}
	return b[:len(b)+n]
}

// appendWriter appends to b and fails once b would grow beyond limit bytes.
type appendWriter struct {
	b     []byte
	limit int
}

func (w *appendWriter) Write(p []byte) (int, error) {
	if len(w.b)+len(p) > w.limit {
		return 0, errors.New("zlib chunk expands beyond the compression block size")
	}
	w.b = append(w.b, p...)
	return len(p), nil
}
