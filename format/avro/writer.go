package avro

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"math"
	"strconv"
	"strings"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"

	"github.com/paimon-go/paimon/format"
	"github.com/paimon-go/paimon/internal/ocf"
	"github.com/paimon-go/paimon/types"
)

// Option keys the writer reads (Java CoreOptions and AvroFileFormat).
const (
	// OptionFileCompression is CoreOptions "file.compression": zstd
	// (default), snappy, deflate or null, as Avro codec names.
	OptionFileCompression = "file.compression"
	// OptionZstdLevel is CoreOptions "file.compression.zstd-level"
	// (default 1).
	OptionZstdLevel = "file.compression.zstd-level"
	// OptionCodec is AvroFileFormat "avro.codec": when set it wins over
	// file.compression (null, deflate, snappy, zstandard).
	OptionCodec = "avro.codec"
)

// codecOf resolves the container codec and level of the table options as
// Java's AvroFileFormat.createCodecFactory: avro.codec when set, else
// file.compression, "zstd" meaning zstandard at file.compression.zstd-level.
func codecOf(opts map[string]string) (string, int, error) {
	name, key := opts[OptionCodec], OptionCodec
	if name == "" {
		name, key = opts[OptionFileCompression], OptionFileCompression
		if name == "" {
			name = "zstd"
		}
	}
	level := -1
	switch strings.ToLower(name) {
	case "zstd", ocf.CodecZstandard:
		level = 1
		if v, ok := opts[OptionZstdLevel]; ok {
			n, err := strconv.Atoi(strings.TrimSpace(v))
			if err != nil {
				return "", 0, fmt.Errorf("%w: option %s = %q", format.ErrUnsupportedFormat, OptionZstdLevel, v)
			}
			level = n
		}
		return ocf.CodecZstandard, level, nil
	case ocf.CodecNull, ocf.CodecDeflate, ocf.CodecSnappy:
		return strings.ToLower(name), level, nil
	}
	return "", 0, fmt.Errorf("%w: option %s = %q (avro writes null, deflate, snappy, zstd)", format.ErrUnsupportedFormat, key, name)
}

// Writer writes one Avro data file from Arrow batches (Java AvroFileFormat's
// writer: AvroRowDatumWriter in a DataFileWriter), streaming each finished
// container block to the output, and collects the per-column statistics of
// Java's SimpleStatsCollector (min, max, null count). It is not safe for
// concurrent use.
type Writer struct {
	name   string
	fields []types.DataField
	in     *arrow.Schema
	w      io.Writer
	c      *ocf.Writer
	rows   int64
	size   int64 // bytes written to w
	stats  []colStats
	encs   []encoder
	err    error
	closed bool
}

// NewWriter starts an Avro data file with fields written to w (named
// fileName in errors). Options read: avro.codec, file.compression,
// file.compression.zstd-level. Closing the Writer does not close w.
//
// Errors: format.ErrUnsupportedFormat for an unknown codec or a type Avro
// cannot hold as Java writes it (see writerSchema).
func NewWriter(ctx context.Context, w io.Writer, fileName string, fields []types.DataField, opts format.WriteOptions) (*Writer, error) {
	if err := ctx.Err(); err != nil {
		return nil, err
	}
	codec, level, err := codecOf(opts.Options)
	if err != nil {
		return nil, fmt.Errorf("avro: %s: %w", fileName, err)
	}
	schema, err := writerSchema(fields)
	if err != nil {
		return nil, fmt.Errorf("avro: %s: %w", fileName, err)
	}
	c, err := ocf.NewWriter(schema, codec, level)
	if err != nil {
		return nil, fmt.Errorf("%w: avro: %s: %w", format.ErrUnsupportedFormat, fileName, err)
	}
	return &Writer{name: fileName, fields: fields, in: types.SchemaToArrow(fields), w: w, c: c,
		stats: make([]colStats, len(fields)), encs: make([]encoder, len(fields))}, nil
}

// Write appends the rows of rec (schema types.SchemaToArrow(fields)).
//
// Errors: format.ErrSchemaMismatch for a batch of another schema or nulls in
// a NOT NULL column; errors of the output.
func (w *Writer) Write(ctx context.Context, rec arrow.RecordBatch) error {
	if w.err != nil {
		return w.err
	}
	if w.closed {
		return fmt.Errorf("avro: %s: write after close", w.name)
	}
	if err := ctx.Err(); err != nil {
		return err
	}
	if err := w.check(rec); err != nil {
		return err
	}
	for i, f := range w.fields {
		enc, err := compile(f.Type, rec.Column(i))
		if err != nil {
			return w.fail(fmt.Errorf("avro: %s: column %s: %w", w.name, f.Name, err))
		}
		w.encs[i] = enc
		w.stats[i].collect(f.Type, rec.Column(i))
	}
	n := int(rec.NumRows())
	e := &w.c.Block
	for r := 0; r < n; r++ {
		e.NonNull() // the record branch of the ["null", record] file schema
		for _, enc := range w.encs {
			enc(e, r)
		}
		if err := w.c.EndRecord(); err != nil {
			return w.fail(fmt.Errorf("avro: %s: %w", w.name, err))
		}
		if r&1023 == 1023 {
			if err := w.drain(); err != nil {
				return err
			}
		}
	}
	clear(w.encs)
	w.rows += int64(n)
	return w.drain()
}

// drain writes the finished blocks to the output.
func (w *Writer) drain() error {
	out := w.c.Take()
	if len(out) == 0 {
		return nil
	}
	n, err := w.w.Write(out)
	w.size += int64(n)
	if err != nil {
		return w.fail(fmt.Errorf("avro: %s: %w", w.name, err))
	}
	return nil
}

func (w *Writer) fail(err error) error {
	w.err = err
	return err
}

func (w *Writer) check(rec arrow.RecordBatch) error {
	if int(rec.NumCols()) != len(w.fields) {
		return fmt.Errorf("%w: avro: %s: batch has %d columns, writer expects %d", format.ErrSchemaMismatch, w.name, rec.NumCols(), len(w.fields))
	}
	for i, f := range rec.Schema().Fields() {
		want := w.in.Field(i)
		if f.Name != want.Name || !arrow.TypeEqual(f.Type, want.Type) {
			return fmt.Errorf("%w: avro: %s: column %d is %s, writer expects %s", format.ErrSchemaMismatch, w.name, i, f, want)
		}
		if !w.fields[i].Type.Nullable && rec.Column(i).NullN() > 0 {
			return fmt.Errorf("%w: avro: %s: NOT NULL column %s has %d nulls", format.ErrSchemaMismatch, w.name, f.Name, rec.Column(i).NullN())
		}
	}
	return nil
}

// EstimatedSize returns the bytes written plus the uncompressed size of the
// block being built (an upper bound of the file size if closed now).
func (w *Writer) EstimatedSize() int64 { return w.size + int64(w.c.Pending()) }

// MaxEstimatedSize is EstimatedSize (it costs nothing here).
func (w *Writer) MaxEstimatedSize() int64 { return w.EstimatedSize() }

// RowCount returns the number of rows written so far.
func (w *Writer) RowCount() int64 { return w.rows }

// Abort drops the file being written; the caller discards the output.
func (w *Writer) Abort() {
	w.closed = true
	w.err = errors.New("avro: writer aborted")
}

// Close flushes the last block and returns the file's row count, size and
// per-column statistics. It does not close the output.
func (w *Writer) Close(ctx context.Context) (format.WriteResult, error) {
	if w.closed {
		return format.WriteResult{}, fmt.Errorf("avro: %s: writer already closed", w.name)
	}
	w.closed = true
	if w.err != nil {
		return format.WriteResult{}, w.err
	}
	rest, err := w.c.Finish()
	if err != nil {
		return format.WriteResult{}, fmt.Errorf("avro: %s: %w", w.name, err)
	}
	n, err := w.w.Write(rest)
	w.size += int64(n)
	if err != nil {
		return format.WriteResult{}, fmt.Errorf("avro: %s: %w", w.name, err)
	}
	st := make([]format.ColumnStats, len(w.fields))
	for i := range w.fields {
		st[i] = w.stats[i].result()
	}
	return format.WriteResult{RowCount: w.rows, FileSize: w.size, Stats: st}, nil
}

// encoder appends the Avro encoding of row i of its column.
type encoder func(e *ocf.Encoder, i int)

// compile returns the encoder of a column of type t held in a.
func compile(t types.DataType, a arrow.Array) (encoder, error) {
	inner, err := compileValue(t, a)
	if err != nil || !t.Nullable {
		return inner, err
	}
	if a.NullN() == 0 {
		return func(e *ocf.Encoder, i int) { e.NonNull(); inner(e, i) }, nil
	}
	return func(e *ocf.Encoder, i int) {
		if a.IsNull(i) {
			e.Null()
			return
		}
		e.NonNull()
		inner(e, i)
	}, nil
}

func mismatch(t types.DataType, a arrow.Array) error {
	return fmt.Errorf("%w: %s held in Arrow %s", format.ErrSchemaMismatch, t, a.DataType())
}

func compileValue(t types.DataType, a arrow.Array) (encoder, error) {
	switch a := a.(type) {
	case *array.Boolean:
		return func(e *ocf.Encoder, i int) { e.Boolean(a.Value(i)) }, nil
	case *array.Int8:
		v := a.Int8Values()
		return func(e *ocf.Encoder, i int) { e.Long(int64(v[i])) }, nil
	case *array.Int16:
		v := a.Int16Values()
		return func(e *ocf.Encoder, i int) { e.Long(int64(v[i])) }, nil
	case *array.Int32:
		v := a.Int32Values()
		return func(e *ocf.Encoder, i int) { e.Long(int64(v[i])) }, nil
	case *array.Int64:
		v := a.Int64Values()
		return func(e *ocf.Encoder, i int) { e.Long(v[i]) }, nil
	case *array.Float32:
		v := a.Float32Values()
		return func(e *ocf.Encoder, i int) { e.Float(v[i]) }, nil
	case *array.Float64:
		v := a.Float64Values()
		return func(e *ocf.Encoder, i int) { e.Double(v[i]) }, nil
	case *array.Date32:
		v := a.Date32Values()
		return func(e *ocf.Encoder, i int) { e.Long(int64(v[i])) }, nil
	case *array.Time32:
		v := a.Time32Values()
		return func(e *ocf.Encoder, i int) { e.Long(int64(v[i])) }, nil
	case *array.Timestamp:
		if t.Precision > 6 {
			return nil, fmt.Errorf("%w: avro: %s (Avro holds timestamps up to precision 6)", format.ErrUnsupportedFormat, t)
		}
		v := a.TimestampValues()
		return func(e *ocf.Encoder, i int) { e.Long(int64(v[i])) }, nil
	case *array.String:
		return func(e *ocf.Encoder, i int) { e.String(a.Value(i)) }, nil
	case *array.Binary:
		return func(e *ocf.Encoder, i int) { e.Bytes(a.Value(i)) }, nil
	case *array.Decimal128:
		var buf [16]byte
		return func(e *ocf.Encoder, i int) { e.Bytes(unscaledBytes(&buf, a.Value(i).HighBits(), a.Value(i).LowBits())) }, nil
	case *array.Map:
		key, val := mapParts(t)
		ke, err := compile(key, a.Keys())
		if err != nil {
			return nil, err
		}
		ve, err := compile(val, a.Items())
		if err != nil {
			return nil, err
		}
		stringKeys := key.Kind == types.KindVarChar || key.Kind == types.KindChar
		if stringKeys {
			// Avro map keys are plain strings, never a union.
			if ke, err = compileValue(key, a.Keys()); err != nil {
				return nil, err
			}
		}
		off := a.Offsets()
		return func(e *ocf.Encoder, i int) {
			lo, hi := off[i], off[i+1]
			if hi > lo {
				e.Long(int64(hi - lo))
				for j := int(lo); j < int(hi); j++ {
					ke(e, j)
					ve(e, j)
				}
			}
			e.Long(0)
		}, nil
	case *array.List:
		if t.Kind != types.KindArray {
			return nil, mismatch(t, a)
		}
		ee, err := compile(*t.Elem, a.ListValues())
		if err != nil {
			return nil, err
		}
		off := a.Offsets()
		return func(e *ocf.Encoder, i int) {
			lo, hi := off[i], off[i+1]
			if hi > lo {
				e.Long(int64(hi - lo))
				for j := int(lo); j < int(hi); j++ {
					ee(e, j)
				}
			}
			e.Long(0)
		}, nil
	case *array.Struct:
		if t.Kind != types.KindRow || len(t.Fields) != a.NumField() {
			return nil, mismatch(t, a)
		}
		encs := make([]encoder, len(t.Fields))
		for k, f := range t.Fields {
			var err error
			if encs[k], err = compile(f.Type, a.Field(k)); err != nil {
				return nil, fmt.Errorf("field %s: %w", f.Name, err)
			}
		}
		return func(e *ocf.Encoder, i int) {
			for _, enc := range encs {
				enc(e, i)
			}
		}, nil
	}
	return nil, mismatch(t, a)
}

// unscaledBytes returns the big-endian two's complement of the 128-bit
// integer hi:lo in as few bytes as Java's BigInteger.toByteArray (at least
// one), in buf.
func unscaledBytes(buf *[16]byte, hi int64, lo uint64) []byte {
	for k := 0; k < 8; k++ {
		buf[k] = byte(uint64(hi) >> (56 - 8*k))
		buf[8+k] = byte(lo >> (56 - 8*k))
	}
	b := buf[:]
	for len(b) > 1 && ((b[0] == 0 && b[1]&0x80 == 0) || (b[0] == 0xff && b[1]&0x80 != 0)) {
		b = b[1:]
	}
	return b
}

// colStats collects the statistics of one column across batches.
type colStats struct {
	min, max  any
	nulls     int64
	unordered bool // NaN seen: min/max unknown, as the Parquet writer reports
}

// collect folds column a (of type t) into the statistics: the minimum and
// maximum are found in the batch's own representation and converted once.
func (s *colStats) collect(t types.DataType, a arrow.Array) {
	s.nulls += int64(a.NullN())
	if s.unordered || a.NullN() == a.Len() || t.Kind == types.KindBlob {
		return
	}
	lo, hi := -1, -1
	valid := func(i int) bool { return a.NullN() == 0 || a.IsValid(i) }
	scan := func(n int, less func(i, j int) bool) {
		for i := 0; i < n; i++ {
			if !valid(i) {
				continue
			}
			if lo < 0 || less(i, lo) {
				lo = i
			}
			if hi < 0 || less(hi, i) {
				hi = i
			}
		}
	}
	switch a := a.(type) {
	case *array.Boolean:
		scan(a.Len(), func(i, j int) bool { return !a.Value(i) && a.Value(j) })
	case *array.Int8:
		v := a.Int8Values()
		scan(len(v), func(i, j int) bool { return v[i] < v[j] })
	case *array.Int16:
		v := a.Int16Values()
		scan(len(v), func(i, j int) bool { return v[i] < v[j] })
	case *array.Int32:
		v := a.Int32Values()
		scan(len(v), func(i, j int) bool { return v[i] < v[j] })
	case *array.Int64:
		v := a.Int64Values()
		scan(len(v), func(i, j int) bool { return v[i] < v[j] })
	case *array.Date32:
		v := a.Date32Values()
		scan(len(v), func(i, j int) bool { return v[i] < v[j] })
	case *array.Time32:
		v := a.Time32Values()
		scan(len(v), func(i, j int) bool { return v[i] < v[j] })
	case *array.Timestamp:
		v := a.TimestampValues()
		scan(len(v), func(i, j int) bool { return v[i] < v[j] })
	case *array.Float32:
		v := a.Float32Values()
		for i, x := range v {
			if x != x && valid(i) {
				s.unordered, s.min, s.max = true, nil, nil
				return
			}
		}
		scan(len(v), func(i, j int) bool { return v[i] < v[j] })
	case *array.Float64:
		v := a.Float64Values()
		for i, x := range v {
			if math.IsNaN(x) && valid(i) {
				s.unordered, s.min, s.max = true, nil, nil
				return
			}
		}
		scan(len(v), func(i, j int) bool { return v[i] < v[j] })
	case *array.String:
		scan(a.Len(), func(i, j int) bool { return a.Value(i) < a.Value(j) })
	case *array.Binary:
		scan(a.Len(), func(i, j int) bool { return bytes.Compare(a.Value(i), a.Value(j)) < 0 })
	case *array.Decimal128:
		scan(a.Len(), func(i, j int) bool { return a.Value(i).Less(a.Value(j)) })
	default:
		return // nested types: null count only
	}
	if lo < 0 {
		return
	}
	vlo, err1 := types.ArrowValue(t, a, lo)
	vhi, err2 := types.ArrowValue(t, a, hi)
	if err1 != nil || err2 != nil {
		s.unordered, s.min, s.max = true, nil, nil
		return
	}
	if s.min == nil || types.Compare(t, vlo, s.min) < 0 {
		s.min = vlo
	}
	if s.max == nil || types.Compare(t, vhi, s.max) > 0 {
		s.max = vhi
	}
}

func (s *colStats) result() format.ColumnStats {
	return format.ColumnStats{Min: s.min, Max: s.max, NullCount: s.nulls, NullCountKnown: true}
}

var (
	_ format.Writer = (*Writer)(nil)
	_ format.Format = Format{}
)

// Format is the Avro implementation of format.Format (Java AvroFileFormat).
// Its zero value is ready to use.
type Format struct{}

// Name returns "avro".
func (Format) Name() string { return "avro" }

// NewReader calls the package function NewReader.
func (Format) NewReader(ctx context.Context, f format.File, fileName string, want []types.DataField, opts format.ReadOptions) (format.Reader, error) {
	r, err := NewReader(ctx, f, fileName, want, opts)
	if err != nil {
		return nil, err
	}
	return r, nil
}

// NewWriter calls the package function NewWriter.
func (Format) NewWriter(ctx context.Context, w io.Writer, fileName string, fields []types.DataField, opts format.WriteOptions) (format.Writer, error) {
	wr, err := NewWriter(ctx, w, fileName, fields, opts)
	if err != nil {
		return nil, err
	}
	return wr, nil
}
