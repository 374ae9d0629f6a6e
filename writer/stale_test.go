package writer_test

import (
	"context"
	"errors"
	"fmt"
	"maps"
	"slices"
	"strings"
	"testing"

	"github.com/apache/arrow-go/v18/arrow"

	"github.com/paimon-go/paimon/catalog"
	"github.com/paimon-go/paimon/commit"
	"github.com/paimon-go/paimon/expire"
	"github.com/paimon-go/paimon/fileio"
	"github.com/paimon-go/paimon/internal/tabletest"
	"github.com/paimon-go/paimon/types"
	"github.com/paimon-go/paimon/writer"
)

// TestStaleAfterRollback: a long-lived Write commits three times (its
// compactions keep the committed files in its levels or queue), then the
// table is rolled back to snapshot 1 under it, which deletes the files of
// snapshots 2 and later. The Write's next PrepareCommit needs those files
// and fails with ErrStale (wrapping fileio.ErrNotExist) rather than an
// untyped error; after Restore the same rows are written again and
// committed, and the table holds exactly snapshot 1's rows plus them.
func TestStaleAfterRollback(t *testing.T) {
	pk := func(opts map[string]string) func(*testing.T) *catalog.Table {
		return func(t *testing.T) *catalog.Table { return compactTable(t, opts) }
	}
	for _, tc := range []struct {
		name  string
		table func(*testing.T) *catalog.Table
		opts  []writer.Option
		// rows after snapshot 1 and the rows written after the rollback
		// (keys 0..3 at version 4), "k|v" sorted.
		want func() []string
	}{
		{name: "universal", table: pk(map[string]string{"num-sorted-run.compaction-trigger": "2"})},
		{name: "deletion-vectors", table: pk(map[string]string{"deletion-vectors.enabled": "true"})},
		{name: "deletion-vectors-async", table: pk(map[string]string{"deletion-vectors.enabled": "true"}),
			opts: []writer.Option{writer.WithAsyncCompaction(1)}},
		{name: "first-row", table: pk(map[string]string{"merge-engine": "first-row"}),
			want: func() []string {
				m := model{}
				m.apply(insRange(0, 9, 1))
				return m.rows()
			}},
		{name: "append", table: func(t *testing.T) *catalog.Table {
			return newTable(t, "", catalog.Schema{Fields: compactFields,
				Options: map[string]string{"bucket": "1", "bucket-key": "k", "compaction.min.file-num": "2"}})
		}, want: func() []string {
			var out []string
			for k := range int32(10) {
				out = append(out, fmt.Sprintf("%d|%s", k, val(k, 1)))
			}
			for k := range int32(4) {
				out = append(out, fmt.Sprintf("%d|%s", k, val(k, 4)))
			}
			slices.Sort(out)
			return out
		}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			ctx := context.Background()
			tbl := tc.table(t)
			w := must(writer.New(tbl.FileIO, tbl.Schema, "u", tc.opts...))
			defer w.Close()
			c := must(commit.New(tbl.FileIO, tbl.Schema, "u"))
			defer c.Close()
			steps := [][]lsmOp{insRange(0, 9, 1), insRange(5, 14, 2), insRange(10, 19, 3)}
			for i, ops := range steps {
				if _, err := c.Commit(ctx, int64(i+1), writePrepare(t, w, ops)); err != nil {
					t.Fatal(err)
				}
			}
			if _, err := expire.Rollback(ctx, tbl.FileIO, tbl.Schema, expire.Target{Snapshot: 1}, expire.RollbackOptions{DeleteFiles: true}); err != nil {
				t.Fatal(err)
			}
			again := insRange(0, 3, 4)
			rec := opsBatch(t, again)
			err := w.Write(ctx, rec)
			rec.Release()
			if err == nil {
				_, err = w.PrepareCommit(ctx)
			}
			if !errors.Is(err, writer.ErrStale) || !errors.Is(err, fileio.ErrNotExist) {
				t.Fatalf("write after rollback: %v; want ErrStale wrapping fileio.ErrNotExist", err)
			}
			// The message tells what Restore costs: the uncommitted rows.
			if want := "writer: write is stale (the table changed under it): Restore drops the rows this Write has not committed, which must then be written again: data file "; !strings.HasPrefix(err.Error(), want) {
				t.Errorf("ErrStale text %q, want it to start with %q", err, want)
			}
			if err := w.Restore(ctx); err != nil {
				t.Fatal(err)
			}
			id, err := c.Commit(ctx, 4, writePrepare(t, w, again))
			if err != nil {
				t.Fatal(err)
			}
			if id < 2 {
				t.Fatalf("commit after restore published snapshot %d", id)
			}
			want := model{}
			want.apply(insRange(0, 9, 1))
			want.apply(again)
			wantRows := want.rows()
			if tc.want != nil {
				wantRows = tc.want()
			}
			equalRows(t, "rows", readRows(t, tbl.FileIO.URL()), wantRows)
		})
	}
}

// TestStaleNotForDamagedTable: a data file that the latest snapshot names
// but the store lacks is damage, not a stale Write: the error is the plain
// fileio.ErrNotExist, without ErrStale.
func TestStaleNotForDamagedTable(t *testing.T) {
	ctx := context.Background()
	tbl := compactTable(t, map[string]string{"full-compaction.delta-commits": "1"})
	writeCommit(t, tbl, "u", 1, opsBatch(t, insRange(0, 9, 1)))
	_, entries := deltaEntries(t, tbl.FileIO, 1)
	if len(entries) != 1 {
		t.Fatalf("snapshot 1 has %d entries", len(entries))
	}
	if err := tbl.FileIO.Delete(ctx, "bucket-0/"+entries[0].File.FileName); err != nil {
		t.Fatal(err)
	}
	w := must(writer.New(tbl.FileIO, tbl.Schema, "u"))
	defer w.Close()
	rec := opsBatch(t, insRange(0, 3, 2))
	defer rec.Release()
	if err := w.Write(ctx, rec); err != nil {
		t.Fatal(err)
	}
	_, err := w.PrepareCommit(ctx)
	if !errors.Is(err, fileio.ErrNotExist) || errors.Is(err, writer.ErrStale) {
		t.Fatalf("prepare on a damaged table: %v; want fileio.ErrNotExist without ErrStale", err)
	}
}

// TestStaleDeletionVectorRestore: a Write restores the whole table once
// (the latest snapshot, with the deletion-vector index files of every
// partition) and creates a partition's writer only when it first writes
// there. After a rollback to a snapshot before those index files, the first
// write into another partition cannot restore that partition's deletion
// vectors: ErrStale, naming the index file. After Restore the write
// succeeds and the rows are exactly snapshot 2's plus the new one.
func TestStaleDeletionVectorRestore(t *testing.T) {
	ctx := context.Background()
	fields := []types.DataField{
		{Name: "k", Type: types.Int().NotNull()},
		{Name: "v", Type: types.String()},
		{Name: "p", Type: types.String().NotNull()},
	}
	tbl := newTable(t, "", catalog.Schema{Fields: fields, PrimaryKeys: []string{"k", "p"}, PartitionKeys: []string{"p"},
		Options: map[string]string{"bucket": "1", "deletion-vectors.enabled": "true"}})
	batch := func(ver int, keys map[string][]int32) arrow.RecordBatch {
		var rows [][]any
		for _, p := range slices.Sorted(maps.Keys(keys)) {
			for _, k := range keys[p] {
				rows = append(rows, []any{k, fmt.Sprintf("%s%d-v%d", p, k, ver), p})
			}
		}
		return tabletest.Batch(t, types.SchemaToArrow(fields), rows...)
	}
	seq := func(from, to int32) []int32 {
		var out []int32
		for k := from; k <= to; k++ {
			out = append(out, k)
		}
		return out
	}
	// Snapshots 1 (APPEND) and 2 (COMPACT, level 0 forced up); 3 and 4 mark
	// rows of both partitions deleted in new index files.
	writeCommit(t, tbl, "other", 1, batch(1, map[string][]int32{"a": seq(0, 9), "b": seq(0, 9)}))
	writeCommit(t, tbl, "other", 2, batch(2, map[string][]int32{"a": seq(0, 4), "b": seq(0, 4)}))
	if _, latest := kindsSince(t, tbl, 0); latest != 4 {
		t.Fatalf("latest snapshot %d, want 4", latest)
	}
	w := must(writer.New(tbl.FileIO, tbl.Schema, "u"))
	defer w.Close()
	c := must(commit.New(tbl.FileIO, tbl.Schema, "u"))
	defer c.Close()
	write := func(rec arrow.RecordBatch) error {
		defer rec.Release()
		return w.Write(ctx, rec)
	}
	if err := write(batch(3, map[string][]int32{"a": {5}})); err != nil {
		t.Fatal(err)
	}
	if _, err := c.Commit(ctx, 1, must(w.PrepareCommit(ctx))); err != nil {
		t.Fatal(err)
	}
	if _, err := expire.Rollback(ctx, tbl.FileIO, tbl.Schema, expire.Target{Snapshot: 2}, expire.RollbackOptions{DeleteFiles: true}); err != nil {
		t.Fatal(err)
	}
	err := write(batch(4, map[string][]int32{"b": {7}}))
	if !errors.Is(err, writer.ErrStale) || !errors.Is(err, fileio.ErrNotExist) || !strings.Contains(err.Error(), "index file index/") {
		t.Fatalf("write after rollback: %v; want ErrStale naming an index file", err)
	}
	if err := w.Restore(ctx); err != nil {
		t.Fatal(err)
	}
	if err := write(batch(4, map[string][]int32{"b": {7}})); err != nil {
		t.Fatal(err)
	}
	if _, err := c.Commit(ctx, 2, must(w.PrepareCommit(ctx))); err != nil {
		t.Fatal(err)
	}
	var want []string
	for _, p := range []string{"a", "b"} {
		for k := range int32(10) {
			v := fmt.Sprintf("%s%d-v1", p, k)
			if p == "b" && k == 7 {
				v = "b7-v4"
			}
			want = append(want, fmt.Sprintf("%d|%s|%s", k, v, p))
		}
	}
	slices.Sort(want)
	equalRows(t, "rows", readRows(t, tbl.FileIO.URL()), want)
}
