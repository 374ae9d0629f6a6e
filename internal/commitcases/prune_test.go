package commitcases_test

import (
	"context"
	"fmt"
	"slices"
	"strings"
	"testing"

	"github.com/paimon-go/paimon/commit"
	"github.com/paimon-go/paimon/reader"
	"github.com/paimon-go/paimon/testenv"
)

// Issue 3 acceptance case (e): with 21 small manifests, one per partition
// (NULL included), a partition filter opens only the manifests whose
// partition statistics can match.

// pruneValues are the partition values of the 21 commits, in commit order;
// nil is the NULL partition (__DEFAULT_PARTITION__), committed in the middle.
var pruneValues = []any{
	int32(0), int32(1), int32(2), int32(3), int32(4), int32(5), int32(6), int32(7), int32(8), int32(9),
	nil,
	int32(10), int32(11), int32(12), int32(13), int32(14), int32(15), int32(16), int32(17), int32(18), int32(19),
}

// label names a partition value in expectations: "7" or "null".
func label(v any) string {
	if v == nil {
		return "null"
	}
	return fmt.Sprint(v)
}

// pruneCase is one filtered scan and, by hand from the 21 single-partition
// manifests: the partitions whose manifests must be read, and the rows.
type pruneCase struct {
	where string
	parts []string // labels of the partitions whose manifest is read
	rows  []string // "p|v", sorted
}

func partRows(labels ...string) []string {
	var out []string
	for _, l := range labels {
		p := l
		if l == "null" {
			p = "(null)"
		}
		out = append(out, p+"|a"+l, p+"|b"+l)
	}
	slices.Sort(out)
	return out
}

func allLabels() []string {
	var out []string
	for _, v := range pruneValues {
		out = append(out, label(v))
	}
	return out
}

func except(labels []string, drop ...string) []string {
	return slices.DeleteFunc(slices.Clone(labels), func(l string) bool { return slices.Contains(drop, l) })
}

func pruneCases() []pruneCase {
	all := allLabels()
	nonNull := except(all, "null")
	return []pruneCase{
		{where: "", parts: all, rows: partRows(all...)},
		{where: "p = 7", parts: []string{"7"}, rows: partRows("7")},
		{where: "p IS NULL", parts: []string{"null"}, rows: partRows("null")},
		{where: "p = 7 OR p IS NULL", parts: []string{"7", "null"}, rows: partRows("7", "null")},
		{where: "p IS NOT NULL", parts: nonNull, rows: partRows(nonNull...)},
		{where: "p > 15", parts: []string{"16", "17", "18", "19"}, rows: partRows("16", "17", "18", "19")},
		{where: "p IN (3, 12)", parts: []string{"3", "12"}, rows: partRows("3", "12")},
		{where: "p <> 7", parts: except(nonNull, "7"), rows: partRows(except(nonNull, "7")...)},
		{where: "p = 100", parts: nil, rows: nil},
		// A filter on a non-partition column prunes no manifest.
		{where: "v = 'a7'", parts: all, rows: []string{"7|a7"}},
		{where: "p = 7 AND v = 'b7'", parts: []string{"7"}, rows: []string{"7|b7"}},
		{where: "p IS NULL AND v = 'anull'", parts: []string{"null"}, rows: []string{"(null)|anull"}},
	}
}

// TestPartitionFilterPrunesManifestsLocal runs case (e) on local disk and
// counts the reads with fileio's request statistics.
func TestPartitionFilterPrunesManifestsLocal(t *testing.T) {
	runPruneCases(t, "", nil)
}

// TestPartitionFilterPrunesManifestsS3 runs case (e) on MinIO through the
// logging proxy, which also names every manifest file read.
func TestPartitionFilterPrunesManifestsS3(t *testing.T) {
	proxy, u := testenv.NewFaultProxy(t, testenv.MinIO(t))
	runPruneCases(t, u, proxy)
}

func runPruneCases(t *testing.T, whURL string, proxy *testenv.FaultProxy) {
	ctx := context.Background()
	// A merge-min-count far above 21 keeps every commit's manifest unmerged
	// (the default target and full-compaction sizes are megabytes).
	tbl := newPartitioned(t, whURL, map[string]string{"manifest.merge-min-count": "1000"})
	manifestOf := map[string]string{} // partition label -> its manifest
	for i, v := range pruneValues {
		l := label(v)
		id := writeCommit(t, tbl, []any{v, "a" + l}, []any{v, "b" + l})
		if id != int64(i+1) {
			t.Fatalf("commit of partition %s created snapshot %d, want %d", l, id, i+1)
		}
		delta := readList(t, tbl, getSnapshot(t, tbl, id).DeltaManifestList)
		if len(delta) != 1 || delta[0].NumAddedFiles != 1 || delta[0].NumDeletedFiles != 0 {
			t.Fatalf("snapshot %d: delta manifest list %+v, want one manifest adding one file", id, delta)
		}
		manifestOf[l] = delta[0].FileName
	}
	last := getSnapshot(t, tbl, int64(len(pruneValues)))
	base, delta := readList(t, tbl, last.BaseManifestList), readList(t, tbl, last.DeltaManifestList)
	var listed []string
	for _, m := range append(base, delta...) {
		listed = append(listed, m.FileName)
	}
	var want []string
	for _, l := range allLabels() {
		want = append(want, manifestOf[l])
	}
	if !slices.Equal(listed, want) {
		t.Fatalf("snapshot 21 names manifests %v, want the 21 unmerged ones %v", listed, want)
	}

	// Planning with a filter that prunes every manifest reads the metadata
	// only: the LATEST hint, snapshot-21, schema-0 and the two manifest lists.
	if proxy != nil {
		proxy.TakeLog()
	}
	before := tbl.FileIO.Stats()
	if _, err := reader.NewScan(tbl.FileIO, reader.WithWhere("p = 100")).Plan(ctx); err != nil {
		t.Fatal(err)
	}
	metaGets := tbl.FileIO.Stats().Since(before).Get
	if metaGets != 5 {
		t.Errorf("plan reading no manifest: %d GETs, want 5 (hint, snapshot, schema, 2 manifest lists)", metaGets)
	}

	for _, tc := range pruneCases() {
		name := tc.where
		if name == "" {
			name = "no filter"
		}
		t.Run(strings.ReplaceAll(name, " ", "_"), func(t *testing.T) {
			var opts []reader.Option
			if tc.where != "" {
				opts = append(opts, reader.WithWhere(tc.where))
			}
			if proxy != nil {
				proxy.TakeLog()
			}
			before := tbl.FileIO.Stats()
			plan, err := reader.NewScan(tbl.FileIO, opts...).Plan(ctx)
			if err != nil {
				t.Fatal(err)
			}
			got := tbl.FileIO.Stats().Since(before)
			if want := metaGets + int64(len(tc.parts)); got.Get != want {
				t.Errorf("plan: %d GETs, want %d (metadata) + %d manifests %v", got.Get, metaGets, len(tc.parts), tc.parts)
			}
			if got.Put+got.Delete != 0 {
				t.Errorf("plan wrote: %+v", got)
			}
			if proxy != nil {
				wantReads := []string{last.BaseManifestList, last.DeltaManifestList}
				for _, l := range tc.parts {
					wantReads = append(wantReads, manifestOf[l])
				}
				slices.Sort(wantReads)
				var reads []string
				for _, line := range proxy.TakeLog() {
					if name, ok := strings.CutPrefix(line, "GET db.db/t/manifest/"); ok {
						reads = append(reads, name)
					}
				}
				slices.Sort(reads)
				if !slices.Equal(reads, wantReads) {
					t.Errorf("manifest directory reads %v, want %v", reads, wantReads)
				}
			}
			if rows := rowsOf(t, plan); !slices.Equal(rows, tc.rows) {
				t.Errorf("rows %v, want %v", rows, tc.rows)
			}
		})
	}
}

// TestPartitionFilterPrunesDeleteOnlyManifests extends case (e) to a
// manifest holding only DELETE entries (a dropped partition): its partition
// statistics cover its entries like any other manifest's, so Java's
// AbstractFileStoreScan.filterManifestFileMeta prunes it by them too.
func TestPartitionFilterPrunesDeleteOnlyManifests(t *testing.T) {
	ctx := context.Background()
	tbl := newPartitioned(t, "", nil)
	for _, p := range []int32{1, 2, 3} {
		writeCommit(t, tbl, []any{p, "a"})
	}
	if id, err := newCommitter(t, tbl).DropPartitions(ctx, []commit.PartitionSpec{{"p": int32(3)}}); err != nil || id != 4 {
		t.Fatalf("drop partition 3: id %d, %v", id, err)
	}
	drop := readList(t, tbl, getSnapshot(t, tbl, 4).DeltaManifestList)
	if len(drop) != 1 || drop[0].NumAddedFiles != 0 || drop[0].NumDeletedFiles != 1 {
		t.Fatalf("snapshot 4 delta list %+v, want one manifest deleting one file", drop)
	}
	for _, tc := range []struct {
		where     string
		manifests int64
		rows      []string
	}{
		{"p = 100", 0, nil},
		{"p = 1", 1, []string{"1|a"}},
		{"p = 3", 2, nil}, // partition 3's ADD and the DELETE
	} {
		before := tbl.FileIO.Stats()
		plan, err := reader.NewScan(tbl.FileIO, reader.WithWhere(tc.where)).Plan(ctx)
		if err != nil {
			t.Fatal(err)
		}
		// 5 metadata GETs: hint, snapshot, schema, two manifest lists.
		if got := tbl.FileIO.Stats().Since(before).Get; got != 5+tc.manifests {
			t.Errorf("where %s: %d GETs, want 5 + %d manifests", tc.where, got, tc.manifests)
		}
		if rows := rowsOf(t, plan); !slices.Equal(rows, tc.rows) {
			t.Errorf("where %s: rows %v, want %v", tc.where, rows, tc.rows)
		}
	}
}
