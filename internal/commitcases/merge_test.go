package commitcases_test

import (
	"context"
	"fmt"
	"slices"
	"strconv"
	"strings"
	"testing"

	"github.com/paimon-go/paimon/catalog"
	"github.com/paimon-go/paimon/commit"
	"github.com/paimon-go/paimon/manifest"
	"github.com/paimon-go/paimon/reader"
	"github.com/paimon-go/paimon/schema"
)

// Issue 3 acceptance case (f): merging only some manifests must not drop a
// DELETE entry whose ADD lives in a manifest that is not merged.
//
// Four commits leave the manifests
//
//	M1: ADD of the files of partitions 0..9 (10 entries, the largest)
//	M2: ADD of partition 20's file
//	M3: DELETE of partition 1's file X, ADD of its replacement Y
//	M4: ADD of partition 21's file
//
// Then manifest.target-file-size is set to M1's size, so the next commit's
// minor merge (Java ManifestFileMerger.tryMinorCompaction) flushes M1 alone
// (kept as it is), merges M2 and M3 into one new manifest that must keep
// DELETE X, and keeps M4 (one manifest left over, below merge-min-count).
// Afterwards a full compaction (threshold 1 byte) must drop X entirely.

// TestPartialMergeKeepsDeleteOverwrite produces M3 with an OVERWRITE of
// partition 1 (Committer.Overwrite).
func TestPartialMergeKeepsDeleteOverwrite(t *testing.T) {
	runPartialMerge(t, "overwrite")
}

// TestPartialMergeKeepsDeleteCompact produces M3 with a COMPACT commit whose
// compaction rewrote X into Y (CompactIncrement Before X, After Y).
func TestPartialMergeKeepsDeleteCompact(t *testing.T) {
	runPartialMerge(t, "compact")
}

func runPartialMerge(t *testing.T, how string) {
	ctx := context.Background()
	whURL := "file://" + t.TempDir()
	tbl := newPartitioned(t, whURL, map[string]string{
		"manifest.merge-min-count":                "30",        // Java's default
		"manifest.full-compaction-threshold-size": "134217728", // 128 MiB: no full compaction yet
	})
	cat, err := catalog.Open(ctx, whURL)
	if err != nil {
		t.Fatal(err)
	}
	defer cat.Close()
	c := newCommitter(t, tbl)

	// Snapshot 1: partitions 0..9.
	var rows [][]any
	for p := range 10 {
		rows = append(rows, []any{int32(p), "a" + strconv.Itoa(p)})
	}
	if id, err := c.Commit(ctx, 1, prepare(t, tbl, rows...)); err != nil || id != 1 {
		t.Fatalf("commit 1: id %d, %v", id, err)
	}
	plan, err := reader.NewScan(tbl.FileIO, reader.WithWhere("p = 1")).Plan(ctx)
	if err != nil {
		t.Fatal(err)
	}
	if len(plan.Splits) != 1 || len(plan.Splits[0].Files) != 1 {
		t.Fatalf("partition 1: %d splits, want one split of one file", len(plan.Splits))
	}
	xSplit := plan.Splits[0]
	x := xSplit.Files[0]
	live1 := liveFiles(t, tbl, 1)

	// Snapshot 2: partition 20.
	m20 := prepare(t, tbl, []any{int32(20), "a20"})
	if id, err := c.Commit(ctx, 2, m20); err != nil || id != 2 {
		t.Fatalf("commit 2: id %d, %v", id, err)
	}

	// Snapshot 3: X is deleted and Y added.
	var y string
	want1 := "1|a1"
	switch how {
	case "overwrite":
		msgs := prepare(t, tbl, []any{int32(1), "new1"})
		y = newFiles(msgs)[0]
		if id, err := c.Overwrite(ctx, 3, commit.PartitionSpec{"p": int32(1)}, msgs); err != nil || id != 3 {
			t.Fatalf("overwrite: id %d, %v", id, err)
		}
		want1 = "1|new1"
	case "compact":
		msgs := prepare(t, tbl, []any{int32(1), "a1"})
		if len(msgs) != 1 || len(msgs[0].Data.NewFiles) != 1 {
			t.Fatalf("rewrite of partition 1: %d messages, want 1 with one file", len(msgs))
		}
		after := msgs[0].Data.NewFiles[0]
		y = after.FileName
		src := manifest.SourceCompact
		after.FileSource = &src
		compact := []commit.Message{{
			Partition: xSplit.Partition, Bucket: xSplit.Bucket, TotalBuckets: xSplit.TotalBuckets,
			Compact: commit.CompactIncrement{Before: []manifest.DataFileMeta{x}, After: []manifest.DataFileMeta{after}},
		}}
		if id, err := c.Commit(ctx, 3, compact); err != nil || id != 3 {
			t.Fatalf("compact commit: id %d, %v", id, err)
		}
		if k := getSnapshot(t, tbl, 3).CommitKind; k != "COMPACT" {
			t.Fatalf("snapshot 3 is %s, want COMPACT", k)
		}
	}

	// Snapshot 4: partition 21.
	m21 := prepare(t, tbl, []any{int32(21), "a21"})
	if id, err := c.Commit(ctx, 4, m21); err != nil || id != 4 {
		t.Fatalf("commit 4: id %d, %v", id, err)
	}
	s4 := getSnapshot(t, tbl, 4)
	ms := append(readList(t, tbl, s4.BaseManifestList), readList(t, tbl, s4.DeltaManifestList)...)
	if len(ms) != 4 {
		t.Fatalf("snapshot 4 has %d manifests, want 4 (nothing merged yet)", len(ms))
	}
	m1, m2, m3, m4 := ms[0], ms[1], ms[2], ms[3]
	if m3.NumAddedFiles != 1 || m3.NumDeletedFiles != 1 {
		t.Fatalf("M3 adds %d and deletes %d files, want 1 and 1", m3.NumAddedFiles, m3.NumDeletedFiles)
	}
	// The shape of the merge depends on the sizes; check the premises.
	if !(m2.FileSize < m1.FileSize && m2.FileSize+m3.FileSize >= m1.FileSize && m4.FileSize < m1.FileSize) {
		t.Fatalf("manifest sizes M1..M4 = %d %d %d %d do not give the intended merge", m1.FileSize, m2.FileSize, m3.FileSize, m4.FileSize)
	}

	// Snapshot 5 merges M2 and M3 only.
	alter := func(key, value string) *catalog.Table {
		ts, err := cat.AlterTable(ctx, tbl.Identifier, catalog.SetOption{Key: key, Value: value})
		if err != nil {
			t.Fatal(err)
		}
		return &catalog.Table{Identifier: tbl.Identifier, FileIO: tbl.FileIO, Schema: ts}
	}
	tbl5 := alter(schema.KeyManifestTargetFileSize, strconv.FormatInt(m1.FileSize, 10))
	c5 := newCommitter(t, tbl5)
	m22 := prepare(t, tbl5, []any{int32(22), "a22"})
	if id, err := c5.Commit(ctx, 5, m22); err != nil || id != 5 {
		t.Fatalf("commit 5: id %d, %v", id, err)
	}
	s5 := getSnapshot(t, tbl, 5)
	base5, delta5 := readList(t, tbl, s5.BaseManifestList), readList(t, tbl, s5.DeltaManifestList)
	if len(base5) != 3 || base5[0].FileName != m1.FileName || base5[2].FileName != m4.FileName ||
		slices.Contains([]string{m2.FileName, m3.FileName}, base5[1].FileName) || len(delta5) != 1 {
		t.Fatalf("snapshot 5 base list %v, delta list %v; want [M1, merge(M2, M3), M4] and one delta manifest",
			metaNames(base5), metaNames(delta5))
	}
	merged, err := manifest.ReadManifest(ctx, tbl.FileIO, base5[1].FileName)
	if err != nil {
		t.Fatal(err)
	}
	wantMerged := []string{"ADD " + newFiles(m20)[0], "DELETE " + x.FileName, "ADD " + y}
	if got := entryNames(merged); !slices.Equal(got, wantMerged) {
		t.Fatalf("merged manifest entries %v, want %v", got, wantMerged)
	}

	wantLive := slices.DeleteFunc(slices.Clone(live1), func(n string) bool { return n == x.FileName })
	wantLive = append(wantLive, newFiles(m20)[0], y, newFiles(m21)[0], newFiles(m22)[0])
	slices.Sort(wantLive)
	if got := liveFiles(t, tbl, 5); !slices.Equal(got, wantLive) {
		t.Fatalf("live files of snapshot 5 %v, want %v", got, wantLive)
	}
	wantRows := []string{"0|a0", want1, "2|a2", "20|a20", "21|a21", "22|a22", "3|a3", "4|a4", "5|a5", "6|a6", "7|a7", "8|a8", "9|a9"}
	slices.Sort(wantRows)
	if _, got := scanRows(t, tbl); !slices.Equal(got, wantRows) {
		t.Fatalf("rows of snapshot 5 %v, want %v", got, wantRows)
	}
	// With a partition filter the scan prunes manifests and nets the pending
	// DELETE against M1's ADD itself.
	for where, want := range map[string][]string{
		"p = 1": {want1},
		// Reads M1 only (the merged manifest's partitions are 1..20): X's ADD
		// is read without its DELETE and must be filtered out by partition.
		"p = 0": {"0|a0"},
		"p < 2": {"0|a0", want1},
	} {
		if _, got := scanRows(t, tbl, reader.WithWhere(where)); !slices.Equal(got, want) {
			t.Fatalf("rows where %s: %v, want %v", where, got, want)
		}
	}

	// Snapshot 6: a full compaction drops X's ADD and DELETE everywhere.
	tbl6 := alter(schema.KeyManifestFullCompactionThreshold, "1")
	c6 := newCommitter(t, tbl6)
	m23 := prepare(t, tbl6, []any{int32(23), "a23"})
	if id, err := c6.Commit(ctx, 6, m23); err != nil || id != 6 {
		t.Fatalf("commit 6: id %d, %v", id, err)
	}
	s6 := getSnapshot(t, tbl, 6)
	for _, list := range []string{s6.BaseManifestList, s6.DeltaManifestList} {
		for _, m := range readList(t, tbl, list) {
			es, err := manifest.ReadManifest(ctx, tbl.FileIO, m.FileName)
			if err != nil {
				t.Fatal(err)
			}
			for _, e := range es {
				if e.Kind != manifest.Add || e.File.FileName == x.FileName {
					t.Errorf("snapshot 6 manifest %s holds %s %s after full compaction", m.FileName, kindName(e.Kind), e.File.FileName)
				}
			}
		}
	}
	wantLive = append(wantLive, newFiles(m23)[0])
	slices.Sort(wantLive)
	if got := liveFiles(t, tbl, 6); !slices.Equal(got, wantLive) {
		t.Fatalf("live files of snapshot 6 %v, want %v", got, wantLive)
	}
	wantRows = append(wantRows, "23|a23")
	slices.Sort(wantRows)
	if _, got := scanRows(t, tbl); !slices.Equal(got, wantRows) {
		t.Fatalf("rows of snapshot 6 %v, want %v", got, wantRows)
	}
	// Time travel to before the delete still sees X.
	if _, got := scanRows(t, tbl, reader.WithSnapshot(2), reader.WithWhere("p = 1")); !slices.Equal(got, []string{"1|a1"}) {
		t.Fatalf("rows of partition 1 at snapshot 2 %v, want [1|a1]", got)
	}
}

func metaNames(ms []manifest.FileMeta) []string {
	out := make([]string, len(ms))
	for i, m := range ms {
		out[i] = m.FileName
	}
	return out
}

func kindName(k manifest.FileKind) string {
	if k == manifest.Add {
		return "ADD"
	}
	return "DELETE"
}

func entryNames(es []manifest.Entry) []string {
	out := make([]string, len(es))
	for i, e := range es {
		out[i] = fmt.Sprintf("%s %s", kindName(e.Kind), e.File.FileName)
	}
	return out
}

// TestFullCompactionDropsDroppedPartition checks the other merge of Java's
// ManifestFileMerger, the full compaction: a DELETE entry of a dropped
// partition whose ADD lives in a manifest that need not change by itself
// (at least the target size, no deletes) must make that manifest be
// rewritten without the file, since the compaction writes no DELETE
// entries. The dropped partition is NULL (__DEFAULT_PARTITION__) or 5.
func TestFullCompactionDropsDroppedPartition(t *testing.T) {
	for _, dropped := range []any{nil, int32(5)} {
		t.Run(label(dropped), func(t *testing.T) {
			ctx := context.Background()
			whURL := "file://" + t.TempDir()
			tbl := newPartitioned(t, whURL, nil)
			cat, err := catalog.Open(ctx, whURL)
			if err != nil {
				t.Fatal(err)
			}
			defer cat.Close()
			c := newCommitter(t, tbl)
			// Snapshot 1: partitions 0..8 and NULL in one manifest M1.
			var rows [][]any
			var wantRows []string
			for _, p := range []any{int32(0), int32(1), int32(2), int32(3), int32(4), int32(5), int32(6), int32(7), int32(8), nil} {
				rows = append(rows, []any{p, "a" + label(p)})
				if p != dropped {
					wantRows = append(wantRows, strings.Replace(label(p), "null", "(null)", 1)+"|a"+label(p))
				}
			}
			if id, err := c.Commit(ctx, 1, prepare(t, tbl, rows...)); err != nil || id != 1 {
				t.Fatalf("commit 1: id %d, %v", id, err)
			}
			live1 := liveFiles(t, tbl, 1)
			plan, err := reader.NewScan(tbl.FileIO, reader.WithWhere(map[bool]string{true: "p IS NULL", false: "p = 5"}[dropped == nil])).Plan(ctx)
			if err != nil {
				t.Fatal(err)
			}
			if len(plan.Splits) != 1 || len(plan.Splits[0].Files) != 1 {
				t.Fatalf("dropped partition has %d splits, want one of one file", len(plan.Splits))
			}
			x := plan.Splits[0].Files[0].FileName
			// Snapshot 2 drops the partition: a manifest with one DELETE.
			if id, err := c.DropPartitions(ctx, []commit.PartitionSpec{{"p": dropped}}); err != nil || id != 2 {
				t.Fatalf("drop partition: id %d, %v", id, err)
			}
			m1 := readList(t, tbl, getSnapshot(t, tbl, 2).BaseManifestList)
			if len(m1) != 1 {
				t.Fatalf("snapshot 2 base list has %d manifests, want M1 only", len(m1))
			}
			// Snapshot 3 runs a full compaction in which M1 is large enough
			// to be kept, were it not for the DELETE.
			if _, err := cat.AlterTable(ctx, tbl.Identifier,
				catalog.SetOption{Key: schema.KeyManifestTargetFileSize, Value: strconv.FormatInt(m1[0].FileSize, 10)}); err != nil {
				t.Fatal(err)
			}
			ts, err := cat.AlterTable(ctx, tbl.Identifier, catalog.SetOption{Key: schema.KeyManifestFullCompactionThreshold, Value: "1"})
			if err != nil {
				t.Fatal(err)
			}
			tbl3 := &catalog.Table{Identifier: tbl.Identifier, FileIO: tbl.FileIO, Schema: ts}
			msgs := prepare(t, tbl3, []any{int32(20), "a20"})
			// DropPartitions committed the batch identifier, so this user's
			// later identifiers count as committed: commit as a batch too.
			if id, err := newCommitter(t, tbl3).Commit(ctx, commit.BatchIdentifier, msgs); err != nil || id != 3 {
				t.Fatalf("commit 3: id %d, %v", id, err)
			}
			s3 := getSnapshot(t, tbl, 3)
			for _, list := range []string{s3.BaseManifestList, s3.DeltaManifestList} {
				for _, m := range readList(t, tbl, list) {
					es, err := manifest.ReadManifest(ctx, tbl.FileIO, m.FileName)
					if err != nil {
						t.Fatal(err)
					}
					for _, e := range es {
						if e.Kind != manifest.Add || e.File.FileName == x {
							t.Errorf("snapshot 3 manifest %s holds %s %s after full compaction", m.FileName, kindName(e.Kind), e.File.FileName)
						}
					}
				}
			}
			wantLive := slices.DeleteFunc(slices.Clone(live1), func(n string) bool { return n == x })
			wantLive = append(wantLive, newFiles(msgs)...)
			slices.Sort(wantLive)
			if got := liveFiles(t, tbl, 3); !slices.Equal(got, wantLive) {
				t.Fatalf("live files %v, want %v", got, wantLive)
			}
			wantRows = append(wantRows, "20|a20")
			slices.Sort(wantRows)
			if _, got := scanRows(t, tbl); !slices.Equal(got, wantRows) {
				t.Fatalf("rows %v, want %v", got, wantRows)
			}
		})
	}
}
