package resequence_test

import (
	"context"
	"errors"
	"io"
	"slices"
	"strings"
	"testing"

	"github.com/apache/arrow-go/v18/arrow/array"

	"github.com/paimon-go/paimon/catalog"
	"github.com/paimon-go/paimon/datafile"
	"github.com/paimon-go/paimon/fileio"
	"github.com/paimon-go/paimon/format"
	"github.com/paimon-go/paimon/format/parquet"
	"github.com/paimon-go/paimon/internal/tabletest"
	"github.com/paimon-go/paimon/manifest"
	"github.com/paimon-go/paimon/resequence"
	"github.com/paimon-go/paimon/types"
)

// readSeqs returns the keys, sequence numbers and values of a key-value
// file, in file order.
func readSeqs(t *testing.T, tbl *catalog.Table, path string) (keys []int32, seqs []int64, vals []string) {
	t.Helper()
	ctx := context.Background()
	f, err := tbl.FileIO.Open(ctx, path)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	rd, err := parquet.NewReader(ctx, f, path, datafile.KeyValueFields(tbl.Schema), format.ReadOptions{})
	if err != nil {
		t.Fatal(err)
	}
	defer rd.Close()
	for {
		b, err := rd.Next(ctx)
		if errors.Is(err, io.EOF) {
			return
		}
		if err != nil {
			t.Fatal(err)
		}
		keys = append(keys, b.Record.Column(0).(*array.Int32).Int32Values()...)
		seqs = append(seqs, b.Record.Column(1).(*array.Int64).Int64Values()...)
		v := b.Record.Column(5).(*array.String)
		for i := range v.Len() {
			vals = append(vals, v.Value(i))
		}
		b.Record.Release()
	}
}

func TestShift(t *testing.T) {
	ctx := context.Background()
	tbl := tabletest.NewTable(t, "", catalog.Schema{
		Fields:        []types.DataField{{Name: "p", Type: types.String().NotNull()}, {Name: "k", Type: types.Int().NotNull()}, {Name: "v", Type: types.String()}},
		PartitionKeys: []string{"p"},
		PrimaryKeys:   []string{"p", "k"},
		Options:       map[string]string{"bucket": "1"},
	})
	sc := types.SchemaToArrow(tbl.Schema.Fields)
	rec := tabletest.Batch(t, sc, []any{"x/y", int32(3), "c"}, []any{"x/y", int32(1), "a"}, []any{"x/y", int32(2), "b"})
	defer rec.Release()
	msgs := tabletest.Prepare(t, tbl, "u", rec)
	if len(msgs) != 1 || len(msgs[0].Data.NewFiles) != 1 {
		t.Fatalf("prepared %+v", msgs)
	}
	orig := msgs[0].Data.NewFiles[0]
	rw, err := resequence.New(tbl.FileIO, tbl.Schema)
	if err != nil {
		t.Fatal(err)
	}
	dir, err := rw.BucketDir(msgs[0].Partition, msgs[0].Bucket)
	if err != nil || dir != "p=x%2Fy/bucket-0" {
		t.Fatalf("BucketDir = %q, %v", dir, err)
	}
	copies, err := rw.Shift(ctx, dir, orig, 40)
	if err != nil {
		t.Fatal(err)
	}
	if len(copies) != 1 {
		t.Fatalf("%d copies", len(copies))
	}
	c := copies[0]
	if c.FileName == orig.FileName || !strings.HasPrefix(c.FileName, "data-") || !strings.HasSuffix(c.FileName, ".parquet") {
		t.Errorf("copy named %s (original %s)", c.FileName, orig.FileName)
	}
	if c.MinSequenceNumber != orig.MinSequenceNumber+40 || c.MaxSequenceNumber != orig.MaxSequenceNumber+40 ||
		c.MinSequenceNumber != 40 || c.MaxSequenceNumber != 42 {
		t.Errorf("copy sequence numbers %d..%d, original %d..%d", c.MinSequenceNumber, c.MaxSequenceNumber, orig.MinSequenceNumber, orig.MaxSequenceNumber)
	}
	if c.RowCount != 3 || c.Level != 0 || !slices.Equal(c.MinKey, orig.MinKey) || !slices.Equal(c.MaxKey, orig.MaxKey) ||
		*c.DeleteRowCount != 0 || c.SchemaID != orig.SchemaID || *c.FileSource != manifest.SourceAppend ||
		!slices.Equal(c.ValueStats.MinValues, orig.ValueStats.MinValues) || !slices.Equal(c.KeyStats.MaxValues, orig.KeyStats.MaxValues) {
		t.Errorf("copy metadata %+v\noriginal %+v", c, orig)
	}
	if size, err := tbl.FileIO.Size(ctx, dir+"/"+c.FileName); err != nil || size != c.FileSize {
		t.Errorf("copy size %d, %v; metadata says %d", size, err, c.FileSize)
	}
	keys, seqs, vals := readSeqs(t, tbl, dir+"/"+c.FileName)
	ok, oseq, ov := readSeqs(t, tbl, dir+"/"+orig.FileName)
	if !slices.Equal(keys, []int32{1, 2, 3}) || !slices.Equal(keys, ok) || !slices.Equal(vals, ov) || !slices.Equal(vals, []string{"a", "b", "c"}) {
		t.Errorf("copy rows %v %v, original %v %v", keys, vals, ok, ov)
	}
	for i := range seqs {
		if seqs[i] != oseq[i]+40 {
			t.Errorf("row %d: sequence number %d, original %d", i, seqs[i], oseq[i])
		}
	}
}

func TestShiftErrors(t *testing.T) {
	ctx := context.Background()
	tbl := tabletest.NewTable(t, "", catalog.Schema{
		Fields:      []types.DataField{{Name: "k", Type: types.Int().NotNull()}},
		PrimaryKeys: []string{"k"},
		Options:     map[string]string{"bucket": "1"},
	})
	rw, err := resequence.New(tbl.FileIO, tbl.Schema)
	if err != nil {
		t.Fatal(err)
	}
	f := manifest.DataFileMeta{FileName: "data-missing-0.parquet", RowCount: 1, SchemaID: 0}
	if _, err := rw.Shift(ctx, "bucket-0", f, 0); err == nil || !strings.Contains(err.Error(), "bucket-0/data-missing-0.parquet") {
		t.Errorf("shift 0: %v", err)
	}
	if _, err := rw.Shift(ctx, "bucket-0", f, 1); !errors.Is(err, fileio.ErrNotExist) || !strings.Contains(err.Error(), "bucket-0/data-missing-0.parquet") {
		t.Errorf("missing file: %v", err)
	}
	// A file index is copied anew; other extra files are refused.
	f.ExtraFiles = []string{"data-missing-0.parquet.index"}
	if _, err := rw.Shift(ctx, "bucket-0", f, 1); !errors.Is(err, fileio.ErrNotExist) {
		t.Errorf("index file: %v, want the missing data file", err)
	}
	f.ExtraFiles = []string{"data-missing-0.parquet.blob"}
	if _, err := rw.Shift(ctx, "bucket-0", f, 1); !errors.Is(err, resequence.ErrUnsupported) {
		t.Errorf("extra files: %v", err)
	}
	// A file at an external path is read there.
	ext := "file://" + t.TempDir() + "/bucket-0/data-missing-0.parquet"
	f.ExtraFiles, f.ExternalPath = nil, &ext
	if _, err := rw.Shift(ctx, "bucket-0", f, 1); !errors.Is(err, fileio.ErrNotExist) || !strings.Contains(err.Error(), ext) {
		t.Errorf("external path: %v, want the missing %s", err, ext)
	}
	plain := tabletest.NewTable(t, "", catalog.Schema{Fields: []types.DataField{{Name: "k", Type: types.Int()}}})
	if _, err := resequence.New(plain.FileIO, plain.Schema); !errors.Is(err, resequence.ErrUnsupported) {
		t.Errorf("append table: %v", err)
	}
}
