package commit

import (
	"context"
	"errors"
	"fmt"
	"slices"
	"sync"

	"github.com/apache/arrow-go/v18/arrow"

	"github.com/paimon-go/paimon/keyindex"
	"github.com/paimon-go/paimon/manifest"
	"github.com/paimon-go/paimon/row"
	"github.com/paimon-go/paimon/snapshot"
	"github.com/paimon-go/paimon/types"
)

// ErrKeyIndexStale: an APPEND commit to a cross-partition upsert table
// puts a key into a partition-bucket while another writer, in a snapshot
// committed after the writer's key index was bootstrapped or refreshed
// (Message.KeyIndexFrom), put the same key into another partition-bucket,
// and the commit cannot be reconciled with it: a snapshot of that range
// has expired (the keys it placed are unknown), or (partial-update,
// aggregation, first-row) the commit's file holding the key is not at
// level 0. It wraps ErrConflict; nothing is published. The writer must
// bootstrap its key index anew (writer.Write.Restore) and write its rows
// again. The message names the key or snapshot and the partition-buckets.
// Every other such conflict is resolved (see the package documentation,
// Cross-partition upserts across writers).
var ErrKeyIndexStale = errors.New("commit: cross-partition key index is stale")

// xpartGuard reconciles APPEND commits of cross-partition upsert tables
// with keys other writers placed elsewhere meanwhile (see the package
// documentation, Cross-partition upserts across writers). Java assumes one
// key index per table (one GlobalIndexAssigner) and has no counterpart.
type xpartGuard struct {
	keyTypes []types.DataType // trimmed primary key
	dedup    bool             // merge-engine = deduplicate: retract, else resolve
	firstRow bool             // merge-engine = first-row: resolve drops, else moves

	// cache holds the files other writers added per snapshot id with
	// their keys, so that each attempt reads only snapshots it has not
	// read before (and the files it retracts keys of); at most
	// maxCachedKeys keys in all.
	mu     sync.Mutex
	cache  map[int64][]foreignFile
	cached int
	// settled are the placements retracted by published commits: a later
	// commit need not retract them again.
	settled map[retraction]bool
}

// retraction is a key's placement by a foreign snapshot that a commit
// retracted.
type retraction struct {
	snap int64
	pl   placement
	key  string
}

// maxCachedKeys bounds the keys xpartGuard keeps between attempts.
const maxCachedKeys = 1 << 18

// foreignFile is a data file another writer added, with its keys.
type foreignFile struct {
	entry manifest.Entry
	keys  map[string]bool
}

// foreignFiles returns the files snapshot s added, with their keys.
func (g *xpartGuard) foreignFiles(ctx context.Context, c *Committer, s *snapshot.Snapshot, vals []any) ([]foreignFile, error) {
	g.mu.Lock()
	fs, ok := g.cache[s.ID]
	g.mu.Unlock()
	if ok {
		return fs, nil
	}
	added, err := keyindex.Added(ctx, c.fio, s)
	if err != nil {
		return nil, fmt.Errorf("commit: cross-partition keys: %w", err)
	}
	n := 0
	for _, e := range added {
		ff := foreignFile{entry: e, keys: map[string]bool{}}
		err := c.seq.rw.Keys(ctx, e.Partition, e.Bucket, e.File, func(keys []arrow.Array, rows int) error {
			for i := range rows {
				k, err := keyindex.Key(keys, g.keyTypes, i, vals)
				if err != nil {
					return fmt.Errorf("commit: key of %s: %w", e.File.FileName, err)
				}
				ff.keys[string(k)] = true
			}
			return nil
		})
		if err != nil {
			return nil, err
		}
		n += len(ff.keys)
		fs = append(fs, ff)
	}
	g.mu.Lock()
	if g.cached+n <= maxCachedKeys {
		if g.cache == nil {
			g.cache = map[int64][]foreignFile{}
		}
		g.cache[s.ID] = fs
		g.cached += n
	}
	g.mu.Unlock()
	return fs, nil
}

// placement is one partition-bucket of a key.
type placement struct {
	part   string
	bucket int32
}

// retracted is what xpartGuard.apply made of an attempt's entries.
type retracted struct {
	entries []manifest.Entry
	changed bool     // entries differ from the part's
	copies  []string // files written for this attempt
	done    []retraction
	// moved reports, per source partition-bucket, the files whose rows of
	// keys another writer placed elsewhere were moved or dropped (resolve).
	moved []Resequenced
}

// settle records the retractions of a published attempt.
func (g *xpartGuard) settle(r retracted) {
	if len(r.done) == 0 {
		return
	}
	g.mu.Lock()
	defer g.mu.Unlock()
	if g.settled == nil {
		g.settled = map[retraction]bool{}
	}
	if len(g.settled)+len(r.done) > maxCachedKeys {
		return // re-retracting is harmless
	}
	for _, d := range r.done {
		g.settled[d] = true
	}
}

// apply compares the keys of the part's new files (entries) with those
// that other commit users added in the snapshots after from up to base,
// skipping COMPACT snapshots (compaction keeps every key in its
// partition-bucket). For a key the part adds that such a snapshot added in
// a partition-bucket the part does not write it to, deduplicate tables get
// a DELETE record of the key in that partition-bucket (a new level-0 file
// per foreign file, resequence.Rewriter.Retract; the sequence guard then
// orders it after the bucket's live rows), as Java's
// DeleteExistingProcessor would have written had the commits run one after
// the other; other merge engines move or drop the part's rows of the key
// (resolve). An expired snapshot in the range fails with ErrKeyIndexStale
// (its additions are unknown). On error nothing written is left behind.
func (g *xpartGuard) apply(ctx context.Context, c *Committer, base *snapshot.Snapshot, from int64, entries []manifest.Entry) (out retracted, err error) {
	out = retracted{entries: entries}
	ranged, err := keyindex.Range(ctx, c.snaps, from, base)
	if err != nil {
		if exp := (*keyindex.ExpiredError)(nil); errors.As(err, &exp) {
			return out, fmt.Errorf("%w: %w: snapshot %d, committed after the writer's key index (snapshot %d), has expired", ErrConflict, ErrKeyIndexStale, exp.ID, from)
		}
		return out, fmt.Errorf("commit: cross-partition keys: %w", err)
	}
	var foreign []*snapshot.Snapshot
	for _, s := range ranged {
		if s.CommitUser != c.commitUser {
			foreign = append(foreign, s)
		}
	}
	if len(foreign) == 0 {
		return out, nil
	}
	ours := map[string][]placement{}
	// low is the lowest sequence number of the part's new files per
	// partition-bucket: a retraction there takes it, so that it does not
	// widen the shift the sequence guard gives those files (a retraction
	// at 0 beside files at n shifted them by n more on every commit).
	low := map[placement]int64{}
	vals := make([]any, len(g.keyTypes))
	for _, e := range entries {
		if e.Kind != manifest.Add {
			continue
		}
		pl := placement{string(e.Partition), e.Bucket}
		if l, ok := low[pl]; !ok || e.File.MinSequenceNumber < l {
			low[pl] = e.File.MinSequenceNumber
		}
		err := c.seq.rw.Keys(ctx, e.Partition, e.Bucket, e.File, func(keys []arrow.Array, n int) error {
			for i := range n {
				k, err := keyindex.Key(keys, g.keyTypes, i, vals)
				if err != nil {
					return fmt.Errorf("commit: key of %s: %w", e.File.FileName, err)
				}
				if !slices.Contains(ours[string(k)], pl) {
					ours[string(k)] = append(ours[string(k)], pl)
				}
			}
			return nil
		})
		if err != nil {
			return out, err
		}
	}
	if len(ours) == 0 {
		return out, nil
	}
	if !g.dedup {
		return g.resolve(ctx, c, foreign, from, entries, ours, low)
	}
	defer func() {
		if err != nil {
			c.seq.discard(ctx, c, out.copies)
			out = retracted{entries: entries}
		}
	}()
	done := map[placement]map[string]bool{} // keys retracted per partition-bucket
	for _, s := range foreign {
		files, err := g.foreignFiles(ctx, c, s, vals)
		if err != nil {
			return out, err
		}
		for _, ff := range files {
			e := ff.entry
			pl := placement{string(e.Partition), e.Bucket}
			if !g.conflicts(s.ID, ff, pl, ours, done) {
				continue
			}
			{
				pick := func(keys []arrow.Array, i int) (bool, error) {
					k, err := keyindex.Key(keys, g.keyTypes, i, vals)
					if err != nil {
						return false, fmt.Errorf("commit: key of %s: %w", e.File.FileName, err)
					}
					at, ok := ours[string(k)]
					if !ok || slices.Contains(at, pl) || done[pl][string(k)] || g.isSettled(s.ID, pl, string(k)) {
						return false, nil
					}
					if done[pl] == nil {
						done[pl] = map[string]bool{}
					}
					done[pl][string(k)] = true
					out.done = append(out.done, retraction{s.ID, pl, string(k)})
					return true, nil
				}
				fs, err := c.seq.rw.Retract(ctx, e.Partition, e.Bucket, e.File, low[pl], pick)
				if err != nil {
					return out, fmt.Errorf("commit: retract keys another writer put in other partitions: %w", err)
				}
				if len(fs) == 0 {
					continue
				}
				dir, err := c.seq.rw.BucketDir(e.Partition, e.Bucket)
				if err != nil {
					return out, err
				}
				if !out.changed {
					out.entries = slices.Clone(entries)
					out.changed = true
				}
				for _, f := range fs {
					out.copies = append(out.copies, copyPaths(dir, f)...)
					out.entries = append(out.entries, manifest.Entry{Kind: manifest.Add, Partition: e.Partition, Bucket: e.Bucket, TotalBuckets: e.TotalBuckets, File: f})
				}
			}
		}
	}
	return out, nil
}

// conflicts reports whether ff holds a key the part writes elsewhere than
// at pl, not yet retracted there.
func (g *xpartGuard) conflicts(snap int64, ff foreignFile, pl placement, ours map[string][]placement, done map[placement]map[string]bool) bool {
	g.mu.Lock()
	defer g.mu.Unlock()
	for k := range ff.keys {
		if at, ok := ours[k]; ok && !slices.Contains(at, pl) && !done[pl][k] && !g.settled[retraction{snap, pl, k}] {
			return true
		}
	}
	return false
}

// isSettled reports whether a published commit retracted key at pl of
// snapshot snap.
func (g *xpartGuard) isSettled(snap int64, pl placement, key string) bool {
	g.mu.Lock()
	defer g.mu.Unlock()
	return g.settled[retraction{snap, pl, key}]
}

// keyString prints an encoded key's values.
func (g *xpartGuard) keyString(k []byte) string {
	br, err := row.Deserialize(k)
	if err != nil {
		return fmt.Sprintf("%x", k)
	}
	v, err := row.Decode(g.keyTypes, br)
	if err != nil {
		return fmt.Sprintf("%x", k)
	}
	return fmt.Sprint(v)
}

// where prints a partition-bucket as its directory.
func (g *xpartGuard) where(c *Committer, p placement) string {
	if d, err := c.seq.rw.BucketDir([]byte(p.part), p.bucket); err == nil {
		return d
	}
	return fmt.Sprintf("partition %x bucket %d", p.part, p.bucket)
}
