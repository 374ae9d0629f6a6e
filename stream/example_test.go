package stream_test

import (
	"context"
	"fmt"
	"log"
	"os"
	"path/filepath"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"
	"github.com/apache/arrow-go/v18/arrow/memory"

	"github.com/paimon-go/paimon"
	"github.com/paimon-go/paimon/catalog"
	"github.com/paimon-go/paimon/stream"
	"github.com/paimon-go/paimon/types"
)

// Follows an append table as a stream (scan.mode = latest-full): the
// latest snapshot whole, then each new snapshot's rows as it is committed.
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
	id := catalog.NewIdentifier("db", "events")
	if err := cat.CreateTable(ctx, id, catalog.Schema{Fields: []types.DataField{types.Field(0, "e", types.String())}}, false); err != nil {
		log.Fatal(err)
	}
	table, err := paimon.OpenTable(ctx, filepath.Join(dir, catalog.TablePath(id)))
	if err != nil {
		log.Fatal(err)
	}
	defer table.Close()
	appendRows(ctx, table, 1, "start", "login")

	f := stream.New(table.FileIO(), table.Schema(), &stream.ReaderSource{FIO: table.FileIO(), Table: table.Schema()},
		stream.Options{Mode: stream.ModeLatestFull})
	show := func() {
		s, err := f.Next(ctx)
		if err != nil {
			log.Fatal(err)
		}
		defer s.Release()
		var rows []string
		for _, b := range s.Batches {
			for i := range int(b.NumRows()) {
				// The row kind, then the table's columns.
				rows = append(rows, b.Column(0).ValueStr(i)+" "+b.Column(1).ValueStr(i))
			}
		}
		fmt.Println("snapshot", s.ID, "full", s.Full, rows)
	}
	show()
	appendRows(ctx, table, 2, "click")
	show()
	// Output:
	// snapshot 1 full true [+I start +I login]
	// snapshot 2 full false [+I click]
}

// appendRows commits rows as commit identifier ident.
func appendRows(ctx context.Context, table *paimon.Table, ident int64, rows ...string) {
	b := array.NewRecordBuilder(memory.DefaultAllocator, arrow.NewSchema([]arrow.Field{{Name: "e", Type: arrow.BinaryTypes.String, Nullable: true}}, nil))
	b.Field(0).(*array.StringBuilder).AppendValues(rows, nil)
	rec := b.NewRecordBatch()
	b.Release()
	defer rec.Release()
	w, err := table.NewWrite("example")
	if err != nil {
		log.Fatal(err)
	}
	defer w.Close()
	if err := w.Write(ctx, rec); err != nil {
		log.Fatal(err)
	}
	msgs, err := w.PrepareCommit(ctx)
	if err != nil {
		log.Fatal(err)
	}
	c, err := table.NewCommit("example")
	if err != nil {
		log.Fatal(err)
	}
	defer c.Close()
	if _, err := c.Commit(ctx, ident, msgs); err != nil {
		log.Fatal(err)
	}
}
