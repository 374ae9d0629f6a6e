package progress_test

import (
	"errors"
	"math"
	"strings"
	"testing"

	"github.com/paimon-go/paimon/progress"
)

func adv(p progress.PartitionBucket, begin, end int64) progress.Advance {
	return progress.Advance{PartitionBucket: p, Range: progress.Range{Begin: begin, End: end}}
}

func TestApply(t *testing.T) {
	b0, b1, c0 := pb(0, "dt", "2"), pb(1, "dt", "2"), pb(0, "dt", "3")
	base := offsets(progress.Entry{PartitionBucket: b0, End: 3}, progress.Entry{PartitionBucket: b1, End: 9})
	for _, c := range []struct {
		name string
		adv  []progress.Advance
		want progress.Offsets
	}{
		{"nothing", nil, base},
		{"one range", []progress.Advance{adv(b0, 3, 5)}, offsets(entry(5, 0, "dt", "2"), entry(9, 1, "dt", "2"))},
		// Reverse input order (TestCommitOrdersPreparedOffsetRanges).
		{"reversed", []progress.Advance{adv(b0, 5, 7), adv(b1, 9, 10), adv(b0, 3, 5)},
			offsets(entry(7, 0, "dt", "2"), entry(10, 1, "dt", "2"))},
		// A partition-bucket without progress starts at 0 and is added.
		{"new partition-bucket", []progress.Advance{adv(c0, 0, 4)},
			offsets(entry(3, 0, "dt", "2"), entry(9, 1, "dt", "2"), entry(4, 0, "dt", "3"))},
	} {
		got, err := progress.Apply(base, c.adv)
		if err != nil || !got.Equal(c.want) {
			t.Errorf("%s: Apply = %v, %v; want %v", c.name, got.Entries(), err, c.want.Entries())
		}
	}
	if end, _ := base.End(b0); end != 3 || base.Len() != 2 {
		t.Errorf("Apply changed its base: %v", base.Entries())
	}
}

func TestApplyRejects(t *testing.T) {
	b0 := pb(0, "dt", "2")
	base := offsets(progress.Entry{PartitionBucket: b0, End: 3})
	for _, c := range []struct {
		name string
		adv  []progress.Advance
		err  error
		msg  string
	}{
		{"gap", []progress.Advance{adv(b0, 4, 6)}, progress.ErrNotContiguous, "{dt=2}/bucket-0: range [4,6) does not begin at the committed end (expected 3, got 4)"},
		{"overlap", []progress.Advance{adv(b0, 2, 5)}, progress.ErrNotContiguous, "(expected 3, got 2)"},
		{"retry", []progress.Advance{adv(b0, 0, 3)}, progress.ErrNotContiguous, "(expected 3, got 0)"},
		{"new pb not at 0", []progress.Advance{adv(pb(1), 1, 2)}, progress.ErrNotContiguous, "{}/bucket-1: range [1,2) does not begin at the committed end (expected 0, got 1)"},
		{"gap between ranges", []progress.Advance{adv(b0, 3, 5), adv(b0, 6, 7)}, progress.ErrNotContiguous, "range [6,7) does not begin where range [3,5) ends (expected 5, got 6)"},
		{"overlapping ranges", []progress.Advance{adv(b0, 4, 6), adv(b0, 3, 5)}, progress.ErrNotContiguous, "(expected 5, got 4)"},
		{"duplicate range", []progress.Advance{adv(b0, 3, 5), adv(b0, 3, 5)}, progress.ErrNotContiguous, "(expected 5, got 3)"},
		{"negative bucket", []progress.Advance{adv(pb(-1, "dt", "2"), 0, 1)}, progress.ErrInvalidRange, "bucket -1 is invalid"},
		{"empty range", []progress.Advance{adv(b0, 3, 3)}, progress.ErrInvalidRange, "range [3,3) is empty"},
		{"negative range", []progress.Advance{adv(b0, 3, 2)}, progress.ErrInvalidRange, "range [3,2) is empty"},
		{"negative begin", []progress.Advance{adv(pb(1), -2, 1)}, progress.ErrInvalidRange, "range [-2,1) begins below 0"},
		{"MaxInt64", []progress.Advance{adv(b0, 3, math.MaxInt64)}, progress.ErrInvalidRange, "ends at the largest int64"},
		{"after MaxInt64", []progress.Advance{adv(b0, math.MaxInt64, math.MaxInt64)}, progress.ErrInvalidRange, "is empty"},
	} {
		got, err := progress.Apply(base, c.adv)
		if !errors.Is(err, c.err) || !strings.Contains(err.Error(), c.msg) {
			t.Errorf("%s: Apply = %v, %v; want %v with %q", c.name, got.Entries(), err, c.err, c.msg)
		}
	}
	// The largest end that is allowed.
	if got, err := progress.Apply(base, []progress.Advance{adv(b0, 3, math.MaxInt64-1)}); err != nil {
		t.Errorf("Apply up to MaxInt64-1: %v, %v", got.Entries(), err)
	}
}

// TestCovered follows paimon-cpp's CheckRangesCommitted: committed ends 4
// and 9 for buckets 0 and 1.
func TestCovered(t *testing.T) {
	b0, b1 := pb(0, "dt", "2"), pb(1, "dt", "2")
	base := offsets(progress.Entry{PartitionBucket: b0, End: 4}, progress.Entry{PartitionBucket: b1, End: 9})
	for _, c := range []struct {
		name      string
		adv       []progress.Advance
		all, none bool
	}{
		{"pending", []progress.Advance{adv(b0, 4, 6), adv(b1, 9, 11)}, false, true},
		{"covered", []progress.Advance{adv(b0, 0, 4), adv(b1, 5, 8)}, true, false},
		{"one covered", []progress.Advance{adv(b0, 0, 4)}, true, false},
		{"one pending", []progress.Advance{adv(b1, 9, 11)}, false, true},
		{"straddles", []progress.Advance{adv(b0, 3, 5)}, false, false},
		{"gap", []progress.Advance{adv(b0, 5, 7)}, false, true},
		{"mixed", []progress.Advance{adv(b0, 0, 4), adv(b1, 9, 11)}, false, false},
		{"new partition-bucket", []progress.Advance{adv(pb(2), 0, 1)}, false, true},
		{"nothing", nil, true, true},
	} {
		all, none := progress.Covered(base, c.adv)
		if all != c.all || none != c.none {
			t.Errorf("%s: Covered = %v, %v; want %v, %v", c.name, all, none, c.all, c.none)
		}
	}
}
