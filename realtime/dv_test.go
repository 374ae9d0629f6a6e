package realtime_test

import (
	"context"
	"fmt"
	"maps"
	"slices"
	"testing"

	"github.com/paimon-go/paimon/reader"
	"github.com/paimon-go/paimon/snapshot"
)

// TestDeletionVectorsRealtime: real-time writes and commits on a
// primary-key table with deletion vectors. The flush writer compacts level
// 0 at every prepare, marking the replaced rows in deletion vectors that
// the commit publishes in an index manifest, so a plain batch read of the
// latest snapshot (which skips level 0 of such tables) returns exactly the
// committed rows, and a union read (memory rows merged with every level,
// deletion vectors applied) returns exactly the model, before and after
// each commit.
func TestDeletionVectorsRealtime(t *testing.T) {
	tbl := newFooTable(t, []string{"id"}, nil, map[string]string{
		"deletion-vectors.enabled": "true", "num-sorted-run.compaction-trigger": "3",
	})
	rc := newContext(t, tbl)
	w := newWrite(t, rc, "u")
	cm := newCommit(t, rc, "u")

	model := map[int64]string{}
	rows := func(m map[int64]string) []string {
		var out []string
		for id, p := range m {
			out = append(out, fmt.Sprintf("%d|%s|x", id, p))
		}
		slices.Sort(out)
		return out
	}
	steps := [][][]any{
		{{int64(1), "a1", "x", "+I"}, {int64(2), "b1", "x", "+I"}, {int64(3), "c1", "x", "+I"}, {int64(4), "d1", "x", "+I"}},
		{{int64(2), "b2", "x", "+U"}, {int64(3), "c1", "x", "-D"}, {int64(5), "e1", "x", "+I"}},
		{{int64(1), "a3", "x", "+U"}, {int64(2), "b3", "x", "+U"}, {int64(3), "c3", "x", "+I"}},
		{{int64(4), "d1", "x", "-D"}, {int64(5), "e4", "x", "+U"}, {int64(6), "f4", "x", "+I"}},
	}
	for i, st := range steps {
		what := fmt.Sprintf("step %d", i+1)
		committed := maps.Clone(model)
		write(t, w, kindRows(t, st...))
		for _, r := range st {
			if r[3] == "-D" {
				delete(model, r[0].(int64))
			} else {
				model[r[0].(int64)] = r[1].(string)
			}
		}
		equal(t, what+": union before commit", sortedScan(t, rc), rows(model))
		equal(t, what+": disk before commit", diskRows(t, tbl), rows(committed))
		id := int64(i + 1)
		snap := commitProg(t, cm, prepare(t, w, id), id)
		refresh(t, rc, snap)
		equal(t, what+": union after commit", sortedScan(t, rc), rows(model))
		equal(t, what+": batch read", diskRows(t, tbl), rows(model))
		equal(t, what+": all levels", diskRows(t, tbl, reader.WithAllLevels()), rows(model))
	}
	// The updates and deletes left deletion vectors, named by the latest
	// snapshot's index manifest.
	ctx := context.Background()
	m := snapshot.NewManager(tbl.FileIO)
	latest, err := m.LatestID(ctx)
	if err != nil {
		t.Fatal(err)
	}
	s, err := m.Get(ctx, latest)
	if err != nil {
		t.Fatal(err)
	}
	if s.IndexManifest == nil || *s.IndexManifest == "" {
		t.Errorf("snapshot %d has no index manifest", latest)
	}
	plan, err := reader.NewScan(tbl.FileIO, reader.WithAllLevels()).Plan(ctx)
	if err != nil {
		t.Fatal(err)
	}
	dvs := 0
	for _, sp := range plan.Splits {
		dvs += len(sp.DeletionFiles)
		for _, f := range sp.Files {
			if f.Level == 0 {
				t.Errorf("level-0 file %s left after the commits", f.FileName)
			}
		}
	}
	if dvs == 0 {
		t.Error("no data file has a deletion vector")
	}
}
