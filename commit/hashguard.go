package commit

import (
	"context"
	"fmt"
	"maps"
	"slices"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/google/uuid"

	"github.com/paimon-go/paimon/hashindex"
	"github.com/paimon-go/paimon/manifest"
	"github.com/paimon-go/paimon/snapshot"
	"github.com/paimon-go/paimon/types"
)

// hashGuard reconciles the bucket assignment of a dynamic-bucket APPEND
// part with the one other writers committed since the part's writer loaded
// its assignment (see the package documentation, Dynamic buckets across
// writers). Java assumes one assigner per key range and has no
// counterpart.
type hashGuard struct {
	keyTypes []types.DataType // trimmed primary key
	namer    *hashindex.Namer
}

func newHashGuard(keyTypes []types.DataType) *hashGuard {
	return &hashGuard{keyTypes: keyTypes, namer: hashindex.NewNamer(uuid.NewString())}
}

// rebucketed is what hashGuard.apply made of an attempt's part.
type rebucketed struct {
	entries []manifest.Entry
	index   []manifest.IndexManifestEntry
	changed bool     // entries or index differ from the part's
	copies  []string // files written for this attempt (data copies, HASH files)
	// moved reports, per source bucket, the files split: the original's
	// name to the copies that stayed in the bucket.
	moved []Resequenced
}

// ourHash is one HASH index file the part adds.
type ourHash struct {
	pos    int // in the part's index entries
	bucket int32
	file   manifest.IndexFileMeta
}

// apply reconciles the part's entries and index changes with the HASH
// index files of base. For every partition whose HASH files in base include
// one its writer did not see (seen, per partition, from
// Message.HashIndexSeen): a key hash the part assigned to bucket b that a
// foreign file puts in bucket b' has its rows of the part's new files moved
// into b' (their files split, package resequence), and the part's index
// file of each bucket becomes the union of its own hashes, without those
// moved, and the foreign file's of the bucket. On error nothing written is
// left behind.
func (g *hashGuard) apply(ctx context.Context, c *Committer, base *snapshot.Snapshot, entries []manifest.Entry, index []manifest.IndexManifestEntry, seen map[string]map[string]bool) (out rebucketed, err error) {
	out = rebucketed{entries: entries, index: index}
	ours := map[string][]ourHash{}
	for i, e := range index {
		if e.Kind == manifest.Add && e.IndexFile.IndexType == manifest.IndexTypeHash {
			ours[string(e.Partition)] = append(ours[string(e.Partition)], ourHash{pos: i, bucket: e.Bucket, file: e.IndexFile})
		}
	}
	if len(ours) == 0 || base == nil {
		return out, nil
	}
	prev, err := c.baseIndex(ctx, base)
	if err != nil {
		return out, err
	}
	defer func() {
		if err != nil {
			c.seq.discard(ctx, c, out.copies)
			out = rebucketed{entries: entries, index: index}
		}
	}()
	// The foreign assignment (hash -> bucket) of every partition the part
	// writes to that has foreign files.
	foreignParts := map[string]map[int32]int32{}
	for _, e := range entries {
		if e.Kind == manifest.Add {
			if _, ok := ours[string(e.Partition)]; !ok {
				ours[string(e.Partition)] = nil
			}
		}
	}
	for _, part := range slices.Sorted(maps.Keys(ours)) {
		var foreign []manifest.IndexManifestEntry
		for _, e := range hashindex.PartitionFiles(prev, []byte(part)) {
			if !seen[part][e.IndexFile.FileName] {
				foreign = append(foreign, e)
			}
		}
		if len(foreign) == 0 {
			continue
		}
		foreignOf := map[int32]int32{}
		foreignSet := map[int32][]int32{}
		foreignParts[part] = foreignOf
		for _, e := range foreign {
			hs, err := hashindex.Read(ctx, c.fio, e.IndexFile)
			if err != nil {
				return out, fmt.Errorf("commit: dynamic-bucket index of snapshot %d: %w", base.ID, err)
			}
			for _, h := range hs {
				foreignOf[h] = e.Bucket
			}
			foreignSet[e.Bucket] = append(foreignSet[e.Bucket], hs...)
		}
		for _, o := range ours[part] {
			hs, err := hashindex.Read(ctx, c.fio, o.file)
			if err != nil {
				return out, fmt.Errorf("commit: dynamic-bucket index of this commit: %w", err)
			}
			own := make(map[int32]bool, len(hs))
			merged := make([]int32, 0, len(hs)+len(foreignSet[o.bucket]))
			conflicts := map[int32]int32{}
			for _, h := range hs {
				if fb, ok := foreignOf[h]; ok && fb != o.bucket {
					conflicts[h] = fb
					continue
				}
				own[h] = true
				merged = append(merged, h)
			}
			grew := false
			for _, h := range foreignSet[o.bucket] {
				if !own[h] {
					own[h] = true
					merged = append(merged, h)
					grew = true
				}
			}
			if len(conflicts) == 0 && !grew {
				continue
			}
			slices.Sort(merged)
			f, err := hashindex.Write(ctx, c.fio, g.namer.Next(), merged)
			if err != nil {
				return out, fmt.Errorf("commit: dynamic-bucket index: %w", err)
			}
			out.copies = append(out.copies, hashindex.Path(f.FileName))
			if !out.changed {
				out.index = slices.Clone(index)
				out.changed = true
			}
			out.index[o.pos].IndexFile = f
		}
	}
	if len(foreignParts) == 0 {
		return out, nil
	}
	// The lowest new sequence number of the part per partition-bucket. Rows
	// moved from bucket s to bucket d are re-based from s's numbers to d's
	// (d's lowest, or 0 when the part adds nothing to d): the sequence
	// guard then shifts all of d's new files by one amount above d's live
	// ones, and moved keys never share a key with the part's own rows of d.
	// Keeping s's numbers instead would widen d's range by s's and, commit
	// after commit, let sequence numbers double until they wrapped.
	low := map[bucketKey]int64{}
	for _, e := range entries {
		if e.Kind != manifest.Add {
			continue
		}
		k := bucketKey{string(e.Partition), e.Bucket}
		if l, ok := low[k]; !ok || e.File.MinSequenceNumber < l {
			low[k] = e.File.MinSequenceNumber
		}
	}
	// Every new file in those partitions is checked row by row: a Write
	// may also hold a stale assignment of a key it did not assign anew.
	next := make([]manifest.Entry, 0, len(entries))
	reports := map[bucketKey]*Resequenced{}
	var order []bucketKey
	vals := make([]any, len(g.keyTypes))
	for _, e := range entries {
		k := bucketKey{string(e.Partition), e.Bucket}
		foreignOf := foreignParts[string(e.Partition)]
		if e.Kind != manifest.Add || foreignOf == nil {
			next = append(next, e)
			continue
		}
		gone := map[int32]int32{}
		route := func(keys []arrow.Array, i int) (int32, error) {
			h, err := hashindex.KeyHash(keys, g.keyTypes, i, vals)
			if err != nil {
				return 0, err
			}
			if b, ok := foreignOf[h]; ok && b != e.Bucket {
				gone[h] = b
				return b, nil
			}
			return e.Bucket, nil
		}
		srcLow := low[k]
		shift := func(dest int32) int64 {
			return low[bucketKey{k.partition, dest}] - srcLow
		}
		split, err := c.seq.rw.Split(ctx, e.Partition, e.Bucket, e.File, route, shift)
		if err != nil {
			return out, fmt.Errorf("commit: move keys another writer put in other buckets: %w", err)
		}
		if split == nil {
			next = append(next, e)
			continue
		}
		for _, b := range slices.Sorted(maps.Keys(split)) {
			dir, err := c.seq.rw.BucketDir(e.Partition, b)
			if err != nil {
				return out, err
			}
			for _, f := range split[b] {
				out.copies = append(out.copies, copyPaths(dir, f)...)
				ne := e
				ne.Bucket, ne.File = b, f
				next = append(next, ne)
			}
		}
		r := reports[k]
		if r == nil {
			r = &Resequenced{Partition: e.Partition, Bucket: e.Bucket, Files: map[string][]manifest.DataFileMeta{}, Rebucketed: map[int32]int32{}}
			reports[k] = r
			order = append(order, k)
		}
		r.Files[e.File.FileName] = split[e.Bucket]
		maps.Copy(r.Rebucketed, gone)
	}
	if len(reports) == 0 {
		return out, nil
	}
	out.entries, out.changed = next, true
	for _, k := range order {
		out.moved = append(out.moved, *reports[k])
	}
	return out, nil
}

// hashSeen collects Message.HashIndexSeen per partition.
func hashSeen(seen map[string]map[string]bool, m *Message) map[string]map[string]bool {
	if m.HashIndexSeen == nil {
		return seen
	}
	if seen == nil {
		seen = map[string]map[string]bool{}
	}
	s := seen[string(m.Partition)]
	if s == nil {
		s = map[string]bool{}
		seen[string(m.Partition)] = s
	}
	for _, n := range m.HashIndexSeen {
		s[n] = true
	}
	return seen
}
