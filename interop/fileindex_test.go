//go:build interop

package interop

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"
	"github.com/apache/arrow-go/v18/arrow/memory"

	paimon "github.com/paimon-go/paimon"
	"github.com/paimon-go/paimon/catalog"
	"github.com/paimon-go/paimon/internal/tabletest"
	"github.com/paimon-go/paimon/predicate"
	"github.com/paimon-go/paimon/reader"
	"github.com/paimon-go/paimon/types"
)

// TestFileIndexJava: we write an append table whose data files carry
// bloom-filter indexes (file-index.bloom-filter.columns = id, 4 files whose
// id ranges overlap, so statistics prune none), embedded in the data file
// metas and, with file-index.in-manifest-threshold = 1, in separate
// <data file>.index files. We plan id = 202 and keep 1 file of 4; Java
// 1.4.2 with its own evaluation over our bytes reads exactly that file's
// 100 rows (it plans embedded indexes and applies separate ones when it
// reads: "files 1" and "files 4"), and pypaimon reads every row. The other
// way, Java writes the same rows into a table we created with the same
// options; its files carry indexes of the same placement, and our plan of
// id = 202 skips 3 of them and reads the row.
func TestFileIndexJava(t *testing.T) {
	for _, separate := range []bool{false, true} {
		name := map[bool]string{false: "embedded", true: "separate"}[separate]
		t.Run(name, func(t *testing.T) {
			ctx := context.Background()
			path := fileIndexTable(t, separate)
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
			checkIndexPlacement(t, tb, separate)
			checkOurSkips(t, tb)
			out, err := javaPeer().run(ctx, "read-eq", path, "id", "202")
			if err != nil {
				t.Fatal(err)
			}
			lines := strings.Split(strings.TrimSpace(string(out)), "\n")
			wantFiles := map[bool]string{false: "files 1", true: "files 4"}[separate]
			if lines[0] != wantFiles || len(lines) != 101 || !slices.Contains(lines, `{"id":202,"v":2}`) {
				t.Errorf("java read-eq id=202: %s and %d rows (row present: %v), want %s, 100 rows with {\"id\":202,\"v\":2}",
					lines[0], len(lines)-1, slices.Contains(lines, `{"id":202,"v":2}`), wantFiles)
			}
			py, err := pythonPeer().run(ctx, "read", path)
			if err != nil {
				t.Fatal(err)
			}
			if n := len(strings.Split(strings.TrimSpace(string(py)), "\n")); n != 400 {
				t.Errorf("pypaimon read %d rows, want 400", n)
			}

			// Java writes, we read.
			jpath := fileIndexTable(t, separate)
			for c := range int64(4) {
				rows := make([][]any, 100)
				for i := range int64(100) {
					rows[i] = []any{i*4 + c, c}
				}
				data, err := tabletest.FormatJSONL(fileIndexFields(), rows...)
				if err != nil {
					t.Fatal(err)
				}
				f := filepath.Join(t.TempDir(), fmt.Sprintf("step%d.jsonl", c))
				if err := os.WriteFile(f, data, 0o644); err != nil {
					t.Fatal(err)
				}
				if _, err := javaPeer().run(ctx, "apply", jpath, f); err != nil {
					t.Fatal(err)
				}
			}
			jt, err := paimon.OpenTable(ctx, jpath)
			if err != nil {
				t.Fatal(err)
			}
			defer jt.Close()
			checkIndexPlacement(t, jt, separate)
			checkOurSkips(t, jt)
		})
	}
}

func fileIndexFields() []types.DataField {
	return []types.DataField{types.Field(0, "id", types.BigInt()), types.Field(1, "v", types.BigInt())}
}

// fileIndexTable creates db.t in a new warehouse: (id, v) BIGINT, bucket 1
// by id, a bloom filter on id (100 items, fpp 0.01), separate index files
// when separate. It returns the table path.
func fileIndexTable(t *testing.T, separate bool) string {
	t.Helper()
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
		Fields: fileIndexFields(),
		Options: map[string]string{"bucket": "1", "bucket-key": "id", "file-index.bloom-filter.columns": "id",
			"file-index.bloom-filter.id.items": "100", "file-index.bloom-filter.id.fpp": "0.01"},
	}
	if separate {
		s.Options["file-index.in-manifest-threshold"] = "1"
	}
	if err := cat.CreateTable(ctx, catalog.NewIdentifier("db", "t"), s, false); err != nil {
		t.Fatal(err)
	}
	return filepath.Join(wh, "db.db", "t")
}

// checkIndexPlacement: every data file of tb carries its index embedded,
// or (separate) names <data file>.index in extraFiles, which exists.
func checkIndexPlacement(t *testing.T, tb *paimon.Table, separate bool) {
	t.Helper()
	ctx := context.Background()
	p, err := tb.NewScan().Plan(ctx)
	if err != nil {
		t.Fatal(err)
	}
	n := 0
	for _, sp := range p.Splits {
		for _, f := range sp.Files {
			n++
			if !separate {
				if len(f.EmbeddedIndex) == 0 || len(f.ExtraFiles) != 0 {
					t.Errorf("%s: embedded index %d bytes, extra files %v, want an embedded index", f.FileName, len(f.EmbeddedIndex), f.ExtraFiles)
				}
				continue
			}
			if len(f.EmbeddedIndex) != 0 || !slices.Equal(f.ExtraFiles, []string{f.FileName + ".index"}) {
				t.Errorf("%s: embedded index %d bytes, extra files %v, want [%s.index]", f.FileName, len(f.EmbeddedIndex), f.ExtraFiles, f.FileName)
				continue
			}
			if ok, err := tb.FileIO().Exists(ctx, sp.BucketPath+"/"+f.FileName+".index"); err != nil || !ok {
				t.Errorf("%s.index: exists %v, %v", f.FileName, ok, err)
			}
		}
	}
	if n != 4 {
		t.Errorf("%d data files, want 4", n)
	}
}

// checkOurSkips: our plan of id = 202 keeps 1 file of 4 and reads the row.
func checkOurSkips(t *testing.T, tb *paimon.Table) {
	t.Helper()
	ctx := context.Background()
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
	rec, err := reader.Concat(p.Records(ctx), types.SchemaToArrow(p.Fields), nil)
	if err != nil {
		t.Fatal(err)
	}
	defer rec.Release()
	found := false
	for i := range int(rec.NumRows()) {
		if rec.Column(0).(*array.Int64).Value(i) == 202 && rec.Column(1).(*array.Int64).Value(i) == 2 {
			found = true
		}
	}
	if !found {
		t.Errorf("row (202, 2) not read from the kept file (%d rows)", rec.NumRows())
	}
}
