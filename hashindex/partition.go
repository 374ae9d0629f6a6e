package hashindex

import (
	"context"
	"fmt"
	"math/rand/v2"
	"slices"

	"github.com/paimon-go/paimon/fileio"
	"github.com/paimon-go/paimon/manifest"
)

// maxBucketID is the highest bucket id without a max-buckets bound
// (Short.MAX_VALUE - 1: buckets are stored as shorts by Java's index).
const maxBucketID = 32767 - 1

// Partition assigns the keys of one partition to buckets (Java
// PartitionIndex with one assigner: numAssigners = 1, assignId = 0, as a
// single Write assigns every key). A known hash keeps its bucket; a new hash
// goes to the first non-full bucket in the order buckets were first seen
// (the order of the index files, then creation), counting one row per new
// hash; when all are full a new bucket gets the lowest free id; with
// dynamic-bucket.max-buckets reached, a random existing bucket. Not safe for
// concurrent use.
type Partition struct {
	hash2Bucket map[int32]int32
	// nonFull holds the buckets under the target with their row counts, in
	// order (Java's HashMap-backed LinkedHashMap of nonFullBucketInformation
	// iterates in insertion order after loading, HashMap order before;
	// either is a valid assignment, any order yields one bucket per hash).
	nonFull    []bucketCount
	all        map[int32]bool
	allList    []int32
	target     int64
	maxBuckets int // -1: unbounded
	full       bool
	rand       func(n int) int
	dirty      map[int32]bool // buckets given a new hash since Dirty
}

type bucketCount struct {
	bucket int32
	rows   int64
}

// NewPartition returns an empty Partition with the target rows per bucket
// (dynamic-bucket.target-row-num) and the bucket bound
// (dynamic-bucket.max-buckets, -1 for none).
func NewPartition(target int64, maxBuckets int) *Partition {
	return &Partition{hash2Bucket: map[int32]int32{}, all: map[int32]bool{}, target: target, maxBuckets: maxBuckets, rand: rand.IntN}
}

// Add records that bucket holds hash (an index file's content; Java
// PartitionIndex.loadIndex). The bucket's row count grows by one per call.
func (p *Partition) Add(bucket int32, hash int32) {
	p.hash2Bucket[hash] = bucket
	p.count(bucket, 1)
}

func (p *Partition) count(bucket int32, n int64) {
	if !p.all[bucket] {
		p.all[bucket] = true
		p.allList = append(p.allList, bucket)
		p.nonFull = append(p.nonFull, bucketCount{bucket: bucket})
	}
	for i := range p.nonFull {
		if p.nonFull[i].bucket == bucket {
			p.nonFull[i].rows += n
			return
		}
	}
}

// Lookup returns the bucket of hash, if it has one.
func (p *Partition) Lookup(hash int32) (int32, bool) {
	b, ok := p.hash2Bucket[hash]
	return b, ok
}

// Assign returns the bucket of hash, assigning one if it is new (Java
// PartitionIndex.assign). Errors: ErrTooManyBuckets.
func (p *Partition) Assign(hash int32) (int32, error) {
	if b, ok := p.hash2Bucket[hash]; ok {
		return b, nil
	}
	for len(p.nonFull) > 0 {
		e := &p.nonFull[0]
		if e.rows < p.target {
			e.rows++
			p.hash2Bucket[hash] = e.bucket
			p.markDirty(e.bucket)
			return e.bucket, nil
		}
		p.nonFull = p.nonFull[1:]
	}
	maxID := maxBucketID
	if p.maxBuckets > 0 {
		maxID = p.maxBuckets - 1
	}
	if !p.full {
		for i := 0; i <= maxID; i++ {
			if !p.all[int32(i)] {
				b := int32(i)
				p.all[b] = true
				p.allList = append(p.allList, b)
				p.nonFull = append(p.nonFull, bucketCount{bucket: b, rows: 1})
				p.hash2Bucket[hash] = b
				p.markDirty(b)
				return b, nil
			}
		}
		if p.maxBuckets <= 0 {
			return 0, fmt.Errorf("%w: %d buckets of dynamic-bucket.target-row-num = %d rows are full; increase the target", ErrTooManyBuckets, maxID+1, p.target)
		}
		p.full = true
	}
	b := p.allList[p.rand(len(p.allList))]
	p.hash2Bucket[hash] = b
	p.markDirty(b)
	return b, nil
}

func (p *Partition) markDirty(b int32) {
	if p.dirty == nil {
		p.dirty = map[int32]bool{}
	}
	p.dirty[b] = true
}

// Load reads the HASH index files of partition among entries (a snapshot's
// index manifest) into a new Partition (Java PartitionIndex.loadIndex).
// Errors: those of Read, naming the file.
func Load(ctx context.Context, fio *fileio.FileIO, entries []manifest.IndexManifestEntry, partition []byte, target int64, maxBuckets int) (*Partition, error) {
	p := NewPartition(target, maxBuckets)
	for _, e := range PartitionFiles(entries, partition) {
		hs, err := Read(ctx, fio, e.IndexFile)
		if err != nil {
			return nil, err
		}
		for _, h := range hs {
			p.Add(e.Bucket, h)
		}
	}
	// Java keeps the loaded counts in a HashMap of small Integer keys, which
	// iterates in ascending bucket order.
	slices.SortFunc(p.nonFull, func(a, b bucketCount) int { return int(a.bucket) - int(b.bucket) })
	return p, nil
}

// PartitionFiles returns the ADD entries of HASH index files of partition
// (a serialized BinaryRow) among entries, in their order.
func PartitionFiles(entries []manifest.IndexManifestEntry, partition []byte) []manifest.IndexManifestEntry {
	var out []manifest.IndexManifestEntry
	for _, e := range entries {
		if e.Kind == manifest.Add && e.IndexFile.IndexType == manifest.IndexTypeHash && string(e.Partition) == string(partition) {
			out = append(out, e)
		}
	}
	return out
}

// Dirty returns, for every bucket that was given a new hash since the
// previous call and every bucket of also, all hashes of the bucket (the
// content of its next index file, Java
// DynamicBucketIndexMaintainer.prepareCommit), and forgets the marks.
// Hashes are in ascending order.
func (p *Partition) Dirty(also ...int32) map[int32][]int32 {
	if len(p.dirty) == 0 && len(also) == 0 {
		return nil
	}
	out := make(map[int32][]int32, len(p.dirty)+len(also))
	for b := range p.dirty {
		out[b] = []int32{}
	}
	for _, b := range also {
		out[b] = []int32{}
	}
	for h, b := range p.hash2Bucket {
		if hs, ok := out[b]; ok {
			out[b] = append(hs, h)
		}
	}
	for _, hs := range out {
		slices.Sort(hs)
	}
	p.dirty = nil
	return out
}

// Move puts hash into bucket, whose hashes another writer's index holds
// (the committer moved it there; see package commit). It marks nothing dirty:
// the other writer's index file already lists it.
func (p *Partition) Move(hash, bucket int32) {
	p.hash2Bucket[hash] = bucket
}
