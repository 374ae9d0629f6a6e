package snapshot_test

import (
	"context"
	"fmt"
	"log"

	"github.com/paimon-go/paimon/fileio"
	"github.com/paimon-go/paimon/snapshot"
)

// Lists the snapshots of a table written by paimon-cpp and reads the
// latest one: its id, commit kind and schema.
func Example() {
	ctx := context.Background()
	fio, err := fileio.Open(ctx, "../testdata/paimon-tables/pk_table_scan_and_read_mor_parquet")
	if err != nil {
		log.Fatal(err)
	}
	defer fio.Close()
	sm := snapshot.NewManager(fio)
	ids, err := sm.IDs(ctx)
	if err != nil {
		log.Fatal(err)
	}
	latest, err := sm.Latest(ctx)
	if err != nil {
		log.Fatal(err)
	}
	fmt.Println("snapshots", ids)
	fmt.Println("latest", latest.ID, latest.CommitKind, "schema", latest.SchemaID)
	// Output:
	// snapshots [1 2 3 4 5]
	// latest 5 APPEND schema 0
}
