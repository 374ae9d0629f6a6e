package commit

import (
	"errors"
	"strings"
	"testing"

	"github.com/paimon-go/paimon/manifest"
	"github.com/paimon-go/paimon/row"
	"github.com/paimon-go/paimon/schema"
	"github.com/paimon-go/paimon/types"
)

// levelFile is a data file of bucket 0 with keys lo..hi, sequence numbers
// seqLo..seqHi, on level.
func levelFile(t *testing.T, kind manifest.FileKind, name string, level int32, lo, hi int32, seqLo, seqHi int64) manifest.Entry {
	t.Helper()
	keyTypes := []types.DataType{types.Int()}
	key := func(k int32) []byte {
		r, err := row.Encode(keyTypes, []any{k})
		if err != nil {
			t.Fatal(err)
		}
		return row.Serialize(r)
	}
	return manifest.Entry{Kind: kind, Partition: []byte("p"), Bucket: 0, TotalBuckets: 1, File: manifest.DataFileMeta{
		FileName: name, Level: level, MinKey: key(lo), MaxKey: key(hi), MinSequenceNumber: seqLo, MaxSequenceNumber: seqHi,
	}}
}

// TestLevelOrder: writer b compacts its files (sequence numbers 10..19,
// keys 1..9) into one output; the bucket also holds a file u that the
// compaction did not read. Whether the compaction is published depends on
// where u orders, whether b saw it, and whether b dropped delete records.
func TestLevelOrder(t *testing.T) {
	in1 := levelFile(t, manifest.Delete, "b1", 0, 1, 5, 10, 14)
	in2 := levelFile(t, manifest.Delete, "b2", 0, 3, 9, 15, 19)
	out := func(level int32) manifest.Entry { return levelFile(t, manifest.Add, "out", level, 1, 9, 10, 19) }
	live := func(u manifest.Entry) []manifest.Entry {
		in1, in2 := in1, in2
		in1.Kind, in2.Kind = manifest.Add, manifest.Add
		return []manifest.Entry{in1, u, in2}
	}
	unseen := &LevelsView{Files: []string{"b1", "b2", "other"}, DeletesKept: true}
	unseenDropped := &LevelsView{Files: []string{"b1", "b2"}}
	seenDropped := &LevelsView{Files: []string{"b1", "b2", "u"}}
	for _, tc := range []struct {
		name     string
		u        manifest.Entry
		outLevel int32
		view     *LevelsView
		want     string // "" or a fragment of the error
	}{
		{"interleaves, no view", levelFile(t, manifest.Add, "u", 0, 4, 4, 12, 12), 5, nil,
			"did not read u (level 0, sequence numbers 12..12)"},
		{"interleaves, seen", levelFile(t, manifest.Add, "u", 0, 4, 4, 12, 12), 5, seenDropped,
			"did not read u"},
		{"older, no view", levelFile(t, manifest.Add, "u", 0, 4, 4, 3, 3), 5, nil, ""},
		{"older, seen, deletes dropped", levelFile(t, manifest.Add, "u", 5, 4, 4, 3, 3), 4, seenDropped, ""},
		{"older, unseen, deletes dropped", levelFile(t, manifest.Add, "u", 5, 4, 4, 3, 3), 4, unseenDropped,
			"planned without u (level 5, sequence numbers 3..3), committed concurrently and older than its inputs, which may have lost the delete records its rows need"},
		{"older, unseen, deletes kept, above the output", levelFile(t, manifest.Add, "u", 5, 4, 4, 3, 3), 4, unseen, ""},
		{"older, unseen, deletes kept, below the output", levelFile(t, manifest.Add, "u", 0, 4, 4, 3, 3), 4, unseen,
			"older than its inputs, below their output level 4"},
		{"older, unseen, other keys", levelFile(t, manifest.Add, "u", 0, 10, 12, 3, 3), 4, unseenDropped, ""},
		{"newer, unseen, level 0", levelFile(t, manifest.Add, "u", 0, 4, 4, 30, 30), 4, unseenDropped, ""},
		{"newer, unseen, above the output", levelFile(t, manifest.Add, "u", 5, 4, 4, 30, 30), 4, unseen,
			"newer than its inputs, above their output level 4"},
		{"newer, seen, above the output", levelFile(t, manifest.Add, "u", 5, 4, 4, 30, 30), 4, seenDropped, ""},
	} {
		t.Run(tc.name, func(t *testing.T) {
			o := levelOrder{keyTypes: []types.DataType{types.Int()}}
			if tc.view != nil {
				o.views = map[bucketKey]*LevelsView{{"p", 0}: tc.view}
			}
			err := o.check(live(tc.u), []manifest.Entry{in1, in2, out(tc.outLevel)})
			switch {
			case tc.want == "" && err != nil:
				t.Fatalf("check = %v, want nil", err)
			case tc.want != "" && (!errors.Is(err, ErrConflict) || !strings.Contains(err.Error(), tc.want)):
				t.Fatalf("check = %v, want ErrConflict with %q", err, tc.want)
			}
		})
	}
}

// TestLevelOrderWholeHistory: on a table whose reads take a key's record
// on the lowest level above 0 as its whole history (aggregation with
// changelog-producer = lookup), a compaction planned without an
// overlapping file on a level above 0 is refused wherever that file sits:
// deeper, the output hides it; shallower, it hides the output. Files on
// level 0, seen files and other keys do not matter. A deduplicate table
// with the lookup merge keeps the plain rules (the lowest record is the
// newest).
func TestLevelOrderWholeHistory(t *testing.T) {
	in1 := levelFile(t, manifest.Delete, "b1", 0, 1, 5, 10, 14)
	in2 := levelFile(t, manifest.Delete, "b2", 0, 3, 9, 15, 19)
	out := levelFile(t, manifest.Add, "out", 3, 1, 9, 10, 19)
	live := func(u manifest.Entry) []manifest.Entry {
		in1, in2 := in1, in2
		in1.Kind, in2.Kind = manifest.Add, manifest.Add
		return []manifest.Entry{in1, u, in2}
	}
	unseen := &LevelsView{Files: []string{"b1", "b2"}, DeletesKept: true}
	seen := &LevelsView{Files: []string{"b1", "b2", "u"}, DeletesKept: true}
	const why = "on a level above 0 of a table whose reads take the record on the lowest such level as a key's whole history (output level 3)"
	for _, tc := range []struct {
		name  string
		u     manifest.Entry
		view  *LevelsView
		whole bool
		want  string
	}{
		{"older, deeper", levelFile(t, manifest.Add, "u", 5, 4, 4, 3, 3), unseen, true, why},
		{"newer, shallower", levelFile(t, manifest.Add, "u", 1, 4, 4, 30, 30), unseen, true, why},
		{"newer, deeper", levelFile(t, manifest.Add, "u", 5, 4, 4, 30, 30), unseen, true, why},
		{"older, shallower", levelFile(t, manifest.Add, "u", 1, 4, 4, 3, 3), unseen, true, why},
		{"newer, level 0", levelFile(t, manifest.Add, "u", 0, 4, 4, 30, 30), unseen, true, ""},
		{"older, deeper, seen", levelFile(t, manifest.Add, "u", 5, 4, 4, 3, 3), seen, true, ""},
		{"newer, shallower, seen", levelFile(t, manifest.Add, "u", 1, 4, 4, 30, 30), seen, true, ""},
		{"older, deeper, other keys", levelFile(t, manifest.Add, "u", 5, 10, 12, 3, 3), unseen, true, ""},
		{"older, deeper, not whole history", levelFile(t, manifest.Add, "u", 5, 4, 4, 3, 3), unseen, false, ""},
		{"newer, shallower, not whole history", levelFile(t, manifest.Add, "u", 1, 4, 4, 30, 30), unseen, false, ""},
	} {
		t.Run(tc.name, func(t *testing.T) {
			o := levelOrder{keyTypes: []types.DataType{types.Int()}, wholeHistory: tc.whole,
				views: map[bucketKey]*LevelsView{{"p", 0}: tc.view}}
			err := o.check(live(tc.u), []manifest.Entry{in1, in2, out})
			switch {
			case tc.want == "" && err != nil:
				t.Fatalf("check = %v, want nil", err)
			case tc.want != "" && (!errors.Is(err, ErrConflict) || !strings.Contains(err.Error(), tc.want)):
				t.Fatalf("check = %v, want ErrConflict with %q", err, tc.want)
			}
		})
	}
	for _, c := range []struct {
		opts map[string]string
		want bool
	}{
		{map[string]string{"merge-engine": "aggregation", "changelog-producer": "lookup"}, true},
		{map[string]string{"merge-engine": "partial-update", "deletion-vectors.enabled": "true"}, true},
		{map[string]string{"merge-engine": "aggregation", "force-lookup": "true"}, true},
		{map[string]string{"changelog-producer": "lookup", "sequence.field": "v"}, true},
		{map[string]string{"changelog-producer": "lookup"}, false},
		{map[string]string{"merge-engine": "aggregation"}, false},
		{map[string]string{"merge-engine": "first-row", "changelog-producer": "lookup"}, false},
	} {
		got, err := wholeHistory(schema.Options(c.opts))
		if err != nil || got != c.want {
			t.Errorf("wholeHistory(%v) = %v, %v; want %v", c.opts, got, err, c.want)
		}
	}
}

// TestLevelOrderNoOutput: a compaction whose inputs merged into nothing
// (every key deleted, deletes dropped) over an unseen older file is
// refused; with deletes kept it is published.
func TestLevelOrderNoOutput(t *testing.T) {
	in := levelFile(t, manifest.Delete, "b1", 0, 1, 5, 10, 14)
	liveIn := in
	liveIn.Kind = manifest.Add
	u := levelFile(t, manifest.Add, "u", 0, 2, 2, 3, 3)
	for _, kept := range []bool{false, true} {
		o := levelOrder{keyTypes: []types.DataType{types.Int()},
			views: map[bucketKey]*LevelsView{{"p", 0}: {Files: []string{"b1"}, DeletesKept: kept}}}
		err := o.check([]manifest.Entry{liveIn, u}, []manifest.Entry{in})
		if kept != (err == nil) || (!kept && !errors.Is(err, ErrConflict)) {
			t.Fatalf("deletes kept %v: check = %v", kept, err)
		}
	}
}

// TestAddLevelsView: two messages of one bucket saw the union of their
// files and kept deletes only if both did; messages without compaction or
// without a view add nothing.
func TestAddLevelsView(t *testing.T) {
	comp := CompactIncrement{Before: []manifest.DataFileMeta{{FileName: "x"}}}
	var views map[bucketKey]*LevelsView
	views = addLevelsView(views, &Message{Partition: []byte("p"), Levels: &LevelsView{Files: []string{"a"}, DeletesKept: true}})
	if views != nil {
		t.Fatalf("a message without compaction changes added %v", views)
	}
	views = addLevelsView(views, &Message{Partition: []byte("p"), Compact: comp})
	if views != nil {
		t.Fatalf("a message without a view added %v", views)
	}
	first := &LevelsView{Files: []string{"a"}, DeletesKept: true}
	views = addLevelsView(views, &Message{Partition: []byte("p"), Compact: comp, Levels: first})
	views = addLevelsView(views, &Message{Partition: []byte("p"), Compact: comp, Levels: &LevelsView{Files: []string{"b"}}})
	v := views[bucketKey{"p", 0}]
	if len(views) != 1 || strings.Join(v.Files, ",") != "a,b" || v.DeletesKept {
		t.Fatalf("views = %+v", v)
	}
	if strings.Join(first.Files, ",") != "a" || !first.DeletesKept {
		t.Fatalf("the first message's view changed: %+v", first)
	}
}
