//go:build interop

package interop

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"testing"

	"github.com/paimon-go/paimon/catalog"
	"github.com/paimon-go/paimon/reader"
	"github.com/paimon-go/paimon/row"
	"github.com/paimon-go/paimon/types"
)

// TestJavaPostponeScenarioWrittenByGo runs the Java scenario
// scenario_postpone_fixed (a bucket = -2 table written as Flink's batch
// sink does: partition a in 2 real buckets, b in 3, plus rows of a and c
// in bucket-postpone, invisible), writes into it with our Write (an
// update and a new key in a and b, a delete in b, a new partition c),
// and requires our read and Java's read to give the exact rows, with
// each partition's files keeping its bucket count (a 2, b 3) and c
// getting postpone.default-bucket-num = 1.
func TestJavaPostponeScenarioWrittenByGo(t *testing.T) {
	ctx := context.Background()
	const name = "scenario_postpone_fixed"
	java := javaPeer()
	out := workDir(t, "java-postpone-scenario")
	if _, err := java.run(ctx, "scenarios", out, name); err != nil {
		t.Fatalf("java scenarios: %v", err)
	}
	if _, err := os.Stat(filepath.Join(out, "expected", name, "latest.jsonl")); err != nil {
		t.Fatal(err)
	}
	cat, err := catalog.Open(ctx, "file://"+filepath.Join(out, "warehouse"))
	if err != nil {
		t.Fatal(err)
	}
	defer cat.Close()
	tbl, err := cat.GetTable(ctx, catalog.NewIdentifier("interop", name))
	if err != nil {
		t.Fatal(err)
	}
	if err := commitRows(ctx, tbl, "go-writer", 1, []goRow{
		ins("a", int32(3), "a3-go"), ins("a", int32(10), "a10-go"),
		ins("b", int32(6), "b6-go"), withKind(row.RowKindDelete, "b", int32(4), nil), ins("b", int32(1), "b1-go"),
		ins("c", int32(2), "c2-go"),
	}, true); err != nil {
		t.Fatalf("our write: %v", err)
	}
	plan, err := reader.NewScan(tbl.FileIO).Plan(ctx)
	if err != nil {
		t.Fatal(err)
	}
	counts := map[string][]int32{}
	for _, sp := range plan.Splits {
		p := fmt.Sprint(postponeMust(row.Decode([]types.DataType{types.String()}, postponeMust(row.Deserialize(sp.Partition))))[0])
		if !slices.Contains(counts[p], sp.TotalBuckets) {
			counts[p] = append(counts[p], sp.TotalBuckets)
		}
	}
	if got := fmt.Sprint(counts); got != "map[a:[2] b:[3] c:[1]]" {
		t.Errorf("total buckets per partition after our write: %s, want map[a:[2] b:[3] c:[1]]", got)
	}
	want := []byte(`{"p":"a","id":1,"v":"a1"}
{"p":"a","id":2,"v":"a2-v2"}
{"p":"a","id":3,"v":"a3-go"}
{"p":"a","id":4,"v":"a4"}
{"p":"a","id":5,"v":"a5"}
{"p":"a","id":6,"v":"a6"}
{"p":"a","id":8,"v":"a8"}
{"p":"a","id":9,"v":"a9"}
{"p":"a","id":10,"v":"a10-go"}
{"p":"b","id":1,"v":"b1-go"}
{"p":"b","id":2,"v":"b2"}
{"p":"b","id":3,"v":"b3"}
{"p":"b","id":5,"v":"b5"}
{"p":"b","id":6,"v":"b6-go"}
{"p":"c","id":2,"v":"c2-go"}
`)
	path := filepath.Join(out, "warehouse", "interop.db", name)
	got, err := readGo(ctx, path, false)
	if err != nil {
		t.Fatalf("our read after our write: %v", err)
	}
	compare(t, want, got)
	jgot, err := java.run(ctx, "read", path)
	if err != nil {
		t.Fatalf("java read after our write: %v", err)
	}
	compare(t, want, jgot)
}

func postponeMust[T any](v T, err error) T {
	if err != nil {
		panic(fmt.Sprint(err))
	}
	return v
}
