package compaction_test

import (
	"context"
	"fmt"
	"log"
	"os"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"
	"github.com/apache/arrow-go/v18/arrow/memory"

	"github.com/paimon-go/paimon/catalog"
	"github.com/paimon-go/paimon/commit"
	"github.com/paimon-go/paimon/compaction"
	"github.com/paimon-go/paimon/reader"
	"github.com/paimon-go/paimon/types"
	"github.com/paimon-go/paimon/writer"
)

// Three commits of a write-only primary-key table leave three level-0
// files; a full compaction (paimon compact --full) merges them into one
// file at the top level in a COMPACT snapshot, and the rows read the same.
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
		Fields:      []types.DataField{types.Field(0, "k", types.Int().NotNull()), types.Field(1, "n", types.BigInt())},
		PrimaryKeys: []string{"k"},
		Options:     map[string]string{"bucket": "1", "write-only": "true"},
	}, false); err != nil {
		log.Fatal(err)
	}
	tbl, err := cat.GetTable(ctx, id)
	if err != nil {
		log.Fatal(err)
	}
	cm, err := commit.New(tbl.FileIO, tbl.Schema, "example")
	if err != nil {
		log.Fatal(err)
	}
	defer cm.Close()
	sc := arrow.NewSchema([]arrow.Field{{Name: "k", Type: arrow.PrimitiveTypes.Int32}, {Name: "n", Type: arrow.PrimitiveTypes.Int64, Nullable: true}}, nil)
	for c := range 3 {
		b := array.NewRecordBuilder(memory.DefaultAllocator, sc)
		b.Field(0).(*array.Int32Builder).AppendValues([]int32{1, int32(c + 2)}, nil)
		b.Field(1).(*array.Int64Builder).AppendValues([]int64{int64(c), int64(c)}, nil)
		rec := b.NewRecordBatch()
		b.Release()
		w, err := writer.New(tbl.FileIO, tbl.Schema, "example")
		if err != nil {
			log.Fatal(err)
		}
		if err := w.Write(ctx, rec); err != nil {
			log.Fatal(err)
		}
		rec.Release()
		msgs, err := w.PrepareCommit(ctx)
		if err != nil {
			log.Fatal(err)
		}
		if _, err := cm.Commit(ctx, int64(c+1), msgs); err != nil {
			log.Fatal(err)
		}
		w.Close()
	}
	show := func(when string) {
		p, err := reader.NewScan(tbl.FileIO).Plan(ctx)
		if err != nil {
			log.Fatal(err)
		}
		var levels []int32
		for _, f := range p.Splits[0].Files {
			levels = append(levels, f.Level)
		}
		rows, err := reader.Concat(p.Records(ctx), p.ArrowSchema(), nil)
		if err != nil {
			log.Fatal(err)
		}
		defer rows.Release()
		fmt.Println(when, "snapshot", p.Snapshot.ID, p.Snapshot.CommitKind, "file levels", levels, "rows", rows.NumRows())
	}
	show("before:")
	if _, err := compaction.Compact(ctx, tbl.FileIO, tbl.Schema, "example", compaction.Options{Full: true}); err != nil {
		log.Fatal(err)
	}
	show("after: ")
	// Output:
	// before: snapshot 3 APPEND file levels [0 0 0] rows 4
	// after:  snapshot 4 COMPACT file levels [5] rows 4
}
