package roundtrip

import (
	"context"
	"fmt"
	"math"
	"math/rand/v2"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/apache/arrow-go/v18/arrow"

	"github.com/paimon-go/paimon/catalog"
	"github.com/paimon-go/paimon/commit"
	"github.com/paimon-go/paimon/internal/tabletest"
	"github.com/paimon-go/paimon/predicate"
	"github.com/paimon-go/paimon/reader"
	"github.com/paimon-go/paimon/types"
	"github.com/paimon-go/paimon/writer"
)

// tableFields are the columns of every shape (ids assigned by CreateTable).
func tableFields() []types.DataField {
	return []types.DataField{
		{Name: "part", Type: types.String()},
		{Name: "id", Type: types.Int().NotNull()},
		{Name: "v", Type: types.BigInt()},
		{Name: "s", Type: types.String()},
		{Name: "f", Type: types.Double()},
		{Name: "dec", Type: types.DecimalOf(12, 3)},
		{Name: "ts", Type: types.TimestampOf(6)},
		{Name: "seq", Type: types.BigInt()},
	}
}

// shape is one kind of table the round trip covers.
type shape struct {
	name        string
	partitioned bool
	primaryKey  bool
	options     map[string]string
	// kinds are the row kinds the generator may send, with weights.
	kinds []int8
	// merge builds the oracle's merge function (primary-key shapes).
	merge func() mergeFunction
	// seqField makes seq a non-null sequence.field with ties.
	seqField bool
}

func shapes() []shape {
	dd := func() mergeFunction { return &dedup{seqField: -1} }
	return []shape{
		{name: "append", options: map[string]string{"bucket": "-1"}},
		{name: "append-partitioned-unaware", partitioned: true, options: map[string]string{"bucket": "-1"}},
		{name: "append-partitioned-bucket2", partitioned: true, options: map[string]string{"bucket": "2", "bucket-key": "id"}},
		{name: "pk-deduplicate", partitioned: true, primaryKey: true, options: map[string]string{"bucket": "2"},
			kinds: []int8{kindInsert, kindInsert, kindUpdateAfter}, merge: dd},
		{name: "pk-partial-update", partitioned: true, primaryKey: true,
			options: map[string]string{"bucket": "2", "merge-engine": "partial-update", "partial-update.remove-record-on-delete": "true"},
			kinds:   []int8{kindInsert, kindInsert, kindUpdateAfter, kindDelete}, merge: func() mergeFunction { return &partialUpdate{} }},
		{name: "pk-aggregation", partitioned: true, primaryKey: true,
			options: map[string]string{"bucket": "2", "merge-engine": "aggregation", "aggregation.remove-record-on-delete": "true",
				"fields.v.aggregate-function": "sum", "fields.dec.aggregate-function": "sum", "fields.f.aggregate-function": "max"},
			kinds: []int8{kindInsert, kindInsert, kindInsert, kindDelete}, merge: func() mergeFunction { return &aggregate{} }},
		{name: "pk-deletes", partitioned: true, primaryKey: true, options: map[string]string{"bucket": "2"},
			kinds: []int8{kindInsert, kindInsert, kindUpdateAfter, kindUpdateBefore, kindDelete, kindDelete}, merge: dd},
		{name: "pk-sequence-field", partitioned: true, primaryKey: true, options: map[string]string{"bucket": "2", "sequence.field": "seq"},
			kinds: []int8{kindInsert, kindUpdateAfter, kindDelete}, seqField: true,
			merge: func() mergeFunction { return &dedup{seqField: colSeq} }},
	}
}

// partitionPool holds the generated partition values: Java escapes ':',
// '/', '%', '=' (and others) in directory names, keeps spaces and
// non-ASCII, and puts NULL, "" and blank values in __DEFAULT_PARTITION__.
var partitionPool = []string{"a", "b:c", "x/y", "50%", "k=v", "with space", "", " ", "ü#?", "[x]"}

var stringPool = []string{"", "a", "é", "line\nbreak", "quote\"", "tab\t", "😀", "a somewhat longer string value 0123456789"}

type generator struct {
	r     *rand.Rand
	shape shape
}

func (g *generator) maybeNull(p float64) bool { return g.r.Float64() < p }

func (g *generator) float() float64 {
	switch g.r.IntN(20) {
	case 0:
		return math.NaN()
	case 1:
		return math.Inf(1)
	case 2:
		return math.Inf(-1)
	case 3:
		return math.Copysign(0, -1)
	case 4:
		return 0
	}
	return math.Round((g.r.Float64()*2000-1000)*1000) / 1000
}

// values returns a random row for key (part, id).
func (g *generator) values(part any, id int32) []any {
	row := make([]any, numCols)
	row[colPart], row[colID] = part, id
	if !g.maybeNull(0.2) {
		switch g.r.IntN(10) {
		case 0:
			row[colV] = int64(-999_999_999_999)
		case 1:
			row[colV] = int64(999_999_999_999)
		default:
			row[colV] = g.r.Int64N(2_000_000) - 1_000_000
		}
	}
	if !g.maybeNull(0.2) {
		row[colS] = stringPool[g.r.IntN(len(stringPool))]
	}
	if !g.maybeNull(0.2) {
		row[colF] = g.float()
	}
	if !g.maybeNull(0.2) {
		row[colDec] = g.r.Int64N(200_000_000) - 100_000_000
	}
	if !g.maybeNull(0.2) {
		row[colTS] = g.r.Int64N(4_000_000_000_000_000) - 1_000_000_000_000_000
	}
	if g.shape.seqField {
		row[colSeq] = g.r.Int64N(8)
	} else if !g.maybeNull(0.3) {
		row[colSeq] = g.r.Int64N(1000)
	}
	return row
}

func (g *generator) partition() any {
	if !g.shape.primaryKey && g.r.IntN(8) == 0 {
		return nil // NULL partition (primary key columns are NOT NULL)
	}
	return partitionPool[g.r.IntN(len(partitionPool))]
}

// batch returns n random records; keys of primary-key shapes are drawn
// from a small range so that updates and deletes hit existing rows.
func (g *generator) batch(n int) []record {
	out := make([]record, 0, n)
	for range n {
		part := g.partition()
		id := int32(g.r.IntN(30))
		if !g.shape.primaryKey {
			id = g.r.Int32() - math.MaxInt32/2
		}
		k := kindInsert
		if len(g.shape.kinds) > 0 {
			k = g.shape.kinds[g.r.IntN(len(g.shape.kinds))]
		}
		out = append(out, record{kind: k, row: g.values(part, id)})
	}
	return out
}

// buildRecord builds an Arrow batch of the table's columns (plus the row
// kind column, "+I", "-U", "+U" or "-D", when kinds is true).
func buildRecord(t *testing.T, fields []types.DataField, recs []record, kinds bool) arrow.RecordBatch {
	t.Helper()
	sc := types.SchemaToArrow(fields)
	if kinds {
		sc = arrow.NewSchema(append(sc.Fields(), arrow.Field{Name: writer.DefaultRowKindColumn, Type: arrow.BinaryTypes.String}), nil)
	}
	rows := make([][]any, len(recs))
	for i, r := range recs {
		rows[i] = r.row
		if kinds {
			rows[i] = append(slices.Clip(r.row), kindName(r.kind))
		}
	}
	return tabletest.Batch(t, sc, rows...)
}

// diffLines describes how got differs from want (both sorted).
func diffLines(got, want []string) string {
	var missing, extra []string
	i, j := 0, 0
	for i < len(got) || j < len(want) {
		switch {
		case j == len(want) || (i < len(got) && got[i] < want[j]):
			extra = append(extra, got[i])
			i++
		case i == len(got) || got[i] > want[j]:
			missing = append(missing, want[j])
			j++
		default:
			i++
			j++
		}
	}
	return fmt.Sprintf("%d rows read, %d expected\nmissing (expected, not read):\n  %s\nextra (read, not expected):\n  %s",
		len(got), len(want), strings.Join(missing, "\n  "), strings.Join(extra, "\n  "))
}

func createTable(t *testing.T, whDir string, sh shape) *catalog.Table {
	t.Helper()
	s := catalog.Schema{Fields: tableFields(), Options: sh.options}
	if sh.partitioned {
		s.PartitionKeys = []string{"part"}
	}
	if sh.primaryKey {
		s.PrimaryKeys = []string{"part", "id"}
	}
	return tabletest.NewTable(t, "file://"+whDir, s)
}

// seeds are the fixed seeds every shape runs with.
var seeds = []uint64{1, 2, 3}

const commitsPerSeed = 5

// TestRoundTrip drives every shape with random operations and compares the
// table read after each commit with the oracle.
func TestRoundTrip(t *testing.T) {
	for _, sh := range shapes() {
		for si, seed := range seeds {
			t.Run(fmt.Sprintf("%s/seed=%d", sh.name, seed), func(t *testing.T) {
				runShape(t, sh, seed, si == 0)
			})
		}
	}
}

func runShape(t *testing.T, sh shape, seed uint64, checkPartitions bool) {
	ctx := context.Background()
	whDir := t.TempDir()
	tbl := createTable(t, whDir, sh)
	g := &generator{r: rand.New(rand.NewPCG(seed, 0x9a1e)), shape: sh}
	o := newOracle(sh.primaryKey, sh.merge)
	user := fmt.Sprintf("roundtrip-%s-%d", sh.name, seed)
	cm, err := commit.New(tbl.FileIO, tbl.Schema, user)
	if err != nil {
		t.Fatal(err)
	}
	var w *writer.Write
	defer func() {
		if w != nil {
			w.Close()
		}
	}()
	var log []string // what happened, for failure messages
	var prevSnap int64
	for c := 1; c <= commitsPerSeed; c++ {
		if w == nil || g.r.IntN(2) == 0 {
			if w != nil {
				w.Close()
			}
			if w, err = writer.New(tbl.FileIO, tbl.Schema, user); err != nil {
				t.Fatal(err)
			}
			log = append(log, "new writer")
		}
		for b := g.r.IntN(3) + 1; b > 0; b-- {
			recs := g.batch(g.r.IntN(60) + 1)
			rec := buildRecord(t, tbl.Schema.Fields, recs, sh.primaryKey)
			err := w.Write(ctx, rec)
			rec.Release()
			if err != nil {
				t.Fatalf("commit %d: write: %v", c, err)
			}
			for _, r := range recs {
				o.write(r)
			}
			log = append(log, fmt.Sprintf("write %d rows", len(recs)))
		}
		msgs, err := w.PrepareCommit(ctx)
		if err != nil {
			t.Fatalf("commit %d: prepare: %v", c, err)
		}
		o.flush()
		snap, err := cm.Commit(ctx, int64(c), msgs)
		if err != nil {
			t.Fatalf("commit %d: %v", c, err)
		}
		// One APPEND snapshot, plus a COMPACT one when the writer's
		// compaction ran in this PrepareCommit (primary-key tables).
		if snap != prevSnap+1 && snap != prevSnap+2 {
			t.Fatalf("commit %d created snapshot %d after snapshot %d", c, snap, prevSnap)
		}
		prevSnap = snap
		log = append(log, fmt.Sprintf("commit %d", c))
		got := tabletest.ReadJSONL(t, tbl.FileIO.URL())
		want := tabletest.JSONL(t, tbl.Schema.Fields, o.rows()...)
		if !slices.Equal(got, want) {
			t.Fatalf("after commit %d (%s) the read differs from the oracle: %s", c, strings.Join(log, ", "), diffLines(got, want))
		}
	}
	if sh.partitioned && checkPartitions {
		checkPartitionDirs(t, whDir, tbl, o)
		checkPartitionFilters(t, tbl, o)
	}
}

// escapePathName is Java's PartitionPathUtils.escapePathName: characters
// below space, the double and single quote, # % * / : = ? backslash, DEL,
// { } [ ] ^ become '%' and two upper-case hex digits.
func escapePathName(s string) string {
	var b strings.Builder
	for _, c := range s {
		if c < ' ' || c == 0x7f || strings.ContainsRune("\"#%'*/:=?\\{}[]^", c) {
			fmt.Fprintf(&b, "%%%02X", c)
			continue
		}
		b.WriteRune(c)
	}
	return b.String()
}

// partitionDir is the directory Java gives a partition value of the part
// column (InternalRowPartitionComputer + PartitionPathUtils).
func partitionDir(v any) string {
	s, ok := v.(string)
	if !ok || strings.TrimSpace(s) == "" {
		return "part=__DEFAULT_PARTITION__"
	}
	return "part=" + escapePathName(s)
}

// checkPartitionDirs is issue case (c) on disk: the partition directories
// of the table are exactly the escaped values written, with NULL and blank
// values in part=__DEFAULT_PARTITION__.
func checkPartitionDirs(t *testing.T, whDir string, tbl *catalog.Table, o *oracle) {
	t.Helper()
	want := map[string]bool{}
	if o.pk {
		for _, k := range o.keys() {
			want[partitionDir(k.part)] = true
		}
	} else {
		for _, r := range o.appended {
			want[partitionDir(r[colPart])] = true
		}
	}
	entries, err := os.ReadDir(filepath.Join(whDir, "db.db", "t"))
	if err != nil {
		t.Fatal(err)
	}
	got := map[string]bool{}
	for _, e := range entries {
		if e.IsDir() && strings.HasPrefix(e.Name(), "part=") {
			got[e.Name()] = true
		}
	}
	for d := range want {
		if !got[d] {
			t.Errorf("partition directory %q missing (have %v)", d, got)
		}
	}
	for d := range got {
		if !want[d] {
			t.Errorf("unexpected partition directory %q", d)
		}
	}
}

// checkPartitionFilters reads every partition value with a partition
// filter (pruning by the manifests' partition values and stats) and
// compares with the oracle's rows of that value; NULL, "" and " " share a
// directory but are different partitions.
func checkPartitionFilters(t *testing.T, tbl *catalog.Table, o *oracle) {
	t.Helper()
	ref, ok := predicate.RefOf(tbl.Schema.Fields, "part")
	if !ok {
		t.Fatal("no ref for part")
	}
	values := []any{nil}
	for _, p := range partitionPool {
		values = append(values, p)
	}
	all := o.rows()
	for _, v := range values {
		var rows [][]any
		for _, r := range all {
			if r[colPart] == v {
				rows = append(rows, r)
			}
		}
		var p predicate.Predicate
		if v == nil {
			p = predicate.IsNull(ref)
		} else {
			p = predicate.Equal(ref, v)
		}
		got := tabletest.ReadJSONL(t, tbl.FileIO.URL(), reader.WithFilter(p))
		want := tabletest.JSONL(t, tbl.Schema.Fields, rows...)
		if !slices.Equal(got, want) {
			t.Errorf("read with part = %q: %s", v, diffLines(got, want))
		}
	}
}
