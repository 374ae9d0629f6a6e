package resequence

import (
	"context"

	"github.com/apache/arrow-go/v18/arrow"

	"github.com/paimon-go/paimon/manifest"
)

// Rows reads the key-value data file f of partition's bucket and hands
// each batch whole to each, which must not keep it: the _KEY_ columns (the
// trimmed primary key, keys of them), _SEQUENCE_NUMBER (int64),
// _VALUE_KIND (int8, Java RowKind) and the value columns of the file's
// schema, named as the table fields. The writer refreshes its
// cross-partition key index with it.
//
// Errors: as Keys.
func (r *Rewriter) Rows(ctx context.Context, partition []byte, bucket int32, f manifest.DataFileMeta, each func(rec arrow.RecordBatch, keys int) error) error {
	dir, err := r.BucketDir(partition, bucket)
	if err != nil {
		return err
	}
	path := dir + "/" + f.FileName
	ts, layout, err := r.source(ctx, path, f)
	if err != nil {
		return err
	}
	nKeys := len(ts.TrimmedPrimaryKeys())
	return r.readFile(ctx, path, f, layout, func(rec arrow.RecordBatch) error {
		return each(rec, nKeys)
	})
}
