//go:build interop

package interop

import (
	"context"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/paimon-go/paimon/format/cast"
	"github.com/paimon-go/paimon/internal/tabletest"
	"github.com/paimon-go/paimon/reader"
)

// castQueries are the queries of the Java scenarios casts2_lazy_*
// (ScenariosCasts2.QUERIES): name, projected columns, and the filter.
var castQueries = []struct{ name, cols, where string }{
	{"where_id_2", "id,s,n", "id = 2"},
	{"where_id_1_cols_id", "id", "id = 1"},
	{"cols_id", "id", ""},
	{"cols_id_s_where_id_3", "id,s", "id = 3"},
	{"where_id_1_cols_id_n", "id,n", "id = 1"},
	{"where_s_12", "id,s", "s = 12"},
}

// TestJavaCastQueries runs the Java scenarios casts2_lazy_* (an old file
// holding a STRING that does not parse as the column's new INT type and a
// DECIMAL that overflows its new precision, next to castable rows; in
// casts2_lazy_pk_* a primary-key table where a later commit superseded
// them) and
// compares our filtered and projected reads with Java's (Java casts a
// field only when it is read): where Java returns rows we return exactly
// them, where Java's read fails ours fails with cast.ErrInvalid.
// TestJavaScenarios checks the same tables' full reads at every snapshot.
func TestJavaCastQueries(t *testing.T) {
	ctx := context.Background()
	java := javaPeer()
	out := workDir(t, "java-cast-queries")
	names := []string{"casts2_lazy_parquet", "casts2_lazy_orc", "casts2_lazy_avro",
		"casts2_lazy_pk_parquet", "casts2_lazy_pk_orc", "casts2_lazy_pk_avro"}
	if _, err := java.run(ctx, "scenarios", append([]string{out}, names...)...); err != nil {
		t.Fatalf("java scenarios: %v", err)
	}
	for _, name := range names {
		t.Run(name, func(t *testing.T) {
			path := filepath.Join(out, "warehouse", "interop.db", name)
			for _, q := range castQueries {
				t.Run(q.name, func(t *testing.T) {
					opts := []reader.Option{reader.WithColumns(strings.Split(q.cols, ",")...)}
					if q.where != "" {
						opts = append(opts, reader.WithWhere(q.where))
					}
					got, gerr := tabletest.Cat(ctx, path, opts...)
					base := filepath.Join(out, "expected", name, "query-"+q.name)
					jerr, err := os.ReadFile(base + ".error")
					switch {
					case err == nil:
						first, _, _ := strings.Cut(string(jerr), "\n")
						if !errors.Is(gerr, cast.ErrInvalid) {
							t.Fatalf("Java's read failed (%s); ours: %v, rows:\n%s", first, gerr, got)
						}
						t.Logf("both fail: java: %s; go: %v", first, gerr)
						return
					case !errors.Is(err, fs.ErrNotExist):
						t.Fatal(err)
					}
					want, err := os.ReadFile(base + ".jsonl")
					if err != nil {
						t.Fatal(fmt.Errorf("no Java result for query %s: %w", q.name, err))
					}
					if gerr != nil {
						t.Fatalf("our reader: %v", gerr)
					}
					compare(t, want, got)
				})
			}
		})
	}
}
