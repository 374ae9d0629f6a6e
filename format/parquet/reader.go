package parquet

import (
	"context"
	"errors"
	"fmt"
	"io"
	"strings"
	"sync"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"
	"github.com/apache/arrow-go/v18/arrow/memory"
	"github.com/apache/arrow-go/v18/parquet"
	"github.com/apache/arrow-go/v18/parquet/compress"
	"github.com/apache/arrow-go/v18/parquet/file"
	"github.com/apache/arrow-go/v18/parquet/metadata"
	"github.com/apache/arrow-go/v18/parquet/pqarrow"

	"github.com/paimon-go/paimon/format"
	"github.com/paimon-go/paimon/types"
)

// Reader reads one Parquet data file as Arrow record batches of schema
// types.SchemaToArrow(want). It implements format.Reader; it mirrors Java's
// ParquetReaderFactory / VectorizedParquetRecordReader.
//
// A Reader is not safe for concurrent use.
type Reader struct {
	name   string
	src    *trackingReaderAt
	pf     *file.Reader
	fr     *pqarrow.FileReader
	md     *metadata.FileMetaData
	want   []types.DataField
	schema *arrow.Schema
	cols   []readColumn
	opts   format.ReadOptions
	mem    memory.Allocator
	batch  int64

	// rgFirst[i] is the file row position of row group i's first row.
	rgFirst []int64
	nextRG  int
	cur     *rowGroupState
	closed  bool
	failed  error // first error of Next; returned again by later calls
}

var _ format.Reader = (*Reader)(nil)

// readColumn is the plan for one wanted field.
type readColumn struct {
	want  types.DataField
	wt    arrow.DataType
	field int                  // index in the manifest's top-level fields, -1 when missing
	sf    *pqarrow.SchemaField // file node, nil when missing
	// leaves are the leaf column indexes to read; int96 the INT96 leaves
	// among them with their slot definition levels.
	leaves map[int]bool
	int96  map[int]int16
	// statsLeaf is the leaf column index whose footer statistics describe
	// the column (top-level primitive columns), else -1.
	statsLeaf int
}

type rowGroupState struct {
	index   int
	first   int64
	rows    int64
	read    int64
	readers []*pqarrow.ColumnReader
	int96   map[int]*int96Stream
}

// NewReader opens the Parquet file f (named fileName in errors) for reading
// the fields want, in that order.
//
// Columns are matched to want by Parquet field id when the file's top-level
// columns carry ids (every file written by Java Paimon 0.9+ and by this
// package), else by name; nested ROW fields likewise. Fields missing from
// the file read as nulls (added columns); columns of another primitive type
// are cast to the wanted type (INT -> BIGINT, FLOAT -> DOUBLE, ...). Only
// the leaves of wanted fields are read.
//
// Errors: format.ErrCorrupt when the footer or schema cannot be decoded,
// format.ErrSchemaMismatch when a wanted field's file column cannot be
// converted, format.ErrUnsupportedFormat for types Parquet cannot hold; an
// I/O error of f is returned wrapped as is.
func NewReader(ctx context.Context, f format.File, fileName string, want []types.DataField, opts format.ReadOptions) (r *Reader, err error) {
	if err := ctx.Err(); err != nil {
		return nil, err
	}
	src := &trackingReaderAt{r: f}
	defer guard(fileName, src, &err)
	mem := opts.Allocator
	if mem == nil {
		mem = memory.DefaultAllocator
	}
	size := f.Size()
	props := parquet.NewReaderProperties(mem)
	pf, err := file.NewParquetReader(io.NewSectionReader(src, 0, size), file.WithReadProps(props))
	if err != nil {
		return nil, src.wrap(fileName, "open footer", err)
	}
	// Page headers declare their uncompressed size and arrow-go allocates it before
	// decompressing: bound it by the file's budget, shared by its columns.
	props.MaxUncompressedPageSize = maxPageSize(size, pf.MetaData().Schema.NumColumns())
	r = &Reader{name: fileName, src: src, pf: pf, md: pf.MetaData(), want: want, opts: opts, mem: mem}
	if err := r.validate(size); err != nil {
		pf.Close()
		return nil, err
	}
	r.fr, err = pqarrow.NewFileReader(pf, pqarrow.ArrowReadProperties{}, mem)
	if err != nil {
		pf.Close()
		return nil, fmt.Errorf("%w: %s: schema: %v", format.ErrCorrupt, fileName, err)
	}
	// Derive the Arrow types from the Parquet schema alone: an ARROW:schema
	// entry some writers store (Polars, pyarrow) would bring large_utf8,
	// dictionaries and other layouts the Paimon mapping does not use.
	r.fr.Manifest, err = pqarrow.NewSchemaManifest(r.md.Schema, nil, &pqarrow.ArrowReadProperties{})
	if err != nil {
		pf.Close()
		return nil, fmt.Errorf("%w: %s: schema: %v", format.ErrCorrupt, fileName, err)
	}
	r.batch = int64(opts.BatchSize)
	if r.batch <= 0 {
		r.batch = format.DefaultBatchSize
	}
	r.schema = types.SchemaToArrow(want)
	if err := r.plan(); err != nil {
		pf.Close()
		return nil, err
	}
	return r, nil
}

// validate checks the footer numbers arrow-go trusts when it seeks and
// allocates: row counts and column chunk byte ranges.
func (r *Reader) validate(size int64) error {
	var total int64
	r.rgFirst = make([]int64, r.md.NumRowGroups())
	for i := range r.md.NumRowGroups() {
		rg := r.md.RowGroup(i)
		if rg.NumRows() < 0 {
			return fmt.Errorf("%w: %s: row group %d has %d rows", format.ErrCorrupt, r.name, i, rg.NumRows())
		}
		if rg.NumColumns() != r.md.Schema.NumColumns() {
			return fmt.Errorf("%w: %s: row group %d has %d columns, schema %d", format.ErrCorrupt, r.name, i, rg.NumColumns(), r.md.Schema.NumColumns())
		}
		r.rgFirst[i] = total
		total += rg.NumRows()
		for c := range rg.NumColumns() {
			cc, err := rg.ColumnChunk(c)
			if err != nil {
				return fmt.Errorf("%w: %s: row group %d column %d: %v", format.ErrCorrupt, r.name, i, c, err)
			}
			start := cc.DataPageOffset()
			if cc.HasDictionaryPage() && cc.DictionaryPageOffset() > 0 && cc.DictionaryPageOffset() < start {
				start = cc.DictionaryPageOffset()
			}
			if !readableCodec(cc.Compression()) {
				return fmt.Errorf("%w: %s: row group %d column %d: compression codec %s",
					format.ErrUnsupportedFormat, r.name, i, c, cc.Compression())
			}
			n := cc.TotalCompressedSize()
			if start < 4 || n < 0 || start > size || n > size-start {
				return fmt.Errorf("%w: %s: row group %d column %d: bytes [%d, +%d) outside the file of %d bytes",
					format.ErrCorrupt, r.name, i, c, start, n, size)
			}
		}
	}
	if total != r.md.NumRows {
		return fmt.Errorf("%w: %s: row groups hold %d rows, footer says %d", format.ErrCorrupt, r.name, total, r.md.NumRows)
	}
	return nil
}

// readableCodec reports whether the codec is decoded: arrow-go's codecs and
// LZ4 (the deprecated Hadoop-framed LZ4 that parquet-mr writes for "lz4",
// lz4HadoopCodec). LZO is not.
func readableCodec(c compress.Compression) bool {
	switch c {
	case compress.Codecs.Uncompressed, compress.Codecs.Snappy, compress.Codecs.Gzip,
		compress.Codecs.Brotli, compress.Codecs.Zstd, compress.Codecs.Lz4Raw, compress.Codecs.Lz4:
		return true
	}
	return false
}

// plan matches want to the file's top-level fields and rewrites INT96 leaves
// of wanted fields to arrow.Null in pqarrow's manifest (they are decoded by
// int96Stream instead).
func (r *Reader) plan() error {
	fields := r.fr.Manifest.Fields
	kids := make([]*pqarrow.SchemaField, len(fields))
	for i := range fields {
		kids[i] = &fields[i]
	}
	m := newMatcher(kids)
	r.cols = make([]readColumn, len(r.want))
	for i, wf := range r.want {
		if err := checkReadable(wf.Type); err != nil {
			return fmt.Errorf("%s: field %q: %w", r.name, wf.Name, err)
		}
		col := readColumn{want: wf, wt: r.schema.Field(i).Type, field: -1, statsLeaf: -1}
		if j := m.find(wf); j >= 0 {
			col.field, col.sf = j, kids[j]
			col.leaves = map[int]bool{}
			selectLeaves(col.sf, wf.Type, col.leaves)
			col.int96 = map[int]int16{}
			r.nullifyInt96(col.sf, col.leaves, col.int96)
			if len(col.sf.Children) == 0 {
				col.statsLeaf = col.sf.ColIndex
			}
		}
		r.cols[i] = col
	}
	return nil
}

// checkReadable rejects kinds that have no Parquet representation.
func checkReadable(t types.DataType) error {
	switch t.Kind {
	case types.KindArray, types.KindMultiset:
		if t.Elem == nil {
			return fmt.Errorf("%w: %s without element type", format.ErrSchemaMismatch, t)
		}
		return checkReadable(*t.Elem)
	case types.KindMap:
		if t.Key == nil || t.Value == nil {
			return fmt.Errorf("%w: MAP without key or value type", format.ErrSchemaMismatch)
		}
		if err := checkReadable(*t.Key); err != nil {
			return err
		}
		return checkReadable(*t.Value)
	case types.KindRow:
		for _, f := range t.Fields {
			if err := checkReadable(f.Type); err != nil {
				return err
			}
		}
		return nil
	case types.KindInvalid:
		return fmt.Errorf("%w: invalid type", format.ErrSchemaMismatch)
	}
	return nil
}

// selectLeaves adds the leaf column indexes under sf that are needed for
// want: all leaves for lists, maps and primitives; for ROW only the leaves
// of matched children, or the first leaf when none matches (to keep the
// row's own null bitmap).
func selectLeaves(sf *pqarrow.SchemaField, want types.DataType, out map[int]bool) {
	if len(sf.Children) == 0 {
		out[sf.ColIndex] = true
		return
	}
	if want.Kind != types.KindRow {
		allLeaves(sf, out)
		return
	}
	kids := make([]*pqarrow.SchemaField, len(sf.Children))
	for i := range sf.Children {
		kids[i] = &sf.Children[i]
	}
	m := newMatcher(kids)
	matched := false
	for _, f := range want.Fields {
		if j := m.find(f); j >= 0 {
			selectLeaves(kids[j], f.Type, out)
			matched = true
		}
	}
	if !matched {
		firstLeaf(sf, out)
	}
}

func allLeaves(sf *pqarrow.SchemaField, out map[int]bool) {
	if len(sf.Children) == 0 {
		out[sf.ColIndex] = true
		return
	}
	for i := range sf.Children {
		allLeaves(&sf.Children[i], out)
	}
}

func firstLeaf(sf *pqarrow.SchemaField, out map[int]bool) {
	for len(sf.Children) > 0 {
		sf = &sf.Children[0]
	}
	out[sf.ColIndex] = true
}

// nullifyInt96 replaces the Arrow type of every read INT96 leaf under sf by
// arrow.Null (pqarrow then only counts its slots) and recomputes the types
// of its ancestors; it records the leaves with their slot definition level.
// It reports whether sf's type changed.
func (r *Reader) nullifyInt96(sf *pqarrow.SchemaField, leaves map[int]bool, int96 map[int]int16) bool {
	if len(sf.Children) == 0 {
		if !leaves[sf.ColIndex] || r.md.Schema.Column(sf.ColIndex).PhysicalType() != parquet.Types.Int96 {
			return false
		}
		int96[sf.ColIndex] = sf.LevelInfo.RepeatedAncestorDefLevel
		f := *sf.Field
		f.Type = arrow.Null
		sf.Field = &f
		return true
	}
	changed := false
	for i := range sf.Children {
		if r.nullifyInt96(&sf.Children[i], leaves, int96) {
			changed = true
		}
	}
	if !changed {
		return false
	}
	f := *sf.Field
	switch sf.Field.Type.ID() {
	case arrow.STRUCT:
		fs := make([]arrow.Field, len(sf.Children))
		for i := range sf.Children {
			fs[i] = *sf.Children[i].Field
		}
		f.Type = arrow.StructOf(fs...)
	case arrow.LIST:
		f.Type = arrow.ListOfField(*sf.Children[0].Field)
	case arrow.MAP:
		kv := sf.Children[0].Children
		f.Type = arrow.MapOfFields(*kv[0].Field, *kv[1].Field)
	default:
		return false
	}
	sf.Field = &f
	return true
}

// Schema returns the Arrow schema of the batches, types.SchemaToArrow(want).
func (r *Reader) Schema() *arrow.Schema { return r.schema }

// NumRows returns the number of rows in the file.
func (r *Reader) NumRows() int64 { return r.md.NumRows }

// NumRowGroups returns the number of row groups in the file.
func (r *Reader) NumRowGroups() int { return r.md.NumRowGroups() }

// RowGroupStats returns the statistics of row group i for the wanted
// fields, as passed to format.ReadOptions.RowGroupFilter.
func (r *Reader) RowGroupStats(i int) format.RowGroupStats {
	rg := r.md.RowGroup(i)
	st := format.RowGroupStats{Index: i, FirstRow: r.rgFirst[i], NumRows: rg.NumRows(), Columns: make([]format.ColumnStats, len(r.cols))}
	for c, col := range r.cols {
		switch {
		case col.sf == nil:
			st.Columns[c] = format.ColumnStats{NullCount: rg.NumRows(), NullCountKnown: true}
		case col.statsLeaf >= 0:
			cc, err := rg.ColumnChunk(col.statsLeaf)
			if err == nil {
				st.Columns[c] = chunkStats(cc, r.md.Schema.Column(col.statsLeaf), col.want.Type)
			}
		}
	}
	return st
}

// Next returns the next batch of at most BatchSize rows, or io.EOF. Batches
// never span row groups; Batch.FirstRow counts skipped row groups too. After
// an error (other than a canceled context) the reader keeps returning it.
func (r *Reader) Next(ctx context.Context) (b format.Batch, err error) {
	if r.closed {
		return b, fmt.Errorf("parquet: %s: Next after Close", r.name)
	}
	if r.failed != nil {
		return b, r.failed
	}
	if err := ctx.Err(); err != nil {
		return b, err
	}
	defer func() {
		if err != nil && err != io.EOF {
			r.failed = err
		}
	}()
	defer guard(r.name, r.src, &err)
	for {
		if r.cur == nil {
			if r.nextRG >= r.md.NumRowGroups() {
				return b, io.EOF
			}
			i := r.nextRG
			r.nextRG++
			if r.md.RowGroup(i).NumRows() == 0 {
				continue
			}
			if r.opts.RowGroupFilter != nil && !r.opts.RowGroupFilter(r.RowGroupStats(i)) {
				continue
			}
			if err := r.openRowGroup(ctx, i); err != nil {
				return b, err
			}
		}
		if r.cur.read >= r.cur.rows {
			r.closeRowGroup()
			continue
		}
		return r.readBatch()
	}
}

func (r *Reader) openRowGroup(ctx context.Context, i int) error {
	st := &rowGroupState{index: i, first: r.rgFirst[i], rows: r.md.RowGroup(i).NumRows(),
		readers: make([]*pqarrow.ColumnReader, len(r.cols)), int96: map[int]*int96Stream{}}
	r.cur = st
	rgr := r.pf.RowGroup(i)
	for c, col := range r.cols {
		if col.sf == nil {
			continue
		}
		cr, err := r.fr.GetFieldReader(ctx, col.field, col.leaves, []int{i})
		if err != nil {
			return r.src.wrap(r.name, fmt.Sprintf("row group %d column %s", i, col.want.Name), err)
		}
		if cr == nil {
			return fmt.Errorf("%w: %s: row group %d: no reader for column %s", format.ErrCorrupt, r.name, i, col.want.Name)
		}
		st.readers[c] = cr
		for leaf, slotDef := range col.int96 {
			ccr, err := rgr.Column(leaf)
			if err != nil {
				return r.src.wrap(r.name, fmt.Sprintf("row group %d column %s", i, col.want.Name), err)
			}
			ir, ok := ccr.(*file.Int96ColumnChunkReader)
			if !ok {
				return fmt.Errorf("%w: %s: column %d is not INT96", format.ErrCorrupt, r.name, leaf)
			}
			st.int96[leaf] = newInt96Stream(ir, slotDef)
		}
	}
	return nil
}

func (r *Reader) closeRowGroup() {
	if r.cur == nil {
		return
	}
	for _, cr := range r.cur.readers {
		if cr != nil {
			cr.Release()
		}
	}
	for _, s := range r.cur.int96 {
		s.rdr.Close()
	}
	r.cur = nil
}

func (r *Reader) readBatch() (format.Batch, error) {
	st := r.cur
	n := min(r.batch, st.rows-st.read)
	cols := make([]arrow.Array, len(r.cols))
	defer func() {
		for _, a := range cols {
			if a != nil {
				a.Release()
			}
		}
	}()
	for c, col := range r.cols {
		if col.sf == nil {
			cols[c] = array.MakeArrayOfNull(r.mem, col.wt, int(n))
			continue
		}
		d, err := r.readColumn(st, c, n)
		if err != nil {
			return format.Batch{}, err
		}
		cols[c] = array.MakeFromData(d)
		d.Release()
	}
	rec := array.NewRecordBatch(r.schema, cols, n)
	b := format.Batch{Record: rec, FirstRow: st.first + st.read}
	st.read += n
	return b, nil
}

func (r *Reader) readColumn(st *rowGroupState, c int, n int64) (arrow.ArrayData, error) {
	col := r.cols[c]
	where := fmt.Sprintf("row group %d column %s", st.index, col.want.Name)
	chunked, err := st.readers[c].NextBatch(n)
	if err != nil {
		return nil, r.src.wrap(r.name, where, err)
	}
	defer chunked.Release()
	if int64(chunked.Len()) != n {
		return nil, fmt.Errorf("%w: %s: %s: decoded %d rows, expected %d", format.ErrCorrupt, r.name, where, chunked.Len(), n)
	}
	var arr arrow.Array
	switch len(chunked.Chunks()) {
	case 1:
		arr = chunked.Chunk(0)
		arr.Retain()
	default:
		arr, err = array.Concatenate(chunked.Chunks(), r.mem)
		if err != nil {
			return nil, fmt.Errorf("%w: %s: %s: %v", format.ErrCorrupt, r.name, where, err)
		}
	}
	defer arr.Release()
	cf := &conformer{mem: r.mem, fileName: r.name, included: col.leaves}
	if len(col.int96) > 0 {
		cf.int96 = make(map[int]int96Slots, len(col.int96))
		for leaf := range col.int96 {
			vals, valid, err := st.int96[leaf].take(n)
			if err != nil {
				return nil, fmt.Errorf("%s: %s: %w", r.name, where, err)
			}
			cf.int96[leaf] = int96Slots{vals: vals, valid: valid}
		}
	}
	return cf.conform(arr.Data(), col.sf, col.want.Type, col.wt, col.want.Name)
}

// Close releases the reader. It does not close the underlying file.
func (r *Reader) Close() error {
	if r.closed {
		return nil
	}
	r.closed = true
	r.closeRowGroup()
	return nil
}

// trackingReaderAt remembers the first I/O error of the underlying file so
// that a failure inside arrow-go can be reported as that I/O error rather
// than as corruption.
type trackingReaderAt struct {
	r   io.ReaderAt
	mu  sync.Mutex
	err error
}

func (t *trackingReaderAt) ReadAt(p []byte, off int64) (int, error) {
	n, err := t.r.ReadAt(p, off)
	if err != nil && !errors.Is(err, io.EOF) {
		t.mu.Lock()
		if t.err == nil {
			t.err = err
		}
		t.mu.Unlock()
	}
	return n, err
}

func (t *trackingReaderAt) ioErr() error {
	t.mu.Lock()
	defer t.mu.Unlock()
	return t.err
}

// wrap classifies an error coming out of arrow-go: the file's own I/O error
// if one happened, format.ErrCorrupt otherwise.
func (t *trackingReaderAt) wrap(name, where string, err error) error {
	if ioErr := t.ioErr(); ioErr != nil {
		return fmt.Errorf("parquet: %s: %s: %w", name, where, ioErr)
	}
	if msg := err.Error(); strings.Contains(msg, "uncompressed page size") && strings.Contains(msg, "exceeds configured limit") {
		return fmt.Errorf("%w: %s: %s: %v", format.ErrTooLarge, name, where, err)
	}
	if errors.Is(err, format.ErrCorrupt) || errors.Is(err, format.ErrSchemaMismatch) ||
		errors.Is(err, format.ErrOutOfRange) || errors.Is(err, format.ErrUnsupportedFormat) {
		return err
	}
	return fmt.Errorf("%w: %s: %s: %v", format.ErrCorrupt, name, where, err)
}

// guard is deferred at the package boundary (NewReader, Next). Footer
// numbers we can check are checked in validate, but arrow-go decodes the
// Thrift footer, the schema and every page header itself and panics on
// some damaged input instead of returning an error. Flipping every byte of
// two fixture files (corrupt_test.go TestBitFlips) hit, inside arrow-go:
// nil dereferences in generated Thrift page-header code, "invalid logical
// type" and "TimeUnit must be one of ..." while building the schema,
// makeslice with a damaged length, "values read exceeded upper bound" in
// level decoding, "dictionary decoding unimplemented for bool". None of
// these can be validated from outside without re-implementing the footer
// and page parsing, so as a last resort a panic is turned into an error
// wrapping format.ErrCorrupt naming the file (or into the file's I/O error
// when one happened). Our own code returns errors and does not rely on it.
// It cannot catch panics on goroutines arrow-go starts itself, which is
// why Arrow compute casts are not used (see package format/cast).
func guard(name string, src *trackingReaderAt, err *error) {
	if p := recover(); p != nil {
		if ioErr := src.ioErr(); ioErr != nil {
			*err = fmt.Errorf("parquet: %s: %w", name, ioErr)
			return
		}
		*err = fmt.Errorf("%w: %s: decoder failure: %v", format.ErrCorrupt, name, p)
	}
}

// maxPageSize is the largest uncompressed page a file of size bytes with columns leaf columns
// may declare: its format.DecodeBudget shared by the columns, at least 1 MiB (Java's default
// page size) and at most arrow-go's default of 256 MiB. A larger page fails with
// format.ErrTooLarge.
func maxPageSize(size int64, columns int) int64 {
	return min(parquet.DefaultMaxUncompressedPageSize, max(1<<20, format.DecodeBudget(size)/int64(max(columns, 1))))
}
