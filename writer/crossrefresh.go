package writer

import (
	"context"
	"errors"
	"fmt"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"

	"github.com/paimon-go/paimon/keyindex"
	"github.com/paimon-go/paimon/manifest"
	"github.com/paimon-go/paimon/resequence"
	"github.com/paimon-go/paimon/row"
	"github.com/paimon-go/paimon/schema"
	"github.com/paimon-go/paimon/snapshot"
)

// refreshCross brings the key index of a cross-partition upsert table from
// snapshot x.from up to the latest snapshot, before the first row after a
// PrepareCommit (or after the bootstrap) is routed, so that a long-lived
// Write routes by what other writers committed meanwhile and its commit
// messages' KeyIndexFrom stays recent (the committer's guard reads only
// the snapshots after it, and expiration of older snapshots no longer
// fails its commits with commit.ErrKeyIndexStale). Java keeps one key
// index per table (GlobalIndexAssigner) and has no counterpart.
//
// It replays, in snapshot order, the files added by the APPEND snapshots
// of (from, latest] (keyindex.Range, keyindex.Added), starting at the
// first snapshot of another commit user: this Write's earlier snapshots
// are in the index already, later ones are replayed too, because a commit
// may have retracted keys other writers placed (commit's cross-partition
// guard). Per snapshot, a key a file adds moves to the file's
// partition-bucket; a DELETE or UPDATE_BEFORE row (deduplicate tables
// only; other merge engines keep a deleted key where it was) removes the
// key if the index holds it at that partition-bucket, before the
// snapshot's additions apply. When a snapshot of the range has expired, or
// one is an OVERWRITE (it drops keys its manifests do not list), the index
// is bootstrapped anew from the latest snapshot instead.
//
// Assumes the messages of the previous PrepareCommit were committed (or
// dropped with Restore) before the next row is written, as Java's
// prepareCommit / commit cycle does. On error the index is dropped and
// bootstrapped again from the latest snapshot at the next write.
func (w *Write) refreshCross(ctx context.Context) error {
	x := w.xp
	snaps := snapshot.NewManager(w.fio)
	latest, err := snaps.Latest(ctx)
	switch {
	case errors.Is(err, snapshot.ErrNotFound):
		return nil
	case err != nil:
		return fmt.Errorf("writer: cross-partition key index refresh: %w", err)
	}
	if latest.ID <= x.from {
		return nil
	}
	ss, err := keyindex.Range(ctx, snaps, x.from, latest)
	if errors.Is(err, keyindex.ErrExpired) {
		return errors.Join(w.rebootCross(ctx, latest.ID), w.dropWriters(ctx))
	}
	if err != nil {
		return fmt.Errorf("writer: cross-partition key index refresh: %w", err)
	}
	first := len(ss)
	for i, s := range ss {
		if s.CommitKind == snapshot.KindOverwrite {
			return errors.Join(w.rebootCross(ctx, latest.ID), w.dropWriters(ctx))
		}
		if s.CommitUser != w.commitUser && first == len(ss) {
			first = i
		}
	}
	for _, s := range ss[first:] {
		if err := w.replayCross(ctx, s); err != nil {
			x.idx, x.from, x.reboot = nil, 0, true
			return fmt.Errorf("writer: cross-partition key index refresh: %w", err)
		}
	}
	x.from = latest.ID
	if first < len(ss) {
		return w.dropWriters(ctx)
	}
	return nil
}

// dropWriters drops the partition-bucket writers and what they were
// restored from, as Restore does, after the key index took in other
// writers' commits: rows routed by it may go to buckets those writers
// wrote, and a writer must know their files (levels, sequence numbers)
// before it compacts such a bucket, or its compaction could drop a DELETE
// row that must retract another writer's newer row. Called only between a
// PrepareCommit and the next row, so no rows are lost.
func (w *Write) dropWriters(ctx context.Context) error {
	var errs []error
	for _, bw := range w.sortedWriters() {
		errs = append(errs, bw.abortCompact(ctx), bw.abort(ctx))
	}
	w.writers = map[string]*bucketWriter{}
	w.restored, w.partBkts, w.partBktsMixed, w.indexEntries, w.restoredSnap = nil, nil, nil, nil, 0
	return errors.Join(errs...)
}

// rebootCross bootstraps the key index from snapshot id.
func (w *Write) rebootCross(ctx context.Context, id int64) error {
	x := w.xp
	idx, err := bootstrapKeyIndex(ctx, w.fio, id, w.ts.TrimmedPrimaryKeys(), w.ts.PartitionKeys, w.bucketType, x.target, x.fresh(w.now()), w.cfg.mem)
	if err != nil {
		x.idx, x.from, x.reboot = nil, 0, true
		return fmt.Errorf("writer: cross-partition key index: %w", err)
	}
	x.idx, x.from, x.reboot = idx, id, false
	return nil
}

// seen is one placement of a key in a replayed snapshot: the row with the
// highest sequence number of the key in a partition-bucket.
type seen struct {
	loc keyindex.Loc
	seq int64
	del bool
}

// replayCross applies the files snapshot s added to the key index.
func (w *Write) replayCross(ctx context.Context, s *snapshot.Snapshot) error {
	x := w.xp
	if x.rw == nil {
		rw, err := resequence.New(w.fio, w.ts)
		if err != nil {
			return err
		}
		x.rw = rw
	}
	added, err := keyindex.Added(ctx, w.fio, s)
	if err != nil {
		return err
	}
	idx := x.idx
	dedup := x.engine == schema.MergeDeduplicate
	var order []string
	keys := map[string][]seen{}
	vals := make([]any, len(w.bucketType))
	for _, e := range added {
		pid := idx.Part(e.Partition)
		loc := keyindex.Loc{Part: pid, Bucket: e.Bucket}
		err := x.rw.Rows(ctx, e.Partition, e.Bucket, e.File, func(rec arrow.RecordBatch, nKeys int) error {
			n := int(rec.NumRows())
			if n == 0 {
				return nil
			}
			cols := rec.Columns()
			seqs, ok1 := cols[nKeys].(*array.Int64)
			kinds, ok2 := cols[nKeys+1].(*array.Int8)
			if !ok1 || !ok2 {
				return fmt.Errorf("writer: %s: _SEQUENCE_NUMBER or _VALUE_KIND of an unexpected type", e.File.FileName)
			}
			if idx.Values(pid) == nil {
				if err := w.setCrossValues(idx, pid, rec, e.File); err != nil {
					return err
				}
			}
			for i := range n {
				k, err := keyindex.Key(cols[:nKeys], w.bucketType, i, vals)
				if err != nil {
					return fmt.Errorf("writer: key of %s: %w", e.File.FileName, err)
				}
				kind := byte(kinds.Value(i))
				obs := seen{loc: loc, seq: seqs.Value(i), del: dedup && (kind == row.RowKindDelete || kind == row.RowKindUpdateBefore)}
				at := keys[string(k)]
				if at == nil {
					order = append(order, string(k))
				}
				j := 0
				for j < len(at) && at[j].loc != loc {
					j++
				}
				switch {
				case j == len(at):
					keys[string(k)] = append(at, obs)
				case obs.seq >= at[j].seq:
					at[j] = obs
				}
			}
			return nil
		})
		if err != nil {
			return err
		}
	}
	for _, k := range order {
		for _, o := range keys[k] {
			if l, ok := idx.Get([]byte(k)); o.del && ok && l == o.loc {
				idx.Remove([]byte(k))
			}
		}
		for _, o := range keys[k] {
			if !o.del {
				idx.Move([]byte(k), o.loc)
			}
		}
	}
	return nil
}

// setCrossValues keeps the partition values of partition id from row 0 of
// rec, a batch of a key-value file of that partition.
func (w *Write) setCrossValues(idx *keyindex.Index, id int32, rec arrow.RecordBatch, f manifest.DataFileMeta) error {
	cols := make([]arrow.Array, len(w.ts.PartitionKeys))
	for k, name := range w.ts.PartitionKeys {
		at := rec.Schema().FieldIndices(name)
		if len(at) != 1 {
			return fmt.Errorf("writer: %s has no partition column %q", f.FileName, name)
		}
		cols[k] = rec.Column(at[0])
	}
	return idx.SetValues(id, cols, 0, w.cfg.mem)
}
