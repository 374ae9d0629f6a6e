package tag_test

import (
	"context"
	"fmt"
	"log"
	"os"

	"github.com/paimon-go/paimon/fileio"
	"github.com/paimon-go/paimon/schema"
	"github.com/paimon-go/paimon/tag"
)

// Copies a table written by paimon-cpp, tags two of its snapshots and lists
// the tags (tag/tag-<name>, Java's tag files). A tag keeps its snapshot's
// files through expiration and can be read with reader.WithTag.
func Example() {
	ctx := context.Background()
	dir, err := os.MkdirTemp("", "table")
	if err != nil {
		log.Fatal(err)
	}
	defer os.RemoveAll(dir)
	if err := os.CopyFS(dir, os.DirFS("../testdata/paimon-tables/pk_table_scan_and_read_mor_parquet")); err != nil {
		log.Fatal(err)
	}
	fio, err := fileio.Open(ctx, dir)
	if err != nil {
		log.Fatal(err)
	}
	defer fio.Close()
	ts, err := schema.NewManager(fio, "").Latest(ctx)
	if err != nil {
		log.Fatal(err)
	}
	for name, id := range map[string]int64{"first": 1, "nightly": 0} { // 0: the latest snapshot
		if _, err := tag.Create(ctx, fio, ts, name, id, tag.CreateOptions{}); err != nil {
			log.Fatal(err)
		}
	}
	tags, err := tag.List(ctx, fio, "")
	if err != nil {
		log.Fatal(err)
	}
	for _, t := range tags {
		fmt.Println(t.Name, "->", t.ID)
	}
	// Output:
	// first -> 1
	// nightly -> 5
}
