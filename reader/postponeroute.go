package reader

import (
	"context"
	"fmt"
	"slices"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"
	"github.com/apache/arrow-go/v18/arrow/memory"

	"github.com/paimon-go/paimon/format"
	"github.com/paimon-go/paimon/row"
	"github.com/paimon-go/paimon/schema"
	"github.com/paimon-go/paimon/types"
)

// PostponeRouter routes the rows of bucket-postpone files (bucket = -2
// primary-key tables) to the real buckets of their partition, as Java's
// postpone compaction (a FixedBucketSink behind
// PostponeBucketCompactSplitSource) and 2.x's PostponeMergeReadBuilder do:
// bucket(bucket key, N) of bucket-function.type default (Murmur3 of the
// bucket-key BinaryRow) or mod. Batch reads with postpone.merge-on-read and
// compaction.Postpone share it.
type PostponeRouter struct {
	ts          *schema.TableSchema
	nk          int   // _KEY_ columns before _SEQUENCE_NUMBER, _VALUE_KIND
	bucketIdx   []int // bucket key fields among the table fields
	bucketTypes []types.DataType
	mod         bool
	vals        []any
}

// NewPostponeRouter returns the router of ts's rows. Errors wrap
// schema.ErrInvalidOption (a malformed bucket-function.type).
func NewPostponeRouter(ts *schema.TableSchema) (*PostponeRouter, error) {
	fn, err := ts.Options.BucketFunctionType()
	if err != nil {
		return nil, err
	}
	idx := ts.FieldIndexes(ts.BucketKeys())
	return &PostponeRouter{
		ts: ts, nk: len(ts.TrimmedPrimaryKeys()), bucketIdx: idx,
		bucketTypes: row.FieldTypes(ts.BucketKeyFields()), mod: fn == "mod", vals: make([]any, len(idx)),
	}, nil
}

// Key returns the bucket-key values of row r of rec, a batch in the
// KeyValue layout of the router's schema (datafile.KeyValueFields), as
// types.ArrowView gives them; the slice is reused by the next call. A value
// that does not view as its field's type gives an error "column NAME: ..."
// for the caller to wrap with the file.
func (p *PostponeRouter) Key(rec arrow.RecordBatch, r int) ([]any, error) {
	for k, fi := range p.bucketIdx {
		v, err := types.ArrowView(p.ts.Fields[fi].Type, rec.Column(p.nk+2+fi), r)
		if err != nil {
			return nil, fmt.Errorf("column %s: %w", p.ts.Fields[fi].Name, err)
		}
		p.vals[k] = v
	}
	return p.vals, nil
}

// Bucket returns the bucket in [0, numBuckets) of the bucket-key values
// vals (Key's). Errors are those of row.Encode, or of row.ModBucket for a
// mod bucket key that is no integer.
func (p *PostponeRouter) Bucket(vals []any, numBuckets int) (int32, error) {
	if p.mod {
		b, err := row.ModBucket(vals[0], numBuckets)
		return int32(b), err
	}
	br, err := row.Encode(p.bucketTypes, vals)
	if err != nil {
		return 0, err
	}
	return int32(row.Bucket(br, numBuckets)), nil
}

// PostponeRun turns the rows routed to one real bucket, recs in replay
// order (batches of schema sc, the KeyValue layout with nk _KEY_ columns of
// keyTypes), into that bucket's sorted run: the rows get sequence numbers
// seq, seq+1, ... in replay order and are sorted by key, equal keys in
// replay order (MergeTreeWriter's flush order). recs are not released; the
// caller releases the result. Errors name the key column whose values do
// not view as keyTypes, and wrap arrow's errors of concatenating and taking
// rows.
func PostponeRun(ctx context.Context, mem memory.Allocator, sc *arrow.Schema, recs []arrow.RecordBatch, keyTypes []types.DataType, seq int64) (arrow.RecordBatch, error) {
	nk := len(keyTypes)
	all, err := concatBatches(sc, recs, mem)
	if err != nil {
		return nil, err
	}
	defer all.Release()
	n := int(all.NumRows())
	keys := make([][]any, n)
	for i := range n {
		keys[i] = make([]any, nk)
		for k, kt := range keyTypes {
			if keys[i][k], err = types.ArrowView(kt, all.Column(k), i); err != nil {
				return nil, fmt.Errorf("key column %d: %w", k, err)
			}
		}
	}
	perm := make([]int32, n)
	for i := range perm {
		perm[i] = int32(i)
	}
	slices.SortStableFunc(perm, func(a, b int32) int {
		for k, kt := range keyTypes {
			if c := types.Compare(kt, keys[a][k], keys[b][k]); c != 0 {
				return c
			}
		}
		return 0
	})
	sorted, err := format.Take(ctx, mem, all, perm)
	if err != nil {
		return nil, fmt.Errorf("reader: select rows: %w", err)
	}
	defer sorted.Release()
	seqs := make([]int64, n)
	for i, j := range perm {
		seqs[i] = seq + int64(j)
	}
	b := array.NewInt64Builder(mem)
	b.AppendValues(seqs, nil)
	seqArr := b.NewArray()
	b.Release()
	defer seqArr.Release()
	cols := slices.Clone(sorted.Columns())
	cols[nk] = seqArr
	return array.NewRecordBatch(sc, cols, int64(n)), nil
}
