package realtime_test

import (
	"context"
	"slices"
	"strings"
	"testing"

	"github.com/paimon-go/paimon/catalog"
	"github.com/paimon-go/paimon/commit"
	"github.com/paimon-go/paimon/internal/tabletest"
	"github.com/paimon-go/paimon/progress"
	"github.com/paimon-go/paimon/realtime"
	"github.com/paimon-go/paimon/types"
)

// scDrop drops the partitions pt=values of tbl as the admin user and
// returns the snapshot id.
func scDrop(t testing.TB, tbl *catalog.Table, key string, values ...string) int64 {
	t.Helper()
	var specs []commit.PartitionSpec
	for _, v := range values {
		s, err := commit.ParsePartitionSpec(tbl.Schema, map[string]string{key: v})
		if err != nil {
			t.Fatal(err)
		}
		specs = append(specs, s)
	}
	id, err := scAdmin(t, tbl).DropPartitions(context.Background(), specs)
	if err != nil {
		t.Fatal(err)
	}
	return id
}

// Scenario 38 (TestDropPartitionRequiresReopenRealtimeContext): dropping
// p0, which the context writes, removes p0's progress only; the refresh
// fails and leaves memory alone; a new context replays p0 at [0,2) and
// reads p1's disk split before p0's real-time split; after the commit
// p0 comes first again.
func TestScenario38DropActivePartitionNeedsNewContext(t *testing.T) {
	tbl := newFooTable(t, nil, []string{"pt"}, nil)
	rc := newContext(t, tbl)
	w := newWrite(t, rc, "u")
	cm := newCommit(t, rc, "u")
	write(t, w, fooRows(t, "p0", 0, 1, 2))
	write(t, w, fooRows(t, "p1", 100, 101, 102))
	id := commitProg(t, cm, prepare(t, w, 1), 1)
	refresh(t, rc, id)
	write(t, w, fooRows(t, "p0", 3, 4))
	before := rc.Usage()
	if before.BuildingRows != 2 || before.SealedRows != 0 {
		t.Fatalf("usage %+v", before)
	}

	did := scDrop(t, tbl, "pt", "p0")
	equal(t, "progress after drop", committed(t, tbl, did), []string{"{pt=p1}/bucket-0=3"})
	err := rc.RefreshCommittedSnapshot(context.Background(), did)
	wantErr(t, err, realtime.ErrRecreateContext)
	if !strings.Contains(err.Error(), "recreate the real-time context") {
		t.Fatalf("error %q", err)
	}
	if after := rc.Usage(); after != before {
		t.Fatalf("failed refresh changed memory: %+v -> %+v", before, after)
	}

	rc2 := newContext(t, tbl)
	w2 := newWrite(t, rc2, "u2")
	cm2 := newCommit(t, rc2, "u2")
	write(t, w2, fooRows(t, "p0", 3, 4))
	p := plan(t, rc2)
	sid := itoa(did)
	equal(t, "splits", splitInfos(p), []string{
		"disk {pt=p1}/bucket-0 disk=1 snap=" + sid + " C=3 M=3",
		"rt {pt=p0}/bucket-0 disk=0 snap=" + sid + " C=0 M=2",
	})
	equal(t, "p1 then p0", readPlan(t, p), slices.Concat(fooStrings("p1", 100, 101, 102), fooStrings("p0", 3, 4)))
	prog := prepare(t, w2, 1)
	equal(t, "replayed ranges", ranges(prog), []string{"{pt=p0}/bucket-0[0,2)"})
	id2 := commitProg(t, cm2, prog, 1)
	equal(t, "committed", committed(t, tbl, id2), []string{"{pt=p0}/bucket-0=2", "{pt=p1}/bucket-0=3"})
	refresh(t, rc2, id2)
	equal(t, "p0 then p1", scanRows(t, rc2), slices.Concat(fooStrings("p0", 3, 4), fooStrings("p1", 100, 101, 102)))
	scUsageZero(t, rc2, "after refresh")
}

// Scenario 39 (TestDropInactivePartitionDoesNotRequireReopenRealtimeContext):
// p1 was written by an earlier context; dropping it does not concern this
// context, whose refresh succeeds; its later p1 writes start at [0,2).
func TestScenario39DropInactivePartition(t *testing.T) {
	tbl := newFooTable(t, nil, []string{"pt"}, nil)
	rcA := newContext(t, tbl)
	wA := newWrite(t, rcA, "a")
	cmA := newCommit(t, rcA, "a")
	write(t, wA, fooRows(t, "p1", 100, 101, 102))
	commitProg(t, cmA, prepare(t, wA, 1), 1)
	if err := wA.Close(); err != nil {
		t.Fatal(err)
	}
	rcA.Close()

	rc := newContext(t, tbl)
	w := newWrite(t, rc, "u")
	cm := newCommit(t, rc, "u")
	write(t, w, fooRows(t, "p0", 0, 1))
	id := commitProg(t, cm, prepare(t, w, 1), 1)
	equal(t, "committed", committed(t, tbl, id), []string{"{pt=p0}/bucket-0=2", "{pt=p1}/bucket-0=3"})
	refresh(t, rc, id)

	did := scDrop(t, tbl, "pt", "p1")
	equal(t, "after drop", committed(t, tbl, did), []string{"{pt=p0}/bucket-0=2"})
	refresh(t, rc, did)
	equal(t, "rows after drop", scanRows(t, rc), fooStrings("p0", 0, 1))

	write(t, w, fooRows(t, "p1", 103, 104))
	prog := prepare(t, w, 2)
	equal(t, "p1 restarts", ranges(prog), []string{"{pt=p1}/bucket-0[0,2)"})
	id2 := commitProg(t, cm, prog, 2)
	equal(t, "final", committed(t, tbl, id2), []string{"{pt=p0}/bucket-0=2", "{pt=p1}/bucket-0=2"})
	refresh(t, rc, id2)
	equal(t, "rows", scanRows(t, rc), slices.Concat(fooStrings("p0", 0, 1), fooStrings("p1", 103, 104)))
}

// Scenario 40 (TestDropDatePartitionRemovesOffsetWithLegacyPartitionName
// / ...WithoutLegacyPartitionName): a DATE partition is keyed "19723"
// with partition.legacy-name (the default) and "2024-01-01" without, in
// the offsets file too; dropping the partition removes the entry and the
// count goes from 3 to 0.
func TestScenario40DropDatePartition(t *testing.T) {
	for _, c := range []struct{ legacy, key string }{{"true", "19723"}, {"false", "2024-01-01"}} {
		t.Run("legacy="+c.legacy, func(t *testing.T) {
			ctx := context.Background()
			fields := []types.DataField{
				{Name: "id", Type: types.BigInt()},
				{Name: "payload", Type: types.String()},
				{Name: "dt", Type: types.Date()},
			}
			tbl := tabletest.NewTable(t, "", catalog.Schema{Fields: fields, PartitionKeys: []string{"dt"},
				Options: tableOpts(map[string]string{"bucket-key": "id", "partition.legacy-name": c.legacy})})
			rc := newContext(t, tbl)
			w := newWrite(t, rc, "u")
			cm := newCommit(t, rc, "u")
			const day = int32(19723) // 2024-01-01
			write(t, w, scBatch(t, fields, nil,
				[]any{int64(0), "value-0", day}, []any{int64(1), "value-1", day}, []any{int64(2), "value-2", day}))
			if n := scCount(t, rc); n != 3 {
				t.Fatalf("memory count %d", n)
			}
			id := commitProg(t, cm, prepare(t, w, 1), 1)
			equal(t, "committed", committed(t, tbl, id), []string{"{dt=" + c.key + "}/bucket-0=3"})
			rel, err := progress.Path(tbl.FileIO, scSnapshot(t, tbl, id).Properties[progress.Property])
			if err != nil {
				t.Fatal(err)
			}
			data, err := tbl.FileIO.ReadFile(ctx, rel)
			if err != nil {
				t.Fatal(err)
			}
			if want := `"dt": "` + c.key + `"`; !strings.Contains(string(data), want) {
				t.Fatalf("offsets file %s lacks %s", data, want)
			}
			refresh(t, rc, id)
			if n := scCount(t, rc); n != 3 {
				t.Fatalf("count after commit %d", n)
			}
			did := scDrop(t, tbl, "dt", "2024-01-01")
			equal(t, "after drop", committed(t, tbl, did), nil)
			if _, ok := scSnapshot(t, tbl, did).Properties[progress.Property]; ok {
				t.Fatalf("drop snapshot still records progress")
			}
			if n := scCount(t, rc); n != 0 {
				t.Fatalf("count after drop %d", n)
			}
			if n := scCount(t, newContext(t, tbl)); n != 0 {
				t.Fatalf("count of a new context after drop %d", n)
			}
		})
	}
}
