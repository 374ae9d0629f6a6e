package orphan_test

import (
	"context"
	"fmt"
	"log"
	"os"
	"path/filepath"
	"time"

	"github.com/paimon-go/paimon/catalog"
	"github.com/paimon-go/paimon/fileio"
	"github.com/paimon-go/paimon/orphan"
	"github.com/paimon-go/paimon/types"
)

// A writer that died before committing left a data file no snapshot names.
// Clean removes files older than the threshold that no snapshot, tag or
// branch references (the threshold keeps files of commits in progress).
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
	id := catalog.NewIdentifier("db", "t")
	if err := cat.CreateTable(ctx, id, catalog.Schema{Fields: []types.DataField{types.Field(0, "a", types.Int())}}, false); err != nil {
		log.Fatal(err)
	}
	fio, err := fileio.Open(ctx, filepath.Join(dir, catalog.TablePath(id)))
	if err != nil {
		log.Fatal(err)
	}
	defer fio.Close()
	if err := fio.WriteFile(ctx, "bucket-0/data-lost-0.parquet", []byte("never committed")); err != nil {
		log.Fatal(err)
	}
	// Measured two hours on, the file is older than the one-hour threshold.
	res, err := orphan.Clean(ctx, fio, time.Hour, orphan.Options{Now: time.Now().Add(2 * time.Hour)})
	if err != nil {
		log.Fatal(err)
	}
	fmt.Println(res.Deleted, res.Bytes)
	// Output:
	// [bucket-0/data-lost-0.parquet] 15
}
