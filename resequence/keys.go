package resequence

import (
	"context"

	"github.com/apache/arrow-go/v18/arrow"

	"github.com/paimon-go/paimon/manifest"
)

// Keys reads the key-value data file f of partition's bucket and hands the
// key columns of each batch (the _KEY_ columns, the trimmed primary key in
// order) and its row count to each, which must not keep them. The committer
// reads with it the keys other writers added to a cross-partition upsert
// table (commit's cross-partition guard).
//
// Errors: ErrUnsupported (naming the file); errors of reading f, naming
// it (format.ErrCorrupt for a row count other than its metadata's).
func (r *Rewriter) Keys(ctx context.Context, partition []byte, bucket int32, f manifest.DataFileMeta, each func(keys []arrow.Array, n int) error) error {
	_, path, _, layout, nKeys, err := r.bucketFile(ctx, partition, bucket, f)
	if err != nil {
		return err
	}
	return r.readFile(ctx, path, f, layout, func(rec arrow.RecordBatch) error {
		return each(rec.Columns()[:nKeys], int(rec.NumRows()))
	})
}
