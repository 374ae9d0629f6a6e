package reader_test

import (
	"context"
	"errors"
	"fmt"
	"slices"
	"testing"

	"github.com/paimon-go/paimon/commit"
	"github.com/paimon-go/paimon/expire"
	"github.com/paimon-go/paimon/fileio"
	"github.com/paimon-go/paimon/internal/tabletest"
	"github.com/paimon-go/paimon/reader"
	"github.com/paimon-go/paimon/snapshot"
	"github.com/paimon-go/paimon/types"
)

// TestPlanLatestBesideExpiration: another writer (here in this process,
// through the hook of SetSnapshotPicked; internal/multiwriter runs the
// processes) commits twice and expires every snapshot but the latest
// between a scan's pick of the latest snapshot and its reading of that
// snapshot's manifests. A scan of the
// latest snapshot then plans the new latest one, with its exact rows; when
// that happens at every pick it gives up after 4 plans with
// ErrSnapshotExpired; a scan of a chosen snapshot id fails at once.
func TestPlanLatestBesideExpiration(t *testing.T) {
	ctx := context.Background()
	for _, c := range []struct {
		name     string
		expiring int // picks after which the other "process" commits and expires
		opts     []reader.Option
		picks    int // plans made
		wantErr  bool
	}{
		{name: "latest, expired once", expiring: 1, picks: 2},
		{name: "latest, expired three times", expiring: 3, picks: 4},
		{name: "latest, expired at every pick", expiring: 4, picks: 4, wantErr: true},
		{name: "snapshot 1, expired once", expiring: 1, opts: []reader.Option{reader.WithSnapshot(1)}, picks: 1, wantErr: true},
		{name: "latest, not expired", expiring: 0, picks: 1},
	} {
		t.Run(c.name, func(t *testing.T) {
			tbl := pkTable(t, nil, []int64{1, 2})
			sc := types.SchemaToArrow(tbl.Schema.Fields)
			var picks []int64
			latest := []int64{1} // the latest snapshot id at each pick
			next := int64(3)     // the key the next commit writes
			other := false       // the other process's writers plan too
			defer reader.SetSnapshotPicked(func(sn *snapshot.Snapshot) {
				if other {
					return
				}
				picks = append(picks, sn.ID)
				if len(picks) > c.expiring {
					return
				}
				other = true
				defer func() { other = false }()
				for range 2 {
					rec := tabletest.Batch(t, sc, []any{next, fmt.Sprintf("v%d", next)})
					tabletest.WriteCommit(t, tbl, "other", commit.BatchIdentifier, rec)
					rec.Release()
					next++
				}
				res, err := expire.Expire(ctx, tbl.FileIO, tbl.Schema, expire.Options{RetainMin: 1, RetainMax: 1})
				if err != nil {
					t.Fatal(err)
				}
				if !slices.Contains(res.Expired, sn.ID) {
					t.Fatalf("snapshot %d not expired (expired %v)", sn.ID, res.Expired)
				}
				id, err := snapshot.NewManager(tbl.FileIO).LatestID(ctx)
				if err != nil {
					t.Fatal(err)
				}
				latest = append(latest, id)
			})()
			plan, err := reader.NewScan(tbl.FileIO, c.opts...).Plan(ctx)
			if want := latest[:c.picks]; !slices.Equal(picks, want) {
				t.Fatalf("picked snapshots %v, want %v (the latest at each pick %v)", picks, want, latest)
			}
			if c.wantErr {
				if !errors.Is(err, reader.ErrSnapshotExpired) {
					t.Fatalf("plan: %v, want ErrSnapshotExpired", err)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			last := picks[len(picks)-1]
			if plan.Snapshot.ID != last {
				t.Fatalf("planned snapshot %d, want %d", plan.Snapshot.ID, last)
			}
			var want []string
			for k := int64(1); k < next; k++ {
				v := fmt.Sprintf("v%d", k)
				if k <= 2 {
					v = fmt.Sprintf("v%d-0", k)
				}
				want = append(want, fmt.Sprintf(`{"k":%d,"v":%q}`, k, v))
			}
			if got := tabletest.ReadJSONL(t, tbl.FileIO.URL()); !slices.Equal(got, want) {
				t.Fatalf("rows %v, want %v", got, want)
			}
			if got := planRows(t, plan); got != len(want) {
				t.Fatalf("the plan read %d rows, want %d", got, len(want))
			}
		})
	}
}

// planRows counts the rows plan reads.
func planRows(t *testing.T, plan *reader.Plan) int {
	t.Helper()
	n := 0
	for r, err := range plan.Records(context.Background()) {
		if err != nil {
			t.Fatal(err)
		}
		n += int(r.NumRows())
		r.Release()
	}
	return n
}

// TestCheckExpired: a missing file of a live snapshot is damage, returned as
// is; once the snapshot is expired the same error wraps ErrSnapshotExpired;
// other errors are never wrapped.
func TestCheckExpired(t *testing.T) {
	ctx := context.Background()
	tbl := pkTable(t, nil, []int64{1}, []int64{2}, []int64{3})
	sm := snapshot.NewManager(tbl.FileIO)
	sn, err := sm.Get(ctx, 1)
	if err != nil {
		t.Fatal(err)
	}
	missing := fmt.Errorf("index manifest: %w", fileio.ErrNotExist)
	other := errors.New("disk on fire")
	if got := reader.CheckExpired(ctx, tbl.FileIO, sn, missing); got != missing {
		t.Fatalf("live snapshot: %v, want the error as is", got)
	}
	if _, err := expire.Expire(ctx, tbl.FileIO, tbl.Schema, expire.Options{RetainMin: 1, RetainMax: 1}); err != nil {
		t.Fatal(err)
	}
	got := reader.CheckExpired(ctx, tbl.FileIO, sn, missing)
	if !errors.Is(got, reader.ErrSnapshotExpired) || !errors.Is(got, fileio.ErrNotExist) {
		t.Fatalf("expired snapshot: %v, want ErrSnapshotExpired wrapping fileio.ErrNotExist", got)
	}
	if got := reader.CheckExpired(ctx, tbl.FileIO, sn, other); got != other {
		t.Fatalf("expired snapshot, other error: %v, want it as is", got)
	}
	if got := reader.CheckExpired(ctx, tbl.FileIO, sn, nil); got != nil {
		t.Fatalf("nil error: %v", got)
	}
}
