package compaction_test

import (
	"context"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/paimon-go/paimon/compaction"
	"github.com/paimon-go/paimon/fileio"
	"github.com/paimon-go/paimon/internal/tabletest"
	"github.com/paimon-go/paimon/reader"
	"github.com/paimon-go/paimon/schema"
)

// Java-written primary-key tables (testdata/paimon-tables, copied from
// paimon-cpp's test data) compacted here read back the rows the upstream
// tests assert, and every file ends up on level 5.
func TestJavaFixtures(t *testing.T) {
	for _, tc := range []struct {
		table    string
		expected string // all levels merged, as asserted upstream
	}{
		{"pk_table_scan_and_read_mor_parquet", "snapshot5.jsonl"},
		{"pk_table_scan_and_read_first_row_parquet", "snapshot5_all_levels.jsonl"},
	} {
		t.Run(tc.table, func(t *testing.T) {
			ctx := context.Background()
			src := filepath.Join("..", "testdata", "paimon-tables", tc.table)
			dir := t.TempDir()
			if err := os.CopyFS(dir, os.DirFS(src)); err != nil {
				t.Fatal(err)
			}
			raw, err := os.ReadFile(filepath.Join(src, "expected", tc.expected))
			if err != nil {
				t.Fatal(err)
			}
			want := strings.Split(strings.TrimSpace(string(raw)), "\n")
			slices.Sort(want)
			fio, err := fileio.Open(ctx, dir)
			if err != nil {
				t.Fatal(err)
			}
			defer fio.Close()
			ts, err := schema.NewManager(fio, "").Latest(ctx)
			if err != nil {
				t.Fatal(err)
			}
			if got := tabletest.ReadJSONL(t, dir, reader.WithAllLevels()); !slices.Equal(got, want) {
				t.Fatalf("before compaction:\n got %v\nwant %v", got, want)
			}
			id, err := compaction.Compact(ctx, fio, ts, user, compaction.Options{Full: true})
			if err != nil {
				t.Fatal(err)
			}
			if id != 6 {
				t.Fatalf("compaction snapshot %d, want 6", id)
			}
			plan, err := reader.NewScan(fio, reader.WithAllLevels()).Plan(ctx)
			if err != nil {
				t.Fatal(err)
			}
			for _, sp := range plan.Splits {
				for _, f := range sp.Files {
					if f.Level != 5 {
						t.Errorf("%s/%s on level %d", sp.BucketPath, f.FileName, f.Level)
					}
				}
			}
			// A batch read (which skips level 0 for first-row tables) and
			// an all-levels read agree after a full compaction.
			for _, opts := range [][]reader.Option{nil, {reader.WithAllLevels()}} {
				if got := tabletest.ReadJSONL(t, dir, opts...); !slices.Equal(got, want) {
					t.Fatalf("after compaction:\n got %v\nwant %v", got, want)
				}
			}
		})
	}
}
