package merge

import (
	"context"
	"fmt"
	"path/filepath"
	"slices"
	"testing"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"
	"github.com/apache/arrow-go/v18/arrow/memory"
	"github.com/apache/arrow-go/v18/parquet/file"
	"github.com/apache/arrow-go/v18/parquet/pqarrow"

	"github.com/paimon-go/paimon/types"
)

// TestFixtureMergeOnRead merges the Java-written level files of
// testdata/paimon-tables/pk_table_scan_and_read_mor_parquet, partition f1=10,
// bucket 1 (EXPECTED.md): primary key (f0, f1, f2), partition f1, so the
// trimmed key is (_KEY_f0, _KEY_f2). Its four data files are, by sequence
// number: snapshot 1 (+I Alex, Bob, David, Emily, Tony), snapshot 2
// (-D Tony), snapshot 4 (+U Alex, +I Marco, Skye), snapshot 5 (-D Alex,
// +I Marco2, Skye2). Expected rows are those asserted by paimon-cpp's
// scan_and_read_inte_test.cpp for the same files.
func TestFixtureMergeOnRead(t *testing.T) {
	dir := filepath.Join("..", "testdata", "paimon-tables", "pk_table_scan_and_read_mor_parquet", "f1=10", "bucket-1")
	snapshot1 := filepath.Join(dir, "data-3a6000ce-0611-462e-8a99-f3cb28aa6f08-0.parquet")
	snapshot2 := filepath.Join(dir, "data-3a6000ce-0611-462e-8a99-f3cb28aa6f08-1.parquet")
	snapshot4 := filepath.Join(dir, "data-a6394463-418c-423d-b9e2-f77e8a065f39-0.parquet")
	snapshot5 := filepath.Join(dir, "data-7c8140d1-a34f-4634-9814-beb4ff65ebce-0.parquet")
	fields := []types.DataField{
		{ID: 0, Name: "f0", Type: types.DataType{Kind: types.KindVarChar, Length: types.MaxLength}},
		{ID: 1, Name: "f1", Type: types.DataType{Kind: types.KindInt}},
		{ID: 2, Name: "f2", Type: types.DataType{Kind: types.KindInt}},
		{ID: 3, Name: "f3", Type: types.DataType{Kind: types.KindDouble, Nullable: true}},
	}
	cases := []struct {
		name    string
		options map[string]string
		files   []string
		want    []string
	}{
		// TestWithPKWithMorBatchScanSnapshot5WithPartitionAndBucketFilter
		{"deduplicate snapshot 5", nil, []string{snapshot1, snapshot2, snapshot4, snapshot5}, []string{
			"Bob 10 0 12.1", "David 10 0 17.1", "Emily 10 0 13.1", "Marco 10 0 21.1",
			"Marco2 10 0 31.1", "Skye 10 0 21", "Skye2 10 0 31"}},
		// merge-engine override on snapshot 3 (= files of snapshots 1 and 2 in this bucket)
		{"aggregation sum snapshot 3", map[string]string{"merge-engine": "aggregation", "fields.f3.aggregate-function": "sum"},
			[]string{snapshot1, snapshot2}, []string{
				"Alex 10 0 16.1", "Bob 10 0 12.1", "David 10 0 17.1", "Emily 10 0 13.1", "Tony 10 0 0"}},
		{"partial-update ignore-delete snapshot 3", map[string]string{"merge-engine": "partial-update", "ignore-delete": "true"},
			[]string{snapshot1, snapshot2}, []string{
				"Alex 10 0 16.1", "Bob 10 0 12.1", "David 10 0 17.1", "Emily 10 0 13.1", "Tony 10 0 14.1"}},
	}
	// pk_table_scan_and_read_first_row_parquet (merge-engine=first-row,
	// ignore-delete=true), partition f1=10, bucket 1: all four data files. Some
	// of them repeat records of others (a compaction's inputs and output);
	// identical copies cannot change a first-row result, so merging them all
	// must give the all-levels result of TestWithPKWithFirstRowStreamFromSnapshot5.
	frDir := filepath.Join("..", "testdata", "paimon-tables", "pk_table_scan_and_read_first_row_parquet", "f1=10", "bucket-1")
	frFiles, err := filepath.Glob(filepath.Join(frDir, "*.parquet"))
	if err != nil || len(frFiles) != 4 {
		t.Fatalf("first-row fixture files: %v %v", frFiles, err)
	}
	cases = append(cases, struct {
		name    string
		options map[string]string
		files   []string
		want    []string
	}{"first-row all levels", map[string]string{"merge-engine": "first-row", "ignore-delete": "true"}, frFiles, []string{
		"Alex 10 0 16.1", "Bob 10 0 12.1", "David 10 0 17.1", "Emily 10 0 13.1", "Marco 10 0 21.1",
		"Marco2 10 0 31.1", "Skye 10 0 21", "Skye2 10 0 31", "Tony 10 0 14.1"}})
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			mem := memory.NewCheckedAllocator(memory.DefaultAllocator)
			defer mem.AssertSize(t, 0)
			cfg, err := NewConfig(c.options, fields, []string{"f0", "f1", "f2"})
			if err != nil {
				t.Fatal(err)
			}
			var runs []Run
			var schema *arrow.Schema
			for _, f := range c.files {
				rr, s := openParquetRun(t, f, mem)
				runs = append(runs, rr)
				schema = s
			}
			var got []string
			for rec, err := range Merge(context.Background(), cfg, schema, runs, Options{KeyColumns: []int{0, 1}, DropDeletes: true, Allocator: mem}) {
				if err != nil {
					t.Fatal(err)
				}
				for i := range int(rec.NumRows()) {
					got = append(got, fmt.Sprintf("%s %d %d %v", rec.Column(0).(*array.String).Value(i),
						rec.Column(1).(*array.Int32).Value(i), rec.Column(2).(*array.Int32).Value(i),
						rec.Column(3).(*array.Float64).Value(i)))
				}
				rec.Release()
			}
			if !slices.Equal(got, c.want) {
				t.Errorf("got  %q\nwant %q", got, c.want)
			}
		})
	}
}

// openParquetRun opens a data file as a Run (one batch per row group).
func openParquetRun(t *testing.T, path string, mem memory.Allocator) (Run, *arrow.Schema) {
	t.Helper()
	pf, err := file.OpenParquetFile(path, false)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = pf.Close() })
	fr, err := pqarrow.NewFileReader(pf, pqarrow.ArrowReadProperties{BatchSize: 1024}, mem)
	if err != nil {
		t.Fatal(err)
	}
	rr, err := fr.GetRecordReader(context.Background(), nil, nil)
	if err != nil {
		t.Fatal(err)
	}
	return RunFromReader(rr), rr.Schema()
}
