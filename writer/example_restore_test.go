package writer_test

import (
	"context"
	"errors"
	"fmt"
	"log"
	"os"

	"github.com/apache/arrow-go/v18/arrow"

	"github.com/paimon-go/paimon/catalog"
	"github.com/paimon-go/paimon/commit"
	"github.com/paimon-go/paimon/expire"
	"github.com/paimon-go/paimon/reader"
	"github.com/paimon-go/paimon/types"
	"github.com/paimon-go/paimon/writer"
)

// writeAndCommit writes rec with the long-lived Write w and commits it as
// identifier id. When the Write went stale (writer.ErrStale: files its
// buckets carry were deleted under it, by a rollback, or by another job's
// compaction followed by snapshot expiration) or the commit conflicted
// (commit.ErrConflict: nothing was published), it restores w from the
// latest snapshot and writes rec again, up to three tries. Restore drops
// the rows written since the last PrepareCommit, so the caller must still
// hold them, as rec is held here.
func writeAndCommit(ctx context.Context, w *writer.Write, c *commit.Committer, id int64, rec arrow.RecordBatch) (int64, error) {
	for try := 1; ; try++ {
		snap, err := func() (int64, error) {
			if err := w.Write(ctx, rec); err != nil {
				return 0, err
			}
			msgs, err := w.PrepareCommit(ctx)
			if err != nil {
				return 0, err
			}
			return c.Commit(ctx, id, msgs)
		}()
		if err == nil || try == 3 || !(errors.Is(err, writer.ErrStale) || errors.Is(err, commit.ErrConflict)) {
			return snap, err
		}
		fmt.Printf("commit %d, try %d: stale=%v conflict=%v; restoring\n", id, try,
			errors.Is(err, writer.ErrStale), errors.Is(err, commit.ErrConflict))
		if err := w.Restore(ctx); err != nil {
			return 0, err
		}
	}
}

// A service keeps one Write for its lifetime and commits every batch. When
// the table changes under it (here a rollback to snapshot 1 that deletes
// the files of later snapshots; with several writers, another writer's
// compaction and an expiration do the same), its next write fails with
// writer.ErrStale, and writeAndCommit restores the Write and writes the
// batch again.
func ExampleWrite_Restore() {
	ctx := context.Background()
	dir, err := os.MkdirTemp("", "warehouse")
	if err != nil {
		log.Fatal(err)
	}
	defer os.RemoveAll(dir)
	cat, err := catalog.Open(ctx, dir)
	if err != nil {
		log.Fatal(err)
	}
	defer cat.Close()
	if err := cat.CreateDatabase(ctx, "db", false); err != nil {
		log.Fatal(err)
	}
	id := catalog.NewIdentifier("db", "kv")
	if err := cat.CreateTable(ctx, id, catalog.Schema{
		Fields:      []types.DataField{types.Field(0, "k", types.Int().NotNull()), types.Field(1, "v", types.String())},
		PrimaryKeys: []string{"k"},
		// Compact at every second sorted run, so the Write's levels hold
		// the files of its earlier commits.
		Options: map[string]string{"bucket": "1", "num-sorted-run.compaction-trigger": "2"},
	}, false); err != nil {
		log.Fatal(err)
	}
	tbl, err := cat.GetTable(ctx, id)
	if err != nil {
		log.Fatal(err)
	}
	w, err := writer.New(tbl.FileIO, tbl.Schema, "service")
	if err != nil {
		log.Fatal(err)
	}
	defer w.Close()
	c, err := commit.New(tbl.FileIO, tbl.Schema, "service")
	if err != nil {
		log.Fatal(err)
	}
	defer c.Close()
	for i, rows := range [][]string{{"a", "b"}, {"", "B", "c"}, {"A"}} {
		rec := batch(rows)
		snap, err := writeAndCommit(ctx, w, c, int64(i+1), rec)
		rec.Release()
		if err != nil {
			log.Fatal(err)
		}
		fmt.Printf("commit %d: snapshot %d\n", i+1, snap)
	}
	if _, err := expire.Rollback(ctx, tbl.FileIO, tbl.Schema, expire.Target{Snapshot: 1}, expire.RollbackOptions{DeleteFiles: true}); err != nil {
		log.Fatal(err)
	}
	rec := batch([]string{"", "", "", "d"})
	snap, err := writeAndCommit(ctx, w, c, 4, rec)
	rec.Release()
	if err != nil {
		log.Fatal(err)
	}
	fmt.Printf("commit 4: snapshot %d\n", snap)
	plan, err := reader.NewScan(tbl.FileIO).Plan(ctx)
	if err != nil {
		log.Fatal(err)
	}
	for rec, err := range plan.Records(ctx) {
		if err != nil {
			log.Fatal(err)
		}
		for r := range int(rec.NumRows()) {
			fmt.Println(rec.Column(0).ValueStr(r), rec.Column(1).ValueStr(r))
		}
		rec.Release()
	}
	// Commit 2 compacts: its APPEND snapshot 2 is followed by its COMPACT
	// snapshot 3, and Commit returns the last. After the rollback the
	// table holds snapshot 1's rows and the batch written again.

	// Output:
	// commit 1: snapshot 1
	// commit 2: snapshot 3
	// commit 3: snapshot 4
	// commit 4, try 1: stale=true conflict=false; restoring
	// commit 4: snapshot 2
	// 1 a
	// 2 b
	// 4 d
}
