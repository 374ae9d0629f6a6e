package commit_test

import (
	"context"
	"fmt"
	"maps"
	"slices"
	"sync"
	"testing"

	"github.com/paimon-go/paimon/catalog"
	"github.com/paimon-go/paimon/commit"
	"github.com/paimon-go/paimon/internal/tabletest"
	"github.com/paimon-go/paimon/manifest"
	"github.com/paimon-go/paimon/snapshot"
)

// listEntries returns the manifest entries of a manifest list, each as
// "KIND:file@level", and the number of manifests in it.
func listEntries(t *testing.T, tbl *catalog.Table, list string) ([]string, int) {
	t.Helper()
	ctx := context.Background()
	metas, err := manifest.ReadManifestList(ctx, tbl.FileIO, list)
	if err != nil {
		t.Fatal(err)
	}
	var out []string
	for _, m := range metas {
		es, err := manifest.ReadManifest(ctx, tbl.FileIO, m.FileName)
		if err != nil {
			t.Fatal(err)
		}
		for _, e := range es {
			out = append(out, fmt.Sprintf("%s:%s@%d", e.Kind, e.File.FileName, e.File.Level))
		}
	}
	slices.Sort(out)
	return out, len(metas)
}

// TestCompactManifests: an on-demand manifest compaction nets the entries
// of four unmerged manifests (an upgraded file among them) into one
// manifest of ADD entries, as one COMPACT snapshot that changes nothing
// else; a second call finds nothing to do, and the Committer's own commit
// user is not affected.
func TestCompactManifests(t *testing.T) {
	ctx := context.Background()
	tbl := tabletest.NewTable(t, "", pkSchema(map[string]string{"bucket": "1", "manifest.merge-min-count": "100"}))
	c, err := commit.New(tbl.FileIO, tbl.Schema, "u", commit.WithProperties(map[string]string{"custom": "x"}))
	if err != nil {
		t.Fatal(err)
	}
	if id, err := c.CompactManifests(ctx); err != nil || id != 0 {
		t.Fatalf("CompactManifests of an empty table = %d, %v; want 0, nil", id, err)
	}
	// Each write is prepared after the previous commit, as one writer
	// would: files of writers that started together would be re-sequenced.
	var first, second, third []commit.Message
	steps := []func() []commit.Message{
		func() []commit.Message { first = prepare(t, tbl, "u", []int64{1}, "a"); return first },
		func() []commit.Message { second = prepare(t, tbl, "u", []int64{2}, "b"); return second },
		func() []commit.Message { return upgradeFirst(first, 5) },
		func() []commit.Message { third = prepare(t, tbl, "u", []int64{3}, "c"); return third },
	}
	for i, step := range steps {
		if id, err := c.Commit(ctx, int64(i+1), step()); err != nil || id != int64(i+1) {
			t.Fatalf("Commit %d = %d, %v", i+1, id, err)
		}
	}
	f1, f2, f3 := first[0].Data.NewFiles[0].FileName, second[0].Data.NewFiles[0].FileName, third[0].Data.NewFiles[0].FileName
	s4 := lastSnapshot(t, tbl)
	before, _ := listEntries(t, tbl, s4.BaseManifestList)
	delta, _ := listEntries(t, tbl, s4.DeltaManifestList)
	wantBefore := []string{"ADD:" + f1 + "@0", "ADD:" + f1 + "@5", "ADD:" + f2 + "@0", "DELETE:" + f1 + "@0"}
	slices.Sort(wantBefore)
	if !slices.Equal(before, wantBefore) || !slices.Equal(delta, []string{"ADD:" + f3 + "@0"}) {
		t.Fatalf("snapshot 4: base %v delta %v; want %v and ADD %s", before, delta, wantBefore, f3)
	}
	rows := []string{"1|a", "2|b", "3|c"}

	id, err := c.CompactManifests(ctx)
	if err != nil || id != 5 {
		t.Fatalf("CompactManifests = %d, %v; want 5", id, err)
	}
	s5 := lastSnapshot(t, tbl)
	after, n := listEntries(t, tbl, s5.BaseManifestList)
	wantAfter := []string{"ADD:" + f1 + "@5", "ADD:" + f2 + "@0", "ADD:" + f3 + "@0"}
	slices.Sort(wantAfter)
	if !slices.Equal(after, wantAfter) || n != 1 {
		t.Errorf("snapshot 5 base list: %d manifests with %v; want 1 with %v", n, after, wantAfter)
	}
	if d, n := listEntries(t, tbl, s5.DeltaManifestList); len(d) != 0 || n != 0 {
		t.Errorf("snapshot 5 delta list: %d manifests, entries %v; want none", n, d)
	}
	if s5.ID != 5 || s5.CommitKind != snapshot.KindCompact || s5.CommitIdentifier != commit.BatchIdentifier ||
		s5.CommitUser == "u" || s5.CommitUser == "" || s5.SchemaID != s4.SchemaID ||
		s5.TotalRecordCount != s4.TotalRecordCount || s5.TotalRecordCount != 3 || s5.DeltaRecordCount != 0 ||
		!maps.Equal(s5.Properties, s4.Properties) || s5.Properties["custom"] != "x" ||
		(s5.IndexManifest == nil) != (s4.IndexManifest == nil) {
		t.Errorf("snapshot 5 = %+v; snapshot 4 = %+v", s5, s4)
	}
	if got := tabletest.ReadRows(t, tbl.FileIO.URL()); !slices.Equal(got, rows) {
		t.Errorf("rows after manifest compaction %v, want %v", got, rows)
	}

	// Nothing left to compact: no snapshot.
	if id, err := c.CompactManifests(ctx); err != nil || id != 0 {
		t.Errorf("second CompactManifests = %d, %v; want 0, nil", id, err)
	}
	if s := lastSnapshot(t, tbl); s.ID != 5 {
		t.Errorf("latest snapshot %d after a no-op compaction, want 5", s.ID)
	}
	// The Committer's user still commits (its next identifier is not taken
	// for committed by the compaction snapshot's BatchIdentifier).
	if id, err := c.Commit(ctx, 5, prepare(t, tbl, "u", []int64{4}, "d")); err != nil || id != 6 {
		t.Fatalf("Commit after manifest compaction = %d, %v; want 6", id, err)
	}
	if got, want := tabletest.ReadRows(t, tbl.FileIO.URL()), append(rows, "4|d"); !slices.Equal(got, want) {
		t.Errorf("rows %v, want %v", got, want)
	}
	// Every manifest file is referenced by a snapshot.
	if got, want := manifestFiles(t, tbl.FileIO), referencedManifests(t, tbl.FileIO); !slices.Equal(got, want) {
		t.Errorf("manifest files %v, referenced %v", got, want)
	}
}

// TestManifestFullCompactionByThreshold: with a full-compaction threshold
// of one byte every commit nets its base list (ManifestFileLegacyMerger
// full compaction): after an upgrade, the base list of the next snapshot
// holds the file at its new level only.
func TestManifestFullCompactionByThreshold(t *testing.T) {
	ctx := context.Background()
	tbl := tabletest.NewTable(t, "", pkSchema(map[string]string{"bucket": "1", "manifest.full-compaction-threshold-size": "1 b"}))
	c, err := commit.New(tbl.FileIO, tbl.Schema, "u")
	if err != nil {
		t.Fatal(err)
	}
	var first, second []commit.Message
	steps := []func() []commit.Message{
		func() []commit.Message { first = prepare(t, tbl, "u", []int64{1}, "a"); return first },
		func() []commit.Message { second = prepare(t, tbl, "u", []int64{2}, "b"); return second },
		func() []commit.Message { return upgradeFirst(first, 5) },
		func() []commit.Message { return prepare(t, tbl, "u", []int64{3}, "c") },
	}
	for i, step := range steps {
		if id, err := c.Commit(ctx, int64(i+1), step()); err != nil || id != int64(i+1) {
			t.Fatalf("Commit %d = %d, %v", i+1, id, err)
		}
	}
	f1, f2 := first[0].Data.NewFiles[0].FileName, second[0].Data.NewFiles[0].FileName
	s4 := lastSnapshot(t, tbl)
	base, n := listEntries(t, tbl, s4.BaseManifestList)
	want := []string{"ADD:" + f1 + "@5", "ADD:" + f2 + "@0"}
	slices.Sort(want)
	if !slices.Equal(base, want) || n != 1 {
		t.Errorf("snapshot 4 base list: %d manifests with %v; want 1 with %v", n, base, want)
	}
	if got, want := tabletest.ReadRows(t, tbl.FileIO.URL()), []string{"1|a", "2|b", "3|c"}; !slices.Equal(got, want) {
		t.Errorf("rows %v, want %v", got, want)
	}
	// Already minimal apart from the last delta: one more on-demand
	// compaction folds the delta in, and then there is nothing to do.
	if id, err := c.CompactManifests(ctx); err != nil || id != 5 {
		t.Fatalf("CompactManifests = %d, %v; want 5", id, err)
	}
	if id, err := c.CompactManifests(ctx); err != nil || id != 0 {
		t.Errorf("second CompactManifests = %d, %v; want 0", id, err)
	}
}

// TestCompactManifestsRacing: manifest compactions racing with a writer's
// commits lose races and retry, and never lose or duplicate a file.
func TestCompactManifestsRacing(t *testing.T) {
	ctx := context.Background()
	tbl := tabletest.NewTable(t, "", pkSchema(map[string]string{"bucket": "1", "manifest.merge-min-count": "100", "commit.min-retry-wait": "1 ms", "commit.max-retry-wait": "5 ms"}))
	writer, err := commit.New(tbl.FileIO, tbl.Schema, "w")
	if err != nil {
		t.Fatal(err)
	}
	compactor, err := commit.New(tbl.FileIO, tbl.Schema, "m")
	if err != nil {
		t.Fatal(err)
	}
	const commits = 12
	msgs := make([][]commit.Message, commits)
	var want []string
	for i := range msgs {
		msgs[i] = prepare(t, tbl, "w", []int64{int64(i)}, "v")
		want = append(want, fmt.Sprintf("%d|v", i))
	}
	slices.Sort(want)
	var wg sync.WaitGroup
	var ids []int64
	var cerr error
	wg.Add(1)
	go func() {
		defer wg.Done()
		for range 6 {
			id, err := compactor.CompactManifests(ctx)
			if err != nil {
				cerr = err
				return
			}
			ids = append(ids, id)
		}
	}()
	for i := range msgs {
		if _, err := writer.Commit(ctx, int64(i+1), msgs[i]); err != nil {
			t.Fatalf("Commit %d: %v", i+1, err)
		}
	}
	wg.Wait()
	if cerr != nil {
		t.Fatalf("CompactManifests: %v", cerr)
	}
	for _, id := range ids {
		if id == 0 {
			continue
		}
		s, err := snapshot.NewManager(tbl.FileIO).Get(ctx, id)
		if err != nil || s.CommitKind != snapshot.KindCompact || s.DeltaRecordCount != 0 {
			t.Errorf("manifest compaction snapshot %d: %+v, %v", id, s, err)
		}
	}
	got := tabletest.ReadRows(t, tbl.FileIO.URL())
	slices.Sort(got)
	if !slices.Equal(got, want) {
		t.Errorf("rows %v, want %v", got, want)
	}
	s := lastSnapshot(t, tbl)
	if s.TotalRecordCount != commits {
		t.Errorf("total record count %d, want %d", s.TotalRecordCount, commits)
	}
}
