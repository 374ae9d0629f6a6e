package paimon_test

import (
	"context"
	"errors"
	"fmt"
	"maps"
	"path/filepath"
	"slices"
	"testing"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"
	"github.com/apache/arrow-go/v18/arrow/memory"

	"github.com/paimon-go/paimon"
	"github.com/paimon-go/paimon/catalog"
	"github.com/paimon-go/paimon/commit"
	"github.com/paimon-go/paimon/internal/fixture"
	"github.com/paimon-go/paimon/manifest"
	"github.com/paimon-go/paimon/reader"
	"github.com/paimon-go/paimon/types"
)

// TestTableLookup: Table.Lookup gives each key's merged row for every merge
// engine, with deletion vectors and lookup changelog too, across commits
// and the writer's compactions; a missing or deleted key gives none.
// Table (k INT, n BIGINT), bucket 2; commits: (1,10) (2,20) (3,30); then
// (1,5) (3,-D) (4,40); then (1,1).
func TestTableLookup(t *testing.T) {
	ctx := context.Background()
	for _, tc := range []struct {
		name string
		opts map[string]string
		want []string
	}{
		{"deduplicate", nil, []string{"1 1", "2 20", "4 40"}},
		{"deletion vectors", map[string]string{"deletion-vectors.enabled": "true"}, []string{"1 1", "2 20", "4 40"}},
		{"lookup changelog", map[string]string{"changelog-producer": "lookup"}, []string{"1 1", "2 20", "4 40"}},
		{"aggregation", map[string]string{"merge-engine": "aggregation", "fields.n.aggregate-function": "sum", "aggregation.remove-record-on-delete": "true"},
			[]string{"1 16", "2 20", "4 40"}},
		{"aggregation lookup", map[string]string{"merge-engine": "aggregation", "fields.n.aggregate-function": "sum",
			"aggregation.remove-record-on-delete": "true", "changelog-producer": "lookup"}, []string{"1 16", "2 20", "4 40"}},
		{"first-row", map[string]string{"merge-engine": "first-row", "ignore-delete": "true"}, []string{"1 10", "2 20", "3 30", "4 40"}},
		{"partial-update", map[string]string{"merge-engine": "partial-update", "partial-update.remove-record-on-delete": "true"},
			[]string{"1 1", "2 20", "4 40"}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			table := lookupTable(t, tc.opts)
			commitKN(t, table, []int32{1, 2, 3}, []int64{10, 20, 30}, []int8{0, 0, 0})
			commitKN(t, table, []int32{1, 3, 4}, []int64{5, 30, 40}, []int8{2, 3, 0})
			commitKN(t, table, []int32{1}, []int64{1}, []int8{2})
			got := lookupKN(t, table, 1, 2, 3, 4, 5)
			if !slices.Equal(got, tc.want) {
				t.Errorf("lookup: %v, want %v", got, tc.want)
			}
			if got := lookupKN(t, table, 5); len(got) != 0 {
				t.Errorf("miss: %v", got)
			}
		})
	}
	table := lookupTable(t, nil)
	commitKN(t, table, []int32{1}, []int64{10}, []int8{0})
	commitKN(t, table, []int32{1}, []int64{11}, []int8{2})
	// Time travel: the first snapshot's row.
	kb := intKeys([]int32{1})
	defer kb.Release()
	rec, err := table.Lookup(ctx, kb, reader.WithSnapshot(1), reader.WithColumns("n"))
	if err != nil {
		t.Fatal(err)
	}
	if rec.NumRows() != 1 || rec.NumCols() != 1 || rec.Column(0).(*array.Int64).Value(0) != 10 {
		t.Errorf("snapshot 1: %v", rec)
	}
	rec.Release()
	// No key batch at all is refused, not read as the whole table.
	if rec, err := table.Lookup(ctx, nil); !errors.Is(err, reader.ErrInvalidScan) {
		t.Errorf("nil keys: %v, %v; want ErrInvalidScan", rec, err)
	}
	// An append table has no key.
	app := createTable(t, catalog.Schema{Fields: []types.DataField{types.Field(0, "k", types.Int()), types.Field(1, "n", types.BigInt())}})
	if _, err := app.Lookup(ctx, kb); !errors.Is(err, reader.ErrInvalidScan) {
		t.Errorf("append table: %v, want ErrInvalidScan", err)
	}
}

func lookupTable(t *testing.T, opts map[string]string) *paimon.Table {
	o := map[string]string{"bucket": "2"}
	for k, v := range opts {
		o[k] = v
	}
	k := types.Int()
	k.Nullable = false
	return createTable(t, catalog.Schema{
		Fields:      []types.DataField{types.Field(0, "k", k), types.Field(1, "n", types.BigInt())},
		PrimaryKeys: []string{"k"}, Options: o,
	})
}

// createTable creates table db.t with schema s in a fresh local warehouse
// and opens it; it is closed when the test ends.
func createTable(t testing.TB, s catalog.Schema) *paimon.Table {
	t.Helper()
	ctx := context.Background()
	warehouse := t.TempDir()
	cat, err := catalog.Open(ctx, warehouse)
	if err != nil {
		t.Fatal(err)
	}
	defer cat.Close()
	if err := cat.CreateDatabase(ctx, "db", false); err != nil {
		t.Fatal(err)
	}
	if err := cat.CreateTable(ctx, catalog.NewIdentifier("db", "t"), s, false); err != nil {
		t.Fatal(err)
	}
	table, err := paimon.OpenTable(ctx, filepath.Join(warehouse, "db.db", "t"))
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { table.Close() })
	return table
}

func intKeys(ks []int32) arrow.RecordBatch {
	b := array.NewRecordBuilder(memory.DefaultAllocator, arrow.NewSchema([]arrow.Field{{Name: "k", Type: arrow.PrimitiveTypes.Int32}}, nil))
	defer b.Release()
	b.Field(0).(*array.Int32Builder).AppendValues(ks, nil)
	return b.NewRecordBatch()
}

// commitSeq numbers the commits of writeCommit (each commit identifier once).
var commitSeq int64

// commitKN writes and commits rows (k, n) with row kinds.
func commitKN(t testing.TB, table *paimon.Table, ks []int32, ns []int64, kinds []int8) {
	t.Helper()
	b := array.NewRecordBuilder(memory.DefaultAllocator, arrow.NewSchema([]arrow.Field{
		{Name: "k", Type: arrow.PrimitiveTypes.Int32}, {Name: "n", Type: arrow.PrimitiveTypes.Int64, Nullable: true},
		{Name: "_ROW_KIND", Type: arrow.PrimitiveTypes.Int8}}, nil))
	defer b.Release()
	b.Field(0).(*array.Int32Builder).AppendValues(ks, nil)
	b.Field(1).(*array.Int64Builder).AppendValues(ns, nil)
	b.Field(2).(*array.Int8Builder).AppendValues(kinds, nil)
	rec := b.NewRecordBatch()
	defer rec.Release()
	writeCommit(t, table, rec)
}

// writeCommit writes rec with a new writer and commits it (identifier
// commitSeq) with a committer of the table's given opts.
func writeCommit(t testing.TB, table *paimon.Table, rec arrow.RecordBatch, opts ...commit.Option) {
	t.Helper()
	ctx := context.Background()
	commitSeq++
	w, err := table.NewWrite("u")
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
	c, err := table.NewCommit("u", opts...)
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close()
	if _, err := c.Commit(ctx, commitSeq, msgs); err != nil {
		t.Fatal(err)
	}
}

// lookupKN looks keys up and returns "k n" rows, sorted.
func lookupKN(t *testing.T, table *paimon.Table, ks ...int32) []string {
	t.Helper()
	kb := intKeys(ks)
	defer kb.Release()
	rec, err := table.Lookup(context.Background(), kb)
	if err != nil {
		t.Fatal(err)
	}
	defer rec.Release()
	return slices.Sorted(slices.Values(knRows(rec)))
}

// knRows renders the rows of a (k INT, n BIGINT) batch as "k n".
func knRows(rec arrow.RecordBatch) []string {
	out := make([]string, 0, rec.NumRows())
	for i := range int(rec.NumRows()) {
		out = append(out, fmt.Sprintf("%d %s", rec.Column(0).(*array.Int32).Value(i), rec.Column(1).ValueStr(i)))
	}
	return out
}

// TestLookupFixtures: on every Java-written primary-key fixture table
// (internal/fixture; TestCatFixtures checks the full read against Java's),
// looking up every key of the latest full read gives exactly that read.
func TestLookupFixtures(t *testing.T) {
	ctx := context.Background()
	tables := 0
	for _, fx := range fixture.Tables(t) {
		table, err := paimon.OpenTable(ctx, fx.Dir)
		if err != nil {
			t.Fatal(err)
		}
		defer table.Close()
		ts := table.Schema()
		if len(ts.PrimaryKeys) == 0 {
			continue
		}
		t.Run(fx.Name, func(t *testing.T) {
			p, err := table.NewScan().Plan(ctx)
			if err != nil {
				t.Skipf("not readable here: %v", err)
			}
			all, err := reader.Concat(p.Records(ctx), types.SchemaToArrow(p.Fields), nil)
			if err != nil {
				t.Fatal(err)
			}
			defer all.Release()
			if all.NumRows() == 0 {
				t.Skip("no rows")
			}
			tables++
			var fields []arrow.Field
			var cols []arrow.Array
			for _, k := range ts.PrimaryKeys {
				i := all.Schema().FieldIndices(k)[0]
				fields, cols = append(fields, all.Schema().Field(i)), append(cols, all.Column(i))
			}
			keys := array.NewRecordBatch(arrow.NewSchema(fields, nil), cols, all.NumRows())
			defer keys.Release()
			got, err := table.Lookup(ctx, keys)
			if err != nil {
				t.Fatal(err)
			}
			defer got.Release()
			if g, w := rowStrings(got), rowStrings(all); !slices.Equal(g, w) {
				t.Errorf("lookup of every key: %d rows, full read %d\n got %v\nwant %v", len(g), len(w), g, w)
			}
		})
	}
	if tables < 3 {
		t.Errorf("%d primary-key fixture tables looked up, want at least 3", tables)
	}
}

// rowStrings renders every row of rec, sorted.
func rowStrings(rec arrow.RecordBatch) []string {
	out := make([]string, rec.NumRows())
	for i := range out {
		var b []byte
		for c := range int(rec.NumCols()) {
			b = fmt.Appendf(b, "%s|", rec.Column(c).ValueStr(i))
		}
		out[i] = string(b)
	}
	slices.Sort(out)
	return out
}

// TestLookupPlansKeyBuckets: a lookup plans only the buckets of its keys
// (here one key, or two keys of a composite key: at most the buckets of
// their value combinations), and each key's row is in the bucket planned.
func TestLookupPlansKeyBuckets(t *testing.T) {
	ctx := context.Background()
	nn := func(tp types.DataType) types.DataType { tp.Nullable = false; return tp }
	table := createTable(t, catalog.Schema{
		Fields:      []types.DataField{types.Field(0, "a", nn(types.Int())), types.Field(1, "b", nn(types.Int())), types.Field(2, "n", types.BigInt())},
		PrimaryKeys: []string{"a", "b"}, Options: map[string]string{"bucket": "8"},
	})
	var as, bs []int32
	for i := range int32(40) {
		as, bs = append(as, i), append(bs, i%3)
	}
	b := array.NewRecordBuilder(memory.DefaultAllocator, arrow.NewSchema([]arrow.Field{
		{Name: "a", Type: arrow.PrimitiveTypes.Int32}, {Name: "b", Type: arrow.PrimitiveTypes.Int32}}, nil))
	defer b.Release()
	keyBatch := func(a, bv []int32) arrow.RecordBatch {
		b.Field(0).(*array.Int32Builder).AppendValues(a, nil)
		b.Field(1).(*array.Int32Builder).AppendValues(bv, nil)
		return b.NewRecordBatch()
	}
	rows := keyBatch(as, bs)
	nb := array.NewInt64Builder(memory.DefaultAllocator)
	for i := range int64(40) {
		nb.Append(i * 10)
	}
	n := nb.NewArray()
	nb.Release()
	full := array.NewRecordBatch(arrow.NewSchema(append(rows.Schema().Fields(), arrow.Field{Name: "n", Type: arrow.PrimitiveTypes.Int64, Nullable: true}), nil),
		append(rows.Columns(), n), 40)
	rows.Release()
	n.Release()
	writeCommit(t, table, full)
	full.Release()
	all, err := table.NewScan().Plan(ctx)
	if err != nil {
		t.Fatal(err)
	}
	if len(all.Splits) < 6 {
		t.Fatalf("40 keys in %d buckets, want most of 8", len(all.Splits))
	}
	bucketOf := map[int32]int32{}
	for i := range int32(40) {
		kb := keyBatch([]int32{i}, []int32{i % 3})
		p, err := table.NewScan(reader.WithKeys(kb)).Plan(ctx)
		if err != nil {
			t.Fatal(err)
		}
		if len(p.Splits) != 1 {
			t.Fatalf("key %d: %d splits planned, want 1", i, len(p.Splits))
		}
		bucketOf[i] = p.Splits[0].Bucket
		got, err := reader.Concat(p.Records(ctx), types.SchemaToArrow(p.Fields), nil)
		if err != nil {
			t.Fatal(err)
		}
		if got.NumRows() != 1 || got.Column(2).(*array.Int64).Value(0) != int64(i)*10 {
			t.Errorf("key %d: %v", i, got)
		}
		got.Release()
		kb.Release()
	}
}

// TestKeyFilterBeforeMerge: a filter's conjuncts over primary-key columns
// drop other keys' rows from every sorted run before the merge, but a
// value conjunct never does: key 1's newest version (n=5) fails n > 10, so
// key 1 is not read even though an older version (n=20) passes it; a
// deleted key stays deleted; an OR with a value column is not pushed.
func TestKeyFilterBeforeMerge(t *testing.T) {
	ctx := context.Background()
	for _, opts := range []map[string]string{nil, {"merge-engine": "aggregation", "fields.n.aggregate-function": "sum"}} {
		table := lookupTable(t, opts)
		commitKN(t, table, []int32{1, 2, 3, 4}, []int64{20, 30, 40, 50}, []int8{0, 0, 0, 0})
		commitKN(t, table, []int32{1, 3}, []int64{-15, -35}, []int8{0, 0})
		commitKN(t, table, []int32{4}, []int64{50}, []int8{3})
		agg := opts != nil
		for _, tc := range []struct {
			where string
			want  []string
		}{
			{"k IN (1, 2, 4) AND n > 10", []string{"2 30"}},
			{"k = 3 OR n = 30", map[bool][]string{false: {"2 30", "3 -35"}, true: {"2 30", "3 5"}}[agg]},
			{"k >= 3", map[bool][]string{false: {"3 -35"}, true: {"3 5", "4 0"}}[agg]},
		} {
			p, err := table.NewScan(reader.WithWhere(tc.where)).Plan(ctx)
			if err != nil {
				t.Fatal(err)
			}
			var got []string
			for rec, err := range p.Records(ctx) {
				if err != nil {
					t.Fatal(err)
				}
				for i := range int(rec.NumRows()) {
					got = append(got, fmt.Sprint(rec.Column(0).(*array.Int32).Value(i), " ", rec.Column(1).(*array.Int64).Value(i)))
				}
				rec.Release()
			}
			slices.Sort(got)
			if !slices.Equal(got, tc.want) {
				t.Errorf("%v %q: %v, want %v", opts, tc.where, got, tc.want)
			}
		}
	}
}

// TestProjectionUnreadNotNull: partial-update and aggregation tables with
// remove-record-on-delete and a NOT NULL value column s; after +I(1, s=1)
// and -D(1, s=3) in two commits, a read or lookup of (k, n) only, whose
// merge reads s as nulls, finds the key deleted instead of failing on s's
// NOT NULL (Java's merge functions check projected fields only), as the
// full read does.
func TestProjectionUnreadNotNull(t *testing.T) {
	ctx := context.Background()
	for _, opts := range []map[string]string{
		{"merge-engine": "partial-update", "partial-update.remove-record-on-delete": "true"},
		{"merge-engine": "aggregation", "aggregation.remove-record-on-delete": "true", "fields.n.aggregate-function": "sum"},
	} {
		opts["bucket"] = "1"
		k, s := types.Int(), types.BigInt()
		k.Nullable, s.Nullable = false, false
		table := createTable(t, catalog.Schema{
			Fields:      []types.DataField{types.Field(0, "k", k), types.Field(1, "n", types.BigInt()), types.Field(2, "s", s)},
			PrimaryKeys: []string{"k"}, Options: opts,
		})
		sc := arrow.NewSchema([]arrow.Field{{Name: "k", Type: arrow.PrimitiveTypes.Int32}, {Name: "n", Type: arrow.PrimitiveTypes.Int64, Nullable: true},
			{Name: "s", Type: arrow.PrimitiveTypes.Int64}, {Name: "_ROW_KIND", Type: arrow.PrimitiveTypes.Int8}}, nil)
		for _, row := range []struct {
			s    int64
			kind int8
		}{{1, 0}, {3, 3}} {
			b := array.NewRecordBuilder(memory.DefaultAllocator, sc)
			b.Field(0).(*array.Int32Builder).Append(1)
			b.Field(1).(*array.Int64Builder).AppendNull()
			b.Field(2).(*array.Int64Builder).Append(row.s)
			b.Field(3).(*array.Int8Builder).Append(row.kind)
			rec := b.NewRecordBatch()
			b.Release()
			writeCommit(t, table, rec)
			rec.Release()
		}
		for _, cols := range [][]string{nil, {"k", "n"}} {
			var o []reader.Option
			if cols != nil {
				o = append(o, reader.WithColumns(cols...))
			}
			keys := intKeys([]int32{1})
			rec, err := table.Lookup(ctx, keys, o...)
			keys.Release()
			if err != nil || rec.NumRows() != 0 {
				t.Fatalf("%s, columns %v: lookup %v rows, error %v; want the key deleted", opts["merge-engine"], cols, rec, err)
			}
			rec.Release()
			p, err := table.NewScan(o...).Plan(ctx)
			if err != nil {
				t.Fatal(err)
			}
			n := int64(0)
			for r, err := range p.Records(ctx) {
				if err != nil {
					t.Fatalf("%s, columns %v: read: %v", opts["merge-engine"], cols, err)
				}
				n += r.NumRows()
				r.Release()
			}
			if n != 0 {
				t.Fatalf("%s, columns %v: read %d rows, want 0", opts["merge-engine"], cols, n)
			}
		}
	}
}

// TestLookupKeysOwnBuckets: a lookup of several composite keys plans, and
// Plan.Narrow keeps, exactly the buckets the keys were written to, not
// those of every combination of their columns' values (5 keys with 5
// distinct values in each column: 25 combinations). 64 buckets, 600 rows
// spread so that each bucket's file spans most of the key range and key
// statistics prune nothing.
func TestLookupKeysOwnBuckets(t *testing.T) {
	ctx := context.Background()
	nn := func(tp types.DataType) types.DataType { tp.Nullable = false; return tp }
	table := createTable(t, catalog.Schema{
		Fields:      []types.DataField{types.Field(0, "a", nn(types.Int())), types.Field(1, "b", nn(types.Int())), types.Field(2, "n", types.BigInt())},
		PrimaryKeys: []string{"a", "b"}, Options: map[string]string{"bucket": "64"},
	})
	sc := arrow.NewSchema([]arrow.Field{{Name: "a", Type: arrow.PrimitiveTypes.Int32}, {Name: "b", Type: arrow.PrimitiveTypes.Int32},
		{Name: "n", Type: arrow.PrimitiveTypes.Int64, Nullable: true}}, nil)
	b := array.NewRecordBuilder(memory.DefaultAllocator, sc)
	defer b.Release()
	for i := range int32(600) {
		b.Field(0).(*array.Int32Builder).Append(i % 30)
		b.Field(1).(*array.Int32Builder).Append(i / 30)
		b.Field(2).(*array.Int64Builder).Append(int64(i))
	}
	rec := b.NewRecordBatch()
	writeCommit(t, table, rec)
	rec.Release()
	kb := array.NewRecordBuilder(memory.DefaultAllocator, arrow.NewSchema(sc.Fields()[:2], nil))
	defer kb.Release()
	keys := func(as, bs []int32) arrow.RecordBatch {
		kb.Field(0).(*array.Int32Builder).AppendValues(as, nil)
		kb.Field(1).(*array.Int32Builder).AppendValues(bs, nil)
		return kb.NewRecordBatch()
	}
	as, bs := []int32{1, 7, 13, 22, 29}, []int32{0, 5, 9, 14, 19}
	want := map[int32]bool{}
	for k := range as {
		one := keys(as[k:k+1], bs[k:k+1])
		p, err := table.NewScan(reader.WithKeys(one)).Plan(ctx)
		one.Release()
		if err != nil {
			t.Fatal(err)
		}
		if len(p.Splits) != 1 {
			t.Fatalf("key (%d, %d): %d splits, want 1", as[k], bs[k], len(p.Splits))
		}
		want[p.Splits[0].Bucket] = true
	}
	all, err := table.NewScan().Plan(ctx)
	if err != nil {
		t.Fatal(err)
	}
	five := keys(as, bs)
	defer five.Release()
	planned, err := table.NewScan(reader.WithKeys(five)).Plan(ctx)
	if err != nil {
		t.Fatal(err)
	}
	narrowed, err := all.Narrow(ctx, five)
	if err != nil {
		t.Fatal(err)
	}
	for name, pl := range map[string]*reader.Plan{"planned": planned, "narrowed": narrowed} {
		got := map[int32]bool{}
		for _, sp := range pl.Splits {
			got[sp.Bucket] = true
		}
		if !maps.Equal(got, want) {
			t.Errorf("%s: buckets %v, want the keys' own %v", name, slices.Sorted(maps.Keys(got)), slices.Sorted(maps.Keys(want)))
		}
		out, err := reader.Concat(pl.Records(ctx), types.SchemaToArrow(pl.Fields), nil)
		if err != nil {
			t.Fatal(err)
		}
		var ns []int64
		for r := range int(out.NumRows()) {
			ns = append(ns, out.Column(2).(*array.Int64).Value(r))
		}
		out.Release()
		slices.Sort(ns)
		if wantN := []int64{1, 157, 283, 442, 599}; !slices.Equal(ns, wantN) {
			t.Errorf("%s: n %v, want %v", name, ns, wantN)
		}
	}
}

// TestPlanPrefetch: reader.Plan.Prefetch reads the files a later commit
// adds, through the plan of the snapshot before it, into the lookup cache
// exactly as a point lookup of the later snapshot reads them: the lookup
// after it decodes no new file (a hit each) and only the old file it needs
// (one miss), and returns the merged rows. The first commit fills one
// bucket of two, so the other bucket's file takes the layout of an empty
// split. Without a primary key, or with the cache off, it reads nothing.
func TestPlanPrefetch(t *testing.T) {
	ctx := context.Background()
	table := lookupTable(t, nil)
	commitKN(t, table, []int32{1}, []int64{10}, []int8{0})
	before, err := table.NewScan().Plan(ctx)
	if err != nil {
		t.Fatal(err)
	}
	if len(before.Splits) != 1 {
		t.Fatalf("first snapshot: %d splits, want 1", len(before.Splits))
	}
	commitKN(t, table, []int32{2, 3, 4, 5, 6, 7, 8, 9, 1}, []int64{20, 30, 40, 50, 60, 70, 80, 90, 11}, []int8{0, 0, 0, 0, 0, 0, 0, 0, 2})
	after, err := table.NewScan().Plan(ctx)
	if err != nil {
		t.Fatal(err)
	}
	if len(after.Splits) != 2 {
		t.Fatalf("second snapshot: %d splits, want 2 (both buckets)", len(after.Splits))
	}
	old := map[string]bool{}
	for _, sp := range before.Splits {
		for _, f := range sp.Files {
			old[f.FileName] = true
		}
	}
	lc := table.Cache().LookupFiles()
	added := 0
	for _, sp := range after.Splits {
		var files []manifest.DataFileMeta
		for _, f := range sp.Files {
			if !old[f.FileName] {
				files = append(files, f)
			}
		}
		added += len(files)
		if err := before.Prefetch(ctx, sp.Partition, sp.Bucket, files); err != nil {
			t.Fatal(err)
		}
	}
	if st := lc.Stats(); added != 2 || st.Misses != 2 || st.Hits != 0 || st.Files != 2 {
		t.Fatalf("prefetched %d files: cache %+v, want 2 misses, 2 files", added, st)
	}
	kb := intKeys([]int32{1, 2, 3, 4, 5, 6, 7, 8, 9, 10})
	defer kb.Release()
	np, err := after.Narrow(ctx, kb)
	if err != nil {
		t.Fatal(err)
	}
	rec, err := reader.Concat(np.Records(ctx), types.SchemaToArrow(np.Fields), nil)
	if err != nil {
		t.Fatal(err)
	}
	got := slices.Sorted(slices.Values(knRows(rec)))
	rec.Release()
	if want := []string{"1 11", "2 20", "3 30", "4 40", "5 50", "6 60", "7 70", "8 80", "9 90"}; !slices.Equal(got, want) {
		t.Fatalf("lookup: %v, want %v", got, want)
	}
	if st := lc.Stats(); st.Misses != 3 || st.Hits != 2 || st.Files != 3 {
		t.Fatalf("after the lookup: cache %+v, want 3 misses (the old file), 2 hits", st)
	}

	// The cache off: nothing read.
	lc.SetMaxBytes(0)
	if err := before.Prefetch(ctx, after.Splits[0].Partition, after.Splits[0].Bucket, after.Splits[0].Files); err != nil {
		t.Fatal(err)
	}
	if st := lc.Stats(); st.Misses != 3 || st.Files != 0 {
		t.Fatalf("cache off: %+v, want no read, no file", st)
	}
	// No primary key: nothing read.
	app := createTable(t, catalog.Schema{Fields: []types.DataField{types.Field(0, "k", types.Int()), types.Field(1, "n", types.BigInt())}})
	commitKN(t, app, []int32{1}, []int64{10}, []int8{0})
	ap, err := app.NewScan().Plan(ctx)
	if err != nil {
		t.Fatal(err)
	}
	if err := ap.Prefetch(ctx, ap.Splits[0].Partition, ap.Splits[0].Bucket, ap.Splits[0].Files); err != nil {
		t.Fatal(err)
	}
	if st := app.Cache().LookupFiles().Stats(); st.Misses != 0 || st.Files != 0 {
		t.Fatalf("append table: cache %+v, want untouched", st)
	}
	// A plan not made by Scan.Plan.
	if err := (&reader.Plan{}).Prefetch(ctx, nil, 0, after.Splits[0].Files); !errors.Is(err, reader.ErrInvalidScan) {
		t.Fatalf("zero plan: %v, want ErrInvalidScan", err)
	}
}
