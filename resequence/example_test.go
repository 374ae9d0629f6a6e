package resequence_test

import (
	"context"
	"fmt"
	"log"
	"os"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"
	"github.com/apache/arrow-go/v18/arrow/memory"

	"github.com/paimon-go/paimon/catalog"
	"github.com/paimon-go/paimon/resequence"
	"github.com/paimon-go/paimon/types"
	"github.com/paimon-go/paimon/writer"
)

// When another writer committed to a bucket first, the committer copies a
// commit's level-0 files with their sequence numbers raised above the
// bucket's, so its rows still win: Shift makes such a copy.
func ExampleRewriter_Shift() {
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
	w, err := writer.New(tbl.FileIO, tbl.Schema, "app")
	if err != nil {
		log.Fatal(err)
	}
	defer w.Close()
	b := array.NewRecordBuilder(memory.DefaultAllocator, arrow.NewSchema([]arrow.Field{
		{Name: "k", Type: arrow.PrimitiveTypes.Int32}, {Name: "v", Type: arrow.BinaryTypes.String, Nullable: true}}, nil))
	b.Field(0).(*array.Int32Builder).AppendValues([]int32{1, 2, 3}, nil)
	b.Field(1).(*array.StringBuilder).AppendValues([]string{"a", "b", "c"}, nil)
	rec := b.NewRecordBatch()
	b.Release()
	defer rec.Release()
	if err := w.Write(ctx, rec); err != nil {
		log.Fatal(err)
	}
	msgs, err := w.PrepareCommit(ctx)
	if err != nil {
		log.Fatal(err)
	}
	f := msgs[0].Data.NewFiles[0]

	rw, err := resequence.New(tbl.FileIO, tbl.Schema)
	if err != nil {
		log.Fatal(err)
	}
	bucketDir, err := rw.BucketDir(msgs[0].Partition, msgs[0].Bucket)
	if err != nil {
		log.Fatal(err)
	}
	out, err := rw.Shift(ctx, bucketDir, f, 100)
	if err != nil {
		log.Fatal(err)
	}
	fmt.Printf("%s: level %d, %d rows, sequence numbers %d..%d\n", bucketDir, f.Level, f.RowCount, f.MinSequenceNumber, f.MaxSequenceNumber)
	for _, c := range out {
		fmt.Printf("copy: level %d, %d rows, sequence numbers %d..%d, new name %v\n", c.Level, c.RowCount, c.MinSequenceNumber, c.MaxSequenceNumber, c.FileName != f.FileName)
	}
	// Output:
	// bucket-0: level 0, 3 rows, sequence numbers 0..2
	// copy: level 0, 3 rows, sequence numbers 100..102, new name true
}
