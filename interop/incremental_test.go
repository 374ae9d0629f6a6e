//go:build interop

package interop

import (
	"context"
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/paimon-go/paimon/reader"
)

// TestJavaIncremental: Java (interop/java IncrementalCases) writes
// primary-key tables with changelog-producer none, input, lookup and
// full-compaction, a deletion-vector table and an append table (APPEND,
// COMPACT and, for the producers, changelog snapshots), and reads each with
// incremental-between ranges (start before the first snapshot, the whole
// history, one snapshot, start == end) in every scan mode through
// table.copy(options): plainly and through AuditLogTable. Our
// WithIncrementalBetween read (with WithRowKind for the audit_log read) must
// give the same rows, or fail where Java fails (a diff from snapshot 0).
// Rows are compared as multisets: Java's order within a split follows its
// split generator.
func TestJavaIncremental(t *testing.T) {
	ctx := context.Background()
	out := workDir(t, "java-incremental")
	if _, err := javaPeer().run(ctx, "incremental", out); err != nil {
		t.Fatalf("java incremental: %v", err)
	}
	b, err := os.ReadFile(filepath.Join(out, "incremental.json"))
	if err != nil {
		t.Fatal(err)
	}
	var l struct {
		Tables []struct {
			Name  string `json:"name"`
			Path  string `json:"path"`
			Cases []struct {
				Between string `json:"between"`
				Mode    string `json:"mode"`
				Name    string `json:"name"`
			} `json:"cases"`
		} `json:"tables"`
	}
	if err := json.Unmarshal(b, &l); err != nil {
		t.Fatalf("incremental.json: %v", err)
	}
	if len(l.Tables) != 6 {
		t.Fatalf("java wrote %d tables, want 6", len(l.Tables))
	}
	for _, tbl := range l.Tables {
		t.Run(tbl.Name, func(t *testing.T) {
			path := filepath.Join(out, filepath.FromSlash(tbl.Path))
			exp := filepath.Join(out, "expected", tbl.Name)
			for _, c := range tbl.Cases {
				from, to, _ := strings.Cut(c.Between, ",")
				opts := []reader.Option{reader.WithIncrementalBetween(from, to), reader.WithIncrementalMode(reader.IncrementalMode(c.Mode))}
				t.Run(c.Name, func(t *testing.T) {
					checkScenarioRead(ctx, t, path, filepath.Join(exp, c.Name), opts...)
				})
				t.Run(c.Name+".audit", func(t *testing.T) {
					checkScenarioRead(ctx, t, path, filepath.Join(exp, c.Name+".audit"), append(opts, reader.WithRowKind())...)
				})
			}
		})
	}
}
