package flights_test

import (
	"context"
	"errors"
	"os"
	"path/filepath"
	"testing"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"
	"github.com/apache/arrow-go/v18/arrow/memory"
	"github.com/apache/arrow-go/v18/parquet/file"
	"github.com/apache/arrow-go/v18/parquet/pqarrow"

	"github.com/paimon-go/paimon/internal/flights"
)

// oracle reads the first row group of the file with arrow-go's pqarrow
// directly (not through format/parquet), as the reference the package's
// batches are compared with.
func oracle(t *testing.T, path string) arrow.RecordBatch {
	t.Helper()
	pf, err := file.OpenParquetFile(path, false)
	if err != nil {
		t.Fatal(err)
	}
	defer pf.Close()
	fr, err := pqarrow.NewFileReader(pf, pqarrow.ArrowReadProperties{}, memory.DefaultAllocator)
	if err != nil {
		t.Fatal(err)
	}
	tbl, err := fr.RowGroup(0).ReadTable(context.Background(), []int{0, 1, 2, 3, 4})
	if err != nil {
		t.Fatal(err)
	}
	defer tbl.Release()
	tr := array.NewTableReader(tbl, tbl.NumRows())
	defer tr.Release()
	if !tr.Next() {
		t.Fatal("empty first row group")
	}
	rec := tr.RecordBatch()
	rec.Retain()
	return rec
}

// TestScan: the first 70,000 rows in batches of at most 65,536 are two
// batches (65,536 and 4,464 rows) equal, value by value, to what pqarrow
// reads from the file's first row group; the last batch is cut to MaxRows.
func TestScan(t *testing.T) {
	path, err := flights.Find("")
	if errors.Is(err, flights.ErrNotFound) {
		t.Skip(err)
	}
	if err != nil {
		t.Fatal(err)
	}
	want := oracle(t, path)
	defer want.Release()
	if want.NumRows() < 70000 {
		t.Fatalf("first row group holds %d rows; the test needs 70,000", want.NumRows())
	}
	batches, rows, err := flights.Load(context.Background(), path, flights.Options{BatchRows: 65536, MaxRows: 70000})
	if err != nil {
		t.Fatal(err)
	}
	defer func() {
		for _, b := range batches {
			b.Release()
		}
	}()
	if rows != 70000 || len(batches) != 2 || batches[0].NumRows() != 65536 || batches[1].NumRows() != 4464 {
		var sizes []int64
		for _, b := range batches {
			sizes = append(sizes, b.NumRows())
		}
		t.Fatalf("%d rows in batches %v, want 70000 in [65536 4464]", rows, sizes)
	}
	names := []string{"date", "delay", "distance", "origin", "destination"}
	off := 0
	for _, b := range batches {
		for c := range 5 {
			if got := b.Schema().Field(c).Name; got != names[c] {
				t.Fatalf("column %d is %s, want %s", c, got, names[c])
			}
			// pqarrow reads Polars' strings as large strings: compare values.
			got, ref := b.Column(c), want.Column(c)
			for i := range got.Len() {
				if g, w := got.ValueStr(i), ref.ValueStr(off+i); g != w {
					t.Fatalf("row %d, %s = %s, pqarrow reads %s", off+i, names[c], g, w)
				}
			}
		}
		off += int(b.NumRows())
	}
	date := batches[0].Column(flights.Date).(*array.Timestamp)
	if got := date.Value(0).ToTime(arrow.Microsecond).Format("2006-01-02"); got != "2001-01-01" {
		t.Errorf("first flight on %s, want 2001-01-01 (testdata/flights/README.md)", got)
	}

	// fn's error stops the scan and comes back as it is.
	stop := errors.New("stop")
	n := 0
	got, err := flights.Scan(context.Background(), path, flights.Options{BatchRows: 1000}, func(arrow.RecordBatch) error {
		n++
		if n == 3 {
			return stop
		}
		return nil
	})
	if !errors.Is(err, stop) || n != 3 || got != 3000 {
		t.Errorf("scan stopped by fn: %d calls, %d rows, %v; want 3, 3000, stop", n, got, err)
	}
}

// TestFind: Find walks up to the directory holding the file, and wraps
// ErrNotFound where no parent holds it.
func TestFind(t *testing.T) {
	root := t.TempDir()
	data := filepath.Join(root, flights.File)
	if err := os.MkdirAll(filepath.Dir(data), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(data, nil, 0o644); err != nil {
		t.Fatal(err)
	}
	deep := filepath.Join(root, "a", "b")
	if err := os.MkdirAll(deep, 0o755); err != nil {
		t.Fatal(err)
	}
	if got, err := flights.Find(deep); err != nil || got != data {
		t.Errorf("Find(%s) = %q, %v; want %q", deep, got, err, data)
	}
	if _, err := flights.Find(t.TempDir()); !errors.Is(err, flights.ErrNotFound) {
		t.Errorf("Find in an empty directory: %v, want ErrNotFound", err)
	}
	if _, _, err := flights.Load(context.Background(), filepath.Join(root, "missing.parquet"), flights.Options{}); !errors.Is(err, os.ErrNotExist) {
		t.Errorf("Load of a missing file: %v, want os.ErrNotExist", err)
	}
}

// TestBatchesSkipsWithoutData: a test run where no parent directory holds
// the data set is skipped, not failed.
func TestBatchesSkipsWithoutData(t *testing.T) {
	var sub *testing.T
	t.Run("missing", func(t *testing.T) {
		sub = t
		t.Chdir(t.TempDir())
		flights.Batches(t, flights.Options{MaxRows: 1})
		t.Error("Batches returned without the data set")
	})
	if !sub.Skipped() {
		t.Error("the test was not skipped")
	}
}

// TestFields: Fields names the file's columns with ids 0-4 and returns a
// new slice each time.
func TestFields(t *testing.T) {
	f := flights.Fields()
	f[0].Name = "changed"
	g := flights.Fields()
	want := []string{"date", "delay", "distance", "origin", "destination"}
	for i, fd := range g {
		if fd.Name != want[i] || fd.ID != i {
			t.Errorf("field %d = %d %s, want %d %s", i, fd.ID, fd.Name, i, want[i])
		}
	}
}
