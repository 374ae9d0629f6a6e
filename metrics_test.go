package paimon_test

import (
	"context"
	"errors"
	"io/fs"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"
	"github.com/apache/arrow-go/v18/arrow/memory"

	"github.com/paimon-go/paimon"
	"github.com/paimon-go/paimon/catalog"
	"github.com/paimon-go/paimon/compaction"
	"github.com/paimon-go/paimon/expire"
	"github.com/paimon-go/paimon/metrics"
	"github.com/paimon-go/paimon/reader"
	"github.com/paimon-go/paimon/types"
)

// partRows returns rows (p, id, v) of partition p: ids from..from+n-1 with
// v = base + i.
func partRows(p, from, n, base int64) arrow.RecordBatch {
	b := array.NewRecordBuilder(memory.DefaultAllocator, arrow.NewSchema([]arrow.Field{
		{Name: "p", Type: arrow.PrimitiveTypes.Int64}, {Name: "id", Type: arrow.PrimitiveTypes.Int64},
		{Name: "v", Type: arrow.PrimitiveTypes.Int64, Nullable: true}}, nil))
	defer b.Release()
	for i := range n {
		b.Field(0).(*array.Int64Builder).Append(p)
		b.Field(1).(*array.Int64Builder).Append(from + i)
		b.Field(2).(*array.Int64Builder).Append(base + i)
	}
	return b.NewRecordBatch()
}

func reportsOf[T metrics.Report](t *testing.T, rec *metrics.Recorder) []T {
	t.Helper()
	var out []T
	for _, r := range rec.Reports() {
		x, ok := r.(T)
		if !ok {
			t.Fatalf("report %T (%s), want %T", r, r.Operation(), out)
		}
		out = append(out, x)
	}
	return out
}

func listFiles(t *testing.T, root, dir string) []string {
	t.Helper()
	var out []string
	err := filepath.WalkDir(filepath.Join(root, dir), func(p string, d fs.DirEntry, err error) error {
		if err == nil && !d.IsDir() {
			out = append(out, p)
		}
		return err
	})
	if err != nil && !errors.Is(err, fs.ErrNotExist) {
		t.Fatal(err)
	}
	return out
}

// TestReports: a table opened WithReporter reports each commit and each
// scan plan with exact figures (snapshots, files, rows; manifests and
// entries pruned by partition and by statistics), and compaction and
// expiration report the files they rewrote and deleted, the same as the
// table and the store show.
func TestReports(t *testing.T) {
	ctx := context.Background()
	created := createTable(t, catalog.Schema{
		Fields:        []types.DataField{types.Field(0, "p", types.BigInt()), types.Field(1, "id", types.BigInt()), types.Field(2, "v", types.BigInt())},
		PartitionKeys: []string{"p"}, PrimaryKeys: []string{"p", "id"},
		Options: map[string]string{"bucket": "1", "write-only": "true"},
	})
	url := created.FileIO().URL()
	root := strings.TrimPrefix(url, "file://")
	var rec metrics.Recorder
	table, err := paimon.OpenTable(ctx, url, paimon.WithReporter(&rec))
	if err != nil {
		t.Fatal(err)
	}
	defer table.Close()
	for i, r := range []arrow.RecordBatch{partRows(1, 0, 10, 0), partRows(2, 0, 10, 100), partRows(1, 10, 10, 10)} {
		writeCommit(t, table, r)
		r.Release()
		cs := reportsOf[*metrics.CommitReport](t, &rec)
		if len(cs) != 1 || !slices.Equal(cs[0].Snapshots, []int64{int64(i + 1)}) || cs[0].AddedFiles != 1 ||
			cs[0].AddedRecords != 10 || cs[0].Attempts != 1 || cs[0].LostRaces != 0 || cs[0].Err != nil {
			t.Fatalf("commit %d: reports %+v", i+1, cs)
		}
	}

	scan := func(what string, opts ...reader.Option) (*metrics.ScanReport, *reader.Plan) {
		t.Helper()
		p, err := table.NewScan(opts...).Plan(ctx)
		if err != nil {
			t.Fatal(err)
		}
		ss := reportsOf[*metrics.ScanReport](t, &rec)
		if len(ss) != 1 {
			t.Fatalf("%s: %d scan reports, want 1", what, len(ss))
		}
		r := ss[0]
		files := 0
		for _, sp := range p.Splits {
			files += len(sp.Files)
		}
		if r.Snapshot != p.Snapshot.ID || r.Splits != len(p.Splits) || r.DataFiles != files || r.Err != nil || r.Table != url {
			t.Errorf("%s: report %+v does not match the plan (snapshot %d, %d splits, %d files)", what, r, p.Snapshot.ID, len(p.Splits), files)
		}
		return r, p
	}
	// Three commits wrote three delta manifests, one file each.
	r, _ := scan("unfiltered")
	if r.Manifests != 3 || r.ManifestsSkipped != 0 || r.Entries != 3 || r.DataFiles != 3 || r.Splits != 2 ||
		r.PrunedByPartition+r.PrunedByBucket+r.PrunedByStats+r.PrunedByIndex != 0 {
		t.Errorf("unfiltered: %+v", r)
	}
	// p = 2 on a cold cache: the partition statistics of two manifests rule
	// them out.
	r, _ = scan("p = 2", reader.WithWhere("p = 2"), reader.WithCache(reader.NewCache(1<<20)))
	if r.Manifests != 3 || r.ManifestsSkipped != 2 || r.Entries != 1 || r.DataFiles != 1 || r.Filter != "p = 2" {
		t.Errorf("p = 2: %+v", r)
	}
	// p = 2 again through the table's cache, which kept the live files of
	// snapshot 3 when the unfiltered scan read all its manifests (delta
	// planning): no manifest is read, two of the three files are pruned by
	// partition.
	r, _ = scan("p = 2, kept files", reader.WithWhere("p = 2"))
	if r.Manifests != 0 || r.ManifestsSkipped != 0 || r.Entries != 3 || r.PrunedByPartition != 2 || r.DataFiles != 1 {
		t.Errorf("p = 2, kept files: %+v", r)
	}
	// 15 <= id <= 50: the key statistics keep only the third file.
	r, _ = scan("id range", reader.WithWhere("id >= 15 AND id <= 50"))
	if r.Manifests != 0 || r.ManifestsSkipped != 0 || r.Entries != 3 || r.PrunedByStats != 2 || r.DataFiles != 1 {
		t.Errorf("id range: %+v", r)
	}
	// Requests equal what the FileIO counted.
	before := table.FileIO().Stats()
	r, _ = scan("requests")
	if s := table.FileIO().Stats().Since(before); r.Requests != (metrics.Requests{Get: s.Get, Put: s.Put, List: s.List, Delete: s.Delete, Head: s.Head}) {
		t.Errorf("scan requests %+v, FileIO counted %+v", r.Requests, s)
	}

	// Compaction: the files it replaced and wrote are those the plans
	// before and after differ by.
	_, p0 := scan("before compaction")
	crec := metrics.Recorder{}
	snap, err := compaction.Compact(ctx, table.FileIO(), table.Schema(), "c", compaction.Options{Full: true, Reporter: &crec})
	if err != nil {
		t.Fatal(err)
	}
	_, p1 := scan("after compaction")
	names := func(p *reader.Plan) map[string]int64 {
		m := map[string]int64{}
		for _, sp := range p.Splits {
			for _, f := range sp.Files {
				m[f.FileName] = f.FileSize
			}
		}
		return m
	}
	n0, n1 := names(p0), names(p1)
	var in, out int
	var inBytes, outBytes int64
	for n, sz := range n0 {
		if _, ok := n1[n]; !ok {
			in, inBytes = in+1, inBytes+sz
		}
	}
	for n, sz := range n1 {
		if _, ok := n0[n]; !ok {
			out, outBytes = out+1, outBytes+sz
		}
	}
	var cr []*metrics.CompactionReport
	var ccommit []*metrics.CommitReport
	for _, x := range crec.Reports() {
		switch x := x.(type) {
		case *metrics.CompactionReport:
			cr = append(cr, x)
		case *metrics.CommitReport:
			ccommit = append(ccommit, x)
		}
	}
	// Its commit deletes the inputs and the files moved up a level (the
	// same file added at its new level).
	levels := func(p *reader.Plan) map[string]int32 {
		m := map[string]int32{}
		for _, sp := range p.Splits {
			for _, f := range sp.Files {
				m[f.FileName] = f.Level
			}
		}
		return m
	}
	l0, l1 := levels(p0), levels(p1)
	moved := 0
	for n, l := range l0 {
		if nl, ok := l1[n]; ok && nl != l {
			moved++
		}
	}
	if len(ccommit) != 1 || !slices.Equal(ccommit[0].Snapshots, []int64{snap}) || ccommit[0].DeletedFiles != in+moved || ccommit[0].AddedFiles != out+moved {
		t.Errorf("compaction's commit reports %+v, want one of snapshot %d", ccommit, snap)
	}
	if len(cr) != 1 || cr[0].Snapshot != snap || cr[0].InputFiles != in || cr[0].OutputFiles != out ||
		cr[0].InputBytes != inBytes || cr[0].OutputBytes != outBytes || cr[0].Err != nil || in == 0 {
		t.Fatalf("compaction report %+v; the plans differ by %d files in (%d bytes), %d out (%d bytes), snapshot %d", cr, in, inBytes, out, outBytes, snap)
	}

	// Expiration: the snapshots, data and manifest files it deleted are
	// those gone from the store.
	data0, man0 := len(listFiles(t, root, "p=1"))+len(listFiles(t, root, "p=2")), len(listFiles(t, root, "manifest"))
	erec := metrics.Recorder{}
	res, err := expire.Expire(ctx, table.FileIO(), table.Schema(), expire.Options{RetainMin: 1, RetainMax: 1, Reporter: &erec})
	if err != nil {
		t.Fatal(err)
	}
	data1, man1 := len(listFiles(t, root, "p=1"))+len(listFiles(t, root, "p=2")), len(listFiles(t, root, "manifest"))
	er := reportsOf[*metrics.ExpirationReport](t, &erec)
	if len(er) != 1 || er[0].Snapshots != int(snap-1) || len(res.Expired) != int(snap-1) || er[0].DataFiles != data0-data1 ||
		er[0].ManifestFiles != man0-man1 || er[0].DataFiles != in || er[0].Err != nil {
		t.Fatalf("expiration report %+v; %d snapshots expired, data files %d -> %d, manifest files %d -> %d", er, len(res.Expired), data0, data1, man0, man1)
	}
}
