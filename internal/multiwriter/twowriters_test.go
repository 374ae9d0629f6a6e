package multiwriter_test

import (
	"context"
	"errors"
	"slices"
	"testing"

	"github.com/paimon-go/paimon/catalog"
	"github.com/paimon-go/paimon/commit"
	"github.com/paimon-go/paimon/compaction"
	"github.com/paimon-go/paimon/internal/tabletest"
	"github.com/paimon-go/paimon/types"
)

// engines are the merge engines whose visible row depends on the order of
// two records of one key, with the value each order gives: committed first
// "a" then "b" into a bucket that holds another key.
var engines = []struct {
	name    string
	options map[string]string
	want    string // the row after committing a, then b
}{
	{"deduplicate", nil, "1|b"},
	{"first-row", map[string]string{"merge-engine": "first-row"}, "1|a"},
	{"partial-update", map[string]string{"merge-engine": "partial-update"}, "1|b"},
	{"aggregation last_value", map[string]string{"merge-engine": "aggregation", "fields.v.aggregate-function": "last_value"}, "1|b"},
	{"aggregation first_value", map[string]string{"merge-engine": "aggregation", "fields.v.aggregate-function": "first_value"}, "1|a"},
	{"aggregation listagg", map[string]string{"merge-engine": "aggregation", "fields.v.aggregate-function": "listagg"}, "1|a,b"},
}

func newTable(t *testing.T, options map[string]string) *catalog.Table {
	opts := map[string]string{"bucket": "1"}
	for k, v := range options {
		opts[k] = v
	}
	return tabletest.NewTable(t, "", catalog.Schema{
		Fields:      []types.DataField{{Name: "k", Type: types.Int().NotNull()}, {Name: "v", Type: types.String()}},
		PrimaryKeys: []string{"k"},
		Options:     opts,
	})
}

// TestTwoWritersOneBucket: two writers restore the same bucket (one row of
// key 2 committed before), each writes key 1, and they commit one after the
// other. Both writers' files start at the same sequence number; the
// committer must order the second commit's rows after the first's, in
// every merge engine, before and after a full compaction.
func TestTwoWritersOneBucket(t *testing.T) {
	ctx := context.Background()
	for _, e := range engines {
		for _, order := range []string{"ab", "ba"} {
			t.Run(e.name+"/"+order, func(t *testing.T) {
				tbl := newTable(t, e.options)
				sc := types.SchemaToArrow(tbl.Schema.Fields)
				base := tabletest.Batch(t, sc, []any{int32(2), "x"})
				defer base.Release()
				last := tabletest.WriteCommit(t, tbl, "setup", 1, base)
				ra := tabletest.Batch(t, sc, []any{int32(1), "a"})
				defer ra.Release()
				rb := tabletest.Batch(t, sc, []any{int32(1), "b"})
				defer rb.Release()
				// Both writers start from snapshot 1 before either commits.
				msgs := map[byte][]commit.Message{
					'a': tabletest.Prepare(t, tbl, "wa", ra),
					'b': tabletest.Prepare(t, tbl, "wb", rb),
				}
				for i, w := range []byte(order) {
					c, err := commit.New(tbl.FileIO, tbl.Schema, "w"+string(w))
					if err != nil {
						t.Fatal(err)
					}
					id, err := c.Commit(ctx, int64(i+1), msgs[w])
					if errors.Is(err, commit.ErrCompactionNotCommitted) && e.name == "first-row" && i == 1 {
						// First-row writers compact level 0 at every
						// PrepareCommit; the second writer's compaction
						// read its file before it was re-sequenced.
						err = nil
					}
					if err != nil || id <= last {
						t.Fatalf("commit of %c = %d, %v; want a snapshot after %d", w, id, err, last)
					}
					last = id
					c.Close()
				}
				row1 := e.want
				if order == "ba" {
					row1 = map[string]string{"1|b": "1|a", "1|a": "1|b", "1|a,b": "1|b,a"}[row1]
				}
				want := []string{row1, "2|x"}
				url := tbl.FileIO.URL()
				if got := tabletest.ReadRows(t, url); !slices.Equal(got, want) {
					t.Fatalf("rows %q, want %q", got, want)
				}
				if _, err := compaction.Compact(ctx, tbl.FileIO, tbl.Schema, "compact", compaction.Options{Full: true}); err != nil {
					t.Fatal(err)
				}
				if got := tabletest.ReadRows(t, url); !slices.Equal(got, want) {
					t.Fatalf("rows after full compaction %q, want %q", got, want)
				}
			})
		}
	}
}

// TestStaleCompactionConflicts: writer b compacts its view of the bucket
// (the row "x" and its own "b") while writer a commits "a" first. b's
// compaction did not read a's file, whose sequence numbers lie within its
// inputs', so its COMPACT snapshot fails with commit.ErrConflict (the data
// is committed, re-sequenced after a's) and the rows stay those of a
// serial replay. The messages are stripped of the writer's
// OnCompactionRefused, so Commit reports the refusal.
func TestStaleCompactionConflicts(t *testing.T) {
	ctx := context.Background()
	tbl := newTable(t, map[string]string{"merge-engine": "aggregation", "fields.v.aggregate-function": "first_value",
		"full-compaction.delta-commits": "1"})
	sc := types.SchemaToArrow(tbl.Schema.Fields)
	base := tabletest.Batch(t, sc, []any{int32(1), "x"}, []any{int32(2), "y"})
	defer base.Release()
	tabletest.WriteCommit(t, tbl, "setup", 1, base)
	ra := tabletest.Batch(t, sc, []any{int32(2), "a"})
	defer ra.Release()
	rb := tabletest.Batch(t, sc, []any{int32(2), "b"})
	defer rb.Release()
	ma := tabletest.Prepare(t, tbl, "wa", ra)
	mb := tabletest.Prepare(t, tbl, "wb", rb)
	for i := range mb {
		mb[i].OnCompactionRefused = nil
	}
	if len(mb) != 1 || len(mb[0].Compact.Before) == 0 {
		t.Fatalf("writer b prepared %d messages without compaction: %+v", len(mb), mb)
	}
	ca, err := commit.New(tbl.FileIO, tbl.Schema, "wa")
	if err != nil {
		t.Fatal(err)
	}
	defer ca.Close()
	if _, err := ca.Commit(ctx, 1, ma); err != nil {
		t.Fatal(err)
	}
	cb, err := commit.New(tbl.FileIO, tbl.Schema, "wb")
	if err != nil {
		t.Fatal(err)
	}
	defer cb.Close()
	id, err := cb.Commit(ctx, 1, mb)
	if !errors.Is(err, commit.ErrCompactionNotCommitted) || !errors.Is(err, commit.ErrConflict) || id == 0 {
		t.Fatalf("commit of b = %d, %v; want its data committed and its compaction refused", id, err)
	}
	want := []string{"1|x", "2|y"}
	if got := tabletest.ReadRows(t, tbl.FileIO.URL()); !slices.Equal(got, want) {
		t.Fatalf("rows %q, want %q", got, want)
	}
	if _, err := compaction.Compact(ctx, tbl.FileIO, tbl.Schema, "compact", compaction.Options{Full: true}); err != nil {
		t.Fatal(err)
	}
	if got := tabletest.ReadRows(t, tbl.FileIO.URL()); !slices.Equal(got, want) {
		t.Fatalf("rows after full compaction %q, want %q", got, want)
	}
}
