package expire_test

import (
	"context"
	"fmt"
	"log"
	"os"
	"path/filepath"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"
	"github.com/apache/arrow-go/v18/arrow/memory"

	"github.com/paimon-go/paimon"
	"github.com/paimon-go/paimon/catalog"
	"github.com/paimon-go/paimon/expire"
	"github.com/paimon-go/paimon/reader"
	"github.com/paimon-go/paimon/tag"
	"github.com/paimon-go/paimon/types"
)

// Three commits upsert one key; snapshot 1 is tagged; expiring all but the
// latest snapshot deletes snapshots 1 and 2 but keeps the files the tag
// needs, so the tag still reads the first value.
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
		Fields:      []types.DataField{types.Field(0, "k", types.Int().NotNull()), types.Field(1, "v", types.BigInt())},
		PrimaryKeys: []string{"k"},
		Options:     map[string]string{"bucket": "1", "write-only": "true"}, // no expiration on commit
	}, false); err != nil {
		log.Fatal(err)
	}
	table, err := paimon.OpenTable(ctx, filepath.Join(dir, catalog.TablePath(id)))
	if err != nil {
		log.Fatal(err)
	}
	defer table.Close()
	for v := range int64(3) {
		upsert(ctx, table, v+1, 10*(v+1))
	}
	if _, err := tag.Create(ctx, table.FileIO(), table.Schema(), "first", 1, tag.CreateOptions{}); err != nil {
		log.Fatal(err)
	}
	res, err := expire.Expire(ctx, table.FileIO(), table.Schema(), expire.Options{RetainMin: 1, RetainMax: 1})
	if err != nil {
		log.Fatal(err)
	}
	fmt.Println("expired", res.Expired, "earliest", res.Earliest)
	for _, opt := range []reader.Option{reader.WithTag("first"), reader.WithSnapshot(3)} {
		plan, err := table.NewScan(opt).Plan(ctx)
		if err != nil {
			log.Fatal(err)
		}
		for rec, err := range plan.Records(ctx) {
			if err != nil {
				log.Fatal(err)
			}
			fmt.Println("snapshot", plan.Snapshot.ID, "row", rec.Column(0).ValueStr(0), rec.Column(1).ValueStr(0))
			rec.Release()
		}
	}
	// Output:
	// expired [1 2] earliest 3
	// snapshot 1 row 1 10
	// snapshot 3 row 1 30
}

// upsert commits the row (1, v) as commit identifier ident.
func upsert(ctx context.Context, table *paimon.Table, ident, v int64) {
	b := array.NewRecordBuilder(memory.DefaultAllocator, arrow.NewSchema([]arrow.Field{
		{Name: "k", Type: arrow.PrimitiveTypes.Int32}, {Name: "v", Type: arrow.PrimitiveTypes.Int64, Nullable: true}}, nil))
	b.Field(0).(*array.Int32Builder).Append(1)
	b.Field(1).(*array.Int64Builder).Append(v)
	rec := b.NewRecordBatch()
	b.Release()
	defer rec.Release()
	w, err := table.NewWrite("example")
	if err != nil {
		log.Fatal(err)
	}
	defer w.Close()
	if err := w.Write(ctx, rec); err != nil {
		log.Fatal(err)
	}
	msgs, err := w.PrepareCommit(ctx)
	if err != nil {
		log.Fatal(err)
	}
	c, err := table.NewCommit("example")
	if err != nil {
		log.Fatal(err)
	}
	defer c.Close()
	if _, err := c.Commit(ctx, ident, msgs); err != nil {
		log.Fatal(err)
	}
}
