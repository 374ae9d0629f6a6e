package writer

import (
	"context"
	"fmt"
	"slices"
	"strings"

	"github.com/paimon-go/paimon/commit"
	"github.com/paimon-go/paimon/hashindex"
	"github.com/paimon-go/paimon/manifest"
	"github.com/paimon-go/paimon/row"
)

// dynamicBuckets is the bucket assignment of a dynamic-bucket primary-key
// table (bucket = -1; Java HashBucketAssigner with one assigner and the
// DynamicBucketIndexMaintainer of each bucket): per partition, the key hash
// to bucket map restored from the HASH index files of the snapshot the
// Write restored from, extended with every new key.
type dynamicBuckets struct {
	target     int64 // dynamic-bucket.target-row-num
	maxBuckets int   // dynamic-bucket.max-buckets, -1 unbounded
	parts      map[string]*hashindex.Partition
	// seen are the HASH index files (bucket -> name) of each partition
	// that the partition's map holds: those loaded, replaced by those
	// written.
	seen  map[string]map[int32]string
	namer *hashindex.Namer
}

func (w *Write) initDynamic() error {
	o := w.ts.Options
	if w.ts.CrossPartitionUpdate() {
		return w.initCross()
	}
	d := &dynamicBuckets{parts: map[string]*hashindex.Partition{}, seen: map[string]map[int32]string{}}
	var err error
	if d.target, err = o.DynamicBucketTargetRowNum(); err != nil {
		return err
	}
	if d.target <= 0 {
		return fmt.Errorf("%w: dynamic-bucket.target-row-num = %d must be positive", ErrUnsupported, d.target)
	}
	if d.maxBuckets, err = o.Int("dynamic-bucket.max-buckets", -1); err != nil {
		return err
	}
	if d.maxBuckets == 0 || d.maxBuckets < -1 {
		return fmt.Errorf("%w: dynamic-bucket.max-buckets = %d must be -1 or positive", ErrUnsupported, d.maxBuckets)
	}
	w.dyn = d
	return nil
}

// dynamicBucket returns the bucket of the key with values vals in the
// partition part (serialized), assigning one to a new key.
func (w *Write) dynamicBucket(ctx context.Context, part []byte, vals []any) (int32, error) {
	br, err := row.Encode(w.bucketType, vals)
	if err != nil {
		return 0, err
	}
	p, err := w.dynamicPartition(ctx, part)
	if err != nil {
		return 0, err
	}
	return p.Assign(row.HashCode(br))
}

// dynamicPartition returns the partition's map, loading it from the
// restored snapshot's index files on first use.
func (w *Write) dynamicPartition(ctx context.Context, part []byte) (*hashindex.Partition, error) {
	d := w.dyn
	if p := d.parts[string(part)]; p != nil {
		return p, nil
	}
	if err := w.loadRestore(ctx); err != nil {
		return nil, err
	}
	p, err := hashindex.Load(ctx, w.fio, w.indexEntries, part, d.target, d.maxBuckets)
	if err != nil {
		return nil, fmt.Errorf("writer: restore dynamic-bucket index from snapshot %d: %w", w.restoredSnap, err)
	}
	names := map[int32]string{}
	for _, e := range hashindex.PartitionFiles(w.indexEntries, part) {
		names[e.Bucket] = e.IndexFile.FileName
	}
	d.parts[string(part)], d.seen[string(part)] = p, names
	return p, nil
}

// prepareDynamicIndex writes a new HASH index file for every bucket given
// new keys since the previous PrepareCommit and adds it to the bucket's
// message in msgs (creating a message for a bucket without one), sorted
// like msgs. On error the files written are deleted again.
func (w *Write) prepareDynamicIndex(ctx context.Context, msgs []commit.Message) (_ []commit.Message, err error) {
	d := w.dyn
	if d.namer == nil {
		d.namer = hashindex.NewNamer(w.newUUID())
	}
	var newFiles []manifest.IndexFileMeta
	defer func() {
		if err != nil {
			w.deleteIndexFiles(context.WithoutCancel(ctx), [][]manifest.IndexFileMeta{newFiles})
		}
	}()
	pos := map[string]int{}
	for i, m := range msgs {
		pos[groupKey(m.Partition, m.Bucket)] = i
	}
	parts := make([]string, 0, len(d.parts))
	for k := range d.parts {
		parts = append(parts, k)
	}
	slices.Sort(parts)
	// Every bucket given rows gets a complete index file too, not only one
	// given new keys (Java writes modified buckets only): an overwrite
	// commit deletes the partition's index files, and a bucket written
	// without one would lose the hashes of the keys it holds.
	written := map[string][]int32{}
	for _, m := range msgs {
		if len(m.Data.NewFiles) > 0 {
			written[string(m.Partition)] = append(written[string(m.Partition)], m.Bucket)
		}
	}
	for _, part := range parts {
		dirty := d.parts[part].Dirty(written[part]...)
		if len(dirty) == 0 {
			continue
		}
		files := map[int32]manifest.IndexFileMeta{}
		for b, hs := range dirty {
			f, err := hashindex.Write(ctx, w.fio, d.namer.Next(), hs)
			if err != nil {
				return nil, err
			}
			newFiles = append(newFiles, f)
			files[b] = f
		}
		// The partition's seen files: ours replace those of our buckets.
		for b, f := range files {
			d.seen[part][b] = f.FileName
		}
		seen := make([]string, 0, len(d.seen[part]))
		for _, n := range d.seen[part] {
			seen = append(seen, n)
		}
		slices.Sort(seen)
		for b, f := range files {
			k := groupKey([]byte(part), b)
			i, ok := pos[k]
			if !ok {
				msgs = append(msgs, commit.Message{Partition: []byte(part), Bucket: b, TotalBuckets: int32(w.numBuckets)})
				i = len(msgs) - 1
				pos[k] = i
			}
			msgs[i].Data.NewIndexFiles = append(msgs[i].Data.NewIndexFiles, f)
		}
		for i := range msgs {
			if string(msgs[i].Partition) == part {
				msgs[i].HashIndexSeen = seen
			}
		}
	}
	slices.SortFunc(msgs, func(a, b commit.Message) int {
		if c := strings.Compare(string(a.Partition), string(b.Partition)); c != 0 {
			return c
		}
		return int(a.Bucket) - int(b.Bucket)
	})
	return msgs, nil
}

// rebucketed moves the keys a committer moved to another writer's bucket
// (commit.Resequenced.Rebucketed) in the Write's assignment.
func (w *Write) rebucketed(m commit.Resequenced) {
	if w.dyn == nil || len(m.Rebucketed) == 0 {
		return
	}
	if p := w.dyn.parts[string(m.Partition)]; p != nil {
		for h, b := range m.Rebucketed {
			p.Move(h, b)
		}
	}
}
