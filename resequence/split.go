package resequence

import (
	"context"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/memory"

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
// assigned to another bucket meanwhile (package hashindex, Reconcile). It is
// Relocate within one partition. On error every copy already written is
// deleted.
//
// Errors: ErrUnsupported (naming the file); errors of reading f or writing
// the copies, naming the file.
func (r *Rewriter) Split(ctx context.Context, partition []byte, bucket int32, f manifest.DataFileMeta, route Route, shift func(dest int32) int64) (map[int32][]manifest.DataFileMeta, error) {
	home := string(partition)
	place := func(keys []arrow.Array, i int) (Place, error) {
		b, err := route(keys, i)
		return Place{Partition: home, Bucket: b}, err
	}
	var shiftPlace func(Place) int64
	if shift != nil {
		shiftPlace = func(p Place) int64 { return shift(p.Bucket) }
	}
	// Rows stay in their partition, so Relocate never asks for values.
	placed, err := r.Relocate(ctx, partition, bucket, f, place, nil, shiftPlace)
	if err != nil || placed == nil {
		return nil, err
	}
	out := make(map[int32][]manifest.DataFileMeta, len(placed))
	for p, fs := range placed {
		out[p.Bucket] = fs
	}
	return out, nil
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
