package paimon_test

import (
	"context"
	"fmt"
	"log"

	"github.com/paimon-go/paimon"
	"github.com/paimon-go/paimon/reader"
)

// Reads a primary-key table written by Java Paimon: the latest snapshot,
// merged on read across LSM levels, filtered and projected.
func Example() {
	ctx := context.Background()
	table, err := paimon.OpenTable(ctx, "testdata/paimon-tables/pk_table_scan_and_read_mor_parquet")
	if err != nil {
		log.Fatal(err)
	}
	defer table.Close()
	plan, err := table.NewScan(reader.WithWhere("f1 = 20"), reader.WithColumns("f0", "f3")).Plan(ctx)
	if err != nil {
		log.Fatal(err)
	}
	for rec, err := range plan.Records(ctx) {
		if err != nil {
			log.Fatal(err)
		}
		for i := range int(rec.NumRows()) {
			fmt.Println(rec.Column(0).ValueStr(i), rec.Column(1).ValueStr(i))
		}
		rec.Release()
	}
	// Output:
	// Lucy 14.1
	// Paul 18.1
}
