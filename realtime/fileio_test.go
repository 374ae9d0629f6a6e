package realtime_test

import (
	"context"
	"testing"

	"github.com/apache/arrow-go/v18/arrow"

	"github.com/paimon-go/paimon/fileio"
	"github.com/paimon-go/paimon/memindexer"
	"github.com/paimon-go/paimon/realtime"
)

// TestCommitAndScanFileIO: with WithCommitFileIO and WithScanFileIO the
// committers, the scans and lookups, and the writers each make their
// requests through their own FileIO, so each counter sees its side only.
func TestCommitAndScanFileIO(t *testing.T) {
	ctx := context.Background()
	tbl := newFooTable(t, []string{"id"}, nil, nil)
	open := func() *fileio.FileIO {
		f, err := fileio.Open(ctx, tbl.FileIO.URL())
		if err != nil {
			t.Fatal(err)
		}
		t.Cleanup(func() { f.Close() })
		return f
	}
	wfio, cfio, sfio := open(), open(), open()
	rc, err := realtime.NewContext(wfio, tbl.Schema, memindexer.Factory{},
		realtime.WithCommitFileIO(cfio), realtime.WithScanFileIO(sfio))
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { rc.Close() })
	w := newWrite(t, rc, "u")
	cm := newCommit(t, rc, "u")

	type counts struct{ w, c, s fileio.Stats }
	take := func() counts { return counts{wfio.Stats(), cfio.Stats(), sfio.Stats()} }
	since := func(before counts) counts {
		now := take()
		return counts{now.w.Since(before.w), now.c.Since(before.c), now.s.Since(before.s)}
	}
	none := fileio.Stats{}

	b := take()
	write(t, w, fooRows(t, "p0", 0, 1, 2))
	prog := prepare(t, w, 1)
	if d := since(b); d.w.Put != 1 || d.c != none || d.s != none {
		t.Errorf("write and prepare: writer %+v, committer %+v, scans %+v; want one data file PUT by the writer only", d.w, d.c, d.s)
	}

	b = take()
	id := commitProg(t, cm, prog, 1)
	// The committer writes the LATEST hint and the next base list in the
	// background (commit.WithBackground); Close waits for them and leaves
	// it usable.
	cm.Close()
	if d := since(b); d.w != none || d.s != none || d.c.Put < 3 {
		t.Errorf("commit: writer %+v, committer %+v, scans %+v; want the committer's PUTs only (manifest, list, snapshot)", d.w, d.c, d.s)
	}
	refresh(t, rc, id)

	b = take()
	equal(t, "rows", sortedScan(t, rc), fooStrings("p0", 0, 1, 2))
	if d := since(b); d.w != none || d.c != none || d.s.Get == 0 || d.s.Put != 0 {
		t.Errorf("scan: writer %+v, committer %+v, scans %+v; want the scan's GETs only", d.w, d.c, d.s)
	}

	b = take()
	keys := batch(t, []arrow.Field{{Name: "id", Type: arrow.PrimitiveTypes.Int64}}, []any{int64(1)})
	defer keys.Release()
	rec, err := rc.Lookup(ctx, keys)
	if err != nil {
		t.Fatal(err)
	}
	n := rec.NumRows()
	rec.Release()
	if d := since(b); n != 1 || d.w != none || d.c != none || d.s.Get == 0 {
		t.Errorf("lookup: %d rows, writer %+v, committer %+v, scans %+v; want 1 row and the scans' GETs only", n, d.w, d.c, d.s)
	}

	// With lookups running, a commit warms them through the scans' FileIO.
	write(t, w, fooRows(t, "p0", 3))
	prog = prepare(t, w, 2)
	b = take()
	id = commitProg(t, cm, prog, 2)
	// The warming plans the snapshot the commit returned (no LIST or HEAD
	// looking for the latest) and reads none of the manifest files the
	// committer offered to the context's cache (commit.WithManifestCache),
	// nor the new data file, whose rows the flush offered to the lookup
	// cache (writer.WithWrittenRows, reader.LookupCache.Offer): 4 GETs, the
	// snapshot and the files beside the manifest directory it names;
	// without the offers there are 7 (its delta manifest list, manifest
	// and the data file too).
	if d := since(b); d.w != none || d.c.Put < 3 || d.s != (fileio.Stats{Get: 4}) {
		t.Errorf("second commit: writer %+v, committer %+v, scans %+v; want no writer request, committer PUTs, 4 scan GETs", d.w, d.c, d.s)
	}
	refresh(t, rc, id)
	equal(t, "rows", sortedScan(t, rc), fooStrings("p0", 0, 1, 2, 3))
}
