package orphan_test

import (
	"context"
	"strings"
	"testing"
	"time"

	"github.com/paimon-go/paimon/catalog"
	"github.com/paimon-go/paimon/internal/tabletest"
	"github.com/paimon-go/paimon/orphan"
	"github.com/paimon-go/paimon/types"
)

// TestCleanKeepsChangelog: the changelog files, changelog manifests and
// changelog manifest lists of a changelog-producer = input table's
// snapshots are referenced (Java's orphan cleaning reads every snapshot's
// changelog manifest list); only a planted changelog file no snapshot names
// is deleted.
func TestCleanKeepsChangelog(t *testing.T) {
	ctx := context.Background()
	kv := []types.DataField{{Name: "k", Type: types.BigInt()}, {Name: "v", Type: types.String()}}
	tbl := tabletest.NewTable(t, "", catalog.Schema{Fields: kv, PrimaryKeys: []string{"k"},
		Options: map[string]string{"bucket": "1", "changelog-producer": "input"}})
	fio := tbl.FileIO
	for i, v := range []string{"a", "b"} {
		r := tabletest.Batch(t, types.SchemaToArrow(tbl.Schema.Fields), []any{int64(1), v}, []any{int64(i + 2), v})
		tabletest.WriteCommit(t, tbl, "u", int64(i+1), r)
		r.Release()
	}
	var changelogs int
	for _, p := range files(t, fio) {
		if strings.HasPrefix(p, "bucket-0/changelog-") {
			changelogs++
		}
	}
	if changelogs != 2 {
		t.Fatalf("%d changelog files, want 2", changelogs)
	}
	orphans := []string{"bucket-0/changelog-orphan-0.parquet"}
	plant(t, fio, orphans...)
	before := files(t, fio)
	now := time.Now().Add(48 * time.Hour) // every file is old enough
	res, err := orphan.Clean(ctx, fio, 24*time.Hour, orphan.Options{Now: now})
	if err != nil {
		t.Fatal(err)
	}
	equal(t, "deleted", res.Deleted, orphans)
	equal(t, "files after", files(t, fio), without(before, orphans...))
}
