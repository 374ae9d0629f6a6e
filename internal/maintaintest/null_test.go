package maintaintest

import (
	"context"
	"testing"

	"github.com/paimon-go/paimon/catalog"
	"github.com/paimon-go/paimon/internal/tabletest"
	"github.com/paimon-go/paimon/reader"
	"github.com/paimon-go/paimon/types"
)

// nullFilter is a filter of case (e) over the STRING column c, with the ids
// of the rows it returns.
type nullFilter struct {
	where string
	ids   []int32
}

// TestIsNullUnknownNullCount is case (e), first half (apache/paimon reports
// of IS NULL filters dropping files): a file whose null count of c is
// unknown — statistics mode none for the whole table or for c alone, dense
// or sparse stats storage — is never pruned by c IS NULL, and files with
// known counts give the same rows; for append and primary-key tables.
func TestIsNullUnknownNullCount(t *testing.T) {
	fields := []types.DataField{{Name: "id", Type: types.Int().NotNull()}, {Name: "c", Type: types.String()}}
	// Three files: a null among values, no null, only nulls.
	files := [][][]any{
		{{int32(1), "x", "+I"}, {int32(2), nil, "+I"}},
		{{int32(3), "y", "+I"}, {int32(4), "z", "+I"}},
		{{int32(5), nil, "+I"}, {int32(6), nil, "+I"}},
	}
	filters := []nullFilter{
		{"c IS NULL", []int32{2, 5, 6}},
		{"c IS NOT NULL", []int32{1, 3, 4}},
		{"c IS NULL OR c = 'y'", []int32{2, 3, 5, 6}},
		{"c = 'y'", []int32{3}},
	}
	for _, stats := range []struct {
		name    string
		options map[string]string
	}{
		{"none", map[string]string{"metadata.stats-mode": "none"}},
		{"none-sparse", map[string]string{"metadata.stats-mode": "none", "metadata.stats-dense-store": "false"}},
		{"field-none", map[string]string{"fields.c.stats-mode": "none"}},
		{"field-none-sparse", map[string]string{"fields.c.stats-mode": "none", "metadata.stats-dense-store": "false"}},
		{"counts", map[string]string{"metadata.stats-mode": "counts"}},
		{"full", map[string]string{"metadata.stats-mode": "full"}},
		{"default", map[string]string{}},
	} {
		for _, pk := range []bool{false, true} {
			name := stats.name + "/append"
			opts := map[string]string{"bucket": "-1"}
			var keys []string
			if pk {
				name, opts["bucket"], keys = stats.name+"/primary-key", "1", []string{"id"}
			}
			t.Run(name, func(t *testing.T) {
				for k, v := range stats.options {
					opts[k] = v
				}
				tbl := tabletest.NewTable(t, "", catalog.Schema{Fields: fields, PrimaryKeys: keys, Options: opts})
				all := map[int32][]any{}
				for _, rows := range files {
					writeCommit(t, tbl, tbl.Schema, rows...)
					for _, r := range rows {
						all[r[0].(int32)] = r[:2]
					}
				}
				for _, f := range filters {
					var want [][]any
					for _, id := range f.ids {
						want = append(want, all[id])
					}
					expectRows(t, f.where, tbl, tbl.Schema.Fields, want, reader.WithWhere(f.where))
				}
			})
		}
	}
}

// TestIsNullAddedColumn is case (e), second half: files written before
// column c was added (catalog AlterTable) hold no statistics for it, and c
// IS NULL must return their rows, before and after compaction rewrote them
// (primary key) and with the filter given as a predicate or as text.
func TestIsNullAddedColumn(t *testing.T) {
	ctx := context.Background()
	for _, pk := range []bool{false, true} {
		name, opts, keys := "append", map[string]string{"bucket": "-1"}, []string(nil)
		if pk {
			name, opts, keys = "primary-key", map[string]string{"bucket": "1"}, []string{"id"}
		}
		t.Run(name, func(t *testing.T) {
			wh := "file://" + t.TempDir()
			tbl := tabletest.NewTable(t, wh, catalog.Schema{Fields: []types.DataField{
				{Name: "id", Type: types.Int().NotNull()}, {Name: "v", Type: types.String()},
			}, PrimaryKeys: keys, Options: opts})
			writeCommit(t, tbl, tbl.Schema, []any{int32(1), "a", "+I"}, []any{int32(2), "b", "+I"})
			cat, err := catalog.Open(ctx, wh)
			if err != nil {
				t.Fatal(err)
			}
			defer cat.Close()
			id := catalog.NewIdentifier(tabletest.Database, tabletest.Table)
			if _, err := cat.AlterTable(ctx, id, catalog.AddColumn{Name: "c", Type: types.String()}); err != nil {
				t.Fatal(err)
			}
			tbl, err = cat.GetTable(ctx, id)
			if err != nil {
				t.Fatal(err)
			}
			writeCommit(t, tbl, tbl.Schema, []any{int32(3), "c", "x", "+I"}, []any{int32(4), "d", nil, "+I"})
			check := func(stage string) {
				t.Helper()
				for _, f := range []struct {
					where string
					rows  [][]any
				}{
					{"c IS NULL", [][]any{{int32(1), "a", nil}, {int32(2), "b", nil}, {int32(4), "d", nil}}},
					{"c IS NOT NULL", [][]any{{int32(3), "c", "x"}}},
					{"c = 'x'", [][]any{{int32(3), "c", "x"}}},
					{"c IS NULL AND v = 'a'", [][]any{{int32(1), "a", nil}}},
					{"c <> 'x'", nil},
				} {
					expectRows(t, stage+": "+f.where, tbl, tbl.Schema.Fields, f.rows, reader.WithWhere(f.where))
				}
			}
			check("old files without c")
			if pk {
				compact(t, tbl, true, true)
				check("after full compaction")
			}
		})
	}
}
