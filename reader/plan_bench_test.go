package reader_test

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"sync"
	"testing"

	"github.com/apache/arrow-go/v18/arrow"

	"github.com/paimon-go/paimon"
	"github.com/paimon-go/paimon/catalog"
	"github.com/paimon-go/paimon/commit"
	"github.com/paimon-go/paimon/fileio"
	"github.com/paimon-go/paimon/internal/tabletest"
	"github.com/paimon-go/paimon/manifest"
	"github.com/paimon-go/paimon/reader"
	"github.com/paimon-go/paimon/snapshot"
	"github.com/paimon-go/paimon/types"
)

// Planning benchmarks: a primary-key table with ~100 snapshots and ~50
// manifests, planned whole and for a point query, and a point query planned
// and read end to end (what a real-time query does on every new snapshot).
//
//	go test -run '^$' -bench 'Plan|PKPointQuery' -benchtime 200x ./reader

const (
	// planBenchSnapshots is the number of snapshots the table is grown to.
	planBenchSnapshots = 100
	// planBenchRows is the rows per commit; commit c writes keys
	// [c*planBenchStride, c*planBenchStride+planBenchRows), so neighbouring
	// commits share keys and every level-0 file covers a narrow key range.
	planBenchRows   = 1000
	planBenchStride = 400
	// planBenchKey is the key the point queries look up.
	planBenchKey = int64(20001)
)

// planBenchFields is the schema of the planning table.
var planBenchFields = []types.DataField{
	{ID: 0, Name: "k", Type: types.BigInt().NotNull()},
	{ID: 1, Name: "v", Type: types.String()},
}

// planBench is the planning table, built once per test binary (it is
// expensive); read-only afterwards.
type planBench struct {
	dir, url  string
	snapshots int64
	manifests int
	err       error
}

var (
	planBenchOnce sync.Once
	planBenchData planBench
)

func planBenchTable(b *testing.B) *planBench {
	b.Helper()
	planBenchOnce.Do(func() { planBenchData.err = buildPlanBench(&planBenchData) })
	if planBenchData.err != nil {
		b.Fatal(planBenchData.err)
	}
	return &planBenchData
}

func buildPlanBench(pb *planBench) error {
	ctx := context.Background()
	dir, err := os.MkdirTemp("", "paimon-plan-bench-")
	if err != nil {
		return err
	}
	pb.dir = dir
	cat, err := catalog.Open(ctx, "file://"+dir)
	if err != nil {
		return err
	}
	defer cat.Close()
	if err := cat.CreateDatabase(ctx, "db", false); err != nil {
		return err
	}
	// manifest.merge-min-count = 51: the base list collects up to 50 small
	// manifests before they are merged. target-file-size = 4 kb: sorted
	// runs above level 0 are split into many files by key range, as they
	// are in large tables.
	tbl, err := benchCreate(ctx, cat, "plan", catalog.Schema{Fields: planBenchFields, PrimaryKeys: []string{"k"},
		Options: map[string]string{"bucket": "4", "manifest.merge-min-count": "51", "target-file-size": "4 kb"}})
	if err != nil {
		return err
	}
	sc := types.SchemaToArrow(tbl.Schema.Fields)
	for c := 0; pb.snapshots < planBenchSnapshots; c++ {
		rows := make([][]any, planBenchRows)
		for i := range rows {
			k := int64(c*planBenchStride + i)
			rows[i] = []any{k, fmt.Sprintf("v%d-%d", k, c)}
		}
		rec, err := tabletest.NewBatch(sc, rows...)
		if err != nil {
			return err
		}
		pb.snapshots, err = tabletest.Commit(ctx, tbl, "bench", commit.BatchIdentifier, rec)
		rec.Release()
		if err != nil {
			return err
		}
	}
	pb.url = "file://" + filepath.Join(dir, catalog.TablePath(tbl.Identifier))
	fio, err := fileio.Open(ctx, pb.url)
	if err != nil {
		return err
	}
	defer fio.Close()
	sn, err := snapshot.NewManager(fio).Latest(ctx)
	if err != nil {
		return err
	}
	for _, name := range []string{sn.BaseManifestList, sn.DeltaManifestList} {
		metas, err := manifest.ReadManifestList(ctx, fio, name)
		if err != nil {
			return err
		}
		pb.manifests += len(metas)
	}
	return nil
}

func planBenchOpen(b *testing.B) *paimon.Table {
	pb := planBenchTable(b)
	tbl, err := paimon.OpenTable(context.Background(), pb.url)
	if err != nil {
		b.Fatal(err)
	}
	b.Cleanup(func() { tbl.Close() })
	return tbl
}

// BenchmarkPlan plans the latest snapshot of the planning table again and
// again through one open table (whose manifest cache is warm after the first
// call): all of it, for a point query on the primary key, and all of it
// without the cache.
func BenchmarkPlan(b *testing.B) {
	for _, bc := range []struct {
		name string
		opts []reader.Option
	}{
		{"all", nil},
		{"point", []reader.Option{reader.WithWhere(fmt.Sprintf("k = %d", planBenchKey))}},
		// uncached: without the table's cache every manifest is read and
		// decoded on every Plan call.
		{"all-uncached", []reader.Option{reader.WithCache(nil)}},
	} {
		b.Run(bc.name, func(b *testing.B) {
			tbl := planBenchOpen(b)
			ctx := context.Background()
			var splits, files int
			b.ReportAllocs()
			for b.Loop() {
				plan, err := tbl.NewScan(bc.opts...).Plan(ctx)
				if err != nil {
					b.Fatal(err)
				}
				splits, files = len(plan.Splits), 0
				for _, sp := range plan.Splits {
					files += len(sp.Files)
				}
			}
			b.ReportMetric(float64(splits), "splits")
			b.ReportMetric(float64(files), "files")
			planBenchReport(b)
		})
	}
}

// BenchmarkPKPointQuery plans and reads "k = planBenchKey" on the planning
// table: one row out of four buckets of merged files.
func BenchmarkPKPointQuery(b *testing.B) {
	tbl := planBenchOpen(b)
	ctx := context.Background()
	b.ReportAllocs()
	for b.Loop() {
		plan, err := tbl.NewScan(reader.WithWhere(fmt.Sprintf("k = %d", planBenchKey))).Plan(ctx)
		if err != nil {
			b.Fatal(err)
		}
		var rows int64
		var last arrow.RecordBatch
		for rec, err := range plan.Records(ctx) {
			if err != nil {
				b.Fatal(err)
			}
			rows += rec.NumRows()
			if last != nil {
				last.Release()
			}
			last = rec
		}
		if rows != 1 {
			b.Fatalf("point query returned %d rows, want 1", rows)
		}
		if got := last.Column(0).ValueStr(0); got != fmt.Sprint(planBenchKey) {
			b.Fatalf("point query returned key %s, want %d", got, planBenchKey)
		}
		last.Release()
	}
	planBenchReport(b)
}

// planBenchReport reports the shape of the planning table.
func planBenchReport(b *testing.B) {
	b.ReportMetric(float64(planBenchData.snapshots), "snapshots")
	b.ReportMetric(float64(planBenchData.manifests), "manifests")
}
