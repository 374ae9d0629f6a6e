package paimon_test

import (
	"context"
	"testing"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"
	"github.com/apache/arrow-go/v18/arrow/memory"

	"github.com/paimon-go/paimon"
	"github.com/paimon-go/paimon/catalog"
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

func bloomTable(t *testing.T, pk bool) *paimon.Table {
	s := catalog.Schema{
		Fields: []types.DataField{types.Field(0, "id", types.BigInt()), types.Field(1, "v", types.BigInt())},
		Options: map[string]string{
			"bucket": "1", "file-index.bloom-filter.columns": "id,v",
			"file-index.bloom-filter.id.items": "100", "file-index.bloom-filter.id.fpp": "0.01",
			"file-index.bloom-filter.v.items": "100", "file-index.bloom-filter.v.fpp": "0.01",
		},
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

// A filtered scan and a key lookup skip exactly the files whose embedded
// bloom filter rejects the value; for primary-key tables a value-column
// filter never skips.
func TestFileIndexSkipsFiles(t *testing.T) {
	ctx := context.Background()
	id := predicate.Ref{Index: 0, Name: "id", Type: types.BigInt()}
	v := predicate.Ref{Index: 1, Name: "v", Type: types.BigInt()}
	for _, pk := range []bool{false, true} {
		table := bloomTable(t, pk)
		all, err := table.NewScan().Plan(ctx)
		if err != nil {
			t.Fatal(err)
		}
		files := 0
		for _, sp := range all.Splits {
			files += len(sp.Files)
			for _, f := range sp.Files {
				if len(f.EmbeddedIndex) == 0 {
					t.Fatalf("pk=%v: file %s has no embedded index", pk, f.FileName)
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
