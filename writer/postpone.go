package writer

import (
	"context"
	"errors"
	"fmt"
	"maps"
	"strings"

	"github.com/paimon-go/paimon/schema"
)

// ErrMixedBucketCounts: a partition of a postpone-bucket table (bucket =
// -2) has real-bucket files of two different bucket counts in the latest
// snapshot, so the bucket count its rows go to is not known (Java
// PostponeUtils.getKnownNumBuckets fails the same way); the message names
// the partition and both counts.
var ErrMixedBucketCounts = errors.New("writer: partition has files of different bucket counts")

// Option keys of postpone-bucket writes (Java CoreOptions).
const (
	keyPostponeBatchFixed = "postpone.batch-write-fixed-bucket"
	keyPostponeDefaultNum = "postpone.default-bucket-num"
)

// postponeBuckets is the bucket assignment of a batch write into a
// postpone-bucket primary-key table (bucket = -2) with
// postpone.batch-write-fixed-bucket = true (Java
// PostponeBatchWriteOperator): each partition's rows go straight into its
// real buckets, as many as the partition's real-bucket files of the
// latest snapshot were written with (their _TOTAL_BUCKETS), else
// postpone.default-bucket-num. Flink uses min(sink parallelism,
// postpone.batch-write-fixed-bucket.max-parallelism) for partitions
// without real-bucket files; a Go Write has no parallelism and uses the
// bucket count postpone compaction gives such partitions instead.
type postponeBuckets struct {
	defaultNum int
	// num is each written partition's bucket count, fixed when the
	// partition is first written (Java's knownNumBuckets.computeIfAbsent).
	num map[string]int
}

// initPostpone sets up a bucket = -2 Write. Like Java's
// PostponeUtils.tableForFixBucketWrite it writes with write-only = true:
// the Write never compacts (a postpone compaction does).
func (w *Write) initPostpone() error {
	o := w.ts.Options
	fixed, err := o.Bool(keyPostponeBatchFixed, true)
	if err != nil {
		return err
	}
	if !fixed {
		return fmt.Errorf("%w: bucket = -2 with %s = false (writing into bucket-postpone) is not supported yet", ErrUnsupportedBucketMode, keyPostponeBatchFixed)
	}
	n, err := o.Int(keyPostponeDefaultNum, 1)
	if err != nil {
		return err
	}
	if n <= 0 {
		return fmt.Errorf("%w: %s = %d must be positive", schema.ErrInvalidOption, keyPostponeDefaultNum, n)
	}
	ts := *w.ts
	ts.Options = maps.Clone(w.ts.Options)
	ts.Options[schema.KeyWriteOnly] = "true"
	w.ts = &ts
	w.post = &postponeBuckets{defaultNum: n, num: map[string]int{}}
	return nil
}

// postponeNumBuckets returns the bucket count of the partition part
// (serialized) with path partPath, reading the latest snapshot on first
// use. Errors: ErrMixedBucketCounts; errors of reading the snapshot.
func (w *Write) postponeNumBuckets(ctx context.Context, part []byte, partPath string) (int, error) {
	p := w.post
	if n, ok := p.num[string(part)]; ok {
		return n, nil
	}
	if err := w.loadRestore(ctx); err != nil {
		return 0, err
	}
	if c, ok := w.partBktsMixed[string(part)]; ok {
		return 0, fmt.Errorf("%w: partition %q has real-bucket files for %d and for %d buckets (snapshot %d)",
			ErrMixedBucketCounts, strings.TrimSuffix(partPath, "/"), c[0], c[1], w.restoredSnap)
	}
	n := p.defaultNum
	if tb, ok := w.partBkts[string(part)]; ok && tb > 0 {
		n = int(tb)
	}
	p.num[string(part)] = n
	return n, nil
}

// totalBuckets is the _TOTAL_BUCKETS of the files bw writes: the table's
// bucket option, or the partition's bucket count for postpone tables.
func (w *Write) totalBuckets(bw *bucketWriter) int32 {
	if w.post != nil {
		return int32(w.post.num[string(bw.partition)])
	}
	return int32(w.numBuckets)
}
