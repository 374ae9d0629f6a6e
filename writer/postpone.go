package writer

import (
	"context"
	"errors"
	"fmt"
	"maps"
	"math"
	"math/rand/v2"
	"strconv"
	"strings"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"
	"github.com/apache/arrow-go/v18/arrow/memory"

	"github.com/paimon-go/paimon/format/avro"
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
	// into: postpone.batch-write-fixed-bucket = false, every row goes into
	// bucket-postpone (Java PostponeBucketWriter), see initPostpone.
	into       bool
	defaultNum int
	// num is each written partition's bucket count, fixed when the
	// partition is first written (Java's knownNumBuckets.computeIfAbsent).
	num map[string]int
}

// PostponeBucket is the bucket of bucket-postpone files (Java
// BucketMode.POSTPONE_BUCKET); their directory is "bucket-postpone".
const PostponeBucket = -2

// initPostpone sets up a bucket = -2 Write. With
// postpone.batch-write-fixed-bucket = true (the default) it writes into
// real buckets like Java's PostponeUtils.tableForFixBucketWrite, with
// write-only = true: the Write never compacts (a postpone compaction does).
//
// With false every row goes into bucket-postpone as Java's
// PostponeBucketFileStoreWrite / PostponeBucketWriter write it: Avro files
// (unless the table's types have no Avro form, then file.format) with
// metadata.stats-mode = none, named
// "<data-file.prefix>-u-<commitUser>-s-<writeId>-w-<uuid>-<n>.avro"
// (writeId a random non-negative int32, as Java's
// ThreadLocalRandom.nextInt(Integer.MAX_VALUE) when the sink gives none),
// rows in arrival order without sorting or merging, every row with
// _SEQUENCE_NUMBER -1 (KeyValue.UNKNOWN_SEQUENCE), level 0, file source
// APPEND and _TOTAL_BUCKETS -2; the files' min and max keys are their first
// and last rows' keys; WithSequenceColumn's numbers are not written. The
// Write reads no snapshot (Java ignores previous files). A postpone
// compaction (package compaction) later routes the rows into real buckets
// in file creation order.
func (w *Write) initPostpone() error {
	o := w.ts.Options
	fixed, err := o.Bool(keyPostponeBatchFixed, true)
	if err != nil {
		return err
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
	if !fixed {
		if avro.Holds(ts.Fields) {
			ts.Options[schema.KeyFileFormat] = "avro"
			ts.Options[schema.KeyMetadataStatsMode] = "none"
		}
		ts.Options[schema.KeyDataFilePrefix] = fmt.Sprintf("%s-u-%s-s-%d-w-", o.DataFilePrefix(), w.commitUser, rand.Int32N(math.MaxInt32))
	}
	w.ts = &ts
	w.post = &postponeBuckets{into: !fixed, defaultNum: n, num: map[string]int{}}
	return nil
}

// writePostpone writes rows of a bucket-postpone writer as they come: the
// KeyValue layout with _SEQUENCE_NUMBER -1 and the rows' kinds (Java
// PostponeBucketWriter's DirectSinkWriter).
func (w *Write) writePostpone(ctx context.Context, bw *bucketWriter, rec arrow.RecordBatch, kinds []int8) error {
	m := int(rec.NumRows())
	if m == 0 {
		return nil
	}
	if kinds == nil {
		kinds = w.zeroKinds(m)
	}
	seqs := make([]int64, m)
	for i := range seqs {
		seqs[i] = -1
	}
	seqArr := int64Array(seqs)
	defer seqArr.Release()
	kindArr := array.NewInt8Data(array.NewData(arrow.PrimitiveTypes.Int8, m,
		[]*memory.Buffer{nil, memory.NewBufferBytes(arrow.Int8Traits.CastToBytes(kinds))}, nil, 0, 0))
	defer kindArr.Release()
	p := w.pk
	cols := make([]arrow.Array, 0, len(p.kvFields))
	for _, i := range p.keyIdx {
		cols = append(cols, rec.Column(i))
	}
	cols = append(cols, seqArr, kindArr)
	cols = append(cols, rec.Columns()...)
	out := array.NewRecordBatch(p.kvSchema, cols, int64(m))
	defer out.Release()
	return bw.rw.Write(ctx, out)
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
	if w.post != nil && w.post.into {
		return PostponeBucket
	}
	if w.post != nil {
		return int32(w.post.num[string(bw.partition)])
	}
	return int32(w.numBuckets)
}

// bucketDir is the directory name of a bucket below its partition:
// "bucket-<n>", "bucket-postpone" for PostponeBucket (Java
// FileStorePathFactory.bucketPath).
func bucketDir(bucket int32) string {
	if bucket == PostponeBucket {
		return "bucket-postpone"
	}
	return "bucket-" + strconv.Itoa(int(bucket))
}
