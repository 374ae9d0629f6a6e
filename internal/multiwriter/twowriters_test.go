package multiwriter_test

import (
	"context"
	"errors"
	"fmt"
	"slices"
	"testing"

	"github.com/apache/arrow-go/v18/arrow"

	"github.com/paimon-go/paimon/catalog"
	"github.com/paimon-go/paimon/commit"
	"github.com/paimon-go/paimon/compaction"
	"github.com/paimon-go/paimon/internal/tabletest"
	"github.com/paimon-go/paimon/snapshot"
	"github.com/paimon-go/paimon/types"
	"github.com/paimon-go/paimon/writer"
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

// TestCompactionOverUnseenDelete: writer b restores the empty bucket, then
// writer a commits key 1; b commits key 100 (re-sequenced after a's file),
// deletes key 1 and compacts its two files to the highest level, dropping
// the delete record. a's file, which b never saw, is older than b's inputs:
// publishing that compaction would bring key 1 back, so the COMPACT
// snapshot is refused (commit.ErrConflict, taken over by b's writer, which
// reloads its levels) and the rows are those of the commits applied in
// order, at every step and after a full compaction.
func TestCompactionOverUnseenDelete(t *testing.T) {
	ctx := context.Background()
	tbl := newTable(t, map[string]string{"num-sorted-run.compaction-trigger": "2"})
	fields := append(types.SchemaToArrow(tbl.Schema.Fields).Fields(), arrow.Field{Name: writer.DefaultRowKindColumn, Type: arrow.BinaryTypes.String})
	sc := arrow.NewSchema(fields, nil)
	wa, err := writer.New(tbl.FileIO, tbl.Schema, "wa")
	if err != nil {
		t.Fatal(err)
	}
	defer wa.Close()
	wb, err := writer.New(tbl.FileIO, tbl.Schema, "wb")
	if err != nil {
		t.Fatal(err)
	}
	defer wb.Close()
	cb, err := commit.New(tbl.FileIO, tbl.Schema, "wb")
	if err != nil {
		t.Fatal(err)
	}
	defer cb.Close()
	url := tbl.FileIO.URL()
	step := func(w *writer.Write, c *commit.Committer, ident int64, want []string, rows ...[]any) []commit.Message {
		t.Helper()
		rec := tabletest.Batch(t, sc, rows...)
		defer rec.Release()
		if err := w.Write(ctx, rec); err != nil {
			t.Fatal(err)
		}
		msgs, err := w.PrepareCommit(ctx)
		if err != nil {
			t.Fatal(err)
		}
		if _, err := c.Commit(ctx, ident, msgs); err != nil {
			t.Fatalf("commit %d: %v", ident, err)
		}
		if got := tabletest.ReadRows(t, url); !slices.Equal(got, want) {
			t.Fatalf("after commit %d: rows %q, want %q", ident, got, want)
		}
		return msgs
	}
	// b's writer restores the empty bucket with its first row.
	rec := tabletest.Batch(t, sc, []any{int32(100), "b0", "+I"})
	if err := wb.Write(ctx, rec); err != nil {
		t.Fatal(err)
	}
	rec.Release()
	ca, err := commit.New(tbl.FileIO, tbl.Schema, "wa")
	if err != nil {
		t.Fatal(err)
	}
	defer ca.Close()
	step(wa, ca, 1, []string{"1|a"}, []any{int32(1), "a", "+I"})
	step(wb, cb, 1, []string{"100|b0", "1|a"})
	// b deletes key 1, then writes keys 2, 3, 4: its writer compacts its
	// own files, dropping the delete record, once it has enough runs.
	want := []string{"100|b0"}
	refused := 0
	for i, k := range []int32{1, 2, 3, 4} {
		row := []any{k, nil, "-D"}
		if k != 1 {
			row = []any{k, fmt.Sprintf("b%d", k), "+I"}
			want = append(want, fmt.Sprintf("%d|b%d", k, k))
		}
		ident := int64(i + 2)
		msgs := step(wb, cb, ident, want, row)
		for _, m := range msgs {
			if m.Compact.IsEmpty() {
				continue
			}
			if m.Levels == nil {
				t.Fatalf("commit %d: a compaction message without levels", ident)
			}
			latest, err := snapshot.NewManager(tbl.FileIO).Latest(ctx)
			if err != nil {
				t.Fatal(err)
			}
			if refused == 0 {
				// The first compaction over a's unseen file is refused:
				// the latest snapshot is b's APPEND snapshot.
				if m.Levels.DeletesKept || latest.CommitKind != snapshot.KindAppend {
					t.Fatalf("commit %d: compaction with levels %+v, latest snapshot %d %s; want a refused compaction that dropped deletes",
						ident, m.Levels, latest.ID, latest.CommitKind)
				}
			} else if latest.CommitKind != snapshot.KindCompact {
				t.Fatalf("commit %d: latest snapshot %d %s, want the compaction of the reloaded levels", ident, latest.ID, latest.CommitKind)
			}
			refused++
		}
	}
	if refused < 2 {
		t.Fatalf("%d commits of b compacted, want the refused one and one after it", refused)
	}
	if _, err := compaction.Compact(ctx, tbl.FileIO, tbl.Schema, "compact", compaction.Options{Full: true}); err != nil {
		t.Fatal(err)
	}
	if got := tabletest.ReadRows(t, url); !slices.Equal(got, want) {
		t.Fatalf("rows after full compaction %q, want %q", got, want)
	}
}
