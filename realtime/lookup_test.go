package realtime_test

import (
	"context"
	"errors"
	"testing"

	"github.com/apache/arrow-go/v18/arrow"

	"github.com/paimon-go/paimon/reader"
)

// lookupRows looks keys (id, pt) up in rc and renders the rows.
func lookupRows(t *testing.T, lookup func(context.Context, arrow.RecordBatch, ...reader.Option) (arrow.RecordBatch, error), keys [][]any, opts ...reader.Option) []string {
	t.Helper()
	kb := batch(t, []arrow.Field{idField, ptField}, keys...)
	defer kb.Release()
	rec, err := lookup(context.Background(), kb, opts...)
	if err != nil {
		t.Fatal(err)
	}
	defer rec.Release()
	return recStrings(rec)
}

// TestLookup: point lookups on a real-time context see rows once their
// Write returned (memory merged with the committed files by the merge
// engine), and a missing key gives no row; the committed table's own
// lookup sees only what was committed.
func TestLookup(t *testing.T) {
	tbl := newFooTable(t, []string{"id", "pt"}, []string{"pt"}, map[string]string{"bucket": "2"})
	rc := newContext(t, tbl)
	w := newWrite(t, rc, "u")
	cm := newCommit(t, rc, "u")
	write(t, w, kindRows(t,
		[]any{int64(1), "one", "p0", "+I"},
		[]any{int64(2), "two", "p0", "+I"},
		[]any{int64(3), "three", "p1", "+I"}))
	keys := [][]any{{int64(1), "p0"}, {int64(3), "p1"}, {int64(3), "p0"}, {int64(9), "p1"}}
	equal(t, "memory", lookupRows(t, rc.Lookup, keys), []string{"1|one|p0", "3|three|p1"})
	id := commitProg(t, cm, prepare(t, w, 1), 1)
	refresh(t, rc, id)
	write(t, w, kindRows(t,
		[]any{int64(1), "uno", "p0", "+U"},
		[]any{int64(3), "three", "p1", "-D"},
		[]any{int64(9), "nine", "p1", "+I"}))
	equal(t, "union", lookupRows(t, rc.Lookup, keys), []string{"1|uno|p0", "9|nine|p1"})
	equal(t, "projected", lookupRows(t, rc.Lookup, keys[:1], reader.WithColumns("payload")), []string{"uno"})
	equal(t, "committed only", lookupRows(t, func(ctx context.Context, k arrow.RecordBatch, opts ...reader.Option) (arrow.RecordBatch, error) {
		return reader.NewScan(tbl.FileIO, opts...).Lookup(ctx, k)
	}, keys), []string{"1|one|p0", "3|three|p1"})
	// Keys that do not fit the table.
	for name, kb := range map[string]arrow.RecordBatch{
		"missing column": batch(t, []arrow.Field{idField}, []any{int64(1)}),
		"wrong type":     batch(t, []arrow.Field{{Name: "id", Type: arrow.BinaryTypes.String}, ptField}, []any{"1", "p0"}),
		"null key":       batch(t, []arrow.Field{idField, ptField}, []any{int64(1), nil}),
		"no key":         batch(t, []arrow.Field{idField, ptField}),
		"extra column":   batch(t, []arrow.Field{idField, ptField, payloadField}, []any{int64(1), "p0", "x"}),
	} {
		_, err := rc.Lookup(context.Background(), kb)
		kb.Release()
		if !errors.Is(err, reader.ErrInvalidScan) {
			t.Errorf("%s: %v, want ErrInvalidScan", name, err)
		}
	}
}
