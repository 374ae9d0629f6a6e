package serve_test

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
	"github.com/paimon-go/paimon/serve"
	"github.com/paimon-go/paimon/types"
)

// Serves a real-time table over Arrow Flight on a loopback port: a client
// puts rows (acknowledged once they are queryable), looks one up before any
// commit, and asks for a commit; Shutdown commits what the server holds.
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
		Fields:      []types.DataField{types.Field(0, "k", types.Int().NotNull()), types.Field(1, "v", types.String())},
		PrimaryKeys: []string{"k"},
		Options:     map[string]string{"bucket": "1", "realtime.enabled": "true", "realtime.provider": "flight"},
	}, false); err != nil {
		log.Fatal(err)
	}
	table, err := paimon.OpenTable(ctx, filepath.Join(dir, catalog.TablePath(id)))
	if err != nil {
		log.Fatal(err)
	}
	defer table.Close()
	srv, err := serve.New(table, serve.Config{Token: "secret", CommitInterval: -1}) // commits on request only
	if err != nil {
		log.Fatal(err)
	}
	if err := srv.Start("127.0.0.1:0"); err != nil {
		log.Fatal(err)
	}
	defer srv.Shutdown(ctx)

	c, err := serve.Dial(srv.Location(), "secret")
	if err != nil {
		log.Fatal(err)
	}
	defer c.Close()
	sc := arrow.NewSchema([]arrow.Field{{Name: "k", Type: arrow.PrimitiveTypes.Int32}, {Name: "v", Type: arrow.BinaryTypes.String, Nullable: true}}, nil)
	b := array.NewRecordBuilder(memory.DefaultAllocator, sc)
	b.Field(0).(*array.Int32Builder).AppendValues([]int32{1, 2}, nil)
	b.Field(1).(*array.StringBuilder).AppendValues([]string{"one", "two"}, nil)
	rows := b.NewRecordBatch()
	b.Release()
	defer rows.Release()
	n, err := c.Put(ctx, rows)
	if err != nil {
		log.Fatal(err)
	}
	kb := array.NewRecordBuilder(memory.DefaultAllocator, arrow.NewSchema(sc.Fields()[:1], nil))
	kb.Field(0).(*array.Int32Builder).Append(1)
	keys := kb.NewRecordBatch()
	kb.Release()
	defer keys.Release()
	got, err := c.Lookup(ctx, keys)
	if err != nil {
		log.Fatal(err)
	}
	defer got.Release()
	snap, err := c.Commit(ctx)
	if err != nil {
		log.Fatal(err)
	}
	fmt.Println("acknowledged", n, "rows")
	fmt.Println("lookup before the commit:", got.Column(0).ValueStr(0), got.Column(1).ValueStr(0))
	fmt.Println("committed snapshot", snap)
	// Output:
	// acknowledged 2 rows
	// lookup before the commit: 1 one
	// committed snapshot 1
}
