package commit_test

import (
	"context"
	"errors"
	"reflect"
	"slices"
	"strings"
	"testing"

	"github.com/paimon-go/paimon/catalog"
	"github.com/paimon-go/paimon/commit"
	"github.com/paimon-go/paimon/deletionvector"
	"github.com/paimon-go/paimon/fileio"
	"github.com/paimon-go/paimon/internal/fixture"
	"github.com/paimon-go/paimon/internal/tabletest"
	"github.com/paimon-go/paimon/manifest"
	"github.com/paimon-go/paimon/reader"
	"github.com/paimon-go/paimon/schema"
	"github.com/paimon-go/paimon/snapshot"
)

// prepareDV writes rows (k, v) into a deletion-vector table as level-0
// files. The writer refuses deletion-vector tables (their level-0 files
// stay invisible until compacted), so the rows are written through a copy
// of the schema without the option; the files are the same.
func prepareDV(t *testing.T, tbl *catalog.Table, ks []int64, v string) []commit.Message {
	t.Helper()
	ts := *tbl.Schema
	ts.Options = ts.Options.Clone()
	delete(ts.Options, schema.KeyDeletionVectorsEnabled)
	plain := *tbl
	plain.Schema = &ts
	return prepare(t, &plain, "u", ks, v)
}

func indexEntries(t *testing.T, fio *fileio.FileIO, s *snapshot.Snapshot) []manifest.IndexManifestEntry {
	t.Helper()
	if s.IndexManifest == nil {
		t.Fatalf("snapshot %d has no index manifest", s.ID)
	}
	es, err := manifest.ReadIndexManifest(context.Background(), fio, *s.IndexManifest)
	if err != nil {
		t.Fatal(err)
	}
	return es
}

func int64p(n int64) *int64 { return &n }

// TestCommitDeletionVectors commits compactions that mark replaced rows
// with deletion vectors, and checks the index manifests, what batch reads
// (which skip level 0) return, and the conflicts.
func TestCommitDeletionVectors(t *testing.T) {
	ctx := context.Background()
	tbl := tabletest.NewTable(t, "", pkSchema(map[string]string{"bucket": "1", "deletion-vectors.enabled": "true"}))
	fio := tbl.FileIO
	c, err := commit.New(fio, tbl.Schema, "u")
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close()
	commitOK := func(identifier int64, msgs []commit.Message, wantID int64) *snapshot.Snapshot {
		t.Helper()
		if id, err := c.Commit(ctx, identifier, msgs); err != nil || id != wantID {
			t.Fatalf("Commit %d = %d, %v; want snapshot %d", identifier, id, err, wantID)
		}
		return lastSnapshot(t, tbl)
	}
	read := func(want ...string) {
		t.Helper()
		if got := tabletest.ReadRows(t, fio.URL()); !slices.Equal(got, want) {
			t.Errorf("batch read %v, want %v", got, want)
		}
		if got := tabletest.ReadRows(t, fio.URL(), reader.WithAllLevels()); !slices.Equal(got, want) {
			t.Errorf("all-levels read %v, want %v", got, want)
		}
	}

	// Snapshots 1, 2: rows 1, 2, 3 (file F) moved to level 5.
	m1 := prepareDV(t, tbl, []int64{1, 2, 3}, "a")
	commitOK(1, m1, 1)
	commitOK(2, upgradeFirst(m1, 5), 2)
	f := m1[0].Data.NewFiles[0].FileName
	read("1|a", "2|a", "3|a")

	// Snapshot 3: 2 -> b on level 0, invisible to batch reads.
	m3 := prepareDV(t, tbl, []int64{2}, "b")
	if s := commitOK(3, m3, 3); s.IndexManifest != nil {
		t.Errorf("snapshot 3 has index manifest %s", *s.IndexManifest)
	}
	if got := tabletest.ReadRows(t, fio.URL()); !slices.Equal(got, []string{"1|a", "2|a", "3|a"}) {
		t.Errorf("batch read before compaction %v", got)
	}

	// Snapshot 4: the level-0 file goes to level 4; the old row of key 2
	// (position 1 of F) is deleted.
	dvs := deletionvector.NewMaintainer(false)
	if err := dvs.NotifyNewDeletion(f, 1); err != nil {
		t.Fatal(err)
	}
	names := deletionvector.NewNamer("t")
	added, deleted, err := dvs.WriteDeletionVectorsIndex(ctx, fio, names)
	if err != nil || len(added) != 1 || deleted != nil {
		t.Fatalf("WriteDeletionVectorsIndex = %v, %v, %v", added, deleted, err)
	}
	msg := upgradeFirst(m3, 4)
	msg[0].Compact.NewIndexFiles = added
	s4 := commitOK(4, msg, 4)
	if s4.CommitKind != snapshot.KindCompact || !strings.HasPrefix(*s4.IndexManifest, "index-manifest-") || s4.TotalRecordCount != 4 {
		t.Errorf("snapshot 4: kind %s index manifest %v records %d", s4.CommitKind, s4.IndexManifest, s4.TotalRecordCount)
	}
	want4 := []manifest.IndexManifestEntry{{Kind: manifest.Add, Partition: manifest.EmptyRow(), Bucket: 0,
		IndexFile: manifest.IndexFileMeta{IndexType: "DELETION_VECTORS", FileName: "index-t-0", FileSize: 31, RowCount: 1,
			DVRanges: []manifest.DeletionVectorMeta{{DataFileName: f, Offset: 1, Length: 22, Cardinality: int64p(1)}}}}}
	if got := indexEntries(t, fio, s4); !reflect.DeepEqual(got, want4) {
		t.Errorf("index manifest of snapshot 4:\n%+v\nwant\n%+v", got, want4)
	}
	read("1|a", "2|b", "3|a")

	// Snapshot 5 (APPEND) keeps the index manifest; snapshot 6 replaces the
	// bucket's index file.
	m5 := prepareDV(t, tbl, []int64{3}, "c")
	if s5 := commitOK(5, m5, 5); *s5.IndexManifest != *s4.IndexManifest {
		t.Errorf("snapshot 5 index manifest %s, want snapshot 4's %s", *s5.IndexManifest, *s4.IndexManifest)
	}
	if err := dvs.NotifyNewDeletion(f, 2); err != nil {
		t.Fatal(err)
	}
	added2, deleted2, err := dvs.WriteDeletionVectorsIndex(ctx, fio, names)
	if err != nil || len(added2) != 1 || !reflect.DeepEqual(deleted2, added) {
		t.Fatalf("second WriteDeletionVectorsIndex = %v, %v, %v", added2, deleted2, err)
	}
	msg = upgradeFirst(m5, 3)
	msg[0].Compact.NewIndexFiles, msg[0].Compact.DeletedIndexFiles = added2, deleted2
	s6 := commitOK(6, msg, 6)
	want6 := []manifest.IndexManifestEntry{{Kind: manifest.Add, Partition: manifest.EmptyRow(), Bucket: 0,
		IndexFile: manifest.IndexFileMeta{IndexType: "DELETION_VECTORS", FileName: "index-t-1", FileSize: 33, RowCount: 1,
			DVRanges: []manifest.DeletionVectorMeta{{DataFileName: f, Offset: 1, Length: 24, Cardinality: int64p(2)}}}}}
	if got := indexEntries(t, fio, s6); !reflect.DeepEqual(got, want6) || *s6.IndexManifest == *s4.IndexManifest {
		t.Errorf("index manifest %s of snapshot 6:\n%+v\nwant\n%+v", *s6.IndexManifest, got, want6)
	}
	read("1|a", "2|b", "3|c")
	checkNoOrphans(t, tbl)

	// A Maintainer restored from snapshot 4 replaces index-t-0, which is no
	// longer live: conflict, nothing published, nothing left behind.
	stale, err := deletionvector.RestoreMaintainer(ctx, fio, added, false)
	if err != nil {
		t.Fatal(err)
	}
	if err := stale.NotifyNewDeletion(f, 0); err != nil {
		t.Fatal(err)
	}
	sa, sd, err := stale.WriteDeletionVectorsIndex(ctx, fio, deletionvector.NewNamer("stale"))
	if err != nil {
		t.Fatal(err)
	}
	staleMsg := []commit.Message{{Partition: manifest.EmptyRow(), TotalBuckets: 1,
		Compact: commit.CompactIncrement{NewIndexFiles: sa, DeletedIndexFiles: sd}}}
	if _, err := c.Commit(ctx, 7, staleMsg); !errors.Is(err, commit.ErrConflict) {
		t.Errorf("stale index replacement: %v, want ErrConflict", err)
	}
	if n := len(snapshots(t, fio)); n != 6 {
		t.Errorf("%d snapshots after the conflict, want 6", n)
	}
	checkNoOrphans(t, tbl)

	// Another committer deletes F; a deletion vector for F then conflicts.
	other, _ := commit.New(fio, tbl.Schema, "other")
	defer other.Close()
	f5 := m1[0].Data.NewFiles[0]
	f5.Level = 5
	if id, err := other.Commit(ctx, 1, []commit.Message{{Partition: manifest.EmptyRow(), TotalBuckets: 1,
		Compact: commit.CompactIncrement{Before: []manifest.DataFileMeta{f5}}}}); err != nil || id != 7 {
		t.Fatalf("other Commit = %d, %v", id, err)
	}
	if err := dvs.NotifyNewDeletion(f, 0); err != nil {
		t.Fatal(err)
	}
	added3, deleted3, err := dvs.WriteDeletionVectorsIndex(ctx, fio, names)
	if err != nil {
		t.Fatal(err)
	}
	msg = []commit.Message{{Partition: manifest.EmptyRow(), TotalBuckets: 1,
		Compact: commit.CompactIncrement{NewIndexFiles: added3, DeletedIndexFiles: deleted3}}}
	if _, err := c.Commit(ctx, 7, msg); !errors.Is(err, commit.ErrConflict) || !strings.Contains(err.Error(), f) {
		t.Errorf("vector of a deleted file: %v, want ErrConflict naming %s", err, f)
	}
	// The same vectors as a row-level change of the append part: an
	// OVERWRITE snapshot, checked the same way.
	msg = []commit.Message{{Partition: manifest.EmptyRow(), TotalBuckets: 1,
		Data: commit.DataIncrement{NewIndexFiles: added3, DeletedIndexFiles: deleted3}}}
	if _, err := c.Commit(ctx, 7, msg); !errors.Is(err, commit.ErrConflict) {
		t.Errorf("append-part vector of a deleted file: %v, want ErrConflict", err)
	}
	if n := len(snapshots(t, fio)); n != 7 {
		t.Errorf("%d snapshots after the conflicts, want 7", n)
	}
	checkNoOrphans(t, tbl)

	// Truncate deletes the index files too: an empty index manifest.
	if id, err := c.Truncate(ctx); err != nil || id != 8 {
		t.Fatalf("Truncate = %d, %v", id, err)
	}
	if es := indexEntries(t, fio, lastSnapshot(t, tbl)); len(es) != 0 {
		t.Errorf("index manifest after Truncate: %+v", es)
	}
	read()
	checkNoOrphans(t, tbl)
}

// TestCommitDeletionVectorAppendPart commits a deletion vector in the
// append part of a message (Java's row-level DELETE): the snapshot is an
// OVERWRITE.
func TestCommitDeletionVectorAppendPart(t *testing.T) {
	ctx := context.Background()
	tbl := tabletest.NewTable(t, "", pkSchema(map[string]string{"bucket": "1", "deletion-vectors.enabled": "true"}))
	c, _ := commit.New(tbl.FileIO, tbl.Schema, "u")
	defer c.Close()
	m1 := prepareDV(t, tbl, []int64{1, 2}, "a")
	if _, err := c.Commit(ctx, 1, m1); err != nil {
		t.Fatal(err)
	}
	if _, err := c.Commit(ctx, 2, upgradeFirst(m1, 5)); err != nil {
		t.Fatal(err)
	}
	dvs := deletionvector.NewMaintainer(false)
	if err := dvs.NotifyNewDeletion(m1[0].Data.NewFiles[0].FileName, 0); err != nil {
		t.Fatal(err)
	}
	added, _, err := dvs.WriteDeletionVectorsIndex(ctx, tbl.FileIO, deletionvector.NewNamer("x"))
	if err != nil {
		t.Fatal(err)
	}
	id, err := c.Commit(ctx, 3, []commit.Message{{Partition: manifest.EmptyRow(), TotalBuckets: 1, Data: commit.DataIncrement{NewIndexFiles: added}}})
	if err != nil || id != 3 {
		t.Fatalf("Commit = %d, %v", id, err)
	}
	if s := lastSnapshot(t, tbl); s.CommitKind != snapshot.KindOverwrite || s.DeltaRecordCount != 0 {
		t.Errorf("snapshot kind %s delta %d, want OVERWRITE 0", s.CommitKind, s.DeltaRecordCount)
	}
	if got := tabletest.ReadRows(t, tbl.FileIO.URL()); !slices.Equal(got, []string{"2|a"}) {
		t.Errorf("rows %v, want [2|a]", got)
	}
}

// TestCommitDeletionVectorsOnJavaTable continues the Java-written
// deletion-vector fixture: the level-0 file of snapshot 5 (+I Skye, +I
// Marco, +U Alex 21.2 in f1=10 bucket 1) is moved to level 4 and the old
// Alex row (position 0 of the level-5 file, beside Java's vector for Tony
// at position 4) is deleted. A batch read of the new snapshot then returns
// the merged state of snapshot 5 that upstream asserts, and a read of all
// levels still the merged state of snapshot 6.
func TestCommitDeletionVectorsOnJavaTable(t *testing.T) {
	ctx := context.Background()
	dir := fixture.Copy(t, "pk_table_scan_and_read_dv_parquet")
	compactJavaFixture(t, dir)
	batch := fixture.Lookup(t, "pk_table_scan_and_read_dv_parquet", "snapshot5_all_levels")
	out, err := tabletest.Cat(ctx, dir)
	if err != nil {
		t.Fatal(err)
	}
	fixture.AssertJSONL(t, batch, out)
	all := fixture.Lookup(t, "pk_table_scan_and_read_dv_parquet", "latest_all_levels")
	out, err = tabletest.Cat(ctx, dir, reader.WithAllLevels())
	if err != nil {
		t.Fatal(err)
	}
	fixture.AssertJSONL(t, all, out)
}

// compactJavaFixture commits, as snapshot 7 of the copy of
// pk_table_scan_and_read_dv_parquet at dir, the compaction described at
// TestCommitDeletionVectorsOnJavaTable.
func compactJavaFixture(t *testing.T, dir string) {
	t.Helper()
	ctx := context.Background()
	fio, err := fileio.Open(ctx, dir)
	if err != nil {
		t.Fatal(err)
	}
	defer fio.Close()
	snaps := snapshot.NewManager(fio)
	s5, err := snaps.Get(ctx, 5)
	if err != nil {
		t.Fatal(err)
	}
	added := deltaEntries(t, &catalog.Table{FileIO: fio}, s5)
	if len(added) != 1 || added[0].Kind != manifest.Add || added[0].File.Level != 0 || added[0].Bucket != 1 {
		t.Fatalf("snapshot 5 delta %v, want one level-0 file of bucket 1", kinds(added))
	}
	l0 := added[0]
	latest, err := snaps.Latest(ctx)
	if err != nil {
		t.Fatal(err)
	}
	idx := indexEntries(t, fio, latest)
	files := deletionvector.BucketFiles(idx, l0.Partition, 1)
	dvs, err := deletionvector.RestoreMaintainer(ctx, fio, files, false)
	if err != nil {
		t.Fatal(err)
	}
	const level5 = "data-d18e5571-abce-4309-ad4a-37f0bc93679f-0.parquet"
	if err := dvs.NotifyNewDeletion(level5, 0); err != nil {
		t.Fatal(err)
	}
	newFiles, deleted, err := dvs.WriteDeletionVectorsIndex(ctx, fio, deletionvector.NewNamer("go"))
	if err != nil {
		t.Fatal(err)
	}
	up := l0.File
	up.Level = 4
	ts, err := schema.NewManager(fio, "").Latest(ctx)
	if err != nil {
		t.Fatal(err)
	}
	c, err := commit.New(fio, ts, "go-compact")
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close()
	id, err := c.Commit(ctx, commit.BatchIdentifier, []commit.Message{{Partition: l0.Partition, Bucket: 1, TotalBuckets: 2,
		Compact: commit.CompactIncrement{Before: []manifest.DataFileMeta{l0.File}, After: []manifest.DataFileMeta{up},
			NewIndexFiles: newFiles, DeletedIndexFiles: deleted}}})
	if err != nil || id != 7 {
		t.Fatalf("Commit = %d, %v; want 7", id, err)
	}
	// The index manifest keeps bucket 0's Java file and holds the new file
	// of bucket 1 (Tony 4 and Alex 0).
	s7, _ := snaps.Get(ctx, 7)
	var got []string
	for _, e := range indexEntries(t, fio, s7) {
		got = append(got, e.IndexFile.FileName)
	}
	if want := []string{"index-16bec1d6-fa31-49bd-a240-deadcfff6003-0", "index-go-0"}; !slices.Equal(got, want) {
		t.Errorf("index files %v, want %v", got, want)
	}
}
