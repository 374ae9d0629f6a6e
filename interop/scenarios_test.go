//go:build interop

package interop

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/paimon-go/paimon/internal/tabletest"
	"github.com/paimon-go/paimon/reader"
)

// envScenarios optionally names the Java scenarios to run (comma-separated);
// empty runs all of them.
const envScenarios = "PAIMON_INTEROP_SCENARIOS"

// scenarioListing is the scenarios.json the Java peer's "scenarios" verb
// leaves in its output directory.
type scenarioListing struct {
	Scenarios []struct {
		Name      string  `json:"name"`
		Path      string  `json:"path"`
		Snapshots []int64 `json:"snapshots"`
	} `json:"scenarios"`
}

// TestJavaScenarios runs the Java peer's scenarios (interop/java Scenarios.all:
// tables created, written, altered and compacted through Java's API) and reads
// every table with our reader at every snapshot (time travel, the snapshot's
// own schema) and at the latest snapshot (latest schema). Each read must
// return exactly the rows Java's own read returned; where Java's read failed
// (an expected/NAME/*.error file), ours must fail too.
func TestJavaScenarios(t *testing.T) {
	ctx := context.Background()
	java := javaPeer()
	out := workDir(t, "java-scenarios")
	args := []string{out}
	if names := os.Getenv(envScenarios); names != "" {
		args = append(args, strings.Split(names, ",")...)
	}
	start := time.Now()
	if _, err := java.run(ctx, "scenarios", args...); err != nil {
		t.Fatalf("java scenarios: %v", err)
	}
	b, err := os.ReadFile(filepath.Join(out, "scenarios.json"))
	if err != nil {
		t.Fatal(err)
	}
	var l scenarioListing
	if err := json.Unmarshal(b, &l); err != nil {
		t.Fatalf("scenarios.json: %v", err)
	}
	if len(l.Scenarios) == 0 {
		t.Fatal("the Java peer ran no scenario")
	}
	t.Logf("java ran %d scenarios in %v", len(l.Scenarios), time.Since(start).Round(time.Millisecond))
	for _, sc := range l.Scenarios {
		t.Run(sc.Name, func(t *testing.T) {
			path := filepath.Join(out, filepath.FromSlash(sc.Path))
			exp := filepath.Join(out, "expected", sc.Name)
			for _, n := range sc.Snapshots {
				t.Run(fmt.Sprintf("snapshot-%d", n), func(t *testing.T) {
					checkScenarioRead(ctx, t, path, filepath.Join(exp, fmt.Sprintf("snapshot-%d", n)), reader.WithSnapshot(n))
				})
			}
			t.Run("latest", func(t *testing.T) {
				checkScenarioRead(ctx, t, path, filepath.Join(exp, "latest"))
			})
		})
	}
}

// checkScenarioRead compares our read of the table with Java's (base.jsonl),
// or, when Java's read failed (base.error), requires ours to fail too.
func checkScenarioRead(ctx context.Context, t *testing.T, path, base string, opts ...reader.Option) {
	t.Helper()
	got, gerr := tabletest.Cat(ctx, path, opts...)
	jerr, err := os.ReadFile(base + ".error")
	switch {
	case err == nil:
		first, _, _ := strings.Cut(string(jerr), "\n")
		if gerr == nil {
			t.Fatalf("Java's read failed (%s) but ours returned rows:\n%s", first, got)
		}
		t.Logf("both fail: java: %s; go: %v", first, gerr)
		return
	case !errors.Is(err, fs.ErrNotExist):
		t.Fatal(err)
	}
	want, err := os.ReadFile(base + ".jsonl")
	if err != nil {
		t.Fatal(err)
	}
	if gerr != nil {
		t.Fatalf("our reader: %v", gerr)
	}
	compare(t, want, got)
}
