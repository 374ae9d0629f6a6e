package schema_test

import (
	"context"
	"fmt"
	"log"

	"github.com/paimon-go/paimon/fileio"
	"github.com/paimon-go/paimon/schema"
)

// Reads the latest schema of a table written by paimon-cpp and its typed
// options, with Java's defaults for options the table does not set.
func Example() {
	ctx := context.Background()
	fio, err := fileio.Open(ctx, "../testdata/paimon-tables/pk_table_scan_and_read_mor_parquet")
	if err != nil {
		log.Fatal(err)
	}
	defer fio.Close()
	ts, err := schema.NewManager(fio, "").Latest(ctx)
	if err != nil {
		log.Fatal(err)
	}
	buckets, err := ts.Options.Bucket()
	if err != nil {
		log.Fatal(err)
	}
	engine, err := ts.Options.MergeEngine()
	if err != nil {
		log.Fatal(err)
	}
	cache, err := ts.Options.LookupCacheMaxMemorySize()
	if err != nil {
		log.Fatal(err)
	}
	fmt.Println("schema", ts.ID, ts.FieldNames(), "primary key", ts.PrimaryKeys, "partitions", ts.PartitionKeys)
	fmt.Println("bucket", buckets, "bucket key", ts.Options.BucketKey(), "merge engine", engine, "lookup cache", cache>>20, "MiB")
	// Output:
	// schema 0 [f0 f1 f2 f3] primary key [f0 f1 f2] partitions [f1]
	// bucket 2 bucket key [f2] merge engine deduplicate lookup cache 256 MiB
}
