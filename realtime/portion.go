package realtime

import (
	"context"
	"errors"
	"fmt"
	"iter"
	"slices"

	"github.com/apache/arrow-go/v18/arrow"

	"github.com/paimon-go/paimon/progress"
	"github.com/paimon-go/paimon/reader"
)

// ErrPortionMismatch reports a real-time portion that does not continue the
// snapshot it is read with: another snapshot id, or a committed end other
// than the snapshot's recorded end of its partition-bucket.
var ErrPortionMismatch = errors.New("realtime: real-time portion does not continue the snapshot")

// Portion is the real-time portion of one partition-bucket returned on its
// own, as PIP-46 describes it for external engines: the rows a store holds
// above snapshot SnapshotID, exactly those with CommittedEnd <= offset <
// MemoryEnd, in the transport schema (Context.TransportSchema: append
// tables [_REALTIME_OFFSET, columns...], primary-key tables [_VALUE_KIND,
// _SEQUENCE_NUMBER, _REALTIME_OFFSET, columns...]), in offset order per
// store reader. A reader of the snapshot that merges them itself
// (ReadUnion) reads what a real-time scan of the holding context reads.
type Portion struct {
	PartitionBucket progress.PartitionBucket
	// Partition is the serialized partition BinaryRow (row.Serialize; the
	// empty row for an unpartitioned table).
	Partition               []byte
	SnapshotID              int64
	CommittedEnd, MemoryEnd int64
	// Rows are the memory rows; ReadUnion releases them.
	Rows []arrow.RecordBatch
}

// Partition returns the serialized partition BinaryRow of the split's
// partition-bucket (nil for a plain split of a partition-bucket the
// context holds no rows of).
func (s *Split) Partition() []byte {
	if s.st == nil {
		return nil
	}
	return s.st.partition
}

// ReadMemory reads only the memory rows of a real-time split, exactly those
// with CommittedEnd <= offset < MemoryEnd, in the transport schema with
// every column; a plain split yields nothing. Like ReadSplit it consumes
// the split's ticket. It is the server side of a Portion. Errors: those of
// ReadSplit.
func (p *Plan) ReadMemory(ctx context.Context, sp *Split) iter.Seq2[arrow.RecordBatch, error] {
	return func(yield func(arrow.RecordBatch, error) bool) {
		if err := p.owns(sp); err != nil {
			yield(nil, err)
			return
		}
		if !sp.Realtime() {
			return
		}
		pn, mem, err := p.openMemory(ctx, sp, true)
		if err != nil {
			yield(nil, err)
			return
		}
		defer pn.view.Release()
		for _, m := range mem {
			for rec, err := range m {
				if !yield(rec, err) || err != nil {
					return
				}
			}
		}
	}
}

// ReadUnion reads the disk plan rp of a committed snapshot with real-time
// portions fetched elsewhere merged in, as Plan.Records of the context that
// holds them would: append tables yield each partition-bucket's files, then
// its memory rows after the last of them; primary-key tables merge the
// memory rows, as the newest sorted runs, with every file of the
// partition-bucket by the merge engine; partition-buckets without files
// follow in partition-bucket order. The plan's filter and projection apply
// to the merged rows. off are the offsets rp.Snapshot records
// (progress.OfSnapshot). ReadUnion owns the portions' rows and releases
// them.
//
// Errors: ErrPortionMismatch when a portion names another snapshot than
// rp's or begins elsewhere than the snapshot's end of its partition-bucket,
// reader.ErrInvalidScan for a portion's partition that does not decode, and
// the reader's errors.
func ReadUnion(ctx context.Context, rp *reader.Plan, off progress.Offsets, portions []Portion) iter.Seq2[arrow.RecordBatch, error] {
	return func(yield func(arrow.RecordBatch, error) bool) {
		used := make([]bool, len(portions))
		defer func() {
			for i, pt := range portions {
				if !used[i] {
					for _, r := range pt.Rows {
						r.Release()
					}
				}
			}
		}()
		var snapID int64
		if rp.Snapshot != nil {
			snapID = rp.Snapshot.ID
		}
		byKey := map[string]int{}
		for i, pt := range portions {
			if pt.SnapshotID != snapID {
				yield(nil, fmt.Errorf("%w: portion of %s above snapshot %d, read with snapshot %d", ErrPortionMismatch, pt.PartitionBucket, pt.SnapshotID, snapID))
				return
			}
			if end, _ := off.End(pt.PartitionBucket); end != pt.CommittedEnd {
				yield(nil, fmt.Errorf("%w: portion of %s begins at %d, snapshot %d ends it at %d", ErrPortionMismatch, pt.PartitionBucket, pt.CommittedEnd, snapID, end))
				return
			}
			byKey[pbKey(pt.Partition, pt.PartitionBucket.Bucket)] = i
		}
		primary := rp.Schema != nil && len(rp.Schema.PrimaryKeys) > 0
		// take returns the memory runs of portion i. A primary-key portion's
		// batches are each sorted by key (a stored batch, or a piece of one:
		// the transport may cut them), not sorted across each other, so each
		// is a sorted run of its own; an append portion is one run in offset
		// order.
		take := func(i int) []iter.Seq2[arrow.RecordBatch, error] {
			used[i] = true
			rows := portions[i].Rows
			if primary {
				runs := make([]iter.Seq2[arrow.RecordBatch, error], len(rows))
				for j, r := range rows {
					runs[j] = func(yield func(arrow.RecordBatch, error) bool) {
						if !yield(r, nil) {
							r.Release() // a consumer that stops leaves the batch to the producer
						}
					}
				}
				return runs
			}
			return []iter.Seq2[arrow.RecordBatch, error]{func(yield func(arrow.RecordBatch, error) bool) {
				for j, r := range rows {
					if !yield(r, nil) {
						for _, rest := range rows[j+1:] {
							rest.Release()
						}
						return
					}
				}
			}}
		}
		emit := func(seq iter.Seq2[arrow.RecordBatch, error]) bool {
			for rec, err := range seq {
				if !yield(rec, err) || err != nil {
					return false
				}
			}
			return true
		}
		last := map[string]int{}
		for i, ds := range rp.Splits {
			last[pbKey(ds.Partition, ds.Bucket)] = i
		}
		done := map[string]bool{}
		for i, ds := range rp.Splits {
			key := pbKey(ds.Partition, ds.Bucket)
			pi, ok := byKey[key]
			if ok && !rp.SelectsBucket(ds.Partition, ds.Bucket) {
				ok = false
			}
			switch {
			case !ok || (!primary && i != last[key]):
				if !emit(rp.ReadSplit(ctx, ds)) {
					return
				}
			case !primary:
				if !emit(rp.ReadSplitWith(ctx, ds, take(pi))) {
					return
				}
			case done[key]:
			default:
				done[key] = true
				var disk []*reader.Split
				for _, o := range rp.Splits {
					if pbKey(o.Partition, o.Bucket) == key {
						disk = append(disk, o)
					}
				}
				if !emit(rp.ReadSplitWith(ctx, foldSplits(disk), take(pi))) {
					return
				}
			}
		}
		rest := make([]int, 0, len(portions))
		for i := range portions {
			if !used[i] {
				rest = append(rest, i)
			}
		}
		slices.SortFunc(rest, func(a, b int) int {
			return comparePB(portions[a].Partition, portions[a].PartitionBucket.Bucket, portions[b].Partition, portions[b].PartitionBucket.Bucket)
		})
		for _, i := range rest {
			pt := portions[i]
			if !rp.SelectsBucket(pt.Partition, pt.PartitionBucket.Bucket) {
				continue
			}
			empty, err := rp.EmptySplit(pt.Partition, pt.PartitionBucket.Bucket)
			if err != nil {
				yield(nil, err)
				return
			}
			if !emit(rp.ReadSplitWith(ctx, empty, take(i))) {
				return
			}
		}
	}
}
