//go:build interop

package interop

import (
	"context"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"
	"github.com/apache/arrow-go/v18/arrow/memory"

	paimon "github.com/paimon-go/paimon"
	"github.com/paimon-go/paimon/catalog"
	"github.com/paimon-go/paimon/predicate"
	"github.com/paimon-go/paimon/reader"
	"github.com/paimon-go/paimon/types"
)

// TestFileIndexJava: we write an append table whose data files carry
// embedded bloom-filter indexes (file-index.bloom-filter.columns = id, 4
// files whose id ranges overlap, so statistics prune none); Java 1.4.2
// plans id = 202 with its own file-index evaluation over our bytes and
// keeps exactly the one file we keep, holding the row, and pypaimon reads
// every row.
func TestFileIndexJava(t *testing.T) {
	ctx := context.Background()
	wh := t.TempDir()
	cat, err := catalog.Open(ctx, wh)
	if err != nil {
		t.Fatal(err)
	}
	defer cat.Close()
	if err := cat.CreateDatabase(ctx, "db", false); err != nil {
		t.Fatal(err)
	}
	s := catalog.Schema{
		Fields: []types.DataField{types.Field(0, "id", types.BigInt()), types.Field(1, "v", types.BigInt())},
		Options: map[string]string{"bucket": "1", "bucket-key": "id", "file-index.bloom-filter.columns": "id",
			"file-index.bloom-filter.id.items": "100", "file-index.bloom-filter.id.fpp": "0.01"},
	}
	if err := cat.CreateTable(ctx, catalog.NewIdentifier("db", "t"), s, false); err != nil {
		t.Fatal(err)
	}
	path := filepath.Join(wh, "db.db", "t")
	tb, err := paimon.OpenTable(ctx, path)
	if err != nil {
		t.Fatal(err)
	}
	defer tb.Close()
	for c := range int64(4) {
		b := array.NewRecordBuilder(memory.DefaultAllocator, arrow.NewSchema([]arrow.Field{
			{Name: "id", Type: arrow.PrimitiveTypes.Int64, Nullable: true}, {Name: "v", Type: arrow.PrimitiveTypes.Int64, Nullable: true}}, nil))
		for i := range int64(100) {
			b.Field(0).(*array.Int64Builder).Append(i*4 + c)
			b.Field(1).(*array.Int64Builder).Append(c)
		}
		rec := b.NewRecordBatch()
		b.Release()
		w, err := tb.NewWrite("u")
		if err != nil {
			t.Fatal(err)
		}
		if err := w.Write(ctx, rec); err != nil {
			t.Fatal(err)
		}
		rec.Release()
		msgs, err := w.PrepareCommit(ctx)
		if err != nil {
			t.Fatal(err)
		}
		cm, err := tb.NewCommit("u")
		if err != nil {
			t.Fatal(err)
		}
		if _, err := cm.Commit(ctx, c+1, msgs); err != nil {
			t.Fatal(err)
		}
		cm.Close()
		w.Close()
	}
	// Ours: id = 202 keeps one file of four.
	p, err := tb.NewScan(reader.WithFilter(predicate.Equal(predicate.Ref{Index: 0, Name: "id", Type: types.BigInt()}, int64(202)))).Plan(ctx)
	if err != nil {
		t.Fatal(err)
	}
	ours := 0
	for _, sp := range p.Splits {
		ours += len(sp.Files)
	}
	if ours != 1 || p.FileIndexSkipped != 3 {
		t.Fatalf("ours: %d files planned, %d skipped by the index, want 1 and 3", ours, p.FileIndexSkipped)
	}
	out, err := javaPeer().run(ctx, "read-eq", path, "id", "202")
	if err != nil {
		t.Fatal(err)
	}
	lines := strings.Split(strings.TrimSpace(string(out)), "\n")
	if lines[0] != "files 1" || len(lines) != 101 || !slices.Contains(lines, `{"id":202,"v":2}`) {
		t.Errorf("java read-eq id=202: %s and %d rows (row present: %v), want files 1, 100 rows with {\"id\":202,\"v\":2}",
			lines[0], len(lines)-1, slices.Contains(lines, `{"id":202,"v":2}`))
	}
	py, err := pythonPeer().run(ctx, "read", path)
	if err != nil {
		t.Fatal(err)
	}
	if n := len(strings.Split(strings.TrimSpace(string(py)), "\n")); n != 400 {
		t.Errorf("pypaimon read %d rows, want 400", n)
	}
}
