package commit

import (
	"context"
	"fmt"
	"slices"
	"testing"

	"github.com/paimon-go/paimon/fileio"
	"github.com/paimon-go/paimon/manifest"
	"github.com/paimon-go/paimon/schema"
	"github.com/paimon-go/paimon/snapshot"
	"github.com/paimon-go/paimon/types"
)

// memTable creates an unpartitioned append table on a mem:// store (an
// object store as far as the Committer is concerned: background work on).
func memTable(t testing.TB) (*fileio.FileIO, *schema.TableSchema) {
	return tableAt(t, "mem://")
}

// localTable is memTable in a local directory (background work off unless
// WithBackground).
func localTable(t testing.TB) (*fileio.FileIO, *schema.TableSchema) {
	return tableAt(t, "file://"+t.TempDir())
}

func tableAt(t testing.TB, url string) (*fileio.FileIO, *schema.TableSchema) {
	t.Helper()
	ctx := context.Background()
	fio, err := fileio.Open(ctx, url)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { fio.Close() })
	ts, err := schema.New([]types.DataField{{Name: "k", Type: types.BigInt()}}, false, nil, nil, nil, "", 0)
	if err != nil {
		t.Fatal(err)
	}
	if err := schema.NewManager(fio, "").Commit(ctx, ts); err != nil {
		t.Fatal(err)
	}
	return fio, ts
}

// fileMsg is a message adding one (fictitious) data file of one row.
func fileMsg(name string) []Message {
	f := manifest.DataFileMeta{FileName: name, FileSize: 100, RowCount: 1,
		MinKey: manifest.EmptyRow(), MaxKey: manifest.EmptyRow(),
		KeyStats: manifest.EmptyStats(), ValueStats: manifest.EmptyStats(), ExtraFiles: []string{}}
	return []Message{{Partition: manifest.EmptyRow(), TotalBuckets: -1, Data: DataIncrement{NewFiles: []manifest.DataFileMeta{f}}}}
}

func (c *Committer) preparedList(t *testing.T) string {
	t.Helper()
	c.mu.Lock()
	l := c.next
	c.mu.Unlock()
	if l == nil {
		t.Fatal("no base list prepared")
	}
	<-l.done
	if l.err != nil {
		t.Fatal(l.err)
	}
	return l.list().name
}

func manifestNames(t *testing.T, fio *fileio.FileIO) []string {
	t.Helper()
	files, err := fio.List(context.Background(), manifest.Dir)
	if err != nil {
		t.Fatal(err)
	}
	var out []string
	for _, f := range files {
		out = append(out, f.Path[len(manifest.Dir)+1:])
	}
	return out
}

// TestPreparedBaseList: on an object store, and on local disk with
// WithBackground, the base list of the next snapshot is written after a
// commit; the next commit uses it, a commit that finds its base superseded
// deletes it, and Close deletes an unused one. The LATEST hint is written
// in the background and is current after Close.
func TestPreparedBaseList(t *testing.T) {
	t.Run("mem", func(t *testing.T) {
		fio, ts := memTable(t)
		testPreparedBaseList(t, fio, ts)
	})
	t.Run("local-background", func(t *testing.T) {
		fio, ts := localTable(t)
		testPreparedBaseList(t, fio, ts, WithBackground())
	})
}

// TestLocalInline: on local disk without WithBackground nothing is
// prepared and the LATEST hint is written before Commit returns.
func TestLocalInline(t *testing.T) {
	ctx := context.Background()
	fio, ts := localTable(t)
	c, err := New(fio, ts, "u")
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close()
	for i := int64(1); i <= 3; i++ {
		if id, err := c.Commit(ctx, i, fileMsg(fmt.Sprint("f", i))); err != nil || id != i {
			t.Fatalf("Commit %d = %d, %v", i, id, err)
		}
		if c.next != nil {
			t.Fatalf("commit %d: a base list was prepared on local disk without WithBackground", i)
		}
		if latest, err := fio.ReadFile(ctx, "snapshot/LATEST"); err != nil || string(latest) != fmt.Sprint(i) {
			t.Fatalf("commit %d: LATEST = %q, %v when Commit returned", i, latest, err)
		}
	}
}

func testPreparedBaseList(t *testing.T, fio *fileio.FileIO, ts *schema.TableSchema, opts ...Option) {
	ctx := context.Background()
	snaps := snapshot.NewManager(fio)
	c, err := New(fio, ts, "u", opts...)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := c.Commit(ctx, 1, fileMsg("f1")); err != nil {
		t.Fatal(err)
	}
	if c.next != nil {
		t.Error("a base list was prepared after the first commit of a Committer")
	}
	if _, err := c.Commit(ctx, 2, fileMsg("f2")); err != nil {
		t.Fatal(err)
	}
	prepared := c.preparedList(t)
	if _, err := c.Commit(ctx, 3, fileMsg("f3")); err != nil {
		t.Fatal(err)
	}
	s3, err := snaps.Get(ctx, 3)
	if err != nil {
		t.Fatal(err)
	}
	if s3.BaseManifestList != prepared {
		t.Errorf("snapshot 3 base list %s, want the prepared %s", s3.BaseManifestList, prepared)
	}
	metas, err := manifest.ReadManifestList(ctx, fio, s3.BaseManifestList)
	if err != nil || len(metas) != 2 || metas[0].NumAddedFiles != 1 || metas[1].NumAddedFiles != 1 {
		t.Errorf("snapshot 3 base list %+v, %v; want the manifests of snapshots 1 and 2", metas, err)
	}

	// Another committer takes snapshot 4: c's prepared list is for 3 and
	// must go; c's commit lands as 5.
	stale := c.preparedList(t)
	other, _ := New(fio, ts, "v", opts...)
	if id, err := other.Commit(ctx, 1, fileMsg("g1")); err != nil || id != 4 {
		t.Fatalf("other Commit = %d, %v", id, err)
	}
	if id, err := c.Commit(ctx, 4, fileMsg("f4")); err != nil || id != 5 {
		t.Fatalf("Commit = %d, %v; want 5", id, err)
	}
	if slices.Contains(manifestNames(t, fio), stale) {
		t.Errorf("the stale prepared list %s was not deleted", stale)
	}
	other.Close()
	// After a lost race nothing is prepared; commit again to prepare one,
	// then Close deletes it.
	if _, err := c.Commit(ctx, 5, fileMsg("f5")); err != nil {
		t.Fatal(err)
	}
	unused := c.preparedList(t)
	c.Close()
	names := manifestNames(t, fio)
	if slices.Contains(names, unused) {
		t.Errorf("Close left the prepared list %s", unused)
	}
	// Every remaining file is referenced by a snapshot.
	ref := map[string]bool{}
	all, err := snaps.List(ctx)
	if err != nil {
		t.Fatal(err)
	}
	for _, s := range all {
		for _, l := range []string{s.BaseManifestList, s.DeltaManifestList} {
			ref[l] = true
			ms, err := manifest.ReadManifestList(ctx, fio, l)
			if err != nil {
				t.Fatal(err)
			}
			for _, m := range ms {
				ref[m.FileName] = true
			}
		}
	}
	for _, n := range names {
		if !ref[n] {
			t.Errorf("unreferenced manifest file %s", n)
		}
	}
	if len(names) != len(ref) {
		t.Errorf("%d files in manifest/, %d referenced", len(names), len(ref))
	}
	latest, err := fio.ReadFile(ctx, "snapshot/LATEST")
	if err != nil || string(latest) != fmt.Sprint(len(all)) {
		t.Errorf("LATEST = %q, %v; want %d", latest, err, len(all))
	}
	if s := all[len(all)-1]; s.ID != 6 || s.TotalRecordCount != 6 {
		t.Errorf("last snapshot %d total %d; want 6 6", s.ID, s.TotalRecordCount)
	}
}

// BenchmarkDeltaEncode measures the CPU a commit spends on its critical path
// to encode the delta of one new file: its manifest and the delta list
// (both Avro with zstd, Java's defaults).
//
//	go test -run XXX -bench DeltaEncode -benchmem ./commit/
func BenchmarkDeltaEncode(b *testing.B) {
	fio, ts := memTable(b)
	c, err := New(fio, ts, "u")
	if err != nil {
		b.Fatal(err)
	}
	parts, err := c.parts(fileMsg("f1"))
	if err != nil {
		b.Fatal(err)
	}
	for b.Loop() {
		_, metas, err := c.mw.encodeManifests(parts[0].entries)
		if err != nil {
			b.Fatal(err)
		}
		if _, err := c.mw.encodeList(metas); err != nil {
			b.Fatal(err)
		}
	}
}
