package catalog_test

import (
	"context"
	"fmt"
	"log"
	"os"

	"github.com/paimon-go/paimon/catalog"
	"github.com/paimon-go/paimon/types"
)

// Creates a warehouse on local disk with a database and a partitioned
// primary-key table, adds a column, and lists what it holds.
func Example() {
	ctx := context.Background()
	dir, err := os.MkdirTemp("", "warehouse")
	if err != nil {
		log.Fatal(err)
	}
	defer os.RemoveAll(dir)

	cat, err := catalog.Open(ctx, dir) // also s3://bucket/wh?endpoint=..., gs://bucket/wh (import fileio/gcs)
	if err != nil {
		log.Fatal(err)
	}
	defer cat.Close()
	if err := cat.CreateDatabase(ctx, "shop", false); err != nil {
		log.Fatal(err)
	}
	id := catalog.NewIdentifier("shop", "orders")
	err = cat.CreateTable(ctx, id, catalog.Schema{
		Fields: []types.DataField{
			types.Field(0, "id", types.BigInt().NotNull()),
			types.Field(1, "dt", types.String().NotNull()),
			types.Field(2, "amount", types.Double()),
		},
		PartitionKeys: []string{"dt"},
		PrimaryKeys:   []string{"id", "dt"},
		Options:       map[string]string{"bucket": "4"},
	}, false)
	if err != nil {
		log.Fatal(err)
	}
	ts, err := cat.AlterTable(ctx, id, catalog.AddColumn{Name: "note", Type: types.String()})
	if err != nil {
		log.Fatal(err)
	}
	tables, err := cat.ListTables(ctx, "shop")
	if err != nil {
		log.Fatal(err)
	}
	fmt.Println(tables, catalog.TablePath(id))
	fmt.Println("schema", ts.ID, ts.FieldNames(), "primary key", ts.PrimaryKeys)
	// Output:
	// [orders] shop.db/orders
	// schema 1 [id dt amount note] primary key [id dt]
}
