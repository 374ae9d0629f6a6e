package paimon_test

import (
	"context"
	"fmt"
	"slices"
	"testing"

	"github.com/paimon-go/paimon"
	"github.com/paimon-go/paimon/catalog"
	"github.com/paimon-go/paimon/internal/tabletest"
	"github.com/paimon-go/paimon/types"
)

// TestNewCommitExpiresSnapshots: the committers of Table.NewCommit expire
// snapshots after every commit as Java's TableCommitImpl does. With
// snapshot.num-retained.max = 10, 30 commits leave exactly snapshots 21..30
// (EARLIEST 21) and every row; with write-only = true nothing expires.
func TestNewCommitExpiresSnapshots(t *testing.T) {
	for _, tc := range []struct {
		name     string
		opts     map[string]string
		earliest int64
	}{
		{"retain-max", map[string]string{"snapshot.num-retained.min": "5", "snapshot.num-retained.max": "10"}, 21},
		{"write-only", map[string]string{"snapshot.num-retained.min": "5", "snapshot.num-retained.max": "10", "write-only": "true"}, 1},
	} {
		t.Run(tc.name, func(t *testing.T) {
			ctx := context.Background()
			tbl := tabletest.NewTable(t, "", catalog.Schema{
				Fields:  []types.DataField{{Name: "k", Type: types.Int()}},
				Options: tc.opts,
			})
			pt, err := paimon.OpenTable(ctx, tbl.FileIO.URL())
			if err != nil {
				t.Fatal(err)
			}
			defer pt.Close()
			sc := types.SchemaToArrow(tbl.Schema.Fields)
			var want []string
			for i := range 30 {
				rec := tabletest.Batch(t, sc, []any{int32(i)})
				msgs := tabletest.Prepare(t, tbl, "u", rec)
				rec.Release()
				cm, err := pt.NewCommit("u")
				if err != nil {
					t.Fatal(err)
				}
				if id, err := cm.Commit(ctx, int64(i+1), msgs); err != nil || id != int64(i+1) {
					t.Fatalf("commit %d = %d, %v", i+1, id, err)
				}
				cm.Close()
				want = append(want, fmt.Sprint(i))
			}
			ids, err := pt.Snapshots().IDs(ctx)
			if err != nil {
				t.Fatal(err)
			}
			var wantIDs []int64
			for id := tc.earliest; id <= 30; id++ {
				wantIDs = append(wantIDs, id)
			}
			if !slices.Equal(ids, wantIDs) {
				t.Fatalf("snapshots %v, want %v", ids, wantIDs)
			}
			if e, err := pt.Snapshots().EarliestID(ctx); err != nil || e != tc.earliest {
				t.Fatalf("earliest = %d, %v; want %d", e, err, tc.earliest)
			}
			got := tabletest.ReadRows(t, tbl.FileIO.URL())
			slices.Sort(want)
			if !slices.Equal(got, want) {
				t.Fatalf("rows %q, want %q", got, want)
			}
		})
	}
}
