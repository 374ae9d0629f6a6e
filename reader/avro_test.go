package reader_test

import (
	"bytes"
	"context"
	"errors"
	"strconv"
	"strings"
	"testing"

	"github.com/apache/arrow-go/v18/arrow/array"
	"github.com/apache/arrow-go/v18/arrow/memory"

	"github.com/paimon-go/paimon/fileio"
	"github.com/paimon-go/paimon/format"
	"github.com/paimon-go/paimon/format/avro"
	"github.com/paimon-go/paimon/reader"
	"github.com/paimon-go/paimon/schema"
	"github.com/paimon-go/paimon/types"
)

// TestReadDataFileAvro: ReadDataFile reads an Avro data file by its
// extension (schema evolution by field id: a renamed column keeps its
// values, an added one is null), and a truncated Avro data file is a
// format.ErrCorrupt naming the file.
func TestReadDataFileAvro(t *testing.T) {
	ctx := context.Background()
	fio, err := fileio.Open(ctx, "mem://")
	if err != nil {
		t.Fatal(err)
	}
	defer fio.Close()
	f := types.Field
	old := []types.DataField{f(0, "k", types.Int().NotNull()), f(1, "v", types.String())}
	ts, err := schema.New(old, false, nil, nil, nil, "", 0)
	if err != nil {
		t.Fatal(err)
	}
	b := array.NewRecordBuilder(memory.DefaultAllocator, types.SchemaToArrow(old))
	b.Field(0).(*array.Int32Builder).AppendValues([]int32{1, 2}, nil)
	b.Field(1).(*array.StringBuilder).AppendValues([]string{"a", ""}, []bool{true, false})
	rec := b.NewRecordBatch()
	b.Release()
	defer rec.Release()
	var buf bytes.Buffer
	w, err := avro.NewWriter(ctx, &buf, "x", old, format.WriteOptions{})
	if err != nil {
		t.Fatal(err)
	}
	if err := w.Write(ctx, rec); err != nil {
		t.Fatal(err)
	}
	if _, err := w.Close(ctx); err != nil {
		t.Fatal(err)
	}
	put := func(p string, data []byte) {
		out, err := fio.Create(ctx, p)
		if err != nil {
			t.Fatal(err)
		}
		if _, err := out.Write(data); err != nil {
			t.Fatal(err)
		}
		if err := out.Close(); err != nil {
			t.Fatal(err)
		}
	}
	put("bucket-0/data-0.avro", buf.Bytes())
	put("bucket-0/data-1.avro", buf.Bytes()[:buf.Len()-20])
	target := []types.DataField{f(0, "key", types.BigInt().NotNull()), f(1, "v", types.String()), f(2, "n", types.Int())}
	var got []string
	for r, err := range reader.ReadDataFile(ctx, fio, "bucket-0/data-0.avro", ts, target, reader.FileReadOptions{}) {
		if err != nil {
			t.Fatal(err)
		}
		j, _ := r.MarshalJSON()
		got = append(got, string(j))
		r.Release()
	}
	if want := `[{"key":1,"n":null,"v":"a"}` + "\n," + `{"key":2,"n":null,"v":null}` + "\n]"; strings.Join(got, "") != want {
		t.Fatalf("rows %q, want %q", got, want)
	}
	// A file that decodes to fewer rows than its data file meta holds (an
	// Avro file cut at a block boundary is a valid, shorter file) is damaged.
	for _, n := range []int64{2, 3, 1} {
		var rows int64
		var rerr error
		for r, err := range reader.ReadDataFile(ctx, fio, "bucket-0/data-0.avro", ts, target, reader.FileReadOptions{RowCount: n}) {
			if err != nil {
				rerr = err
				break
			}
			rows += r.NumRows()
			r.Release()
		}
		if n == 2 && (rerr != nil || rows != 2) {
			t.Fatalf("RowCount 2: %d rows, err %v", rows, rerr)
		}
		if n != 2 && (!errors.Is(rerr, format.ErrCorrupt) || !strings.Contains(rerr.Error(), "bucket-0/data-0.avro: format: corrupt data file: 2 rows, its data file meta says "+strconv.FormatInt(n, 10))) {
			t.Fatalf("RowCount %d: err %v, want ErrCorrupt naming the file and both counts", n, rerr)
		}
	}
	for _, err := range reader.ReadDataFile(ctx, fio, "bucket-0/data-1.avro", ts, target, reader.FileReadOptions{}) {
		if !errors.Is(err, format.ErrCorrupt) || !strings.Contains(err.Error(), "bucket-0/data-1.avro") {
			t.Fatalf("truncated: err %v, want ErrCorrupt naming the file", err)
		}
		return
	}
	t.Fatal("truncated file read without error")
}
