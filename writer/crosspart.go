package writer

import (
	"context"
	"errors"
	"fmt"
	"slices"
	"time"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"
	"github.com/apache/arrow-go/v18/arrow/compute"
	"github.com/apache/arrow-go/v18/arrow/memory"

	"github.com/paimon-go/paimon/fileio"
	"github.com/paimon-go/paimon/keyindex"
	"github.com/paimon-go/paimon/manifest"
	"github.com/paimon-go/paimon/reader"
	"github.com/paimon-go/paimon/resequence"
	"github.com/paimon-go/paimon/row"
	"github.com/paimon-go/paimon/schema"
	"github.com/paimon-go/paimon/snapshot"
	"github.com/paimon-go/paimon/types"
)

// crossPartition is the bucket assignment of a cross-partition upsert table
// (bucket = -1 with a primary key that lacks a partition field; Java
// KEY_DYNAMIC bucket mode and GlobalIndexAssigner): every key keeps one
// partition-bucket, found in a key index bootstrapped from the snapshot the
// Write restored from. A row whose key lives in another partition is
// handled by the merge engine's ExistingProcessor: deduplicate deletes the
// key from its old partition-bucket and writes the row into its own
// partition as a new key; partial-update and aggregation write the row into
// the old partition-bucket with the old partition's values; first-row drops
// the row.
type crossPartition struct {
	engine schema.MergeEngine
	target int64
	idx    *keyindex.Index // nil until the first write
	// from is the snapshot the index was bootstrapped from or last
	// refreshed to (0: none); commit messages carry it as KeyIndexFrom.
	from int64
	// pending: rows were routed since the last PrepareCommit, so the index
	// is not refreshed before the next row (refreshCross).
	pending bool
	// reboot: the index is bootstrapped from the latest snapshot, not the
	// restored one (a refresh failed).
	reboot bool
	// ttl is cross-partition-upsert.index-ttl (hasTTL: set).
	ttl    time.Duration
	hasTTL bool
	rw     *resequence.Rewriter // reads replayed files; nil until used
}

// fresh is the split filter of cross-partition-upsert.index-ttl at now
// (keyindex.Fresh), nil without the option.
func (x *crossPartition) fresh(now time.Time) func([]manifest.DataFileMeta) bool {
	if !x.hasTTL {
		return nil
	}
	return func(files []manifest.DataFileMeta) bool { return keyindex.Fresh(files, x.ttl, now) }
}

func (w *Write) initCross() error {
	o := w.ts.Options
	x := &crossPartition{}
	var err error
	if x.engine, err = o.MergeEngine(); err != nil {
		return err
	}
	if x.target, err = o.DynamicBucketTargetRowNum(); err != nil {
		return err
	}
	if x.ttl, x.hasTTL, err = o.CrossPartitionUpsertIndexTTL(); err != nil {
		return err
	}
	if x.target <= 0 {
		return fmt.Errorf("%w: dynamic-bucket.target-row-num = %d must be positive", ErrUnsupported, x.target)
	}
	w.xp = x
	return nil
}

// crossIndex returns the key index, bootstrapping it on first use from the
// snapshot the Write restored from, and refreshing it to the latest
// snapshot before the first row after each PrepareCommit (refreshCross).
func (w *Write) crossIndex(ctx context.Context) (*keyindex.Index, error) {
	x := w.xp
	if x.idx == nil && x.reboot {
		latest, err := snapshot.NewManager(w.fio).LatestID(ctx)
		switch {
		case errors.Is(err, snapshot.ErrNotFound):
			latest = 0
		case err != nil:
			return nil, fmt.Errorf("writer: cross-partition key index: %w", err)
		}
		if err := w.rebootCross(ctx, latest); err != nil {
			return nil, err
		}
	}
	if x.idx == nil {
		if err := w.loadRestore(ctx); err != nil {
			return nil, err
		}
		idx, err := bootstrapKeyIndex(ctx, w.fio, w.restoredSnap, w.ts.TrimmedPrimaryKeys(), w.ts.PartitionKeys, w.bucketType, x.target, x.fresh(w.now()), w.cfg.mem)
		if err != nil {
			return nil, fmt.Errorf("writer: cross-partition key index: %w", err)
		}
		x.idx, x.from = idx, w.restoredSnap
	}
	if !x.pending {
		if err := w.refreshCross(ctx); err != nil {
			return nil, err
		}
	}
	return x.idx, nil
}

// routed is one output row of routeCross: a row of the input, its kind, the
// partition id whose values replace the row's (-1: its own) and its bucket.
type routed struct {
	src    int32
	kind   int8
	part   int32
	bucket int32
}

// routeCross assigns every kept row of in its bucket through the key index
// (GlobalIndexAssigner.processInput, in input order, so a key written
// several times in one batch ends where Java's bulk load puts it) and
// returns the input to group: rows in order, DELETE rows added before rows
// whose key moves (deduplicate), partition values replaced (partial-update,
// aggregation), rows dropped (first-row), with in.buckets set.
func (w *Write) routeCross(ctx context.Context, in *input) (*input, error) {
	idx, err := w.crossIndex(ctx)
	if err != nil {
		return nil, err
	}
	n := in.numRows()
	partCols, keyCols := in.cols(w.partIdx), in.cols(w.bucketIdx)
	partVals := make([]any, len(w.partIdx))
	keyVals := make([]any, len(w.bucketIdx))
	out := make([]routed, 0, n)
	plain := in.keep == nil // out is exactly the input rows with their own partitions
	for i := range n {
		if in.keep != nil && !in.keep[i] {
			continue
		}
		for k, c := range partCols {
			if partVals[k], err = viewAt(c, i, w.partFields[k].Type); err != nil {
				return nil, err
			}
		}
		br, err := row.Encode(w.partTypes, partVals)
		if err != nil {
			return nil, fmt.Errorf("writer: partition of row %d: %w", i, err)
		}
		pid := idx.Part(row.Serialize(br))
		if idx.Values(pid) == nil {
			if err := idx.SetValues(pid, partCols, i, w.cfg.mem); err != nil {
				return nil, err
			}
		}
		key, err := keyindex.Key(keyCols, w.bucketType, i, keyVals)
		if err != nil {
			return nil, fmt.Errorf("writer: key of row %d: %w", i, err)
		}
		kind := int8(0)
		if in.kinds != nil {
			kind = in.kinds[i]
		}
		l, ok := idx.Get(key)
		switch {
		case !ok:
			b := idx.Assign(pid)
			idx.Put(key, keyindex.Loc{Part: pid, Bucket: b})
			out = append(out, routed{src: int32(i), kind: kind, part: -1, bucket: b})
		case l.Part == pid:
			out = append(out, routed{src: int32(i), kind: kind, part: -1, bucket: l.Bucket})
		case w.xp.engine == schema.MergeDeduplicate:
			// DeleteExistingProcessor: retract the key from its old
			// partition-bucket, then write the row as a new key.
			out = append(out, routed{src: int32(i), kind: int8(row.RowKindDelete), part: l.Part, bucket: l.Bucket})
			idx.Decrement(l.Part, l.Bucket)
			b := idx.Assign(pid)
			idx.Put(key, keyindex.Loc{Part: pid, Bucket: b})
			out = append(out, routed{src: int32(i), kind: kind, part: -1, bucket: b})
			plain = false
		case w.xp.engine == schema.MergeFirstRow:
			plain = false // SkipNewExistingProcessor
		default:
			// UseOldExistingProcessor (partial-update, aggregation).
			out = append(out, routed{src: int32(i), kind: kind, part: l.Part, bucket: l.Bucket})
			plain = false
		}
	}
	if len(out) > 0 {
		w.xp.pending = true
	}
	buckets := make([]int32, len(out))
	for k, r := range out {
		buckets[k] = r.bucket
	}
	if plain {
		in.buckets = buckets
		return in, nil
	}
	return w.rebuildCross(ctx, in, out, buckets)
}

// rebuildCross builds the input of the routed rows out.
func (w *Write) rebuildCross(ctx context.Context, in *input, out []routed, buckets []int32) (*input, error) {
	idx := w.xp.idx
	rows := make([]int32, len(out))
	kinds := make([]int8, len(out))
	var seqs []int64
	if in.seqs != nil {
		seqs = make([]int64, len(out))
	}
	// Partition columns take from the input rows followed by one row per
	// partition whose values replace a row's.
	var extra []int32
	extraRow := map[int32]int32{}
	for k, r := range out {
		rows[k], kinds[k] = r.src, r.kind
		if seqs != nil {
			seqs[k] = in.seqs[r.src]
		}
		if r.part >= 0 {
			if _, ok := extraRow[r.part]; !ok {
				if idx.Values(r.part) == nil {
					return nil, fmt.Errorf("writer: cross-partition key index holds no values of partition %x", idx.Partition(r.part))
				}
				extraRow[r.part] = int32(len(extra))
				extra = append(extra, r.part)
			}
		}
	}
	var taken arrow.RecordBatch
	if len(rows) == 0 {
		taken = in.rec.NewSlice(0, 0)
	} else {
		var err error
		if taken, _, _, err = in.take(ctx, w.cfg.mem, rows); err != nil {
			return nil, err
		}
	}
	defer taken.Release()
	cols := make([]arrow.Array, taken.NumCols())
	for c := range cols {
		cols[c] = taken.Column(c)
		cols[c].Retain()
	}
	defer func() {
		for _, c := range cols {
			c.Release()
		}
	}()
	if len(extra) > 0 {
		n := int32(in.numRows())
		pos := make([]int32, len(out))
		for k, r := range out {
			pos[k] = r.src
			if r.part >= 0 {
				pos[k] = n + extraRow[r.part]
			}
		}
		ib := array.NewInt32Builder(w.cfg.mem)
		ib.AppendValues(pos, nil)
		posArr := ib.NewArray()
		ib.Release()
		defer posArr.Release()
		for k, c := range w.partIdx {
			parts := []arrow.Array{in.rec.Column(c)}
			for _, pid := range extra {
				parts = append(parts, idx.Values(pid)[k])
			}
			all, err := array.Concatenate(parts, w.cfg.mem)
			if err != nil {
				return nil, fmt.Errorf("writer: partition values: %w", err)
			}
			d, err := compute.TakeArray(compute.WithAllocator(ctx, w.cfg.mem), all, posArr)
			all.Release()
			if err != nil {
				return nil, fmt.Errorf("writer: partition values: %w", err)
			}
			cols[c].Release()
			cols[c] = d
		}
	}
	return &input{
		rec:     array.NewRecordBatch(w.tableSchema, cols, int64(len(out))),
		kinds:   kinds,
		seqs:    seqs,
		buckets: buckets,
	}, nil
}

// bootstrapKeyIndex returns the key index (package keyindex) of the table rooted at fio as of snapshot
// snapshotID (0: an empty table gives an empty Index): the trimmed primary
// keys (names keys, types keyTypes) of every split that fresh keeps (nil:
// every split), read merge-on-read over all levels so deleted keys are
// absent, located at the split's partition and bucket (Java
// IndexBootstrap.bootstrap with one assigner; fresh is its
// cross-partition-upsert.index-ttl filterSplit). partKeys are the
// partition column names; their values of every partition holding a key
// are kept (Index.Values).
func bootstrapKeyIndex(ctx context.Context, fio *fileio.FileIO, snapshotID int64, keys, partKeys []string, keyTypes []types.DataType, target int64, fresh func([]manifest.DataFileMeta) bool, mem memory.Allocator) (*keyindex.Index, error) {
	x := keyindex.New(target)
	if snapshotID == 0 {
		return x, nil
	}
	cols := append(slices.Clone(keys), partKeys...)
	plan, err := reader.NewScan(fio, reader.WithSnapshot(snapshotID), reader.WithAllLevels(), reader.WithoutFallback(), reader.WithColumns(cols...)).Plan(ctx)
	if err != nil {
		return nil, fmt.Errorf("keyindex: bootstrap from snapshot %d: %w", snapshotID, err)
	}
	vals := make([]any, len(keyTypes))
	for _, sp := range plan.Splits {
		if fresh != nil && !fresh(sp.Files) {
			continue
		}
		id := x.Part(sp.Partition)
		for b, err := range plan.ReadSplit(ctx, sp) {
			if err != nil {
				return nil, fmt.Errorf("keyindex: bootstrap from snapshot %d, bucket %s: %w", snapshotID, sp.BucketPath, err)
			}
			kc := b.Columns()[:len(keys)]
			n := int(b.NumRows())
			for i := range n {
				k, err := keyindex.Key(kc, keyTypes, i, vals)
				if err != nil {
					b.Release()
					return nil, fmt.Errorf("keyindex: bootstrap from snapshot %d, bucket %s: key of row %d: %w", snapshotID, sp.BucketPath, i, err)
				}
				x.Load(k, keyindex.Loc{Part: id, Bucket: sp.Bucket})
			}
			if n > 0 {
				if err := x.SetValues(id, b.Columns()[len(keys):], 0, mem); err != nil {
					b.Release()
					return nil, err
				}
			}
			b.Release()
		}
	}
	return x, nil
}
