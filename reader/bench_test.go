package reader_test

import (
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"sync"
	"testing"
	"time"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"
	"github.com/apache/arrow-go/v18/arrow/memory"

	"github.com/paimon-go/paimon"
	"github.com/paimon-go/paimon/catalog"
	"github.com/paimon-go/paimon/commit"
	"github.com/paimon-go/paimon/format"
	"github.com/paimon-go/paimon/format/parquet"
	"github.com/paimon-go/paimon/internal/flights"
	"github.com/paimon-go/paimon/internal/tabletest"
	"github.com/paimon-go/paimon/reader"
	"github.com/paimon-go/paimon/types"
	"github.com/paimon-go/paimon/writer"
)

// Read-throughput benchmarks of the foundation issue: an append table and a
// primary-key merge-on-read, each against a raw read of the very same Parquet
// files with format/parquet alone, timed alternately in the same iteration so
// that the load of the shared machine hits both sides alike. Each benchmark
// reports table-rows/s, raw-rows/s and ratio = table/raw throughput
// (target >= 0.7 for merge-on-read).
//
//	go test -run '^$' -bench 'Read' -benchtime 5x -count 3 ./reader

const (
	// benchAppendRows and benchPKRows cap the flights rows written into the
	// append and primary-key tables.
	benchAppendRows = 3_000_000
	benchPKRows     = 1_000_000
	// benchPKCommits is the number of commits (level-0 sorted runs per
	// bucket) of the primary-key table; consecutive commits share
	// benchPKRows/(2*benchPKCommits) keys, rewritten with a new delay.
	benchPKCommits = 5
)

// benchTables are the tables built once per test binary.
type benchTables struct {
	dir        string
	appendURL  string // unpartitioned, bucket -1, target-file-size 8 MiB
	pkURL      string // primary key (origin, destination, date), bucket 2
	appendRows int64  // rows written to the append table
	pkInput    int64  // rows given to the writer for the primary-key table (all commits; the files hold fewer: the writer merges duplicate keys within a commit)
	pkKeys     int64  // distinct keys among them (rows a merged read returns)
	err        error
	skip       string
}

// benchOnce and benchData are package-level only because the tables are expensive to build;
// it is written once and then read-only.
var (
	benchOnce sync.Once
	benchData benchTables
)

// TestMain removes the benchmark tables after the run.
func TestMain(m *testing.M) {
	code := m.Run()
	if benchData.dir != "" {
		os.RemoveAll(benchData.dir)
	}
	if planBenchData.dir != "" {
		os.RemoveAll(planBenchData.dir)
	}
	os.Exit(code)
}

// benchTablesFor builds (once) the append and primary-key tables from the
// flights data, skipping the benchmark when the data file is missing.
func benchTablesFor(b *testing.B) *benchTables {
	b.Helper()
	benchOnce.Do(func() {
		start := time.Now()
		benchData.err = buildBenchTables(&benchData)
		if benchData.err == nil && benchData.skip == "" {
			fmt.Fprintf(os.Stderr, "bench setup: %d append rows, %d pk input rows (%d keys) in %v at %s\n",
				benchData.appendRows, benchData.pkInput, benchData.pkKeys, time.Since(start).Round(time.Millisecond), benchData.dir)
		}
	})
	if benchData.skip != "" {
		b.Skip(benchData.skip)
	}
	if benchData.err != nil {
		b.Fatal(benchData.err)
	}
	return &benchData
}

func buildBenchTables(bt *benchTables) error {
	ctx := context.Background()
	path, err := flights.Find("")
	if errors.Is(err, flights.ErrNotFound) {
		bt.skip = err.Error()
		return nil
	}
	if err != nil {
		return err
	}
	batches, _, err := flights.Load(ctx, path, flights.Options{MaxRows: benchAppendRows})
	if err != nil {
		return err
	}
	defer func() {
		for _, r := range batches {
			r.Release()
		}
	}()
	dir, err := os.MkdirTemp("", "paimon-reader-bench-")
	if err != nil {
		return err
	}
	bt.dir = dir
	cat, err := catalog.Open(ctx, "file://"+dir)
	if err != nil {
		return err
	}
	defer cat.Close()
	if err := cat.CreateDatabase(ctx, "db", false); err != nil {
		return err
	}

	// Append table: what a batch job writes, one commit of a few files.
	app, err := benchCreate(ctx, cat, "flights_append", catalog.Schema{Fields: flights.Fields(),
		Options: map[string]string{"bucket": "-1", "target-file-size": "8 mb"}})
	if err != nil {
		return err
	}
	if _, err := tabletest.Commit(ctx, app, "bench", commit.BatchIdentifier, batches...); err != nil {
		return err
	}
	for _, r := range batches {
		bt.appendRows += r.NumRows()
	}
	bt.appendURL = "file://" + filepath.Join(dir, catalog.TablePath(app.Identifier))

	// Primary-key table: benchPKCommits commits of overlapping slices of the
	// first benchPKRows rows; commit c rewrites the last rows of commit c-1
	// with delay+c, so every bucket holds benchPKCommits overlapping level-0
	// runs that share keys (write-only: the writer must not compact them).
	pk, err := benchCreate(ctx, cat, "flights_pk", catalog.Schema{Fields: flights.Fields(),
		PrimaryKeys: []string{"origin", "destination", "date"}, Options: map[string]string{"bucket": "2", "write-only": "true"}})
	if err != nil {
		return err
	}
	n := min(int64(benchPKRows), bt.appendRows)
	keys := map[benchKey]struct{}{}
	for c := range int64(benchPKCommits) {
		from := max(0, c*n/benchPKCommits-n/(2*benchPKCommits))
		to := (c + 1) * n / benchPKCommits
		slice, err := benchSlice(batches, from, to, c)
		if err != nil {
			return err
		}
		for _, r := range slice {
			benchCollectKeys(r, keys)
			bt.pkInput += r.NumRows()
		}
		_, err = tabletest.Commit(ctx, pk, "bench", commit.BatchIdentifier, slice...)
		for _, r := range slice {
			r.Release()
		}
		if err != nil {
			return err
		}
	}
	bt.pkKeys = int64(len(keys))
	bt.pkURL = "file://" + filepath.Join(dir, catalog.TablePath(pk.Identifier))
	return nil
}

func benchCreate(ctx context.Context, cat *catalog.Catalog, name string, s catalog.Schema) (*catalog.Table, error) {
	id := catalog.NewIdentifier("db", name)
	if err := cat.CreateTable(ctx, id, s, false); err != nil {
		return nil, err
	}
	return cat.GetTable(ctx, id)
}

// benchSlice returns rows [from, to) of batches with delay increased by
// bump, so rows rewritten by a later commit carry new values.
func benchSlice(batches []arrow.RecordBatch, from, to, bump int64) ([]arrow.RecordBatch, error) {
	var out []arrow.RecordBatch
	var pos int64
	for _, r := range batches {
		n := r.NumRows()
		lo, hi := max(from, pos), min(to, pos+n)
		pos += n
		if lo >= hi {
			continue
		}
		part := r.NewSlice(lo-(pos-n), hi-(pos-n))
		cols := make([]arrow.Array, part.NumCols())
		for i := range cols {
			cols[i] = part.Column(i)
			cols[i].Retain()
		}
		delay, ok := cols[1].(*array.Int64)
		if !ok || part.Schema().Field(1).Name != "delay" {
			part.Release()
			return nil, fmt.Errorf("flights column 1 is %s %T, want delay BIGINT", part.Schema().Field(1).Name, cols[1])
		}
		bld := array.NewInt64Builder(memory.DefaultAllocator)
		for i := range delay.Len() {
			if delay.IsNull(i) {
				bld.AppendNull()
			} else {
				bld.Append(delay.Value(i) + bump)
			}
		}
		cols[1].Release()
		cols[1] = bld.NewArray()
		bld.Release()
		out = append(out, array.NewRecordBatch(part.Schema(), cols, part.NumRows()))
		for _, c := range cols {
			c.Release()
		}
		part.Release()
	}
	return out, nil
}

// benchKey is the primary key (origin, destination, date) of a flights row.
type benchKey struct {
	origin, destination string
	date                int64
}

// benchCollectKeys adds the primary keys of r (schema flights.Fields()) to
// keys; it is the oracle for the number of rows a merged read returns.
func benchCollectKeys(r arrow.RecordBatch, keys map[benchKey]struct{}) {
	date := r.Column(0).(*array.Timestamp)
	origin := r.Column(3).(*array.String)
	dest := r.Column(4).(*array.String)
	for i := range int(r.NumRows()) {
		keys[benchKey{origin: origin.Value(i), destination: dest.Value(i), date: int64(date.Value(i))}] = struct{}{}
	}
}

// benchTableRead plans and reads the whole table at url through
// plan.Records, returning the rows yielded and the physical rows of the
// plan's files (input rows).
func benchTableRead(b *testing.B, ctx context.Context, tbl *paimon.Table) (out, in int64) {
	plan, err := tbl.NewScan().Plan(ctx)
	if err != nil {
		b.Fatal(err)
	}
	for _, sp := range plan.Splits {
		in += sp.RowCount()
	}
	for rec, err := range plan.Records(ctx) {
		if err != nil {
			b.Fatal(err)
		}
		out += rec.NumRows()
		rec.Release()
	}
	return out, in
}

// benchRawRead reads every data file of plan with format/parquet alone,
// asking for fields, and returns the rows read.
func benchRawRead(b *testing.B, ctx context.Context, tbl *paimon.Table, plan *reader.Plan, fields []types.DataField) int64 {
	var rows int64
	fio := tbl.FileIO()
	for _, sp := range plan.Splits {
		for _, f := range sp.Files {
			p := sp.BucketPath + "/" + f.FileName
			file, err := fio.Open(ctx, p)
			if err != nil {
				b.Fatal(err)
			}
			rd, err := parquet.NewReader(ctx, file, p, fields, format.ReadOptions{})
			if err != nil {
				b.Fatal(err)
			}
			for {
				batch, err := rd.Next(ctx)
				if errors.Is(err, io.EOF) {
					break
				}
				if err != nil {
					b.Fatal(err)
				}
				rows += batch.Record.NumRows()
				batch.Record.Release()
			}
			rd.Close()
			file.Close()
		}
	}
	return rows
}

// benchOpen opens the table at url and plans it once, for the raw side's
// file list.
func benchOpen(b *testing.B, ctx context.Context, url string) (*paimon.Table, *reader.Plan) {
	tbl, err := paimon.OpenTable(ctx, url)
	if err != nil {
		b.Fatal(err)
	}
	b.Cleanup(func() { tbl.Close() })
	plan, err := tbl.NewScan().Plan(ctx)
	if err != nil {
		b.Fatal(err)
	}
	return tbl, plan
}

// alternate runs raw and table, adding their wall times to rawTime and
// tableTime; even iterations run raw first, odd ones table first, so that
// neither side always inherits the other's garbage or cache state.
func alternate(i int, raw func(), rawTime *time.Duration, table func(), tableTime *time.Duration) {
	timed := func(f func(), d *time.Duration) {
		start := time.Now()
		f()
		*d += time.Since(start)
	}
	if i%2 == 0 {
		timed(raw, rawTime)
		timed(table, tableTime)
	} else {
		timed(table, tableTime)
		timed(raw, rawTime)
	}
}

// reportRatio reports both throughputs (input rows per second) and
// table/raw.
func reportRatio(b *testing.B, rows int64, table, raw time.Duration) {
	tps := float64(rows) * float64(b.N) / table.Seconds()
	rps := float64(rows) * float64(b.N) / raw.Seconds()
	b.ReportMetric(tps, "table-rows/s")
	b.ReportMetric(rps, "raw-rows/s")
	b.ReportMetric(tps/rps, "ratio")
}

// BenchmarkAppendRead reads the append table (unpartitioned, bucket -1,
// several files of target-file-size 8 MiB) through OpenTable's scan:
// planning plus plan.Records over all columns; and, alternately in the same
// iteration, the same data files with parquet.NewReader for the same fields.
// ns/op covers both reads.
func BenchmarkAppendRead(b *testing.B) {
	bt := benchTablesFor(b)
	ctx := context.Background()
	tbl, plan := benchOpen(b, ctx, bt.appendURL)
	if plan.Snapshot == nil || len(plan.Splits) == 0 {
		b.Fatalf("append table has no splits")
	}
	files, size := 0, int64(0)
	for _, sp := range plan.Splits {
		files += len(sp.Files)
		for _, f := range sp.Files {
			size += f.FileSize
		}
	}
	b.Logf("append table: %d rows in %d splits, %d files, %d bytes", bt.appendRows, len(plan.Splits), files, size)
	var tableTime, rawTime time.Duration
	b.ResetTimer()
	for i := 0; b.Loop(); i++ {
		var raw, out int64
		alternate(i,
			func() { raw = benchRawRead(b, ctx, tbl, plan, tbl.Schema().Fields) }, &rawTime,
			func() { out, _ = benchTableRead(b, ctx, tbl) }, &tableTime)
		if raw != bt.appendRows || out != bt.appendRows {
			b.Fatalf("read %d raw rows and %d table rows, want %d", raw, out, bt.appendRows)
		}
	}
	reportRatio(b, bt.appendRows, tableTime, rawTime)
}

// BenchmarkPKMergeRead reads the primary-key table (bucket 2, 5 overlapping
// level-0 runs per bucket) through OpenTable's scan: planning plus
// plan.Records, which merges the runs (deduplicate) and drops the system
// columns; and, alternately in the same iteration, the same data files with
// parquet.NewReader for the physical key-value fields (_KEY_origin,
// _KEY_destination, _KEY_date, _SEQUENCE_NUMBER, _VALUE_KIND, the five
// columns). Both throughputs count INPUT rows (rows stored in the files);
// out-rows/s counts the merged rows yielded. ns/op covers both reads.
func BenchmarkPKMergeRead(b *testing.B) {
	bt := benchTablesFor(b)
	ctx := context.Background()
	tbl, plan := benchOpen(b, ctx, bt.pkURL)
	var input int64
	for _, sp := range plan.Splits {
		input += sp.RowCount()
		if !sp.PrimaryKey || sp.RawConvertible || len(sp.Files) < benchPKCommits {
			b.Fatalf("split %s: primary key %v, raw convertible %v, %d files; want a merge of >= %d level-0 runs",
				sp.BucketPath, sp.PrimaryKey, sp.RawConvertible, len(sp.Files), benchPKCommits)
		}
		size := int64(0)
		for _, f := range sp.Files {
			size += f.FileSize
		}
		b.Logf("split %s: %d files, %d rows, %d bytes", sp.BucketPath, len(sp.Files), sp.RowCount(), size)
	}
	kv := writer.KeyValueFields(tbl.Schema())
	var tableTime, rawTime time.Duration
	b.ResetTimer()
	for i := 0; b.Loop(); i++ {
		var raw, out, in int64
		alternate(i,
			func() { raw = benchRawRead(b, ctx, tbl, plan, kv) }, &rawTime,
			func() { out, in = benchTableRead(b, ctx, tbl) }, &tableTime)
		if raw != input || in != input || out != bt.pkKeys {
			b.Fatalf("read %d raw rows, plan of %d input rows, %d merged rows; want %d input rows and %d keys",
				raw, in, out, input, bt.pkKeys)
		}
	}
	reportRatio(b, input, tableTime, rawTime)
	b.ReportMetric(float64(bt.pkKeys)*float64(b.N)/tableTime.Seconds(), "out-rows/s")
}
