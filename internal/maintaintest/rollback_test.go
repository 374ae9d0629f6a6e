package maintaintest

import (
	"context"
	"slices"
	"testing"

	"github.com/paimon-go/paimon/catalog"
	"github.com/paimon-go/paimon/commit"
	"github.com/paimon-go/paimon/expire"
	"github.com/paimon-go/paimon/internal/tabletest"
	"github.com/paimon-go/paimon/snapshot"
	"github.com/paimon-go/paimon/types"
)

// TestCommitterAfterRollback: a Committer that stays open while the table
// is rolled back (another process runs `paimon rollback`) must build its next
// snapshot on the rolled-back latest snapshot, as Java's
// FileStoreCommitImpl does (it reads the latest snapshot on every attempt):
// the next snapshot is the target's id + 1 and holds the target's rows plus
// the new ones, and nothing of the removed snapshots comes back.
func TestCommitterAfterRollback(t *testing.T) {
	ctx := context.Background()
	fields := []types.DataField{{Name: "k", Type: types.Int().NotNull()}, {Name: "v", Type: types.String()}}
	tbl := tabletest.NewTable(t, "", catalog.Schema{Fields: fields, PrimaryKeys: []string{"k"},
		Options: map[string]string{"bucket": "1", "write-only": "true"}})
	cm, err := commit.New(tbl.FileIO, tbl.Schema, "long-lived")
	if err != nil {
		t.Fatal(err)
	}
	defer cm.Close()
	commitRows := func(rows ...[]any) int64 {
		t.Helper()
		rec := tabletest.Batch(t, types.SchemaToArrow(fields), rows...)
		defer rec.Release()
		msgs := tabletest.Prepare(t, tbl, "long-lived", rec)
		id, err := cm.Commit(ctx, commit.BatchIdentifier, msgs)
		if err != nil {
			t.Fatalf("commit: %v", err)
		}
		return id
	}
	commitRows([]any{int32(1), "one"})
	commitRows([]any{int32(2), "two"})
	commitRows([]any{int32(3), "three"})
	if _, err := expire.Rollback(ctx, tbl.FileIO, tbl.Schema, expire.Target{Snapshot: 1}, expire.RollbackOptions{DeleteFiles: true}); err != nil {
		t.Fatal(err)
	}
	id := commitRows([]any{int32(4), "four"})
	if id != 2 {
		t.Errorf("the commit after the rollback to snapshot 1 created snapshot %d, want 2", id)
	}
	ids, err := snapshot.NewManager(tbl.FileIO).IDs(ctx)
	if err != nil {
		t.Fatal(err)
	}
	if !slices.Equal(ids, []int64{1, 2}) {
		t.Errorf("snapshot files %v, want [1 2]", ids)
	}
	expectRows(t, "latest", tbl, fields, [][]any{{int32(1), "one"}, {int32(4), "four"}})
}
