package writer

import (
	"context"
	"fmt"

	"github.com/paimon-go/paimon/reader"
)

// loadRestore reads the live files of the latest snapshot once per Write
// and records, per partition-bucket, the highest sequence number and, per
// partition, the bucket count the files were written with
// (AbstractFileStoreWrite.scanExistingFileMetas with
// write.sequence-number-init-mode = scan).
func (w *Write) loadRestore(ctx context.Context) error {
	if w.restored != nil {
		return nil
	}
	plan, err := reader.NewScan(w.fio, reader.WithAllLevels(), reader.WithoutFallback()).Plan(ctx)
	if err != nil {
		return fmt.Errorf("writer: restore from latest snapshot: %w", err)
	}
	restored := map[string]restoredBucket{}
	parts := map[string]int32{}
	for _, sp := range plan.Splits {
		key := groupKey(sp.Partition, sp.Bucket)
		r, ok := restored[key]
		if !ok {
			r.maxSeq = -1
		}
		for _, f := range sp.Files {
			r.maxSeq = max(r.maxSeq, f.MaxSequenceNumber)
		}
		restored[key] = r
		if sp.TotalBuckets > 0 {
			parts[string(sp.Partition)] = sp.TotalBuckets
		}
	}
	w.restored, w.partBkts = restored, parts
	return nil
}
