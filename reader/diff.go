package reader

import (
	"context"
	"fmt"
	"iter"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"
	"github.com/apache/arrow-go/v18/arrow/memory"

	"github.com/paimon-go/paimon/manifest"
	"github.com/paimon-go/paimon/merge"
	"github.com/paimon-go/paimon/snapshot"
	"github.com/paimon-go/paimon/types"
)

// planDiff plans the diff of snapshots before and after (Java
// SnapshotReaderImpl.readIncrementalDiff): per partition-bucket the live
// files of each, without the files both have.
func (s *Scan) planDiff(ctx context.Context, t *tableState, plan *Plan, pr *pruner, before, after *snapshot.Snapshot) error {
	side := func(sn *snapshot.Snapshot) ([]manifest.Entry, map[bucketKey]map[string]DeletionFile, error) {
		entries, err := s.readEntries(ctx, t, sn, pr)
		if err != nil {
			return nil, nil, expiredErr(ctx, t.meta, sn, false, err)
		}
		dvs, err := readDeletionFiles(ctx, t, sn)
		if err != nil {
			return nil, nil, expiredErr(ctx, t.meta, sn, false, err)
		}
		return entries, dvs, nil
	}
	bEntries, bDVs, err := side(before)
	if err != nil {
		return err
	}
	aEntries, aDVs, err := side(after)
	if err != nil {
		return err
	}
	// Java removes the entries both snapshots hold (ManifestEntry.equals:
	// the same file in the same partition-bucket at the same level).
	id := func(e *manifest.Entry) string {
		return fmt.Sprintf("%x/%d/%d/%s", e.Partition, e.Bucket, e.File.Level, e.File.FileName)
	}
	inAfter := map[string]bool{}
	for i := range aEntries {
		inAfter[id(&aEntries[i])] = true
	}
	inBefore := map[string]bool{}
	var bKeep []manifest.Entry
	for i := range bEntries {
		k := id(&bEntries[i])
		inBefore[k] = true
		if !inAfter[k] {
			bKeep = append(bKeep, bEntries[i])
		}
	}
	var aKeep []manifest.Entry
	for i := range aEntries {
		if !inBefore[id(&aEntries[i])] {
			aKeep = append(aKeep, aEntries[i])
		}
	}
	ts := plan.Schema
	aSplits, err := buildSplits(t, ts, aKeep, aDVs, s.cfg.allLevels, false)
	if err != nil {
		return err
	}
	for _, sp := range aSplits {
		sp.diff = true
	}
	if len(ts.PrimaryKeys) == 0 {
		// Append tables read the new files only (Java RawFileSplitRead
		// ignores the before files of an incremental split).
		manifestOrder(aSplits, aKeep)
		plan.Splits = aSplits
		return nil
	}
	bSplits, err := buildSplits(t, ts, bKeep, bDVs, s.cfg.allLevels, false)
	if err != nil {
		return err
	}
	byKey := map[bucketKey]*Split{}
	for _, sp := range aSplits {
		byKey[bucketKey{string(sp.Partition), sp.Bucket}] = sp
	}
	for _, b := range bSplits {
		a := byKey[bucketKey{string(b.Partition), b.Bucket}]
		if a == nil {
			a = &Split{Partition: b.Partition, PartitionValues: b.PartitionValues, Bucket: b.Bucket, TotalBuckets: b.TotalBuckets,
				BucketPath: b.BucketPath, PrimaryKey: true, DeletionFiles: map[string]DeletionFile{}, table: t, schema: ts, diff: true}
			aSplits = append(aSplits, a)
		}
		a.diffBefore = b
	}
	sortSplits(aSplits)
	plan.Splits = aSplits
	return nil
}

// diffMerged merges the before and the after files of a diff split each on
// its own, then walks both in key order (Java IncrementalDiffSplitRead's
// DiffMerger): a key only after is given as it is (a delete only when the
// read keeps deletes); a key only before is given as -D when the read keeps
// deletes (WithRowKind) and the row is an addition; a key in both is given
// with its after row when the value or the addition-ness differs. Batches
// have the value columns then _VALUE_KIND.
func (sr *splitRead) diffMerged(ctx context.Context) iter.Seq2[arrow.RecordBatch, error] {
	return func(yield func(arrow.RecordBatch, error) bool) {
		keep := sr.plan.cfg.rowKind
		after := newDiffCursor(sr.merged(ctx, nil))
		defer after.close()
		var before *diffCursor
		if sr.sp.diffBefore != nil {
			bsr := *sr
			bsr.sp = sr.sp.diffBefore
			before = newDiffCursor(bsr.merged(ctx, nil))
		} else {
			before = newDiffCursor(func(func(arrow.RecordBatch, error) bool) {})
		}
		defer before.close()
		var keyCols []int
		var keyTypes []types.DataType
		for _, k := range sr.ts.TrimmedPrimaryKeys() {
			i, f, _ := types.FieldByName(sr.valueCols, k)
			keyCols = append(keyCols, i)
			keyTypes = append(keyTypes, f.Type)
		}
		out := &diffOut{yield: yield}
		for _, c := range []*diffCursor{after, before} {
			if err := c.load(); err != nil {
				yield(nil, err)
				return
			}
		}
		for !after.done || !before.done {
			var c int
			switch {
			case after.done:
				c = -1
			case before.done:
				c = 1
			default:
				c = compareKeys(before.rec, before.i, after.rec, after.i, keyCols, keyTypes)
			}
			var err error
			switch {
			case c < 0: // only before
				if keep && !merge.IsRetract(before.kind()) {
					out.add(before.rec, before.i, true)
				}
				err = before.advance(out)
			case c > 0: // only after
				if keep || !merge.IsRetract(after.kind()) {
					out.add(after.rec, after.i, false)
				}
				err = after.advance(out)
			default:
				bk, ak := before.kind(), after.kind()
				same := merge.IsRetract(bk) == merge.IsRetract(ak) && rowEqual(before.rec, before.i, after.rec, after.i, len(sr.valueCols))
				if !same && (keep || !merge.IsRetract(ak)) {
					out.add(after.rec, after.i, false)
				}
				if err = before.advance(out); err == nil {
					err = after.advance(out)
				}
			}
			if err != nil {
				out.flush()
				yield(nil, err)
				return
			}
			if out.stopped {
				return
			}
		}
		out.flush()
	}
}

// compareKeys compares the key columns of row i of a and row j of b.
func compareKeys(a arrow.RecordBatch, i int, b arrow.RecordBatch, j int, cols []int, ts []types.DataType) int {
	for n, c := range cols {
		x, _ := types.ArrowView(ts[n], a.Column(c), i)
		y, _ := types.ArrowView(ts[n], b.Column(c), j)
		switch {
		case x == nil && y == nil:
			continue
		case x == nil:
			return -1
		case y == nil:
			return 1
		}
		if r := types.Compare(ts[n], x, y); r != 0 {
			return r
		}
	}
	return 0
}

// rowEqual reports whether the first n columns of row i of a and row j of
// b hold equal values.
func rowEqual(a arrow.RecordBatch, i int, b arrow.RecordBatch, j int, n int) bool {
	for c := range n {
		if !array.SliceEqual(a.Column(c), int64(i), int64(i+1), b.Column(c), int64(j), int64(j+1)) {
			return false
		}
	}
	return true
}

// diffCursor walks the rows of a stream of batches.
type diffCursor struct {
	next func() (arrow.RecordBatch, error, bool)
	stop func()
	rec  arrow.RecordBatch
	i    int
	done bool
}

func newDiffCursor(seq iter.Seq2[arrow.RecordBatch, error]) *diffCursor {
	next, stop := iter.Pull2(seq)
	return &diffCursor{next: next, stop: stop}
}

// load moves to the first row of the next non-empty batch.
func (c *diffCursor) load() error {
	for {
		rec, err, ok := c.next()
		if !ok {
			c.done = true
			return nil
		}
		if err != nil {
			c.done = true
			return err
		}
		if rec.NumRows() > 0 {
			c.rec, c.i = rec, 0
			return nil
		}
		rec.Release()
	}
}

// advance moves to the next row; out gives up its hold on a finished batch.
func (c *diffCursor) advance(out *diffOut) error {
	c.i++
	if c.i < int(c.rec.NumRows()) {
		return nil
	}
	out.release(c.rec)
	c.rec.Release()
	c.rec = nil
	return c.load()
}

func (c *diffCursor) kind() int8 {
	k := c.rec.Column(int(c.rec.NumCols()) - 1).(*array.Int8)
	return k.Value(c.i)
}

func (c *diffCursor) close() {
	if c.rec != nil {
		c.rec.Release()
		c.rec = nil
	}
	c.stop()
}

// diffOut gathers runs of consecutive output rows of one batch and yields
// them as slices; delete runs get the _VALUE_KIND -D.
type diffOut struct {
	yield   func(arrow.RecordBatch, error) bool
	src     arrow.RecordBatch
	lo, hi  int
	del     bool
	stopped bool
}

func (o *diffOut) add(rec arrow.RecordBatch, i int, del bool) {
	if o.src == rec && o.hi == i && o.del == del {
		o.hi++
		return
	}
	o.flush()
	o.src, o.lo, o.hi, o.del = rec, i, i+1, del
}

// release flushes the pending run when it is of rec, which is about to be
// released.
func (o *diffOut) release(rec arrow.RecordBatch) {
	if o.src == rec {
		o.flush()
	}
}

func (o *diffOut) flush() {
	if o.src == nil || o.stopped {
		o.src = nil
		return
	}
	out := o.src.NewSlice(int64(o.lo), int64(o.hi))
	o.src = nil
	if o.del {
		n := int(out.NumCols())
		b := array.NewInt8Builder(memory.DefaultAllocator)
		for range out.NumRows() {
			b.Append(merge.KindDelete)
		}
		kinds := b.NewArray()
		b.Release()
		cols := make([]arrow.Array, n)
		for c := range n - 1 {
			cols[c] = out.Column(c)
		}
		cols[n-1] = kinds
		rec := array.NewRecordBatch(out.Schema(), cols, out.NumRows())
		kinds.Release()
		out.Release()
		out = rec
	}
	if !o.yield(out, nil) {
		o.stopped = true
	}
}
