// Package keyindex is the key index of cross-partition upsert tables
// (bucket = -1 with a primary key that lacks a partition field; Java bucket
// mode KEY_DYNAMIC): every trimmed primary key of the table mapped to the
// partition and bucket that hold it, and the per-partition bucket row counts
// new keys are assigned by. It mirrors Java's
// org.apache.paimon.crosspartition.GlobalIndexAssigner (key index),
// BucketAssigner and IndexBootstrap: the index is bootstrapped from the
// keys of a snapshot (Bootstrap), so a new writer process rebuilds it from
// the table, and kept up to date from the files later snapshots added
// (Range, Added, Move, Remove); no index files are written (Java writes
// none for KEY_DYNAMIC).
//
// # Errors
//
// Range returns *ExpiredError (ErrExpired) for an expired snapshot of its
// range; Range and Added wrap the errors of packages snapshot and manifest
// with the snapshot id; Key returns row errors for keys it cannot encode.
package keyindex

import (
	"fmt"
	"maps"
	"slices"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"
	"github.com/apache/arrow-go/v18/arrow/memory"

	"github.com/paimon-go/paimon/row"
	"github.com/paimon-go/paimon/types"
)

// Loc is where a key lives: a partition id of the Index and a bucket.
type Loc struct {
	Part   int32
	Bucket int32
}

// Index maps encoded trimmed primary keys (Key) to their Loc, and counts the
// keys of every partition-bucket (Java BucketAssigner). Partitions are
// numbered in order of first use (Java PartitionMapping). An Index is not
// safe for concurrent use.
//
// Memory: one map entry per key, keyed by the serialized key BinaryRow
// (77 bytes per INT key on 64-bit Go (Go 1.26 swiss maps), measured by
// BenchmarkIndexPut).
type Index struct {
	target int64 // dynamic-bucket.target-row-num
	keys   map[string]Loc
	partID map[string]int32
	parts  [][]byte
	counts []map[int32]int64 // per partition id: bucket -> keys
	values [][]arrow.Array   // per partition id: the partition's values, one row each; nil until set
}

// New returns an empty Index assigning up to target keys to a bucket
// (dynamic-bucket.target-row-num, positive).
func New(target int64) *Index {
	return &Index{target: target, keys: map[string]Loc{}, partID: map[string]int32{}}
}

// Len is the number of keys.
func (x *Index) Len() int { return len(x.keys) }

// Get returns the location of key (Key's encoding).
func (x *Index) Get(key []byte) (Loc, bool) {
	l, ok := x.keys[string(key)]
	return l, ok
}

// Put records key at l.
func (x *Index) Put(key []byte, l Loc) { x.keys[string(key)] = l }

// Part returns the id of the serialized partition part, numbering it on
// first use.
func (x *Index) Part(part []byte) int32 {
	if id, ok := x.partID[string(part)]; ok {
		return id
	}
	id := int32(len(x.parts))
	x.partID[string(part)] = id
	x.parts = append(x.parts, slices.Clone(part))
	x.counts = append(x.counts, map[int32]int64{})
	x.values = append(x.values, nil)
	return id
}

// Partition returns the serialized partition of id.
func (x *Index) Partition(id int32) []byte { return x.parts[id] }

// Values returns the partition values of id as one-row Arrow arrays in
// partition-key order, nil when none were set.
func (x *Index) Values(id int32) []arrow.Array { return x.values[id] }

// SetValues keeps copies of row i of cols (the partition columns of
// partition id) unless values are set already.
func (x *Index) SetValues(id int32, cols []arrow.Array, i int, mem memory.Allocator) error {
	if x.values[id] != nil {
		return nil
	}
	out := make([]arrow.Array, len(cols))
	for k, c := range cols {
		s := array.NewSlice(c, int64(i), int64(i)+1)
		cp, err := array.Concatenate([]arrow.Array{s}, mem)
		s.Release()
		if err != nil {
			return fmt.Errorf("keyindex: partition values: %w", err)
		}
		out[k] = cp
	}
	x.values[id] = out
	return nil
}

// Assign returns the bucket for a new key of partition id and counts it
// (BucketAssigner.assignBucket with one assigner): the lowest bucket with
// fewer than target keys, else the lowest bucket id not used yet.
func (x *Index) Assign(id int32) int32 {
	c := x.counts[id]
	for _, b := range slices.Sorted(maps.Keys(c)) {
		if c[b] < x.target {
			c[b]++
			return b
		}
	}
	for b := int32(0); ; b++ {
		if _, ok := c[b]; !ok {
			c[b] = 1
			return b
		}
	}
}

// Decrement uncounts a key of bucket b of partition id
// (BucketAssigner.decrement).
func (x *Index) Decrement(id, b int32) {
	if n, ok := x.counts[id][b]; ok {
		x.counts[id][b] = n - 1
	} else {
		x.counts[id][b] = 0
	}
}

// Remove forgets key and uncounts it from its bucket; a key not held is
// ignored.
func (x *Index) Remove(key []byte) {
	if l, ok := x.keys[string(key)]; ok {
		delete(x.keys, string(key))
		x.Decrement(l.Part, l.Bucket)
	}
}

// Move records key at l, uncounting it from its former bucket and counting
// it at l when it was elsewhere or absent (a placement another writer
// made).
func (x *Index) Move(key []byte, l Loc) {
	old, ok := x.keys[string(key)]
	if ok && old == l {
		return
	}
	if ok {
		x.Decrement(old.Part, old.Bucket)
	}
	x.Load(key, l)
}

// Load records key at l and counts it, for an Index being built from a
// table's keys (GlobalIndexAssigner.bootstrapKey,
// BucketAssigner.bootstrapBucket).
func (x *Index) Load(key []byte, l Loc) {
	x.keys[string(key)] = l
	x.counts[l.Part][l.Bucket]++
}

// Key encodes row i of the key columns cols (types keyTypes) as the Index
// keys them: the serialized BinaryRow of the trimmed primary key. vals is
// scratch space of len(keyTypes).
func Key(cols []arrow.Array, keyTypes []types.DataType, i int, vals []any) ([]byte, error) {
	for k, c := range cols {
		v, err := types.ArrowView(keyTypes[k], c, i)
		if err != nil {
			return nil, err
		}
		vals[k] = v
	}
	br, err := row.Encode(keyTypes, vals)
	if err != nil {
		return nil, err
	}
	return row.Serialize(br), nil
}
