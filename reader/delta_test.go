package reader_test

import (
	"context"
	"fmt"
	"math/rand/v2"
	"slices"
	"testing"

	"github.com/paimon-go/paimon/commit"
	"github.com/paimon-go/paimon/compaction"
	"github.com/paimon-go/paimon/expire"
	"github.com/paimon-go/paimon/internal/tabletest"
	"github.com/paimon-go/paimon/manifest"
	"github.com/paimon-go/paimon/metrics"
	"github.com/paimon-go/paimon/reader"
	"github.com/paimon-go/paimon/snapshot"
	"github.com/paimon-go/paimon/types"
)

// TestDeltaPlanning: plans through one Cache after every commit of 40
// rounds of writes, full compactions and expirations (manifests merged
// every few commits) read only the delta manifests of the snapshots since
// the last plan (the manifests the ScanReport counts), and every plan's
// files and rows equal those of a plan without a Cache. Jumps over several
// snapshots, a filtered plan and an expired gap (planned whole) are among
// them.
func TestDeltaPlanning(t *testing.T) {
	ctx := context.Background()
	tbl := pkTable(t, map[string]string{"bucket": "2", "manifest.merge-min-count": "3"})
	sc := types.SchemaToArrow(tbl.Schema.Fields)
	cache := reader.NewCache(64 << 20)
	plan := func(opts ...reader.Option) (*reader.Plan, *metrics.ScanReport) {
		t.Helper()
		var rec metrics.Recorder
		p, err := reader.NewScan(tbl.FileIO, append([]reader.Option{reader.WithCache(cache), reader.WithReporter(&rec)}, opts...)...).Plan(ctx)
		if err != nil {
			t.Fatal(err)
		}
		var r *metrics.ScanReport
		for _, x := range rec.Reports() {
			if s, ok := x.(*metrics.ScanReport); ok {
				r = s
			}
		}
		return p, r
	}
	fresh := func(opts ...reader.Option) *reader.Plan {
		t.Helper()
		p, err := reader.NewScan(tbl.FileIO, opts...).Plan(ctx)
		if err != nil {
			t.Fatal(err)
		}
		return p
	}
	deltaManifests := func(from, to int64) int {
		t.Helper()
		n := 0
		snaps := snapshot.NewManager(tbl.FileIO)
		for id := from + 1; id <= to; id++ {
			sn, err := snaps.Get(ctx, id)
			if err != nil {
				t.Fatal(err)
			}
			metas, err := manifest.ReadManifestList(ctx, tbl.FileIO, sn.DeltaManifestList)
			if err != nil {
				t.Fatal(err)
			}
			n += len(metas)
		}
		return n
	}
	rng := rand.New(rand.NewPCG(7, 9))
	var last int64
	deltas, wholes := 0, 0
	for round := range 40 {
		var rows [][]any
		for k := range int64(1 + rng.IntN(5)) {
			rows = append(rows, []any{rng.Int64N(30) + k*100, fmt.Sprintf("r%d", round)})
		}
		b := tabletest.Batch(t, sc, rows...)
		tabletest.WriteCommit(t, tbl, "u", commit.BatchIdentifier, b)
		b.Release()
		expired := false
		switch {
		case round%6 == 5:
			if _, err := compaction.Compact(ctx, tbl.FileIO, tbl.Schema, "c", compaction.Options{Full: true}); err != nil {
				t.Fatal(err)
			}
		case round%11 == 10:
			// Keeps the latest snapshot only: the snapshots since the last
			// plan are gone, so the next plan reads its manifests whole.
			if _, err := expire.Expire(ctx, tbl.FileIO, tbl.Schema, expire.Options{RetainMin: 1, RetainMax: 1}); err != nil {
				t.Fatal(err)
			}
			expired = true
		}
		if round%4 == 3 {
			continue // plan every few commits too: the deltas of several snapshots
		}
		got, r := plan()
		want := fresh()
		id := got.Snapshot.ID
		if !slices.Equal(fileNames(got), fileNames(want)) || !slices.Equal(splitShape(got), splitShape(want)) {
			t.Fatalf("round %d (snapshot %d): files %v, want %v", round, id, fileNames(got), fileNames(want))
		}
		if expired && id-last > 1 {
			wholes++
			sn := got.Snapshot
			whole := 0
			for _, name := range []string{sn.BaseManifestList, sn.DeltaManifestList} {
				metas, err := manifest.ReadManifestList(ctx, tbl.FileIO, name)
				if err != nil {
					t.Fatal(err)
				}
				whole += len(metas)
			}
			if r.Manifests != whole {
				t.Fatalf("round %d: %d manifests read after an expired gap, want all %d of snapshot %d", round, r.Manifests, whole, id)
			}
		} else if last > 0 {
			deltas++
			if want := deltaManifests(last, id); r.Manifests != want {
				t.Fatalf("round %d (snapshots %d..%d): %d manifests read, want the %d delta manifests", round, last+1, id, r.Manifests, want)
			}
		}
		// A filtered plan of the same snapshot judges the kept files.
		fg, fr := plan(reader.WithWhere("k < 50"))
		fw := fresh(reader.WithWhere("k < 50"))
		if !slices.Equal(fileNames(fg), fileNames(fw)) || fr.Manifests != 0 {
			t.Fatalf("round %d: filtered files %v (%d manifests read), want %v", round, fileNames(fg), fr.Manifests, fileNames(fw))
		}
		last = id
	}
	if deltas < 20 || wholes < 1 {
		t.Fatalf("%d plans from deltas, %d whole after an expired gap", deltas, wholes)
	}
}

// TestDeltaPlanningRollback: after a rollback frees snapshot ids, the
// snapshots committed again under them are other snapshots: plans through
// a Cache that kept the live files of the rolled-back ones equal plans
// without a Cache, at the same id and one past it.
func TestDeltaPlanningRollback(t *testing.T) {
	ctx := context.Background()
	tbl := pkTable(t, map[string]string{"bucket": "1"}, []int64{1, 2}, []int64{3}, []int64{4})
	sc := types.SchemaToArrow(tbl.Schema.Fields)
	cache := reader.NewCache(64 << 20)
	check := func(what string, wantID int64) {
		t.Helper()
		got, err := reader.NewScan(tbl.FileIO, reader.WithCache(cache)).Plan(ctx)
		if err != nil {
			t.Fatal(err)
		}
		want, err := reader.NewScan(tbl.FileIO).Plan(ctx)
		if err != nil {
			t.Fatal(err)
		}
		if got.Snapshot.ID != wantID || !slices.Equal(fileNames(got), fileNames(want)) {
			t.Fatalf("%s: snapshot %d files %v, want snapshot %d files %v", what, got.Snapshot.ID, fileNames(got), wantID, fileNames(want))
		}
	}
	commitKey := func(k int64) {
		b := tabletest.Batch(t, sc, []any{k, "again"})
		tabletest.WriteCommit(t, tbl, "u", commit.BatchIdentifier, b)
		b.Release()
	}
	rollback := func(to int64) {
		if _, err := expire.Rollback(ctx, tbl.FileIO, tbl.Schema, expire.Target{Snapshot: to}, expire.RollbackOptions{}); err != nil {
			t.Fatal(err)
		}
	}
	check("before the rollbacks", 3)
	// The kept snapshot 3 is rolled back and 3 committed again: same id.
	rollback(2)
	commitKey(7)
	check("snapshot 3 again", 3)
	// The kept snapshot 3 is rolled back again, then 3 and 4 committed:
	// 4's delta must not be applied to the kept 3.
	rollback(2)
	commitKey(8)
	commitKey(9)
	check("snapshot 4 after the third 3", 4)
}
