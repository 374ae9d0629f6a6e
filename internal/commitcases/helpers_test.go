package commitcases_test

import (
	"context"
	"slices"
	"strings"
	"testing"

	"github.com/paimon-go/paimon/catalog"
	"github.com/paimon-go/paimon/commit"
	"github.com/paimon-go/paimon/internal/tabletest"
	"github.com/paimon-go/paimon/manifest"
	"github.com/paimon-go/paimon/reader"
	"github.com/paimon-go/paimon/snapshot"
	"github.com/paimon-go/paimon/types"
)

const user = "commitcases"

// newPartitioned creates a bucket-unaware append table (p INT, v STRING)
// partitioned by p, with the given options, in the warehouse at whURL ("" for
// a temporary local directory).
func newPartitioned(t *testing.T, whURL string, options map[string]string) *catalog.Table {
	t.Helper()
	return tabletest.NewTable(t, whURL, catalog.Schema{
		Fields:        []types.DataField{{Name: "p", Type: types.Int()}, {Name: "v", Type: types.String()}},
		PartitionKeys: []string{"p"},
		Options:       options,
	})
}

// prepare writes rows of (p, v) with a new writer and returns its messages.
func prepare(t *testing.T, tbl *catalog.Table, rows ...[]any) []commit.Message {
	t.Helper()
	rec := tabletest.Batch(t, types.SchemaToArrow(tbl.Schema.Fields), rows...)
	defer rec.Release()
	return tabletest.Prepare(t, tbl, user, rec)
}

// writeCommit writes rows with a new writer and commits them with a new
// committer (closed, so the LATEST hint is written); it returns the snapshot id.
func writeCommit(t *testing.T, tbl *catalog.Table, rows ...[]any) int64 {
	t.Helper()
	rec := tabletest.Batch(t, types.SchemaToArrow(tbl.Schema.Fields), rows...)
	defer rec.Release()
	return tabletest.WriteCommit(t, tbl, user, commit.BatchIdentifier, rec)
}

// newCommitter returns a committer on tbl's FileIO and schema, closed when the
// test ends.
func newCommitter(t *testing.T, tbl *catalog.Table) *commit.Committer {
	t.Helper()
	c, err := commit.New(tbl.FileIO, tbl.Schema, user)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { c.Close() })
	return c
}

// rowsOf reads every record of plan as sorted "p|v" strings.
func rowsOf(t *testing.T, plan *reader.Plan) []string {
	t.Helper()
	var out []string
	for rec, err := range plan.Records(context.Background()) {
		if err != nil {
			t.Fatal(err)
		}
		for i := range int(rec.NumRows()) {
			cols := make([]string, rec.NumCols())
			for c := range cols {
				cols[c] = rec.Column(c).ValueStr(i)
			}
			out = append(out, strings.Join(cols, "|"))
		}
		rec.Release()
	}
	slices.Sort(out)
	return out
}

// scanRows plans and reads the latest snapshot of tbl through its own FileIO;
// it returns the snapshot id read (0 for none) and the sorted rows.
func scanRows(t *testing.T, tbl *catalog.Table, opts ...reader.Option) (int64, []string) {
	t.Helper()
	plan, err := reader.NewScan(tbl.FileIO, opts...).Plan(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	var id int64
	if plan.Snapshot != nil {
		id = plan.Snapshot.ID
	}
	return id, rowsOf(t, plan)
}

// liveFiles reads the base and delta manifest lists of snapshot id and all
// their manifests, and nets the entries with manifest.Net: the data file
// names of the live set, sorted.
func liveFiles(t *testing.T, tbl *catalog.Table, id int64) []string {
	t.Helper()
	ctx := context.Background()
	sn, err := snapshot.NewManager(tbl.FileIO).Get(ctx, id)
	if err != nil {
		t.Fatal(err)
	}
	var all []manifest.Entry
	for _, list := range []string{sn.BaseManifestList, sn.DeltaManifestList} {
		for _, m := range readList(t, tbl, list) {
			es, err := manifest.ReadManifest(ctx, tbl.FileIO, m.FileName)
			if err != nil {
				t.Fatal(err)
			}
			all = append(all, es...)
		}
	}
	live, err := manifest.Net(all)
	if err != nil {
		t.Fatalf("snapshot %d: %v", id, err)
	}
	var out []string
	for _, e := range live {
		out = append(out, e.File.FileName)
	}
	slices.Sort(out)
	return out
}

func readList(t *testing.T, tbl *catalog.Table, name string) []manifest.FileMeta {
	t.Helper()
	metas, err := manifest.ReadManifestList(context.Background(), tbl.FileIO, name)
	if err != nil {
		t.Fatal(err)
	}
	return metas
}

func getSnapshot(t *testing.T, tbl *catalog.Table, id int64) *snapshot.Snapshot {
	t.Helper()
	sn, err := snapshot.NewManager(tbl.FileIO).Get(context.Background(), id)
	if err != nil {
		t.Fatal(err)
	}
	return sn
}

// listDir lists the file names directly below dir of tbl, sorted.
func listDir(t *testing.T, tbl *catalog.Table, dir string) []string {
	t.Helper()
	infos, err := tbl.FileIO.List(context.Background(), dir)
	if err != nil {
		t.Fatal(err)
	}
	var out []string
	for _, fi := range infos {
		if !fi.IsDir {
			out = append(out, fi.Path[strings.LastIndexByte(fi.Path, '/')+1:])
		}
	}
	slices.Sort(out)
	return out
}

// newFiles returns the names of the new data files of msgs, sorted.
func newFiles(msgs []commit.Message) []string {
	var out []string
	for _, m := range msgs {
		for _, f := range m.Data.NewFiles {
			out = append(out, f.FileName)
		}
	}
	slices.Sort(out)
	return out
}

// snapshotIDs lists the ids of tbl's snapshot files, ascending.
func snapshotIDs(t *testing.T, tbl *catalog.Table) []int64 {
	t.Helper()
	ids, err := snapshot.NewManager(tbl.FileIO).IDs(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	return ids
}

// referencedManifests returns the names of the manifest lists and manifests
// that tbl's snapshots refer to, sorted: what manifest/ holds when no commit
// left a file behind.
func referencedManifests(t *testing.T, tbl *catalog.Table) []string {
	t.Helper()
	seen := map[string]bool{}
	for _, id := range snapshotIDs(t, tbl) {
		sn := getSnapshot(t, tbl, id)
		for _, list := range []string{sn.BaseManifestList, sn.DeltaManifestList} {
			seen[list] = true
			for _, m := range readList(t, tbl, list) {
				seen[m.FileName] = true
			}
		}
	}
	var out []string
	for n := range seen {
		out = append(out, n)
	}
	slices.Sort(out)
	return out
}
