package paimon_test

import (
	"context"
	"errors"
	"io/fs"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"
	"github.com/apache/arrow-go/v18/arrow/memory"

	"github.com/paimon-go/paimon"
	"github.com/paimon-go/paimon/catalog"
	"github.com/paimon-go/paimon/compaction"
	"github.com/paimon-go/paimon/expire"
	"github.com/paimon-go/paimon/fileindex"
	"github.com/paimon-go/paimon/fileio"
	"github.com/paimon-go/paimon/orphan"
	"github.com/paimon-go/paimon/predicate"
	"github.com/paimon-go/paimon/reader"
	"github.com/paimon-go/paimon/types"
)

// bloomRows is ids i*4+c for i in [0,100): four commits whose id ranges
// overlap, and v alternating c and 10-c (ranges [c, 10-c] nest), so min/max
// statistics prune none of their files for the ids asked below.
func bloomRows(c int64) arrow.RecordBatch {
	b := array.NewRecordBuilder(memory.DefaultAllocator, arrow.NewSchema([]arrow.Field{
		{Name: "id", Type: arrow.PrimitiveTypes.Int64}, {Name: "v", Type: arrow.PrimitiveTypes.Int64, Nullable: true}}, nil))
	defer b.Release()
	for i := range int64(100) {
		b.Field(0).(*array.Int64Builder).Append(i*4 + c)
		if i%2 == 0 {
			b.Field(1).(*array.Int64Builder).Append(c)
		} else {
			b.Field(1).(*array.Int64Builder).Append(10 - c)
		}
	}
	return b.NewRecordBatch()
}

// bloomTable writes the four commits of bloomRows into a table with
// bloom-filter indexes on id and v, embedded in the data file metas or,
// with separate, in <data file>.index files (in-manifest threshold 1 byte).
func bloomTable(t *testing.T, pk, separate bool) *paimon.Table {
	s := catalog.Schema{
		Fields: []types.DataField{types.Field(0, "id", types.BigInt()), types.Field(1, "v", types.BigInt())},
		Options: map[string]string{
			"bucket": "1", "file-index.bloom-filter.columns": "id,v",
			"file-index.bloom-filter.id.items": "100", "file-index.bloom-filter.id.fpp": "0.01",
			"file-index.bloom-filter.v.items": "100", "file-index.bloom-filter.v.fpp": "0.01",
		},
	}
	if separate {
		s.Options["file-index.in-manifest-threshold"] = "1"
	}
	if pk {
		s.Fields[0] = types.Field(0, "id", types.BigInt().NotNull())
		s.PrimaryKeys = []string{"id"}
	} else {
		s.Options["bucket-key"] = "id"
	}
	table := createTable(t, s)
	for c := range int64(4) {
		rec := bloomRows(c)
		writeCommit(t, table, rec)
		rec.Release()
	}
	return table
}

// A filtered scan and a key lookup skip exactly the files whose bloom
// filter (embedded, or in a separate .index file) rejects the value; for
// primary-key tables a value-column filter never skips.
func TestFileIndexSkipsFiles(t *testing.T) {
	ctx := context.Background()
	id := predicate.Ref{Index: 0, Name: "id", Type: types.BigInt()}
	v := predicate.Ref{Index: 1, Name: "v", Type: types.BigInt()}
	for _, mode := range []struct{ pk, separate bool }{{false, false}, {true, false}, {false, true}, {true, true}} {
		pk := mode.pk
		table := bloomTable(t, pk, mode.separate)
		all, err := table.NewScan().Plan(ctx)
		if err != nil {
			t.Fatal(err)
		}
		files := 0
		for _, sp := range all.Splits {
			files += len(sp.Files)
			for _, f := range sp.Files {
				switch {
				case !mode.separate && (len(f.EmbeddedIndex) == 0 || len(f.ExtraFiles) != 0):
					t.Fatalf("pk=%v: file %s: embedded index %d bytes, extra files %v", pk, f.FileName, len(f.EmbeddedIndex), f.ExtraFiles)
				case mode.separate:
					if len(f.EmbeddedIndex) != 0 || !slices.Equal(f.ExtraFiles, []string{f.FileName + ".index"}) {
						t.Fatalf("pk=%v: file %s: embedded index %d bytes, extra files %v, want [%s.index]", pk, f.FileName, len(f.EmbeddedIndex), f.ExtraFiles, f.FileName)
					}
					b, err := table.FileIO().ReadFile(ctx, sp.BucketPath+"/"+f.FileName+".index")
					if err != nil {
						t.Fatal(err)
					}
					if _, err := fileindex.Parse(b); err != nil {
						t.Fatalf("%s.index: %v", f.FileName, err)
					}
				}
			}
		}
		if files != 4 {
			t.Fatalf("pk=%v: %d files, want 4", pk, files)
		}
		cases := []struct {
			filter  predicate.Predicate
			skipped int
			rows    int64
		}{
			{predicate.Equal(id, int64(202)), 3, 1},
			{predicate.In(id, int64(202), int64(5)), 2, 2},
			{predicate.Equal(v, int64(2)), map[bool]int{false: 2, true: 0}[pk], 50}, // c=3's [3,7] is pruned by stats
		}
		for _, c := range cases {
			p, err := table.NewScan(reader.WithFilter(c.filter)).Plan(ctx)
			if err != nil {
				t.Fatal(err)
			}
			if p.FileIndexSkipped != c.skipped {
				t.Errorf("pk=%v %v: %d files skipped, want %d", pk, c.filter, p.FileIndexSkipped, c.skipped)
			}
			got, err := reader.Concat(p.Records(ctx), types.SchemaToArrow(p.Fields), nil)
			if err != nil {
				t.Fatal(err)
			}
			n := int64(0)
			ids := got.Column(0).(*array.Int64)
			vs := got.Column(1).(*array.Int64)
			for i := range int(got.NumRows()) {
				if c.filter.Test([]any{ids.Value(i), vs.Value(i)}) {
					n++
				}
			}
			if n != c.rows {
				t.Errorf("pk=%v %v: %d matching rows, want %d", pk, c.filter, n, c.rows)
			}
			got.Release()
		}
		if pk {
			b := array.NewRecordBuilder(memory.DefaultAllocator, arrow.NewSchema([]arrow.Field{{Name: "id", Type: arrow.PrimitiveTypes.Int64}}, nil))
			b.Field(0).(*array.Int64Builder).Append(203)
			kb := b.NewRecordBatch()
			b.Release()
			p, err := table.NewScan(reader.WithKeys(kb)).Plan(ctx)
			if err != nil {
				t.Fatal(err)
			}
			if p.FileIndexSkipped != 3 {
				t.Errorf("lookup of 203: %d files skipped, want 3", p.FileIndexSkipped)
			}
			got, err := table.Lookup(ctx, kb)
			if err != nil {
				t.Fatal(err)
			}
			if got.NumRows() != 1 || got.Column(1).(*array.Int64).Value(0) != 3 {
				t.Errorf("lookup of 203: %v", got)
			}
			got.Release()
			kb.Release()
		}
	}
}

// TestFileIndexSeparateFiles: separate index files live and die with their
// data files: a full compaction writes them for its output, expiration
// deletes those of the expired files (and keeps the live ones), orphan
// cleaning keeps live ones; a damaged or missing index file fails the scan
// with an error naming it (Java fails the read likewise).
func TestFileIndexSeparateFiles(t *testing.T) {
	ctx := context.Background()
	table := bloomTable(t, true, true)
	indexFiles := func() []string {
		t.Helper()
		var out []string
		err := filepath.WalkDir(strings.TrimPrefix(table.FileIO().URL(), "file://"), func(p string, d fs.DirEntry, err error) error {
			if err == nil && strings.HasSuffix(p, ".index") && strings.Contains(p, "bucket-") {
				out = append(out, filepath.Base(p))
			}
			return err
		})
		if err != nil {
			t.Fatal(err)
		}
		slices.Sort(out)
		return out
	}
	liveIndexes := func() []string {
		t.Helper()
		p, err := table.NewScan().Plan(ctx)
		if err != nil {
			t.Fatal(err)
		}
		var out []string
		for _, sp := range p.Splits {
			for _, f := range sp.Files {
				out = append(out, f.ExtraFiles...)
			}
		}
		slices.Sort(out)
		return out
	}
	before := indexFiles()
	if len(before) != 4 || !slices.Equal(before, liveIndexes()) {
		t.Fatalf("index files %v, live %v: want the 4 files' indexes", before, liveIndexes())
	}
	if _, err := compaction.Compact(ctx, table.FileIO(), table.Schema(), "u", compaction.Options{Full: true}); err != nil {
		t.Fatal(err)
	}
	live := liveIndexes()
	if len(live) != 1 || len(indexFiles()) != 5 {
		t.Fatalf("after a full compaction: live %v, on disk %v: want 1 live of 5", live, indexFiles())
	}
	if _, err := expire.Expire(ctx, table.FileIO(), table.Schema(), expire.Options{RetainMin: 1, RetainMax: 1}); err != nil {
		t.Fatal(err)
	}
	if got := indexFiles(); !slices.Equal(got, live) {
		t.Fatalf("after expiration: on disk %v, want only the live %v", got, live)
	}
	if _, err := orphan.Clean(ctx, table.FileIO(), 0, orphan.Options{Now: time.Now().Add(time.Hour)}); err != nil {
		t.Fatal(err)
	}
	if got := indexFiles(); !slices.Equal(got, live) {
		t.Fatalf("after orphan cleaning: on disk %v, want the live %v", got, live)
	}
	// Damage the live index, then remove it.
	p, err := table.NewScan().Plan(ctx)
	if err != nil {
		t.Fatal(err)
	}
	rel := p.Splits[0].BucketPath + "/" + live[0]
	if err := table.FileIO().WriteFile(ctx, rel, []byte("not an index")); err != nil {
		t.Fatal(err)
	}
	fresh, err := paimon.OpenTable(ctx, table.FileIO().URL())
	if err != nil {
		t.Fatal(err)
	}
	defer fresh.Close()
	id := predicate.Ref{Index: 0, Name: "id", Type: types.BigInt()}
	_, err = fresh.NewScan(reader.WithFilter(predicate.Equal(id, int64(202)))).Plan(ctx)
	if !errors.Is(err, fileindex.ErrMalformed) || !strings.Contains(err.Error(), live[0]) {
		t.Fatalf("damaged index file: %v, want fileindex.ErrMalformed naming %s", err, live[0])
	}
	if err := table.FileIO().Delete(ctx, rel); err != nil {
		t.Fatal(err)
	}
	_, err = reader.NewScan(table.FileIO(), reader.WithFilter(predicate.Equal(id, int64(202)))).Plan(ctx)
	if !errors.Is(err, fileio.ErrNotExist) || !strings.Contains(err.Error(), live[0]) {
		t.Fatalf("missing index file: %v, want fileio.ErrNotExist naming %s", err, live[0])
	}
	// A scan without an Equal/In conjunct never reads it.
	if _, err := reader.NewScan(table.FileIO()).Plan(ctx); err != nil {
		t.Fatalf("unfiltered scan without the index file: %v", err)
	}
}

// TestFileIndexExternalPaths: with data-file.external-paths, separate index
// files sit beside their data files below the external root; scans skip by
// them, and expiration deletes those of expired files there.
func TestFileIndexExternalPaths(t *testing.T) {
	ctx := context.Background()
	root := t.TempDir()
	table := createTable(t, catalog.Schema{
		Fields: []types.DataField{types.Field(0, "id", types.BigInt()), types.Field(1, "v", types.BigInt())},
		Options: map[string]string{"bucket": "1", "bucket-key": "id", "file-index.bloom-filter.columns": "id",
			"file-index.bloom-filter.id.items": "100", "file-index.bloom-filter.id.fpp": "0.01",
			"file-index.in-manifest-threshold": "1", "data-file.external-paths": "file://" + filepath.ToSlash(root),
			"data-file.external-paths.strategy": "round-robin"},
	})
	for c := range int64(4) {
		rec := bloomRows(c)
		writeCommit(t, table, rec)
		rec.Release()
	}
	indexes := func() []string {
		t.Helper()
		var out []string
		err := filepath.WalkDir(root, func(p string, d fs.DirEntry, err error) error {
			if err == nil && strings.HasSuffix(p, ".index") {
				out = append(out, filepath.Base(p))
			}
			return err
		})
		if err != nil {
			t.Fatal(err)
		}
		slices.Sort(out)
		return out
	}
	p, err := table.NewScan().Plan(ctx)
	if err != nil {
		t.Fatal(err)
	}
	var want []string
	for _, f := range p.Splits[0].Files {
		if f.ExternalPath == nil || *f.ExternalPath != "file:"+filepath.ToSlash(root)+"/bucket-0/"+f.FileName {
			t.Fatalf("%s: external path %v, want below %s", f.FileName, ptrString(f.ExternalPath), root)
		}
		want = append(want, f.FileName+".index")
	}
	slices.Sort(want)
	if got := indexes(); len(want) != 4 || !slices.Equal(got, want) {
		t.Fatalf("index files below the external root %v, want %v", got, want)
	}
	id := predicate.Ref{Index: 0, Name: "id", Type: types.BigInt()}
	fp, err := table.NewScan(reader.WithFilter(predicate.Equal(id, int64(202)))).Plan(ctx)
	if err != nil {
		t.Fatal(err)
	}
	if fp.FileIndexSkipped != 3 {
		t.Errorf("id = 202: %d files skipped, want 3", fp.FileIndexSkipped)
	}
	if _, err := compaction.Compact(ctx, table.FileIO(), table.Schema(), "u", compaction.Options{Full: true}); err != nil {
		t.Fatal(err)
	}
	if _, err := expire.Expire(ctx, table.FileIO(), table.Schema(), expire.Options{RetainMin: 1, RetainMax: 1}); err != nil {
		t.Fatal(err)
	}
	lp, err := table.NewScan().Plan(ctx)
	if err != nil {
		t.Fatal(err)
	}
	var live []string
	for _, f := range lp.Splits[0].Files {
		live = append(live, f.FileName+".index")
	}
	if got := indexes(); len(live) != 1 || !slices.Equal(got, live) {
		t.Errorf("after compaction and expiration: index files %v, want only the live %v", got, live)
	}
}

func ptrString(s *string) string {
	if s == nil {
		return "<nil>"
	}
	return *s
}
