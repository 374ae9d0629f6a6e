package datafile_test

import (
	"context"
	"fmt"
	"net/url"
	"strings"
	"testing"

	"github.com/apache/arrow-go/v18/arrow/array"
	"github.com/apache/arrow-go/v18/arrow/memory"

	"github.com/paimon-go/paimon/datafile"
	"github.com/paimon-go/paimon/fileio"
	"github.com/paimon-go/paimon/testenv"
	"github.com/paimon-go/paimon/types"
)

// TestExternalPathsMinIO: with the table on an S3 bucket (MinIO) and two
// external roots in the same bucket, a RollingWriter writes each file
// below the next root (round-robin), records "s3://bucket/root/bucket-0/
// <name>" in _EXTERNAL_PATH, the files hold the rows (read through
// fileio.OpenLocation, which takes the table's endpoint), and Abort deletes
// the files not yet handed out at their external location.
func TestExternalPathsMinIO(t *testing.T) {
	ctx := context.Background()
	raw := testenv.MinIO(t)
	u, err := url.Parse(raw)
	if err != nil {
		t.Fatal(err)
	}
	fio, err := fileio.Open(ctx, "s3://"+u.Host+"/wh/t?"+u.RawQuery)
	if err != nil {
		t.Fatal(err)
	}
	defer fio.Close()
	roots := []string{"s3://" + u.Host + "/ext/a", "s3://" + u.Host + "/ext/b"}
	ts := newSchema(t, false, map[string]string{"target-file-size": "4 kb",
		"data-file.external-paths": strings.Join(roots, ","), "data-file.external-paths.strategy": "round-robin"})
	l, err := datafile.NewLayout(ts, datafile.Config{})
	if err != nil {
		t.Fatal(err)
	}
	w := datafile.NewRollingWriter(fio, "bucket-0", l, datafile.NewNamer("u"), 0)
	write := func(from, n int) {
		b := array.NewRecordBuilder(memory.DefaultAllocator, types.SchemaToArrow(l.Fields()))
		defer b.Release()
		for i := from; i < from+n; i++ {
			b.Field(0).(*array.Int32Builder).Append(int32(i))
			b.Field(1).(*array.StringBuilder).Append(fmt.Sprintf("value-%08d-%x", i, i*7919))
		}
		rec := b.NewRecordBatch()
		defer rec.Release()
		if err := w.Write(ctx, rec); err != nil {
			t.Fatal(err)
		}
	}
	write(0, 3000)
	files, err := w.Flush(ctx)
	if err != nil {
		t.Fatal(err)
	}
	if len(files) < 3 {
		t.Fatalf("%d files, want rolling at 4 KiB", len(files))
	}
	first := -1
	var rows int64
	for i, f := range files {
		r := -1
		for j, root := range roots {
			if f.ExternalPath != nil && *f.ExternalPath == root+"/bucket-0/"+f.FileName {
				r = j
			}
		}
		if r < 0 {
			t.Fatalf("file %d (%s) at %v", i, f.FileName, f.ExternalPath)
		}
		if first < 0 {
			first = r
		}
		if r != (first+i)%2 {
			t.Fatalf("file %d at root %d, want %d", i, r, (first+i)%2)
		}
		ext, rel, done, err := fio.OpenLocation(ctx, *f.ExternalPath)
		if err != nil {
			t.Fatal(err)
		}
		b, err := ext.ReadFile(ctx, rel)
		done()
		if err != nil || int64(len(b)) != f.FileSize {
			t.Fatalf("file %s: %d bytes, %v; want %d", *f.ExternalPath, len(b), err, f.FileSize)
		}
		rows += f.RowCount
	}
	if rows != 3000 {
		t.Fatalf("%d rows in the files, want 3000", rows)
	}
	if in, err := fio.ListRecursive(ctx, ""); err != nil || len(in) != 0 {
		t.Fatalf("files in the table: %v, %v", in, err)
	}

	// Abort deletes what was rolled since the last Flush, at its location.
	write(3000, 3000)
	if err := w.Abort(ctx); err != nil {
		t.Fatal(err)
	}
	bucket, err := fileio.Open(ctx, "s3://"+u.Host+"/ext?"+u.RawQuery)
	if err != nil {
		t.Fatal(err)
	}
	defer bucket.Close()
	left, err := bucket.ListRecursive(ctx, "")
	if err != nil {
		t.Fatal(err)
	}
	if len(left) != len(files) {
		t.Fatalf("%d files below the roots after Abort, want the %d flushed", len(left), len(files))
	}
}
