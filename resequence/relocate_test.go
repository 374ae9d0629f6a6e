package resequence_test

import (
	"context"
	"errors"
	"fmt"
	"io"
	"slices"
	"testing"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"

	"github.com/paimon-go/paimon/catalog"
	"github.com/paimon-go/paimon/datafile"
	"github.com/paimon-go/paimon/format"
	"github.com/paimon-go/paimon/format/parquet"
	"github.com/paimon-go/paimon/internal/tabletest"
	"github.com/paimon-go/paimon/resequence"
	"github.com/paimon-go/paimon/types"
)

// readRelocated returns the rows of a key-value file of a table (p INT, k
// INT, v STRING) as "k/seq/kind/p/v", in file order.
func readRelocated(t *testing.T, tbl *catalog.Table, path string) []string {
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
	var out []string
	for {
		b, err := rd.Next(ctx)
		if errors.Is(err, io.EOF) {
			return out
		}
		if err != nil {
			t.Fatal(err)
		}
		c := b.Record.Columns()
		for i := range int(b.Record.NumRows()) {
			out = append(out, fmt.Sprintf("%d/%d/%d/%d/%s", c[0].(*array.Int32).Value(i), c[1].(*array.Int64).Value(i),
				c[2].(*array.Int8).Value(i), c[3].(*array.Int32).Value(i), c[5].(*array.String).Value(i)))
		}
		b.Record.Release()
	}
}

// TestRelocate: rows of a file move to a partition-bucket of another
// partition (its partition value, sequence numbers shifted), are dropped,
// or stay (unchanged); a file whose rows all stay is not copied.
func TestRelocate(t *testing.T) {
	ctx := context.Background()
	tbl := tabletest.NewTable(t, "", catalog.Schema{
		Fields:        []types.DataField{{Name: "p", Type: types.Int()}, {Name: "k", Type: types.Int().NotNull()}, {Name: "v", Type: types.String()}},
		PartitionKeys: []string{"p"},
		PrimaryKeys:   []string{"k"},
		Options:       map[string]string{"bucket": "-1"},
	})
	sc := types.SchemaToArrow(tbl.Schema.Fields)
	rec := tabletest.Batch(t, sc, []any{int32(1), int32(1), "a"}, []any{int32(1), int32(2), "b"}, []any{int32(1), int32(3), "c"}, []any{int32(1), int32(4), "d"})
	defer rec.Release()
	other := tabletest.Batch(t, sc, []any{int32(2), int32(9), "z"})
	defer other.Release()
	msgs := tabletest.Prepare(t, tbl, "u", rec, other)
	if len(msgs) != 2 {
		t.Fatalf("%d messages", len(msgs))
	}
	src, dst := msgs[0], msgs[1]
	if dst.Data.NewFiles[0].RowCount != 1 {
		src, dst = dst, src
	}
	f := src.Data.NewFiles[0]
	rw, err := resequence.New(tbl.FileIO, tbl.Schema)
	if err != nil {
		t.Fatal(err)
	}
	vals, err := rw.PartitionValues(ctx, dst.Partition, dst.Bucket, dst.Data.NewFiles[0])
	if err != nil || len(vals) != 1 || vals[0].(*array.Int32).Value(0) != 2 {
		t.Fatalf("PartitionValues = %v, %v", vals, err)
	}
	defer vals[0].Release()
	home := resequence.Place{Partition: string(src.Partition), Bucket: src.Bucket}
	there := resequence.Place{Partition: string(dst.Partition), Bucket: 3}
	place := func(keys []arrow.Array, i int) (resequence.Place, error) {
		switch keys[0].(*array.Int32).Value(i) {
		case 1, 4:
			return there, nil
		case 2:
			return resequence.Place{Drop: true}, nil
		}
		return home, nil
	}
	values := func(part string) ([]arrow.Array, error) {
		if part != there.Partition {
			t.Errorf("values of partition %x", part)
		}
		return vals, nil
	}
	shift := func(d resequence.Place) int64 {
		if d != there {
			t.Errorf("shift to %+v", d)
		}
		return 100
	}
	out, err := rw.Relocate(ctx, src.Partition, src.Bucket, f, place, values, shift)
	if err != nil {
		t.Fatal(err)
	}
	if len(out) != 2 || len(out[home]) != 1 || len(out[there]) != 1 {
		t.Fatalf("copies %v", out)
	}
	homeDir, _ := rw.BucketDir(src.Partition, src.Bucket)
	thereDir, _ := rw.BucketDir(dst.Partition, 3)
	if thereDir != "p=2/bucket-3" {
		t.Errorf("destination directory %s", thereDir)
	}
	orig := readRelocated(t, tbl, homeDir+"/"+f.FileName)
	if want := []string{"1/0/0/1/a", "2/1/0/1/b", "3/2/0/1/c", "4/3/0/1/d"}; !slices.Equal(orig, want) {
		t.Fatalf("original rows %v, want %v", orig, want)
	}
	if got, want := readRelocated(t, tbl, homeDir+"/"+out[home][0].FileName), []string{"3/2/0/1/c"}; !slices.Equal(got, want) {
		t.Errorf("staying rows %v, want %v", got, want)
	}
	if got, want := readRelocated(t, tbl, thereDir+"/"+out[there][0].FileName), []string{"1/100/0/2/a", "4/103/0/2/d"}; !slices.Equal(got, want) {
		t.Errorf("moved rows %v, want %v", got, want)
	}
	if m := out[there][0]; m.MinSequenceNumber != 100 || m.MaxSequenceNumber != 103 || m.RowCount != 2 || m.Level != 0 {
		t.Errorf("moved file metadata %+v", m)
	}
	stay := func(keys []arrow.Array, i int) (resequence.Place, error) { return home, nil }
	if out, err := rw.Relocate(ctx, src.Partition, src.Bucket, f, stay, values, shift); out != nil || err != nil {
		t.Errorf("all rows staying: %v, %v", out, err)
	}
}
