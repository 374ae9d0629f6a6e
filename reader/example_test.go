package reader_test

import (
	"context"
	"fmt"
	"log"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"
	"github.com/apache/arrow-go/v18/arrow/memory"

	"github.com/paimon-go/paimon/fileio"
	"github.com/paimon-go/paimon/reader"
)

// Plans a filtered scan of a primary-key table written by paimon-cpp (only
// the partition f1 = 20 is read), then looks one primary key up: only its
// bucket and the files whose key range holds it are read.
func Example() {
	ctx := context.Background()
	fio, err := fileio.Open(ctx, "../testdata/paimon-tables/pk_table_scan_and_read_mor_parquet")
	if err != nil {
		log.Fatal(err)
	}
	defer fio.Close()
	plan, err := reader.NewScan(fio, reader.WithWhere("f1 = 20"), reader.WithColumns("f0", "f3")).Plan(ctx)
	if err != nil {
		log.Fatal(err)
	}
	fmt.Println("snapshot", plan.Snapshot.ID, "splits", len(plan.Splits))
	for rec, err := range plan.Records(ctx) {
		if err != nil {
			log.Fatal(err)
		}
		for i := range int(rec.NumRows()) {
			fmt.Println(rec.Column(0).ValueStr(i), rec.Column(1).ValueStr(i))
		}
		rec.Release()
	}

	b := array.NewRecordBuilder(memory.DefaultAllocator, arrow.NewSchema([]arrow.Field{
		{Name: "f0", Type: arrow.BinaryTypes.String}, {Name: "f1", Type: arrow.PrimitiveTypes.Int32}, {Name: "f2", Type: arrow.PrimitiveTypes.Int32}}, nil))
	b.Field(0).(*array.StringBuilder).Append("Paul")
	b.Field(1).(*array.Int32Builder).Append(20)
	b.Field(2).(*array.Int32Builder).Append(1)
	keys := b.NewRecordBatch()
	b.Release()
	defer keys.Release()
	row, err := reader.NewScan(fio, reader.WithColumns("f0", "f3")).Lookup(ctx, keys)
	if err != nil {
		log.Fatal(err)
	}
	defer row.Release()
	fmt.Println("lookup:", row.Column(0).ValueStr(0), row.Column(1).ValueStr(0))
	// Output:
	// snapshot 5 splits 1
	// Lucy 14.1
	// Paul 18.1
	// lookup: Paul 18.1
}
