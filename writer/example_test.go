package writer_test

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
	"github.com/paimon-go/paimon/reader"
	"github.com/paimon-go/paimon/types"
	"github.com/paimon-go/paimon/writer"
)

// Writes an Arrow batch into a primary-key table and commits it: Write,
// PrepareCommit (data files and commit messages), then commit.Committer
// publishes the snapshot. An upsert of key 2 in the second commit replaces
// its row.
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
		Options:     map[string]string{"bucket": "1"},
	}, false); err != nil {
		log.Fatal(err)
	}
	tbl, err := cat.GetTable(ctx, id)
	if err != nil {
		log.Fatal(err)
	}
	cm, err := commit.New(tbl.FileIO, tbl.Schema, "example")
	if err != nil {
		log.Fatal(err)
	}
	defer cm.Close()
	for i, rows := range [][]string{{"a", "b"}, {"", "B"}} {
		w, err := writer.New(tbl.FileIO, tbl.Schema, "example")
		if err != nil {
			log.Fatal(err)
		}
		rec := batch(rows)
		if err := w.Write(ctx, rec); err != nil {
			log.Fatal(err)
		}
		rec.Release()
		msgs, err := w.PrepareCommit(ctx)
		if err != nil {
			log.Fatal(err)
		}
		snap, err := cm.Commit(ctx, int64(i+1), msgs)
		if err != nil {
			log.Fatal(err)
		}
		w.Close()
		fmt.Printf("commit %d: snapshot %d, %d commit message(s)\n", i+1, snap, len(msgs))
	}
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
	// Output:
	// commit 1: snapshot 1, 1 commit message(s)
	// commit 2: snapshot 2, 1 commit message(s)
	// 1 a
	// 2 B
}

// batch returns rows (k = 1, 2, ..., v) where an empty v skips the key.
func batch(vs []string) arrow.RecordBatch {
	b := array.NewRecordBuilder(memory.DefaultAllocator, arrow.NewSchema([]arrow.Field{
		{Name: "k", Type: arrow.PrimitiveTypes.Int32}, {Name: "v", Type: arrow.BinaryTypes.String, Nullable: true}}, nil))
	defer b.Release()
	for i, v := range vs {
		if v == "" {
			continue
		}
		b.Field(0).(*array.Int32Builder).Append(int32(i + 1))
		b.Field(1).(*array.StringBuilder).Append(v)
	}
	return b.NewRecordBatch()
}
