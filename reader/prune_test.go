package reader_test

import (
	"context"
	"fmt"
	"slices"
	"strings"
	"testing"

	"github.com/paimon-go/paimon"
	"github.com/paimon-go/paimon/catalog"
	"github.com/paimon-go/paimon/commit"
	"github.com/paimon-go/paimon/internal/fixture"
	"github.com/paimon-go/paimon/internal/tabletest"
	"github.com/paimon-go/paimon/manifest"
	"github.com/paimon-go/paimon/predicate"
	"github.com/paimon-go/paimon/reader"
	"github.com/paimon-go/paimon/row"
	"github.com/paimon-go/paimon/types"
)

// splitShape renders the splits of a plan as "partition-values/bucket:files"
// lines, e.g. "[10]/1:2".
func splitShape(p *reader.Plan) []string {
	var out []string
	for _, sp := range p.Splits {
		out = append(out, fmt.Sprintf("%v/%d:%d", sp.PartitionValues, sp.Bucket, len(sp.Files)))
	}
	return out
}

// TestBucketPruningJavaTable plans filters on the bucket key f2 of the
// Java-written merge-on-read table (bucket = 2, bucket-key = f2; Java put
// f2 = 0 rows in bucket 1 and f2 = 1 rows in bucket 0, EXPECTED.md): only the
// buckets the values hash to are planned, and the rows are those of the
// unpruned read that satisfy the filter.
func TestBucketPruningJavaTable(t *testing.T) {
	dir := fixture.Dir(t, "pk_table_scan_and_read_mor_parquet")
	all, _ := readJSONL(t, dir)
	if got := splitShape(all); !slices.Equal(got, []string{"[10]/0:1", "[10]/1:4", "[20]/0:1"}) {
		t.Fatalf("unfiltered splits %v", got)
	}
	f2zero := []string{`{"f0":"Bob"}`, `{"f0":"David"}`, `{"f0":"Emily"}`, `{"f0":"Marco"}`, `{"f0":"Marco2"}`, `{"f0":"Skye"}`, `{"f0":"Skye2"}`}
	f2one := []string{`{"f0":"Alice"}`, `{"f0":"Lucy"}`, `{"f0":"Paul"}`, `{"f0":"Two roads diverged in a wood, and I took the one less traveled by, And that has made all the difference."}`}
	both := slices.Sorted(slices.Values(append(slices.Clone(f2zero), f2one...)))
	for _, c := range []struct {
		where  string
		splits []string
		rows   []string
	}{
		{"f2 = 0", []string{"[10]/1:4"}, f2zero},
		{"f2 = 1", []string{"[10]/0:1", "[20]/0:1"}, f2one},
		{"f2 IN (0, 1)", []string{"[10]/0:1", "[10]/1:4", "[20]/0:1"}, both},
		{"f2 = 0 OR f2 = 1", []string{"[10]/0:1", "[10]/1:4", "[20]/0:1"}, both},
		{"f2 = 0 AND f1 = 10", []string{"[10]/1:4"}, f2zero},
		{"f2 = 1 AND f1 = 20", []string{"[20]/0:1"}, []string{`{"f0":"Lucy"}`, `{"f0":"Paul"}`}},
		{"f2 IN (0, 1) AND f2 = 1", []string{"[10]/0:1", "[20]/0:1"}, f2one},
		{"f2 = NULL", nil, nil},
		// Not a bucket selection: an OR over two columns; a range on f2,
		// which is a key column, so the key statistics of the f2 = 1 files
		// prune them instead.
		{"f2 < 1", []string{"[10]/1:4"}, f2zero},
		{"f2 = 0 OR f3 > 100", []string{"[10]/0:1", "[10]/1:4", "[20]/0:1"}, f2zero},
	} {
		t.Run(c.where, func(t *testing.T) {
			plan, rows := readJSONL(t, dir, reader.WithWhere(c.where), reader.WithColumns("f0"))
			if got := splitShape(plan); !slices.Equal(got, c.splits) {
				t.Errorf("splits %v, want %v", got, c.splits)
			}
			if !slices.Equal(rows, c.rows) {
				t.Errorf("rows\n%v\nwant\n%v", rows, c.rows)
			}
		})
	}

	plan, _ := readJSONL(t, dir, reader.WithWhere("f2 = 0"))
	p10 := row.Serialize(mustEncode(t, []types.DataType{types.Int().NotNull()}, int32(10)))
	p20 := row.Serialize(mustEncode(t, []types.DataType{types.Int().NotNull()}, int32(20)))
	for _, c := range []struct {
		part   []byte
		bucket int32
		want   bool
	}{{p10, 1, true}, {p10, 0, false}, {p20, 1, true}, {p20, 0, false}} {
		if got := plan.SelectsBucket(c.part, c.bucket); got != c.want {
			t.Errorf("f2 = 0: SelectsBucket(%x, %d) = %v, want %v", c.part, c.bucket, got, c.want)
		}
	}
	plan, _ = readJSONL(t, dir, reader.WithWhere("f1 = 20 AND f2 = 1"))
	if plan.SelectsBucket(p10, 0) || !plan.SelectsBucket(p20, 0) || plan.SelectsBucket(p20, 1) {
		t.Error("f1 = 20 AND f2 = 1: SelectsBucket wrong")
	}
}

func mustEncode(t *testing.T, ts []types.DataType, values ...any) row.BinaryRow {
	t.Helper()
	br, err := row.Encode(ts, values)
	if err != nil {
		t.Fatal(err)
	}
	return br
}

// pkTable creates a primary-key table (k BIGINT, v STRING) with opts and
// commits one batch per element of commits, each holding the given keys with
// v = "v<k>-<commit>".
func pkTable(t *testing.T, opts map[string]string, commits ...[]int64) *catalog.Table {
	t.Helper()
	tbl := tabletest.NewTable(t, "", catalog.Schema{
		Fields:      []types.DataField{{Name: "k", Type: types.BigInt().NotNull()}, {Name: "v", Type: types.String()}},
		PrimaryKeys: []string{"k"}, Options: opts,
	})
	sc := types.SchemaToArrow(tbl.Schema.Fields)
	for c, keys := range commits {
		var rows [][]any
		for _, k := range keys {
			rows = append(rows, []any{k, fmt.Sprintf("v%d-%d", k, c)})
		}
		rec := tabletest.Batch(t, sc, rows...)
		tabletest.WriteCommit(t, tbl, "u", commit.BatchIdentifier, rec)
		rec.Release()
	}
	return tbl
}

func openPlan(t *testing.T, url string, opts ...reader.Option) (*paimon.Table, *reader.Plan) {
	t.Helper()
	tbl, err := paimon.OpenTable(context.Background(), url)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { tbl.Close() })
	plan, err := tbl.NewScan(opts...).Plan(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	return tbl, plan
}

// splitRows reads one split and returns its rows as "k|v", sorted.
func splitRows(t *testing.T, p *reader.Plan, sp *reader.Split) []string {
	t.Helper()
	var out []string
	for rec, err := range p.ReadSplit(context.Background(), sp) {
		if err != nil {
			t.Fatal(err)
		}
		for i := range int(rec.NumRows()) {
			var cols []string
			for c := range int(rec.NumCols()) {
				cols = append(cols, rec.Column(c).ValueStr(i))
			}
			out = append(out, strings.Join(cols, "|"))
		}
		rec.Release()
	}
	slices.Sort(out)
	return out
}

// TestPointQueryPlansOneSplit: on a 4-bucket primary-key table written by
// this project's writer, a point query on the key plans exactly the one split
// whose bucket holds the key (found by reading every split of the unfiltered
// plan), and IN lists plan the buckets of their keys.
func TestPointQueryPlansOneSplit(t *testing.T) {
	keys := make([]int64, 100)
	for i := range keys {
		keys[i] = int64(i)
	}
	tbl := pkTable(t, map[string]string{"bucket": "4"}, keys)
	url := tbl.FileIO.URL()
	_, all := openPlan(t, url)
	if len(all.Splits) != 4 {
		t.Fatalf("unfiltered plan has %d splits, want 4", len(all.Splits))
	}
	bucketOf := map[string]int32{} // "k|v" -> bucket
	for _, sp := range all.Splits {
		for _, r := range splitRows(t, all, sp) {
			bucketOf[strings.SplitN(r, "|", 2)[0]] = sp.Bucket
		}
	}
	if len(bucketOf) != 100 {
		t.Fatalf("read %d keys, want 100", len(bucketOf))
	}
	for _, k := range []int64{0, 42, 99} {
		_, p := openPlan(t, url, reader.WithWhere(fmt.Sprintf("k = %d", k)))
		if len(p.Splits) != 1 || p.Splits[0].Bucket != bucketOf[fmt.Sprint(k)] {
			t.Fatalf("k = %d: splits %v, want one of bucket %d", k, splitShape(p), bucketOf[fmt.Sprint(k)])
		}
		if got := splitRows(t, p, p.Splits[0]); !slices.Equal(got, []string{fmt.Sprintf("%d|v%d-0", k, k)}) {
			t.Fatalf("k = %d: rows %v", k, got)
		}
	}
	// The same selection from a filter built with an int32 literal
	// (predicate compares integers of any width) and from an IN list.
	_, p := openPlan(t, url, reader.WithFilter(predicate.Equal(predicate.Ref{Index: 0, Name: "k", Type: types.BigInt()}, int32(42))))
	if len(p.Splits) != 1 || p.Splits[0].Bucket != bucketOf["42"] {
		t.Fatalf("k = int32(42): splits %v", splitShape(p))
	}
	in := []int64{3, 17, 58}
	_, p = openPlan(t, url, reader.WithWhere("k IN (3, 17, 58)"))
	var want []int32
	for _, k := range in {
		want = append(want, bucketOf[fmt.Sprint(k)])
	}
	slices.Sort(want)
	want = slices.Compact(want)
	var got []int32
	for _, sp := range p.Splits {
		got = append(got, sp.Bucket)
	}
	if !slices.Equal(got, want) {
		t.Fatalf("k IN (3, 17, 58): buckets %v, want %v", got, want)
	}
	if rows := tabletest.ReadRows(t, url, reader.WithWhere("k IN (3, 17, 58)")); !slices.Equal(rows, []string{"17|v17-0", "3|v3-0", "58|v58-0"}) {
		t.Fatalf("k IN (3, 17, 58): rows %v", rows)
	}
	// Too many combinations or a range: no bucket selection.
	_, p = openPlan(t, url, reader.WithWhere("k >= 42 AND k <= 42"))
	if len(p.Splits) != 4 {
		t.Fatalf("k range: %d splits, want 4", len(p.Splits))
	}
}

// TestModBucketPruning: with bucket-function.type = mod the bucket of key k
// is floorMod(k, 4) (ModBucketFunction), computed by hand here.
func TestModBucketPruning(t *testing.T) {
	tbl := pkTable(t, map[string]string{"bucket": "4", "bucket-function.type": "mod"}, []int64{-3, 1, 2, 42, 43})
	url := tbl.FileIO.URL()
	for _, c := range []struct {
		where  string
		bucket int32
		rows   []string
	}{
		{"k = 42", 2, []string{"42|v42-0"}},
		{"k = -3", 1, []string{"-3|v-3-0"}}, // floorMod(-3, 4) = 1
		{"k = 43", 3, []string{"43|v43-0"}},
	} {
		_, p := openPlan(t, url, reader.WithWhere(c.where))
		if len(p.Splits) != 1 || p.Splits[0].Bucket != c.bucket {
			t.Fatalf("%s: splits %v, want bucket %d", c.where, splitShape(p), c.bucket)
		}
		if got := splitRows(t, p, p.Splits[0]); !slices.Equal(got, c.rows) {
			t.Fatalf("%s: rows %v, want %v", c.where, got, c.rows)
		}
	}
	_, p := openPlan(t, url, reader.WithWhere("k IN (1, -3)"))
	if got := splitShape(p); !slices.Equal(got, []string{"[]/1:1"}) {
		t.Fatalf("k IN (1, -3): splits %v, want bucket 1 only", got)
	}
}

// fileNames returns the data file names of a plan, sorted.
func fileNames(p *reader.Plan) []string {
	var out []string
	for _, sp := range p.Splits {
		for _, f := range sp.Files {
			out = append(out, f.FileName)
		}
	}
	slices.Sort(out)
	return out
}

// TestKeyRangePruning: with three level-0 files of keys [1, 10], [11, 20]
// and [5, 15] (write-only, so nothing is compacted), conjuncts on the key
// keep only the files whose key range can hold a wanted key; conjuncts on
// the value column never prune.
func TestKeyRangePruning(t *testing.T) {
	var c1, c2, c3 []int64
	for k := int64(1); k <= 10; k++ {
		c1 = append(c1, k)
	}
	for k := int64(11); k <= 20; k++ {
		c2 = append(c2, k)
	}
	for k := int64(5); k <= 15; k++ {
		c3 = append(c3, k)
	}
	tbl := pkTable(t, map[string]string{"bucket": "1", "write-only": "true"}, c1, c2, c3)
	url := tbl.FileIO.URL()
	_, all := openPlan(t, url)
	if len(all.Splits) != 1 || len(all.Splits[0].Files) != 3 {
		t.Fatalf("unfiltered: %v", splitShape(all))
	}
	// Files in sequence-number order: commit 1, 2, 3.
	files := all.Splits[0].Files
	name := func(i int) string { return files[i].FileName }
	sorted := func(s ...string) []string { slices.Sort(s); return s }
	for _, c := range []struct {
		where string
		files []string
		rows  []string
	}{
		{"k = 3", sorted(name(0)), []string{"3|v3-0"}},
		{"k = 12", sorted(name(1), name(2)), []string{"12|v12-2"}},
		{"k = 7", sorted(name(0), name(2)), []string{"7|v7-2"}},
		{"k > 20", nil, nil},
		{"k IN (2, 19)", sorted(name(0), name(1)), []string{"19|v19-1", "2|v2-0"}},
		{"k <= 4 AND v IS NOT NULL", sorted(name(0)), []string{"1|v1-0", "2|v2-0", "3|v3-0", "4|v4-0"}},
		// A value column conjunct alone, or under OR with a key conjunct,
		// prunes nothing.
		{"v = 'v3-0'", sorted(name(0), name(1), name(2)), []string{"3|v3-0"}},
		{"k = 3 OR v = 'v12-2'", sorted(name(0), name(1), name(2)), []string{"12|v12-2", "3|v3-0"}},
	} {
		_, p := openPlan(t, url, reader.WithWhere(c.where))
		if got := fileNames(p); !slices.Equal(got, c.files) {
			t.Errorf("%s: files %v, want %v", c.where, got, c.files)
		}
		if got := tabletest.ReadRows(t, url, reader.WithWhere(c.where)); !slices.Equal(got, c.rows) {
			t.Errorf("%s: rows %v, want %v", c.where, got, c.rows)
		}
	}
}

// TestValueFilterKeepsNewerVersions: key 1 is written as "a", then updated to
// "b". A filter on the value must not drop the newer file (its value stats
// miss "a"), which would bring the old version back.
func TestValueFilterKeepsNewerVersions(t *testing.T) {
	tbl := tabletest.NewTable(t, "", catalog.Schema{
		Fields:      []types.DataField{{Name: "k", Type: types.BigInt().NotNull()}, {Name: "v", Type: types.String()}},
		PrimaryKeys: []string{"k"}, Options: map[string]string{"bucket": "1", "write-only": "true"},
	})
	sc := types.SchemaToArrow(tbl.Schema.Fields)
	for _, v := range []string{"a", "b"} {
		rec := tabletest.Batch(t, sc, []any{int64(1), v})
		tabletest.WriteCommit(t, tbl, "u", commit.BatchIdentifier, rec)
		rec.Release()
	}
	url := tbl.FileIO.URL()
	_, p := openPlan(t, url, reader.WithWhere("v = 'a'"))
	if got := len(fileNames(p)); got != 2 {
		t.Fatalf("v = 'a' planned %d files, want 2", got)
	}
	if rows := tabletest.ReadRows(t, url, reader.WithWhere("v = 'a'")); rows != nil {
		t.Fatalf("v = 'a' read %v, want no row", rows)
	}
	if rows := tabletest.ReadRows(t, url, reader.WithWhere("k = 1 AND v = 'b'")); !slices.Equal(rows, []string{"1|b"}) {
		t.Fatalf("v = 'b' read %v", rows)
	}
}

// TestKeyRangePruningEvolvedSchema: in the Java-written table whose key
// column key2 was renamed key_2 (same field id 2), files of schema 0 are
// pruned by their key statistics under the new name. Snapshot 6's level>0
// files (EXPECTED.md): partition key0=1/key1=1 holds data-8969384c (schema
// 0, keys 22..82) and data-f2f38e80 (schema 1, key 52); key0=0/key1=1 holds
// data-d7a33230 (schema 1, keys 2, 12, 502).
func TestKeyRangePruningEvolvedSchema(t *testing.T) {
	dir := fixture.Dir(t, "pk_table_with_alter_table_parquet")
	const (
		old   = "data-8969384c-d715-4113-b663-2248c9a8c8d9-0.parquet"
		alex  = "data-f2f38e80-7d28-4d51-90b3-c28951e5cdc0-0.parquet"
		other = "data-d7a33230-223e-4d65-8e39-bc7ed26bdd32-0.parquet"
	)
	sorted := func(s ...string) []string { slices.Sort(s); return s }
	for _, c := range []struct {
		where string
		files []string
		rows  []string
	}{
		{"", sorted(old, alex, other), nil},
		{"key_2 = 22", sorted(old, other), []string{`{"k":"Bob"}`}},
		{"key_2 = 52", sorted(old, alex, other), []string{`{"k":"Alex"}`}},
		{"key_2 = 100", sorted(other), nil},
		{"key_2 = 600", nil, nil},
	} {
		var opts []reader.Option
		if c.where != "" {
			opts = append(opts, reader.WithWhere(c.where))
		}
		plan, rows := readJSONL(t, dir, append(opts, reader.WithColumns("k"))...)
		if got := fileNames(plan); !slices.Equal(got, c.files) {
			t.Errorf("%q: files %v, want %v", c.where, got, c.files)
		}
		if c.where != "" && !slices.Equal(rows, c.rows) {
			t.Errorf("%q: rows %v, want %v", c.where, rows, c.rows)
		}
	}
}

// TestTableCacheServesReplans: planning a table twice through one
// paimon.Table reads each manifest file once; after a new commit the next
// plan reads only the new files and sees the new rows.
func TestTableCacheServesReplans(t *testing.T) {
	ctx := context.Background()
	dir := fixture.Dir(t, "pk_09_parquet")
	tbl, err := paimon.OpenTable(ctx, dir)
	if err != nil {
		t.Fatal(err)
	}
	defer tbl.Close()
	plan, err := tbl.NewScan().Plan(ctx)
	if err != nil {
		t.Fatal(err)
	}
	// Files of snapshot 8: its two manifest lists, their manifests and the
	// index manifest, counted with the uncached readers.
	sn := plan.Snapshot
	files := 0
	for _, name := range []string{sn.BaseManifestList, sn.DeltaManifestList} {
		metas, err := manifest.ReadManifestList(ctx, tbl.FileIO(), name)
		if err != nil {
			t.Fatal(err)
		}
		files += 1 + len(metas)
	}
	if sn.IndexManifest != nil {
		files++
	}
	st := tbl.Cache().Manifests().Stats()
	if st.Misses != int64(files) || st.Hits != 0 || st.Files != files {
		t.Fatalf("first plan: %+v, want %d misses", st, files)
	}
	again, err := tbl.NewScan().Plan(ctx)
	if err != nil {
		t.Fatal(err)
	}
	// The live files of snapshot 8 are kept (delta planning): planning it
	// again reads no manifest list or manifest, only its index manifest.
	st = tbl.Cache().Manifests().Stats()
	indexHits := int64(0)
	if sn.IndexManifest != nil {
		indexHits = 1
	}
	if st.Misses != int64(files) || st.Hits != indexHits {
		t.Fatalf("second plan: %+v, want %d misses and %d hits", st, files, indexHits)
	}
	if !slices.Equal(splitShape(plan), splitShape(again)) || !slices.Equal(fileNames(plan), fileNames(again)) {
		t.Fatalf("replanned %v %v, first %v %v", splitShape(again), fileNames(again), splitShape(plan), fileNames(plan))
	}

	// A new commit is seen by the next plan of the same table.
	pk := pkTable(t, map[string]string{"bucket": "2"}, []int64{1, 2})
	own, err := paimon.OpenTable(ctx, pk.FileIO.URL())
	if err != nil {
		t.Fatal(err)
	}
	defer own.Close()
	if rows := readTableRows(t, own); !slices.Equal(rows, []string{"1|v1-0", "2|v2-0"}) {
		t.Fatalf("before commit: %v", rows)
	}
	rec := tabletest.Batch(t, types.SchemaToArrow(pk.Schema.Fields), []any{int64(2), "new"}, []any{int64(3), "x"})
	tabletest.WriteCommit(t, pk, "u", commit.BatchIdentifier, rec)
	rec.Release()
	before := own.Cache().Manifests().Stats()
	if rows := readTableRows(t, own); !slices.Equal(rows, []string{"1|v1-0", "2|new", "3|x"}) {
		t.Fatalf("after commit: %v", rows)
	}
	after := own.Cache().Manifests().Stats()
	// Snapshot 2 is planned from snapshot 1's kept live files and its own
	// delta: its delta list and the one new manifest are read, not its base
	// list.
	if after.Misses-before.Misses != 2 || after.Hits-before.Hits != 0 {
		t.Fatalf("plan after commit: %d misses, %d hits; want 2 and 0", after.Misses-before.Misses, after.Hits-before.Hits)
	}
}

func readTableRows(t *testing.T, tbl *paimon.Table) []string {
	t.Helper()
	plan, err := tbl.NewScan().Plan(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	var out []string
	for _, sp := range plan.Splits {
		out = append(out, splitRows(t, plan, sp)...)
	}
	slices.Sort(out)
	return out
}

// TestConcurrentPlansShareCache plans and reads one table from 8 goroutines
// through its shared cache (run with -race); every read returns the rows of
// a single-threaded read, and each manifest file is decoded once.
func TestConcurrentPlansShareCache(t *testing.T) {
	ctx := context.Background()
	dir := fixture.Dir(t, "pk_table_scan_and_read_mor_parquet")
	_, want := readJSONL(t, dir, reader.WithWhere("f2 = 0"))
	tbl, err := paimon.OpenTable(ctx, dir)
	if err != nil {
		t.Fatal(err)
	}
	defer tbl.Close()
	errs := make(chan error, 8)
	for range 8 {
		go func() {
			for range 5 {
				plan, err := tbl.NewScan(reader.WithWhere("f2 = 0")).Plan(ctx)
				if err != nil {
					errs <- err
					return
				}
				if !plan.SelectsBucket(plan.Splits[0].Partition, 1) || plan.SelectsBucket(plan.Splits[0].Partition, 0) {
					errs <- fmt.Errorf("SelectsBucket wrong")
					return
				}
				n := 0
				for rec, err := range plan.Records(ctx) {
					if err != nil {
						errs <- err
						return
					}
					n += int(rec.NumRows())
					rec.Release()
				}
				if n != len(want) {
					errs <- fmt.Errorf("read %d rows, want %d", n, len(want))
					return
				}
			}
			errs <- nil
		}()
	}
	for range 8 {
		if err := <-errs; err != nil {
			t.Fatal(err)
		}
	}
	st := tbl.Cache().Manifests().Stats()
	if st.Misses != int64(st.Files) || st.Hits+st.Misses == 0 {
		t.Fatalf("stats %+v: each file should be decoded once", st)
	}
}

// TestAppendBucketPruning: an append table with bucket = 4 and bucket-key k
// plans one split for a point query on k, the split that holds the key in
// the unfiltered plan; value statistics of the append files prune too.
func TestAppendBucketPruning(t *testing.T) {
	tbl := tabletest.NewTable(t, "", catalog.Schema{
		Fields:  []types.DataField{{Name: "k", Type: types.Int()}, {Name: "v", Type: types.String()}},
		Options: map[string]string{"bucket": "4", "bucket-key": "k"},
	})
	sc := types.SchemaToArrow(tbl.Schema.Fields)
	var rows [][]any
	for k := range int32(40) {
		rows = append(rows, []any{k, fmt.Sprint("v", k)})
	}
	rec := tabletest.Batch(t, sc, rows...)
	tabletest.WriteCommit(t, tbl, "u", commit.BatchIdentifier, rec)
	rec.Release()
	url := tbl.FileIO.URL()
	_, all := openPlan(t, url)
	bucketOf := map[string]int32{}
	for _, sp := range all.Splits {
		for _, r := range splitRows(t, all, sp) {
			bucketOf[strings.SplitN(r, "|", 2)[0]] = sp.Bucket
		}
	}
	if len(all.Splits) != 4 || len(bucketOf) != 40 {
		t.Fatalf("unfiltered: %v, %d keys", splitShape(all), len(bucketOf))
	}
	_, p := openPlan(t, url, reader.WithWhere("k = 17"))
	if len(p.Splits) != 1 || p.Splits[0].Bucket != bucketOf["17"] {
		t.Fatalf("k = 17: splits %v, want one of bucket %d", splitShape(p), bucketOf["17"])
	}
	if got := splitRows(t, p, p.Splits[0]); !slices.Equal(got, []string{"17|v17"}) {
		t.Fatalf("k = 17: rows %v", got)
	}
	// k > 100 is outside every file's value statistics.
	if _, p := openPlan(t, url, reader.WithWhere("k > 100")); len(p.Splits) != 0 {
		t.Fatalf("k > 100: splits %v", splitShape(p))
	}
}
