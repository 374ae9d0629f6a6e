//go:build interop

package interop

import (
	"context"
	"maps"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/paimon-go/paimon/catalog"
	"github.com/paimon-go/paimon/compaction"
	"github.com/paimon-go/paimon/row"
	"github.com/paimon-go/paimon/types"
)

// TestJavaPostponeCompactedByGo: Java writes into bucket-postpone
// (scenario_postpone_streaming, scenario_postpone_agg: Java's own read of
// every snapshot is empty; scenario_postpone_fixed: real buckets plus
// postponed rows), our postpone compaction (what paimon compact does)
// routes the rows into real buckets, and our read and Java's read give the
// exact rows; scenario_postpone_dv (deletion vectors) and
// scenario_postpone_first_row are lookup-compacted up from level 0. Then, a mixed history: we write into bucket-postpone
// (postpone.batch-write-fixed-bucket = false) beside Java's files, compact
// again, and both reads give the exact rows.
func TestJavaPostponeCompactedByGo(t *testing.T) {
	ctx := context.Background()
	java := javaPeer()
	out := workDir(t, "java-postpone-compact")
	names := []string{"scenario_postpone_streaming", "scenario_postpone_agg", "scenario_postpone_fixed",
		"scenario_postpone_dv", "scenario_postpone_first_row"}
	if _, err := java.run(ctx, "scenarios", append([]string{out}, names...)...); err != nil {
		t.Fatalf("java scenarios: %v", err)
	}
	cat, err := catalog.Open(ctx, "file://"+filepath.Join(out, "warehouse"))
	if err != nil {
		t.Fatal(err)
	}
	defer cat.Close()
	check := func(t *testing.T, name, want string) {
		t.Helper()
		path := filepath.Join(out, "warehouse", "interop.db", name)
		got, err := readGo(ctx, path, false)
		if err != nil {
			t.Fatalf("our read: %v", err)
		}
		compare(t, []byte(want), got)
		jgot, err := java.run(ctx, "read", path)
		if err != nil {
			t.Fatalf("java read: %v", err)
		}
		compare(t, []byte(want), jgot)
	}
	compact := func(t *testing.T, tbl *catalog.Table) {
		t.Helper()
		sid, err := compaction.Compact(ctx, tbl.FileIO, tbl.Schema, "go-compact", compaction.Options{})
		if err != nil || sid == 0 {
			t.Fatalf("our postpone compaction: snapshot %d, %v", sid, err)
		}
	}
	cases := []struct {
		name, first string
		more        []goRow
		second      string
	}{
		{"scenario_postpone_streaming", `{"p":"a","id":1,"v":"a1"}
{"p":"a","id":2,"v":"a2-v2"}
{"p":"a","id":3,"v":"a3-back"}
{"p":"a","id":4,"v":"a4-v3"}
{"p":"a","id":5,"v":"a5"}
{"p":"b","id":1,"v":"b1-v2"}
{"p":"c","id":1,"v":"c1"}
`, []goRow{
			ins("a", int32(1), "a1-go"), withKind(row.RowKindDelete, "a", int32(5), nil),
			ins("b", int32(2), "b2-go"), ins("d", int32(1), "d1-go"), ins("a", int32(1), "a1-go2"),
		}, `{"p":"a","id":1,"v":"a1-go2"}
{"p":"a","id":2,"v":"a2-v2"}
{"p":"a","id":3,"v":"a3-back"}
{"p":"a","id":4,"v":"a4-v3"}
{"p":"b","id":1,"v":"b1-v2"}
{"p":"b","id":2,"v":"b2-go"}
{"p":"c","id":1,"v":"c1"}
{"p":"d","id":1,"v":"d1-go"}
`},
		{"scenario_postpone_agg", `{"p":"a","id":1,"n":111}
{"p":"a","id":2,"n":22}
{"p":"a","id":3,"n":3}
{"p":"a","id":4,"n":4}
{"p":"a","id":5,"n":5}
{"p":"a","id":6,"n":6}
`, []goRow{ins("a", int32(1), int64(1000)), ins("a", int32(7), int64(7)), ins("a", int32(7), int64(70))}, `{"p":"a","id":1,"n":1111}
{"p":"a","id":2,"n":22}
{"p":"a","id":3,"n":3}
{"p":"a","id":4,"n":4}
{"p":"a","id":5,"n":5}
{"p":"a","id":6,"n":6}
{"p":"a","id":7,"n":77}
`},
		{"scenario_postpone_fixed", `{"p":"a","id":1,"v":"a1-postponed"}
{"p":"a","id":2,"v":"a2-v2"}
{"p":"a","id":3,"v":"a3"}
{"p":"a","id":4,"v":"a4"}
{"p":"a","id":5,"v":"a5"}
{"p":"a","id":6,"v":"a6"}
{"p":"a","id":8,"v":"a8"}
{"p":"a","id":9,"v":"a9"}
{"p":"b","id":1,"v":"b1"}
{"p":"b","id":2,"v":"b2"}
{"p":"b","id":3,"v":"b3"}
{"p":"b","id":4,"v":"b4"}
{"p":"b","id":5,"v":"b5"}
{"p":"c","id":1,"v":"c1-postponed"}
`, []goRow{ins("b", int32(6), "b6-go"), withKind(row.RowKindDelete, "b", int32(4), nil), ins("c", int32(2), "c2-go")}, `{"p":"a","id":1,"v":"a1-postponed"}
{"p":"a","id":2,"v":"a2-v2"}
{"p":"a","id":3,"v":"a3"}
{"p":"a","id":4,"v":"a4"}
{"p":"a","id":5,"v":"a5"}
{"p":"a","id":6,"v":"a6"}
{"p":"a","id":8,"v":"a8"}
{"p":"a","id":9,"v":"a9"}
{"p":"b","id":1,"v":"b1"}
{"p":"b","id":2,"v":"b2"}
{"p":"b","id":3,"v":"b3"}
{"p":"b","id":5,"v":"b5"}
{"p":"b","id":6,"v":"b6-go"}
{"p":"c","id":1,"v":"c1-postponed"}
{"p":"c","id":2,"v":"c2-go"}
`},
		// Deletion vectors: batch reads skip level 0, so the compaction
		// lookup-compacts the routed rows up and marks the replaced ones.
		{"scenario_postpone_dv", `{"p":"a","id":1,"v":"a1"}
{"p":"a","id":2,"v":"a2-v2"}
{"p":"a","id":4,"v":"a4-v3"}
{"p":"a","id":5,"v":"a5"}
{"p":"a","id":6,"v":"a6"}
{"p":"b","id":1,"v":"b1"}
{"p":"b","id":2,"v":"b2"}
`, []goRow{
			ins("a", int32(1), "a1-go"), withKind(row.RowKindDelete, "a", int32(5), nil), ins("a", int32(3), "a3-go"),
			ins("b", int32(1), "b1-go"), ins("c", int32(1), "c1-go"),
		}, `{"p":"a","id":1,"v":"a1-go"}
{"p":"a","id":2,"v":"a2-v2"}
{"p":"a","id":3,"v":"a3-go"}
{"p":"a","id":4,"v":"a4-v3"}
{"p":"a","id":6,"v":"a6"}
{"p":"b","id":1,"v":"b1-go"}
{"p":"b","id":2,"v":"b2"}
{"p":"c","id":1,"v":"c1-go"}
`},
		// First-row: the first row of a key wins, across compactions too.
		{"scenario_postpone_first_row", `{"p":"a","id":1,"v":"a1"}
{"p":"a","id":2,"v":"a2"}
{"p":"a","id":3,"v":"a3"}
{"p":"a","id":4,"v":"a4"}
{"p":"a","id":5,"v":"a5"}
{"p":"b","id":1,"v":"b1"}
`, []goRow{ins("a", int32(1), "a1-go"), ins("a", int32(6), "a6-go"), ins("a", int32(6), "a6-go2"), ins("b", int32(2), "b2-go")}, `{"p":"a","id":1,"v":"a1"}
{"p":"a","id":2,"v":"a2"}
{"p":"a","id":3,"v":"a3"}
{"p":"a","id":4,"v":"a4"}
{"p":"a","id":5,"v":"a5"}
{"p":"a","id":6,"v":"a6-go"}
{"p":"b","id":1,"v":"b1"}
{"p":"b","id":2,"v":"b2-go"}
`},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			tbl, err := cat.GetTable(ctx, catalog.NewIdentifier("interop", c.name))
			if err != nil {
				t.Fatal(err)
			}
			compact(t, tbl)
			check(t, c.name, c.first)
			// Our rows into bucket-postpone, then our compaction again.
			into := *tbl
			s := *tbl.Schema
			s.Options = maps.Clone(s.Options)
			s.Options["postpone.batch-write-fixed-bucket"] = "false"
			into.Schema = &s
			if err := commitRows(ctx, &into, "go-writer", 1, c.more, true); err != nil {
				t.Fatalf("our write into bucket-postpone: %v", err)
			}
			check(t, c.name, c.first) // invisible until compacted
			compact(t, tbl)
			check(t, c.name, c.second)
		})
	}
}

// TestGoPostponeFilesReadByJava: our bucket-postpone files (written with
// postpone.batch-write-fixed-bucket = false) read by Java the way Flink's
// postpone compaction reads them (interop/java PostponeRead: the bucket -2
// splits of the table copied with a real bucket count, one split per file
// in creation-time order, the table's newRead) give every record in
// arrival order with its row kind, duplicates and retractions included,
// which is what Java's compaction routes into real buckets.
func TestGoPostponeFilesReadByJava(t *testing.T) {
	ctx := context.Background()
	cp := os.Getenv(envJavaCP)
	if cp == "" {
		t.Skip(envJavaCP + " is not set (run scripts/interop.sh)")
	}
	wh := workDir(t, "go-postpone-files")
	cat, err := catalog.Open(ctx, "file://"+wh)
	if err != nil {
		t.Fatal(err)
	}
	defer cat.Close()
	if err := cat.CreateDatabase(ctx, "interop", true); err != nil {
		t.Fatal(err)
	}
	id := catalog.NewIdentifier("interop", "go_postpone_files")
	if err := cat.CreateTable(ctx, id, catalog.Schema{Fields: pkFieldsPostpone, PartitionKeys: []string{"region"}, PrimaryKeys: []string{"region", "id"},
		Options: map[string]string{"bucket": "-2", "postpone.batch-write-fixed-bucket": "false"}}, false); err != nil {
		t.Fatal(err)
	}
	tbl, err := cat.GetTable(ctx, id)
	if err != nil {
		t.Fatal(err)
	}
	// One partition, so that the file order is the commit order.
	for i, rows := range [][]goRow{
		{ins("eu", int32(3), "c"), ins("eu", int32(1), "a"), ins("eu", int32(3), "c2")},
		{withKind(row.RowKindUpdateAfter, "eu", int32(1), "a2"), withKind(row.RowKindDelete, "eu", int32(3), nil), ins("eu", int32(2), "b")},
	} {
		if err := commitRows(ctx, tbl, "go-writer", int64(i+1), rows, true); err != nil {
			t.Fatal(err)
		}
		time.Sleep(2 * time.Millisecond) // distinct creation times: Java sorts by them only
	}
	java := os.Getenv(envJava)
	if java == "" {
		java = "java"
	}
	c := exec.CommandContext(ctx, java, "-cp", cp, "org.paimongo.interop.PostponeRead", filepath.Join(wh, "interop.db", "go_postpone_files"))
	var stderr strings.Builder
	c.Stderr = &stderr
	out, err := c.Output()
	if err != nil {
		t.Fatalf("java PostponeRead: %v\n%s", err, stderr.String())
	}
	want := "+I\t{\"region\":\"eu\",\"id\":3,\"v\":\"c\"}\n" +
		"+I\t{\"region\":\"eu\",\"id\":1,\"v\":\"a\"}\n" +
		"+I\t{\"region\":\"eu\",\"id\":3,\"v\":\"c2\"}\n" +
		"+U\t{\"region\":\"eu\",\"id\":1,\"v\":\"a2\"}\n" +
		"-D\t{\"region\":\"eu\",\"id\":3,\"v\":null}\n" +
		"+I\t{\"region\":\"eu\",\"id\":2,\"v\":\"b\"}\n"
	if string(out) != want {
		t.Errorf("java read of our postpone files:\n%s\nwant\n%s", out, want)
	}
}

var pkFieldsPostpone = []types.DataField{
	field("region", notNull(types.String())), field("id", notNull(types.Int())), field("v", types.String()),
}
