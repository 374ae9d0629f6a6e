package resequence

import (
	"context"
	"errors"
	"fmt"
	"slices"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"
	"github.com/apache/arrow-go/v18/arrow/compute"
	"github.com/google/uuid"

	"github.com/paimon-go/paimon/datafile"
	"github.com/paimon-go/paimon/format"
	"github.com/paimon-go/paimon/manifest"
)

// Place is where Relocate puts a row of a key-value file: a
// partition-bucket (Partition is the serialized partition BinaryRow, as in
// manifest entries), or nowhere (Drop).
type Place struct {
	Partition string
	Bucket    int32
	Drop      bool
}

// Placer picks the Place of row i of a key-value file from its key columns
// (the _KEY_ columns, the trimmed primary key in order).
type Placer func(keys []arrow.Array, i int) (Place, error)

// errStop ends a read early.
var errStop = errors.New("resequence: stop")

// PartitionValues returns the partition values of the key-value data file
// f of partition's bucket: one one-row array per partition key of the
// table, in partition-key order, read from the value columns of the file's
// first row. Relocate takes them for rows it moves into that partition.
//
// Errors: ErrUnsupported (naming the file); format.ErrCorrupt for a file
// without rows or partition columns; errors of reading f, naming it.
func (r *Rewriter) PartitionValues(ctx context.Context, partition []byte, bucket int32, f manifest.DataFileMeta) ([]arrow.Array, error) {
	_, path, _, layout, nKeys, err := r.bucketFile(ctx, partition, bucket, f)
	if err != nil {
		return nil, err
	}
	var out []arrow.Array
	err = r.readFile(ctx, path, f, layout, func(rec arrow.RecordBatch) error {
		if rec.NumRows() == 0 {
			return nil
		}
		for _, name := range r.ts.PartitionKeys {
			c, err := valueColumn(rec, nKeys, name)
			if err != nil {
				return fmt.Errorf("resequence: %s: %w", path, err)
			}
			s := array.NewSlice(c, 0, 1)
			cp, err := array.Concatenate([]arrow.Array{s}, r.mem)
			s.Release()
			if err != nil {
				return fmt.Errorf("resequence: %s: %w", path, err)
			}
			out = append(out, cp)
		}
		return errStop
	})
	if errors.Is(err, errStop) {
		return out, nil
	}
	for _, a := range out {
		a.Release()
	}
	if err == nil {
		err = fmt.Errorf("resequence: %s has no rows to take partition values from: %w", path, format.ErrCorrupt)
	}
	return nil, err
}

// valueColumn returns the value column name of a key-value batch whose
// first nKeys columns are the _KEY_ columns.
func valueColumn(rec arrow.RecordBatch, nKeys int, name string) (arrow.Array, error) {
	for _, at := range rec.Schema().FieldIndices(name) {
		if at >= nKeys+2 {
			return rec.Column(at), nil
		}
	}
	return nil, fmt.Errorf("no value column %q: %w", name, format.ErrCorrupt)
}

// Relocate copies the key-value data file f of partition's bucket into new
// files of f's level, each row into the partition-bucket place picks (or
// none, for a dropped row), keeping the rows' order. Rows that stay keep
// their values and sequence numbers; rows moved to another partition get
// its values in their partition columns (values(partition) returns them
// as PartitionValues does; the caller keeps them); rows moved elsewhere
// have shift(dest) added to their sequence numbers (nil: 0), so that the
// caller can bring them near the sequence numbers of dest. It returns the
// copies per Place (the staying place too, when rows stay; never a Drop
// place). When every row stays, Relocate writes nothing and returns nil.
// It serves cross-partition upsert tables whose commit must move or drop
// keys another writer put in another partition meanwhile (commit's
// cross-partition guard; Java's UseOldExistingProcessor and
// SkipNewExistingProcessor had the commits run in commit order). On error
// every copy already written is deleted.
//
// Errors: ErrUnsupported (naming the file); errors of values and of
// reading f or writing the copies, naming the file.
func (r *Rewriter) Relocate(ctx context.Context, partition []byte, bucket int32, f manifest.DataFileMeta, place Placer, values func(partition string) ([]arrow.Array, error), shift func(dest Place) int64) (out map[Place][]manifest.DataFileMeta, err error) {
	_, path, _, layout, nKeys, err := r.bucketFile(ctx, partition, bucket, f)
	if err != nil {
		return nil, err
	}
	home := Place{Partition: string(partition), Bucket: bucket}
	read := func(each func(rec arrow.RecordBatch) error) error {
		return r.readFile(ctx, path, f, layout, each)
	}
	dest := func(rec arrow.RecordBatch) ([]Place, error) {
		keys := rec.Columns()[:nKeys]
		out := make([]Place, rec.NumRows())
		for i := range out {
			p, err := place(keys, i)
			if err != nil {
				return nil, fmt.Errorf("resequence: %s: row key: %w", path, err)
			}
			if p.Drop {
				p = Place{Drop: true}
			}
			out[i] = p
		}
		return out, nil
	}
	// First pass: does any row leave?
	moves := false
	if err := read(func(rec arrow.RecordBatch) error {
		d, err := dest(rec)
		if err != nil {
			return err
		}
		moves = moves || slices.ContainsFunc(d, func(p Place) bool { return p != home })
		return nil
	}); err != nil || !moves {
		return nil, err
	}
	writers := map[Place]*datafile.RollingWriter{}
	var order []Place
	flushed := map[Place][]manifest.DataFileMeta{}
	defer func() {
		if err != nil {
			for _, w := range writers {
				_ = w.Abort(context.WithoutCancel(ctx))
			}
			r.deletePlaced(ctx, flushed)
			out = nil
		}
	}()
	namer := datafile.NewNamer(uuid.NewString())
	err = read(func(rec arrow.RecordBatch) error {
		d, err := dest(rec)
		if err != nil {
			return err
		}
		byPlace := map[Place][]int32{}
		var places []Place
		for i, p := range d {
			if p.Drop {
				continue
			}
			if _, ok := byPlace[p]; !ok {
				places = append(places, p)
			}
			byPlace[p] = append(byPlace[p], int32(i))
		}
		for _, p := range places {
			w := writers[p]
			if w == nil {
				bd, err := r.BucketDir([]byte(p.Partition), p.Bucket)
				if err != nil {
					return err
				}
				w = datafile.NewRollingWriter(r.fio, bd, layout, namer, 0)
				writers[p] = w
				order = append(order, p)
			}
			sub, err := take(ctx, r.mem, rec, byPlace[p])
			if err != nil {
				return fmt.Errorf("resequence: %s: %w", path, err)
			}
			if p != home {
				moved, err := r.moved(ctx, sub, nKeys, p, home, values, shift)
				sub.Release()
				if err != nil {
					return fmt.Errorf("resequence: %s: %w", path, err)
				}
				sub = moved
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
	for _, p := range order {
		fs, err := writers[p].Flush(ctx)
		delete(writers, p)
		if err != nil {
			return nil, err
		}
		for i := range fs {
			fs[i].FileSource = f.FileSource
			fs[i].CreationTime = f.CreationTime
		}
		flushed[p] = fs
	}
	return flushed, nil
}

// moved returns the rows sub, moved from home to p: p's partition values
// in the partition columns when p is another partition, sequence numbers
// shifted by shift(p).
func (r *Rewriter) moved(ctx context.Context, sub arrow.RecordBatch, nKeys int, p, home Place, values func(string) ([]arrow.Array, error), shift func(Place) int64) (arrow.RecordBatch, error) {
	sub.Retain()
	if shift != nil {
		if d := shift(p); d != 0 {
			s, err := shiftColumn(sub, nKeys, d, r.mem)
			sub.Release()
			if err != nil {
				return nil, err
			}
			sub = s
		}
	}
	if p.Partition == home.Partition || len(r.ts.PartitionKeys) == 0 {
		return sub, nil
	}
	defer sub.Release()
	vals, err := values(p.Partition)
	if err != nil {
		return nil, err
	}
	if len(vals) != len(r.ts.PartitionKeys) {
		return nil, fmt.Errorf("%d partition values for %d partition keys", len(vals), len(r.ts.PartitionKeys))
	}
	n := int(sub.NumRows())
	ib := array.NewInt32Builder(r.mem)
	for range n {
		ib.Append(0)
	}
	zeros := ib.NewArray()
	ib.Release()
	defer zeros.Release()
	cols := slices.Clone(sub.Columns())
	var made []arrow.Array
	defer func() {
		for _, a := range made {
			a.Release()
		}
	}()
	for k, name := range r.ts.PartitionKeys {
		at := -1
		for _, j := range sub.Schema().FieldIndices(name) {
			if j >= nKeys+2 {
				at = j
			}
		}
		if at < 0 {
			return nil, fmt.Errorf("no value column %q: %w", name, format.ErrCorrupt)
		}
		rep, err := compute.TakeArray(compute.WithAllocator(ctx, r.mem), vals[k], zeros)
		if err != nil {
			return nil, err
		}
		made = append(made, rep)
		if !arrow.TypeEqual(rep.DataType(), cols[at].DataType()) {
			return nil, fmt.Errorf("partition column %q: values of type %s for a column of type %s", name, rep.DataType(), cols[at].DataType())
		}
		cols[at] = rep
	}
	return array.NewRecordBatch(sub.Schema(), cols, int64(n)), nil
}

// deletePlaced deletes files written by a Relocate that failed, best
// effort.
func (r *Rewriter) deletePlaced(ctx context.Context, files map[Place][]manifest.DataFileMeta) {
	ctx = context.WithoutCancel(ctx)
	for p, fs := range files {
		dir, err := r.BucketDir([]byte(p.Partition), p.Bucket)
		if err != nil {
			continue
		}
		for _, f := range fs {
			_ = r.fio.Delete(ctx, dir+"/"+f.FileName)
		}
	}
}
