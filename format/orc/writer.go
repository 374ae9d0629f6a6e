package orc

import (
	"bytes"
	"context"
	"encoding/binary"
	"fmt"
	"io"
	"math"
	"math/big"
	"strconv"
	"strings"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/decimal128"
	"github.com/klauspost/compress/flate"
	"github.com/klauspost/compress/snappy"
	"github.com/klauspost/compress/zstd"
	"github.com/pierrec/lz4/v4"
	"google.golang.org/protobuf/encoding/protowire"

	"github.com/paimon-go/paimon/format"
	"github.com/paimon-go/paimon/schema"
	"github.com/paimon-go/paimon/types"
)

// Option keys read by NewWriter, with Java Paimon's defaults (OrcFileFormat,
// OrcWriterFactory; the orc.* keys are Apache ORC's OrcConf, passed through
// as Java passes every orc.* table option).
const (
	// OptionFileCompression is CoreOptions "file.compression" (default
	// zstd): none, zlib, snappy, lz4 or zstd, as Java's
	// CompressionKind.valueOf(upper case) accepts them (lzo and brotli are
	// ErrUnsupportedFormat here).
	OptionFileCompression = "file.compression"
	// OptionCompress ("orc.compress") overrides file.compression.
	OptionCompress = "orc.compress"
	// OptionZstdLevel is CoreOptions "file.compression.zstd-level" (default 1).
	OptionZstdLevel = "file.compression.zstd-level"
	// OptionOrcZstdLevel ("orc.compression.zstd.level") overrides it.
	OptionOrcZstdLevel = "orc.compression.zstd.level"
	// OptionCompressSize ("orc.compress.size", bytes, default 256 KiB) is
	// the compression chunk size.
	OptionCompressSize = "orc.compress.size"
	// OptionStripeSize ("orc.stripe.size", bytes, default 64 MiB): a new
	// stripe starts when the buffered stripe reaches it.
	OptionStripeSize = "orc.stripe.size"
	// OptionBlockSize is CoreOptions "file.block-size" (a memory size such
	// as "32 mb"); when set it is the stripe size, as in Java.
	OptionBlockSize = "file.block-size"
)

const (
	defaultStripeSize   = 64 << 20
	defaultCompressSize = 256 << 10
	// writerID is Footer.writer: a value no ORC implementation has
	// registered, so readers apply no writer-specific workarounds
	// (Java maps unknown writers to WriterVersion FUTURE).
	writerID = 7_000
	// softwareVersion is Footer.softwareVersion.
	softwareVersion = "paimon-go"
	// writerVersion is PostScript.writerVersion: ORC_14, the newest Java
	// writer version (all known writer bugs fixed).
	writerVersion = 9
)

type writerConfig struct {
	compression uint64
	level       int
	chunk       int
	stripeSize  int64
}

func parseWriterOptions(opts map[string]string) (writerConfig, error) {
	cfg := writerConfig{compression: compressionZstd, level: 1, chunk: defaultCompressSize, stripeSize: defaultStripeSize}
	bad := func(key, val string) error {
		return unsupportedf("option %s = %q", key, val)
	}
	key, codec := OptionFileCompression, opts[OptionFileCompression]
	if v, ok := opts[OptionCompress]; ok {
		key, codec = OptionCompress, v
	}
	if codec != "" {
		switch strings.ToLower(strings.TrimSpace(codec)) {
		case "none":
			cfg.compression = compressionNone
		case "zlib":
			cfg.compression = compressionZlib
		case "snappy":
			cfg.compression = compressionSnappy
		case "lz4":
			cfg.compression = compressionLZ4
		case "zstd":
			cfg.compression = compressionZstd
		default:
			return cfg, bad(key, codec)
		}
	}
	intOpt := func(k string, lo, hi int64) (int64, bool, error) {
		v, ok := opts[k]
		if !ok {
			return 0, false, nil
		}
		n, err := strconv.ParseInt(strings.TrimSpace(v), 10, 64)
		if err != nil || n < lo || n > hi {
			return 0, false, bad(k, v)
		}
		return n, true, nil
	}
	for _, k := range []string{OptionOrcZstdLevel, OptionZstdLevel} {
		n, ok, err := intOpt(k, math.MinInt32, 22)
		if err != nil {
			return cfg, err
		}
		if ok {
			cfg.level = int(n)
			break
		}
	}
	if n, ok, err := intOpt(OptionCompressSize, 1, maxBlockSize); err != nil {
		return cfg, err
	} else if ok {
		cfg.chunk = int(n)
	}
	if n, ok, err := intOpt(OptionStripeSize, 1, math.MaxInt64); err != nil {
		return cfg, err
	} else if ok {
		cfg.stripeSize = n
	}
	if v, ok := opts[OptionBlockSize]; ok {
		n, err := schema.ParseMemorySize(v)
		if err != nil || n < 1 {
			return cfg, bad(OptionBlockSize, v)
		}
		cfg.stripeSize = n
	}
	return cfg, nil
}

// Writer writes one ORC data file from Arrow record batches of schema
// types.SchemaToArrow(fields), laid out as Java Paimon's OrcWriterFactory
// lays it out (OrcTypeUtil): BOOLEAN boolean, TINYINT tinyint, SMALLINT
// smallint, INT and TIME int, BIGINT bigint, FLOAT float, DOUBLE double,
// CHAR(n) char(n), VARCHAR(n) varchar(n), STRING string, BINARY, VARBINARY
// and BLOB binary, DECIMAL(p, s) decimal(p, s), DATE date, TIMESTAMP(p)
// timestamp, TIMESTAMP_LTZ(p) timestamp with local time zone, ARRAY array,
// MAP and MULTISET (as MAP<elem, INT>) map, ROW struct; every type node
// carries the "paimon.id" attribute (field ids, and Java's SpecialFields ids
// for list elements and map keys and values). VARIANT is
// ErrUnsupportedFormat, as in Java.
//
// Encodings are Java's defaults without dictionaries and row indexes
// (rowIndexStride 0): integer RLE v2 (DIRECT_V2), direct strings,
// byte and boolean RLE. Plain timestamps are written with writer time
// zone UTC (wall-clock values read back unchanged in any reader time
// zone); seconds are truncated toward zero as Java's writer truncates
// them, so an instant in (-1 s, 0) with more than a millisecond of
// fraction reads back one second later in every reader, exactly as the
// files Java writes (-1 ms reads as +0.999 s). CHAR(n) values are padded
// with spaces to n characters and CHAR/VARCHAR values cut to n characters,
// as Java's ORC writer does. The footer holds per-column statistics (value count, has-null,
// min/max/sum of integers, floats, strings, dates and decimals, true
// counts of booleans); no stripe-level Metadata is written. It implements
// format.Writer and is not safe for concurrent use.
type Writer struct {
	name   string
	fields []types.DataField
	in     *arrow.Schema
	out    *countingWriter
	cfg    writerConfig
	root   *colWriter
	all    []*colWriter // pre-order, all[i].id == i
	comp   *compressor

	rows       int64
	stripeRows int64
	stripeRaw  int64 // raw bytes buffered in the open stripe
	stripes    []stripeInfo
	// ratio is file bytes per raw byte of the stripes written so far (1
	// before the first stripe), for EstimatedSize.
	ratio   float64
	written int64 // raw bytes of the stripes written

	closed bool
	failed error
}

// NewWriter starts an ORC file with fields written to w (named fileName in
// errors). opts.Options are read for the keys listed as Option*
// constants; other keys are ignored (orc.* keys for dictionaries, bloom
// filters and row indexes do not apply: none are written). Closing the
// Writer does not close w.
//
// Errors: ErrUnsupportedFormat for an invalid option value or a type ORC
// cannot store (VARIANT).
func NewWriter(ctx context.Context, w io.Writer, fileName string, fields []types.DataField, opts format.WriteOptions) (*Writer, error) {
	if err := ctx.Err(); err != nil {
		return nil, err
	}
	cfg, err := parseWriterOptions(opts.Options)
	if err != nil {
		return nil, fmt.Errorf("%s: %w", fileName, err)
	}
	next := 0
	root, err := newColWriter(types.DataType{Kind: types.KindRow, Fields: fields}, "", &next)
	if err != nil {
		return nil, fmt.Errorf("%s: %w", fileName, err)
	}
	comp, err := newCompressor(cfg)
	if err != nil {
		return nil, fmt.Errorf("%s: %w", fileName, err)
	}
	wr := &Writer{name: fileName, fields: fields, in: types.SchemaToArrow(fields), out: &countingWriter{w: w},
		cfg: cfg, root: root, comp: comp, ratio: 1}
	var walk func(c *colWriter)
	walk = func(c *colWriter) {
		wr.all = append(wr.all, c)
		for _, ch := range c.children {
			walk(ch)
		}
	}
	walk(root)
	return wr, nil
}

// Write appends the rows of rec. rec's schema must equal
// types.SchemaToArrow(fields) in names, types and nullability (metadata is
// not compared); a NOT NULL field must have no nulls. The Writer keeps no
// reference to rec. A stripe is written when the buffered rows reach the
// stripe size. Errors: format.ErrSchemaMismatch for such mismatches; after
// any other error the file is unusable.
func (w *Writer) Write(ctx context.Context, rec arrow.RecordBatch) error {
	if w.closed {
		return fmt.Errorf("orc: %s: Write after Close", w.name)
	}
	if w.failed != nil {
		return w.failed
	}
	if err := ctx.Err(); err != nil {
		return err
	}
	if err := w.check(rec); err != nil {
		return err
	}
	n := int(rec.NumRows())
	if n == 0 {
		return nil
	}
	// Rows go in in slices of writeBatch, as Java's OrcBulkWriter fills
	// VectorizedRowBatches, so a stripe overshoots its size by at most one
	// slice whatever the size of rec.
	for lo := 0; lo < n; lo += writeBatch {
		hi := min(n, lo+writeBatch)
		part := []rng{{lo, hi}}
		for i, c := range w.root.children {
			w.stripeRaw += c.write(rec.Column(i), part)
		}
		w.root.st.values += int64(hi - lo)
		w.rows += int64(hi - lo)
		w.stripeRows += int64(hi - lo)
		if w.stripeRaw >= w.cfg.stripeSize {
			if err := w.flushStripe(); err != nil {
				return w.fail(err)
			}
		}
	}
	return nil
}

// writeBatch is the number of rows written between two stripe-size checks
// (Java's write.batch-size default).
const writeBatch = 1024

func (w *Writer) fail(err error) error {
	w.failed = fmt.Errorf("orc: %s: write: %w", w.name, err)
	return w.failed
}

func (w *Writer) check(rec arrow.RecordBatch) error {
	return format.CheckBatch("orc", w.name, w.in, rec)
}

// EstimatedSize returns the bytes written so far plus the open stripe's
// raw size scaled by the compression ratio of the stripes written (1
// before the first): what the rolling writer compares with
// target-file-size.
func (w *Writer) EstimatedSize() int64 {
	if w.closed {
		return w.out.n
	}
	return w.out.n + int64(float64(w.stripeRaw)*w.ratio)
}

// MaxEstimatedSize is EstimatedSize (which costs no encoding here): the
// bound the rolling writer compares first.
func (w *Writer) MaxEstimatedSize() int64 { return w.EstimatedSize() }

// RowCount returns the number of rows written so far.
func (w *Writer) RowCount() int64 { return w.rows }

// Abort gives up the file without writing anything more; the caller
// discards what was written to the underlying io.Writer.
func (w *Writer) Abort() { w.closed = true }

// Close writes the last stripe, the footer and the postscript, and returns
// the file's row count, size and per-field statistics (min/max of
// primitive columns except binary, as Java's OrcSimpleStatsExtractor
// reads them from the footer; null counts of all; float columns holding
// NaN get no min/max). It does not close the underlying io.Writer.
func (w *Writer) Close(ctx context.Context) (format.WriteResult, error) {
	if w.closed {
		return format.WriteResult{}, fmt.Errorf("orc: %s: Close called twice", w.name)
	}
	w.closed = true
	if w.failed != nil {
		return format.WriteResult{}, w.failed
	}
	if err := w.finish(); err != nil {
		return format.WriteResult{}, fmt.Errorf("orc: %s: close: %w", w.name, err)
	}
	res := format.WriteResult{RowCount: w.rows, FileSize: w.out.n, Stats: make([]format.ColumnStats, len(w.fields))}
	for i, c := range w.root.children {
		res.Stats[i] = c.result(w.rows)
	}
	return res, ctx.Err()
}

func (w *Writer) header() error {
	if w.out.n == 0 {
		_, err := w.out.Write([]byte("ORC"))
		return err
	}
	return nil
}

// flushStripe writes the buffered rows as one stripe.
func (w *Writer) flushStripe() error {
	if w.stripeRows == 0 {
		return nil
	}
	if err := w.header(); err != nil {
		return err
	}
	start := w.out.n
	var sf []byte // stripe footer
	var data int64
	for _, c := range w.all {
		for _, s := range c.streams(nil) {
			b := w.comp.compress(s.data)
			if _, err := w.out.Write(b); err != nil {
				return err
			}
			var m []byte
			m = pbUint(m, 1, s.kind)
			m = pbUint(m, 2, uint64(c.id))
			m = pbUint(m, 3, uint64(len(b)))
			sf = pbBytes(sf, 1, m)
			data += int64(len(b))
		}
		c.reset()
	}
	for _, c := range w.all {
		sf = pbBytes(sf, 2, pbUint(nil, 1, c.encoding()))
	}
	sf = pbBytes(sf, 3, []byte("UTC"))
	fb := w.comp.compress(sf)
	if _, err := w.out.Write(fb); err != nil {
		return err
	}
	w.stripes = append(w.stripes, stripeInfo{offset: uint64(start), dataLength: uint64(data),
		footerLength: uint64(len(fb)), numberOfRows: uint64(w.stripeRows)})
	w.written += w.stripeRaw
	if w.written > 0 {
		w.ratio = float64(w.out.n-3) / float64(w.written)
	}
	w.stripeRows, w.stripeRaw = 0, 0
	return nil
}

// finish writes the last stripe, the footer and the postscript.
func (w *Writer) finish() error {
	if err := w.flushStripe(); err != nil {
		return err
	}
	if err := w.header(); err != nil {
		return err
	}
	var ft []byte
	ft = pbUint(ft, 1, 3)
	ft = pbUint(ft, 2, uint64(w.out.n))
	for _, s := range w.stripes {
		var m []byte
		m = pbUint(m, 1, s.offset)
		m = pbUint(m, 2, 0)
		m = pbUint(m, 3, s.dataLength)
		m = pbUint(m, 4, s.footerLength)
		m = pbUint(m, 5, s.numberOfRows)
		ft = pbBytes(ft, 3, m)
	}
	for _, t := range w.root.appendTypes(nil, 0, false, 0, 0) {
		ft = pbBytes(ft, 4, t)
	}
	ft = pbUint(ft, 6, uint64(w.rows))
	for _, c := range w.all {
		ft = pbBytes(ft, 7, c.footerStats())
	}
	ft = pbUint(ft, 8, 0)
	ft = pbUint(ft, 9, writerID)
	// calendar JULIAN_GREGORIAN, as Java's writer by default: DATE days
	// are stored as given and Java reads them back unchanged.
	ft = pbUint(ft, 11, 1)
	ft = pbBytes(ft, 12, []byte(softwareVersion))
	fb := w.comp.compress(ft)
	if _, err := w.out.Write(fb); err != nil {
		return err
	}
	var ps []byte
	ps = pbUint(ps, 1, uint64(len(fb)))
	ps = pbUint(ps, 2, w.cfg.compression)
	if w.cfg.compression != compressionNone {
		ps = pbUint(ps, 3, uint64(w.cfg.chunk))
	}
	ps = pbBytes(ps, 4, []byte{0, 12})
	ps = pbUint(ps, 5, 0)
	ps = pbUint(ps, 6, writerVersion)
	ps = pbBytes(ps, 8000, []byte("ORC"))
	ps = append(ps, byte(len(ps)))
	_, err := w.out.Write(ps)
	return err
}

// footerStats encodes c's file statistics as an ORC ColumnStatistics.
func (c *colWriter) footerStats() []byte {
	s := &c.st
	var b []byte
	b = pbUint(b, 1, uint64(s.values))
	switch c.kind {
	case kindByte, kindShort, kindInt, kindLong:
		var m []byte
		if s.has {
			m = pbSint(m, 1, s.minI)
			m = pbSint(m, 2, s.maxI)
			if s.sumOK {
				m = pbSint(m, 3, s.sumI)
			}
		}
		b = pbBytes(b, 2, m)
	case kindFloat, kindDouble:
		var m []byte
		if s.has && !s.nan {
			m = pbDouble(m, 1, s.minF)
			m = pbDouble(m, 2, s.maxF)
			m = pbDouble(m, 3, s.sumF)
		}
		b = pbBytes(b, 3, m)
	case kindString, kindVarchar, kindChar:
		var m []byte
		// ORC stores min/max only up to 1024 bytes (longer ones as bounds,
		// which are not written here).
		if s.has && len(s.minS) <= 1024 && len(s.maxS) <= 1024 {
			m = pbBytes(m, 1, []byte(s.minS))
			m = pbBytes(m, 2, []byte(s.maxS))
		}
		m = pbSint(m, 3, s.sumLen)
		b = pbBytes(b, 4, m)
	case kindBoolean:
		b = pbBytes(b, 5, pbBytes(nil, 1, binary.AppendUvarint(nil, uint64(s.trues))))
	case kindDecimal:
		var m []byte
		if s.has {
			m = pbBytes(m, 1, []byte(decimalString(s.minD, c.t.Scale)))
			m = pbBytes(m, 2, []byte(decimalString(s.maxD, c.t.Scale)))
		}
		b = pbBytes(b, 6, m)
	case kindDate:
		var m []byte
		if s.has {
			m = pbSint(m, 1, s.minI)
			m = pbSint(m, 2, s.maxI)
		}
		b = pbBytes(b, 7, m)
	case kindBinary:
		b = pbBytes(b, 8, pbSint(nil, 1, s.sumLen))
	}
	b = pbBool(b, 10, s.hasNull)
	return b
}

// decimalString formats unscaled n at scale as Java's BigDecimal.toString
// does for such values ("-12.340").
func decimalString(n decimal128.Num, scale int) string {
	u := n.BigInt()
	neg := u.Sign() < 0
	digits := new(big.Int).Abs(u).String()
	if scale > 0 {
		if len(digits) <= scale {
			digits = strings.Repeat("0", scale-len(digits)+1) + digits
		}
		digits = digits[:len(digits)-scale] + "." + digits[len(digits)-scale:]
	}
	if neg {
		return "-" + digits
	}
	return digits
}

// result converts c's statistics to the format layer's form for a file of
// rows rows.
func (c *colWriter) result(rows int64) format.ColumnStats {
	s := &c.st
	out := format.ColumnStats{NullCount: rows - s.values, NullCountKnown: true}
	if !s.has {
		return out
	}
	switch c.kind {
	case kindBoolean:
		out.Min, out.Max = s.trues == s.values, s.trues > 0
	case kindByte:
		out.Min, out.Max = int8(s.minI), int8(s.maxI)
	case kindShort:
		out.Min, out.Max = int16(s.minI), int16(s.maxI)
	case kindInt, kindDate:
		out.Min, out.Max = int32(s.minI), int32(s.maxI)
	case kindLong:
		out.Min, out.Max = s.minI, s.maxI
	case kindFloat:
		if !s.nan {
			out.Min, out.Max = float32(s.minF), float32(s.maxF)
		}
	case kindDouble:
		if !s.nan {
			out.Min, out.Max = s.minF, s.maxF
		}
	case kindString, kindVarchar, kindChar:
		out.Min, out.Max = s.minS, s.maxS
	case kindDecimal:
		p, sc := c.t.Precision, c.t.Scale
		out.Min = types.Decimal{Unscaled: s.minD.BigInt(), Precision: p, Scale: sc}
		out.Max = types.Decimal{Unscaled: s.maxD.BigInt(), Precision: p, Scale: sc}
	case kindTimestamp, kindTimestampInstant:
		out.Min, out.Max = toTimestamp(s.minI, c.unit), toTimestamp(s.maxI, c.unit)
	}
	return out
}

func toTimestamp(v int64, unit arrow.TimeUnit) types.Timestamp {
	s, ns := splitTimestamp(v, unit)
	return types.Timestamp{Millis: s*1000 + ns/1e6, NanoOfMilli: int32(ns % 1e6)}
}

// compressor applies ORC's generic compression: chunks of at most the
// compression block size, each behind a 3-byte header holding
// length*2 + isOriginal; a chunk that does not shrink is stored original.
type compressor struct {
	kind  uint64
	chunk int
	zstd  *zstd.Encoder
	flate *flate.Writer
	buf   bytes.Buffer
}

func newCompressor(cfg writerConfig) (*compressor, error) {
	c := &compressor{kind: cfg.compression, chunk: cfg.chunk}
	switch cfg.compression {
	case compressionZstd:
		e, err := zstd.NewWriter(nil, zstd.WithEncoderLevel(zstd.EncoderLevelFromZstd(cfg.level)),
			zstd.WithEncoderConcurrency(1), zstd.WithLowerEncoderMem(true),
			// Single-segment frames declare a window of the chunk's own size, which
			// readers bounding memory by the compression block size accept.
			zstd.WithSingleSegment(true))
		if err != nil {
			return nil, unsupportedf("zstd encoder: %v", err)
		}
		c.zstd = e
	case compressionZlib:
		f, err := flate.NewWriter(&c.buf, flate.DefaultCompression)
		if err != nil {
			return nil, unsupportedf("zlib encoder: %v", err)
		}
		c.flate = f
	}
	return c, nil
}

func (c *compressor) compress(src []byte) []byte {
	if c.kind == compressionNone {
		return src
	}
	var out []byte
	for len(src) > 0 {
		n := min(len(src), c.chunk)
		part := src[:n]
		src = src[n:]
		h := len(out)
		out = append(out, 0, 0, 0)
		out = c.block(out, part)
		size := len(out) - h - 3
		original := 0
		if size >= n {
			out = append(out[:h+3], part...)
			size, original = n, 1
		}
		v := size<<1 | original
		out[h], out[h+1], out[h+2] = byte(v), byte(v>>8), byte(v>>16)
	}
	return out
}

// block appends the compressed form of src to dst.
func (c *compressor) block(dst, src []byte) []byte {
	switch c.kind {
	case compressionZstd:
		return c.zstd.EncodeAll(src, dst)
	case compressionSnappy:
		return append(dst, snappy.Encode(nil, src)...)
	case compressionLZ4:
		buf := make([]byte, lz4.CompressBlockBound(len(src)))
		n, err := lz4.CompressBlock(src, buf, nil)
		if err != nil || n == 0 {
			return append(dst, src...) // stored original by the caller
		}
		return append(dst, buf[:n]...)
	case compressionZlib:
		c.buf.Reset()
		c.flate.Reset(&c.buf)
		c.flate.Write(src)
		c.flate.Close()
		return append(dst, c.buf.Bytes()...)
	}
	return append(dst, src...)
}

// countingWriter counts the bytes written through it.
type countingWriter struct {
	w io.Writer
	n int64
}

func (c *countingWriter) Write(p []byte) (int, error) {
	n, err := c.w.Write(p)
	c.n += int64(n)
	return n, err
}

// Protobuf field appenders for the ORC tail messages (orc_proto.proto).

func pbUint(b []byte, num protowire.Number, v uint64) []byte {
	b = protowire.AppendTag(b, num, protowire.VarintType)
	return protowire.AppendVarint(b, v)
}

func pbSint(b []byte, num protowire.Number, v int64) []byte {
	b = protowire.AppendTag(b, num, protowire.VarintType)
	return protowire.AppendVarint(b, protowire.EncodeZigZag(v))
}

func pbBool(b []byte, num protowire.Number, v bool) []byte {
	return pbUint(b, num, protowire.EncodeBool(v))
}

func pbDouble(b []byte, num protowire.Number, v float64) []byte {
	b = protowire.AppendTag(b, num, protowire.Fixed64Type)
	return protowire.AppendFixed64(b, math.Float64bits(v))
}

func pbBytes(b []byte, num protowire.Number, v []byte) []byte {
	b = protowire.AppendTag(b, num, protowire.BytesType)
	return protowire.AppendBytes(b, v)
}

var _ format.Writer = (*Writer)(nil)
