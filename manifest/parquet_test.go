package manifest_test

import (
	"bytes"
	"errors"
	"reflect"
	"testing"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"
	"github.com/apache/arrow-go/v18/arrow/memory"
	"github.com/apache/arrow-go/v18/parquet/pqarrow"

	"github.com/paimon-go/paimon/manifest"
)

// TestDecodeParquetManifestList: a manifest list stored as Parquet (Java's
// manifest.format=parquet, the layout Paimon's Parquet writer gives the
// ManifestFileMeta row type) decodes to the same values as its Avro form;
// truncated Parquet bytes wrap ErrCorrupt. Old code refused every Parquet
// manifest with ErrUnsupportedFormat.
func TestDecodeParquetManifestList(t *testing.T) {
	mem := memory.NewGoAllocator()
	statsType := arrow.StructOf(
		arrow.Field{Name: "_MIN_VALUES", Type: arrow.BinaryTypes.Binary},
		arrow.Field{Name: "_MAX_VALUES", Type: arrow.BinaryTypes.Binary},
		arrow.Field{Name: "_NULL_COUNTS", Type: arrow.ListOf(arrow.PrimitiveTypes.Int64), Nullable: true},
	)
	sc := arrow.NewSchema([]arrow.Field{
		{Name: "_VERSION", Type: arrow.PrimitiveTypes.Int32},
		{Name: "_FILE_NAME", Type: arrow.BinaryTypes.String},
		{Name: "_FILE_SIZE", Type: arrow.PrimitiveTypes.Int64},
		{Name: "_NUM_ADDED_FILES", Type: arrow.PrimitiveTypes.Int64},
		{Name: "_NUM_DELETED_FILES", Type: arrow.PrimitiveTypes.Int64},
		{Name: "_PARTITION_STATS", Type: statsType},
		{Name: "_SCHEMA_ID", Type: arrow.PrimitiveTypes.Int64},
		{Name: "_MIN_BUCKET", Type: arrow.PrimitiveTypes.Int32, Nullable: true},
	}, nil)
	b := array.NewRecordBuilder(mem, sc)
	defer b.Release()
	for i := range 2 {
		b.Field(0).(*array.Int32Builder).Append(2)
		b.Field(1).(*array.StringBuilder).Append([]string{"manifest-a-0", "manifest-b-1"}[i])
		b.Field(2).(*array.Int64Builder).Append(int64(1000 + i))
		b.Field(3).(*array.Int64Builder).Append(int64(3 + i))
		b.Field(4).(*array.Int64Builder).Append(int64(i))
		st := b.Field(5).(*array.StructBuilder)
		st.Append(true)
		st.FieldBuilder(0).(*array.BinaryBuilder).Append([]byte{byte(i)})
		st.FieldBuilder(1).(*array.BinaryBuilder).Append([]byte{byte(i + 10)})
		lb := st.FieldBuilder(2).(*array.ListBuilder)
		lb.Append(true)
		lb.ValueBuilder().(*array.Int64Builder).Append(int64(i * 7))
		b.Field(6).(*array.Int64Builder).Append(int64(i))
		if i == 0 {
			b.Field(7).(*array.Int32Builder).Append(5)
		} else {
			b.Field(7).AppendNull()
		}
	}
	rec := b.NewRecordBatch()
	defer rec.Release()
	var buf bytes.Buffer
	if err := pqarrow.WriteTable(array.NewTableFromRecords(sc, []arrow.RecordBatch{rec}), &buf, 1024, nil, pqarrow.DefaultWriterProps()); err != nil {
		t.Fatal(err)
	}
	got, err := manifest.DecodeManifestList(buf.Bytes(), "manifest-list-x")
	if err != nil {
		t.Fatal(err)
	}
	five := int32(5)
	want := []manifest.FileMeta{
		{FileName: "manifest-a-0", FileSize: 1000, NumAddedFiles: 3, NumDeletedFiles: 0,
			PartitionStats: manifest.SimpleStats{MinValues: []byte{0}, MaxValues: []byte{10}, NullCounts: []int64{0}}, SchemaID: 0, MinBucket: &five},
		{FileName: "manifest-b-1", FileSize: 1001, NumAddedFiles: 4, NumDeletedFiles: 1,
			PartitionStats: manifest.SimpleStats{MinValues: []byte{1}, MaxValues: []byte{11}, NullCounts: []int64{7}}, SchemaID: 1},
	}
	if !reflect.DeepEqual(got, want) {
		t.Fatalf("decoded %+v\nwant %+v", got, want)
	}
	if _, err := manifest.DecodeManifestList(buf.Bytes()[:buf.Len()-20], "manifest-list-x"); !errors.Is(err, manifest.ErrCorrupt) {
		t.Fatalf("truncated: err %v, want ErrCorrupt", err)
	}
}
