package realtime_test

import (
	"context"
	"slices"
	"testing"

	"github.com/paimon-go/paimon/catalog"
	"github.com/paimon-go/paimon/internal/tabletest"
	"github.com/paimon-go/paimon/reader"
	"github.com/paimon-go/paimon/types"
)

// Scenario 21 (TestProjectionAndPredicateForMemoryAndDisk): projection
// (payload, id) and id > 1, memory only, then disk and memory.
func TestScenario21ProjectionAndPredicate(t *testing.T) {
	tbl := newFooTable(t, nil, nil, nil)
	rc := newContext(t, tbl)
	w := newWrite(t, rc, "u")
	cm := newCommit(t, rc, "u")
	opts := []reader.Option{reader.WithColumns("payload", "id"), reader.WithWhere("id > 1")}
	write(t, w, fooRows(t, "p0", 0, 1, 2))
	equal(t, "memory only", scanRows(t, rc, opts...), []string{"value-2|2"})
	commitProg(t, cm, prepare(t, w, 1), 1)
	write(t, w, fooRows(t, "p0", 3, 4, 5))
	want := []string{"value-2|2", "value-3|3", "value-4|4", "value-5|5"}
	equal(t, "disk and memory", scanRows(t, rc, opts...), want)
	if s := plan(t, rc, opts...).ArrowSchema(); s.NumFields() != 2 || s.Field(0).Name != "payload" || s.Field(1).Name != "id" {
		t.Fatalf("schema %s", s)
	}
}

// Scenario 22 (TestDiskPredicatePushdownWithoutMemoryFiltering), adapted:
// our reads always filter rows exactly, so "without row filtering" becomes
// the exact filtered rows plus a check that the store, without statistics
// (stats mode unset = none), pruned no memory batch: its query readers
// yielded all of 3, 4, 5. Page-level pruning of the disk file is not
// observable through the API.
func TestScenario22NoMemoryPruningWithoutStats(t *testing.T) {
	tbl := newFooTable(t, nil, nil, nil)
	rc, spy := scSpyContext(t, tbl)
	w := newWrite(t, rc, "u")
	cm := newCommit(t, rc, "u")
	write(t, w, fooRows(t, "p0", 0, 1, 2))
	commitProg(t, cm, prepare(t, w, 1), 1)
	write(t, w, fooRows(t, "p0", 3))
	write(t, w, fooRows(t, "p0", 4))
	write(t, w, fooRows(t, "p0", 5))
	spy.reset()
	equal(t, "rows", scanRows(t, rc, reader.WithWhere("id = 1")), fooStrings("p0", 1))
	if n := spy.yielded(); n != 3 {
		t.Fatalf("store yielded %d memory rows, want all 3 (no statistics, no pruning)", n)
	}
}

// scStatsTable is the fixture table with per-batch statistics in memory.
func scStatsTable(t *testing.T, mode string) *catalog.Table {
	return newFooTable(t, nil, nil, map[string]string{"realtime.store.stats-mode": mode})
}

// Scenario 23 (TestMemoryBatchStatisticsPredicatePushdown), adapted as in
// 22: exact rows for every predicate, and the memory rows the store's
// query readers yielded tell which batches it pruned. Three batches
// [0,1,2], [10,11,12], [20,21,22]: with stats mode none all 9 rows come
// out of the store for any predicate; with full, id > 100 prunes all,
// id > 5 keeps the last two batches, id = 10 the middle one.
func TestScenario23MemoryBatchStatistics(t *testing.T) {
	cases := []struct {
		where string
		rows  []int64
		full  int64 // rows the store yields with statistics
	}{
		{"id > 100", nil, 0},
		{"id > 5", []int64{10, 11, 12, 20, 21, 22}, 6},
		{"id = 10", []int64{10}, 3},
	}
	for _, mode := range []string{"none", "full"} {
		t.Run(mode, func(t *testing.T) {
			rc, spy := scSpyContext(t, scStatsTable(t, mode))
			w := newWrite(t, rc, "u")
			for _, b := range [][]int64{{0, 1, 2}, {10, 11, 12}, {20, 21, 22}} {
				write(t, w, fooRows(t, "p0", b...))
			}
			for _, c := range cases {
				spy.reset()
				equal(t, c.where, scanRows(t, rc, reader.WithWhere(c.where)), fooStrings("p0", c.rows...))
				want := int64(9)
				if mode == "full" {
					want = c.full
				}
				if n := spy.yielded(); n != want {
					t.Errorf("%s: store yielded %d memory rows, want %d", c.where, n, want)
				}
			}
		})
	}
}

// Scenario 24 (TestMemoryBatchStatisticsPredicatePushdownWithDisk),
// adapted as in 23: disk rows 0-5, memory batches [0,1,2] and
// [10,11,12], id > 3 with stats full gives disk 4, 5 and memory 10, 11, 12,
// and the store yields only the batch [10,11,12].
func TestScenario24MemoryStatisticsWithDisk(t *testing.T) {
	rc, spy := scSpyContext(t, scStatsTable(t, "full"))
	w := newWrite(t, rc, "u")
	cm := newCommit(t, rc, "u")
	write(t, w, fooRows(t, "p0", seq(0, 6)...))
	id := commitProg(t, cm, prepare(t, w, 1), 1)
	refresh(t, rc, id)
	write(t, w, fooRows(t, "p0", 0, 1, 2))
	write(t, w, fooRows(t, "p0", 10, 11, 12))
	spy.reset()
	equal(t, "rows", scanRows(t, rc, reader.WithWhere("id > 3")), fooStrings("p0", 4, 5, 10, 11, 12))
	if n := spy.yielded(); n != 3 {
		t.Errorf("store yielded %d memory rows, want 3 (batch [0,1,2] pruned)", n)
	}
}

// Scenario 25 (TestNullPredicateForMemoryAndDisk), adapted as in 23:
// payload IS NULL with stats full: disk row 0; of the memory batches
// [2,3] (no null) and [4 null, 5], the first is pruned by its null count
// and the second is yielded whole, then filtered to row 4.
func TestScenario25NullPredicate(t *testing.T) {
	rc, spy := scSpyContext(t, scStatsTable(t, "full"))
	w := newWrite(t, rc, "u")
	cm := newCommit(t, rc, "u")
	write(t, w, batch(t, fooArrow, []any{int64(0), nil, "p0"}, []any{int64(1), "value-1", "p0"}))
	id := commitProg(t, cm, prepare(t, w, 1), 1)
	refresh(t, rc, id)
	write(t, w, fooRows(t, "p0", 2, 3))
	write(t, w, batch(t, fooArrow, []any{int64(4), nil, "p0"}, []any{int64(5), "value-5", "p0"}))
	spy.reset()
	equal(t, "rows", scanRows(t, rc, reader.WithWhere("payload IS NULL")), []string{"0|(null)|p0", "4|(null)|p0"})
	if n := spy.yielded(); n != 2 {
		t.Errorf("store yielded %d memory rows, want 2 (the batch with a null, whole)", n)
	}
	spy.reset()
	equal(t, "not null", scanRows(t, rc, reader.WithWhere("payload IS NOT NULL")), fooStrings("p0", 1, 2, 3, 5))
}

// Scenario 26 (TestUnionReadAfterColumnRename): disk rows written before
// payload is renamed to renamed_payload, memory rows after (in a context of
// the new schema); reading the new name returns rows 0-4.
func TestScenario26UnionReadAfterColumnRename(t *testing.T) {
	ctx := context.Background()
	wh := "file://" + t.TempDir()
	tbl := tabletest.NewTable(t, wh, catalog.Schema{Fields: fooFields(), Options: tableOpts(map[string]string{"bucket-key": "id"})})
	rc := newContext(t, tbl)
	w := newWrite(t, rc, "u")
	cm := newCommit(t, rc, "u")
	write(t, w, fooRows(t, "p0", 0, 1, 2))
	commitProg(t, cm, prepare(t, w, 1), 1)
	if err := w.Close(); err != nil {
		t.Fatal(err)
	}
	rc.Close()

	cat, err := catalog.Open(ctx, wh)
	if err != nil {
		t.Fatal(err)
	}
	defer cat.Close()
	id := catalog.NewIdentifier(tabletest.Database, tabletest.Table)
	if _, err := cat.AlterTable(ctx, id, catalog.RenameColumn{Name: "payload", NewName: "renamed_payload"}); err != nil {
		t.Fatal(err)
	}
	tbl2, err := cat.GetTable(ctx, id)
	if err != nil {
		t.Fatal(err)
	}
	rc2 := newContext(t, tbl2)
	w2 := newWrite(t, rc2, "u")
	renamed := slices.Clone(fooArrow)
	renamed[1].Name = "renamed_payload"
	write(t, w2, batch(t, renamed, []any{int64(3), "value-3", "p0"}, []any{int64(4), "value-4", "p0"}))
	opts := []reader.Option{reader.WithColumns("id", "renamed_payload")}
	want := []string{"0|value-0", "1|value-1", "2|value-2", "3|value-3", "4|value-4"}
	equal(t, "union by new name", scanRows(t, rc2, opts...), want)
	equal(t, "filter by new name", scanRows(t, rc2, append(opts, reader.WithWhere("renamed_payload >= 'value-2'"))...), want[2:])
	cm2 := newCommit(t, rc2, "u")
	id2 := commitProg(t, cm2, prepare(t, w2, 2), 2)
	equal(t, "committed", committed(t, tbl2, id2), []string{"{}/bucket-0=5"})
	equal(t, "plain read", scDiskRows(t, tbl2, opts...), want)
}

// scNestedFields is a table with a nested ROW column:
// id BIGINT, profile ROW<name STRING, address ROW<city STRING, zip INT>>,
// pt STRING.
func scNestedFields(pk bool) []types.DataField {
	id := types.BigInt()
	if pk {
		id.Nullable = false
	}
	address := types.RowOf(types.DataField{Name: "city", Type: types.String()}, types.DataField{Name: "zip", Type: types.Int()})
	return []types.DataField{
		{Name: "id", Type: id},
		{Name: "profile", Type: types.RowOf(types.DataField{Name: "name", Type: types.String()}, types.DataField{Name: "address", Type: address})},
		{Name: "pt", Type: types.String()},
	}
}

// Scenario 27 (TestUnionReadWithNestedStructProjection), adapted: our
// projection (reader.WithColumns) selects top-level columns only, so the
// test projects (id, profile) and checks profile.address.city, with null
// nested values, the same for disk and memory rows.
func TestScenario27NestedStructAcrossDiskAndMemory(t *testing.T) {
	fields := scNestedFields(false)
	tbl := tabletest.NewTable(t, "", catalog.Schema{Fields: fields, Options: tableOpts(map[string]string{"bucket-key": "id"})})
	rc := newContext(t, tbl)
	w := newWrite(t, rc, "u")
	cm := newCommit(t, rc, "u")
	row := func(id int64, name, city any, zip any) []any {
		return []any{id, []any{name, []any{city, zip}}, "p0"}
	}
	write(t, w, scBatch(t, fields, nil, row(0, "ann", "Paris", int32(75001)), row(1, "bob", nil, int32(2))))
	commitProg(t, cm, prepare(t, w, 1), 1)
	write(t, w, scBatch(t, fields, nil, row(2, "cid", "Rome", nil), []any{int64(3), []any{"dan", nil}, "p0"}, []any{int64(4), nil, "p0"}))
	want := []string{
		"0|{name:ann,address:{city:Paris,zip:75001}}",
		"1|{name:bob,address:{city:null,zip:2}}",
		"2|{name:cid,address:{city:Rome,zip:null}}",
		"3|{name:dan,address:null}",
		"4|null",
	}
	opts := []reader.Option{reader.WithColumns("id", "profile")}
	equal(t, "union", scScan(t, rc, opts...), want)
	id := commitProg(t, cm, prepare(t, w, 2), 2)
	refresh(t, rc, id)
	equal(t, "plain read", scDiskRows(t, tbl, opts...), want)
}

// scMapFields is a table with a MAP column: id BIGINT, attrs MAP<STRING,
// INT>, pt STRING.
func scMapFields(pk bool) []types.DataField {
	id := types.BigInt()
	if pk {
		id.Nullable = false
	}
	key := types.String()
	key.Nullable = false
	return []types.DataField{
		{Name: "id", Type: id},
		{Name: "attrs", Type: types.MapOf(key, types.Int())},
		{Name: "pt", Type: types.String()},
	}
}

// Scenario 28 (TestUnionReadWithSelectedMapKeys /
// TestPkUnionReadWithSelectedMapKeys), adapted: shared-shredding MAP
// storage and selected-key projection do not exist in our reader, so the
// test reads the whole MAP column, append and primary-key, and checks the
// same entries (and null maps, null values) for disk and memory rows.
func TestScenario28MapAcrossDiskAndMemory(t *testing.T) {
	m := func(kv ...any) types.Map {
		var out types.Map
		for i := 0; i < len(kv); i += 2 {
			out.Keys = append(out.Keys, kv[i])
			out.Values = append(out.Values, kv[i+1])
		}
		return out
	}
	for _, pk := range []bool{false, true} {
		name := "append"
		if pk {
			name = "pk"
		}
		t.Run(name, func(t *testing.T) {
			fields := scMapFields(pk)
			s := catalog.Schema{Fields: fields, Options: tableOpts(map[string]string{"bucket-key": "id"})}
			if pk {
				s.PrimaryKeys = []string{"id"}
				s.Options = tableOpts(nil)
			}
			tbl := tabletest.NewTable(t, "", s)
			rc := newContext(t, tbl)
			w := newWrite(t, rc, "u")
			cm := newCommit(t, rc, "u")
			write(t, w, scBatch(t, fields, nil,
				[]any{int64(0), m("a", int32(1), "c", int32(3)), "p0"},
				[]any{int64(1), nil, "p0"},
				[]any{int64(2), m("b", int32(2)), "p0"}))
			id := commitProg(t, cm, prepare(t, w, 1), 1)
			refresh(t, rc, id)
			mem := [][]any{
				{int64(3), m("c", int32(5), "a", int32(4), "d", nil), "p0"},
				{int64(4), nil, "p0"},
				{int64(5), m(), "p0"},
			}
			if pk { // memory versions of disk keys win
				mem = append(mem, []any{int64(2), m("a", int32(9)), "p0"}, []any{int64(1), m("z", int32(0)), "p0"})
			}
			write(t, w, scBatch(t, fields, nil, mem...))
			want := []string{"0|{a:1,c:3}", "1|null", "2|{b:2}", "3|{c:5,a:4,d:null}", "4|null", "5|{}"}
			if pk {
				want[1], want[2] = "1|{z:0}", "2|{a:9}"
			}
			opts := []reader.Option{reader.WithColumns("id", "attrs")}
			got := scScan(t, rc, opts...)
			equal(t, "union", got, want)
			id = commitProg(t, cm, prepare(t, w, 2), 2)
			refresh(t, rc, id)
			equal(t, "plain read", scDiskRows(t, tbl, opts...), want)
		})
	}
}

// Scenario 29 (TestUnionReadWithVariantAccess /
// TestPkUnionReadWithVariantAccess), adapted: shredded VARIANT columns and
// variant path access ($.age, $.city, $.note) are not supported by our
// reader, so the test stores VARIANT values (binary value + metadata, as
// written by the Variant encoding: an object, an int8 and a short string)
// and checks that disk and memory rows return the same bytes, append and
// primary-key.
func TestScenario29VariantAcrossDiskAndMemory(t *testing.T) {
	// Variant binary encoding (Parquet VariantEncoding.md): metadata
	// version 1 with the dictionary ["age", "city"], and values.
	meta := []byte{0x01, 0x02, 0x00, 0x03, 0x07, 'a', 'g', 'e', 'c', 'i', 't', 'y'}
	empty := []byte{0x01, 0x00, 0x00}
	// object {age: int8 30, city: "Rome"}: header 0x02 (object, 1-byte ids
	// and offsets), 2 fields, ids [0,1], offsets [0,2,7], then the values.
	object := []byte{0x02, 0x02, 0x00, 0x01, 0x00, 0x02, 0x07, 0x0C, 30, 0x11, 'R', 'o', 'm', 'e'}
	int8v := []byte{0x0C, 42}
	str := []byte{0x15, 'P', 'a', 'r', 'i', 's'}
	for _, pk := range []bool{false, true} {
		name := "append"
		if pk {
			name = "pk"
		}
		t.Run(name, func(t *testing.T) {
			id := types.BigInt()
			if pk {
				id.Nullable = false
			}
			fields := []types.DataField{{Name: "id", Type: id}, {Name: "v", Type: types.Variant()}, {Name: "pt", Type: types.String()}}
			s := catalog.Schema{Fields: fields, Options: tableOpts(map[string]string{"bucket-key": "id"})}
			if pk {
				s.PrimaryKeys = []string{"id"}
				s.Options = tableOpts(nil)
			}
			tbl := tabletest.NewTable(t, "", s)
			rc := newContext(t, tbl)
			w := newWrite(t, rc, "u")
			cm := newCommit(t, rc, "u")
			write(t, w, scBatch(t, fields, nil, []any{int64(0), []any{object, meta}, "p0"}, []any{int64(1), nil, "p0"}))
			id0 := commitProg(t, cm, prepare(t, w, 1), 1)
			refresh(t, rc, id0)
			write(t, w, scBatch(t, fields, nil, []any{int64(2), []any{int8v, empty}, "p0"}, []any{int64(3), []any{str, empty}, "p0"}))
			want := []string{
				"0|{value:02020001000207" + "0c1e" + "11526f6d65,metadata:01020003076167656369747" + "9}",
				"1|null",
				"2|{value:0c2a,metadata:010000}",
				"3|{value:155061726973,metadata:010000}",
			}
			opts := []reader.Option{reader.WithColumns("id", "v")}
			equal(t, "union", scScan(t, rc, opts...), want)
			id1 := commitProg(t, cm, prepare(t, w, 2), 2)
			refresh(t, rc, id1)
			equal(t, "plain read", scDiskRows(t, tbl, opts...), want)
		})
	}
}
