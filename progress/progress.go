// Package progress is the durable progress of Paimon's real-time layer
// (PIP-46, paimon-cpp RealtimeCommitProperties and RealtimeSnapshotOffsets):
// per partition-bucket, the exclusive end offset of the rows that are in the
// table's data files, recorded with each snapshot.
//
// A snapshot carries it as the property Property ("realtime.offsets"), whose
// value is the path of an offsets file, <table>/metadata/<uuid>.offsets
// (<table>/branch/branch-<name>/metadata/ on a branch), holding
//
//	{
//	    "version": 1,
//	    "offsets": [
//	        {
//	            "partition": {
//	                "dt": "2024-01-01"
//	            },
//	            "bucket": 0,
//	            "offset": 42
//	        }
//	    ]
//	}
//
// with partitions as logical value strings (row.PartitionComputer.ValueString
// under the table's partition.legacy-name and partition.default-name). See
// docs/realtime-design.md section 5.
//
// Offsets are int64 positions within one partition-bucket. They are progress
// metadata only and are never written into data files.
//
// Encode and Decode are the offsets file codec; Write, Read and Path store
// and resolve offsets files below a table's FileIO; OfSnapshot,
// ReadCommitted and ReadOffset give the progress a snapshot records
// (paimon-cpp RealtimeSnapshotOffsets); Validate, Apply and Covered check
// and apply the ranges of a commit (package commit,
// Committer.CommitWithProgress); PartitionOf renders the partition of a
// PartitionBucket.
package progress

import (
	"cmp"
	"maps"
	"slices"
	"strconv"
	"strings"
)

// Property is the snapshot property that names the offsets file.
const Property = "realtime.offsets"

// PartitionBucket identifies one partition-bucket of a table (paimon-cpp
// RealtimePartitionBucket): partition key to logical value string ({} for an
// unpartitioned table) and a fixed bucket number >= 0.
type PartitionBucket struct {
	Partition map[string]string
	Bucket    int32
}

// Compare orders partition-buckets as paimon-cpp does: by partition (the
// sorted key/value pairs compared lexicographically, pair by pair), then by
// bucket. It returns -1, 0 or +1.
func (pb PartitionBucket) Compare(o PartitionBucket) int {
	// Offsets.End runs this for every lookup and scan: sort the keys in
	// buffers on the stack rather than allocate (partitions rarely have more
	// than a few keys).
	var bufA, bufB [8]string
	ka, kb := sortedKeys(pb.Partition, bufA[:0]), sortedKeys(o.Partition, bufB[:0])
	for i := 0; i < len(ka) && i < len(kb); i++ {
		if c := strings.Compare(ka[i], kb[i]); c != 0 {
			return c
		}
		if c := strings.Compare(pb.Partition[ka[i]], o.Partition[kb[i]]); c != 0 {
			return c
		}
	}
	if c := cmp.Compare(len(ka), len(kb)); c != 0 {
		return c
	}
	return cmp.Compare(pb.Bucket, o.Bucket)
}

// sortedKeys appends the keys of m to buf, sorted.
func sortedKeys(m map[string]string, buf []string) []string {
	for k := range m {
		buf = append(buf, k)
	}
	slices.Sort(buf)
	return buf
}

// Key returns a string that is equal for equal partition-buckets and
// different otherwise, for use as a map key.
func (pb PartitionBucket) Key() string {
	var b strings.Builder
	for _, k := range slices.Sorted(maps.Keys(pb.Partition)) {
		b.WriteString(strconv.Quote(k))
		b.WriteByte('=')
		b.WriteString(strconv.Quote(pb.Partition[k]))
		b.WriteByte(',')
	}
	b.WriteByte('#')
	b.WriteString(strconv.Itoa(int(pb.Bucket)))
	return b.String()
}

// String renders pb for messages, e.g. "{dt=2024-01-01}/bucket-3".
func (pb PartitionBucket) String() string {
	var b strings.Builder
	b.WriteByte('{')
	for i, k := range slices.Sorted(maps.Keys(pb.Partition)) {
		if i > 0 {
			b.WriteByte(',')
		}
		b.WriteString(k + "=" + pb.Partition[k])
	}
	b.WriteString("}/bucket-" + strconv.Itoa(int(pb.Bucket)))
	return b.String()
}

// Range is a half-open offset range [Begin, End) (paimon-cpp OffsetRange).
// Offsets may be sparse, so End-Begin is an envelope width, not a row count.
type Range struct {
	Begin, End int64
}

// Empty reports whether r holds no offset.
func (r Range) Empty() bool { return r.End <= r.Begin }

// Contains reports whether offset lies in r.
func (r Range) Contains(offset int64) bool { return offset >= r.Begin && offset < r.End }

// String renders r as "[begin,end)".
func (r Range) String() string {
	return "[" + strconv.FormatInt(r.Begin, 10) + "," + strconv.FormatInt(r.End, 10) + ")"
}

// Entry is the committed end of one partition-bucket: every row of it with
// an offset below End is in the table's data files.
type Entry struct {
	PartitionBucket
	End int64
}

// String renders e as "<partition-bucket>=<end>", e.g.
// "{dt=2024-01-01}/bucket-3=42" (PartitionBucket's String would hide End).
func (e Entry) String() string {
	return e.PartitionBucket.String() + "=" + strconv.FormatInt(e.End, 10)
}

// Offsets is the durable progress of a table at one snapshot
// (paimon-cpp RealtimeOffsetMap): at most one entry per partition-bucket,
// kept in PartitionBucket.Compare order. The zero value is empty.
type Offsets struct {
	entries []Entry
}

// Entries returns the entries in partition-bucket order. The slice must not
// be modified.
func (o Offsets) Entries() []Entry { return o.entries }

// Len returns the number of partition-buckets with progress.
func (o Offsets) Len() int { return len(o.entries) }

// End returns the committed end of pb and true, or 0 and false when pb has
// no progress.
func (o Offsets) End(pb PartitionBucket) (int64, bool) {
	i, ok := o.find(pb)
	if !ok {
		return 0, false
	}
	return o.entries[i].End, true
}

// With returns a copy of o in which pb's committed end is end. o is not
// changed.
func (o Offsets) With(pb PartitionBucket, end int64) Offsets {
	out := Offsets{entries: slices.Clone(o.entries)}
	i, ok := out.find(pb)
	if ok {
		out.entries[i].End = end
		return out
	}
	out.entries = slices.Insert(out.entries, i, Entry{PartitionBucket: pb, End: end})
	return out
}

// Without returns a copy of o without the partition-buckets for which drop
// reports true. o is not changed.
func (o Offsets) Without(drop func(PartitionBucket) bool) Offsets {
	out := Offsets{}
	for _, e := range o.entries {
		if !drop(e.PartitionBucket) {
			out.entries = append(out.entries, e)
		}
	}
	return out
}

// Equal reports whether o and p hold the same entries.
func (o Offsets) Equal(p Offsets) bool {
	return slices.EqualFunc(o.entries, p.entries, func(a, b Entry) bool {
		return a.End == b.End && a.PartitionBucket.Compare(b.PartitionBucket) == 0
	})
}

func (o Offsets) find(pb PartitionBucket) (int, bool) {
	return slices.BinarySearchFunc(o.entries, pb, func(e Entry, t PartitionBucket) int {
		return e.PartitionBucket.Compare(t)
	})
}
