package expire_test

import (
	"context"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/paimon-go/paimon/catalog"
	"github.com/paimon-go/paimon/expire"
	"github.com/paimon-go/paimon/fileio"
	"github.com/paimon-go/paimon/internal/tabletest"
	"github.com/paimon-go/paimon/manifest"
	"github.com/paimon-go/paimon/snapshot"
)

// changelogOf returns the paths of the changelog files, changelog manifests
// and changelog manifest list of snapshot s.
func changelogOf(t *testing.T, fio *fileio.FileIO, s *snapshot.Snapshot) (data, meta []string) {
	t.Helper()
	if s.ChangelogManifestList == nil {
		t.Fatalf("snapshot %d has no changelog", s.ID)
	}
	meta = append(meta, manifest.Path(*s.ChangelogManifestList))
	metas, err := manifest.ReadManifestList(context.Background(), fio, *s.ChangelogManifestList)
	if err != nil {
		t.Fatal(err)
	}
	for _, m := range metas {
		meta = append(meta, manifest.Path(m.FileName))
		es, err := manifest.ReadManifest(context.Background(), fio, m.FileName)
		if err != nil {
			t.Fatal(err)
		}
		for _, e := range es {
			data = append(data, "bucket-0/"+e.File.FileName)
		}
	}
	return data, meta
}

// TestExpireDeletesChangelog: expiring snapshots of a changelog-producer =
// input table deletes their changelog files, changelog manifests and
// changelog manifest lists (Java SnapshotDeletion.cleanUnusedDataFiles
// with the changelog not decoupled), and keeps the kept snapshot's; the
// data files all stay live (no compaction: every level-0 file is live).
func TestExpireDeletesChangelog(t *testing.T) {
	ctx := context.Background()
	tbl := tabletest.NewTable(t, "", catalog.Schema{Fields: kvFields, PrimaryKeys: []string{"k"},
		Options: map[string]string{"bucket": "1", "changelog-producer": "input", "write-only": "true"}})
	fio := tbl.FileIO
	for i, rows := range [][][]any{kv([]int64{1}, "a"), kv([]int64{1}, "b"), kv([]int64{2}, "c")} {
		if id := write(t, tbl, rows); id != int64(i+1) {
			t.Fatalf("write %d made snapshot %d", i, id)
		}
	}
	var gone, goneData, kept []string
	for id := int64(1); id <= 3; id++ {
		data, meta := changelogOf(t, fio, getSnap(t, fio, id))
		if len(data) != 1 || !strings.HasPrefix(data[0], "bucket-0/changelog-") {
			t.Fatalf("snapshot %d changelog files %v", id, data)
		}
		if id < 3 {
			goneData = append(goneData, data...)
			gone = append(gone, data...)
			gone = append(gone, meta...)
		} else {
			kept = append(kept, data...)
			kept = append(kept, meta...)
		}
	}
	res, err := expire.Expire(ctx, fio, tbl.Schema, expire.Options{RetainMin: 1, OlderThan: time.Now().Add(time.Second)})
	if err != nil {
		t.Fatal(err)
	}
	equal(t, "expired", res.Expired, []int64{1, 2})
	for _, p := range gone {
		if !slices.Contains(res.Deleted, p) {
			t.Errorf("%s of an expired snapshot's changelog was not deleted", p)
		}
	}
	var deletedData []string
	for _, p := range res.Deleted {
		if strings.HasPrefix(p, "bucket-0/") {
			deletedData = append(deletedData, p)
		}
	}
	equal(t, "deleted files of bucket-0", deletedData, sorted(goneData))
	after := files(t, fio)
	for _, p := range kept {
		if !slices.Contains(after, p) {
			t.Errorf("%s of the kept snapshot's changelog was deleted", p)
		}
	}
	equal(t, "rows", read(t, fio), []string{"1|b", "2|c"})
}
