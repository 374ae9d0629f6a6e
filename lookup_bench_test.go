package paimon_test

import (
	"context"
	"fmt"
	"testing"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"
	"github.com/apache/arrow-go/v18/arrow/memory"

	"github.com/paimon-go/paimon/catalog"
	"github.com/paimon-go/paimon/reader"
	"github.com/paimon-go/paimon/types"
)

// BenchmarkLookup: one-key lookups on a 200,000-row table (k INT, n BIGINT;
// bucket 8; 20 commits, so each bucket has several files), hit and miss,
// next to the same read as a WHERE scan and as a full scan filtered in Go:
//
//	go test -run XXX -bench BenchmarkLookup -benchtime 200x .
func BenchmarkLookup(b *testing.B) {
	ctx := context.Background()
	k := types.Int()
	k.Nullable = false
	table := createTable(b, catalog.Schema{
		Fields:      []types.DataField{types.Field(0, "k", k), types.Field(1, "n", types.BigInt())},
		PrimaryKeys: []string{"k"}, Options: map[string]string{"bucket": "8", "write-only": "true"},
	})
	const rows, commits = 200_000, 20
	for c := range commits {
		ks := make([]int32, 0, rows/commits)
		ns := make([]int64, 0, rows/commits)
		kinds := make([]int8, 0, rows/commits)
		for i := c; i < rows; i += commits {
			ks, ns, kinds = append(ks, int32(i)), append(ns, int64(i)), append(kinds, 0)
		}
		commitKN(b, table, ks, ns, kinds)
	}
	key := func(i int32) arrow.RecordBatch { return intKeys([]int32{i}) }
	for _, mode := range []string{"lookup-hit", "lookup-miss", "where-scan", "full-scan"} {
		b.Run(mode, func(b *testing.B) {
			for i := range b.N {
				k := int32(i*7919) % rows
				if mode == "lookup-miss" {
					k += rows
				}
				var got int64
				switch mode {
				case "lookup-hit", "lookup-miss":
					kb := key(k)
					rec, err := table.Lookup(ctx, kb)
					kb.Release()
					if err != nil {
						b.Fatal(err)
					}
					got = rec.NumRows()
					rec.Release()
				case "where-scan":
					p, err := table.NewScan(reader.WithWhere(fmt.Sprintf("k = %d", k))).Plan(ctx)
					if err != nil {
						b.Fatal(err)
					}
					rec, err := reader.Concat(p.Records(ctx), types.SchemaToArrow(p.Fields), memory.DefaultAllocator)
					if err != nil {
						b.Fatal(err)
					}
					got = rec.NumRows()
					rec.Release()
				case "full-scan":
					p, err := table.NewScan().Plan(ctx)
					if err != nil {
						b.Fatal(err)
					}
					for rec, err := range p.Records(ctx) {
						if err != nil {
							b.Fatal(err)
						}
						ks := rec.Column(0).(*array.Int32)
						for r := range ks.Len() {
							if ks.Value(r) == k {
								got++
							}
						}
						rec.Release()
					}
				}
				if want := int64(1); mode == "lookup-miss" && got != 0 || mode != "lookup-miss" && got != want {
					b.Fatalf("%s of %d: %d rows", mode, k, got)
				}
			}
		})
	}
}
