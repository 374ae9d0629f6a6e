package compaction_test

import (
	"context"
	"errors"
	"fmt"
	"maps"
	"slices"
	"strings"
	"testing"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/memory"

	"github.com/paimon-go/paimon/catalog"
	"github.com/paimon-go/paimon/commit"
	"github.com/paimon-go/paimon/compaction"
	"github.com/paimon-go/paimon/internal/tabletest"
	"github.com/paimon-go/paimon/manifest"
	"github.com/paimon-go/paimon/reader"
	"github.com/paimon-go/paimon/schema"
	"github.com/paimon-go/paimon/snapshot"
	"github.com/paimon-go/paimon/types"
	"github.com/paimon-go/paimon/writer"
)

const user = "compaction-test"

// kvFields is the row type of the primary-key test tables: k is the key.
var kvFields = []types.DataField{
	{Name: "k", Type: types.Int().NotNull()},
	{Name: "v", Type: types.String()},
	{Name: "n", Type: types.BigInt()},
}

// newPKTable creates a primary-key table with one bucket, written with
// write-only = true so that only the dedicated compaction under test
// compacts (the writer compacts otherwise).
func newPKTable(t *testing.T, opts map[string]string) *catalog.Table {
	t.Helper()
	o := map[string]string{"bucket": "1", "write-only": "true"}
	maps.Copy(o, opts)
	return tabletest.NewTable(t, "", catalog.Schema{Fields: kvFields, PrimaryKeys: []string{"k"}, Options: o})
}

// row is one input row: a row kind and the values of kvFields.
type row struct {
	kind string
	k    int32
	v    any // string or nil
	n    any // int64 or nil
}

func ins(k int32, v any, n any) row { return row{"+I", k, v, n} }
func upd(k int32, v any, n any) row { return row{"+U", k, v, n} }
func del(k int32) row               { return row{"-D", k, nil, nil} }

// batchOf builds a batch of kvFields plus writer.DefaultRowKindColumn.
func batchOf(t *testing.T, fields []types.DataField, rows [][]any) arrow.RecordBatch {
	t.Helper()
	all := append(slices.Clone(fields), types.DataField{Name: writer.DefaultRowKindColumn, Type: types.String()})
	return tabletest.Batch(t, types.SchemaToArrow(all), rows...)
}

// commitRows writes rows as one commit with the table's own schema, or with
// ts when given (the writer's view of the table; the commit uses the
// table's schema).
func commitRows(t *testing.T, tbl *catalog.Table, ts *schema.TableSchema, rows ...row) {
	t.Helper()
	vals := make([][]any, len(rows))
	for i, r := range rows {
		vals[i] = []any{r.k, r.v, r.n, r.kind}
	}
	rec := batchOf(t, kvFields, vals)
	defer rec.Release()
	if ts == nil {
		tabletest.WriteCommit(t, tbl, user, commit.BatchIdentifier, rec)
		return
	}
	ctx := context.Background()
	w, err := writer.New(tbl.FileIO, ts, user)
	if err != nil {
		t.Fatal(err)
	}
	defer w.Close()
	if err := w.Write(ctx, rec); err != nil {
		t.Fatal(err)
	}
	msgs, err := w.PrepareCommit(ctx)
	if err != nil {
		t.Fatal(err)
	}
	c, err := commit.New(tbl.FileIO, tbl.Schema, user)
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close()
	if _, err := c.Commit(ctx, commit.BatchIdentifier, msgs); err != nil {
		t.Fatal(err)
	}
}

// baseRows are keys 0..n-1 with v = "a<k>" and n = k.
func baseRows(n int) []row {
	out := make([]row, n)
	for i := range out {
		out[i] = ins(int32(i), fmt.Sprintf("a%d", i), int64(i))
	}
	return out
}

// fileInfo is a live data file of the latest snapshot.
type fileInfo struct {
	name    string
	level   int32
	rows    int64
	deletes int64
	source  manifest.FileSource
	minSeq  int64
	maxSeq  int64
}

func (f fileInfo) String() string {
	return fmt.Sprintf("L%d rows=%d deletes=%d source=%d", f.level, f.rows, f.deletes, f.source)
}

// liveFiles lists the live files of the latest snapshot, by level then name.
func liveFiles(t *testing.T, tbl *catalog.Table) []fileInfo {
	t.Helper()
	plan, err := reader.NewScan(tbl.FileIO, reader.WithAllLevels()).Plan(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	var out []fileInfo
	for _, sp := range plan.Splits {
		for _, f := range sp.Files {
			fi := fileInfo{name: f.FileName, level: f.Level, rows: f.RowCount, minSeq: f.MinSequenceNumber, maxSeq: f.MaxSequenceNumber}
			if f.DeleteRowCount != nil {
				fi.deletes = *f.DeleteRowCount
			}
			if f.FileSource != nil {
				fi.source = *f.FileSource
			}
			out = append(out, fi)
		}
	}
	slices.SortFunc(out, func(a, b fileInfo) int {
		if a.level != b.level {
			return int(a.level - b.level)
		}
		return strings.Compare(a.name, b.name)
	})
	return out
}

func describe(fs []fileInfo) []string {
	out := make([]string, len(fs))
	for i, f := range fs {
		out[i] = f.String()
	}
	return out
}

func latest(t *testing.T, tbl *catalog.Table) *snapshot.Snapshot {
	t.Helper()
	s, err := snapshot.NewManager(tbl.FileIO).Latest(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	return s
}

// expectRows builds the ReadRows form of rows (k|v|n, sorted).
func expectRows(rows ...[]any) []string {
	var out []string
	for _, r := range rows {
		parts := make([]string, len(r))
		for i, v := range r {
			if v == nil {
				parts[i] = "(null)"
			} else {
				parts[i] = fmt.Sprint(v)
			}
		}
		out = append(out, strings.Join(parts, "|"))
	}
	slices.Sort(out)
	return out
}

// baseExpect is expectRows of baseRows(n) with some keys replaced or removed
// (a nil row removes the key) and extra keys added.
func baseExpect(n int, change map[int32][]any) []string {
	var rows [][]any
	for i := range n {
		if r, ok := change[int32(i)]; ok {
			if r != nil {
				rows = append(rows, r)
			}
			continue
		}
		rows = append(rows, []any{i, fmt.Sprintf("a%d", i), i})
	}
	for k, r := range change {
		if int(k) >= n && r != nil {
			rows = append(rows, r)
		}
	}
	return expectRows(rows...)
}

func compact(t *testing.T, tbl *catalog.Table, full bool) int64 {
	t.Helper()
	id, err := compaction.Compact(context.Background(), tbl.FileIO, tbl.Schema, user, compaction.Options{Full: full})
	if err != nil {
		t.Fatal(err)
	}
	return id
}

func checkRows(t *testing.T, tbl *catalog.Table, want []string, opts ...reader.Option) {
	t.Helper()
	got := tabletest.ReadRows(t, tbl.FileIO.URL(), opts...)
	if !slices.Equal(got, want) {
		var missing, extra []string
		for _, w := range want {
			if _, ok := slices.BinarySearch(got, w); !ok {
				missing = append(missing, w)
			}
		}
		for _, g := range got {
			if _, ok := slices.BinarySearch(want, g); !ok {
				extra = append(extra, g)
			}
		}
		t.Fatalf("rows: got %d, want %d; missing %v; unexpected %v", len(got), len(want), missing, extra)
	}
}

func checkFiles(t *testing.T, tbl *catalog.Table, want ...string) []fileInfo {
	t.Helper()
	fs := liveFiles(t, tbl)
	if got := describe(fs); !slices.Equal(got, want) {
		t.Fatalf("files:\n got %v\nwant %v", got, want)
	}
	return fs
}

// baseN is the number of keys of the base commit: enough that its level-5
// file is much larger than the later level-0 files, so that forcing level 0
// up stops below level 5 (size ratio).
const baseN = 2000

// engineCase drives one merge engine through: a base commit of baseN keys,
// a full compaction (which upgrades the single level-0 file to level 5),
// two small commits, a minor compaction (level 0 forced up into level 4,
// below the older data on level 5, so retractions are kept) and a full
// compaction (everything merged into level 5, retractions dropped).
type engineCase struct {
	options  map[string]string
	firstRow bool
	b, c     []row
	// want are the rows after the two small commits (and after every
	// compaction); minorL4 the level-4 files after the minor compaction;
	// fullL5 the level-5 files after the full one.
	want    []string
	minorL4 []string
	fullL5  []string
}

func runEngineCase(t *testing.T, ec engineCase) {
	opts := map[string]string{"compaction.force-up-level-0": "true"}
	maps.Copy(opts, ec.options)
	tbl := newPKTable(t, opts)
	var readOpts []reader.Option
	commitRows(t, tbl, nil, baseRows(baseN)...)
	base := checkFiles(t, tbl, fmt.Sprintf("L0 rows=%d deletes=0 source=0", baseN))

	// Full compaction of one small level-0 file: an upgrade, same name.
	id := compact(t, tbl, true)
	if s := latest(t, tbl); s.ID != id || s.CommitKind != snapshot.KindCompact || s.DeltaRecordCount != 0 || s.TotalRecordCount != baseN {
		t.Fatalf("upgrade snapshot: id %d kind %s delta %d total %d (Compact returned %d)", s.ID, s.CommitKind, s.DeltaRecordCount, s.TotalRecordCount, id)
	}
	up := checkFiles(t, tbl, fmt.Sprintf("L5 rows=%d deletes=0 source=0", baseN))
	if up[0].name != base[0].name {
		t.Fatalf("upgraded file renamed: %s -> %s", base[0].name, up[0].name)
	}
	checkRows(t, tbl, baseExpect(baseN, nil))

	commitRows(t, tbl, nil, ec.b...)
	commitRows(t, tbl, nil, ec.c...)
	if ec.firstRow {
		// Batch reads of first-row tables skip level 0 (Java); the
		// merged view of all levels has the new keys.
		checkRows(t, tbl, baseExpect(baseN, nil))
		readOpts = []reader.Option{reader.WithAllLevels()}
	}
	checkRows(t, tbl, ec.want, readOpts...)

	if id := compact(t, tbl, false); id == 0 {
		t.Fatal("minor compaction picked nothing")
	}
	fs := liveFiles(t, tbl)
	var l4 []string
	for _, f := range fs {
		if f.level == 4 {
			l4 = append(l4, f.String())
		}
		if f.level == 0 {
			t.Fatalf("level-0 file left after the minor compaction: %v", describe(fs))
		}
	}
	if !slices.Equal(l4, ec.minorL4) {
		t.Fatalf("level 4 after minor compaction: got %v want %v (all %v)", l4, ec.minorL4, describe(fs))
	}
	checkRows(t, tbl, ec.want, readOpts...)
	checkRows(t, tbl, ec.want) // default read (first-row: levels above 0 only)

	compact(t, tbl, true)
	checkFiles(t, tbl, ec.fullL5...)
	checkRows(t, tbl, ec.want)
	checkRows(t, tbl, ec.want, reader.WithAllLevels())

	// Nothing left to compact.
	if id := compact(t, tbl, true); id != 0 {
		t.Fatalf("second full compaction created snapshot %d", id)
	}
}

func TestDeduplicate(t *testing.T) {
	runEngineCase(t, engineCase{
		b: []row{upd(1, "b1", int64(11)), del(2), ins(5000, "new", int64(5000))},
		c: []row{upd(1, "c1", int64(12)), upd(3, "c3", nil), del(5000)},
		want: baseExpect(baseN, map[int32][]any{
			1: {1, "c1", 12}, 2: nil, 3: {3, "c3", nil},
		}),
		// Keys 1, 2, 3, 5000 merged: 1 +U, 2 -D, 3 +U, 5000 -D.
		minorL4: []string{"L4 rows=4 deletes=2 source=1"},
		fullL5:  []string{"L5 rows=1999 deletes=0 source=1"},
	})
}

func TestPartialUpdate(t *testing.T) {
	runEngineCase(t, engineCase{
		options: map[string]string{"merge-engine": "partial-update"},
		b:       []row{ins(1, nil, int64(100)), ins(7, "b7", nil)},
		c:       []row{ins(1, "z", nil), ins(5000, nil, int64(5))},
		want: baseExpect(baseN, map[int32][]any{
			1: {1, "z", 100}, 7: {7, "b7", 7}, 5000: {5000, nil, 5},
		}),
		minorL4: []string{"L4 rows=3 deletes=0 source=1"},
		fullL5:  []string{"L5 rows=2001 deletes=0 source=1"},
	})
}

func TestAggregation(t *testing.T) {
	runEngineCase(t, engineCase{
		options: map[string]string{"merge-engine": "aggregation", "fields.n.aggregate-function": "sum"},
		b:       []row{ins(1, nil, int64(10)), ins(4, "b4", int64(1))},
		c:       []row{ins(1, "x", int64(5)), ins(5000, "y", int64(7))},
		// Sums over all levels: the level-4 row of key 1 holds 15, the
		// level-5 row 1; they must be summed once, never twice.
		want: baseExpect(baseN, map[int32][]any{
			1: {1, "x", 16}, 4: {4, "b4", 5}, 5000: {5000, "y", 7},
		}),
		minorL4: []string{"L4 rows=3 deletes=0 source=1"},
		fullL5:  []string{"L5 rows=2001 deletes=0 source=1"},
	})
}

func TestFirstRow(t *testing.T) {
	runEngineCase(t, engineCase{
		options:  map[string]string{"merge-engine": "first-row"},
		firstRow: true,
		b:        []row{ins(1, "b1", int64(-1)), ins(5000, "b500", int64(1))},
		c:        []row{ins(5000, "c500", int64(2)), ins(5001, "c501", int64(3)), ins(9, "c9", int64(-9))},
		// Keys 1 and 9 keep their first rows; 5000 keeps b500.
		want: baseExpect(baseN, map[int32][]any{
			5000: {5000, "b500", 1}, 5001: {5001, "c501", 3},
		}),
		// The lookup drops keys 1 and 9, which level 5 holds.
		minorL4: []string{"L4 rows=2 deletes=0 source=1"},
		fullL5:  []string{"L5 rows=2002 deletes=0 source=1"},
	})
}

// A later write with a lower sequence.field value loses to the earlier
// higher one, before and after compaction.
func TestSequenceField(t *testing.T) {
	tbl := newPKTable(t, map[string]string{"sequence.field": "n"})
	commitRows(t, tbl, nil, ins(1, "a", int64(10)), ins(2, "a", int64(10)))
	commitRows(t, tbl, nil, upd(1, "b", int64(5)), upd(2, "b", int64(20)))
	commitRows(t, tbl, nil, del(2)) // n = null sorts first: the delete loses too
	want := expectRows([]any{1, "a", 10}, []any{2, "b", 20})
	checkRows(t, tbl, want)
	compact(t, tbl, true)
	checkFiles(t, tbl, "L5 rows=2 deletes=0 source=1")
	checkRows(t, tbl, want)
	// A write after compaction still loses against the compacted row.
	commitRows(t, tbl, nil, upd(1, "c", int64(9)))
	checkRows(t, tbl, want)
	compact(t, tbl, true)
	checkRows(t, tbl, want)
}

// Minor compaction picks nothing below num-sorted-run.compaction-trigger.
func TestMinorTrigger(t *testing.T) {
	// Size amplification is kept out of the way; with more runs than the
	// trigger the run-count rule applies whatever the file sizes are.
	tbl := newPKTable(t, map[string]string{"num-sorted-run.compaction-trigger": "3",
		"compaction.max-size-amplification-percent": "100000"})
	commitRows(t, tbl, nil, ins(1, "a", int64(1)))
	commitRows(t, tbl, nil, ins(2, "b", int64(2)))
	before := latest(t, tbl).ID
	if id := compact(t, tbl, false); id != 0 {
		t.Fatalf("compaction below the trigger created snapshot %d", id)
	}
	if latest(t, tbl).ID != before {
		t.Fatal("a snapshot was created")
	}
	commitRows(t, tbl, nil, ins(1, "c", int64(3)), del(2))
	commitRows(t, tbl, nil, ins(4, "d", int64(4)))
	id := compact(t, tbl, false)
	s := latest(t, tbl)
	if id == 0 || s.ID != id || s.CommitKind != snapshot.KindCompact || s.CommitUser != user {
		t.Fatalf("snapshot %d: kind %s user %s (Compact returned %d)", s.ID, s.CommitKind, s.CommitUser, id)
	}
	// Four runs exceed the trigger of 3: the newest two are taken, and the
	// size-ratio rule adds the others (each is at most the sum of the newer
	// ones), so everything goes to the highest level, 3 (num-levels defaults
	// to trigger + 1), and the delete is dropped.
	checkFiles(t, tbl, "L3 rows=2 deletes=0 source=1")
	checkRows(t, tbl, expectRows([]any{1, "c", 3}, []any{4, "d", 4}))
}

func TestCompactMessages(t *testing.T) {
	ctx := context.Background()
	tbl := newPKTable(t, nil)
	commitRows(t, tbl, nil, baseRows(3)...)
	before := liveFiles(t, tbl)
	plan, err := compaction.NewPlan(ctx, tbl.FileIO, tbl.Schema, compaction.Options{Full: true})
	if err != nil {
		t.Fatal(err)
	}
	if len(plan.Tasks) != 1 || plan.Tasks[0].Unit.OutputLevel != 5 || !plan.Tasks[0].DropDeletes || plan.SnapshotID != 1 {
		t.Fatalf("plan: %+v", plan)
	}
	res, err := plan.Execute(ctx)
	if err != nil {
		t.Fatal(err)
	}
	// One level-0 file without deletes: upgraded to level 5.
	if len(res.Messages) != 1 || len(res.Written) != 0 {
		t.Fatalf("messages %d written %v", len(res.Messages), res.Written)
	}
	m := res.Messages[0]
	if m.Bucket != 0 || m.TotalBuckets != 1 || !m.Data.IsEmpty() {
		t.Fatalf("message: bucket %d total %d data %+v", m.Bucket, m.TotalBuckets, m.Data)
	}
	b, a := m.Compact.Before, m.Compact.After
	if len(b) != 1 || len(a) != 1 || b[0].FileName != before[0].name || a[0].FileName != b[0].FileName ||
		b[0].Level != 0 || a[0].Level != 5 || a[0].RowCount != 3 || *a[0].FileSource != manifest.SourceAppend {
		t.Fatalf("upgrade: before %+v after %+v", b, a)
	}
	// The plan saw the bucket's one file; a full compaction to the highest
	// level drops deletes.
	if m.Levels == nil || !slices.Equal(m.Levels.Files, []string{before[0].name}) || m.Levels.DeletesKept {
		t.Fatalf("levels %+v, want [%s] with deletes dropped", m.Levels, before[0].name)
	}
}

// Files of a compaction rewrite carry the metadata Java's
// KeyValueDataFileWriter gives them.
func TestRewrittenFileMeta(t *testing.T) {
	ctx := context.Background()
	tbl := newPKTable(t, nil)
	commitRows(t, tbl, nil, ins(5, "e", int64(5)), ins(3, "c", int64(3)))
	commitRows(t, tbl, nil, upd(3, "c2", nil), ins(9, "i", int64(9)), del(4))
	plan, err := compaction.NewPlan(ctx, tbl.FileIO, tbl.Schema, compaction.Options{Full: true})
	if err != nil {
		t.Fatal(err)
	}
	res, err := plan.Execute(ctx)
	if err != nil {
		t.Fatal(err)
	}
	a := res.Messages[0].Compact.After
	if len(a) != 1 || len(res.Written) != 1 || res.Written[0] != "bucket-0/"+a[0].FileName {
		t.Fatalf("after %+v written %v", a, res.Written)
	}
	f := a[0]
	// Sequence numbers: commit 1 wrote key 5 -> 0, 3 -> 1; commit 2 wrote
	// 3 -> 2, 9 -> 3, 4 -> 4. The merge keeps 3 (+U, seq 2), 5 (seq 0) and
	// 9 (seq 3) and drops the -D of key 4 (output on the highest level).
	if f.RowCount != 3 || f.Level != 5 || f.MinSequenceNumber != 0 || f.MaxSequenceNumber != 3 ||
		*f.DeleteRowCount != 0 || *f.FileSource != manifest.SourceCompact || f.SchemaID != 0 ||
		!slices.Equal(f.ExtraFiles, []string{}) || f.CreationTime == nil {
		t.Fatalf("meta %+v", f)
	}
	// min key 3, max key 9: serialized BinaryRow of one INT field.
	wantKey := func(k byte) []byte {
		return []byte{0, 0, 0, 1, 0, 0, 0, 0, 0, 0, 0, 0, k, 0, 0, 0, 0, 0, 0, 0}
	}
	if !slices.Equal(f.MinKey, wantKey(3)) || !slices.Equal(f.MaxKey, wantKey(9)) {
		t.Fatalf("keys %x %x", f.MinKey, f.MaxKey)
	}
	// Key stats over _KEY_k: min 3, max 9, no nulls.
	if !slices.Equal(f.KeyStats.MinValues, wantKey(3)) || !slices.Equal(f.KeyStats.MaxValues, wantKey(9)) ||
		!slices.Equal(f.KeyStats.NullCounts, []int64{0}) {
		t.Fatalf("key stats %+v", f.KeyStats)
	}
	// Value stats over k, v, n: the +U of key 3 has n null.
	if !slices.Equal(f.ValueStats.NullCounts, []int64{0, 0, 1}) {
		t.Fatalf("value null counts %v", f.ValueStats.NullCounts)
	}
	if err := res.Discard(ctx, tbl.FileIO); err != nil {
		t.Fatal(err)
	}
	if ok, err := tbl.FileIO.Exists(ctx, res.Written[0]); err != nil || ok {
		t.Fatalf("discarded file exists: %v %v", ok, err)
	}
}

// A commit that lands between planning and committing a compaction stays:
// the compaction's inputs are still live, the appended file is kept beside
// its output, and every row survives.
func TestConcurrentAppend(t *testing.T) {
	ctx := context.Background()
	tbl := newPKTable(t, nil)
	commitRows(t, tbl, nil, ins(1, "a", int64(1)), ins(2, "b", int64(2)))
	commitRows(t, tbl, nil, upd(1, "a2", int64(10)))
	plan, err := compaction.NewPlan(ctx, tbl.FileIO, tbl.Schema, compaction.Options{Full: true})
	if err != nil {
		t.Fatal(err)
	}
	res, err := plan.Execute(ctx)
	if err != nil {
		t.Fatal(err)
	}
	commitRows(t, tbl, nil, upd(2, "b3", int64(30)), ins(3, "c", int64(3)))
	c, err := commit.New(tbl.FileIO, tbl.Schema, user)
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close()
	id, err := c.Commit(ctx, commit.BatchIdentifier, res.Messages)
	if err != nil {
		t.Fatal(err)
	}
	if s := latest(t, tbl); s.ID != id || s.ID != 4 || s.CommitKind != snapshot.KindCompact {
		t.Fatalf("snapshot %d kind %s", s.ID, s.CommitKind)
	}
	checkFiles(t, tbl, "L0 rows=2 deletes=0 source=0", "L5 rows=2 deletes=0 source=1")
	checkRows(t, tbl, expectRows([]any{1, "a2", 10}, []any{2, "b3", 30}, []any{3, "c", 3}))
	compact(t, tbl, true)
	checkFiles(t, tbl, "L5 rows=3 deletes=0 source=1")
	checkRows(t, tbl, expectRows([]any{1, "a2", 10}, []any{2, "b3", 30}, []any{3, "c", 3}))
}

// A compaction whose input files a concurrent compaction removed fails with
// commit.ErrConflict and changes nothing.
func TestConcurrentCompactionConflict(t *testing.T) {
	ctx := context.Background()
	tbl := newPKTable(t, nil)
	commitRows(t, tbl, nil, ins(1, "a", int64(1)))
	commitRows(t, tbl, nil, ins(2, "b", int64(2)), del(1))
	plan, err := compaction.NewPlan(ctx, tbl.FileIO, tbl.Schema, compaction.Options{Full: true})
	if err != nil {
		t.Fatal(err)
	}
	res, err := plan.Execute(ctx)
	if err != nil {
		t.Fatal(err)
	}
	other := compact(t, tbl, true)
	after := liveFiles(t, tbl)
	c, err := commit.New(tbl.FileIO, tbl.Schema, user)
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close()
	if _, err := c.Commit(ctx, commit.BatchIdentifier, res.Messages); !errors.Is(err, commit.ErrConflict) {
		t.Fatalf("commit of the stale compaction: %v, want commit.ErrConflict", err)
	}
	if s := latest(t, tbl); s.ID != other {
		t.Fatalf("latest snapshot %d, want %d", s.ID, other)
	}
	if got := liveFiles(t, tbl); !slices.Equal(got, after) {
		t.Fatalf("files changed: %v -> %v", after, got)
	}
	checkRows(t, tbl, expectRows([]any{2, "b", 2}))
	if err := res.Discard(ctx, tbl.FileIO); err != nil {
		t.Fatal(err)
	}
	for _, p := range res.Written {
		if ok, _ := tbl.FileIO.Exists(ctx, p); ok {
			t.Fatalf("%s still exists", p)
		}
	}
	checkRows(t, tbl, expectRows([]any{2, "b", 2}))
}

func TestPartitionFilter(t *testing.T) {
	ctx := context.Background()
	fields := []types.DataField{
		{Name: "dt", Type: types.String().NotNull()},
		{Name: "k", Type: types.Int().NotNull()},
		{Name: "v", Type: types.String()},
	}
	tbl := tabletest.NewTable(t, "", catalog.Schema{Fields: fields, PartitionKeys: []string{"dt"}, PrimaryKeys: []string{"dt", "k"},
		Options: map[string]string{"bucket": "1", "write-only": "true"}})
	for _, rows := range [][][]any{
		{{"a", int32(1), "x", "+I"}, {"b", int32(1), "y", "+I"}},
		{{"a", int32(2), "x", "+I"}, {"b", int32(2), "y", "+I"}},
	} {
		rec := batchOf(t, fields, rows)
		tabletest.WriteCommit(t, tbl, user, commit.BatchIdentifier, rec)
		rec.Release()
	}
	if _, err := compaction.Compact(ctx, tbl.FileIO, tbl.Schema, user, compaction.Options{
		Full: true, Partitions: []commit.PartitionSpec{{"v": "x"}}}); !errors.Is(err, compaction.ErrInvalidArgument) {
		t.Fatalf("spec on a non-partition field: %v", err)
	}
	if _, err := compaction.Compact(ctx, tbl.FileIO, tbl.Schema, user, compaction.Options{
		Full: true, Partitions: []commit.PartitionSpec{{"dt": int32(1)}}}); !errors.Is(err, compaction.ErrInvalidArgument) {
		t.Fatalf("spec with a value of the wrong type: %v", err)
	}
	if _, err := compaction.Compact(ctx, tbl.FileIO, tbl.Schema, user, compaction.Options{
		Full: true, Partitions: []commit.PartitionSpec{{"dt": "a"}}}); err != nil {
		t.Fatal(err)
	}
	plan, err := reader.NewScan(tbl.FileIO, reader.WithAllLevels()).Plan(ctx)
	if err != nil {
		t.Fatal(err)
	}
	got := map[string][]int32{}
	for _, sp := range plan.Splits {
		for _, f := range sp.Files {
			got[sp.BucketPath] = append(got[sp.BucketPath], f.Level)
		}
	}
	want := map[string][]int32{"dt=a/bucket-0": {5}, "dt=b/bucket-0": {0, 0}}
	if !maps.EqualFunc(got, want, slices.Equal) {
		t.Fatalf("levels per bucket %v, want %v", got, want)
	}
	checkRows(t, tbl, []string{"a|1|x", "a|2|x", "b|1|y", "b|2|y"})
}

func TestUnsupported(t *testing.T) {
	// Java: "First row merge engine does not need deletion vectors".
	// The catalog refuses this table at create; a table written elsewhere
	// may still have it.
	tbl := newPKTable(t, map[string]string{"merge-engine": "first-row"})
	ts := *tbl.Schema
	ts.Options = maps.Clone(ts.Options)
	ts.Options["deletion-vectors.enabled"] = "true"
	_, err := compaction.Compact(context.Background(), tbl.FileIO, &ts, user, compaction.Options{Full: true})
	if !errors.Is(err, compaction.ErrUnsupported) {
		t.Fatalf("first-row with deletion vectors: %v", err)
	}
	// Java: "Only support 'none' and 'lookup' changelog-producer on
	// FIRST_ROW merge engine".
	ts.Options["deletion-vectors.enabled"] = "false"
	ts.Options["changelog-producer"] = "full-compaction"
	if _, err := compaction.Compact(context.Background(), tbl.FileIO, &ts, user, compaction.Options{}); !errors.Is(err, compaction.ErrUnsupported) {
		t.Fatalf("changelog-producer full-compaction with first-row: %v", err)
	}
}

// appendFields is the row type of the append test tables.
var appendFields = []types.DataField{
	{Name: "id", Type: types.Int()},
	{Name: "s", Type: types.String()},
}

// appendSix writes six commits of two rows each and returns the rows in
// write order as Cat prints them.
func appendSix(t *testing.T, tbl *catalog.Table) []string {
	t.Helper()
	var lines []string
	for c := range 6 {
		var rows [][]any
		for r := range 2 {
			id := int32(10*c + r)
			s := fmt.Sprintf("c%d-r%d", c, r)
			rows = append(rows, []any{id, s})
			lines = append(lines, fmt.Sprintf(`{"id":%d,"s":"%s"}`, id, s))
		}
		rec := tabletest.Batch(t, types.SchemaToArrow(appendFields), rows...)
		tabletest.WriteCommit(t, tbl, user, commit.BatchIdentifier, rec)
		rec.Release()
	}
	return lines
}

func sortedCopy(s []string) []string {
	c := slices.Clone(s)
	slices.Sort(c)
	return c
}

func catLines(t *testing.T, tbl *catalog.Table) []string {
	t.Helper()
	data, err := tabletest.Cat(context.Background(), tbl.FileIO.URL())
	if err != nil {
		t.Fatal(err)
	}
	return strings.Split(strings.TrimSpace(string(data)), "\n")
}

func TestAppendUnaware(t *testing.T) {
	tbl := tabletest.NewTable(t, "", catalog.Schema{Fields: appendFields, Options: map[string]string{"write-only": "true"}})
	written := appendSix(t, tbl)
	// The read order of an unaware bucket is the order of the files in the
	// snapshot's manifests (not necessarily the commit order); compaction
	// concatenates the files in that order, so the read order stays.
	want := catLines(t, tbl)
	if !slices.Equal(sortedCopy(want), sortedCopy(written)) {
		t.Fatalf("before: %v", want)
	}
	// Six small files, min file num 5: one group of all six.
	if id := compact(t, tbl, false); id != 7 {
		t.Fatalf("compaction snapshot %d", id)
	}
	fs := checkFiles(t, tbl, "L0 rows=12 deletes=0 source=1")
	if fs[0].minSeq != 0 || fs[0].maxSeq != 11 {
		t.Fatalf("sequence numbers %d..%d", fs[0].minSeq, fs[0].maxSeq)
	}
	if got := catLines(t, tbl); !slices.Equal(got, want) {
		t.Fatalf("after: %v\nwant %v", got, want)
	}
	if s := latest(t, tbl); s.CommitKind != snapshot.KindCompact || s.TotalRecordCount != 12 || s.DeltaRecordCount != 0 {
		t.Fatalf("snapshot kind %s total %d delta %d", s.CommitKind, s.TotalRecordCount, s.DeltaRecordCount)
	}
	// One file left: nothing to do.
	if id := compact(t, tbl, true); id != 0 {
		t.Fatalf("second compaction created snapshot %d", id)
	}
}

func TestAppendBucketed(t *testing.T) {
	tbl := tabletest.NewTable(t, "", catalog.Schema{Fields: appendFields,
		Options: map[string]string{"bucket": "1", "bucket-key": "id", "write-only": "true"}})
	want := appendSix(t, tbl)
	// Minor: the window of the 5 oldest files is compacted, the sixth stays.
	compact(t, tbl, false)
	fs := liveFiles(t, tbl)
	if got := describe(fs); !slices.ContainsFunc(got, func(s string) bool { return s == "L0 rows=10 deletes=0 source=1" }) ||
		!slices.Contains(got, "L0 rows=2 deletes=0 source=0") || len(got) != 2 {
		t.Fatalf("files after minor compaction: %v", got)
	}
	for _, f := range fs {
		if f.source == manifest.SourceCompact && (f.minSeq != 0 || f.maxSeq != 9) {
			t.Fatalf("compacted file sequence %d..%d", f.minSeq, f.maxSeq)
		}
	}
	if got := catLines(t, tbl); !slices.Equal(got, want) {
		t.Fatalf("after minor: %v\nwant %v", got, want)
	}
	// Full: 2 files are fewer than 3: nothing; force it with a third.
	if id := compact(t, tbl, true); id != 0 {
		t.Fatalf("full compaction of 2 files created snapshot %d", id)
	}
	rec := tabletest.Batch(t, types.SchemaToArrow(appendFields), []any{int32(99), "last"})
	tabletest.WriteCommit(t, tbl, user, commit.BatchIdentifier, rec)
	rec.Release()
	want = append(want, `{"id":99,"s":"last"}`)
	compact(t, tbl, true)
	fs = checkFiles(t, tbl, "L0 rows=13 deletes=0 source=1")
	if fs[0].minSeq != 0 || fs[0].maxSeq != 12 {
		t.Fatalf("sequence numbers %d..%d", fs[0].minSeq, fs[0].maxSeq)
	}
	if got := catLines(t, tbl); !slices.Equal(got, want) {
		t.Fatalf("after full: %v\nwant %v", got, want)
	}
}

// Outputs roll at target-file-size into files of disjoint key ranges on the
// output level (the committer's LSM check would refuse overlaps).
func TestRollingOutput(t *testing.T) {
	// 1,000 of these rows (the writer's smallest step between size checks)
	// take about 7.8 KB of Parquet: every step passes the target.
	tbl := newPKTable(t, map[string]string{"target-file-size": "4 kb"})
	commitRows(t, tbl, nil, baseRows(3000)...)
	commitRows(t, tbl, nil, upd(10, "x", nil), del(2999))
	compact(t, tbl, true)
	fs := liveFiles(t, tbl)
	if len(fs) < 3 {
		t.Fatalf("expected several output files, got %v", describe(fs))
	}
	var rows int64
	for _, f := range fs {
		if f.level != 5 || f.source != manifest.SourceCompact || f.deletes != 0 {
			t.Fatalf("file %v", f)
		}
		rows += f.rows
	}
	if rows != 2999 {
		t.Fatalf("%d rows in files", rows)
	}
	checkRows(t, tbl, baseExpect(3000, map[int32][]any{10: {10, "x", nil}, 2999: nil}))
}

// Buckets are compacted in parallel; every Arrow buffer is released.
func TestParallelBuckets(t *testing.T) {
	ctx := context.Background()
	tbl := newPKTable(t, map[string]string{"bucket": "4"})
	commitRows(t, tbl, nil, baseRows(400)...)
	commitRows(t, tbl, nil, upd(1, "u", int64(-1)), del(2), upd(399, "w", nil))
	mem := memory.NewCheckedAllocator(memory.DefaultAllocator)
	id, err := compaction.Compact(ctx, tbl.FileIO, tbl.Schema, user, compaction.Options{Full: true, Parallelism: 3, Allocator: mem})
	if err != nil {
		t.Fatal(err)
	}
	mem.AssertSize(t, 0)
	if id != 3 {
		t.Fatalf("snapshot %d", id)
	}
	fs := liveFiles(t, tbl)
	if len(fs) != 4 {
		t.Fatalf("files %v", describe(fs))
	}
	// Buckets with updates are rewritten; a bucket holding only the base
	// file has it upgraded (same file, source APPEND).
	var rows int64
	rewritten := 0
	for _, f := range fs {
		if f.level != 5 {
			t.Fatalf("file %v", f)
		}
		if f.source == manifest.SourceCompact {
			rewritten++
		}
		rows += f.rows
	}
	if rows != 399 || rewritten == 0 {
		t.Fatalf("files %v", describe(fs))
	}
	checkRows(t, tbl, baseExpect(400, map[int32][]any{1: {1, "u", -1}, 2: nil, 399: {399, "w", nil}}))
}

// data-file.thin-mode: keys are taken from the value columns when reading
// (as the reader does); the output carries the full KeyValue layout, which
// the reader accepts as well.
func TestThinMode(t *testing.T) {
	tbl := newPKTable(t, map[string]string{"data-file.thin-mode": "true"})
	commitRows(t, tbl, nil, ins(2, "b", int64(2)), ins(1, "a", int64(1)))
	commitRows(t, tbl, nil, upd(2, "b2", nil), del(1), ins(3, "c", int64(3)))
	want := expectRows([]any{2, "b2", nil}, []any{3, "c", 3})
	checkRows(t, tbl, want)
	compact(t, tbl, true)
	checkFiles(t, tbl, "L5 rows=2 deletes=0 source=1")
	checkRows(t, tbl, want)
}

// Files written with an older schema are read evolved by field id (renamed
// and added columns) and rewritten with the current schema.
func TestSchemaEvolution(t *testing.T) {
	ctx := context.Background()
	wh := t.TempDir()
	tbl := tabletest.NewTable(t, wh, catalog.Schema{Fields: kvFields, PrimaryKeys: []string{"k"}, Options: map[string]string{"bucket": "1", "write-only": "true"}})
	commitRows(t, tbl, nil, ins(1, "a", int64(1)), ins(2, "b", int64(2)))
	cat, err := catalog.Open(ctx, wh)
	if err != nil {
		t.Fatal(err)
	}
	defer cat.Close()
	id := catalog.NewIdentifier(tabletest.Database, tabletest.Table)
	if _, err := cat.AlterTable(ctx, id, catalog.RenameColumn{Name: "v", NewName: "w"},
		catalog.AddColumn{Name: "x", Type: types.Int()}); err != nil {
		t.Fatal(err)
	}
	tbl2, err := cat.GetTable(ctx, id)
	if err != nil {
		t.Fatal(err)
	}
	rec := batchOf(t, tbl2.Schema.Fields, [][]any{{int32(2), "b2", int64(20), int32(7), "+U"}})
	tabletest.WriteCommit(t, tbl2, user, commit.BatchIdentifier, rec)
	rec.Release()
	want := []string{"1|a|1|(null)", "2|b2|20|7"}
	checkRows(t, tbl2, want)
	if _, err := compaction.Compact(ctx, tbl2.FileIO, tbl2.Schema, user, compaction.Options{Full: true}); err != nil {
		t.Fatal(err)
	}
	plan, err := reader.NewScan(tbl2.FileIO, reader.WithAllLevels()).Plan(ctx)
	if err != nil {
		t.Fatal(err)
	}
	fs := plan.Splits[0].Files
	if len(fs) != 1 || fs[0].SchemaID != 1 || fs[0].Level != 5 || fs[0].RowCount != 2 {
		t.Fatalf("files %+v", fs)
	}
	checkRows(t, tbl2, want)
	// The old schema cannot rewrite files of the new one.
	if _, err := compaction.Compact(ctx, tbl.FileIO, tbl.Schema, user, compaction.Options{Full: true}); !errors.Is(err, compaction.ErrInvalidArgument) {
		t.Fatalf("compaction with an older schema: %v, want ErrInvalidArgument", err)
	}
}
