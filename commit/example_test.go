package commit_test

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
	"github.com/paimon-go/paimon/types"
	"github.com/paimon-go/paimon/writer"
)

// A streaming job commits with increasing identifiers. After a crash it
// cannot know whether its last commit landed, so it commits the same
// identifier again: the committer finds the snapshot of that identifier and
// publishes nothing twice (Java TableCommitImpl.filterCommitted).
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
	tbl, err := cat.GetTable(ctx, id)
	if err != nil {
		log.Fatal(err)
	}
	w, err := writer.New(tbl.FileIO, tbl.Schema, "job-1")
	if err != nil {
		log.Fatal(err)
	}
	defer w.Close()
	b := array.NewRecordBuilder(memory.DefaultAllocator, arrow.NewSchema([]arrow.Field{{Name: "e", Type: arrow.BinaryTypes.String, Nullable: true}}, nil))
	b.Field(0).(*array.StringBuilder).AppendValues([]string{"a", "b"}, nil)
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
	for attempt := range 2 {
		cm, err := commit.New(tbl.FileIO, tbl.Schema, "job-1") // a new committer, as after a restart
		if err != nil {
			log.Fatal(err)
		}
		snap, err := cm.Commit(ctx, 7, msgs)
		if err != nil {
			log.Fatal(err)
		}
		cm.Close()
		fmt.Println("attempt", attempt+1, "identifier 7 -> snapshot", snap)
	}
	// Output:
	// attempt 1 identifier 7 -> snapshot 1
	// attempt 2 identifier 7 -> snapshot 1
}
