package memindexer_test

import (
	"context"
	"fmt"
	"log"
	"os"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"
	"github.com/apache/arrow-go/v18/arrow/memory"

	"github.com/paimon-go/paimon/catalog"
	"github.com/paimon-go/paimon/memindexer"
	"github.com/paimon-go/paimon/realtime"
	"github.com/paimon-go/paimon/types"
)

// The Factory is the store a real-time context keeps rows in: written
// rows sit in a building segment, PrepareCommitWithProgress seals them
// into files, and once the commit's snapshot is refreshed the store
// reclaims them.
func ExampleFactory() {
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
		Options:     map[string]string{"bucket": "1", "realtime.enabled": "true"},
	}, false); err != nil {
		log.Fatal(err)
	}
	tbl, err := cat.GetTable(ctx, id)
	if err != nil {
		log.Fatal(err)
	}
	rc, err := realtime.NewContext(tbl.FileIO, tbl.Schema, memindexer.Factory{CompactRatio: memindexer.DefaultCompactRatio})
	if err != nil {
		log.Fatal(err)
	}
	defer rc.Close()
	w, err := rc.NewWrite("app")
	if err != nil {
		log.Fatal(err)
	}
	defer w.Close()
	cm, err := rc.NewCommit("app")
	if err != nil {
		log.Fatal(err)
	}
	defer cm.Close()

	b := array.NewRecordBuilder(memory.DefaultAllocator, arrow.NewSchema([]arrow.Field{
		{Name: "k", Type: arrow.PrimitiveTypes.Int32}, {Name: "v", Type: arrow.BinaryTypes.String, Nullable: true}}, nil))
	b.Field(0).(*array.Int32Builder).AppendValues([]int32{1, 2, 3}, nil)
	b.Field(1).(*array.StringBuilder).AppendValues([]string{"a", "b", "c"}, nil)
	rows := b.NewRecordBatch()
	b.Release()
	if err := w.Write(ctx, rows); err != nil {
		log.Fatal(err)
	}
	rows.Release()
	u := rc.Usage()
	fmt.Printf("after Write: %d rows building, %d sealed\n", u.BuildingRows, u.SealedRows)

	prog, err := w.PrepareCommitWithProgress(ctx, 1)
	if err != nil {
		log.Fatal(err)
	}
	u = rc.Usage()
	fmt.Printf("after prepare: %d rows building, %d sealed\n", u.BuildingRows, u.SealedRows)
	snap, err := cm.CommitWithProgress(ctx, prog, 1, nil)
	if err != nil {
		log.Fatal(err)
	}
	if err := rc.RefreshCommittedSnapshot(ctx, snap); err != nil {
		log.Fatal(err)
	}
	u = rc.Usage()
	fmt.Printf("after snapshot %d: %d rows building, %d sealed\n", snap, u.BuildingRows, u.SealedRows)
	// Output:
	// after Write: 3 rows building, 0 sealed
	// after prepare: 0 rows building, 3 sealed
	// after snapshot 1: 0 rows building, 0 sealed
}
