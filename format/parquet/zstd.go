package parquet

import (
	"io"
	"runtime"
	"sync"

	"github.com/apache/arrow-go/v18/parquet/compress"
	"github.com/klauspost/compress/zstd"
)

// zstdWindow is the match window of the zstd encoders of Parquet pages:
// 2 MiB, twice the default page size (parquet.page.size, and Paimon's
// parquet.dictionary.page.size), so a page of up to 2 MiB compresses to
// the same bytes as with arrow-go's own encoders (8 MiB window); a larger
// page only finds no match further back than 2 MiB.
const zstdWindow = 2 << 20

// zstdMaxConcurrent bounds the pages one level's encoder compresses at
// once, and so the history it keeps (2.1 MiB each): more cores than this
// wait for an encoder rather than keep more history for the process's
// life.
const zstdMaxConcurrent = 8

// zstdPageCodec is arrow-go's zstd codec (compress.Codecs.Zstd) with the
// page encoders kept for the process's life instead of in a sync.Pool.
//
// arrow-go takes a fresh encoder from a sync.Pool for each page and its
// encoders carry an 8 MiB window, for which the klauspost encoder keeps a
// 16 MiB history buffer once a page above 128 KiB passes through it. The
// pool empties at every second garbage collection, so a writer under a
// small heap allocated those 16 MiB again and again: 16 of the 55 MiB of
// heap live at rtbench's append peak (docs/decisions.md, "The commit
// protocol's floor, Parquet zstd encoders, the live index back"). Here one encoder per level serves GOMAXPROCS pages at once
// (at most zstdMaxConcurrent), with a 2 MiB window and klauspost's
// lower-memory history (window plus one 128 KiB block): at most 2.1 MiB
// per page compressed at once, allocated once.
// Options are otherwise arrow-go's (zero frames, literal entropy coding
// always), so the output is the same zstd frames for pages up to
// zstdWindow; decoding and the streaming API stay arrow-go's.
//
// arrow-go offers only its package-level registry to change a codec, so
// init registers it for the process, as lz4HadoopCodec.
type zstdPageCodec struct {
	compress.Codec // arrow-go's zstd codec: Decode, CompressBound

	mu   sync.Mutex
	encs map[zstd.EncoderLevel]*zstd.Encoder
}

func init() {
	orig, err := compress.GetCodec(compress.Codecs.Zstd)
	if err != nil {
		return // arrow-go without zstd: nothing to replace
	}
	compress.RegisterCodec(compress.Codecs.Zstd, &zstdPageCodec{Codec: orig, encs: map[zstd.EncoderLevel]*zstd.Encoder{}})
}

// encoder returns the encoder of level, made on first use; nil if the
// options were refused (only invalid options fail, and these are constant
// but for the level), in which case the caller uses arrow-go's codec.
func (c *zstdPageCodec) encoder(level zstd.EncoderLevel) *zstd.Encoder {
	c.mu.Lock()
	defer c.mu.Unlock()
	if e, ok := c.encs[level]; ok {
		return e
	}
	e, err := zstd.NewWriter(nil, zstd.WithZeroFrames(true), zstd.WithEncoderLevel(level),
		zstd.WithAllLitEntropyCompression(true), zstd.WithEncoderConcurrency(min(runtime.GOMAXPROCS(0), zstdMaxConcurrent)),
		zstd.WithWindowSize(zstdWindow), zstd.WithLowerEncoderMem(true))
	if err != nil {
		e = nil
	}
	c.encs[level] = e
	return e
}

// Encode compresses src at zstd's default level (arrow-go's Encode).
func (c *zstdPageCodec) Encode(dst, src []byte) []byte {
	e := c.encoder(zstd.SpeedDefault)
	if e == nil {
		return c.Codec.Encode(dst, src)
	}
	return e.EncodeAll(src, dst[:0])
}

// EncodeLevel compresses src at the zstd level (compress.DefaultCompressionLevel:
// zstd's default), as arrow-go's EncodeLevel.
func (c *zstdPageCodec) EncodeLevel(dst, src []byte, level int) []byte {
	l := zstd.EncoderLevelFromZstd(level)
	if level == compress.DefaultCompressionLevel {
		l = zstd.SpeedDefault
	}
	e := c.encoder(l)
	if e == nil {
		return c.Codec.EncodeLevel(dst, src, level)
	}
	return e.EncodeAll(src, dst[:0])
}

// DecodeWithError is arrow-go's (compress.ErrorCodec).
func (c *zstdPageCodec) DecodeWithError(dst, src []byte) ([]byte, error) {
	return compress.Decode(c.Codec, dst, src)
}

// NewReader, NewWriter and NewWriterLevel are arrow-go's streaming API
// (compress.StreamingCodec).
func (c *zstdPageCodec) NewReader(r io.Reader) io.ReadCloser {
	return c.Codec.(compress.StreamingCodec).NewReader(r)
}

func (c *zstdPageCodec) NewWriter(w io.Writer) io.WriteCloser {
	return c.Codec.(compress.StreamingCodec).NewWriter(w)
}

func (c *zstdPageCodec) NewWriterLevel(w io.Writer, level int) (io.WriteCloser, error) {
	return c.Codec.(compress.StreamingCodec).NewWriterLevel(w, level)
}
