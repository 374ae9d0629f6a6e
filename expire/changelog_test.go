package expire_test

import (
	"context"
	"errors"
	"fmt"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/paimon-go/paimon/catalog"
	"github.com/paimon-go/paimon/expire"
	"github.com/paimon-go/paimon/fileio"
	"github.com/paimon-go/paimon/format"
	"github.com/paimon-go/paimon/internal/tabletest"
	"github.com/paimon-go/paimon/manifest"
	"github.com/paimon-go/paimon/orphan"
	"github.com/paimon-go/paimon/snapshot"
	"github.com/paimon-go/paimon/stream"
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

// TestExpireDecoupledChangelog: changelog.num-retained.* above the snapshot
// retention (Java's decoupled changelog lifecycle). Expiring snapshots 1-7
// of 8 (all older than snapshot.time-retained, down to
// snapshot.num-retained.min = 1) keeps their changelog: each snapshot's
// JSON moves, byte for byte, to changelog/changelog-<id> (Java Changelog is
// the snapshot's JSON), with its changelog files, manifests and list. The
// changelog expiration of the same run keeps changelog.num-retained.min = 3
// changelogs counting the snapshots (6, 7, 8): changelogs 1-5 go with their
// files; the changelog hints say 6 and 7. A follower reads the changes of
// snapshots 6 and 7 from the long-lived changelogs; snapshot 5 is expired
// for it.
func TestExpireDecoupledChangelog(t *testing.T) {
	ctx := context.Background()
	tbl := tabletest.NewTable(t, "", catalog.Schema{Fields: kvFields, PrimaryKeys: []string{"k"},
		Options: map[string]string{"bucket": "1", "changelog-producer": "input", "write-only": "true",
			"snapshot.num-retained.min": "1", "snapshot.num-retained.max": "2", "snapshot.time-retained": "1 ms",
			"changelog.num-retained.min": "3", "changelog.num-retained.max": "4", "changelog.time-retained": "1 ms"}})
	fio := tbl.FileIO
	var jsons [][]byte
	var clData, clMeta [][]string
	for i := range 8 {
		write(t, tbl, kv([]int64{int64(i + 1)}, "v"))
		b, err := fio.ReadFile(ctx, snapshot.NewManager(fio).Path(int64(i+1)))
		if err != nil {
			t.Fatal(err)
		}
		jsons = append(jsons, b)
		data, meta := changelogOf(t, fio, getSnap(t, fio, int64(i+1)))
		clData, clMeta = append(clData, data), append(clMeta, meta)
	}
	time.Sleep(5 * time.Millisecond)
	res, err := expire.Expire(ctx, fio, tbl.Schema, expire.Options{})
	if err != nil {
		t.Fatal(err)
	}
	equal(t, "expired", res.Expired, []int64{1, 2, 3, 4, 5, 6, 7})
	equal(t, "kept changelogs", res.KeptChangelogs, []int64{1, 2, 3, 4, 5, 6, 7})
	equal(t, "expired changelogs", res.ExpiredChangelogs, []int64{1, 2, 3, 4, 5})
	after := files(t, fio)
	var cl []string
	for _, p := range after {
		if strings.HasPrefix(p, "changelog/") {
			cl = append(cl, p)
		}
	}
	equal(t, "changelog dir", cl, []string{"changelog/EARLIEST", "changelog/LATEST", "changelog/changelog-6", "changelog/changelog-7"})
	if b, err := fio.ReadFile(ctx, "changelog/changelog-6"); err != nil || string(b) != string(jsons[5]) {
		t.Fatalf("changelog-6 = %q, %v; want snapshot 6's JSON %q", b, err, jsons[5])
	}
	for h, want := range map[string]string{"EARLIEST": "6", "LATEST": "7"} {
		if b, err := fio.ReadFile(ctx, "changelog/"+h); err != nil || string(b) != want {
			t.Errorf("changelog/%s = %q, %v; want %s", h, b, err, want)
		}
	}
	for i := range 8 {
		for _, p := range append(slices.Clone(clData[i]), clMeta[i]...) {
			if got, want := slices.Contains(after, p), i >= 5; got != want {
				t.Errorf("changelog of snapshot %d: %s present %v, want %v", i+1, p, got, want)
			}
		}
	}
	// Orphan cleaning keeps what the long-lived changelogs name.
	ores, err := orphan.Clean(ctx, fio, 24*time.Hour, orphan.Options{Now: time.Now().Add(48 * time.Hour)})
	if err != nil {
		t.Fatal(err)
	}
	equal(t, "orphans", ores.Deleted, nil)
	src := &stream.ReaderSource{FIO: fio, Table: tbl.Schema}
	f := stream.New(fio, tbl.Schema, src, stream.Options{Mode: stream.ModeFromSnapshot, SnapshotID: 6, Interval: time.Millisecond})
	var got []string
	for range 3 {
		s, err := f.Next(ctx)
		if err != nil {
			t.Fatal(err)
		}
		for _, b := range s.Batches {
			for i := range int(b.NumRows()) {
				got = append(got, fmt.Sprintf("%d %s %s", s.ID, b.Column(0).ValueStr(i), b.Column(1).ValueStr(i)))
			}
		}
		s.Release()
	}
	equal(t, "followed from 6", got, []string{"6 +I 6", "7 +I 7", "8 +I 8"})
	f5 := stream.New(fio, tbl.Schema, src, stream.Options{Mode: stream.ModeFromSnapshot, SnapshotID: 5, Interval: time.Millisecond})
	if _, err := f5.Next(ctx); !errors.Is(err, stream.ErrSnapshotExpired) {
		t.Errorf("follower from 5: %v, want ErrSnapshotExpired", err)
	}
	// A damaged file of a long-lived changelog is a corrupt file, named,
	// not an expired snapshot.
	if err := fio.WriteFile(ctx, clData[5][0], nil); err != nil {
		t.Fatal(err)
	}
	f6 := stream.New(fio, tbl.Schema, src, stream.Options{Mode: stream.ModeFromSnapshot, SnapshotID: 6, Interval: time.Millisecond})
	if _, err := f6.Next(ctx); !errors.Is(err, format.ErrCorrupt) || errors.Is(err, stream.ErrSnapshotExpired) || !strings.Contains(err.Error(), clData[5][0]) {
		t.Errorf("damaged changelog file: %v, want format.ErrCorrupt naming %s", err, clData[5][0])
	}
	// A second run has nothing more to expire.
	res, err = expire.Expire(ctx, fio, tbl.Schema, expire.Options{})
	if err != nil || len(res.Expired)+len(res.ExpiredChangelogs) != 0 {
		t.Errorf("second run: %+v, %v", res, err)
	}
}
