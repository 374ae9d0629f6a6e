package resequence

import (
	"context"
	"fmt"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"
	"github.com/google/uuid"

	"github.com/paimon-go/paimon/datafile"
	"github.com/paimon-go/paimon/manifest"
	"github.com/paimon-go/paimon/row"
)

// Pick selects row i of a key-value file from its key columns (the _KEY_
// columns, the trimmed primary key in order).
type Pick func(keys []arrow.Array, i int) (bool, error)

// Retract writes, for the rows of the key-value data file f of partition's
// bucket that pick selects, DELETE records (the rows with _VALUE_KIND -D
// and _SEQUENCE_NUMBER seq) into new level-0 files of the same bucket, in
// the file's schema and row order (so sorted by key, as f is). It returns
// nil when pick selects no row. The caller orders the files after the
// bucket's live rows (the committer's re-sequencing does); seq is the
// lowest sequence number of the caller's other new files in the bucket (0
// if none), so that the one shift the re-sequencing gives the bucket's new
// files stays what it is without the retraction. It serves
// cross-partition upsert tables whose commit must delete keys another
// writer put in another partition-bucket meanwhile (commit's
// cross-partition guard; Java's DeleteExistingProcessor retraction). On
// error the files written are deleted.
//
// Errors: ErrUnsupported (naming the file); errors of reading f or writing
// the copies, naming the file.
func (r *Rewriter) Retract(ctx context.Context, partition []byte, bucket int32, f manifest.DataFileMeta, seq int64, pick Pick) (out []manifest.DataFileMeta, err error) {
	dir, path, ts, layout, nKeys, err := r.bucketFile(ctx, partition, bucket, f)
	if err != nil {
		return nil, err
	}
	out0, err := r.layout(ts, 0)
	if err != nil {
		return nil, fmt.Errorf("%w: %s: %w", ErrUnsupported, path, err)
	}
	var w *datafile.RollingWriter
	defer func() {
		if err != nil && w != nil {
			_ = w.Abort(context.WithoutCancel(ctx))
		}
	}()
	err = r.readFile(ctx, path, f, layout, func(rec arrow.RecordBatch) error {
		keys := rec.Columns()[:nKeys]
		var idx []int32
		for i := range int(rec.NumRows()) {
			ok, err := pick(keys, i)
			if err != nil {
				return fmt.Errorf("resequence: %s: row key: %w", path, err)
			}
			if ok {
				idx = append(idx, int32(i))
			}
		}
		if len(idx) == 0 {
			return nil
		}
		sub, err := take(ctx, r.mem, rec, idx)
		if err != nil {
			return fmt.Errorf("resequence: %s: %w", path, err)
		}
		del := retracted(sub, nKeys, seq, r)
		sub.Release()
		defer del.Release()
		if w == nil {
			w = datafile.NewRollingWriter(r.fio, dir, out0, datafile.NewNamer(uuid.NewString()), 0)
		}
		return w.Write(ctx, del)
	})
	if err != nil || w == nil {
		return nil, err
	}
	out, err = w.Flush(ctx)
	if err != nil {
		return nil, err
	}
	w = nil
	return out, nil
}

// retracted returns rec with _SEQUENCE_NUMBER (column nKeys) seq and
// _VALUE_KIND (column nKeys+1) DELETE.
func retracted(rec arrow.RecordBatch, nKeys int, seq int64, r *Rewriter) arrow.RecordBatch {
	n := int(rec.NumRows())
	sb := array.NewInt64Builder(r.mem)
	defer sb.Release()
	kb := array.NewInt8Builder(r.mem)
	defer kb.Release()
	for range n {
		sb.Append(seq)
		kb.Append(int8(row.RowKindDelete))
	}
	seqs, kind := sb.NewArray(), kb.NewArray()
	defer seqs.Release()
	defer kind.Release()
	cols := make([]arrow.Array, rec.NumCols())
	copy(cols, rec.Columns())
	cols[nKeys], cols[nKeys+1] = seqs, kind
	return array.NewRecordBatch(rec.Schema(), cols, rec.NumRows())
}
