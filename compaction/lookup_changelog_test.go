package compaction_test

import (
	"context"
	"fmt"
	"maps"
	"slices"
	"strings"
	"testing"

	"github.com/apache/arrow-go/v18/arrow"

	"github.com/paimon-go/paimon/catalog"
	"github.com/paimon-go/paimon/compaction"
	"github.com/paimon-go/paimon/internal/tabletest"
	"github.com/paimon-go/paimon/reader"
	"github.com/paimon-go/paimon/types"
	"github.com/paimon-go/paimon/writer"
)

// mixedLevelSteps writes the interop incremental input (interop
// incremental_test.go) into a new changelog-producer = lookup table with
// opts: three commits (the writer's lookup compaction at each), a full
// compaction, a fourth commit; after step i it calls check(i, table).
func mixedLevelSteps(t *testing.T, opts map[string]string, check func(i int, tbl *catalog.Table)) *catalog.Table {
	t.Helper()
	ctx := context.Background()
	fields := []types.DataField{{ID: 0, Name: "k", Type: types.Int().NotNull()}, {ID: 1, Name: "v", Type: types.String()}}
	o := map[string]string{"bucket": "1", "changelog-producer": "lookup"}
	maps.Copy(o, opts)
	tbl := tabletest.NewTable(t, "", catalog.Schema{Fields: fields, PrimaryKeys: []string{"k"}, Options: o})
	sc := types.SchemaToArrow(fields)
	sc = arrow.NewSchema(append(sc.Fields(), arrow.Field{Name: writer.DefaultRowKindColumn, Type: arrow.PrimitiveTypes.Int8}), nil)
	commits := [][][]any{
		{{int32(1), "a", int8(0)}, {int32(2), "b", int8(0)}},
		{{int32(2), "B", int8(2)}, {int32(1), "a", int8(3)}, {int32(3), "c", int8(0)}},
		{{int32(4), "d", int8(0)}, {int32(3), "C", int8(2)}},
		nil,
		{{int32(4), "d", int8(3)}, {int32(5), "e", int8(0)}},
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
		check(i, tbl)
	}
	return tbl
}

// TestLookupMergeMixedLevelRuns: a full compaction of a lookup table whose
// sections pack files of levels 3, 4 and 5 into one sorted run
// (IntervalPartition ignores levels): the lookup merge must pick records
// by their file's level (the old run-level tagging kept key 3's older
// level-4 value "c" over level 3's "C").
func TestLookupMergeMixedLevelRuns(t *testing.T) {
	want := []string{
		"[L5 rows=2 deletes=0 source=0][1|a 2|b]",
		"[L4 rows=3 deletes=1 source=0 L5 rows=2 deletes=0 source=0][2|B 3|c]",
		"[L3 rows=2 deletes=0 source=0 L4 rows=3 deletes=1 source=0 L5 rows=2 deletes=0 source=0][2|B 3|C 4|d]",
		"[L5 rows=3 deletes=0 source=1][2|B 3|C 4|d]",
		"[L4 rows=2 deletes=1 source=0 L5 rows=3 deletes=0 source=1][2|B 3|C 5|e]",
	}
	mixedLevelSteps(t, nil, func(i int, tbl *catalog.Table) {
		if got := fmt.Sprint(describe(liveFiles(t, tbl))) + fmt.Sprint(tabletest.ReadRows(t, tbl.FileIO.URL())); got != want[i] {
			t.Fatalf("after step %d: got %s, want %s", i+1, got, want[i])
		}
	})
}

// TestLookupChangelogMixedLevelRuns: the writer's lookup compaction of a
// deletion-vector table at its third commit rewrites a section whose sorted
// run packs the new level-0 file (key 4) with level-4 files: the value
// before must be looked up by file level (the old regrouping took the run's
// first file's level for all, found key 4 in its own level-0 file and
// emitted -U/+U instead of +I; Java's read of our table showed it).
func TestLookupChangelogMixedLevelRuns(t *testing.T) {
	files := []string{
		"[L5 rows=2 dv=]", "[L4 rows=2 dv= L5 rows=2 dv=0,1]", "[L5 rows=3 dv=]", "[L5 rows=3 dv=]", "[L4 rows=1 dv= L5 rows=3 dv=2]",
	}
	tbl := mixedLevelSteps(t, map[string]string{"deletion-vectors.enabled": "true"}, func(i int, tbl *catalog.Table) {
		if got := fmt.Sprint(dvFiles(t, tbl)); got != files[i] {
			t.Fatalf("files after step %d: %s, want %s", i+1, got, files[i])
		}
	})
	var got []string
	for s := 1; s < 8; s++ {
		b, err := tabletest.Cat(context.Background(), tbl.FileIO.URL(), reader.WithIncrementalBetween(fmt.Sprint(s), fmt.Sprint(s+1)), reader.WithRowKind())
		if err != nil {
			t.Fatal(err)
		}
		got = append(got, fmt.Sprintf("%d: %s", s+1, strings.ReplaceAll(strings.TrimSpace(string(b)), "\n", " ")))
	}
	want := []string{
		`2: {"rowkind":"+I","k":1,"v":"a"} {"rowkind":"+I","k":2,"v":"b"}`,
		`3: `,
		`4: {"rowkind":"-D","k":1,"v":"a"} {"rowkind":"-U","k":2,"v":"b"} {"rowkind":"+U","k":2,"v":"B"} {"rowkind":"+I","k":3,"v":"c"}`,
		`5: `,
		`6: {"rowkind":"-U","k":3,"v":"c"} {"rowkind":"+U","k":3,"v":"C"} {"rowkind":"+I","k":4,"v":"d"}`,
		`7: `,
		`8: {"rowkind":"-D","k":4,"v":"d"} {"rowkind":"+I","k":5,"v":"e"}`,
	}
	if !slices.Equal(got, want) {
		t.Fatalf("changelog per snapshot:\n got %q\nwant %q", got, want)
	}
	// The whole range reads the same changes in commit order, although the
	// changelog files sit at their compactions' output levels.
	b, err := tabletest.Cat(context.Background(), tbl.FileIO.URL(), reader.WithIncrementalBetween("1", "8"), reader.WithRowKind())
	if err != nil {
		t.Fatal(err)
	}
	var whole []string
	for _, w := range want {
		if _, rows, _ := strings.Cut(w, ": "); rows != "" {
			whole = append(whole, rows)
		}
	}
	if got, want := strings.ReplaceAll(strings.TrimSpace(string(b)), "\n", " "), strings.Join(whole, " "); got != want {
		t.Fatalf("changelog of (1, 8]:\n got %s\nwant %s", got, want)
	}
}
