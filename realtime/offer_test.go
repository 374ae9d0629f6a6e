package realtime_test

import (
	"context"
	"math/big"
	"slices"
	"testing"

	"github.com/apache/arrow-go/v18/arrow"

	"github.com/paimon-go/paimon/catalog"
	"github.com/paimon-go/paimon/internal/tabletest"
	"github.com/paimon-go/paimon/reader"
	"github.com/paimon-go/paimon/realtime"
	"github.com/paimon-go/paimon/types"
)

// offerKinds is a primary-key table with a column of every kind the
// writers take, for TestLookupOfferedRows.
var offerKinds = append([]types.DataField{types.Field(100, "k", types.BigInt().NotNull())}, tabletest.AllKinds(0)...)

// lookupAll looks keys up in rc and renders the rows, sorted.
func lookupAll(t *testing.T, rc *realtime.Context, keys arrow.RecordBatch) []string {
	t.Helper()
	rec, err := rc.Lookup(context.Background(), keys)
	if err != nil {
		t.Fatal(err)
	}
	defer rec.Release()
	return sortedRows(recStrings(rec))
}

// offerRow is key k with values of every kind (all null when null).
func offerRow(k int64, null bool) []any {
	row := make([]any, len(offerKinds))
	row[0] = k
	if null {
		return row
	}
	ts := types.Timestamp{Millis: 1700000000123 + k, NanoOfMilli: 456789}
	copy(row[1:], []any{k%2 == 0, int8(k), int16(-k), int32(k * 7), k << 40, float32(k) / 4, float64(k) / 8, "é-" + itoa(k), []byte{byte(k), 0, 0xff},
		types.Decimal{Unscaled: big.NewInt(-99999 + k), Precision: 5, Scale: 2}, int32(19000 + k), int32(3723004 + k),
		types.Timestamp{Millis: 1700000000123 + k}, ts, ts, types.Timestamp{Millis: -1 - k},
		[]any{int32(k), nil}, types.Map{Keys: []any{"k", "l"}, Values: []any{int32(k), nil}}, []any{int32(k), "y"}})
	return row
}

// TestLookupOfferedRows: once lookups run, the rows of each data file a
// commit's flush writes are offered to the lookup cache
// (writer.WithWrittenRows → reader.LookupCache.Offer) and the warming after
// the commit reads them instead of the file: one offer read per new file,
// no file read. What lookups then return, for a column of every kind,
// nulls, upserts and deletes across 4 buckets, equals what a fresh context
// (no offers: it reads the files) returns for the same snapshot, row for
// row, and the rows written.
func TestLookupOfferedRows(t *testing.T) {
	tbl := tabletest.NewTable(t, "", catalog.Schema{Fields: offerKinds, PrimaryKeys: []string{"k"},
		Options: tableOpts(map[string]string{"bucket": "4"})})
	cache := reader.NewCache(reader.DefaultCacheBytes)
	rc := newContext(t, tbl, realtime.WithCache(cache))
	w := newWrite(t, rc, "u")
	cm := newCommit(t, rc, "u")
	sc := types.SchemaToArrow(offerKinds)

	var rows [][]any
	for k := range int64(24) {
		rows = append(rows, offerRow(k, k%5 == 0))
	}
	rec := tabletest.Batch(t, sc, rows...)
	write(t, w, rec)
	refresh(t, rc, commitProg(t, cm, prepare(t, w, 1), 1))
	keySc := types.SchemaToArrow(offerKinds[:1])
	var allKeys [][]any
	for k := range int64(30) {
		allKeys = append(allKeys, []any{k})
	}
	keys := tabletest.Batch(t, keySc, allKeys...)
	defer keys.Release()
	first := lookupAll(t, rc, keys)
	if st := cache.LookupFiles().Stats(); st.OfferReads != 0 || st.Misses == 0 {
		t.Fatalf("commit before any lookup: %+v, want files read, no offers", st)
	}

	// Commit 2: upserts of keys 3..9 (some now null, some no longer),
	// new keys 24..27.
	var upd [][]any
	for k := int64(3); k < 28; k++ {
		if k < 10 || k >= 24 {
			upd = append(upd, offerRow(k+100, k%3 == 0))
			upd[len(upd)-1][0] = k
		}
	}
	rec2 := tabletest.Batch(t, sc, upd...)
	write(t, w, rec2)
	prog := prepare(t, w, 2)
	var added int
	for _, p := range prog {
		added += len(p.Message.Data.NewFiles)
	}
	before := cache.LookupFiles().Stats()
	id := commitProg(t, cm, prog, 2)
	after := cache.LookupFiles().Stats()
	if added != 4 || after.OfferReads != int64(added) || after.Misses != before.Misses+int64(added) {
		t.Fatalf("commit 2 (%d new files): cache %+v, was %+v; want one offer read per new file", added, after, before)
	}
	refresh(t, rc, id)
	got := lookupAll(t, rc, keys)

	fresh := newContext(t, tbl, realtime.WithCache(reader.NewCache(reader.DefaultCacheBytes)))
	want := lookupAll(t, fresh, keys)
	equal(t, "offered against files", got, want)
	if len(got) != 28 || slices.Equal(got, first) {
		t.Errorf("lookup after commit 2: %d rows (first lookup %d), want 28 and changed", len(got), len(first))
	}
	// Commit 3 deletes keys 24 and 25 (-D rows, the row kind column).
	delSc := arrow.NewSchema(append(slices.Clone(sc.Fields()), kindField), nil)
	rec3 := tabletest.Batch(t, delSc, append(offerRow(24, true), "-D"), append(offerRow(25, true), "-D"))
	defer rec3.Release()
	write(t, w, rec3)
	prog = prepare(t, w, 3)
	added = 0
	for _, p := range prog {
		added += len(p.Message.Data.NewFiles)
	}
	id = commitProg(t, cm, prog, 3)
	if st := cache.LookupFiles().Stats(); added == 0 || st.OfferReads != after.OfferReads+int64(added) {
		t.Fatalf("commit 3 (%d new files): cache %+v, want one more offer read per new file", added, st)
	}
	refresh(t, rc, id)
	got3 := lookupAll(t, rc, keys)
	equal(t, "offered against files after deletes", got3, lookupAll(t, newContext(t, tbl, realtime.WithCache(reader.NewCache(reader.DefaultCacheBytes))), keys))
	if len(got3) != 26 {
		t.Errorf("after deleting 2 of 28 keys: %d rows", len(got3))
	}

	// And commit 2 against the rows written, rendered the same way.
	exp := map[int64][]any{}
	for _, r := range rows {
		exp[r[0].(int64)] = r
	}
	for _, r := range upd {
		exp[r[0].(int64)] = r
	}
	var expRows [][]any
	for k := range int64(28) {
		expRows = append(expRows, exp[k])
	}
	e := tabletest.Batch(t, sc, expRows...)
	defer e.Release()
	equal(t, "offered against written", got, sortedRows(recStrings(e)))
	rec.Release()
	rec2.Release()
}

// TestLookupOfferedCompaction: the outputs of the writer's compactions are
// offered too (compaction.RewriterOptions.Rows): over 8 commits of upserts
// into one bucket compacting every 2 sorted runs, each commit's warming
// reads exactly its new level-0 files and rewritten compaction outputs
// from offers (files only moved up a level are kept already), and lookups
// equal a fresh context's, which reads the files.
func TestLookupOfferedCompaction(t *testing.T) {
	tbl := newFooTable(t, []string{"id"}, nil, map[string]string{"num-sorted-run.compaction-trigger": "2"})
	cache := reader.NewCache(reader.DefaultCacheBytes)
	rc := newContext(t, tbl, realtime.WithCache(cache))
	w := newWrite(t, rc, "u")
	cm := newCommit(t, rc, "u")
	keys := batch(t, []arrow.Field{idField}, [][]any{{int64(0)}, {int64(3)}, {int64(7)}, {int64(11)}}...)
	defer keys.Release()
	var rewritten int
	for c := int64(1); c <= 8; c++ {
		write(t, w, fooRows(t, "", c, c+3, c+7))
		prog := prepare(t, w, c)
		var want int64
		for _, p := range prog {
			m := p.Message
			want += int64(len(m.Data.NewFiles))
			before := map[string]bool{}
			for _, f := range m.Compact.Before {
				before[f.FileName] = true
			}
			for _, f := range m.Compact.After {
				if !before[f.FileName] {
					want++
					rewritten++
				}
			}
		}
		was := cache.LookupFiles().Stats()
		id := commitProg(t, cm, prog, c)
		if c > 1 {
			if got := cache.LookupFiles().Stats().OfferReads - was.OfferReads; got != want {
				t.Fatalf("commit %d: %d offer reads, want %d (new and rewritten files)", c, got, want)
			}
		}
		refresh(t, rc, id)
		equal(t, "lookup", lookupAll(t, rc, keys), lookupAll(t, newContext(t, tbl, realtime.WithCache(reader.NewCache(reader.DefaultCacheBytes))), keys))
	}
	if rewritten == 0 {
		t.Fatal("no compaction rewrote a file")
	}
}
