package parquet

import (
	"encoding/binary"
	"errors"
	"fmt"

	"github.com/apache/arrow-go/v18/parquet/compress"
	"github.com/pierrec/lz4/v4"
)

// lz4HadoopCodec decodes Parquet's deprecated LZ4 codec, which parquet-mr
// (Java Paimon's Parquet writer for file.compression = lz4) writes with the
// framing of Hadoop's BlockCompressorStream: one or more frames of
// big-endian uint32 uncompressed length, big-endian uint32 compressed
// length, then that many bytes of one raw LZ4 block. As Arrow C++'s
// Lz4HadoopCodec does, a page whose bytes do not parse as such frames is
// decoded as a single raw LZ4 block (what some old non-Java writers wrote
// for LZ4). Encode writes one Hadoop frame; our writer never selects it
// (file.compression = lz4 writes LZ4_RAW), it exists so the codec is
// complete.
//
// arrow-go leaves compress.Codecs.Lz4 unimplemented and offers only its
// package-level registry (compress.RegisterCodec) to add it; the codec is
// stateless, so registering it once at init changes nothing else.
type lz4HadoopCodec struct{}

func init() { compress.RegisterCodec(compress.Codecs.Lz4, lz4HadoopCodec{}) }

var errLZ4Frame = errors.New("parquet: LZ4 page is neither Hadoop-framed nor a raw LZ4 block")

// DecodeWithError decodes src into dst (sized by the page's declared
// uncompressed size, which bounds every frame).
func (lz4HadoopCodec) DecodeWithError(dst, src []byte) ([]byte, error) {
	if out, ok := decodeHadoopLZ4(dst, src); ok {
		return out, nil
	}
	n, err := lz4.UncompressBlock(src, dst[:cap(dst)])
	if err != nil {
		return nil, fmt.Errorf("%w: %v", errLZ4Frame, err)
	}
	return dst[:n], nil
}

// decodeHadoopLZ4 decodes Hadoop frames; ok is false when src is not a
// sequence of frames whose blocks decode to exactly their declared lengths
// within dst's capacity.
func decodeHadoopLZ4(dst, src []byte) ([]byte, bool) {
	dst = dst[:cap(dst)]
	out := 0
	for len(src) > 0 {
		if len(src) < 8 {
			return nil, false
		}
		raw := int64(binary.BigEndian.Uint32(src))
		comp := int64(binary.BigEndian.Uint32(src[4:]))
		src = src[8:]
		if comp > int64(len(src)) || raw > int64(len(dst)-out) {
			return nil, false
		}
		n, err := lz4.UncompressBlock(src[:comp], dst[out:out+int(raw)])
		if err != nil || int64(n) != raw {
			return nil, false
		}
		out += n
		src = src[comp:]
	}
	return dst[:out], true
}

func (c lz4HadoopCodec) Decode(dst, src []byte) []byte {
	out, err := c.DecodeWithError(dst, src)
	if err != nil {
		panic(err)
	}
	return out
}

func (c lz4HadoopCodec) Encode(dst, src []byte) []byte {
	bound := c.CompressBound(int64(len(src)))
	if int64(cap(dst)) < bound {
		dst = make([]byte, bound)
	}
	dst = dst[:cap(dst)]
	var lc lz4.Compressor
	n, err := lc.CompressBlock(src, dst[8:])
	if err != nil {
		panic(err)
	}
	binary.BigEndian.PutUint32(dst, uint32(len(src)))
	binary.BigEndian.PutUint32(dst[4:], uint32(n))
	return dst[:8+n]
}

func (c lz4HadoopCodec) EncodeLevel(dst, src []byte, _ int) []byte { return c.Encode(dst, src) }

func (lz4HadoopCodec) CompressBound(n int64) int64 { return 8 + int64(lz4.CompressBlockBound(int(n))) }
