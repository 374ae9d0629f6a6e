package resequence

import (
	"context"
	"fmt"
	"maps"
	"slices"

	"github.com/apache/arrow-go/v18/arrow"
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
	_, path, _, layout, nKeys, err := r.bucketFile(ctx, partition, bucket, f)
	if err != nil {
		return nil, err
	}
	read := func(each func(rec arrow.RecordBatch) error) error {
		return r.readFile(ctx, path, f, layout, each)
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
					shifted, err := shiftColumn(sub, nKeys, d, r.mem)
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

// take returns the rows idx (ascending) of rec: rec itself, retained, when
// idx holds every row.
func take(ctx context.Context, mem memory.Allocator, rec arrow.RecordBatch, idx []int32) (arrow.RecordBatch, error) {
	if len(idx) == int(rec.NumRows()) {
		rec.Retain()
		return rec, nil
	}
	return format.Take(ctx, mem, rec, idx)
}
