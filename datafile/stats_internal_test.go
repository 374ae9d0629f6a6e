package datafile

import (
	"slices"
	"testing"

	"github.com/paimon-go/paimon/format"
	"github.com/paimon-go/paimon/row"
	"github.com/paimon-go/paimon/schema"
	"github.com/paimon-go/paimon/types"
)

// Vectors of TruncateSimpleColStatsCollector.truncateMin / truncateMax,
// worked by hand from the Java rules: keep n code points (bytes); for the
// maximum increment the last one that can be incremented and cut after it.
func TestTruncate(t *testing.T) {
	for _, tc := range []struct {
		in      any
		n       int
		min     any
		max     any
		maxKept bool
	}{
		{"abcdef", 3, "abc", "abd", true},
		{"ab", 3, "ab", "ab", true},
		{"abc", 3, "abc", "abc", true},
		// Two U+10FFFF cannot be incremented: 'a' becomes 'b'.
		{string([]rune{'a', 0x10FFFF, 0x10FFFF, 'z'}), 3, string([]rune{'a', 0x10FFFF, 0x10FFFF}), "b", true},
		// U+D7FF + 1 is a surrogate: the next scalar value, U+E000.
		{string([]rune{0xD7FF, 'x'}), 1, string([]rune{0xD7FF}), "\uE000", true},
		{string([]rune{0x10FFFF, 'x'}), 1, string([]rune{0x10FFFF}), nil, false},
		// Multi-byte code points count once: "éé" is 2 code points.
		{"ééé", 2, "éé", "éê", true},
		{[]byte{1, 2, 0xFF, 3}, 3, []byte{1, 2, 0xFF}, []byte{1, 3}, true},
		{[]byte{0xFF, 0xFF, 1}, 2, []byte{0xFF, 0xFF}, nil, false},
		{[]byte{7}, 2, []byte{7}, []byte{7}, true},
		{int32(42), 1, int32(42), int32(42), true},
	} {
		gotMin := truncateMin(tc.in, tc.n)
		gotMax, ok := truncateMax(tc.in, tc.n)
		if !equalValue(gotMin, tc.min) || ok != tc.maxKept || (ok && !equalValue(gotMax, tc.max)) {
			t.Errorf("truncate(%q, %d) = min %q, max %q %v; want %q, %q %v", tc.in, tc.n, gotMin, gotMax, ok, tc.min, tc.max, tc.maxKept)
		}
	}
}

func equalValue(a, b any) bool {
	if x, ok := a.([]byte); ok {
		y, ok := b.([]byte)
		return ok && slices.Equal(x, y)
	}
	return a == b
}

// applyStatsMode keeps what each collector of SimpleColStatsCollector keeps.
func TestApplyStatsMode(t *testing.T) {
	in := format.ColumnStats{Min: "abcdef", Max: "abzzzz", NullCount: 3, NullCountKnown: true}
	for _, tc := range []struct {
		mode string
		want row.ColStats
	}{
		{"none", row.ColStats{NullCount: -1}},
		{"counts", row.ColStats{NullCount: 3}},
		{"full", row.ColStats{Min: "abcdef", Max: "abzzzz", NullCount: 3}},
		{"truncate(2)", row.ColStats{Min: "ab", Max: "ac", NullCount: 3}},
	} {
		m, err := schema.ParseStatsMode(tc.mode)
		if err != nil {
			t.Fatal(err)
		}
		if got := applyStatsMode(m, in); got != tc.want {
			t.Errorf("%s: %+v, want %+v", tc.mode, got, tc.want)
		}
	}
	// Unknown null count stays unknown.
	m, _ := schema.ParseStatsMode("full")
	if got := applyStatsMode(m, format.ColumnStats{Min: int32(1), Max: int32(2)}); got != (row.ColStats{Min: int32(1), Max: int32(2), NullCount: -1}) {
		t.Errorf("unknown null count: %+v", got)
	}
}

// statsModes: a per-field mode wins (and counts towards
// metadata.stats-keep-first-n-columns), system columns default to
// truncate(128), the first n other columns get metadata.stats-mode, the
// rest none.
func TestStatsModes(t *testing.T) {
	o := schema.Options{"metadata.stats-keep-first-n-columns": "2", "fields.v.stats-mode": "counts"}
	fields := []types.DataField{
		{Name: "_KEY_k"}, {Name: "_SEQUENCE_NUMBER"}, {Name: "_VALUE_KIND"},
		{Name: "v"}, {Name: "k"}, {Name: "w"},
	}
	full := schema.StatsMode{Kind: schema.StatsFull}
	got, err := statsModes(o, full, fields, 3)
	if err != nil {
		t.Fatal(err)
	}
	want := []schema.StatsMode{systemTruncate, systemTruncate, systemTruncate,
		{Kind: schema.StatsCounts}, full, {Kind: schema.StatsNone}}
	if !slices.Equal(got, want) {
		t.Errorf("modes %v, want %v", got, want)
	}
	if _, err := statsModes(schema.Options{"fields.k.stats-mode": "most"}, full, fields, 3); err == nil {
		t.Error("a malformed per-field mode was accepted")
	}
}
