package writer_test

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"fmt"
	"maps"
	"slices"
	"strings"
	"sync"
	"testing"

	"github.com/apache/arrow-go/v18/arrow"

	"github.com/paimon-go/paimon/catalog"
	"github.com/paimon-go/paimon/commit"
	"github.com/paimon-go/paimon/compaction"
	"github.com/paimon-go/paimon/internal/tabletest"
	"github.com/paimon-go/paimon/reader"
	"github.com/paimon-go/paimon/snapshot"
	"github.com/paimon-go/paimon/types"
	"github.com/paimon-go/paimon/writer"
)

// compactFields is the row type of the compaction tests: key k, a value v
// of 192 pseudo-random hex characters, so that a file's size is about
// proportional to its rows (Parquet's fixed overhead is small beside 100
// rows), which the expected picks rely on with wide margins.
var compactFields = []types.DataField{
	{Name: "k", Type: types.Int().NotNull()},
	{Name: "v", Type: types.String()},
}

// val is the value of key k at version ver.
func val(k int32, ver int) string {
	var sb strings.Builder
	seed := []byte(fmt.Sprintf("%d/%d", k, ver))
	for range 3 {
		h := sha256.Sum256(seed)
		sb.WriteString(hex.EncodeToString(h[:]))
		seed = h[:]
	}
	return sb.String()
}

// lsmOp is one input row: kind, key, value version.
type lsmOp struct {
	kind string
	k    int32
	ver  int
}

func insRange(from, to int32, ver int) []lsmOp { return opRange("+I", from, to, ver) }
func updRange(from, to int32, ver int) []lsmOp { return opRange("+U", from, to, ver) }
func delRange(from, to int32) []lsmOp          { return opRange("-D", from, to, 0) }

func opRange(kind string, from, to int32, ver int) []lsmOp {
	var out []lsmOp
	for k := from; k <= to; k++ {
		out = append(out, lsmOp{kind, k, ver})
	}
	return out
}

// model is the expected table content: key -> value.
type model map[int32]string

func (m model) apply(ops []lsmOp) {
	for _, o := range ops {
		if o.kind == "-D" {
			delete(m, o.k)
		} else {
			m[o.k] = val(o.k, o.ver)
		}
	}
}

// rows returns the model as tabletest.ReadRows prints the table.
func (m model) rows() []string {
	var out []string
	for k, v := range m {
		out = append(out, fmt.Sprintf("%d|%s", k, v))
	}
	slices.Sort(out)
	return out
}

func opsBatch(t *testing.T, ops []lsmOp) arrow.RecordBatch {
	t.Helper()
	fields := append(slices.Clone(compactFields), types.DataField{Name: writer.DefaultRowKindColumn, Type: types.String()})
	rows := make([][]any, len(ops))
	for i, o := range ops {
		rows[i] = []any{o.k, val(o.k, o.ver), o.kind}
	}
	return tabletest.Batch(t, types.SchemaToArrow(fields), rows...)
}

func compactTable(t *testing.T, opts map[string]string) *catalog.Table {
	t.Helper()
	o := map[string]string{"bucket": "1"}
	maps.Copy(o, opts)
	return newTable(t, "", catalog.Schema{Fields: compactFields, PrimaryKeys: []string{"k"}, Options: o})
}

// writePrepare writes ops with w and returns PrepareCommit's messages.
func writePrepare(t *testing.T, w *writer.Write, ops []lsmOp) []commit.Message {
	t.Helper()
	ctx := context.Background()
	rec := opsBatch(t, ops)
	defer rec.Release()
	if err := w.Write(ctx, rec); err != nil {
		t.Fatal(err)
	}
	msgs, err := w.PrepareCommit(ctx)
	if err != nil {
		t.Fatal(err)
	}
	return msgs
}

// levels describes the live files of the latest snapshot as
// "L<level> rows=<n> deletes=<d>", sorted.
func levels(t *testing.T, tbl *catalog.Table) []string {
	t.Helper()
	plan, err := reader.NewScan(tbl.FileIO, reader.WithAllLevels()).Plan(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	var out []string
	for _, sp := range plan.Splits {
		for _, f := range sp.Files {
			out = append(out, fmt.Sprintf("L%d rows=%d deletes=%d", f.Level, f.RowCount, *f.DeleteRowCount))
		}
	}
	slices.Sort(out)
	return out
}

// kindsSince returns the commit kinds of the snapshots after id.
func kindsSince(t *testing.T, tbl *catalog.Table, id int64) ([]snapshot.CommitKind, int64) {
	t.Helper()
	ctx := context.Background()
	m := snapshot.NewManager(tbl.FileIO)
	latest, err := m.LatestID(ctx)
	if err != nil {
		t.Fatal(err)
	}
	var out []snapshot.CommitKind
	for i := id + 1; i <= latest; i++ {
		s, err := m.Get(ctx, i)
		if err != nil {
			t.Fatal(err)
		}
		out = append(out, s.CommitKind)
	}
	return out, latest
}

const (
	kindAppend  = snapshot.KindAppend
	kindCompact = snapshot.KindCompact
)

// lsmStep is one prepare of the universal-compaction scenario: the rows
// written, the live files after its commit and the kinds of the snapshots it
// created.
type lsmStep struct {
	ops    []lsmOp
	levels []string
	kinds  []snapshot.CommitKind
}

// lsmScenario: trigger 3 (num-levels 4, highest level 3), size ratio 1%,
// size amplification 200%; sizes in rows (about proportional to bytes). The
// picks of UniversalCompaction, worked by hand:
//
//  1. [a1000]: one run.
//  2. [b100 a1000]: two runs, below the trigger.
//  3. [c120 b100 a1000]: amplification 220 vs 2·1000: no; size ratio:
//     b <= 1.01·c joins, a on level 0 joins: every run -> level 3, one file
//     of the 1220 disjoint keys, deletes dropped.
//  4. [d100 X1220]: two runs. d updates keys 0..49 and deletes 50..99.
//  5. [e110 d100 X]: amplification 210 vs 2440: no; d <= 1.01·e joins; X
//     (level 3 > 1) is larger than 1.01·210: stop, output level 3-1 = 2. d
//     and e (disjoint keys) are merged into one level-2 file of 210 rows,
//     the 50 deletes kept (level 3 holds older data).
//  6. [f100 Y210 X]: Y > 1.01·f: no trigger; 3 runs is not above 3.
//  7. [g120 f100 Y210 X]: f <= 1.01·g joins (220 rows in two files), Y
//     (one file of 210 rows) <= 1.01 of that joins, X stops it: output
//     level 2; g (updates of 100..219), f and Y have disjoint keys: 430 rows,
//     50 deletes kept.
//  8. [h100 Z430 X]: Z > 1.01·h: nothing.
func lsmScenario() []lsmStep {
	return []lsmStep{
		{insRange(0, 999, 1), []string{"L0 rows=1000 deletes=0"}, []snapshot.CommitKind{kindAppend}},
		{insRange(1000, 1099, 1), []string{"L0 rows=100 deletes=0", "L0 rows=1000 deletes=0"}, []snapshot.CommitKind{kindAppend}},
		{insRange(1100, 1219, 1), []string{"L3 rows=1220 deletes=0"}, []snapshot.CommitKind{kindAppend, kindCompact}},
		{append(updRange(0, 49, 2), delRange(50, 99)...), []string{"L0 rows=100 deletes=50", "L3 rows=1220 deletes=0"}, []snapshot.CommitKind{kindAppend}},
		{insRange(1220, 1329, 1), []string{"L2 rows=210 deletes=50", "L3 rows=1220 deletes=0"}, []snapshot.CommitKind{kindAppend, kindCompact}},
		{insRange(1330, 1429, 1), []string{"L0 rows=100 deletes=0", "L2 rows=210 deletes=50", "L3 rows=1220 deletes=0"}, []snapshot.CommitKind{kindAppend}},
		{updRange(100, 219, 3), []string{"L2 rows=430 deletes=50", "L3 rows=1220 deletes=0"}, []snapshot.CommitKind{kindAppend, kindCompact}},
		{insRange(1430, 1529, 1), []string{"L0 rows=100 deletes=0", "L2 rows=430 deletes=50", "L3 rows=1220 deletes=0"}, []snapshot.CommitKind{kindAppend}},
	}
}

var lsmOptions = map[string]string{"num-sorted-run.compaction-trigger": "3"}

// TestWriterCompactionLevels writes the scenario in eight prepares, with
// one Write across all of them (levels kept in memory) and with a new Write
// per prepare (levels restored from the latest snapshot): after every
// commit the live files are exactly the expected levels, the compactions
// are COMPACT snapshots after the APPEND ones, and the rows are the model's.
func TestWriterCompactionLevels(t *testing.T) {
	for _, fresh := range []bool{false, true} {
		t.Run(fmt.Sprintf("newWritePerPrepare=%v", fresh), func(t *testing.T) {
			tbl := compactTable(t, lsmOptions)
			var w *writer.Write
			defer func() {
				if w != nil {
					w.Close()
				}
			}()
			runSteps(t, tbl, lsmScenario(), func() *writer.Write {
				if w == nil || fresh {
					if w != nil {
						w.Close()
					}
					w = must(writer.New(tbl.FileIO, tbl.Schema, "u"))
				}
				return w
			})
		})
	}
}

// runSteps writes each step with the Write next returns, commits its
// prepare and checks the new snapshots' kinds, the live files and the rows
// (against a model of all steps so far) after every commit.
func runSteps(t *testing.T, tbl *catalog.Table, steps []lsmStep, next func() *writer.Write) {
	t.Helper()
	ctx := context.Background()
	c := must(commit.New(tbl.FileIO, tbl.Schema, "u"))
	defer c.Close()
	m := model{}
	var last int64
	for i, st := range steps {
		msgs := writePrepare(t, next(), st.ops)
		if _, err := c.Commit(ctx, int64(i+1), msgs); err != nil {
			t.Fatalf("prepare %d: %v", i+1, err)
		}
		m.apply(st.ops)
		var kinds []snapshot.CommitKind
		kinds, last = kindsSince(t, tbl, last)
		if !slices.Equal(kinds, st.kinds) {
			t.Errorf("prepare %d: snapshots %v, want %v", i+1, kinds, st.kinds)
		}
		equalRows(t, fmt.Sprintf("prepare %d: levels", i+1), levels(t, tbl), st.levels)
		equalRows(t, fmt.Sprintf("prepare %d: rows", i+1), readRows(t, tbl.FileIO.URL()), m.rows())
	}
}

// TestWriterCompactionMessage checks the Compact increment of the third
// prepare: the three level-0 files (two committed, one of this prepare's
// own data increment) are its Before, one level-3 file of source COMPACT
// its After.
func TestWriterCompactionMessage(t *testing.T) {
	tbl := compactTable(t, lsmOptions)
	w := must(writer.New(tbl.FileIO, tbl.Schema, "u"))
	defer w.Close()
	var names []string
	for i, st := range lsmScenario()[:3] {
		msgs := writePrepare(t, w, st.ops)
		if len(msgs) != 1 || len(msgs[0].Data.NewFiles) != 1 {
			t.Fatalf("prepare %d: %+v", i+1, msgs)
		}
		names = append(names, msgs[0].Data.NewFiles[0].FileName)
		inc := msgs[0].Compact
		if i < 2 {
			if !inc.IsEmpty() {
				t.Fatalf("prepare %d compacted: %+v", i+1, inc)
			}
			continue
		}
		var before []string
		for _, f := range inc.Before {
			before = append(before, fmt.Sprintf("%s L%d", f.FileName, f.Level))
		}
		slices.Sort(before)
		want := []string{names[0] + " L0", names[1] + " L0", names[2] + " L0"}
		slices.Sort(want)
		if !slices.Equal(before, want) {
			t.Errorf("before %v, want %v", before, want)
		}
		if len(inc.After) != 1 {
			t.Fatalf("after %+v", inc.After)
		}
		a := inc.After[0]
		if a.Level != 3 || a.RowCount != 1220 || *a.FileSource != 1 || a.MinSequenceNumber != 0 || a.MaxSequenceNumber != 1219 ||
			slices.Contains(names, a.FileName) {
			t.Errorf("after %s level %d rows %d source %d seq %d..%d", a.FileName, a.Level, a.RowCount, *a.FileSource, a.MinSequenceNumber, a.MaxSequenceNumber)
		}
		if ok, err := tbl.FileIO.Exists(context.Background(), "bucket-0/"+a.FileName); err != nil || !ok {
			t.Errorf("compaction output missing: %v %v", ok, err)
		}
	}
}

// TestWriterCompactionWriteOnly: write-only = true never compacts.
func TestWriterCompactionWriteOnly(t *testing.T) {
	o := maps.Clone(lsmOptions)
	o["write-only"] = "true"
	tbl := compactTable(t, o)
	w := must(writer.New(tbl.FileIO, tbl.Schema, "u"))
	defer w.Close()
	if writer.SetCompactionHooks(w, nil, nil) {
		t.Fatal("a write-only Write compacts")
	}
	// Every prepare adds one level-0 file and an APPEND snapshot.
	steps := lsmScenario()
	var files []string
	for i := range steps {
		deletes := 0
		for _, o := range steps[i].ops {
			if o.kind == "-D" {
				deletes++
			}
		}
		files = append(files, fmt.Sprintf("L0 rows=%d deletes=%d", len(steps[i].ops), deletes))
		steps[i].levels = slices.Sorted(slices.Values(files))
		steps[i].kinds = []snapshot.CommitKind{kindAppend}
	}
	runSteps(t, tbl, steps, func() *writer.Write { return w })
}

// TestWriterFullCompactionDeltaCommits: with full-compaction.delta-commits
// = 2 every second prepare compacts the bucket fully into the highest level
// (5: num-levels defaults to the trigger 5 + 1), dropping deletes.
func TestWriterFullCompactionDeltaCommits(t *testing.T) {
	tbl := compactTable(t, map[string]string{"full-compaction.delta-commits": "2"})
	w := must(writer.New(tbl.FileIO, tbl.Schema, "u"))
	defer w.Close()
	steps := []lsmStep{
		{insRange(0, 9, 1), []string{"L0 rows=10 deletes=0"}, []snapshot.CommitKind{kindAppend}},
		// keys 0..14
		{updRange(5, 14, 2), []string{"L5 rows=15 deletes=0"}, []snapshot.CommitKind{kindAppend, kindCompact}},
		{append(delRange(0, 2), insRange(15, 16, 1)...), []string{"L0 rows=5 deletes=3", "L5 rows=15 deletes=0"}, []snapshot.CommitKind{kindAppend}},
		// keys 3..17
		{insRange(17, 17, 1), []string{"L5 rows=15 deletes=0"}, []snapshot.CommitKind{kindAppend, kindCompact}},
		{updRange(3, 3, 3), []string{"L0 rows=1 deletes=0", "L5 rows=15 deletes=0"}, []snapshot.CommitKind{kindAppend}},
		// keys 3, 5..17
		{delRange(4, 4), []string{"L5 rows=14 deletes=0"}, []snapshot.CommitKind{kindAppend, kindCompact}},
	}
	runSteps(t, tbl, steps, func() *writer.Write { return w })
}

// TestWriterCompactionStall: with a write buffer that flushes every batch
// as a level-0 file, num-sorted-run.compaction-trigger 2 and
// num-sorted-run.stop-trigger 3, a compaction starts by the third flush.
// Held in its hook, it is still running when the fifth Write finds 4 > 3
// sorted runs: that Write stalls (the hook reports it, and releases the
// compaction) until the compaction finishes; the earlier Writes did not
// wait. Without async compaction the fourth flush (4 runs after it)
// compacts at once instead, and the fifth finds 2 runs.
func TestWriterCompactionStall(t *testing.T) {
	opts := map[string]string{
		"num-sorted-run.compaction-trigger": "2", "num-sorted-run.stop-trigger": "3",
		"write-buffer-size": "1 b", "write-buffer-spillable": "false", "commit.force-compact": "true",
	}
	for _, async := range []bool{true, false} {
		t.Run(fmt.Sprintf("async=%v", async), func(t *testing.T) {
			ctx := context.Background()
			tbl := compactTable(t, opts)
			var wopts []writer.Option
			if async {
				wopts = append(wopts, writer.WithAsyncCompaction(1))
			}
			w, err := writer.New(tbl.FileIO, tbl.Schema, "u", wopts...)
			if err != nil {
				t.Fatal(err)
			}
			defer w.Close()
			release := make(chan struct{})
			var once sync.Once
			var mu sync.Mutex
			writes, stalls, stallAt, started := 0, 0, 0, 0
			ok := writer.SetCompactionHooks(w, func() {
				mu.Lock()
				started++
				mu.Unlock()
				<-release
			}, func() {
				mu.Lock()
				stalls++
				stallAt = writes
				mu.Unlock()
				once.Do(func() { close(release) })
			})
			if !ok {
				t.Fatal("the Write does not compact")
			}
			m := model{}
			for k := range int32(5) {
				ops := insRange(k, k, 1)
				rec := opsBatch(t, ops)
				mu.Lock()
				writes++
				mu.Unlock()
				err := w.Write(ctx, rec)
				rec.Release()
				if err != nil {
					t.Fatal(err)
				}
				m.apply(ops)
			}
			if st := w.BufferStats(); st.Flushes != 5 {
				t.Errorf("%d flushes, want 5", st.Flushes)
			}
			want := 5
			if !async {
				want = 4
			}
			mu.Lock()
			if stalls != 1 || stallAt != want {
				t.Errorf("%d stalls, at write %d; want 1 at write %d", stalls, stallAt, want)
			}
			if async && started == 0 {
				t.Error("no compaction started")
			}
			mu.Unlock()
			msgs, err := w.PrepareCommit(ctx)
			if err != nil {
				t.Fatal(err)
			}
			if len(msgs) != 1 || len(msgs[0].Data.NewFiles) != 5 || msgs[0].Compact.IsEmpty() {
				t.Fatalf("messages %+v", msgs)
			}
			// The bucket holds exactly the files of the message: outputs of
			// a compaction that a later one of the same prepare consumed
			// were deleted (MergeTreeWriter.updateCompactResult).
			var inMsg, inDir []string
			for _, f := range msgs[0].Data.NewFiles {
				inMsg = append(inMsg, f.FileName)
			}
			for _, f := range msgs[0].Compact.After {
				inMsg = append(inMsg, f.FileName)
			}
			slices.Sort(inMsg)
			inMsg = slices.Compact(inMsg)
			list, err := tbl.FileIO.List(ctx, "bucket-0")
			if err != nil {
				t.Fatal(err)
			}
			for _, f := range list {
				inDir = append(inDir, f.Path[strings.LastIndexByte(f.Path, '/')+1:])
			}
			slices.Sort(inDir)
			equalRows(t, "bucket files", inDir, inMsg)
			c := must(commit.New(tbl.FileIO, tbl.Schema, "u"))
			defer c.Close()
			if _, err := c.Commit(ctx, 1, msgs); err != nil {
				t.Fatal(err)
			}
			kinds, _ := kindsSince(t, tbl, 0)
			if !slices.Equal(kinds, []snapshot.CommitKind{kindAppend, kindCompact}) {
				t.Errorf("snapshots %v", kinds)
			}
			equalRows(t, "rows", readRows(t, tbl.FileIO.URL()), m.rows())
		})
	}
}

// TestWriterAppendCompaction: a bucketed append table with
// compaction.min.file-num 3 compacts in the writer once three files wait:
// the group is rewritten in sequence order with sequence numbers from its
// first file, and the small output waits in the queue for the next group.
func TestWriterAppendCompaction(t *testing.T) {
	ctx := context.Background()
	fields := []types.DataField{{Name: "id", Type: types.Int()}, {Name: "s", Type: types.String()}}
	tbl := newTable(t, "", catalog.Schema{Fields: fields,
		Options: map[string]string{"bucket": "1", "bucket-key": "id", "compaction.min.file-num": "3"}})
	w := must(writer.New(tbl.FileIO, tbl.Schema, "u"))
	defer w.Close()
	c := must(commit.New(tbl.FileIO, tbl.Schema, "u"))
	defer c.Close()
	steps := []struct {
		files []string
		kinds []snapshot.CommitKind
	}{
		{[]string{"rows=2 seq=0..1 source=0"}, []snapshot.CommitKind{kindAppend}},
		{[]string{"rows=2 seq=0..1 source=0", "rows=2 seq=2..3 source=0"}, []snapshot.CommitKind{kindAppend}},
		{[]string{"rows=6 seq=0..5 source=1"}, []snapshot.CommitKind{kindAppend, kindCompact}},
		{[]string{"rows=2 seq=6..7 source=0", "rows=6 seq=0..5 source=1"}, []snapshot.CommitKind{kindAppend}},
		{[]string{"rows=10 seq=0..9 source=1"}, []snapshot.CommitKind{kindAppend, kindCompact}},
	}
	var lines []string
	var last int64
	for i, st := range steps {
		var rows [][]any
		for r := range 2 {
			id := int32(10*i + r)
			rows = append(rows, []any{id, fmt.Sprintf("p%d-r%d", i, r)})
			lines = append(lines, fmt.Sprintf(`{"id":%d,"s":"p%d-r%d"}`, id, i, r))
		}
		rec := tabletest.Batch(t, types.SchemaToArrow(fields), rows...)
		err := w.Write(ctx, rec)
		rec.Release()
		if err != nil {
			t.Fatal(err)
		}
		msgs, err := w.PrepareCommit(ctx)
		if err != nil {
			t.Fatal(err)
		}
		if _, err := c.Commit(ctx, int64(i+1), msgs); err != nil {
			t.Fatal(err)
		}
		var kinds []snapshot.CommitKind
		kinds, last = kindsSince(t, tbl, last)
		if !slices.Equal(kinds, st.kinds) {
			t.Errorf("prepare %d: snapshots %v, want %v", i+1, kinds, st.kinds)
		}
		plan, err := reader.NewScan(tbl.FileIO, reader.WithAllLevels()).Plan(ctx)
		if err != nil {
			t.Fatal(err)
		}
		var files []string
		for _, sp := range plan.Splits {
			for _, f := range sp.Files {
				files = append(files, fmt.Sprintf("rows=%d seq=%d..%d source=%d", f.RowCount, f.MinSequenceNumber, f.MaxSequenceNumber, *f.FileSource))
			}
		}
		slices.Sort(files)
		equalRows(t, fmt.Sprintf("prepare %d: files", i+1), files, st.files)
		// Rows stay in write order: the compacted file first, then the
		// newer files by sequence number.
		data, err := tabletest.Cat(ctx, tbl.FileIO.URL())
		if err != nil {
			t.Fatal(err)
		}
		equalRows(t, fmt.Sprintf("prepare %d: rows", i+1), strings.Split(strings.TrimSpace(string(data)), "\n"), lines)
	}
}

// TestWriterCompactionConflict: a dedicated compaction that commits between
// two prepares removes files the Write still holds in its levels; the
// Write's next compaction names them as Before, and the committer's
// conflict check rejects its COMPACT snapshot after publishing the APPEND
// one. The Write takes the refusal over (commit.Message.OnCompactionRefused),
// so Commit succeeds and the Write's next commit compacts from the table's
// levels. No row is lost.
func TestWriterCompactionConflict(t *testing.T) {
	ctx := context.Background()
	tbl := compactTable(t, lsmOptions)
	w := must(writer.New(tbl.FileIO, tbl.Schema, "u"))
	defer w.Close()
	c := must(commit.New(tbl.FileIO, tbl.Schema, "u"))
	defer c.Close()
	m := model{}
	steps := lsmScenario()
	for i, st := range steps[:2] {
		if _, err := c.Commit(ctx, int64(i+1), writePrepare(t, w, st.ops)); err != nil {
			t.Fatal(err)
		}
		m.apply(st.ops)
	}
	if id, err := compaction.Compact(ctx, tbl.FileIO, tbl.Schema, "other", compaction.Options{Full: true}); err != nil || id != 3 {
		t.Fatalf("dedicated compaction: snapshot %d, %v", id, err)
	}
	msgs := writePrepare(t, w, steps[2].ops)
	if msgs[0].Compact.IsEmpty() {
		t.Fatal("the third prepare did not compact")
	}
	if id, err := c.Commit(ctx, 3, msgs); err != nil || id != 4 {
		t.Fatalf("commit of a stale compaction = %d, %v; want the APPEND snapshot 4", id, err)
	}
	m.apply(steps[2].ops)
	kinds, _ := kindsSince(t, tbl, 0)
	if !slices.Equal(kinds, []snapshot.CommitKind{kindAppend, kindAppend, kindCompact, kindAppend}) {
		t.Errorf("snapshots %v", kinds)
	}
	equalRows(t, "rows", readRows(t, tbl.FileIO.URL()), m.rows())
	// Without Restore, the next commits land, compactions included.
	for i, st := range steps[3:] {
		if _, err := c.Commit(ctx, int64(i+4), writePrepare(t, w, st.ops)); err != nil {
			t.Fatalf("commit %d after the refusal: %v", i+4, err)
		}
		m.apply(st.ops)
	}
	if kinds, _ := kindsSince(t, tbl, 4); !slices.Contains(kinds, kindCompact) {
		t.Errorf("snapshots after the refusal %v: no compaction landed", kinds)
	}
	equalRows(t, "rows after the refusal", readRows(t, tbl.FileIO.URL()), m.rows())
}

// TestWriterCompactionClose: closing a Write whose background compaction
// is still running (or finished but not handed out) waits for it and
// deletes what nothing committed: its level-0 files and the compaction's
// outputs. Nothing was committed, so the bucket directory ends up empty.
func TestWriterCompactionClose(t *testing.T) {
	ctx := context.Background()
	tbl := compactTable(t, map[string]string{
		"num-sorted-run.compaction-trigger": "2",
		"write-buffer-size":                 "1 b", "write-buffer-spillable": "false",
	})
	w, err := writer.New(tbl.FileIO, tbl.Schema, "u", writer.WithAsyncCompaction(2))
	if err != nil {
		t.Fatal(err)
	}
	release := make(chan struct{})
	started := make(chan struct{}, 8)
	writer.SetCompactionHooks(w, func() {
		started <- struct{}{}
		<-release
	}, nil)
	for k := range int32(3) {
		rec := opsBatch(t, insRange(k, k, 1))
		err := w.Write(ctx, rec)
		rec.Release()
		if err != nil {
			t.Fatal(err)
		}
	}
	<-started
	done := make(chan error)
	go func() { done <- w.Close() }()
	close(release)
	if err := <-done; err != nil {
		t.Fatal(err)
	}
	files, err := tbl.FileIO.List(ctx, "bucket-0")
	if err != nil {
		t.Fatal(err)
	}
	if len(files) != 0 {
		t.Errorf("files left: %+v", files)
	}
}
