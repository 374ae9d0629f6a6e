package compaction_test

import (
	"context"
	"fmt"
	"testing"

	"github.com/apache/arrow-go/v18/arrow"

	"github.com/paimon-go/paimon/catalog"
	"github.com/paimon-go/paimon/compaction"
	"github.com/paimon-go/paimon/internal/tabletest"
	"github.com/paimon-go/paimon/types"
	"github.com/paimon-go/paimon/writer"
)

// TestLookupMergeMixedLevelRuns: a full compaction of a lookup table whose
// sections pack files of levels 3, 4 and 5 into one sorted run
// (IntervalPartition ignores levels): the lookup merge must pick records
// by their file's level (the old run-level tagging kept key 3's older
// level-4 value "c" over level 3's "C").
func TestLookupMergeMixedLevelRuns(t *testing.T) {
	ctx := context.Background()
	fields := []types.DataField{{ID: 0, Name: "k", Type: types.Int().NotNull()}, {ID: 1, Name: "v", Type: types.String()}}
	tbl := tabletest.NewTable(t, "", catalog.Schema{Fields: fields, PrimaryKeys: []string{"k"}, Options: map[string]string{"bucket": "1", "changelog-producer": "lookup"}})
	sc := types.SchemaToArrow(fields)
	sc = arrow.NewSchema(append(sc.Fields(), arrow.Field{Name: writer.DefaultRowKindColumn, Type: arrow.PrimitiveTypes.Int8}), nil)
	commits := [][][]any{
		{{int32(1), "a", int8(0)}, {int32(2), "b", int8(0)}},
		{{int32(2), "B", int8(2)}, {int32(1), "a", int8(3)}, {int32(3), "c", int8(0)}},
		{{int32(4), "d", int8(0)}, {int32(3), "C", int8(2)}},
		nil,
		{{int32(4), "d", int8(3)}, {int32(5), "e", int8(0)}},
	}
	want := []string{
		"[L5 rows=2 deletes=0 source=0][1|a 2|b]",
		"[L4 rows=3 deletes=1 source=0 L5 rows=2 deletes=0 source=0][2|B 3|c]",
		"[L3 rows=2 deletes=0 source=0 L4 rows=3 deletes=1 source=0 L5 rows=2 deletes=0 source=0][2|B 3|C 4|d]",
		"[L5 rows=3 deletes=0 source=1][2|B 3|C 4|d]",
		"[L4 rows=2 deletes=1 source=0 L5 rows=3 deletes=0 source=1][2|B 3|C 5|e]",
	}
	for i, rows := range commits {
		if rows == nil {
			if _, err := compaction.Compact(ctx, tbl.FileIO, tbl.Schema, "go-compact", compaction.Options{Full: true}); err != nil {
				t.Fatal(err)
			}
		} else {
			rec, err := tabletest.NewBatch(sc, rows...)
			if err != nil {
				t.Fatal(err)
			}
			if _, err := tabletest.Commit(ctx, tbl, "u", int64(i+1), rec); err != nil {
				t.Fatal(err)
			}
		}
		if got := fmt.Sprint(describe(liveFiles(t, tbl))) + fmt.Sprint(tabletest.ReadRows(t, tbl.FileIO.URL())); got != want[i] {
			t.Fatalf("after step %d: got %s, want %s", i+1, got, want[i])
		}
	}
}
