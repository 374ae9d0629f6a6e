package fileio_test

import (
	"context"
	"errors"
	"fmt"
	"log"
	"os"

	"github.com/paimon-go/paimon/fileio"
)

// A table inside a warehouse, committing snapshots with CreateIfAbsent.
func Example() {
	ctx := context.Background()
	dir, err := os.MkdirTemp("", "fileio-example-")
	if err != nil {
		log.Fatal(err)
	}
	defer os.RemoveAll(dir)

	warehouse, err := fileio.Open(ctx, "file://"+dir) // or s3://bucket/warehouse?...
	if err != nil {
		log.Fatal(err)
	}
	defer warehouse.Close()
	table := warehouse.Sub("default.db/orders")

	if err := table.WriteFile(ctx, "schema/schema-0", []byte(`{"id":0}`)); err != nil {
		log.Fatal(err)
	}
	// Two committers race for snapshot 1; exactly one wins.
	err = table.CreateIfAbsent(ctx, "snapshot/snapshot-1", []byte(`{"id":1,"commitUser":"a"}`))
	fmt.Println("a commits:", err)
	err = table.CreateIfAbsent(ctx, "snapshot/snapshot-1", []byte(`{"id":1,"commitUser":"b"}`))
	fmt.Println("b finds snapshot-1 taken:", errors.Is(err, fileio.ErrExist))

	_, err = table.ReadFile(ctx, "snapshot/snapshot-2")
	fmt.Println("snapshot-2 does not exist:", errors.Is(err, fileio.ErrNotExist))

	infos, err := warehouse.ListRecursive(ctx, "default.db")
	if err != nil {
		log.Fatal(err)
	}
	for _, fi := range infos {
		fmt.Println(fi.Path, fi.Size)
	}
	// Output:
	// a commits: <nil>
	// b finds snapshot-1 taken: true
	// snapshot-2 does not exist: true
	// default.db/orders/schema/schema-0 8
	// default.db/orders/snapshot/snapshot-1 25
}
