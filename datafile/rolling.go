package datafile

import (
	"context"
	"errors"
	"fmt"
	"io"
	"strconv"
	"strings"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"

	"github.com/paimon-go/paimon/fileindex"
	"github.com/paimon-go/paimon/fileio"
	"github.com/paimon-go/paimon/format"
	"github.com/paimon-go/paimon/manifest"
	"github.com/paimon-go/paimon/row"
	"github.com/paimon-go/paimon/types"
)

// rollCheckRows is how many rows are written between two checks of the
// target file size when a batch would overshoot it (Java's RollingFileWriter
// checks every 1000 records).
const rollCheckRows = 1000

// Row kinds of the _VALUE_KIND column that are retractions (Java RowKind
// UPDATE_BEFORE and DELETE), counted as the delete row count.
const (
	kindUpdateBefore = 1
	kindDelete       = 3
)

// Namer hands out the data file names of one bucket writer:
// "<data-file.prefix><uuid>-<n>.<format>" with n counting from 0 (Java
// DataFilePathFactory.newPath, one uuid per factory), and, for tables that
// write to data-file.external-paths, holds the position of the
// round-robin over the roots (Java's ExternalPathProvider of the factory).
// It is not safe for concurrent use.
type Namer struct {
	uuid    string
	count   int
	pos     int  // last external root chosen
	started bool // pos is set
}

// NewNamer returns a Namer with the given uuid (a random UUID string, as
// Java's UUID.randomUUID).
func NewNamer(uuid string) *Namer { return &Namer{uuid: uuid} }

func (n *Namer) next(l *Layout) string {
	name := l.prefix + n.uuid + "-" + strconv.Itoa(n.count) + "." + l.format
	n.count++
	return name
}

// fileWriter is a format writer with the two extras the rolling writer
// uses: a cheap upper bound of the size estimate and Abort.
type fileWriter interface {
	format.Writer
	// MaxEstimatedSize bounds EstimatedSize from above at no cost.
	MaxEstimatedSize() int64
	// Abort drops the file being written.
	Abort()
}

// asFileWriter adapts a format writer without those extras: its
// EstimatedSize is the bound and Abort does nothing.
func asFileWriter(w format.Writer) fileWriter {
	if fw, ok := w.(fileWriter); ok {
		return fw
	}
	return plainWriter{w}
}

type plainWriter struct{ format.Writer }

func (p plainWriter) MaxEstimatedSize() int64 { return p.EstimatedSize() }
func (plainWriter) Abort()                    {}

// RollingWriter writes the data files of one bucket with one Layout, rolling
// to a new file whenever the open file's estimated size reaches
// target-file-size (Java RollingFileWriter over RowDataFileWriter or
// KeyValueDataFileWriter). Files it finished are held until Flush hands
// them out; Abort deletes them. It is not safe for concurrent use.
type RollingWriter struct {
	fio    *fileio.FileIO
	dir    string
	layout *Layout
	names  *Namer
	cur    *openFile
	done   []manifest.DataFileMeta // finished, not yet handed out
	seq    int64                   // next sequence number of append rows
	rows   *RowsHook               // nil: no file's rows are handed over
}

// RowsHook receives the rows of each file a RollingWriter finishes, as it
// wrote them (RollingWriter.HandRows).
type RowsHook struct {
	// MaxBytes bounds the bytes (RecordSize) of one file's rows held while
	// the file is written; a file with more is finished without its rows
	// handed over.
	MaxBytes int64
	// Fn is called once per file finished in the table's store (not at an
	// external location) with the file's path relative to the writer's
	// FileIO and its rows in the order written, in the Layout's columns.
	// The batches are the writer's: Fn retains what it keeps.
	Fn func(path string, rows []arrow.RecordBatch)
}

// openFile is the data file being written.
type openFile struct {
	name, path     string  // path: relative to the writer's FileIO, or the external location
	ext            *string // the external location (_EXTERNAL_PATH), nil in the table
	fio            *fileio.FileIO
	rel            string       // path relative to fio (the table's, or the external location's)
	done           func() error // releases the FileIO of an external location
	out            io.WriteCloser
	fw             fileWriter
	minSeq, maxSeq int64
	deletes        int64
	minKey, maxKey []any               // key-value files: first and last key
	blooms         []*fileindex.Bloom  // per Layout.blooms, nil before the first row
	rows           []arrow.RecordBatch // retained for RollingWriter.rows
	rowBytes       int64               // RecordSize of rows; -1: over the bound, not held
}

// hold retains part for the rows hook, or gives up on the file's rows once
// they pass the hook's bound.
func (f *openFile) hold(h *RowsHook, part arrow.RecordBatch) {
	if h == nil || f.rowBytes < 0 || f.ext != nil {
		return
	}
	f.rowBytes += RecordSize(part)
	if f.rowBytes > h.MaxBytes {
		f.dropRows()
		f.rowBytes = -1
		return
	}
	part.Retain()
	f.rows = append(f.rows, part)
}

// dropRows releases the rows held for the hook.
func (f *openFile) dropRows() {
	for _, r := range f.rows {
		r.Release()
	}
	f.rows = nil
}

// NewRollingWriter returns a writer of files of layout in dir (the bucket
// directory, relative to fio's root, without trailing slash) named by names.
// seq is the sequence number of the first row of append files, each row
// taking the next (key-value files take theirs from the _SEQUENCE_NUMBER
// column and ignore it).
func NewRollingWriter(fio *fileio.FileIO, dir string, layout *Layout, names *Namer, seq int64) *RollingWriter {
	return &RollingWriter{fio: fio, dir: dir, layout: layout, names: names, seq: seq}
}

// HandRows makes w hand the rows of every file it finishes from now on to
// h (nil: none), for a reader that would otherwise read the file back
// (reader.LookupCache.Offer). Holding a file's rows until it is finished
// costs their memory; h.MaxBytes bounds it.
func (w *RollingWriter) HandRows(h *RowsHook) { w.rows = h }

// NextSequenceNumber returns the sequence number the next append row
// written will get once its file is finished.
func (w *RollingWriter) NextSequenceNumber() int64 { return w.seq }

// open starts the next file, in the bucket directory or at the next
// external location.
func (w *RollingWriter) open(ctx context.Context) error {
	l := w.layout
	name := w.names.next(l)
	f := &openFile{name: name, path: w.dir + "/" + name, minSeq: -1, maxSeq: -1, done: func() error { return nil }}
	fio, rel := w.fio, f.path
	if l.ext != nil {
		loc := l.ext.place(w.names, w.dir, name)
		f.path, f.ext = loc, &loc
		var err error
		if fio, rel, f.done, err = w.fio.OpenLocation(ctx, loc); err != nil {
			return fmt.Errorf("datafile: create %s: %w", loc, err)
		}
	}
	out, err := fio.Create(ctx, rel)
	if err != nil {
		_ = f.done()
		return fmt.Errorf("datafile: create %s: %w", f.path, err)
	}
	f.fio, f.rel = fio, rel
	fw, err := l.ff.NewWriter(ctx, out, f.path, l.fields, format.WriteOptions{Options: l.options, Allocator: l.mem})
	if err != nil {
		abortOut(out)
		_ = f.done()
		return fmt.Errorf("datafile: %s: %w", f.path, err)
	}
	f.out, f.fw = out, asFileWriter(fw)
	w.cur = f
	return nil
}

// Locations returns where the data file f of the bucket directory dir
// (relative to the table root) and its extra files (a separate file index)
// are: dir/<name> for each, or, for a file with _EXTERNAL_PATH, that
// location verbatim and its extra files beside it, in the same spelling
// (Java DataFilePathFactory.toPath and toAlignedPath). external reports the
// second case. The directory is cut at the last '/', never cleaned, so
// "s3://bucket/key" and Java's "file:/abs" keep their form.
func Locations(dir string, f *manifest.DataFileMeta) (data string, extra []string, external bool) {
	if f.ExternalPath != nil && *f.ExternalPath != "" {
		loc := *f.ExternalPath
		base := loc[:strings.LastIndex(loc, "/")+1]
		for _, x := range f.ExtraFiles {
			extra = append(extra, base+x)
		}
		return loc, extra, true
	}
	for _, x := range f.ExtraFiles {
		extra = append(extra, dir+"/"+x)
	}
	return dir + "/" + f.FileName, extra, false
}

// Delete deletes the data file f of the bucket directory dir (relative to
// fio's root) and its extra files (a separate file index), where Locations
// puts them (external locations through fileio.FileIO.OpenLocation). A
// file already gone is no error; other errors name the file.
func Delete(ctx context.Context, fio *fileio.FileIO, dir string, f *manifest.DataFileMeta) error {
	data, extra, external := Locations(dir, f)
	var errs []error
	for _, p := range append(extra, data) {
		errs = append(errs, deleteAt(ctx, fio, p, external))
	}
	return errors.Join(errs...)
}

// DeleteLocation deletes the file p: a path relative to fio's root, or an
// absolute location in canonical form (fileio.IsLocation; Java's
// "file:/abs" spelling of _EXTERNAL_PATH is not recognised, give it to
// fileio.CanonicalLocation first). A file already gone is no error; other
// errors name the file.
func DeleteLocation(ctx context.Context, fio *fileio.FileIO, p string) error {
	return deleteAt(ctx, fio, p, fileio.IsLocation(p))
}

func deleteAt(ctx context.Context, fio *fileio.FileIO, p string, external bool) error {
	rel, done := p, func() error { return nil }
	if external {
		var err error
		if fio, rel, done, err = fio.OpenLocation(ctx, p); err != nil {
			return fmt.Errorf("datafile: delete %s: %w", p, err)
		}
	}
	defer done()
	if err := fio.Delete(ctx, rel); err != nil && !errors.Is(err, fileio.ErrNotExist) {
		return fmt.Errorf("datafile: delete %s: %w", p, err)
	}
	return nil
}

func abortOut(out io.WriteCloser) {
	if a, ok := out.(fileio.Aborter); ok {
		_ = a.Abort()
	}
	_ = out.Close()
}

// Write writes rec, whose columns are the layout's Fields (key-value
// batches sorted by key, as merges produce them), into the open file,
// opening one first if needed. While the rest of the batch fits below
// target-file-size by the estimate it is written at once, otherwise in steps
// of about the rows that still fit (at least 1000), checking the file size
// after each and rolling to a new file once it reaches the target. The
// caller may Release rec once Write returns; the Parquet writer may keep a
// reference to its (immutable) buffers until the file's first rows are
// encoded.
//
// Errors: ErrSchema for key-value batches whose system columns have other
// types; errors of creating or writing the file, naming it.
func (w *RollingWriter) Write(ctx context.Context, rec arrow.RecordBatch) error {
	n := rec.NumRows()
	size := RecordSize(rec)
	target := w.layout.target
	for off := int64(0); off < n; {
		if w.cur == nil {
			if err := w.open(ctx); err != nil {
				return err
			}
		}
		step := n - off
		// MaxEstimatedSize bounds EstimatedSize from above at no cost; only
		// files that may reach the target pay for the exact estimate.
		if size > 0 && w.cur.fw.MaxEstimatedSize()+size*step/n > target {
			if est := w.cur.fw.EstimatedSize(); est+size*step/n > target {
				// Write about as many rows as still fit, then check again.
				step = max(min((target-est)*n/size, step), min(rollCheckRows, step))
			}
		}
		end := off + step
		part := rec
		if off != 0 || end != n {
			part = rec.NewSlice(off, end)
		}
		err := w.track(part)
		if err == nil {
			err = w.addToBlooms(part)
		}
		if err == nil {
			err = w.cur.fw.Write(ctx, part)
		}
		if err == nil {
			w.cur.hold(w.rows, part)
		}
		if part != rec {
			part.Release()
		}
		if err != nil {
			return fmt.Errorf("datafile: write %s: %w", w.cur.path, err)
		}
		off = end
		if w.cur.fw.MaxEstimatedSize() >= target && w.cur.fw.EstimatedSize() >= target {
			if err := w.closeFile(ctx); err != nil {
				return err
			}
		}
	}
	return nil
}

// track records a slice's sequence range, retractions and keys for the open
// file (KeyValueDataFileWriter.write); append files need nothing.
func (w *RollingWriter) track(part arrow.RecordBatch) error {
	l, f := w.layout, w.cur
	n := int(part.NumRows())
	if n == 0 || !l.kv {
		return nil
	}
	seqs, ok := part.Column(l.nk).(*array.Int64)
	if !ok {
		return fmt.Errorf("%w: column %s is %s", ErrSchema, SequenceNumberColumn, part.Column(l.nk).DataType())
	}
	for _, s := range seqs.Int64Values() {
		if f.minSeq < 0 || s < f.minSeq {
			f.minSeq = s
		}
		if s > f.maxSeq {
			f.maxSeq = s
		}
	}
	kinds, ok := part.Column(l.nk + 1).(*array.Int8)
	if !ok {
		return fmt.Errorf("%w: column %s is %s", ErrSchema, ValueKindColumn, part.Column(l.nk+1).DataType())
	}
	for _, k := range kinds.Int8Values() {
		if k == kindUpdateBefore || k == kindDelete {
			f.deletes++
		}
	}
	var err error
	if f.minKey == nil {
		if f.minKey, err = keyAt(part, 0, l.keyTypes); err != nil {
			return err
		}
	}
	f.maxKey, err = keyAt(part, n-1, l.keyTypes)
	return err
}

// keyAt returns the key columns (the first len(keyTypes) columns) of row i.
func keyAt(rec arrow.RecordBatch, i int, keyTypes []types.DataType) ([]any, error) {
	out := make([]any, len(keyTypes))
	for k, t := range keyTypes {
		v, err := types.ArrowValue(t, rec.Column(k), i)
		if err != nil {
			return nil, fmt.Errorf("%w: key column %d: %w", ErrSchema, k, err)
		}
		out[k] = v
	}
	return out, nil
}

// closeFile finishes the open file and records its DataFileMeta
// (RowDataFileWriter.result / KeyValueDataFileWriter.result).
func (w *RollingWriter) closeFile(ctx context.Context) error {
	f := w.cur
	if f == nil {
		return nil
	}
	index := w.fileIndexBytes()
	w.cur = nil
	defer f.done()
	defer f.dropRows()
	res, err := f.fw.Close(ctx)
	if err != nil {
		abortOut(f.out)
		return fmt.Errorf("datafile: close %s: %w", f.path, err)
	}
	if err := f.out.Close(); err != nil {
		return fmt.Errorf("datafile: publish %s: %w", f.path, err)
	}
	l := w.layout
	src := l.source
	// Recorded before any error below, so that Abort deletes the file.
	w.done = append(w.done, manifest.DataFileMeta{
		FileName: f.name, FileSize: res.FileSize, RowCount: res.RowCount,
		SchemaID:     l.ts.ID,
		Level:        int32(l.level),
		ExtraFiles:   []string{},
		CreationTime: l.creationTime(),
		FileSource:   &src,
		ExternalPath: f.ext,
	})
	m := &w.done[len(w.done)-1]
	switch {
	case index == nil:
	case int64(len(index)) <= l.indexThreshold:
		m.EmbeddedIndex = index
	default:
		// Java DataFileIndexWriter: an index above
		// file-index.in-manifest-threshold goes to <data file>.index next
		// to the data file (DataFilePathFactory.dataFileToFileIndexPath),
		// named in extraFiles. Listed first, so that Abort deletes it too.
		name := f.name + IndexFileSuffix
		m.ExtraFiles = []string{name}
		if err := f.fio.WriteFile(ctx, f.rel+IndexFileSuffix, index); err != nil {
			return fmt.Errorf("datafile: file index of %s: %w", f.path, err)
		}
	}
	if !l.kv {
		vs, err := encodeStats(l.fields, l.modes, res.Stats, l.dense)
		if err != nil {
			return fmt.Errorf("datafile: value stats of %s: %w", f.path, err)
		}
		zero := int64(0)
		m.MinKey, m.MaxKey = manifest.EmptyRow(), manifest.EmptyRow()
		m.KeyStats, m.ValueStats, m.ValueStatsCols = manifest.EmptyStats(), simpleStats(vs), vs.Cols
		m.MinSequenceNumber = w.seq
		w.seq += res.RowCount
		m.MaxSequenceNumber = w.seq - 1
		m.DeleteRowCount = &zero
		w.handRows(f)
		return nil
	}
	nk := l.nk
	ks, err := encodeStats(l.fields[:nk], l.modes[:nk], res.Stats[:min(nk, len(res.Stats))], false)
	if err != nil {
		return fmt.Errorf("datafile: key stats of %s: %w", f.path, err)
	}
	var vstats []format.ColumnStats
	if len(res.Stats) > nk+2 {
		vstats = res.Stats[nk+2:]
	}
	vs, err := encodeStats(l.fields[nk+2:], l.modes[nk+2:], vstats, l.dense)
	if err != nil {
		return fmt.Errorf("datafile: value stats of %s: %w", f.path, err)
	}
	minKey, err := row.Encode(l.keyTypes, f.minKey)
	if err != nil {
		return fmt.Errorf("datafile: min key of %s: %w", f.path, err)
	}
	maxKey, err := row.Encode(l.keyTypes, f.maxKey)
	if err != nil {
		return fmt.Errorf("datafile: max key of %s: %w", f.path, err)
	}
	deletes := f.deletes
	m.MinKey, m.MaxKey = row.Serialize(minKey), row.Serialize(maxKey)
	m.KeyStats, m.ValueStats, m.ValueStatsCols = simpleStats(ks), simpleStats(vs), vs.Cols
	m.MinSequenceNumber, m.MaxSequenceNumber = f.minSeq, f.maxSeq
	m.DeleteRowCount = &deletes
	w.handRows(f)
	return nil
}

// handRows gives the finished file's rows to the hook (closeFile's
// deferred dropRows releases the writer's references after).
func (w *RollingWriter) handRows(f *openFile) {
	if w.rows != nil && f.rowBytes >= 0 && f.ext == nil && len(f.rows) > 0 {
		w.rows.Fn(f.path, f.rows)
	}
}

// Flush finishes the open file, if any, and hands out the metadata of every
// file finished since the previous Flush, in the order they were written;
// from then on the caller owns those files (Abort no longer deletes them).
// The writer stays usable: the next Write opens a new file. On error the
// files stay with the writer, for Abort.
func (w *RollingWriter) Flush(ctx context.Context) ([]manifest.DataFileMeta, error) {
	if err := w.closeFile(ctx); err != nil {
		return nil, err
	}
	out := w.done
	w.done = nil
	return out, nil
}

// Abort discards the open file and deletes the finished files not yet handed
// out by Flush. Errors of deleting name the file; a file already gone is no
// error.
func (w *RollingWriter) Abort(ctx context.Context) error {
	if w.cur != nil {
		w.cur.dropRows()
		w.cur.fw.Abort()
		abortOut(w.cur.out)
		_ = w.cur.done()
		w.cur = nil
	}
	var errs []error
	for i := range w.done {
		if err := Delete(ctx, w.fio, w.dir, &w.done[i]); err != nil {
			errs = append(errs, err)
		}
	}
	w.done = nil
	return errors.Join(errs...)
}

// RecordSize estimates the bytes rec's rows occupy in memory, counting only
// the rows of slices (Java's util.TotalRecordSize counts whole shared
// buffers): fixed-width columns n·(bits+7)/8 bytes for n rows, strings and
// binaries by value bytes plus 4-byte offsets, validity bitmaps of columns
// with nulls, other columns by their buffers (and children's) in
// proportion to the rows covered. RollingWriter uses it to predict how many rows still fit in a
// file; package writer to bound its buffers.
func RecordSize(rec arrow.RecordBatch) int64 {
	var sum int64
	for _, c := range rec.Columns() {
		sum += arraySize(c)
	}
	return sum
}

func arraySize(arr arrow.Array) int64 {
	n := int64(arr.Len())
	var validity int64
	if arr.NullN() > 0 {
		validity = (n + 7) / 8
	}
	switch a := arr.(type) {
	case *array.String:
		if o := a.ValueOffsets(); len(o) > 0 {
			return validity + 4*n + int64(o[len(o)-1]-o[0])
		}
		return validity
	case *array.Binary:
		if o := a.ValueOffsets(); len(o) > 0 {
			return validity + 4*n + int64(o[len(o)-1]-o[0])
		}
		return validity
	case *array.Boolean:
		return validity + (n+7)/8
	}
	if fw, ok := arr.DataType().(arrow.FixedWidthDataType); ok {
		return validity + n*int64(fw.BitWidth()+7)/8
	}
	total := dataBytes(arr.Data())
	if all := int64(arr.Data().Offset()) + n; all > 0 {
		return total * n / all
	}
	return total
}

// dataBytes sums the buffer sizes of d and its children.
func dataBytes(d arrow.ArrayData) int64 {
	var sum int64
	for _, b := range d.Buffers() {
		if b != nil {
			sum += int64(b.Len())
		}
	}
	for _, c := range d.Children() {
		sum += dataBytes(c)
	}
	return sum
}
