package writer_test

import (
	"context"
	"errors"
	"fmt"
	"maps"
	"slices"
	"strconv"
	"strings"
	"testing"

	"github.com/apache/arrow-go/v18/arrow"

	"github.com/paimon-go/paimon/catalog"
	"github.com/paimon-go/paimon/commit"
	"github.com/paimon-go/paimon/compaction"
	"github.com/paimon-go/paimon/deletionvector"
	"github.com/paimon-go/paimon/internal/tabletest"
	"github.com/paimon-go/paimon/reader"
	"github.com/paimon-go/paimon/snapshot"
	"github.com/paimon-go/paimon/types"
	"github.com/paimon-go/paimon/writer"
)

// dvLevels describes the live files of the latest snapshot as
// "L<level> rows=<n> deletes=<d> dv=<deleted positions>", sorted, the
// positions read from the deletion vectors the snapshot's index manifest
// names, as ranges ("0-14,20-24"; empty without a vector). It also checks
// the deletion-vector invariant batch reads rely on: every live row above
// level 0 is the only one of its key, so the live rows of those files are
// as many as live keys (the caller compares with its model size).
func dvLevels(t *testing.T, tbl *catalog.Table) (files []string, liveAbove0 int64) {
	t.Helper()
	ctx := context.Background()
	plan, err := reader.NewScan(tbl.FileIO, reader.WithAllLevels()).Plan(ctx)
	if err != nil {
		t.Fatal(err)
	}
	for _, sp := range plan.Splits {
		for _, f := range sp.Files {
			var pos []int64
			if df, ok := sp.DeletionFiles[f.FileName]; ok {
				dv, err := deletionvector.ReadOne(ctx, tbl.FileIO, df.IndexFile, df.Offset, df.Length)
				if err != nil {
					t.Fatal(err)
				}
				pos = slices.Collect(dv.All())
			}
			if f.Level > 0 {
				liveAbove0 += f.RowCount - int64(len(pos))
			}
			files = append(files, fmt.Sprintf("L%d rows=%d deletes=%d dv=%s", f.Level, f.RowCount, *f.DeleteRowCount, posRanges(pos)))
		}
	}
	slices.Sort(files)
	return files, liveAbove0
}

// posRanges renders ascending positions as ranges: 0 1 2 5 -> "0-2,5".
func posRanges(pos []int64) string {
	var parts []string
	for i := 0; i < len(pos); {
		j := i
		for j+1 < len(pos) && pos[j+1] == pos[j]+1 {
			j++
		}
		if i == j {
			parts = append(parts, strconv.FormatInt(pos[i], 10))
		} else {
			parts = append(parts, fmt.Sprintf("%d-%d", pos[i], pos[j]))
		}
		i = j + 1
	}
	return strings.Join(parts, ",")
}

// hasIndexManifest reports whether the latest snapshot names an index
// manifest.
func hasIndexManifest(t *testing.T, tbl *catalog.Table) bool {
	t.Helper()
	ctx := context.Background()
	m := snapshot.NewManager(tbl.FileIO)
	id, err := m.LatestID(ctx)
	if err != nil {
		t.Fatal(err)
	}
	s, err := m.Get(ctx, id)
	if err != nil {
		t.Fatal(err)
	}
	return s.IndexManifest != nil && *s.IndexManifest != ""
}

// checkDV checks the table after a commit: a plain batch read (which skips
// level 0 of deletion-vector tables) and a read of all levels both return
// exactly the model, and the live rows above level 0 are one per key.
func checkDV(t *testing.T, what string, tbl *catalog.Table, m model) []string {
	t.Helper()
	url := tbl.FileIO.URL()
	equalRows(t, what+": batch read", readRows(t, url), m.rows())
	equalRows(t, what+": all levels", readRows(t, url, reader.WithAllLevels()), m.rows())
	files, live := dvLevels(t, tbl)
	if live != int64(len(m)) {
		t.Errorf("%s: %d live rows above level 0, %d keys (files %q)", what, live, len(m), files)
	}
	return files
}

// dvStep is one prepare of the deletion-vector scenario.
type dvStep struct {
	ops   []lsmOp
	files []string
	kinds []snapshot.CommitKind
}

// dvScenario: trigger 3, num-levels 4 (highest level 3), deletion vectors;
// sizes in rows (about proportional to bytes). Worked by hand from
// ForceUpLevel0Compaction, UniversalCompaction and
// LookupMergeTreeCompactRewriter:
//
//  1. [L0 a100]: nothing by the universal rules; forcePickL0 takes every
//     run -> level 3. The level-0 file has no deletes and goes to the
//     highest level: upgraded (CHANGELOG_NO_REWRITE), nothing above.
//  2. [L0 b15 (updates 0..9, deletes 10..14), L3]: forcePickL0 takes L0
//     only (L3 is larger), output level 3-1 = 2. The file holds deletes:
//     rewritten with the lookup, which marks keys 0..14 on level 3
//     (positions 0..14); the deletes are dropped (deletion vectors drop
//     them on every level above 0): L2 holds 0..9.
//  3. [L0 c15 (5..9, 20..24 updated, 100..104 new), L2 10, L3]: three runs;
//     size ratio: L2 <= 1.01·L0 joins, L3 does not: output 2. L0 and L2
//     overlap: one rewrite; the lookup on level 3 finds 20..24 (positions
//     20..24; 0..9 are deleted already): L2 holds 0..9, 20..24, 100..104.
//  4. [L0 d9 (deletes 0..2, 100..104; inserts 200), L2 20, L3]: no
//     universal pick (L2 > 1.01·L0, 3 runs); forcePickL0: L0 only, output
//     2-1 = 1. Rewritten (deletes): marks 0..2 and 100..104 on level 2
//     (positions 0..2, 15..19), 200 is new: L1 holds 200.
func dvScenario() []dvStep {
	return []dvStep{
		{insRange(0, 99, 1), []string{"L3 rows=100 deletes=0 dv="}, []snapshot.CommitKind{kindAppend, kindCompact}},
		{append(updRange(0, 9, 2), delRange(10, 14)...), []string{"L2 rows=10 deletes=0 dv=", "L3 rows=100 deletes=0 dv=0-14"}, []snapshot.CommitKind{kindAppend, kindCompact}},
		{append(append(updRange(5, 9, 3), updRange(20, 24, 3)...), insRange(100, 104, 1)...),
			[]string{"L2 rows=20 deletes=0 dv=", "L3 rows=100 deletes=0 dv=0-14,20-24"}, []snapshot.CommitKind{kindAppend, kindCompact}},
		{append(append(delRange(0, 2), delRange(100, 104)...), insRange(200, 200, 1)...),
			[]string{"L1 rows=1 deletes=0 dv=", "L2 rows=20 deletes=0 dv=0-2,15-19", "L3 rows=100 deletes=0 dv=0-14,20-24"}, []snapshot.CommitKind{kindAppend, kindCompact}},
	}
}

var dvOptions = map[string]string{"deletion-vectors.enabled": "true", "num-sorted-run.compaction-trigger": "3"}

// TestDeletionVectorsDeduplicate writes the scenario with one Write across
// all prepares, with a new Write per prepare (levels and deletion vectors
// restored from the latest snapshot and its index manifest) and with
// background compaction (PrepareCommit still empties level 0). After every
// commit the batch read, which skips level 0, and the read of all levels
// return exactly the model, and the files and their deletion vectors are
// the expected ones. A full dedicated compaction then merges everything
// into one file and drops every vector; a delete marks a row of that file
// (no new data file), and the next full compaction rewrites the single
// top-level file because it has a vector.
func TestDeletionVectorsDeduplicate(t *testing.T) {
	for _, mode := range []string{"one write", "write per prepare", "async"} {
		t.Run(mode, func(t *testing.T) {
			ctx := context.Background()
			tbl := compactTable(t, dvOptions)
			var opts []writer.Option
			if mode == "async" {
				opts = append(opts, writer.WithAsyncCompaction(1))
			}
			var w *writer.Write
			next := func() *writer.Write {
				if w == nil || mode == "write per prepare" {
					if w != nil {
						w.Close()
					}
					w = must(writer.New(tbl.FileIO, tbl.Schema, "u", opts...))
				}
				return w
			}
			defer func() { w.Close() }()
			c := must(commit.New(tbl.FileIO, tbl.Schema, "u"))
			defer c.Close()
			m := model{}
			var last int64
			for i, st := range dvScenario() {
				what := fmt.Sprintf("step %d", i+1)
				if _, err := c.Commit(ctx, int64(i+1), writePrepare(t, next(), st.ops)); err != nil {
					t.Fatalf("%s: %v", what, err)
				}
				m.apply(st.ops)
				var kinds []snapshot.CommitKind
				kinds, last = kindsSince(t, tbl, last)
				if !slices.Equal(kinds, st.kinds) {
					t.Errorf("%s: snapshots %v, want %v", what, kinds, st.kinds)
				}
				if got := checkDV(t, what, tbl, m); !slices.Equal(got, st.files) {
					t.Errorf("%s: files\n got %q\nwant %q", what, got, st.files)
				}
				if i > 0 && !hasIndexManifest(t, tbl) {
					t.Errorf("%s: no index manifest", what)
				}
			}

			// Full compaction: 93 live keys in one file, no vector left.
			if _, err := compaction.Compact(ctx, tbl.FileIO, tbl.Schema, "other", compaction.Options{Full: true}); err != nil {
				t.Fatal(err)
			}
			if got := checkDV(t, "full compaction", tbl, m); !slices.Equal(got, []string{"L3 rows=93 deletes=0 dv="}) {
				t.Errorf("full compaction: files %q", got)
			}
			// Key 60 is row 52 of that file (3..9, 15..24, 25..99, 200).
			w.Close()
			w = must(writer.New(tbl.FileIO, tbl.Schema, "u", opts...))
			ops := delRange(60, 60)
			if _, err := c.Commit(ctx, 10, writePrepare(t, w, ops)); err != nil {
				t.Fatal(err)
			}
			m.apply(ops)
			if got := checkDV(t, "delete 60", tbl, m); !slices.Equal(got, []string{"L3 rows=93 deletes=0 dv=52"}) {
				t.Errorf("delete 60: files %q", got)
			}
			// A single run on the highest level: its file with a vector is
			// rewritten alone (CompactStrategy.pickFullCompaction).
			if _, err := compaction.Compact(ctx, tbl.FileIO, tbl.Schema, "other", compaction.Options{Full: true}); err != nil {
				t.Fatal(err)
			}
			if got := checkDV(t, "rewrite", tbl, m); !slices.Equal(got, []string{"L3 rows=92 deletes=0 dv="}) {
				t.Errorf("rewrite: files %q", got)
			}
		})
	}
}

// engineTable creates a one-bucket deletion-vector table of fields with
// primary key k and the given options.
func engineTable(t *testing.T, fields []types.DataField, opts map[string]string) *catalog.Table {
	t.Helper()
	o := map[string]string{"bucket": "1", "deletion-vectors.enabled": "true"}
	maps.Copy(o, opts)
	return newTable(t, "", catalog.Schema{Fields: fields, PrimaryKeys: []string{"k"}, Options: o})
}

// kindBatch builds a batch of fields plus a string row kind column from
// rows of Go values, the kind last.
func kindBatch(t *testing.T, fields []types.DataField, rows ...[]any) arrow.RecordBatch {
	t.Helper()
	all := append(slices.Clone(fields), types.DataField{Name: writer.DefaultRowKindColumn, Type: types.String()})
	return tabletest.Batch(t, types.SchemaToArrow(all), rows...)
}

// commitBatch writes rec with w, prepares and commits as identifier.
func commitBatch(t *testing.T, w *writer.Write, c *commit.Committer, identifier int64, rec arrow.RecordBatch) {
	t.Helper()
	ctx := context.Background()
	defer rec.Release()
	if err := w.Write(ctx, rec); err != nil {
		t.Fatal(err)
	}
	msgs, err := w.PrepareCommit(ctx)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := c.Commit(ctx, identifier, msgs); err != nil {
		t.Fatal(err)
	}
}

// checkEngine checks a plain batch read and a read of all levels against
// want, and that the table keeps no level-0 file and one live row per key
// above level 0.
func checkEngine(t *testing.T, what string, tbl *catalog.Table, want []string) {
	t.Helper()
	url := tbl.FileIO.URL()
	equalRows(t, what+": batch read", readRows(t, url), want)
	equalRows(t, what+": all levels", readRows(t, url, reader.WithAllLevels()), want)
	files, live := dvLevels(t, tbl)
	if live != int64(len(want)) {
		t.Errorf("%s: %d live rows above level 0 for %d keys (files %q)", what, live, len(want), files)
	}
	for _, f := range files {
		if strings.HasPrefix(f, "L0 ") {
			t.Errorf("%s: level-0 file left: %q", what, files)
		}
	}
}

// baseRows returns rows 0..n-1 made by row, for a large highest-level file
// that later level-0 files stay far below in size.
func baseRows(n int, row func(k int32) []any) [][]any {
	out := make([][]any, n)
	for k := range n {
		out[k] = row(int32(k))
	}
	return out
}

// TestDeletionVectorsPartialUpdate: the lookup of a partial-update table
// merges the version found above the output level into the level-0
// records (Java PersistValueAndPosProcessor, LookupMergeFunction.insertInto)
// and marks it deleted, so a later partial row keeps the earlier fields.
func TestDeletionVectorsPartialUpdate(t *testing.T) {
	fields := []types.DataField{
		{Name: "k", Type: types.Int().NotNull()},
		{Name: "a", Type: types.Int()},
		{Name: "b", Type: types.String()},
	}
	tbl := engineTable(t, fields, map[string]string{"merge-engine": "partial-update"})
	w := must(writer.New(tbl.FileIO, tbl.Schema, "u"))
	defer w.Close()
	c := must(commit.New(tbl.FileIO, tbl.Schema, "u"))
	defer c.Close()
	base := baseRows(200, func(k int32) []any { return []any{k, k, val(k, 1), "+I"} })
	commitBatch(t, w, c, 1, kindBatch(t, fields, base...))
	want := func(change map[int32]string) []string {
		var out []string
		for k := range int32(200) {
			if s, ok := change[k]; ok {
				out = append(out, s)
			} else {
				out = append(out, fmt.Sprintf("%d|%d|%s", k, k, val(k, 1)))
			}
		}
		slices.Sort(out)
		return out
	}
	checkEngine(t, "base", tbl, want(nil))
	commitBatch(t, w, c, 2, kindBatch(t, fields, []any{int32(1), nil, "y", "+I"}, []any{int32(2), int32(20), nil, "+U"}))
	checkEngine(t, "partial rows", tbl, want(map[int32]string{1: "1|1|y", 2: "2|20|" + val(2, 1)}))
	commitBatch(t, w, c, 3, kindBatch(t, fields, []any{int32(1), int32(7), nil, "+I"}, []any{int32(3), nil, "z", "+I"}))
	checkEngine(t, "partial rows again", tbl, want(map[int32]string{1: "1|7|y", 2: "2|20|" + val(2, 1), 3: "3|3|z"}))
	// A new Write restores the deletion vectors and keeps merging.
	w2 := must(writer.New(tbl.FileIO, tbl.Schema, "u"))
	defer w2.Close()
	commitBatch(t, w2, c, 4, kindBatch(t, fields, []any{int32(1), nil, "w", "+I"}, []any{int32(199), int32(0), nil, "+I"}))
	checkEngine(t, "restored write", tbl, want(map[int32]string{1: "1|7|w", 2: "2|20|" + val(2, 1), 3: "3|3|z", 199: "199|0|" + val(199, 1)}))
}

// TestDeletionVectorsAggregation: sums and maxima over several commits,
// each level-0 record combined with the aggregate found above it.
func TestDeletionVectorsAggregation(t *testing.T) {
	fields := []types.DataField{
		{Name: "k", Type: types.Int().NotNull()},
		{Name: "cnt", Type: types.BigInt()},
		{Name: "mx", Type: types.Int()},
		{Name: "pad", Type: types.String()},
	}
	tbl := engineTable(t, fields, map[string]string{
		"merge-engine": "aggregation", "fields.cnt.aggregate-function": "sum",
		"fields.mx.aggregate-function": "max", "fields.pad.aggregate-function": "last_non_null_value",
	})
	w := must(writer.New(tbl.FileIO, tbl.Schema, "u"))
	defer w.Close()
	c := must(commit.New(tbl.FileIO, tbl.Schema, "u"))
	defer c.Close()
	cnt := map[int32]int64{}
	mx := map[int32]int32{}
	add := func(rows ...[]any) [][]any {
		for _, r := range rows {
			k := r[0].(int32)
			if old, ok := mx[k]; !ok || r[2].(int32) > old {
				mx[k] = r[2].(int32)
			}
			cnt[k] += r[1].(int64)
			r[3] = val(k, 1)
		}
		return rows
	}
	want := func() []string {
		var out []string
		for k, n := range cnt {
			out = append(out, fmt.Sprintf("%d|%d|%d|%s", k, n, mx[k], val(k, 1)))
		}
		slices.Sort(out)
		return out
	}
	base := add(baseRows(200, func(k int32) []any { return []any{k, int64(1), k, nil, "+I"} })...)
	commitBatch(t, w, c, 1, kindBatch(t, fields, base...))
	checkEngine(t, "base", tbl, want())
	id := int64(2)
	for round := range 3 {
		rows := add(
			[]any{int32(5), int64(10), int32(round), nil, "+I"},
			[]any{int32(7), int64(100), int32(1000 + round), nil, "+I"},
			[]any{int32(5), int64(1), int32(2000), nil, "+I"},
			[]any{int32(300 + round), int64(3), int32(-1), nil, "+I"},
		)
		commitBatch(t, w, c, id, kindBatch(t, fields, rows...))
		id++
		checkEngine(t, fmt.Sprintf("round %d", round), tbl, want())
	}
}

// TestDeletionVectorsSequenceField: a later write with a lower
// sequence.field value loses to the earlier higher one (issue 6, case (a)),
// before compaction (level 0 merged on read), after the writer's lookup
// compaction, after a dedicated compaction and after full compaction.
func TestDeletionVectorsSequenceField(t *testing.T) {
	ctx := context.Background()
	fields := []types.DataField{
		{Name: "k", Type: types.Int().NotNull()},
		{Name: "ts", Type: types.BigInt()},
		{Name: "v", Type: types.String()},
	}
	tbl := engineTable(t, fields, map[string]string{"sequence.field": "ts"})
	c := must(commit.New(tbl.FileIO, tbl.Schema, "u"))
	defer c.Close()
	w := must(writer.New(tbl.FileIO, tbl.Schema, "u"))
	defer w.Close()
	base := baseRows(200, func(k int32) []any { return []any{k, int64(10), val(k, 1), "+I"} })
	commitBatch(t, w, c, 1, kindBatch(t, fields, base...))
	want := func(change map[int32]string) []string {
		var out []string
		for k := range int32(200) {
			if s, ok := change[k]; ok {
				out = append(out, s)
			} else {
				out = append(out, fmt.Sprintf("%d|10|%s", k, val(k, 1)))
			}
		}
		slices.Sort(out)
		return out
	}
	// Before compaction: a write-only writer leaves level-0 files, which a
	// read of all levels merges by ts.
	wo := *tbl.Schema
	wo.Options = maps.Clone(tbl.Schema.Options)
	wo.Options["write-only"] = "true"
	w0 := must(writer.New(tbl.FileIO, &wo, "u"))
	defer w0.Close()
	commitBatch(t, w0, c, 2, kindBatch(t, fields, []any{int32(1), int64(5), "late", "+U"}, []any{int32(2), int64(20), "new", "+U"}))
	after := want(map[int32]string{2: "2|20|new"})
	equalRows(t, "before compaction, all levels", readRows(t, tbl.FileIO.URL(), reader.WithAllLevels()), after)
	equalRows(t, "before compaction, batch read", readRows(t, tbl.FileIO.URL()), want(nil))
	// The dedicated compaction forces level 0 up with the lookup.
	if _, err := compaction.Compact(ctx, tbl.FileIO, tbl.Schema, "other", compaction.Options{}); err != nil {
		t.Fatal(err)
	}
	checkEngine(t, "dedicated compaction", tbl, after)
	// The writer's own compaction: 3 loses (ts 9 < 10), 4 wins (ts 10 =
	// 10, later sequence number), 2 loses against its ts 20.
	w2 := must(writer.New(tbl.FileIO, tbl.Schema, "u"))
	defer w2.Close()
	commitBatch(t, w2, c, 3, kindBatch(t, fields,
		[]any{int32(3), int64(9), "late", "+U"}, []any{int32(4), int64(10), "tie", "+U"}, []any{int32(2), int64(15), "late", "+U"}))
	after = want(map[int32]string{2: "2|20|new", 4: "4|10|tie"})
	checkEngine(t, "writer compaction", tbl, after)
	if _, err := compaction.Compact(ctx, tbl.FileIO, tbl.Schema, "other", compaction.Options{Full: true}); err != nil {
		t.Fatal(err)
	}
	checkEngine(t, "full compaction", tbl, after)
}

// TestFirstRowWriter: the writer accepts first-row tables and compacts
// level 0 at every PrepareCommit (lookup compaction forcing level 0 up), so
// a batch read, which skips level 0, returns the first row of every key
// after every commit (issue 6, case (c)).
func TestFirstRowWriter(t *testing.T) {
	tbl := compactTable(t, map[string]string{"merge-engine": "first-row"})
	c := must(commit.New(tbl.FileIO, tbl.Schema, "u"))
	defer c.Close()
	w := must(writer.New(tbl.FileIO, tbl.Schema, "u"))
	defer w.Close()
	first := model{}
	apply := func(ops []lsmOp) {
		for _, o := range ops {
			if _, ok := first[o.k]; !ok {
				first[o.k] = val(o.k, o.ver)
			}
		}
	}
	steps := [][]lsmOp{
		insRange(0, 199, 1),
		append(insRange(1, 1, 2), insRange(300, 300, 2)...),
		append(append(insRange(300, 300, 3), insRange(301, 301, 3)...), insRange(2, 2, 3)...),
		append(insRange(0, 9, 4), insRange(302, 305, 4)...),
	}
	for i, ops := range steps {
		what := fmt.Sprintf("step %d", i+1)
		wr := w
		if i == 3 {
			// A new Write restores the levels from the latest snapshot.
			wr = must(writer.New(tbl.FileIO, tbl.Schema, "u"))
			defer wr.Close()
		}
		if _, err := c.Commit(context.Background(), int64(i+1), writePrepare(t, wr, ops)); err != nil {
			t.Fatalf("%s: %v", what, err)
		}
		apply(ops)
		equalRows(t, what+": batch read", readRows(t, tbl.FileIO.URL()), first.rows())
		equalRows(t, what+": all levels", readRows(t, tbl.FileIO.URL(), reader.WithAllLevels()), first.rows())
		for _, l := range levels(t, tbl) {
			if strings.HasPrefix(l, "L0 ") {
				t.Errorf("%s: level-0 file left: %q", what, levels(t, tbl))
			}
		}
	}
}

// TestDeletionVectorsConflict: two Writes restore the same deletion
// vectors; the first commits new ones, so the second names an index file
// that is no longer live and its COMPACT snapshot fails with
// commit.ErrConflict (its APPEND snapshot is published). No row is lost:
// a read of all levels shows every row at once, and after Restore the
// second Write compacts its committed level-0 file with its next commit.
func TestDeletionVectorsConflict(t *testing.T) {
	ctx := context.Background()
	tbl := compactTable(t, dvOptions)
	c := must(commit.New(tbl.FileIO, tbl.Schema, "u"))
	defer c.Close()
	m := model{}
	step := func(w *writer.Write, id int64, ops []lsmOp) {
		t.Helper()
		if _, err := c.Commit(ctx, id, writePrepare(t, w, ops)); err != nil {
			t.Fatal(err)
		}
		m.apply(ops)
	}
	w0 := must(writer.New(tbl.FileIO, tbl.Schema, "u"))
	step(w0, 1, insRange(0, 99, 1))
	step(w0, 2, updRange(0, 4, 2)) // marks rows 0..4 of level 3
	w0.Close()
	if !hasIndexManifest(t, tbl) {
		t.Fatal("no index manifest")
	}

	w1 := must(writer.New(tbl.FileIO, tbl.Schema, "u1"))
	defer w1.Close()
	w2 := must(writer.New(tbl.FileIO, tbl.Schema, "u2"))
	defer w2.Close()
	ops1, ops2 := updRange(10, 14, 3), updRange(20, 24, 3)
	for _, x := range []struct {
		w   *writer.Write
		ops []lsmOp
	}{{w1, ops1}, {w2, ops2}} {
		rec := opsBatch(t, x.ops)
		if err := x.w.Write(ctx, rec); err != nil {
			t.Fatal(err)
		}
		rec.Release()
	}
	msgs1 := must(w1.PrepareCommit(ctx))
	if _, err := c.Commit(ctx, 3, msgs1); err != nil {
		t.Fatal(err)
	}
	m.apply(ops1)
	msgs2 := must(w2.PrepareCommit(ctx))
	if len(msgs2) != 1 || len(msgs2[0].Compact.DeletedIndexFiles) != 1 {
		t.Fatalf("second write's messages: %+v", msgs2)
	}
	c2 := must(commit.New(tbl.FileIO, tbl.Schema, "u2"))
	defer c2.Close()
	// The compaction is refused; the Write takes the refusal over, so the
	// commit of the data succeeds.
	if _, err := c2.Commit(ctx, 1, msgs2); err != nil {
		t.Fatalf("commit with a stale deletion-vector index: %v", err)
	}
	kinds, _ := kindsSince(t, tbl, 4)
	if !slices.Equal(kinds, []snapshot.CommitKind{kindAppend, kindCompact, kindAppend}) {
		t.Errorf("snapshots after the first two commits %v", kinds)
	}
	// The batch read still shows w1's state; w2's rows are in a committed
	// level-0 file, which a read of all levels merges.
	before := maps.Clone(m)
	m.apply(ops2)
	equalRows(t, "batch read after the conflict", readRows(t, tbl.FileIO.URL()), before.rows())
	equalRows(t, "all levels after the conflict", readRows(t, tbl.FileIO.URL(), reader.WithAllLevels()), m.rows())

	if err := w2.Restore(ctx); err != nil {
		t.Fatal(err)
	}
	ops3 := updRange(30, 30, 3)
	if _, err := c2.Commit(ctx, 2, writePrepare(t, w2, ops3)); err != nil {
		t.Fatalf("commit after Restore: %v", err)
	}
	m.apply(ops3)
	checkDV(t, "after Restore", tbl, m)
	if err := w2.Restore(ctx); err != nil {
		t.Fatal(err)
	}
	w2.Close()
	if err := w2.Restore(ctx); !errors.Is(err, writer.ErrClosed) {
		t.Errorf("Restore after Close: %v", err)
	}
}

// TestDeletionVectorsRefused: first-row with deletion vectors is refused
// (Java: "First row merge engine does not need deletion vectors"), and so
// is a deletion-vector table the writer could not compact, whose rows would
// never become visible; with write-only = true both are written as level-0
// files for a dedicated compaction, as Java does.
func TestDeletionVectorsRefused(t *testing.T) {
	for _, opts := range []map[string]string{
		{"deletion-vectors.enabled": "true", "merge-engine": "first-row"},
		{"deletion-vectors.enabled": "true", "force-lookup": "true"},
	} {
		// The catalog refuses such a table at create (first-row with
		// deletion vectors); a table written elsewhere may still have it.
		create := maps.Clone(opts)
		delete(create, "deletion-vectors.enabled")
		tbl := compactTable(t, create)
		ts := *tbl.Schema
		ts.Options = maps.Clone(ts.Options)
		ts.Options["deletion-vectors.enabled"] = "true"
		tbl.Schema = &ts
		if _, err := writer.New(tbl.FileIO, tbl.Schema, "u"); !errors.Is(err, writer.ErrUnsupported) {
			t.Errorf("%v: %v, want ErrUnsupported", opts, err)
		}
		wo := *tbl.Schema
		wo.Options = maps.Clone(tbl.Schema.Options)
		wo.Options["write-only"] = "true"
		w, err := writer.New(tbl.FileIO, &wo, "u")
		if err != nil {
			t.Errorf("%v with write-only: %v", opts, err)
			continue
		}
		w.Close()
	}
}
