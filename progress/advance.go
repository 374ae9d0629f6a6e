package progress

import (
	"cmp"
	"fmt"
	"maps"
	"math"
	"slices"
)

// Advance is one committed step of a partition-bucket's progress: the
// offsets Range of the rows a commit message of that partition-bucket
// carries (paimon-cpp RealtimeCommitProgress without its message).
//
// Ranges are contiguous per partition-bucket: the range a writer prepares
// always begins at the end of the previous prepared (or committed) range of
// its partition-bucket, never at the offset of its first row. The writer
// widens the envelope down to the previous end, so gaps in
// application-supplied offsets (paimon-cpp #269) are legal and an Advance
// never leaves a hole in the committed prefix. This settles the question
// left open in docs/realtime-design.md section 12 for paimon-go;
// newer paimon-cpp instead accepts a range that begins above the committed
// end in RealtimeCommitProperties::Build, which Apply rejects.
type Advance struct {
	PartitionBucket
	Range
}

// Validate checks the shape of adv and returns a copy sorted by
// partition-bucket, then Range.Begin (paimon-cpp
// RealtimeCommitProperties::Sort; input order is irrelevant). Every range
// must have bucket >= 0, 0 <= Begin < End < math.MaxInt64 (errors wrap
// ErrInvalidRange), and the ranges of one partition-bucket must follow one
// another without gap or overlap (errors wrap ErrNotContiguous). Where they
// start relative to the committed progress is Apply's business.
func Validate(adv []Advance) ([]Advance, error) {
	sorted := slices.Clone(adv)
	slices.SortStableFunc(sorted, func(a, b Advance) int {
		if c := a.PartitionBucket.Compare(b.PartitionBucket); c != 0 {
			return c
		}
		return cmp.Compare(a.Begin, b.Begin)
	})
	for i, a := range sorted {
		switch {
		case a.Bucket < 0:
			return nil, fmt.Errorf("%w: %s: bucket %d is invalid", ErrInvalidRange, a.PartitionBucket, a.Bucket)
		case a.Begin < 0:
			return nil, fmt.Errorf("%w: %s: range %s begins below 0", ErrInvalidRange, a.PartitionBucket, a.Range)
		case a.Empty():
			return nil, fmt.Errorf("%w: %s: range %s is empty", ErrInvalidRange, a.PartitionBucket, a.Range)
		case a.End == math.MaxInt64:
			return nil, fmt.Errorf("%w: %s: range %s ends at the largest int64 (the last offset must be below %d)",
				ErrInvalidRange, a.PartitionBucket, a.Range, int64(math.MaxInt64-1))
		}
		if i > 0 && sorted[i-1].PartitionBucket.Compare(a.PartitionBucket) == 0 && sorted[i-1].End != a.Begin {
			return nil, fmt.Errorf("%w: %s: range %s does not begin where range %s ends (expected %d, got %d)",
				ErrNotContiguous, a.PartitionBucket, a.Range, sorted[i-1].Range, sorted[i-1].End, a.Begin)
		}
	}
	return sorted, nil
}

// Apply returns base advanced by adv (paimon-cpp
// RealtimeCommitProperties::Build with ranges): adv is validated and sorted
// as by Validate, and per partition-bucket the first range must begin
// exactly at base's committed end (0 for a partition-bucket base has no
// entry for, which is then added) and the last range's End becomes the new
// committed end. base is not changed. Errors wrap ErrInvalidRange or
// ErrNotContiguous and name the partition-bucket with the expected and the
// given begin.
func Apply(base Offsets, adv []Advance) (Offsets, error) {
	sorted, err := Validate(adv)
	if err != nil {
		return Offsets{}, err
	}
	// The new ends, one per partition-bucket, in order.
	var ends []Entry
	for i, a := range sorted {
		if i > 0 && sorted[i-1].PartitionBucket.Compare(a.PartitionBucket) == 0 {
			ends[len(ends)-1].End = a.End // contiguous with the previous range (Validate)
			continue
		}
		end, _ := base.End(a.PartitionBucket)
		if a.Begin != end {
			return Offsets{}, fmt.Errorf("%w: %s: range %s does not begin at the committed end (expected %d, got %d)",
				ErrNotContiguous, a.PartitionBucket, a.Range, end, a.Begin)
		}
		ends = append(ends, Entry{PartitionBucket: PartitionBucket{Partition: maps.Clone(a.Partition), Bucket: a.Bucket}, End: a.End})
	}
	// Merge the two ordered lists; a new end replaces the base's.
	out := make([]Entry, 0, len(base.entries)+len(ends))
	i, j := 0, 0
	for i < len(base.entries) || j < len(ends) {
		c := 0
		switch {
		case i == len(base.entries):
			c = 1
		case j == len(ends):
			c = -1
		default:
			c = base.entries[i].PartitionBucket.Compare(ends[j].PartitionBucket)
		}
		switch {
		case c < 0:
			out = append(out, base.entries[i])
			i++
		case c > 0:
			out = append(out, ends[j])
			j++
		default:
			out = append(out, ends[j])
			i, j = i+1, j+1
		}
	}
	return Offsets{entries: out}, nil
}

// Covered classifies adv against the committed progress base (paimon-cpp
// RealtimeCommitProperties::AreRangesCommitted): all reports that every
// range ends at or below its partition-bucket's committed end (0 when base
// has none), i.e. a retry of a commit that landed; none that every range
// begins at or above it, i.e. nothing of adv is committed yet. A range that
// straddles the committed end counts as neither. With no range both are
// true. Covered does not validate adv.
func Covered(base Offsets, adv []Advance) (all, none bool) {
	all, none = true, true
	for _, a := range adv {
		end, _ := base.End(a.PartitionBucket)
		if a.End > end {
			all = false
		}
		if a.Begin < end {
			none = false
		}
	}
	return all, none
}
