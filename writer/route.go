package writer

import (
	"context"
	"fmt"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"

	"github.com/paimon-go/paimon/format"
)

// Share is one partition-bucket's part of a batch given to Route: what
// Write would hand to that partition-bucket's writer (Java's SinkRecord
// with its partition and bucket, TableWriteImpl.toSinkRecord).
type Share struct {
	// Partition is the serialized partition BinaryRow (row.Serialize), as
	// in commit messages (commit.Message.Partition); the empty row for
	// unpartitioned tables.
	Partition []byte
	// PartitionValues are the partition values as Go values (package types
	// conventions, nil for NULL), in partition-key order; empty for
	// unpartitioned tables.
	PartitionValues []any
	// Bucket is the bucket of every row (row.Bucket or row.ModBucket of the
	// bucket key; 0 for tables with one bucket and for bucket-unaware
	// append tables, whose files live in bucket-0 as in Java).
	Bucket int32
	// Record holds the share's rows: the table columns in schema order,
	// under the table's Arrow schema (types.SchemaToArrow), without row
	// kind or sequence number columns. The caller releases it.
	Record arrow.RecordBatch
	// Kinds is the row kind of each row of Record (Java RowKind bytes: 0 +I,
	// 1 -U, 2 +U, 3 -D); never nil.
	Kinds []int8
	// Order maps Record's rows to the share's input order: Order[i] is the
	// position (from 0) of Record's row i among the share's rows as they
	// came in the batch. It is 0, 1, ..., n-1 unless Route sorted the rows.
	Order []int32
	// Rows maps Record's rows to the batch given to Route: Rows[i] is the
	// index (from 0) in that batch of Record's row i. len(Rows) ==
	// Record.NumRows(); the indexes are distinct, and in the share's input
	// order (Rows[j] for the j with Order[j] = 0, 1, ...) ascending. Rows
	// dropped by ignore-delete / ignore-update-before are in no share.
	Rows []int32
}

// Route computes the partition and bucket of every row of rec exactly as
// Write does and returns the rows split into one Share per partition-bucket,
// in order of first appearance, without writing anything. It runs Write's
// checks (schema, NOT NULL, row kinds including rowkind.field and the
// ignore-delete / ignore-update-before filtering, which drops rows here as
// in Write, partition values, the sequence number column when
// WithSequenceColumn is set, and the bucket count of existing partitions,
// which reads the latest snapshot once per Write) and returns the same
// errors. Shares without rows are left out.
//
// With sortByKey on a primary-key table, each share's rows are stably
// sorted by the trimmed primary key (as the sort buffer orders them), so
// rows of one key keep their input order; Order maps back. sortByKey has no
// effect on append tables. Sequence numbers given through
// WithSequenceColumn are checked but not returned.
//
// Cross-partition upsert tables are not routed (ErrUnsupportedBucketMode):
// their rows change partitions and kinds through the key index, which only
// Write applies.
//
// Route opens no partition-bucket writer and leaves buffers, sequence
// numbers and file counters alone. Like every method of Write it is not
// safe for concurrent use: callers serialise Route with each other and with
// Write, PrepareCommit and NextSequenceNumber.
func (w *Write) Route(ctx context.Context, rec arrow.RecordBatch, sortByKey bool) (shares []Share, err error) {
	if w.closed {
		return nil, ErrClosed
	}
	if w.xp != nil {
		return nil, fmt.Errorf("%w: Route of a cross-partition upsert table (its key index routes rows in Write only)", ErrUnsupportedBucketMode)
	}
	in, err := w.prepare(rec)
	if err != nil {
		return nil, err
	}
	defer in.release()
	groups, err := w.group(ctx, in)
	if err != nil {
		return nil, err
	}
	for _, g := range groups {
		if err := w.checkBucketCount(ctx, g); err != nil {
			return nil, err
		}
	}
	defer func() {
		if err != nil {
			for _, s := range shares {
				s.Record.Release()
			}
			shares = nil
		}
	}()
	shares = make([]Share, 0, len(groups))
	for _, g := range groups {
		rows := g.rows
		if rows == nil && in.numRows() > 0 {
			rows = identity(in.numRows())
		}
		if len(rows) == 0 {
			continue
		}
		s, err := w.share(ctx, in, g, rows, sortByKey && w.pk != nil)
		if err != nil {
			return shares, err
		}
		shares = append(shares, s)
	}
	return shares, nil
}

// share builds the Share of group g, whose rows of in are rows (in input
// order, at least one).
func (w *Write) share(ctx context.Context, in *input, g *group, rows []int32, sortByKey bool) (Share, error) {
	s := Share{Partition: bytesClone(g.partition), Bucket: g.bucket, PartitionValues: make([]any, len(w.partIdx))}
	for k, c := range w.partIdx {
		v, err := valueAt(in.rec.Column(c), int(rows[0]), w.partFields[k].Type)
		if err != nil {
			return s, err
		}
		s.PartitionValues[k] = v
	}
	order := identity(len(rows))
	if sortByKey {
		perm, err := w.keyOrder(ctx, in, rows)
		if err != nil {
			return s, err
		}
		if perm != nil {
			order = perm
		}
	}
	s.Order = order
	idx := make([]int32, len(rows))
	for i, o := range order {
		idx[i] = rows[o]
	}
	s.Rows = idx
	if len(idx) == in.numRows() && contiguous(idx) {
		idx = nil // take retains the whole record
	}
	sub, kinds, _, err := in.take(ctx, w.cfg.mem, idx)
	if err != nil {
		return s, err
	}
	s.Record = sub
	if kinds == nil {
		kinds = make([]int8, len(rows))
	}
	s.Kinds = kinds // in.kinds (idx == nil) is Route's own too
	return s, nil
}

// keyOrder returns the stable order of the rows of in listed in rows by the
// trimmed primary key (the positions within rows), or nil when they are in
// order already.
func (w *Write) keyOrder(ctx context.Context, in *input, rows []int32) ([]int32, error) {
	p := w.pk
	keyCols := in.cols(p.keyIdx)
	if len(rows) != in.numRows() || !contiguous(rows) {
		fields := make([]arrow.Field, len(p.keyIdx))
		for k, i := range p.keyIdx {
			fields[k] = w.tableSchema.Field(i)
		}
		keys := array.NewRecordBatch(arrow.NewSchema(fields, nil), keyCols, int64(in.numRows()))
		sub, err := format.Take(ctx, w.cfg.mem, keys, rows)
		keys.Release()
		if err != nil {
			return nil, fmt.Errorf("writer: sort buffered rows: %w", err)
		}
		defer sub.Release()
		keyCols = sub.Columns()
	}
	return sortPermutation(keyCols, len(rows))
}

// identity returns 0, 1, ..., n-1.
func identity(n int) []int32 {
	out := make([]int32, n)
	for i := range out {
		out[i] = int32(i)
	}
	return out
}
