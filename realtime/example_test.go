package realtime_test

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

// Rows written through a real-time context are visible to lookups (and
// union scans) as soon as Write returns, before any commit; a commit rolls
// them into data files and records the progress in the snapshot.
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
	rc, err := realtime.NewContext(tbl.FileIO, tbl.Schema, memindexer.Factory{})
	if err != nil {
		log.Fatal(err)
	}
	defer rc.Close()
	w, err := rc.NewWrite("example")
	if err != nil {
		log.Fatal(err)
	}
	defer w.Close()
	cm, err := rc.NewCommit("example")
	if err != nil {
		log.Fatal(err)
	}
	defer cm.Close()

	sc := arrow.NewSchema([]arrow.Field{{Name: "k", Type: arrow.PrimitiveTypes.Int32}, {Name: "v", Type: arrow.BinaryTypes.String, Nullable: true}}, nil)
	b := array.NewRecordBuilder(memory.DefaultAllocator, sc)
	b.Field(0).(*array.Int32Builder).AppendValues([]int32{1, 2}, nil)
	b.Field(1).(*array.StringBuilder).AppendValues([]string{"one", "two"}, nil)
	rows := b.NewRecordBatch()
	b.Release()
	if err := w.Write(ctx, rows); err != nil {
		log.Fatal(err)
	}
	rows.Release()

	lookup := func(when string) {
		kb := array.NewRecordBuilder(memory.DefaultAllocator, arrow.NewSchema(sc.Fields()[:1], nil))
		kb.Field(0).(*array.Int32Builder).Append(2)
		keys := kb.NewRecordBatch()
		kb.Release()
		defer keys.Release()
		got, err := rc.Lookup(ctx, keys)
		if err != nil {
			log.Fatal(err)
		}
		defer got.Release()
		fmt.Println(when+":", got.Column(0).ValueStr(0), got.Column(1).ValueStr(0))
	}
	lookup("before the commit")
	prog, err := w.PrepareCommitWithProgress(ctx, 1)
	if err != nil {
		log.Fatal(err)
	}
	snap, err := cm.CommitWithProgress(ctx, prog, 1, nil)
	if err != nil {
		log.Fatal(err)
	}
	if err := rc.RefreshCommittedSnapshot(ctx, snap); err != nil {
		log.Fatal(err)
	}
	fmt.Println("committed snapshot", snap)
	lookup("after the commit")
	// Output:
	// before the commit: 2 two
	// committed snapshot 1
	// after the commit: 2 two
}
