package maintain_test

import (
	"context"
	"fmt"
	"log"
	"os"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"
	"github.com/apache/arrow-go/v18/arrow/memory"

	"github.com/paimon-go/paimon/catalog"
	"github.com/paimon-go/paimon/commit"
	"github.com/paimon-go/paimon/maintain"
	"github.com/paimon-go/paimon/snapshot"
	"github.com/paimon-go/paimon/types"
	"github.com/paimon-go/paimon/writer"
)

// A Maintainer installed on a committer expires snapshots after every
// commit by the table's options, as Java's TableCommitImpl does: with
// snapshot.num-retained.max = 2, five commits (the fifth also compacts the
// five small files: a sixth snapshot) leave snapshots 5 and 6.
func Example() {
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
	id := catalog.NewIdentifier("db", "events")
	if err := cat.CreateTable(ctx, id, catalog.Schema{
		Fields:  []types.DataField{types.Field(0, "n", types.BigInt())},
		Options: map[string]string{"bucket": "1", "bucket-key": "n", "snapshot.num-retained.min": "1", "snapshot.num-retained.max": "2"},
	}, false); err != nil {
		log.Fatal(err)
	}
	tbl, err := cat.GetTable(ctx, id)
	if err != nil {
		log.Fatal(err)
	}
	m, err := maintain.New(tbl.FileIO, tbl.Schema, "app", maintain.Options{})
	if err != nil {
		log.Fatal(err)
	}
	c, err := commit.New(tbl.FileIO, tbl.Schema, "app", commit.WithMaintainer(m))
	if err != nil {
		log.Fatal(err)
	}
	for i := range int64(5) {
		w, err := writer.New(tbl.FileIO, tbl.Schema, "app")
		if err != nil {
			log.Fatal(err)
		}
		b := array.NewRecordBuilder(memory.DefaultAllocator, arrow.NewSchema([]arrow.Field{{Name: "n", Type: arrow.PrimitiveTypes.Int64, Nullable: true}}, nil))
		b.Field(0).(*array.Int64Builder).Append(i)
		rec := b.NewRecordBatch()
		b.Release()
		err = w.Write(ctx, rec)
		rec.Release()
		if err != nil {
			log.Fatal(err)
		}
		msgs, err := w.PrepareCommit(ctx)
		if err != nil {
			log.Fatal(err)
		}
		w.Close()
		if _, err := c.Commit(ctx, i+1, msgs); err != nil {
			log.Fatal(err)
		}
	}
	if err := c.Close(); err != nil { // waits for the maintenance of the last commit
		log.Fatal(err)
	}
	sm := snapshot.NewManager(tbl.FileIO)
	earliest, _ := sm.EarliestID(ctx)
	latest, _ := sm.LatestID(ctx)
	st := m.Stats()
	fmt.Printf("snapshots %d..%d; %d expired, %d errors\n", earliest, latest, st.SnapshotsExpired, st.Errors)
	// Output:
	// snapshots 5..6; 4 expired, 0 errors
}
