package commit_test

import (
	"context"
	"fmt"
	"slices"
	"testing"

	"github.com/paimon-go/paimon/commit"
	"github.com/paimon-go/paimon/fileio"
	"github.com/paimon-go/paimon/internal/tabletest"
	"github.com/paimon-go/paimon/manifest"
	"github.com/paimon-go/paimon/snapshot"
)

// changelogMeta is a changelog file's meta for a commit message: f renamed
// (the committer reads only the metadata of changelog files).
func changelogMeta(f manifest.DataFileMeta, name string, rows int64) manifest.DataFileMeta {
	f.FileName = name
	f.RowCount = rows
	src := manifest.SourceAppend
	f.FileSource = &src
	return f
}

// changelogEntries reads the entries of a snapshot's changelog manifest
// list as "KIND bucket file rows" and checks the recorded list size.
func changelogEntries(t *testing.T, fio *fileio.FileIO, s *snapshot.Snapshot) []string {
	t.Helper()
	ctx := context.Background()
	if s.ChangelogManifestList == nil {
		if s.ChangelogManifestListSize != nil || s.ChangelogRecordCount != nil {
			t.Errorf("snapshot %d: no changelog list but size %v, record count %v", s.ID, s.ChangelogManifestListSize, s.ChangelogRecordCount)
		}
		return nil
	}
	size, err := fio.Size(ctx, manifest.Path(*s.ChangelogManifestList))
	if err != nil {
		t.Fatal(err)
	}
	if s.ChangelogManifestListSize == nil || *s.ChangelogManifestListSize != size {
		t.Errorf("snapshot %d: changelogManifestListSize %v, file has %d bytes", s.ID, s.ChangelogManifestListSize, size)
	}
	metas, err := manifest.ReadManifestList(ctx, fio, *s.ChangelogManifestList)
	if err != nil {
		t.Fatal(err)
	}
	var out []string
	for _, m := range metas {
		es, err := manifest.ReadManifest(ctx, fio, m.FileName)
		if err != nil {
			t.Fatal(err)
		}
		if m.NumAddedFiles != int64(len(es)) || m.NumDeletedFiles != 0 {
			t.Errorf("changelog manifest %s: %d added, %d deleted; %d entries", m.FileName, m.NumAddedFiles, m.NumDeletedFiles, len(es))
		}
		for _, e := range es {
			out = append(out, fmt.Sprintf("%s %d %s %d", e.Kind, e.Bucket, e.File.FileName, e.File.RowCount))
		}
	}
	return out
}

func recordCount(p *int64) string {
	if p == nil {
		return "nil"
	}
	return fmt.Sprint(*p)
}

// TestChangelogCommit: the data changelog of a commit goes into the
// changelog manifest list of its APPEND snapshot, the compaction changelog
// into that of its COMPACT snapshot (FileStoreCommitImpl.commit: one
// tryCommit per part with appendChangelog and compactChangelog), with
// changelogRecordCount = Σ row counts; a snapshot without changelog has
// none of the three fields; a part with only changelog still commits; a
// retry of the identifier adds nothing; overwrite drops the changelog.
func TestChangelogCommit(t *testing.T) {
	ctx := context.Background()
	tbl := tabletest.NewTable(t, "", pkSchema(map[string]string{"bucket": "1"}))
	c, _ := commit.New(tbl.FileIO, tbl.Schema, "u")
	msgs := prepare(t, tbl, "u", []int64{1, 2, 3}, "a")
	f := msgs[0].Data.NewFiles[0]
	msgs[0].Data.ChangelogFiles = []manifest.DataFileMeta{changelogMeta(f, "changelog-a-0.parquet", 3), changelogMeta(f, "changelog-a-1.parquet", 2)}
	msgs[0].Compact.ChangelogFiles = []manifest.DataFileMeta{changelogMeta(f, "changelog-b-0.parquet", 4)}
	id, err := c.Commit(ctx, 1, msgs)
	if err != nil || id != 2 {
		t.Fatalf("Commit = %d, %v; want 2 (APPEND and COMPACT)", id, err)
	}
	// A retry of identifier 1 commits nothing.
	if _, err := c.Commit(ctx, 1, msgs); err != nil {
		t.Fatalf("retried Commit: %v", err)
	}
	if n := len(snapshots(t, tbl.FileIO)); n != 2 {
		t.Fatalf("%d snapshots after the retry, want 2", n)
	}
	// Only compaction changelog: a COMPACT snapshot of no file change.
	only := []commit.Message{{Partition: msgs[0].Partition, TotalBuckets: 1,
		Compact: commit.CompactIncrement{ChangelogFiles: []manifest.DataFileMeta{changelogMeta(f, "changelog-c-0.parquet", 7)}}}}
	if id, err := c.Commit(ctx, 2, only); err != nil || id != 3 {
		t.Fatalf("changelog-only Commit = %d, %v; want 3", id, err)
	}
	// No changelog.
	if id, err := c.Commit(ctx, 3, prepare(t, tbl, "u", []int64{4}, "b")); err != nil || id != 4 {
		t.Fatalf("Commit = %d, %v; want 4", id, err)
	}
	// Overwrite ignores the changelog (Java overwritePartition).
	ow := prepare(t, tbl, "u", []int64{5}, "c")
	ow[0].Data.ChangelogFiles = []manifest.DataFileMeta{changelogMeta(f, "changelog-d-0.parquet", 1)}
	if id, err := c.Overwrite(ctx, 4, nil, ow); err != nil || id != 5 {
		t.Fatalf("Overwrite = %d, %v; want 5", id, err)
	}
	type want struct {
		kind    snapshot.CommitKind
		total   int64
		count   string
		entries []string
	}
	wants := []want{
		{snapshot.KindAppend, 3, "5", []string{"ADD 0 changelog-a-0.parquet 3", "ADD 0 changelog-a-1.parquet 2"}},
		{snapshot.KindCompact, 3, "4", []string{"ADD 0 changelog-b-0.parquet 4"}},
		{snapshot.KindCompact, 3, "7", []string{"ADD 0 changelog-c-0.parquet 7"}},
		{snapshot.KindAppend, 4, "nil", nil},
		{snapshot.KindOverwrite, 1, "nil", nil},
	}
	all := snapshots(t, tbl.FileIO)
	if len(all) != len(wants) {
		t.Fatalf("%d snapshots, want %d", len(all), len(wants))
	}
	for i, s := range all {
		w := wants[i]
		if s.CommitKind != w.kind || s.TotalRecordCount != w.total || recordCount(s.ChangelogRecordCount) != w.count {
			t.Errorf("snapshot %d: %s total %d changelogRecordCount %s; want %s %d %s", s.ID, s.CommitKind, s.TotalRecordCount,
				recordCount(s.ChangelogRecordCount), w.kind, w.total, w.count)
		}
		if got := changelogEntries(t, tbl.FileIO, s); !slices.Equal(got, w.entries) {
			t.Errorf("snapshot %d changelog %q, want %q", s.ID, got, w.entries)
		}
	}
	if got, want := manifestFiles(t, tbl.FileIO), referencedManifests(t, tbl.FileIO); !slices.Equal(got, want) {
		t.Errorf("unreferenced manifest files: %v", difference(got, want))
	}
}

// TestChangelogRetry: a commit that loses the race for its id reuses its
// changelog manifests (one list, referenced, nothing left over), and a
// commit failing with a conflict deletes its changelog manifests.
func TestChangelogRetry(t *testing.T) {
	ctx := context.Background()
	tbl := tabletest.NewTable(t, "", pkSchema(map[string]string{"bucket": "1"}))
	a, _ := commit.New(tbl.FileIO, tbl.Schema, "a")
	b, _ := commit.New(tbl.FileIO, tbl.Schema, "b")
	first := prepare(t, tbl, "a", []int64{1, 2}, "a")
	if id, err := a.Commit(ctx, 1, first); err != nil || id != 1 {
		t.Fatalf("a: %d, %v", id, err)
	}
	if id, err := b.Commit(ctx, 1, prepare(t, tbl, "b", []int64{3}, "b")); err != nil || id != 2 {
		t.Fatalf("b: %d, %v", id, err)
	}
	// a builds on its cached snapshot 1 first: creating snapshot 2 fails
	// and the attempt is redone on snapshot 2.
	msgs := prepare(t, tbl, "a", []int64{4}, "a")
	msgs[0].Data.ChangelogFiles = []manifest.DataFileMeta{changelogMeta(msgs[0].Data.NewFiles[0], "changelog-r-0.parquet", 1)}
	if id, err := a.Commit(ctx, 2, msgs); err != nil || id != 3 {
		t.Fatalf("a again: %d, %v; want 3", id, err)
	}
	s := snapshots(t, tbl.FileIO)[2]
	if got, want := changelogEntries(t, tbl.FileIO, s), []string{"ADD 0 changelog-r-0.parquet 1"}; !slices.Equal(got, want) {
		t.Errorf("changelog %q, want %q", got, want)
	}
	if got, want := manifestFiles(t, tbl.FileIO), referencedManifests(t, tbl.FileIO); !slices.Equal(got, want) {
		t.Errorf("unreferenced manifest files: %v", difference(got, want))
	}
	// A compaction conflict: its changelog manifests are deleted again.
	up := upgradeFirst(first, 5)
	if _, err := a.Commit(ctx, 3, up); err != nil {
		t.Fatal(err)
	}
	up[0].Compact.ChangelogFiles = []manifest.DataFileMeta{changelogMeta(first[0].Data.NewFiles[0], "changelog-x-0.parquet", 2)}
	c2, _ := commit.New(tbl.FileIO, tbl.Schema, "v")
	checkConflict(t, tbl, "second compaction of the same file with changelog", func() error {
		_, err := c2.Commit(ctx, 1, up)
		return err
	}, "1|a,2|a,3|b,4|a")
}
