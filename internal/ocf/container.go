package ocf

import (
	"bytes"
	"crypto/rand"
	"encoding/binary"
	"errors"
	"fmt"
	"hash/crc32"
	"io"
	"math"
	"strings"
	"sync"

	"github.com/klauspost/compress/flate"
	"github.com/klauspost/compress/snappy"
	"github.com/klauspost/compress/zstd"
)

// Magic is the 4-byte signature that starts every Avro object container file.
var Magic = [4]byte{'O', 'b', 'j', 1}

// Codec names as written in the "avro.codec" header entry.
const (
	CodecNull      = "null"
	CodecDeflate   = "deflate"
	CodecSnappy    = "snappy"
	CodecZstandard = "zstandard"
)

// ErrUnsupportedCodec reports a container whose codec is not one of null, deflate, snappy,
// zstandard (Java can also write bzip2 and xz).
var ErrUnsupportedCodec = errors.New("ocf: unsupported codec")

// MaxBlockSize bounds the decompressed size of one data block (64 MiB). Java writes blocks of
// about 64 KB (fastavro, used by pypaimon, 16 KB); the bound only protects against corrupt or
// hostile input.
const MaxBlockSize = 64 << 20

// syncInterval is the uncompressed block size after which the writer starts a new block; it is
// Java's DataFileConstants.DEFAULT_SYNC_INTERVAL.
const syncInterval = 64000

// File is a parsed container header plus a cursor over its data blocks.
type File struct {
	// Schema is the writer schema JSON from the "avro.schema" header entry.
	Schema []byte
	// Codec is the "avro.codec" header entry ("null" when absent).
	Codec string
	// Meta holds every header entry, including avro.schema and avro.codec.
	Meta map[string][]byte

	sync    [16]byte
	data    []byte
	pos     int
	zstd    *zstd.Decoder
	ownZstd bool
	budget  *Budget
	ra      io.ReaderAt // OpenAt: blocks are read from ra, data holds only the header
	size    int64       // OpenAt: the file size

	headerSize int
}

// SetBudget makes Next charge b for the decompressed size of every block and refuse, with an
// error wrapping [ErrTooLarge], a block that would exceed it (the decompression of deflate and
// snappy blocks stops at the budget; a zstandard block is bounded by [MaxBlockSize] and checked
// once decompressed).
func (f *File) SetBudget(b *Budget) { f.budget = b }

// NewZstdDecoder returns a zstd decoder suitable for container blocks (bounded memory). It may
// be shared by many Files and goroutines (DecodeAll is safe for concurrent use); close it when
// done.
func NewZstdDecoder() (*zstd.Decoder, error) {
	return zstd.NewReader(nil, zstd.WithDecoderMaxMemory(MaxBlockSize), zstd.WithDecodeAllCapLimit(true))
}

// Open parses the container header of data. data must stay unchanged while blocks are read.
// zdec, when not nil, is used for zstandard blocks instead of a decoder of the File's own.
func Open(data []byte, zdec ...*zstd.Decoder) (*File, error) {
	if len(data) < 4 || !bytes.Equal(data[:4], Magic[:]) {
		return nil, fmt.Errorf("%w: missing Avro container magic", ErrCorrupt)
	}
	d := NewDecoder(data)
	d.pos = 4
	meta := map[string][]byte{}
	for {
		n := d.BlockCount(2)
		if d.err != nil {
			return nil, fmt.Errorf("header metadata: %w", d.err)
		}
		if n == 0 {
			break
		}
		for i := 0; i < n; i++ {
			k := d.String()
			v := d.Bytes()
			if d.err != nil {
				return nil, fmt.Errorf("header metadata: %w", d.err)
			}
			meta[k] = v
		}
	}
	sync := d.take(16)
	if d.err != nil {
		return nil, fmt.Errorf("header sync marker: %w", d.err)
	}
	f := &File{Meta: meta, data: data, pos: d.pos, headerSize: d.pos}
	if len(zdec) > 0 && zdec[0] != nil {
		f.zstd = zdec[0]
	}
	copy(f.sync[:], sync)
	schema, ok := meta["avro.schema"]
	if !ok {
		return nil, fmt.Errorf("%w: header has no avro.schema", ErrCorrupt)
	}
	f.Schema = schema
	f.Codec = CodecNull
	if c, ok := meta["avro.codec"]; ok && len(c) > 0 {
		f.Codec = string(c)
	}
	switch f.Codec {
	case CodecNull, CodecDeflate, CodecSnappy, CodecZstandard:
	default:
		return nil, fmt.Errorf("%w: %q", ErrUnsupportedCodec, f.Codec)
	}
	return f, nil
}

// Close releases codec resources the File created itself.
func (f *File) Close() {
	if f.zstd != nil && f.ownZstd {
		f.zstd.Close()
	}
	f.zstd = nil
}

// RecordCount returns the total number of records by scanning the block headers (no
// decompression). Errors wrap ErrCorrupt.
func (f *File) RecordCount() (int64, error) {
	d := NewDecoder(f.data)
	d.pos = f.pos
	var total int64
	for d.Remaining() > 0 {
		count := d.Long()
		size := d.Long()
		if d.err != nil {
			return 0, d.err
		}
		if count < 0 || size < 0 || size > int64(d.Remaining()) || total > math.MaxInt64-count {
			return 0, fmt.Errorf("%w: invalid block header at offset %d", ErrCorrupt, d.pos)
		}
		total += count
		d.Skip(int(size) + 16)
		if d.err != nil {
			return 0, d.err
		}
	}
	return total, nil
}

// Next returns the record count and the decompressed bytes of the next data block, or io.EOF
// after the last block. The returned bytes are freshly allocated unless the codec is "null",
// in which case they alias the file data.
func (f *File) Next() (int64, []byte, error) {
	if f.ra != nil {
		return f.nextAt()
	}
	if f.pos >= len(f.data) {
		return 0, nil, io.EOF
	}
	d := NewDecoder(f.data)
	d.pos = f.pos
	count := d.Long()
	size := d.Long()
	if d.err != nil {
		return 0, nil, fmt.Errorf("block header at offset %d: %w", f.pos, d.err)
	}
	if count < 0 || size < 0 || size > int64(d.Remaining()) {
		return 0, nil, fmt.Errorf("%w: block at offset %d has count %d, size %d with %d bytes left",
			ErrCorrupt, f.pos, count, size, d.Remaining())
	}
	raw := d.take(int(size))
	sync := d.take(16)
	if d.err != nil {
		return 0, nil, fmt.Errorf("block at offset %d: %w", f.pos, d.err)
	}
	at := f.pos
	f.pos = d.pos
	return f.block(at, count, raw, sync)
}

// block checks the sync marker of the block at offset at and returns its decompressed bytes,
// charged to the budget.
func (f *File) block(at int, count int64, raw, sync []byte) (int64, []byte, error) {
	if !bytes.Equal(sync, f.sync[:]) {
		return 0, nil, fmt.Errorf("%w: block at offset %d: sync marker mismatch", ErrCorrupt, at)
	}
	limit := int(min(int64(MaxBlockSize), max(f.budget.Left(), 0)))
	block, err := f.decompress(raw, limit)
	if errors.Is(err, ErrTooLarge) {
		return 0, nil, fmt.Errorf("block at offset %d: %w", at, err)
	}
	if err != nil {
		return 0, nil, fmt.Errorf("%w: block at offset %d: %w", ErrCorrupt, at, err)
	}
	if err := f.budget.Charge(int64(len(block))); err != nil {
		return 0, nil, fmt.Errorf("block at offset %d: %w", at, err)
	}
	// Every record of a non-trivial schema takes at least one byte; a larger count is corrupt.
	if count > int64(len(block)) && len(block) > 0 {
		return 0, nil, fmt.Errorf("%w: block claims %d records in %d bytes", ErrCorrupt, count, len(block))
	}
	return count, block, nil
}

// tooLarge is the error of a block that decompresses to more than limit bytes: corrupt when
// limit is MaxBlockSize, over the budget otherwise.
func tooLarge(codec string, limit int) error {
	if limit >= MaxBlockSize {
		return fmt.Errorf("%s block larger than %d bytes", codec, MaxBlockSize)
	}
	return fmt.Errorf("%w: %s block decompresses to more than the %d bytes left", ErrTooLarge, codec, limit)
}

// decompress returns the decompressed block, failing when it is larger than limit bytes
// (limit is at most MaxBlockSize; zstandard blocks are only checked against MaxBlockSize).
func (f *File) decompress(raw []byte, limit int) ([]byte, error) {
	switch f.Codec {
	case CodecNull:
		return raw, nil
	case CodecDeflate:
		// Count first, then inflate into a buffer of the exact size: an expanding block never
		// costs more than its own size, and a block beyond limit costs nothing.
		r := flate.NewReader(bytes.NewReader(raw))
		n, err := io.Copy(io.Discard, io.LimitReader(r, int64(limit)+1))
		r.Close()
		if err != nil {
			return nil, fmt.Errorf("deflate: %w", err)
		}
		if n > int64(limit) {
			return nil, tooLarge("deflate", limit)
		}
		out := make([]byte, n)
		r = flate.NewReader(bytes.NewReader(raw))
		defer r.Close()
		if _, err := io.ReadFull(r, out); err != nil {
			return nil, fmt.Errorf("deflate: %w", err)
		}
		return out, nil
	case CodecSnappy:
		if len(raw) < 4 {
			return nil, errors.New("snappy block shorter than its checksum")
		}
		body, sum := raw[:len(raw)-4], binary.BigEndian.Uint32(raw[len(raw)-4:])
		n, err := snappy.DecodedLen(body)
		if err != nil {
			return nil, fmt.Errorf("snappy: %w", err)
		}
		if n > limit {
			return nil, tooLarge("snappy", limit)
		}
		out, err := snappy.Decode(make([]byte, n), body)
		if err != nil {
			return nil, fmt.Errorf("snappy: %w", err)
		}
		if crc32.ChecksumIEEE(out) != sum {
			return nil, errors.New("snappy block checksum mismatch")
		}
		return out, nil
	case CodecZstandard:
		if f.zstd == nil {
			dec, err := zstd.NewReader(nil, zstd.WithDecoderConcurrency(1),
				zstd.WithDecoderMaxMemory(MaxBlockSize), zstd.WithDecoderLowmem(true),
				zstd.WithDecodeAllCapLimit(true))
			if err != nil {
				return nil, fmt.Errorf("zstd: %w", err)
			}
			f.zstd, f.ownZstd = dec, true
		}
		var h zstd.Header
		if h.Decode(raw) == nil && h.HasFCS && h.FrameContentSize > uint64(limit) {
			return nil, tooLarge("zstandard", limit)
		}
		// The decoders limit DecodeAll to the capacity of dst (WithDecodeAllCapLimit). Start
		// with the exact size when the frame has it, else with 32 times the input but no more
		// than Java's blocks (64 KB + one record) need, and grow fourfold up to limit.
		size := min(limit, 128<<10, 32*len(raw)+4<<10)
		if h.HasFCS {
			size = int(h.FrameContentSize)
		}
		out, err := f.zstd.DecodeAll(raw, make([]byte, 0, size))
		for zstdTooSmall(err) && size < limit {
			size = min(limit, max(4*size, 4<<10))
			out, err = f.zstd.DecodeAll(raw, make([]byte, 0, size))
		}
		if zstdTooSmall(err) {
			return nil, tooLarge("zstandard", limit)
		}
		if err != nil {
			return nil, fmt.Errorf("zstd: %w", err)
		}
		return out, nil
	}
	return nil, fmt.Errorf("%w: %q", ErrUnsupportedCodec, f.Codec)
}

// zstdTooSmall reports whether DecodeAll failed because the output exceeded the capacity of
// dst: ErrDecoderSizeExceeded, or "output bigger than max block size" when that happens inside
// a zstd block.
func zstdTooSmall(err error) bool {
	return err != nil && (errors.Is(err, zstd.ErrDecoderSizeExceeded) ||
		strings.Contains(err.Error(), "bigger than max block size"))
}

// zstdEncoders holds one encoder per zstd level, shared by all Writers:
// creating an encoder costs about 1.2 MB and 1.4 ms, once per manifest file
// and so several times per commit, while EncodeAll is safe for concurrent use.
// It is a cache of immutable values, not observable state.
var zstdEncoders sync.Map // int level -> *zstd.Encoder

func zstdEncoder(level int) (*zstd.Encoder, error) {
	if enc, ok := zstdEncoders.Load(level); ok {
		return enc.(*zstd.Encoder), nil
	}
	enc, err := zstd.NewWriter(nil, zstd.WithEncoderConcurrency(1),
		zstd.WithEncoderLevel(zstd.EncoderLevelFromZstd(level)))
	if err != nil {
		return nil, fmt.Errorf("zstd: %w", err)
	}
	if prev, loaded := zstdEncoders.LoadOrStore(level, enc); loaded {
		enc.Close()
		return prev.(*zstd.Encoder), nil
	}
	return enc, nil
}

// Writer builds an Avro object container file in memory. Records are encoded by the caller into
// Block (an Encoder) and terminated with EndRecord.
type Writer struct {
	// Block receives the encoding of the record being written.
	Block Encoder

	codec  string
	level  int
	sync   [16]byte
	out    []byte
	count  int64
	zstd   *zstd.Encoder
	closed bool
}

// NewWriter starts a container with the given writer schema JSON and codec. level is the codec's
// compression level (zstd: zstd level, deflate: 0-9, ignored otherwise); a negative level selects
// the codec default. The header is written as Java's DataFileWriter does: metadata entries
// avro.schema then avro.codec, then a random 16-byte sync marker.
func NewWriter(schema []byte, codec string, level int) (*Writer, error) {
	w := &Writer{codec: codec, level: level}
	switch codec {
	case CodecNull, CodecDeflate, CodecSnappy:
	case CodecZstandard:
		if level < 0 {
			level = 3
		}
		enc, err := zstdEncoder(level)
		if err != nil {
			return nil, err
		}
		w.zstd = enc
	default:
		return nil, fmt.Errorf("%w: %q", ErrUnsupportedCodec, codec)
	}
	if _, err := rand.Read(w.sync[:]); err != nil {
		return nil, fmt.Errorf("ocf: sync marker: %w", err)
	}
	e := Encoder{Buf: append([]byte(nil), Magic[:]...)}
	e.Long(2)
	e.String("avro.schema")
	e.Bytes(schema)
	e.String("avro.codec")
	e.Bytes([]byte(codec))
	e.Long(0)
	e.Buf = append(e.Buf, w.sync[:]...)
	w.out = e.Buf
	return w, nil
}

// EndRecord marks the end of one record in Block and flushes the block when it is full.
func (w *Writer) EndRecord() error {
	w.count++
	if len(w.Block.Buf) >= syncInterval {
		return w.flush()
	}
	return nil
}

func (w *Writer) flush() error {
	if w.count == 0 {
		return nil
	}
	var data []byte
	switch w.codec {
	case CodecNull:
		data = w.Block.Buf
	case CodecDeflate:
		var buf bytes.Buffer
		level := w.level
		if level < 0 || level > 9 {
			level = flate.DefaultCompression
		}
		fw, err := flate.NewWriter(&buf, level)
		if err != nil {
			return fmt.Errorf("deflate: %w", err)
		}
		if _, err := fw.Write(w.Block.Buf); err != nil {
			return fmt.Errorf("deflate: %w", err)
		}
		if err := fw.Close(); err != nil {
			return fmt.Errorf("deflate: %w", err)
		}
		data = buf.Bytes()
	case CodecSnappy:
		data = snappy.Encode(nil, w.Block.Buf)
		data = binary.BigEndian.AppendUint32(data, crc32.ChecksumIEEE(w.Block.Buf))
	case CodecZstandard:
		data = w.zstd.EncodeAll(w.Block.Buf, nil)
	}
	e := Encoder{Buf: w.out}
	e.Long(w.count)
	e.Long(int64(len(data)))
	e.Buf = append(e.Buf, data...)
	e.Buf = append(e.Buf, w.sync[:]...)
	w.out = e.Buf
	w.count = 0
	w.Block.Buf = w.Block.Buf[:0]
	return nil
}

// Finish flushes the last block and returns the complete file. The Writer must not be used
// afterwards.
func (w *Writer) Finish() ([]byte, error) {
	if w.closed {
		return nil, errors.New("ocf: writer already finished")
	}
	w.closed = true
	err := w.flush()
	w.zstd = nil // shared (zstdEncoder), never closed
	if err != nil {
		return nil, err
	}
	return w.out, nil
}
