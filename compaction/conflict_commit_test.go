package compaction_test

import (
	"context"
	"maps"
	"slices"
	"testing"

	"github.com/paimon-go/paimon/catalog"
	"github.com/paimon-go/paimon/commit"
	"github.com/paimon-go/paimon/compaction"
	"github.com/paimon-go/paimon/internal/tabletest"
	"github.com/paimon-go/paimon/types"
	"github.com/paimon-go/paimon/writer"
)

// A writer's messages carry new data and a compaction; a dedicated
// compaction takes the same input files first. Commit publishes the data
// (APPEND) and returns its id without error: the writer takes the refused
// compaction over (commit.Message.OnCompactionRefused) and rebuilds the
// bucket's levels from the table, so its next commit, compaction included,
// succeeds (internal/multiwriter tests messages without the callback, which
// get ErrCompactionNotCommitted).
func TestWriterCompactionLosesToDedicatedCompaction(t *testing.T) {
	ctx := context.Background()
	fields := []types.DataField{{Name: "k", Type: types.Int().NotNull()}, {Name: "v", Type: types.BigInt()}}
	tbl := tabletest.NewTable(t, "", catalog.Schema{Fields: fields,
		Options: map[string]string{"bucket": "1", "bucket-key": "k", "compaction.min.file-num": "3"}})
	sc := types.SchemaToArrow(tbl.Schema.Fields)
	wo, ts := *tbl, *tbl.Schema
	ts.Options = maps.Clone(ts.Options)
	ts.Options["write-only"] = "true"
	wo.Schema = &ts
	for i := 1; i <= 3; i++ {
		tabletest.WriteCommit(t, &wo, "u0", commit.BatchIdentifier, tabletest.Batch(t, sc, []any{int32(i), int64(i)}))
	}
	w, err := writer.New(tbl.FileIO, tbl.Schema, "u")
	if err != nil {
		t.Fatal(err)
	}
	defer w.Close()
	if err := w.Write(ctx, tabletest.Batch(t, sc, []any{int32(9), int64(9)})); err != nil {
		t.Fatal(err)
	}
	msgs, err := w.PrepareCommit(ctx)
	if err != nil {
		t.Fatal(err)
	}
	if len(msgs) != 1 || len(msgs[0].Data.NewFiles) != 1 || len(msgs[0].Compact.Before) == 0 {
		t.Fatalf("writer messages: want one message with a new file and a compaction, got %+v", msgs)
	}
	cid, err := compaction.Compact(ctx, tbl.FileIO, tbl.Schema, "c", compaction.Options{Full: true})
	if err != nil || cid != 4 {
		t.Fatalf("dedicated compaction = %d, %v; want snapshot 4", cid, err)
	}
	c, err := commit.New(tbl.FileIO, tbl.Schema, "u")
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close()
	id, err := c.Commit(ctx, commit.BatchIdentifier, msgs)
	if err != nil || id != 5 {
		t.Fatalf("commit = %d, %v; want 5", id, err)
	}
	// The writer rebuilt its levels: its next commit compacts and lands.
	if err := w.Write(ctx, tabletest.Batch(t, sc, []any{int32(10), int64(10)})); err != nil {
		t.Fatal(err)
	}
	if msgs, err = w.PrepareCommit(ctx); err != nil {
		t.Fatal(err)
	}
	if id, err = c.Commit(ctx, commit.BatchIdentifier, msgs); err != nil || id < 7 {
		t.Fatalf("next commit = %d, %v", id, err)
	}
	got := tabletest.ReadJSONL(t, tbl.FileIO.URL())
	slices.Sort(got)
	want := tabletest.JSONL(t, tbl.Schema.Fields, []any{int32(1), int64(1)}, []any{int32(2), int64(2)},
		[]any{int32(3), int64(3)}, []any{int32(9), int64(9)}, []any{int32(10), int64(10)})
	slices.Sort(want)
	if !slices.Equal(got, want) {
		t.Fatalf("rows = %v, want %v", got, want)
	}
}
