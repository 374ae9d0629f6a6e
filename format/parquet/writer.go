package parquet

import (
	"context"
	"fmt"
	"io"
	"math"
	"strconv"
	"strings"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"
	"github.com/apache/arrow-go/v18/arrow/memory"
	"github.com/apache/arrow-go/v18/parquet"
	"github.com/apache/arrow-go/v18/parquet/compress"
	"github.com/apache/arrow-go/v18/parquet/metadata"
	"github.com/apache/arrow-go/v18/parquet/pqarrow"
	pqschema "github.com/apache/arrow-go/v18/parquet/schema"

	"github.com/paimon-go/paimon/format"
	"github.com/paimon-go/paimon/types"
)

// Option keys read by NewWriter, with Java Paimon's / parquet-mr's defaults
// (RowDataParquetBuilder, ParquetFileFormat).
const (
	// OptionFileCompression is CoreOptions "file.compression": zstd (default),
	// snappy, gzip, lz4, lz4_raw, brotli, none / uncompressed.
	OptionFileCompression = "file.compression"
	// OptionZstdLevel is CoreOptions "file.compression.zstd-level" (default 1).
	OptionZstdLevel = "file.compression.zstd-level"
	// OptionCompression ("parquet.compression") overrides file.compression.
	OptionCompression = "parquet.compression"
	// OptionParquetZstdLevel ("parquet.compression.codec.zstd.level")
	// overrides file.compression.zstd-level.
	OptionParquetZstdLevel = "parquet.compression.codec.zstd.level"
	// OptionBlockSize ("parquet.block.size", bytes, default 128 MiB) is the
	// row group size at which a new row group is started.
	OptionBlockSize = "parquet.block.size"
	// OptionPageSize ("parquet.page.size", bytes, default 1 MiB).
	OptionPageSize = "parquet.page.size"
	// OptionDictionaryPageSize ("parquet.dictionary.page.size", bytes,
	// default 1 MiB): past it a column falls back to plain encoding.
	OptionDictionaryPageSize = "parquet.dictionary.page.size"
	// OptionEnableDictionary ("parquet.enable.dictionary", default true).
	// "parquet.enable.dictionary#<column path>" (path of dot-separated
	// names, e.g. "_SEQUENCE_NUMBER" or "tags.list.element") sets it for one
	// column, as Java's RowDataParquetBuilder reads it (ColumnConfigParser).
	OptionEnableDictionary = "parquet.enable.dictionary"
	// OptionWriterVersion ("parquet.writer.version"): PARQUET_1_0 (default,
	// v1 data pages) or PARQUET_2_0 (v2 data pages).
	OptionWriterVersion = "parquet.writer.version"
)

const (
	defaultBlockSize = 128 << 20
	defaultPageSize  = 1 << 20
	defaultDictSize  = 1 << 20
)

// writerConfig is the parsed form of the options.
type writerConfig struct {
	codec     compress.Compression
	level     int
	blockSize int64
	pageSize  int64
	dictSize  int64
	dict      bool
	pageV2    bool
	// colDict holds the per-column dictionary settings
	// (parquet.enable.dictionary#<path>), by column path.
	colDict map[string]bool
}

// columnProps returns the per-column writer properties of cfg.
func (cfg writerConfig) columnProps() []parquet.WriterProperty {
	var out []parquet.WriterProperty
	for path, on := range cfg.colDict {
		out = append(out, parquet.WithDictionaryFor(path, on))
	}
	return out
}

func parseWriterOptions(opts map[string]string) (writerConfig, error) {
	cfg := writerConfig{codec: compress.Codecs.Zstd, level: 1, blockSize: defaultBlockSize,
		pageSize: defaultPageSize, dictSize: defaultDictSize, dict: true}
	bad := func(key, val string) error {
		return fmt.Errorf("%w: option %s = %q", format.ErrUnsupportedFormat, key, val)
	}
	codecKey, codec := OptionFileCompression, opts[OptionFileCompression]
	if v, ok := opts[OptionCompression]; ok {
		codecKey, codec = OptionCompression, v
	}
	if codec != "" {
		switch strings.ToLower(strings.TrimSpace(codec)) {
		case "zstd":
			cfg.codec = compress.Codecs.Zstd
		case "snappy":
			cfg.codec = compress.Codecs.Snappy
		case "gzip":
			cfg.codec = compress.Codecs.Gzip
		case "brotli":
			cfg.codec = compress.Codecs.Brotli
		case "lz4", "lz4_raw":
			// parquet-mr's LZ4 is the deprecated Hadoop framing, which
			// arrow-go cannot write; LZ4_RAW is the standard codec and Java
			// Paimon (parquet-mr 1.13+) reads it.
			cfg.codec = compress.Codecs.Lz4Raw
		case "none", "uncompressed":
			cfg.codec = compress.Codecs.Uncompressed
		default:
			return cfg, bad(codecKey, codec)
		}
	}
	intOpt := func(keys []string, dst *int64, min int64) error {
		for _, k := range keys {
			v, ok := opts[k]
			if !ok {
				continue
			}
			n, err := strconv.ParseInt(strings.TrimSpace(v), 10, 64)
			if err != nil || n < min {
				return bad(k, v)
			}
			*dst = n
			return nil
		}
		return nil
	}
	level := int64(cfg.level)
	if err := intOpt([]string{OptionParquetZstdLevel, OptionZstdLevel}, &level, math.MinInt32); err != nil {
		return cfg, err
	}
	if level > 22 {
		return cfg, bad(OptionZstdLevel, strconv.FormatInt(level, 10))
	}
	cfg.level = int(level)
	if err := intOpt([]string{OptionBlockSize}, &cfg.blockSize, 1); err != nil {
		return cfg, err
	}
	if err := intOpt([]string{OptionPageSize}, &cfg.pageSize, 1); err != nil {
		return cfg, err
	}
	if err := intOpt([]string{OptionDictionaryPageSize}, &cfg.dictSize, 1); err != nil {
		return cfg, err
	}
	if v, ok := opts[OptionEnableDictionary]; ok {
		b, err := strconv.ParseBool(strings.TrimSpace(v))
		if err != nil {
			return cfg, bad(OptionEnableDictionary, v)
		}
		cfg.dict = b
	}
	for k, v := range opts {
		path, ok := strings.CutPrefix(k, OptionEnableDictionary+"#")
		if !ok {
			continue
		}
		b, err := strconv.ParseBool(strings.TrimSpace(v))
		if err != nil || path == "" {
			return cfg, bad(k, v)
		}
		if cfg.colDict == nil {
			cfg.colDict = map[string]bool{}
		}
		cfg.colDict[path] = b
	}
	if v, ok := opts[OptionWriterVersion]; ok {
		switch strings.ToLower(strings.TrimSpace(v)) {
		case "parquet_1_0", "v1":
		case "parquet_2_0", "v2":
			cfg.pageV2 = true
		default:
			return cfg, bad(OptionWriterVersion, v)
		}
	}
	return cfg, nil
}

// Writer writes one Parquet data file from Arrow record batches of schema
// types.SchemaToArrow(fields), laid out as Java Paimon lays it out
// (ParquetSchemaConverter, ParquetRowDataWriter): field ids on every node,
// TINYINT/SMALLINT as annotated INT32, DECIMAL as INT32 (p <= 9), INT64
// (p <= 18) or FIXED_LEN_BYTE_ARRAY, TIMESTAMP(p <= 3) as INT64 millis,
// (p <= 6) as INT64 micros, (p > 6) as INT96, LTZ likewise with
// isAdjustedToUTC, 3-level lists, key_value maps with required keys,
// message name "paimon_schema". It implements format.Writer.
//
// INT96 values are written with a non-negative nanos-of-day (the standard
// encoding every reader accepts); Java writes instants before 1970 with a
// negative one. Both decode to the same instant in Java and here.
//
// A Writer is not safe for concurrent use.
type Writer struct {
	name      string
	fields    []types.DataField
	in        *arrow.Schema
	out       *arrow.Schema
	cw        *countingWriter
	fw        *pqarrow.FileWriter
	cfg       writerConfig
	leaves    []int // leaf count per field
	numLeaves int64

	rows     int64
	rgRaw    int64   // raw (plain-encoded) bytes written into the open row group
	fieldRaw []int64 // rgRaw per top-level field
	ratio    float64 // file bytes per raw byte, from the probe; 0 before it ran
	// probeRec is the batch the probe will encode once the ratio is needed
	// (retained; nil when none is pending) and probeN its rows: the largest
	// batch written so far, cut at probeRows rows.
	probeRec arrow.RecordBatch
	probeN   int64
	// head holds the file's first batches (retained, of the write schema)
	// until firstPageRows rows decide the dictionary encodings (start);
	// headRows counts their rows. fw is nil until then.
	head        []arrow.RecordBatch
	headRows    int64
	deciding    bool             // start makes the first-page dictionary decision
	sc          *pqschema.Schema // Parquet schema of out
	mem         memory.Allocator
	props       *parquet.WriterProperties // nil until start
	arrProps    pqarrow.ArrowWriterProperties
	rollPending bool
	cols        []colCollector
	closed      bool
	failed      error
}

// colCollector gathers what the footer cannot give per top-level field:
// null counts of nested columns, min/max of INT96 timestamps, and whether a
// float column saw NaN (then its min/max are dropped).
type colCollector struct {
	nulls  int64
	nan    bool
	hasTS  bool
	lo, hi int64 // INT96 (nanosecond) timestamps
}

// NewWriter starts a Parquet file with fields written to w (named fileName
// in errors). opts.Options are read for the keys listed as Option*
// constants; other keys are ignored. Closing the Writer does not close w.
//
// Errors: format.ErrUnsupportedFormat for an invalid option value or a type
// Parquet cannot store, format.ErrSchemaMismatch for an invalid type.
func NewWriter(ctx context.Context, w io.Writer, fileName string, fields []types.DataField, opts format.WriteOptions) (*Writer, error) {
	if err := ctx.Err(); err != nil {
		return nil, err
	}
	cfg, err := parseWriterOptions(opts.Options)
	if err != nil {
		return nil, fmt.Errorf("parquet: %s: %w", fileName, err)
	}
	out, err := writeSchema(fields)
	if err != nil {
		return nil, fmt.Errorf("parquet: %s: %w", fileName, err)
	}
	mem := opts.Allocator
	if mem == nil {
		mem = memory.DefaultAllocator
	}
	arrProps := pqarrow.NewArrowWriterProperties(
		pqarrow.WithAllocator(mem),
		pqarrow.WithDeprecatedInt96Timestamps(true), // only nanosecond columns, i.e. TIMESTAMP(p > 6)
	)
	wr := &Writer{name: fileName, fields: fields, in: types.SchemaToArrow(fields), out: out, cw: &countingWriter{w: w},
		cfg: cfg, cols: make([]colCollector, len(fields)), leaves: make([]int, len(fields)),
		fieldRaw: make([]int64, len(fields)), mem: mem, arrProps: arrProps}
	for i, f := range out.Fields() {
		wr.leaves[i] = leafCount(f.Type)
		wr.numLeaves += int64(wr.leaves[i])
	}
	wr.sc, err = pqarrow.ToParquet(out, wr.properties(nil), arrProps)
	if err != nil {
		return nil, fmt.Errorf("%w: parquet: %s: %v", format.ErrUnsupportedFormat, fileName, err)
	}
	wr.deciding = cfg.dict
	for _, on := range cfg.colDict {
		wr.deciding = wr.deciding || on
	}
	if !wr.deciding {
		if err := wr.start(); err != nil {
			return nil, fmt.Errorf("parquet: %s: %w", fileName, err)
		}
	}
	return wr, nil
}

// properties returns the writer properties of the options, with the
// per-column dictionary settings dict on top of the options' own.
func (w *Writer) properties(dict map[string]bool) *parquet.WriterProperties {
	cfg := w.cfg
	pageVersion := parquet.DataPageV1
	if cfg.pageV2 {
		pageVersion = parquet.DataPageV2
	}
	props := []parquet.WriterProperty{
		parquet.WithAllocator(w.mem),
		parquet.WithRootName("paimon_schema"),
		parquet.WithCompression(cfg.codec),
		parquet.WithCompressionLevel(cfg.level),
		parquet.WithDictionaryDefault(cfg.dict),
		parquet.WithDictionaryPageSizeLimit(cfg.dictSize),
		parquet.WithDataPageSize(cfg.pageSize),
		parquet.WithDataPageVersion(pageVersion),
		parquet.WithStoreDecimalAsInteger(true),
		parquet.WithStats(true),
	}
	props = append(props, cfg.columnProps()...)
	for path, keep := range dict {
		// The decision is parquet-mr's, made once: arrow-go's own cost
		// check (on for uncompressed columns) must not undo a kept one.
		props = append(props, parquet.WithDictionaryFor(path, keep), parquet.WithDictionaryCostFallbackFor(path, false))
	}
	return parquet.NewWriterProperties(props...)
}

// dictEnabled reports whether the options enable dictionary encoding for
// the leaf column at path.
func (w *Writer) dictEnabled(path string) bool {
	if on, ok := w.cfg.colDict[path]; ok {
		return on
	}
	return w.cfg.dict
}

// start opens arrow-go's file writer: with dictionary encoding decided from
// the held-back first rows as parquet-mr decides it at the first page
// (see dictionary.go), then writes those rows.
func (w *Writer) start() error {
	head := w.head
	w.head, w.headRows = nil, 0
	defer func() {
		for _, r := range head {
			r.Release()
		}
	}()
	var dict map[string]bool
	if w.deciding && len(head) > 0 {
		dict = decideDictionary(w.sc, w.out, w.leaves, head, w.dictEnabled, w.cfg.dictSize, w.cfg.pageV2)
	}
	props := w.properties(dict)
	fw, err := pqarrow.NewFileWriter(w.out, w.cw, props, w.arrProps)
	if err != nil {
		return fmt.Errorf("%w: %v", format.ErrUnsupportedFormat, err)
	}
	w.fw, w.props = fw, props
	for _, rec := range head {
		if err := fw.WriteBuffered(rec); err != nil {
			return err
		}
	}
	return nil
}

// written returns the bytes written to the file: before start, the 4-byte
// magic arrow-go writes first.
func (w *Writer) written() int64 {
	if w.fw == nil && !w.closed {
		return int64(len("PAR1"))
	}
	return w.cw.n
}

func leafCount(t arrow.DataType) int {
	switch t := t.(type) {
	case *arrow.StructType:
		n := 0
		for _, f := range t.Fields() {
			n += leafCount(f.Type)
		}
		return n
	case *arrow.MapType:
		return leafCount(t.KeyType()) + leafCount(t.ItemType())
	case *arrow.ListType:
		return leafCount(t.Elem())
	}
	return 1
}

// Write appends the rows of rec. rec's schema must equal
// types.SchemaToArrow(fields) in names, types and nullability (metadata is
// not compared); a NOT NULL field must have no nulls. The Writer may keep
// a reference to rec's buffers (Retain) until the file's first 20,000 rows
// are encoded or it is closed; Arrow arrays are immutable, so the caller may
// Release rec at once. Errors: format.ErrSchemaMismatch for such
// mismatches; after any other error the file is unusable.
func (w *Writer) Write(ctx context.Context, rec arrow.RecordBatch) error {
	if w.closed {
		return fmt.Errorf("parquet: %s: Write after Close", w.name)
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
	if rec.NumRows() == 0 {
		return nil
	}
	cols := make([]arrow.Array, rec.NumCols())
	for i, c := range rec.Columns() {
		w.collect(i, c)
		d := retype(c.Data(), w.out.Field(i).Type)
		cols[i] = array.MakeFromData(d)
		d.Release()
	}
	out := array.NewRecordBatch(w.out, cols, rec.NumRows())
	for _, c := range cols {
		c.Release()
	}
	defer out.Release()
	if w.rollPending {
		if err := w.fw.NewBufferedRowGroupChecked(); err != nil {
			return w.fail(err)
		}
		w.rollPending, w.rgRaw = false, 0
		clear(w.fieldRaw)
	}
	if w.probeN < probeRows && out.NumRows() > w.probeN {
		// A larger batch than the last probe's gives a better prior (a
		// tiny sample is dominated by its footer and dictionary pages).
		// It is encoded only when an estimate needs the ratio.
		w.setProbe(out)
	}
	if w.fw == nil {
		out.Retain()
		w.head = append(w.head, out)
		w.headRows += out.NumRows()
	} else if err := w.fw.WriteBuffered(out); err != nil {
		return w.fail(err)
	}
	w.rows += rec.NumRows()
	for i, c := range rec.Columns() {
		n := rawSize(c.Data())
		w.fieldRaw[i] += n
		w.rgRaw += n
	}
	if w.fw == nil && w.headRows >= firstPageRows {
		if err := w.start(); err != nil {
			return w.fail(err)
		}
	}
	// The bound is cheap and never below the estimate: the probe runs only
	// for row groups that may be full.
	if w.rowGroupBound() >= w.cfg.blockSize && w.rowGroupEstimate() >= w.cfg.blockSize {
		w.rollPending = true
	}
	if w.failed != nil {
		return w.failed
	}
	return nil
}

func (w *Writer) fail(err error) error {
	w.failed = fmt.Errorf("parquet: %s: write: %w", w.name, err)
	return w.failed
}

func (w *Writer) check(rec arrow.RecordBatch) error {
	return format.CheckBatch("parquet", w.name, w.in, rec)
}

// collect updates the per-field collector with column c of field i.
func (w *Writer) collect(i int, c arrow.Array) {
	cc := &w.cols[i]
	cc.nulls += int64(c.NullN())
	switch a := c.(type) {
	case *array.Float32:
		if !cc.nan {
			for j, v := range a.Float32Values() {
				if v != v && a.IsValid(j) {
					cc.nan = true
					break
				}
			}
		}
	case *array.Float64:
		if !cc.nan {
			for j, v := range a.Float64Values() {
				if v != v && a.IsValid(j) {
					cc.nan = true
					break
				}
			}
		}
	case *array.Timestamp:
		if a.DataType().(*arrow.TimestampType).Unit != arrow.Nanosecond {
			return
		}
		for j, v := range a.TimestampValues() {
			if !a.IsValid(j) {
				continue
			}
			n := int64(v)
			if !cc.hasTS || n < cc.lo {
				cc.lo = n
			}
			if !cc.hasTS || n > cc.hi {
				cc.hi = n
			}
			cc.hasTS = true
		}
	}
}

// retype relabels d (of an input type) with the equivalent write type t
// (same layout, ids and names of nested nodes differ).
func retype(d arrow.ArrayData, t arrow.DataType) arrow.ArrayData {
	var childTypes []arrow.DataType
	switch t := t.(type) {
	case *arrow.StructType:
		for _, f := range t.Fields() {
			childTypes = append(childTypes, f.Type)
		}
	case *arrow.MapType:
		childTypes = []arrow.DataType{t.Elem()}
	case *arrow.ListType:
		childTypes = []arrow.DataType{t.Elem()}
	}
	children := make([]arrow.ArrayData, len(d.Children()))
	for i, ch := range d.Children() {
		children[i] = retype(ch, childTypes[i])
	}
	out := array.NewData(t, d.Len(), d.Buffers(), children, d.NullN(), d.Offset())
	for _, ch := range children {
		ch.Release()
	}
	return out
}

// probeRows is the most rows of a batch encoded by probe.
const probeRows = 32768

// setProbe makes rec (of the write schema; at most its first probeRows
// rows) the batch the probe encodes, replacing the pending one. Arrow
// arrays are immutable, so holding a reference is safe; it keeps at most
// one batch of up to probeRows rows alive.
func (w *Writer) setProbe(rec arrow.RecordBatch) {
	w.releaseProbe()
	n := min(rec.NumRows(), probeRows)
	if n == rec.NumRows() {
		rec.Retain()
	} else {
		rec = rec.NewSlice(0, n)
	}
	w.probeRec, w.probeN = rec, n
}

func (w *Writer) releaseProbe() {
	if w.probeRec != nil {
		w.probeRec.Release()
		w.probeRec = nil
	}
}

// resolveProbe runs the pending probe, if any, so that w.ratio is the ratio
// of the largest batch written so far, exactly as if every larger batch had
// been probed as it arrived. A failing probe fails the file (the next Write
// or Close returns the error); the estimate then keeps the previous ratio.
func (w *Writer) resolveProbe() {
	if w.failed != nil {
		return
	}
	if w.fw == nil {
		// The probe encodes with the file's properties: decide them on
		// the rows held back so far.
		if err := w.start(); err != nil {
			w.fail(err)
			return
		}
	}
	if w.probeRec == nil {
		return
	}
	rec := w.probeRec
	w.probeRec = nil
	defer rec.Release()
	if err := w.probe(rec); err != nil {
		w.fail(err)
	}
}

// probe encodes rec (of the write schema, at most probeRows rows) into a
// scratch Parquet file with the file's properties and sets w.ratio to its
// size per raw byte: the prior for the bytes still buffered in encoders
// (the encoded buffered size pqarrow.FileWriter does not expose). It costs
// encoding up to probeRows rows again, a few times per file at most, and
// only for files whose estimate may reach a limit (see rowGroupBound).
func (w *Writer) probe(rec arrow.RecordBatch) error {
	var raw int64
	for _, c := range rec.Columns() {
		raw += rawSize(c.Data())
	}
	cw := &countingWriter{w: io.Discard}
	fw, err := pqarrow.NewFileWriter(w.out, cw, w.props, w.arrProps)
	if err != nil {
		return err
	}
	if err := fw.WriteBuffered(rec); err != nil {
		fw.Close()
		return err
	}
	if err := fw.Close(); err != nil {
		return err
	}
	w.ratio = float64(cw.n) / float64(max(raw, 1))
	w.ratio = min(max(w.ratio, 1e-3), 1)
	return nil
}

// rawSize is the plain-encoded size of the rows of d (slice-aware): value
// width times rows for fixed-width types, value bytes plus a 4-byte length
// per row for strings and binaries, nested types summed over the children
// rows they reach. Other layouts count their buffers in proportion to rows.
func rawSize(d arrow.ArrayData) int64 {
	n, off := int64(d.Len()), int64(d.Offset())
	bufs := d.Buffers()
	switch t := d.DataType().(type) {
	case *arrow.BooleanType:
		return (n + 7) / 8
	case arrow.FixedWidthDataType:
		return n * int64(t.BitWidth()) / 8
	case *arrow.StringType, *arrow.BinaryType:
		lo, hi, ok := offsetRange(bufs, off, n)
		if !ok {
			break
		}
		return hi - lo + 4*n
	case *arrow.ListType, *arrow.MapType:
		lo, hi, ok := offsetRange(bufs, off, n)
		if !ok || len(d.Children()) != 1 {
			break
		}
		ch := d.Children()[0]
		if hi > int64(ch.Len()) {
			break
		}
		s := array.NewSliceData(ch, lo, hi)
		defer s.Release()
		return rawSize(s)
	case *arrow.StructType:
		var sum int64
		for _, ch := range d.Children() {
			if off+n > int64(ch.Len()) {
				return wholeSize(d)
			}
			s := array.NewSliceData(ch, off, off+n)
			sum += rawSize(s)
			s.Release()
		}
		return sum
	}
	return wholeSize(d)
}

// offsetRange returns the first and end value offsets of rows
// [off, off+n) from the int32 offsets buffer bufs[1].
func offsetRange(bufs []*memory.Buffer, off, n int64) (int64, int64, bool) {
	if len(bufs) < 2 || bufs[1] == nil {
		return 0, 0, false
	}
	offs := arrow.Int32Traits.CastFromBytes(bufs[1].Bytes())
	if off+n >= int64(len(offs)) || off < 0 {
		return 0, 0, false
	}
	lo, hi := int64(offs[off]), int64(offs[off+n])
	if hi < lo || lo < 0 {
		return 0, 0, false
	}
	return lo, hi, true
}

// wholeSize is d's buffer bytes, children included, scaled by the share of
// rows d covers in its buffers.
func wholeSize(d arrow.ArrayData) int64 {
	var n int64
	for _, b := range d.Buffers() {
		if b != nil {
			n += int64(b.Len())
		}
	}
	for _, ch := range d.Children() {
		n += wholeSize(ch)
	}
	if total := int64(d.Offset() + d.Len()); total > 0 {
		n = n * int64(d.Len()) / total
	}
	return n
}

// rowGroupEstimate estimates the open row group's size in the file:
// compressed pages already cut plus the rows still in the encoders, whose
// raw size is scaled by the file's bytes-per-raw-byte ratio. Pages are cut
// per leaf at page-size raw bytes, so whole pages of each field's raw bytes
// count as cut; the ratio is learned from them (cut compressed bytes over
// their raw bytes) once any exist, from the probe of the first batch before.
func (w *Writer) rowGroupEstimate() int64 {
	w.resolveProbe()
	return w.rowGroupEstimateWith(w.ratio)
}

// rowGroupBound is an upper bound of rowGroupEstimate that needs no probe:
// the estimate with the ratio's largest value, 1 (the probe's ratio is
// clamped to at most 1, and the estimate grows with the ratio).
func (w *Writer) rowGroupBound() int64 { return w.rowGroupEstimateWith(1) }

// rowGroupEstimateWith is rowGroupEstimate with the given prior ratio
// (0: none yet).
func (w *Writer) rowGroupEstimateWith(prior float64) int64 {
	var cut int64
	if w.fw != nil {
		cut = w.fw.RowGroupTotalCompressedBytes()
	}
	var flushed int64
	for i, raw := range w.fieldRaw {
		l := int64(w.leaves[i])
		per := raw / l
		flushed += per / w.cfg.pageSize * w.cfg.pageSize * l
	}
	flushed = min(flushed, w.rgRaw)
	ratio := prior
	if ratio == 0 {
		ratio = 1
	}
	if cut > 0 && flushed > 0 {
		ratio = max(ratio, float64(cut)/float64(flushed))
	}
	return cut + int64(float64(w.rgRaw-flushed)*ratio)
}

// EstimatedSize returns an estimate of the file size in bytes if it were
// closed now (without the footer): bytes already written plus the open row
// group's estimate (compressed pages cut, encoder contents scaled to file
// bytes; see rowGroupEstimate). Like Java's ParquetWriter.getDataSize it is
// what the rolling writer compares with target-file-size.
//
// The first call after a larger batch than any before encodes up to 32,768
// rows of it into a scratch file to learn the compression ratio; callers
// that only compare with a limit should compare MaxEstimatedSize first.
func (w *Writer) EstimatedSize() int64 {
	if w.closed {
		return w.cw.n
	}
	if w.rollPending {
		return w.cw.n + w.fw.RowGroupTotalCompressedBytes()
	}
	est := w.rowGroupEstimate() // may start the file: written() after it
	return w.written() + est
}

// MaxEstimatedSize returns an upper bound of EstimatedSize that costs
// no encoding: the same estimate with every raw byte still held in the
// encoders counted as one file byte (plain-encoded size; Parquet's
// compression ratio is at most 1 by the estimate's definition). When it is
// below a limit, so is EstimatedSize, which then need not be computed.
func (w *Writer) MaxEstimatedSize() int64 {
	if w.closed {
		return w.cw.n
	}
	if w.rollPending {
		return w.cw.n + w.fw.RowGroupTotalCompressedBytes()
	}
	return w.written() + w.rowGroupBound()
}

// Abort gives up the file: it releases the batches the Writer still
// references (the rows held back for the dictionary decision, the probe's
// batch) without writing anything more. The Writer is unusable afterwards;
// the caller discards what was written to the underlying io.Writer.
func (w *Writer) Abort() {
	if w.closed {
		return
	}
	w.closed = true
	w.releaseProbe()
	for _, r := range w.head {
		r.Release()
	}
	w.head = nil
}

// RowCount returns the number of rows written so far.
func (w *Writer) RowCount() int64 { return w.rows }

// Close writes the footer and returns the file's row count, size and
// per-field statistics: min/max/null count from the footer for primitive
// columns (merged over row groups, as Java's ParquetSimpleStatsExtractor),
// null counts for nested columns, min/max of TIMESTAMP(p > 6) from the data
// (the footer has none for INT96); float columns holding NaN get no min/max.
// Close does not close the underlying io.Writer.
func (w *Writer) Close(ctx context.Context) (format.WriteResult, error) {
	if w.closed {
		return format.WriteResult{}, fmt.Errorf("parquet: %s: Close called twice", w.name)
	}
	w.releaseProbe()
	if w.failed == nil && w.fw == nil {
		if err := w.start(); err != nil {
			w.fail(err)
		}
	}
	w.closed = true
	for _, r := range w.head {
		r.Release()
	}
	w.head = nil
	if w.failed != nil {
		return format.WriteResult{}, w.failed
	}
	if err := w.fw.Close(); err != nil {
		return format.WriteResult{}, fmt.Errorf("parquet: %s: close: %w", w.name, err)
	}
	md, err := w.fw.FileMetadata()
	if err != nil {
		return format.WriteResult{}, fmt.Errorf("parquet: %s: footer: %w", w.name, err)
	}
	res := format.WriteResult{RowCount: w.rows, FileSize: w.cw.n, Stats: w.stats(md)}
	return res, ctx.Err()
}

func (w *Writer) stats(md *metadata.FileMetaData) []format.ColumnStats {
	out := make([]format.ColumnStats, len(w.fields))
	leaf := 0
	for i, f := range w.fields {
		cc := w.cols[i]
		st := format.ColumnStats{NullCount: cc.nulls, NullCountKnown: true}
		switch {
		case w.leaves[i] != 1 || f.Type.Kind == types.KindVariant:
			// nested: null count only
		case (f.Type.Kind == types.KindTimestamp || f.Type.Kind == types.KindLocalZonedTimestamp) && f.Type.Precision > 6:
			if cc.hasTS {
				st.Min, st.Max = tsFromNanos(cc.lo), tsFromNanos(cc.hi)
			}
		default:
			st = w.footerStats(md, leaf, f.Type)
			st.NullCount, st.NullCountKnown = cc.nulls, true
			if cc.nan {
				st.Min, st.Max = nil, nil
			}
		}
		out[i] = st
		leaf += w.leaves[i]
	}
	return out
}

// footerStats merges the min/max footer statistics of leaf column c over
// all row groups; a row group without min/max but with non-null values makes
// them unknown.
func (w *Writer) footerStats(md *metadata.FileMetaData, c int, t types.DataType) format.ColumnStats {
	var merged format.ColumnStats
	minKnown := true
	for g := range md.NumRowGroups() {
		rg := md.RowGroup(g)
		cc, err := rg.ColumnChunk(c)
		if err != nil {
			return format.ColumnStats{}
		}
		st := chunkStats(cc, md.Schema.Column(c), t)
		if st.Min == nil {
			if st.NullCount != rg.NumRows() || !st.NullCountKnown {
				minKnown = false
			}
			continue
		}
		if merged.Min == nil || types.Compare(t, st.Min, merged.Min) < 0 {
			merged.Min = st.Min
		}
		if merged.Max == nil || types.Compare(t, st.Max, merged.Max) > 0 {
			merged.Max = st.Max
		}
	}
	if !minKnown {
		merged.Min, merged.Max = nil, nil
	}
	return merged
}

func tsFromNanos(n int64) types.Timestamp {
	return types.Timestamp{Millis: floorDiv(n, nanosPerMilli), NanoOfMilli: int32(floorMod(n, nanosPerMilli))}
}

// countingWriter counts the bytes written through it; it deliberately has
// no Close so that pqarrow does not close the caller's writer.
type countingWriter struct {
	w io.Writer
	n int64
}

func (c *countingWriter) Write(p []byte) (int, error) {
	n, err := c.w.Write(p)
	c.n += int64(n)
	return n, err
}

var (
	_ format.Writer = (*Writer)(nil)
	_ format.Format = Format{}
)

// Format is the Parquet implementation of format.Format (Java
// ParquetFileFormat). Its zero value is ready to use.
type Format struct{}

// Name returns "parquet".
func (Format) Name() string { return "parquet" }

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
