package compaction_test

import (
	"context"
	"errors"
	"strings"
	"testing"

	"github.com/paimon-go/paimon/catalog"
	"github.com/paimon-go/paimon/deletionvector"
	"github.com/paimon-go/paimon/fileio"
	"github.com/paimon-go/paimon/manifest"
	"github.com/paimon-go/paimon/reader"
	"github.com/paimon-go/paimon/snapshot"
)

// TestPostponeCompactionLookup: the postpone compaction of the tables Java
// compacts with lookup (deletion vectors with deduplicate and with
// partial-update, first-row), whose batch reads skip level 0. Rows
// written into 3 real buckets (postpone.batch-write-fixed-bucket, level 0)
// become visible with a first postpone compaction; then two postpone
// commits updating, deleting and adding keys; one Compact
// makes every postpone row visible with the merge engine's result, leaves
// no level-0 file, marks the replaced real-bucket rows in deletion vectors
// (deletion-vector tables), deletes the intermediate level-0 files, and
// commits it all in one COMPACT snapshot. A second postpone round on top of
// the compacted table works the same way.
func TestPostponeCompactionLookup(t *testing.T) {
	for _, tc := range []struct {
		name   string
		opts   map[string]string
		round1 [][]any
		want1  []string
		round2 [][]any
		want2  []string
		// deleted are the rows the deletion vectors delete after each of
		// the three compactions: the first one fully compacts each bucket
		// into the highest level; later ones bring a bucket's new rows to
		// level 4 (above the level-5 run) and mark the versions they
		// replace on level 5.
		deleted [3]int64
	}{{
		name: "dv-deduplicate",
		opts: map[string]string{"deletion-vectors.enabled": "true"},
		round1: [][]any{
			{int32(1), int32(1), "b1", "+I"}, {int32(1), int32(5), "b5", "+I"},
			{int32(1), int32(1), "b1x", "+U"}, {int32(1), int32(2), nil, "-D"},
			{int32(2), int32(7), "c7", "+I"}, {int32(2), int32(8), "c8", "+I"},
		},
		want1: []string{"1|1|b1x", "1|3|a3", "1|4|a4", "1|5|b5", "2|7|c7", "2|8|c8"},
		round2: [][]any{
			{int32(1), int32(5), "d5", "+I"}, {int32(1), int32(2), "d2", "+I"},
			{int32(1), int32(3), nil, "-D"}, {int32(2), int32(8), nil, "-D"},
		},
		want2:   []string{"1|1|b1x", "1|2|d2", "1|4|a4", "1|5|d5", "2|7|c7"},
		deleted: [3]int64{0, 1, 3},
	}, {
		name: "dv-partial-update",
		opts: map[string]string{"deletion-vectors.enabled": "true", "merge-engine": "partial-update"},
		round1: [][]any{
			{int32(1), int32(1), nil, "+I"}, {int32(1), int32(2), "b2", "+I"},
			{int32(1), int32(5), "b5", "+I"}, {int32(1), int32(5), nil, "+I"},
			{int32(2), int32(7), "c7", "+I"},
		},
		want1: []string{"1|1|a1", "1|2|b2", "1|3|a3", "1|4|a4", "1|5|b5", "2|7|c7"},
		round2: [][]any{
			{int32(1), int32(2), nil, "+I"}, {int32(1), int32(3), "d3", "+I"},
			{int32(2), int32(7), nil, "+I"}, {int32(2), int32(9), "d9", "+I"},
		},
		want2:   []string{"1|1|a1", "1|2|b2", "1|3|d3", "1|4|a4", "1|5|b5", "2|7|c7", "2|9|d9"},
		deleted: [3]int64{0, 1, 1},
	}, {
		name: "first-row",
		opts: map[string]string{"merge-engine": "first-row"},
		round1: [][]any{
			{int32(1), int32(1), "b1", "+I"}, {int32(1), int32(5), "b5", "+I"},
			{int32(1), int32(5), "b5x", "+I"}, {int32(2), int32(7), "c7", "+I"},
		},
		want1: []string{"1|1|a1", "1|2|a2", "1|3|a3", "1|4|a4", "1|5|b5", "2|7|c7"},
		round2: [][]any{
			{int32(1), int32(5), "d5", "+I"}, {int32(1), int32(6), "d6", "+I"},
			{int32(2), int32(7), "d7", "+I"},
		},
		want2: []string{"1|1|a1", "1|2|a2", "1|3|a3", "1|4|a4", "1|5|b5", "1|6|d6", "2|7|c7"},
	}} {
		t.Run(tc.name, func(t *testing.T) {
			tc.opts["postpone.default-bucket-num"] = "2"
			tbl := newPostponeTable(t, tc.opts)
			// A fixed-bucket batch write is write-only (Java
			// PostponeUtils.tableForFixBucketWrite): its level-0 files stay
			// invisible until a postpone compaction brings them up with
			// postpone rows routed into their buckets (as Java's, it only
			// writes the buckets the postpone rows go to; here the same
			// rows again, which every merge engine keeps as they are).
			writePostpone(t, tbl, [][]any{
				{int32(1), int32(1), "a1", "+I"}, {int32(1), int32(2), "a2", "+I"}, {int32(1), int32(3), "a3", "+I"},
			}, "postpone.batch-write-fixed-bucket", "true", "postpone.default-bucket-num", "3")
			checkRows(t, tbl, nil)
			writePostpone(t, tbl, [][]any{
				{int32(1), int32(1), "a1", "+I"}, {int32(1), int32(2), "a2", "+I"},
				{int32(1), int32(3), "a3", "+I"}, {int32(1), int32(4), "a4", "+I"},
			})
			before := []string{"1|1|a1", "1|2|a2", "1|3|a3", "1|4|a4"}
			checkLookupCompaction(t, tbl, before, tc.deleted[0])
			half := len(tc.round1) / 2
			writePostpone(t, tbl, tc.round1[:half])
			writePostpone(t, tbl, tc.round1[half:])
			checkRows(t, tbl, before)
			checkLookupCompaction(t, tbl, tc.want1, tc.deleted[1])
			checkRows(t, tbl, before, reader.WithSnapshot(latest(t, tbl).ID-1))

			writePostpone(t, tbl, tc.round2)
			checkRows(t, tbl, tc.want1)
			checkLookupCompaction(t, tbl, tc.want2, tc.deleted[2])
			if id := compact(t, tbl, false); id != 0 {
				t.Errorf("third Compact = %d, want 0 (nothing to compact)", id)
			}
		})
	}
}

// checkLookupCompaction runs a postpone compaction of a lookup table and
// checks its snapshot: COMPACT, the rows want, no postpone or level-0 file
// left, every data file in a bucket directory referenced by a snapshot,
// and (deletion-vector tables) the deletion vectors deleting wantDeleted
// rows, exactly the live rows beyond the visible ones.
func checkLookupCompaction(t *testing.T, tbl *catalog.Table, want []string, wantDeleted int64) {
	t.Helper()
	ctx := context.Background()
	pre := latest(t, tbl).ID
	if id := compact(t, tbl, false); id != pre+1 {
		t.Fatalf("Compact = %d, want snapshot %d", id, pre+1)
	}
	s := latest(t, tbl)
	if s.CommitKind != snapshot.KindCompact {
		t.Errorf("commit kind %s, want COMPACT", s.CommitKind)
	}
	checkRows(t, tbl, want)
	for _, e := range liveEntries(t, tbl) {
		if strings.Contains(e, "bucket=-2") || strings.Contains(e, "level=0") {
			t.Errorf("live file after a lookup postpone compaction: %s", e)
		}
	}
	plan, err := reader.NewScan(tbl.FileIO, reader.WithAllLevels(), reader.WithPostponeFiles()).Plan(ctx)
	if err != nil {
		t.Fatal(err)
	}
	live := map[string]bool{}
	var rows int64
	for _, sp := range plan.Splits {
		for _, f := range sp.Files {
			live[sp.BucketPath+"/"+f.FileName] = true
			rows += f.RowCount
		}
	}
	// Files of older snapshots stay for time travel; a file no snapshot
	// references is an intermediate file the compaction failed to delete.
	referenced := map[string]bool{}
	for id := int64(1); id <= s.ID; id++ {
		old, err := reader.NewScan(tbl.FileIO, reader.WithSnapshot(id), reader.WithAllLevels(), reader.WithPostponeFiles()).Plan(ctx)
		if err != nil {
			t.Fatal(err)
		}
		for _, sp := range old.Splits {
			for _, f := range sp.Files {
				referenced[sp.BucketPath+"/"+f.FileName] = true
			}
		}
	}
	for _, b := range []string{"p=1/bucket-0", "p=1/bucket-1", "p=1/bucket-2", "p=2/bucket-0", "p=2/bucket-1", "p=1/bucket-postpone", "p=2/bucket-postpone"} {
		infos, err := tbl.FileIO.List(ctx, b)
		if err != nil && !errors.Is(err, fileio.ErrNotExist) {
			t.Fatal(err)
		}
		for _, fi := range infos {
			if !referenced[fi.Path] {
				t.Errorf("left-over file %s (no snapshot references it)", fi.Path)
			}
		}
	}
	if dv := tbl.Schema.Options["deletion-vectors.enabled"] == "true"; !dv {
		if s.IndexManifest != nil && *s.IndexManifest != "" {
			t.Errorf("first-row table got index manifest %s", *s.IndexManifest)
		}
		if rows != int64(len(want)) {
			t.Errorf("live files hold %d rows, want %d (each key once)", rows, len(want))
		}
		return
	}
	// Every live row beyond the visible ones is deleted by a vector: the
	// vectors hold exactly live rows - visible rows deletions.
	var deleted int64
	if s.IndexManifest != nil && *s.IndexManifest != "" {
		entries, err := manifest.ReadIndexManifest(ctx, tbl.FileIO, *s.IndexManifest)
		if err != nil {
			t.Fatal(err)
		}
		for _, e := range entries {
			if e.Kind != manifest.Add {
				t.Fatalf("index manifest entry %v", e)
			}
			m, err := deletionvector.RestoreMaintainer(ctx, tbl.FileIO, []manifest.IndexFileMeta{e.IndexFile}, false)
			if err != nil {
				t.Fatal(err)
			}
			for _, name := range m.DataFiles() {
				found := false
				for p := range live {
					found = found || strings.HasSuffix(p, "/"+name)
				}
				if !found {
					t.Errorf("deletion vector of %s, which is not live", name)
				}
				deleted += m.DeletionVectorOf(name).Cardinality()
			}
		}
	}
	if deleted != wantDeleted {
		t.Errorf("deletion vectors delete %d rows, want %d", deleted, wantDeleted)
	}
	if rows-deleted != int64(len(want)) {
		t.Errorf("live rows %d - deleted %d = %d, want %d visible rows", rows, deleted, rows-deleted, len(want))
	}
}
