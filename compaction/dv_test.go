package compaction_test

import (
	"context"
	"errors"
	"fmt"
	"slices"
	"strings"
	"testing"

	"github.com/paimon-go/paimon/catalog"
	"github.com/paimon-go/paimon/compaction"
	"github.com/paimon-go/paimon/deletionvector"
	"github.com/paimon-go/paimon/manifest"
	"github.com/paimon-go/paimon/reader"
)

// dvFiles describes the live files of the latest snapshot as
// "L<level> rows=<n> dv=<deleted positions>" (positions as in the deletion
// vector the snapshot's index manifest names), by level.
func dvFiles(t *testing.T, tbl *catalog.Table) []string {
	t.Helper()
	ctx := context.Background()
	plan, err := reader.NewScan(tbl.FileIO, reader.WithAllLevels()).Plan(ctx)
	if err != nil {
		t.Fatal(err)
	}
	var out []string
	for _, sp := range plan.Splits {
		for _, f := range sp.Files {
			var pos []string
			if df, ok := sp.DeletionFiles[f.FileName]; ok {
				dv, err := deletionvector.ReadOne(ctx, tbl.FileIO, df.IndexFile, df.Offset, df.Length)
				if err != nil {
					t.Fatal(err)
				}
				for p := range dv.All() {
					pos = append(pos, fmt.Sprint(p))
				}
			}
			out = append(out, fmt.Sprintf("L%d rows=%d dv=%s", f.Level, f.RowCount, strings.Join(pos, ",")))
		}
	}
	slices.Sort(out)
	return out
}

// indexFiles returns the names of the deletion-vector index files the
// latest snapshot's index manifest lists.
func indexFiles(t *testing.T, tbl *catalog.Table) []string {
	t.Helper()
	s := latest(t, tbl)
	if s.IndexManifest == nil {
		return nil
	}
	entries, err := manifest.ReadIndexManifest(context.Background(), tbl.FileIO, *s.IndexManifest)
	if err != nil {
		t.Fatal(err)
	}
	var out []string
	for _, e := range entries {
		out = append(out, e.IndexFile.FileName)
	}
	return out
}

// TestDeletionVectorsDedicated: the dedicated compaction of a
// deletion-vector table written without compaction (write-only). Forcing
// level 0 up marks the replaced rows of the level above in the bucket's
// deletion vectors and publishes them as one index file per bucket, which
// the next compaction replaces; the plain batch read (level 0 skipped) and
// the read of all levels agree after every compaction. A result that is
// discarded deletes its index file too, and a full compaction leaves no
// vector behind.
func TestDeletionVectorsDedicated(t *testing.T) {
	ctx := context.Background()
	tbl := newPKTable(t, map[string]string{"deletion-vectors.enabled": "true"})
	check := func(what string, want []string) {
		t.Helper()
		checkRows(t, tbl, want)
		checkRows(t, tbl, want, reader.WithAllLevels())
	}
	commitRows(t, tbl, nil, baseRows(baseN)...)
	// Level 0 only: the batch read skips it, a read of all levels merges it.
	checkRows(t, tbl, nil)
	checkRows(t, tbl, baseExpect(baseN, nil), reader.WithAllLevels())
	// A single level-0 run goes to level 5 as it is.
	compact(t, tbl, false)
	check("base", baseExpect(baseN, nil))
	if got := dvFiles(t, tbl); !slices.Equal(got, []string{"L5 rows=2000 dv="}) {
		t.Fatalf("base files %v", got)
	}
	if idx := indexFiles(t, tbl); len(idx) != 0 {
		t.Fatalf("index files without deletion vectors: %v", idx)
	}

	// Level 0 with a delete goes to level 4 (level 5 is far larger) and is
	// rewritten: keys 1 and 2 of level 5 (rows 1, 2) are marked, the delete
	// is dropped.
	commitRows(t, tbl, nil, upd(1, "b1", int64(11)), del(2), ins(5000, "z", int64(0)))
	compact(t, tbl, false)
	want := baseExpect(baseN, map[int32][]any{1: {1, "b1", 11}, 2: nil, 5000: {5000, "z", 0}})
	check("update and delete", want)
	if got := dvFiles(t, tbl); !slices.Equal(got, []string{"L4 rows=2 dv=", "L5 rows=2000 dv=1,2"}) {
		t.Fatalf("files after the first lookup %v", got)
	}
	first := indexFiles(t, tbl)
	if len(first) != 1 {
		t.Fatalf("index files %v", first)
	}

	// The next compaction replaces that index file; a discarded result
	// deletes the new one with its data files.
	commitRows(t, tbl, nil, upd(3, "c3", int64(33)), upd(1999, "d", int64(9)))
	p, err := compaction.NewPlan(ctx, tbl.FileIO, tbl.Schema, compaction.Options{})
	if err != nil {
		t.Fatal(err)
	}
	res, err := p.Execute(ctx)
	if err != nil {
		t.Fatal(err)
	}
	if len(res.Messages) != 1 {
		t.Fatalf("%d messages", len(res.Messages))
	}
	ci := res.Messages[0].Compact
	if lv := res.Messages[0].Levels; lv == nil || lv.DeletesKept || len(lv.Files) != len(p.Tasks[0].Levels.AllFiles()) {
		t.Fatalf("levels %+v: want the plan's %d files, deletes dropped (deletion vectors, output above level 0)", lv, len(p.Tasks[0].Levels.AllFiles()))
	}
	if len(ci.NewIndexFiles) != 1 || len(ci.DeletedIndexFiles) != 1 || ci.DeletedIndexFiles[0].FileName != first[0] {
		t.Fatalf("index changes: new %+v, deleted %+v (live %v)", ci.NewIndexFiles, ci.DeletedIndexFiles, first)
	}
	newIdx := deletionvector.Path(ci.NewIndexFiles[0].FileName)
	if !slices.Contains(res.Written, newIdx) {
		t.Errorf("Written %v lacks %s", res.Written, newIdx)
	}
	if err := res.Discard(ctx, tbl.FileIO); err != nil {
		t.Fatal(err)
	}
	for _, w := range res.Written {
		if ok, err := tbl.FileIO.Exists(ctx, w); ok || err != nil {
			t.Errorf("discarded %s: exists %v, %v", w, ok, err)
		}
	}
	compact(t, tbl, false)
	want = baseExpect(baseN, map[int32][]any{1: {1, "b1", 11}, 2: nil, 3: {3, "c3", 33}, 1999: {1999, "d", 9}, 5000: {5000, "z", 0}})
	check("second lookup", want)
	if idx := indexFiles(t, tbl); len(idx) != 1 || idx[0] == first[0] {
		t.Fatalf("index files after the second lookup %v (first %v)", idx, first)
	}
	var marked int
	for _, f := range dvFiles(t, tbl) {
		if f == "L5 rows=2000 dv=1,2,3,1999" {
			marked++
		}
	}
	if marked != 1 {
		t.Errorf("files after the second lookup %v: want level 5 rows 1,2,3,1999 deleted", dvFiles(t, tbl))
	}

	// Full compaction: one file, every vector dropped with the files it
	// belonged to.
	compact(t, tbl, true)
	check("full", want)
	if got := dvFiles(t, tbl); !slices.Equal(got, []string{"L5 rows=2000 dv="}) {
		t.Fatalf("files after full compaction %v", got)
	}
	if idx := indexFiles(t, tbl); len(idx) != 0 {
		t.Fatalf("index files after full compaction %v", idx)
	}
}

// TestDeletionVectorsTaskWithoutVectors: a deletion-vector task must carry
// the bucket's Maintainer.
func TestDeletionVectorsTaskWithoutVectors(t *testing.T) {
	ctx := context.Background()
	tbl := newPKTable(t, map[string]string{"deletion-vectors.enabled": "true"})
	commitRows(t, tbl, nil, baseRows(3)...)
	p, err := compaction.NewPlan(ctx, tbl.FileIO, tbl.Schema, compaction.Options{})
	if err != nil {
		t.Fatal(err)
	}
	if len(p.Tasks) != 1 || p.Tasks[0].DVs == nil {
		t.Fatalf("tasks %+v", p.Tasks)
	}
	r, err := compaction.NewRewriter(tbl.FileIO, tbl.Schema, compaction.RewriterOptions{})
	if err != nil {
		t.Fatal(err)
	}
	task := p.Tasks[0]
	task.DVs = nil
	if _, err := r.Run(ctx, &task); !errors.Is(err, compaction.ErrInvalidArgument) {
		t.Fatalf("task without deletion vectors: %v", err)
	}
}
