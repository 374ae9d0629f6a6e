package resequence

import (
	"context"
	"errors"
	"fmt"
	"io"
	"maps"
	"slices"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"
	"github.com/apache/arrow-go/v18/arrow/compute"
	"github.com/apache/arrow-go/v18/arrow/memory"
	"github.com/google/uuid"

	"github.com/paimon-go/paimon/datafile"
	"github.com/paimon-go/paimon/format"
	"github.com/paimon-go/paimon/manifest"
)

// Route picks the bucket of row i of a key-value file from its key columns
// (the _KEY_ columns, the trimmed primary key in order).
type Route func(keys []arrow.Array, i int) (int32, error)

// Split copies the key-value data file f of partition's bucket into new
// files of the same level, each row into the bucket route picks, keeping
// the rows' order; rows that stay keep their sequence numbers, rows moved
// to bucket b have shift(b) added to theirs (nil: 0), so that the caller can
// bring them near the sequence numbers of b instead of those of bucket.
// It returns the copies per bucket
// (a bucket whose rows all stay is listed with its copies too). When every
// row stays in bucket, Split writes nothing and returns nil. It serves
// dynamic-bucket tables whose commit must move keys that another writer
// assigned to another bucket meanwhile (package hashindex, Reconcile). On
// error every copy already written is deleted.
//
// Errors: ErrUnsupported (naming the file); errors of reading f or writing
// the copies, naming the file.
func (r *Rewriter) Split(ctx context.Context, partition []byte, bucket int32, f manifest.DataFileMeta, route Route, shift func(dest int32) int64) (out map[int32][]manifest.DataFileMeta, err error) {
	dir, err := r.BucketDir(partition, bucket)
	if err != nil {
		return nil, err
	}
	path := dir + "/" + f.FileName
	if len(f.ExtraFiles) > 0 || len(f.EmbeddedIndex) > 0 || (f.ExternalPath != nil && *f.ExternalPath != "") {
		return nil, fmt.Errorf("%w: %s has extra files, an embedded index or an external path", ErrUnsupported, path)
	}
	ts, err := r.schema(ctx, f.SchemaID)
	if err != nil {
		return nil, fmt.Errorf("resequence: %s: schema %d: %w", path, f.SchemaID, err)
	}
	layout, err := r.layout(ts, int(f.Level))
	if err != nil {
		return nil, fmt.Errorf("%w: %s: %w", ErrUnsupported, path, err)
	}
	nKeys := len(ts.TrimmedPrimaryKeys())
	read := func(each func(rec arrow.RecordBatch) error) error {
		file, err := r.fio.Open(ctx, path)
		if err != nil {
			return fmt.Errorf("resequence: open %s: %w", path, err)
		}
		defer file.Close()
		ff, err := datafile.FormatOf(path)
		if err != nil {
			return fmt.Errorf("%w: %s: %w", ErrUnsupported, path, err)
		}
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
	// First pass: does any row leave the bucket?
	moves := false
	dest := func(rec arrow.RecordBatch) ([]int32, error) {
		keys := rec.Columns()[:nKeys]
		out := make([]int32, rec.NumRows())
		for i := range out {
			b, err := route(keys, i)
			if err != nil {
				return nil, fmt.Errorf("resequence: %s: row key: %w", path, err)
			}
			out[i] = b
		}
		return out, nil
	}
	if err := read(func(rec arrow.RecordBatch) error {
		d, err := dest(rec)
		if err != nil {
			return err
		}
		moves = moves || slices.ContainsFunc(d, func(b int32) bool { return b != bucket })
		return nil
	}); err != nil || !moves {
		return nil, err
	}
	writers := map[int32]*datafile.RollingWriter{}
	defer func() {
		if err != nil {
			for _, w := range writers {
				_ = w.Abort(context.WithoutCancel(ctx))
			}
			out = nil
		}
	}()
	namer := datafile.NewNamer(uuid.NewString())
	err = read(func(rec arrow.RecordBatch) error {
		d, err := dest(rec)
		if err != nil {
			return err
		}
		byBucket := map[int32][]int32{}
		for i, b := range d {
			byBucket[b] = append(byBucket[b], int32(i))
		}
		for _, b := range slices.Sorted(maps.Keys(byBucket)) {
			w := writers[b]
			if w == nil {
				bd, err := r.BucketDir(partition, b)
				if err != nil {
					return err
				}
				w = datafile.NewRollingWriter(r.fio, bd, layout, namer, 0)
				writers[b] = w
			}
			sub, err := take(ctx, r.mem, rec, byBucket[b])
			if err != nil {
				return fmt.Errorf("resequence: %s: %w", path, err)
			}
			if b != bucket && shift != nil {
				if d := shift(b); d != 0 {
					shifted, err := shiftSequence(r.mem, sub, nKeys, d)
					sub.Release()
					if err != nil {
						return fmt.Errorf("resequence: %s: %w", path, err)
					}
					sub = shifted
				}
			}
			err = w.Write(ctx, sub)
			sub.Release()
			if err != nil {
				return err
			}
		}
		return nil
	})
	if err != nil {
		return nil, err
	}
	out = map[int32][]manifest.DataFileMeta{}
	for _, b := range slices.Sorted(maps.Keys(writers)) {
		fs, err := writers[b].Flush(ctx)
		if err != nil {
			// Flushed copies of other buckets are deleted by the caller's
			// discard of the attempt; delete them here too.
			r.deleteCopies(ctx, partition, out)
			out = nil
			return nil, err
		}
		delete(writers, b)
		for i := range fs {
			fs[i].FileSource = f.FileSource
			fs[i].CreationTime = f.CreationTime
		}
		out[b] = fs
	}
	return out, nil
}

// deleteCopies deletes files written by a Split that failed, best effort.
func (r *Rewriter) deleteCopies(ctx context.Context, partition []byte, files map[int32][]manifest.DataFileMeta) {
	ctx = context.WithoutCancel(ctx)
	for b, fs := range files {
		dir, err := r.BucketDir(partition, b)
		if err != nil {
			continue
		}
		for _, f := range fs {
			_ = r.fio.Delete(ctx, dir+"/"+f.FileName)
		}
	}
}

// take returns the rows idx of rec.
func take(ctx context.Context, mem memory.Allocator, rec arrow.RecordBatch, idx []int32) (arrow.RecordBatch, error) {
	if len(idx) == int(rec.NumRows()) {
		rec.Retain()
		return rec, nil
	}
	b := array.NewInt32Builder(mem)
	defer b.Release()
	b.AppendValues(idx, nil)
	ia := b.NewInt32Array()
	defer ia.Release()
	res, err := compute.Take(compute.WithAllocator(ctx, mem), *compute.DefaultTakeOptions(), compute.NewDatumWithoutOwning(rec), compute.NewDatumWithoutOwning(ia))
	if err != nil {
		return nil, err
	}
	return res.(*compute.RecordDatum).Value, nil
}

// shiftSequence returns rec with d added to its _SEQUENCE_NUMBER column (at
// index col, after the key columns); a result below 0 or beyond int64 is an
// error.
func shiftSequence(mem memory.Allocator, rec arrow.RecordBatch, col int, d int64) (arrow.RecordBatch, error) {
	seq, ok := rec.Column(col).(*array.Int64)
	if !ok {
		return nil, fmt.Errorf("%w: column %d is %s, not the BIGINT _SEQUENCE_NUMBER", ErrUnsupported, col, rec.Column(col).DataType())
	}
	b := array.NewInt64Builder(mem)
	defer b.Release()
	b.Reserve(seq.Len())
	for i := 0; i < seq.Len(); i++ {
		v := seq.Value(i)
		n := v + d
		if (d > 0 && n < v) || n < 0 {
			return nil, fmt.Errorf("%w: sequence number %d + %d leaves [0, 2^63)", ErrUnsupported, v, d)
		}
		b.Append(n)
	}
	a := b.NewInt64Array()
	defer a.Release()
	cols := slices.Clone(rec.Columns())
	cols[col] = a
	return array.NewRecordBatch(rec.Schema(), cols, rec.NumRows()), nil
}
