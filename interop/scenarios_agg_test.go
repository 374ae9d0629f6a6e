//go:build interop

package interop

import (
	"context"
	"os"
	"path/filepath"
	"testing"

	"github.com/paimon-go/paimon/catalog"
	"github.com/paimon-go/paimon/compaction"
)

// TestJavaAggScenarioCompactedByGo runs the Java scenario
// scenario_agg_collections (collect, merge_map, merge_map_with_keytime,
// rbm32, nested_update, nested_partial_update written and compacted by
// Java), fully compacts the table with our compaction (what paimon compact
// does), and requires our read and Java's read of the result to equal
// Java's read before our compaction.
func TestJavaAggScenarioCompactedByGo(t *testing.T) {
	compactJavaScenarioWithGo(t, "scenario_agg_collections")
}

// compactJavaScenarioWithGo runs one Java scenario, fully compacts its
// table with our compaction (what paimon compact does), and requires our
// read and Java's read of the result to equal Java's read before our
// compaction.
func compactJavaScenarioWithGo(t *testing.T, name string) {
	t.Helper()
	ctx := context.Background()
	java := javaPeer()
	out := workDir(t, "java-"+name)
	if _, err := java.run(ctx, "scenarios", out, name); err != nil {
		t.Fatalf("java scenarios: %v", err)
	}
	want, err := os.ReadFile(filepath.Join(out, "expected", name, "latest.jsonl"))
	if err != nil {
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
	sid, err := compaction.Compact(ctx, tbl.FileIO, tbl.Schema, "go-compact", compaction.Options{Full: true})
	if err != nil || sid == 0 {
		t.Fatalf("our full compaction: snapshot %d, %v", sid, err)
	}
	path := filepath.Join(out, "warehouse", "interop.db", name)
	got, err := readGo(ctx, path, false)
	if err != nil {
		t.Fatalf("our read after our compaction: %v", err)
	}
	compare(t, want, got)
	jgot, err := java.run(ctx, "read", path)
	if err != nil {
		t.Fatalf("java read after our compaction: %v", err)
	}
	compare(t, want, jgot)
}
