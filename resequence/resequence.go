// Package resequence copies the level-0 files of a primary-key commit with
// higher sequence numbers, so that the commit's rows order after every row
// already in their bucket.
//
// A primary-key table merges the records of a key in the order of their
// sequence numbers (the _SEQUENCE_NUMBER column, after sequence.field when the
// table sets one). A writer continues the highest sequence number of its
// bucket's files as it found them when it started (Java
// AbstractFileStoreWrite with write.sequence-number-init-mode = scan), so two
// writers of one bucket hand out the same numbers, and which of their records
// wins no longer follows the order of their commits. Java requires one writer
// per bucket and has no counterpart to this package. The committer (package
// commit) calls a Rewriter when the files of a commit would not order after
// the bucket's live files: it shifts every sequence number of those files by
// one amount, which keeps their own order and puts them above the bucket's
// highest number (docs/paimon-format.md, section 13.5.1, "Sequence numbers
// across writers").
//
// The copies are new files in the same bucket directory (data-<uuid>-<n>),
// written through package datafile with the layout of the original's level,
// so their metadata (key range, statistics, sequence range, delete count) is
// computed from the rows as for any written file. The originals are left in
// place: nothing refers to them once the commit names the copies, and orphan
// cleaning removes them.
package resequence

import (
	"context"
	"errors"
	"fmt"
	"io"
	"strconv"
	"strings"
	"sync"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"
	"github.com/apache/arrow-go/v18/arrow/memory"
	"github.com/google/uuid"

	"github.com/paimon-go/paimon/datafile"
	"github.com/paimon-go/paimon/fileio"
	"github.com/paimon-go/paimon/format"
	"github.com/paimon-go/paimon/manifest"
	"github.com/paimon-go/paimon/row"
	"github.com/paimon-go/paimon/schema"
)

// ErrUnsupported: a file that cannot be copied: one with extra files, an
// embedded index or an external path, a format other than Parquet, or a
// table without a primary key. The message names the file.
var ErrUnsupported = errors.New("resequence: file cannot be re-sequenced")

// Rewriter copies data files of one table with shifted sequence numbers. It
// is safe for concurrent use.
type Rewriter struct {
	fio     *fileio.FileIO
	ts      *schema.TableSchema
	schemas *schema.Manager
	pc      row.PartitionComputer
	mem     memory.Allocator

	mu      sync.Mutex
	layouts map[[2]int64]*datafile.Layout // (schema id, level)
	sch     map[int64]*schema.TableSchema
}

// New returns a Rewriter for the primary-key table rooted at fio whose
// latest known schema is ts. Errors wrap ErrUnsupported for a table without
// a primary key, schema.ErrInvalidOption for malformed path options.
func New(fio *fileio.FileIO, ts *schema.TableSchema) (*Rewriter, error) {
	if len(ts.PrimaryKeys) == 0 {
		return nil, fmt.Errorf("%w: the table has no primary key", ErrUnsupported)
	}
	legacy, err := ts.Options.PartitionLegacyName()
	if err != nil {
		return nil, err
	}
	return &Rewriter{
		fio: fio, ts: ts, schemas: schema.NewManager(fio, ""),
		pc:      row.PartitionComputer{Fields: ts.PartitionFields(), DefaultName: ts.Options.PartitionDefaultName(), Legacy: legacy},
		mem:     memory.DefaultAllocator,
		layouts: map[[2]int64]*datafile.Layout{},
		sch:     map[int64]*schema.TableSchema{ts.ID: ts},
	}, nil
}

// BucketDir returns the directory of the files of partition (a serialized
// BinaryRow, as in manifest entries) and bucket, relative to the table root,
// as writers lay it out: "[data-file.path-directory/]k=v/.../bucket-<n>". Errors wrap row.ErrCorrupt.
func (r *Rewriter) BucketDir(partition []byte, bucket int32) (string, error) {
	br, err := row.Deserialize(partition)
	if err != nil {
		return "", err
	}
	p, err := r.pc.PathOf(br)
	if err != nil {
		return "", err
	}
	return r.ts.Options.DataFilePathDirectory() + p + "bucket-" + strconv.Itoa(int(bucket)), nil
}

// Shift copies the key-value data file f of the bucket directory dir (see
// BucketDir) into new files of the same level whose records carry
// _SEQUENCE_NUMBER + delta, in the same order, and returns their metadata
// (usually one file; more when the copy rolls at target-file-size). delta
// must be positive. On error every copy already written is deleted.
//
// Errors: ErrUnsupported (naming the file); errors of reading f or writing
// the copies, naming the file.
func (r *Rewriter) Shift(ctx context.Context, dir string, f manifest.DataFileMeta, delta int64) (out []manifest.DataFileMeta, err error) {
	path := dir + "/" + f.FileName
	if delta <= 0 {
		return nil, fmt.Errorf("resequence: %s: shift %d is not positive", path, delta)
	}
	ts, layout, err := r.source(ctx, path, f)
	if err != nil {
		return nil, err
	}
	w := datafile.NewRollingWriter(r.fio, dir, layout, datafile.NewNamer(uuid.NewString()), 0)
	defer func() {
		if err != nil {
			_ = w.Abort(context.WithoutCancel(ctx))
		}
	}()
	seqCol := len(ts.TrimmedPrimaryKeys())
	err = r.readFile(ctx, path, f, layout, func(rec arrow.RecordBatch) error {
		shifted, err := shiftColumn(rec, seqCol, delta, r.mem)
		if err != nil {
			return fmt.Errorf("resequence: %s: %w", path, err)
		}
		err = w.Write(ctx, shifted)
		shifted.Release()
		return err
	})
	if err != nil {
		return nil, err
	}
	out, err = w.Flush(ctx)
	if err != nil {
		return nil, err
	}
	for i := range out {
		out[i].FileSource = f.FileSource
		out[i].CreationTime = f.CreationTime
	}
	return out, nil
}

// source checks that the key-value data file f at path can be copied and
// returns its table schema and file layout.
func (r *Rewriter) source(ctx context.Context, path string, f manifest.DataFileMeta) (*schema.TableSchema, *datafile.Layout, error) {
	// A file index (embedded, or a <data file>.index extra file) is no
	// obstacle: the copies are written with the layout of the file's
	// schema, which indexes the same columns of the same rows anew; nor is
	// an external path (the file is read there, and the layout places the
	// copies below data-file.external-paths as the writer does).
	for _, x := range f.ExtraFiles {
		if !strings.HasSuffix(x, datafile.IndexFileSuffix) {
			return nil, nil, fmt.Errorf("%w: %s has extra file %s", ErrUnsupported, path, x)
		}
	}

	ts, err := r.schema(ctx, f.SchemaID)
	if err != nil {
		return nil, nil, fmt.Errorf("resequence: %s: schema %d: %w", path, f.SchemaID, err)
	}
	layout, err := r.layout(ts, int(f.Level))
	if err != nil {
		return nil, nil, fmt.Errorf("%w: %s: %w", ErrUnsupported, path, err)
	}
	return ts, layout, nil
}

// bucketFile opens the key-value data file f of partition's bucket for
// reading (source): its bucket directory, its path, its schema, its layout
// and the number of its _KEY_ columns.
func (r *Rewriter) bucketFile(ctx context.Context, partition []byte, bucket int32, f manifest.DataFileMeta) (dir, path string, ts *schema.TableSchema, layout *datafile.Layout, nKeys int, err error) {
	if dir, err = r.BucketDir(partition, bucket); err != nil {
		return "", "", nil, nil, 0, err
	}
	path = dir + "/" + f.FileName
	if ts, layout, err = r.source(ctx, path, f); err != nil {
		return "", "", nil, nil, 0, err
	}
	return dir, path, ts, layout, len(ts.TrimmedPrimaryKeys()), nil
}

// readFile reads the data file f at path, in the format its name says,
// with layout's columns, and hands each batch to each (which must not keep
// it); a file whose row count differs from f.RowCount is format.ErrCorrupt.
func (r *Rewriter) readFile(ctx context.Context, path string, f manifest.DataFileMeta, layout *datafile.Layout, each func(rec arrow.RecordBatch) error) error {
	ff, err := datafile.FormatOf(path)
	if err != nil {
		return fmt.Errorf("%w: %s: %w", ErrUnsupported, path, err)
	}
	fio, rel := r.fio, path
	if f.ExternalPath != nil && *f.ExternalPath != "" {
		// DataFilePathFactory.toPath: the stored location, verbatim.
		var done func() error
		if fio, rel, done, err = r.fio.OpenLocation(ctx, *f.ExternalPath); err != nil {
			return fmt.Errorf("resequence: open %s: %w", *f.ExternalPath, err)
		}
		defer done()
		path = *f.ExternalPath
	}
	file, err := fio.Open(ctx, rel)
	if err != nil {
		return fmt.Errorf("resequence: open %s: %w", path, err)
	}
	defer file.Close()
	rd, err := ff.NewReader(ctx, file, path, layout.Fields(), format.ReadOptions{Allocator: r.mem})
	if err != nil {
		return fmt.Errorf("resequence: read %s: %w", path, err)
	}
	defer rd.Close()
	var rows int64
	for {
		b, err := rd.Next(ctx)
		if errors.Is(err, io.EOF) {
			break
		}
		if err != nil {
			return fmt.Errorf("resequence: read %s: %w", path, err)
		}
		rows += b.Record.NumRows()
		err = each(b.Record)
		b.Record.Release()
		if err != nil {
			return err
		}
	}
	if rows != f.RowCount {
		return fmt.Errorf("resequence: %s: read %d rows, its metadata says %d: %w", path, rows, f.RowCount, format.ErrCorrupt)
	}
	return nil
}

// shiftColumn returns rec with delta added to column i (the BIGINT NOT NULL
// _SEQUENCE_NUMBER); a result outside [0, 2^63) is an error.
func shiftColumn(rec arrow.RecordBatch, i int, delta int64, mem memory.Allocator) (arrow.RecordBatch, error) {
	col, ok := rec.Column(i).(*array.Int64)
	if !ok {
		return nil, fmt.Errorf("%w: column %s is %s", format.ErrCorrupt, datafile.SequenceNumberColumn, rec.Column(i).DataType())
	}
	b := array.NewInt64Builder(mem)
	defer b.Release()
	b.Reserve(col.Len())
	for _, v := range col.Int64Values() {
		n := v + delta
		if (delta > 0 && n < v) || n < 0 {
			return nil, fmt.Errorf("%w: sequence number %d + %d leaves [0, 2^63)", ErrUnsupported, v, delta)
		}
		b.UnsafeAppend(n)
	}
	shifted := b.NewInt64Array()
	defer shifted.Release()
	cols := make([]arrow.Array, rec.NumCols())
	copy(cols, rec.Columns())
	cols[i] = shifted
	return array.NewRecordBatch(rec.Schema(), cols, rec.NumRows()), nil
}

// schema returns the table schema of id (the file's schema).
func (r *Rewriter) schema(ctx context.Context, id int64) (*schema.TableSchema, error) {
	r.mu.Lock()
	ts, ok := r.sch[id]
	r.mu.Unlock()
	if ok {
		return ts, nil
	}
	ts, err := r.schemas.Get(ctx, id)
	if err != nil {
		return nil, err
	}
	r.mu.Lock()
	r.sch[id] = ts
	r.mu.Unlock()
	return ts, nil
}

// layout returns the file layout of schema ts at level.
func (r *Rewriter) layout(ts *schema.TableSchema, level int) (*datafile.Layout, error) {
	key := [2]int64{ts.ID, int64(level)}
	r.mu.Lock()
	defer r.mu.Unlock()
	if l, ok := r.layouts[key]; ok {
		return l, nil
	}
	src := manifest.SourceAppend
	l, err := datafile.NewLayout(ts, datafile.Config{Level: level, Source: src, Allocator: r.mem})
	if err != nil {
		return nil, err
	}
	r.layouts[key] = l
	return l, nil
}
