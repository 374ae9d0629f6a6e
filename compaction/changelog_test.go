package compaction_test

import (
	"context"
	"fmt"
	"maps"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"

	"github.com/paimon-go/paimon/catalog"
	"github.com/paimon-go/paimon/commit"
	"github.com/paimon-go/paimon/compaction"
	"github.com/paimon-go/paimon/datafile"
	"github.com/paimon-go/paimon/reader"
	paimonrow "github.com/paimon-go/paimon/row"
)

// compactChangelog runs one compaction of tbl (full when asked), checks that
// every changelog file is named with changelog-file.prefix and sits at the
// output level, commits the result and returns the changelog rows as
// "<kind> k v n seq=<sequence number>", in file order.
func compactChangelog(t *testing.T, tbl *catalog.Table, full bool) []string {
	t.Helper()
	ctx := context.Background()
	p, err := compaction.NewPlan(ctx, tbl.FileIO, tbl.Schema, compaction.Options{Full: full})
	if err != nil {
		t.Fatal(err)
	}
	res, err := p.Execute(ctx)
	if err != nil {
		t.Fatal(err)
	}
	var out []string
	msgs := make([]commit.Message, 0, len(res.Messages))
	for _, m := range res.Messages {
		for _, f := range m.Compact.ChangelogFiles {
			if !slices.Contains(res.Written, "bucket-0/"+f.FileName) {
				t.Errorf("changelog file %s not in Written %v", f.FileName, res.Written)
			}
			if len(f.FileName) < 10 || f.FileName[:10] != "changelog-" {
				t.Errorf("changelog file name %s", f.FileName)
			}
			out = append(out, readChangelog(t, tbl, "bucket-0/"+f.FileName)...)
		}
		msgs = append(msgs, m)
	}
	if len(msgs) > 0 {
		c, err := commit.New(tbl.FileIO, tbl.Schema, user)
		if err != nil {
			t.Fatal(err)
		}
		defer c.Close()
		if _, err := c.Commit(ctx, commit.BatchIdentifier, msgs); err != nil {
			t.Fatal(err)
		}
		snap := latest(t, tbl)
		if n := snap.ChangelogRecordCount; (n == nil) != (len(out) == 0) || (n != nil && *n != int64(len(out))) {
			t.Fatalf("snapshot %d changelogRecordCount %v, want %d", snap.ID, n, len(out))
		}
	}
	return out
}

// readChangelog reads a changelog file in the KeyValue layout.
func readChangelog(t *testing.T, tbl *catalog.Table, p string) []string {
	t.Helper()
	ts := tbl.Schema
	var out []string
	for rec, err := range reader.ReadDataFile(context.Background(), tbl.FileIO, p, ts, datafile.KeyValueFields(ts), reader.FileReadOptions{}) {
		if err != nil {
			t.Fatal(err)
		}
		for i := range int(rec.NumRows()) {
			out = append(out, fmt.Sprintf("%s %d %s %s seq=%d",
				paimonrow.RowKindString(byte(rec.Column(2).(*array.Int8).Value(i))),
				rec.Column(0).(*array.Int32).Value(i), cellString(rec.Column(4), i), cellString(rec.Column(5), i),
				rec.Column(1).(*array.Int64).Value(i)))
		}
		rec.Release()
	}
	return out
}

func cellString(a arrow.Array, i int) string {
	if a.IsNull(i) {
		return "null"
	}
	return a.ValueStr(i)
}

func checkChangelog(t *testing.T, step string, got []string, want ...string) {
	t.Helper()
	if !slices.Equal(got, want) {
		t.Fatalf("%s: changelog\n got %q\nwant %q", step, got, want)
	}
}

// TestFullCompactionChangelog: changelog-producer = full-compaction. The
// first full compaction moves the level-0 file to the top level (an
// upgrade) and inserts every key; later ones compare each changed key with
// its top-level record (FullChangelogMergeFunctionWrapper): -U/+U with the
// old record's and the merged record's sequence numbers, -D with the old
// record, nothing for a retraction of an unknown key; keys found on the top
// level only produce nothing.
func TestFullCompactionChangelog(t *testing.T) {
	for _, tc := range []struct {
		name  string
		opts  map[string]string
		want2 []string
	}{
		// Second commit, deduplicate: 1 +U seq 4, 2 -D seq 5, 4 +I seq 6
		// and -D seq 7 (merged by the writer into -D of an unknown key: no
		// changelog), 5 +I seq 8, 3 +U with equal values seq 9 (-U/+U
		// unless row-deduplicate).
		{"deduplicate", nil, []string{
			"-U 1 a1 1 seq=1", "+U 1 x 10 seq=4", "-D 2 a2 2 seq=2", "-U 3 a3 3 seq=3", "+U 3 a3 3 seq=9", "+I 5 e 5 seq=8"}},
		{"row-deduplicate", map[string]string{"changelog-producer.row-deduplicate": "true"}, []string{
			"-U 1 a1 1 seq=1", "+U 1 x 10 seq=4", "-D 2 a2 2 seq=2", "+I 5 e 5 seq=8"}},
		// Second commit, partial-update and aggregation: 1 seq 4, 2 with
		// nulls only seq 5 (unchanged value: -U/+U all the same), 5 seq 6,
		// 3 seq 7.
		{"partial-update", map[string]string{"merge-engine": "partial-update"}, []string{
			"-U 1 a1 1 seq=1", "+U 1 x 10 seq=4", "-U 2 a2 2 seq=2", "+U 2 a2 2 seq=5", "-U 3 a3 3 seq=3", "+U 3 a3 30 seq=7", "+I 5 e 5 seq=6"}},
		{"partial-update row-deduplicate", map[string]string{"merge-engine": "partial-update", "changelog-producer.row-deduplicate": "true"}, []string{
			"-U 1 a1 1 seq=1", "+U 1 x 10 seq=4", "-U 3 a3 3 seq=3", "+U 3 a3 30 seq=7", "+I 5 e 5 seq=6"}},
		{"aggregation", map[string]string{"merge-engine": "aggregation", "fields.n.aggregate-function": "sum"}, []string{
			"-U 1 a1 1 seq=1", "+U 1 x 11 seq=4", "-U 2 a2 2 seq=2", "+U 2 a2 2 seq=5", "-U 3 a3 3 seq=3", "+U 3 a3 33 seq=7", "+I 5 e 5 seq=6"}},
		// Ignoring n, 3's change (n only) is no change.
		{"aggregation row-deduplicate ignore n", map[string]string{"merge-engine": "aggregation", "fields.n.aggregate-function": "sum",
			"changelog-producer.row-deduplicate": "true", "changelog-producer.row-deduplicate-ignore-fields": "n"}, []string{
			"-U 1 a1 1 seq=1", "+U 1 x 11 seq=4", "+I 5 e 5 seq=6"}},
		// lookup: the level-0 keys against the lowest level above 0.
		{"lookup", map[string]string{"changelog-producer": "lookup"}, []string{
			"-U 1 a1 1 seq=1", "+U 1 x 10 seq=4", "-D 2 a2 2 seq=2", "-U 3 a3 3 seq=3", "+U 3 a3 3 seq=9", "+I 5 e 5 seq=8"}},
		{"lookup row-deduplicate", map[string]string{"changelog-producer": "lookup", "changelog-producer.row-deduplicate": "true"}, []string{
			"-U 1 a1 1 seq=1", "+U 1 x 10 seq=4", "-D 2 a2 2 seq=2", "+I 5 e 5 seq=8"}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			opts := map[string]string{"changelog-producer": "full-compaction"}
			for k, v := range tc.opts {
				opts[k] = v
			}
			tbl := newPKTable(t, opts)
			commitRows(t, tbl, nil, ins(0, "a0", int64(0)), ins(1, "a1", int64(1)), ins(2, "a2", int64(2)), ins(3, "a3", int64(3)))
			checkChangelog(t, "first", compactChangelog(t, tbl, true),
				"+I 0 a0 0 seq=0", "+I 1 a1 1 seq=1", "+I 2 a2 2 seq=2", "+I 3 a3 3 seq=3")
			// k=0 untouched (top level only: no changelog).
			switch tc.name {
			case "deduplicate", "row-deduplicate", "lookup", "lookup row-deduplicate":
				commitRows(t, tbl, nil, upd(1, "x", int64(10)), del(2), ins(4, "d", int64(4)), del(4), ins(5, "e", int64(5)), upd(3, "a3", int64(3)))
			default:
				commitRows(t, tbl, nil, upd(1, "x", int64(10)), ins(2, nil, nil), ins(5, "e", int64(5)), upd(3, nil, int64(30)))
			}
			checkChangelog(t, "second", compactChangelog(t, tbl, true), tc.want2...)
			// A full compaction with nothing new: no changelog.
			checkChangelog(t, "third", compactChangelog(t, tbl, true))
		})
	}
}

// TestLookupChangelogMinor: changelog-producer = lookup, a minor
// compaction of level-0 files below the top level: the value before of each
// level-0 key comes from the lookup on the levels above the output level.
func TestLookupChangelogMinor(t *testing.T) {
	tbl := newPKTable(t, map[string]string{"changelog-producer": "lookup"})
	// A large top level, so that the five small level-0 files are
	// compacted without it (no size amplification).
	commitRows(t, tbl, nil, baseRows(5000)...)
	if got := compactChangelog(t, tbl, true); len(got) != 5000 || got[4999] != "+I 4999 a4999 4999 seq=4999" {
		t.Fatalf("first: %d changelog rows, last %q", len(got), got[len(got)-1])
	}
	commitRows(t, tbl, nil, upd(1, "b", int64(10)))
	commitRows(t, tbl, nil, upd(1, "c", int64(11)))
	commitRows(t, tbl, nil, del(2))
	commitRows(t, tbl, nil, ins(6, "f", int64(6)))
	commitRows(t, tbl, nil, upd(3, "d", int64(3)))
	checkChangelog(t, "minor", compactChangelog(t, tbl, false),
		"-U 1 a1 1 seq=1", "+U 1 c 11 seq=5001", "-D 2 a2 2 seq=2", "-U 3 a3 3 seq=3", "+U 3 d 3 seq=5004", "-U 6 a6 6 seq=6", "+U 6 f 6 seq=5003")
	if got := describe(liveFiles(t, tbl)); !slices.Equal(got, []string{"L4 rows=4 deletes=1 source=1", "L5 rows=5000 deletes=0 source=0"}) {
		t.Fatalf("files after the minor compaction %v", got)
	}
	// The next level-0 change of 1 is compared with its level-4 version.
	commitRows(t, tbl, nil, upd(1, "e", int64(12)))
	checkChangelog(t, "full", compactChangelog(t, tbl, true),
		"-U 1 c 11 seq=5001", "+U 1 e 12 seq=5005")
}

// TestLookupChangelogAggregation: changelog-producer = lookup with
// aggregation (sum of n). A minor compaction merges each level-0 key with
// its version looked up above the output level, so the level-4 record
// holds the key's whole history (LookupChangelogMergeFunctionWrapper); the
// read and the next compaction take that record and drop the level-5 one
// (LookupMergeFunction), which a plain merge would add a second time.
func TestLookupChangelogAggregation(t *testing.T) {
	tbl := newPKTable(t, map[string]string{"changelog-producer": "lookup", "merge-engine": "aggregation", "fields.n.aggregate-function": "sum"})
	commitRows(t, tbl, nil, baseRows(5000)...)
	if got := compactChangelog(t, tbl, true); len(got) != 5000 || got[1] != "+I 1 a1 1 seq=1" {
		t.Fatalf("first: %d changelog rows, second %q", len(got), got[1])
	}
	commitRows(t, tbl, nil, upd(1, "b", int64(10)))
	commitRows(t, tbl, nil, upd(1, "c", int64(11)))
	commitRows(t, tbl, nil, ins(6, "f", int64(6)))
	commitRows(t, tbl, nil, upd(3, nil, int64(3)))
	commitRows(t, tbl, nil, ins(7000, "n", int64(7)))
	checkChangelog(t, "minor", compactChangelog(t, tbl, false),
		"-U 1 a1 1 seq=1", "+U 1 c 22 seq=5001", "-U 3 a3 3 seq=3", "+U 3 a3 6 seq=5003", "-U 6 a6 6 seq=6", "+U 6 f 12 seq=5002", "+I 7000 n 7 seq=5004")
	if got := describe(liveFiles(t, tbl)); !slices.Equal(got, []string{"L4 rows=4 deletes=0 source=1", "L5 rows=5000 deletes=0 source=0"}) {
		t.Fatalf("files after the minor compaction %v", got)
	}
	want := baseExpect(5000, map[int32][]any{1: {1, "c", 22}, 3: {3, "a3", 6}, 6: {6, "f", 12}, 7000: {7000, "n", 7}})
	checkRows(t, tbl, want)
	commitRows(t, tbl, nil, upd(1, "e", int64(12)))
	checkChangelog(t, "full", compactChangelog(t, tbl, true),
		"-U 1 c 22 seq=5001", "+U 1 e 34 seq=5005")
	want = baseExpect(5000, map[int32][]any{1: {1, "e", 34}, 3: {3, "a3", 6}, 6: {6, "f", 12}, 7000: {7000, "n", 7}})
	checkRows(t, tbl, want)
	if got := describe(liveFiles(t, tbl)); !slices.Equal(got, []string{"L5 rows=5001 deletes=0 source=1"}) {
		t.Fatalf("files after the full compaction %v", got)
	}
}

// TestLookupChangelogFirstRow: changelog-producer = lookup with first-row.
// A level-0 key already held above level 0 keeps its first row there and
// produces no changelog; a new key is written and inserted (+I), once
// (FirstRowMergeFunctionWrapper).
func TestLookupChangelogFirstRow(t *testing.T) {
	tbl := newPKTable(t, map[string]string{"changelog-producer": "lookup", "merge-engine": "first-row"})
	commitRows(t, tbl, nil, baseRows(5000)...)
	if got := compactChangelog(t, tbl, true); len(got) != 5000 || got[2] != "+I 2 a2 2 seq=2" {
		t.Fatalf("first: %d changelog rows, third %q", len(got), got[2])
	}
	commitRows(t, tbl, nil, ins(1, "b", int64(10)))
	commitRows(t, tbl, nil, ins(6000, "x", int64(1)), ins(2, "z", int64(2)))
	commitRows(t, tbl, nil, ins(6000, "y", int64(2)))
	checkChangelog(t, "minor", compactChangelog(t, tbl, false), "+I 6000 x 1 seq=5001")
	if got := describe(liveFiles(t, tbl)); !slices.Equal(got, []string{"L4 rows=1 deletes=0 source=1", "L5 rows=5000 deletes=0 source=0"}) {
		t.Fatalf("files after the minor compaction %v", got)
	}
	commitRows(t, tbl, nil, ins(6000, "w", int64(3)), ins(6001, "v", int64(4)))
	checkChangelog(t, "full", compactChangelog(t, tbl, true), "+I 6001 v 4 seq=5003")
	checkRows(t, tbl, baseExpect(5000, map[int32][]any{6000: {6000, "x", 1}, 6001: {6001, "v", 4}}))
}

// TestLookupChangelogDeletionVectors: changelog-producer = lookup on a
// deletion-vector table. The changelog is the one without deletion vectors
// (values before as the levels were before the compaction's own marks);
// the versions replaced above the output level are marked deleted, so the
// reads (which skip level 0) see each key once.
func TestLookupChangelogDeletionVectors(t *testing.T) {
	for _, tc := range []struct {
		name       string
		opts       map[string]string
		minor      []string
		change     map[int32][]any
		full       []string
		fullChange map[int32][]any
	}{
		{"deduplicate", nil,
			[]string{"-U 1 a1 1 seq=1", "+U 1 c 11 seq=5001", "-D 2 a2 2 seq=2", "-U 3 a3 3 seq=3", "+U 3 d 3 seq=5004", "-U 6 a6 6 seq=6", "+U 6 f 6 seq=5003"},
			map[int32][]any{1: {1, "c", 11}, 2: nil, 3: {3, "d", 3}, 6: {6, "f", 6}},
			[]string{"-U 1 c 11 seq=5001", "+U 1 e 12 seq=5005"},
			map[int32][]any{1: {1, "e", 12}, 2: nil, 3: {3, "d", 3}, 6: {6, "f", 6}}},
		{"aggregation", map[string]string{"merge-engine": "aggregation", "fields.n.aggregate-function": "sum", "aggregation.remove-record-on-delete": "true"},
			[]string{"-U 1 a1 1 seq=1", "+U 1 c 22 seq=5001", "-D 2 a2 2 seq=2", "-U 3 a3 3 seq=3", "+U 3 d 6 seq=5004", "-U 6 a6 6 seq=6", "+U 6 f 12 seq=5003"},
			map[int32][]any{1: {1, "c", 22}, 2: nil, 3: {3, "d", 6}, 6: {6, "f", 12}},
			[]string{"-U 1 c 22 seq=5001", "+U 1 e 34 seq=5005"},
			map[int32][]any{1: {1, "e", 34}, 2: nil, 3: {3, "d", 6}, 6: {6, "f", 12}}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			opts := map[string]string{"changelog-producer": "lookup", "deletion-vectors.enabled": "true"}
			maps.Copy(opts, tc.opts)
			tbl := newPKTable(t, opts)
			commitRows(t, tbl, nil, baseRows(5000)...)
			if got := compactChangelog(t, tbl, true); len(got) != 5000 {
				t.Fatalf("first: %d changelog rows", len(got))
			}
			commitRows(t, tbl, nil, upd(1, "b", int64(10)))
			commitRows(t, tbl, nil, upd(1, "c", int64(11)))
			commitRows(t, tbl, nil, del(2))
			commitRows(t, tbl, nil, ins(6, "f", int64(6)))
			commitRows(t, tbl, nil, upd(3, "d", int64(3)))
			checkChangelog(t, "minor", compactChangelog(t, tbl, false), tc.minor...)
			// Keys 1, 2, 3 and 6 of level 5 marked deleted.
			if got := dvFiles(t, tbl); !slices.Equal(got, []string{"L4 rows=3 dv=", "L5 rows=5000 dv=1,2,3,6"}) {
				t.Fatalf("files after the minor compaction %v", got)
			}
			checkRows(t, tbl, baseExpect(5000, tc.change))
			commitRows(t, tbl, nil, upd(1, "e", int64(12)))
			checkChangelog(t, "full", compactChangelog(t, tbl, true), tc.full...)
			if got := dvFiles(t, tbl); !slices.Equal(got, []string{"L5 rows=4999 dv="}) {
				t.Fatalf("files after the full compaction %v", got)
			}
			checkRows(t, tbl, baseExpect(5000, tc.fullChange))
		})
	}
}

// TestChangelogCompactionFailure: a full-compaction changelog compaction
// that meets a truncated file late (the last file of the top level's run,
// opened after thousands of changelog rows were written) fails naming it,
// commits nothing and leaves no data or changelog file behind.
func TestChangelogCompactionFailure(t *testing.T) {
	ctx := context.Background()
	tbl := newPKTable(t, map[string]string{"changelog-producer": "full-compaction", "target-file-size": "32kb"})
	commitRows(t, tbl, nil, baseRows(20000)...)
	compactChangelog(t, tbl, true)
	commitRows(t, tbl, nil, baseRows(20000)...)
	root := strings.TrimPrefix(tbl.FileIO.URL(), "file://")
	var victim string
	var top, maxSeq int64
	for _, f := range liveFiles(t, tbl) {
		if f.level == 5 {
			top++
			if f.maxSeq > maxSeq {
				victim, maxSeq = filepath.Join(root, "bucket-0", f.name), f.maxSeq
			}
		}
	}
	if top < 3 {
		t.Fatalf("%d files on the top level, want several", top)
	}
	data, err := os.ReadFile(victim)
	if err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(victim, data[:len(data)*3/4], 0o644); err != nil {
		t.Fatal(err)
	}
	list := func() []string {
		es, err := os.ReadDir(filepath.Join(root, "bucket-0"))
		if err != nil {
			t.Fatal(err)
		}
		var out []string
		for _, e := range es {
			out = append(out, e.Name())
		}
		return out
	}
	was, before := list(), latest(t, tbl).ID
	_, err = compaction.Compact(ctx, tbl.FileIO, tbl.Schema, user, compaction.Options{Full: true})
	if err == nil || !strings.Contains(err.Error(), filepath.Base(victim)) {
		t.Fatalf("compaction of a truncated file: %v, want an error naming %s", err, filepath.Base(victim))
	}
	if got := list(); !slices.Equal(got, was) {
		t.Errorf("bucket files after the failed compaction\n got %v\nwant %v", got, was)
	}
	if id := latest(t, tbl).ID; id != before {
		t.Errorf("latest snapshot %d, want %d", id, before)
	}
}
