package manifest

import (
	"bytes"
	"errors"
	"reflect"
	"testing"
)

// TestParquetManifestRoundTrip: with WriteOptions.Format = parquet the
// manifest, manifest-list and index-manifest encoders write Parquet files
// (PAR1 magic) that decode to exactly the rows written, as their Avro
// forms do. Old code had no Parquet encoding.
func TestParquetManifestRoundTrip(t *testing.T) { testManifestRoundTrip(t, FormatParquet, "PAR1") }

// TestORCManifestRoundTrip: the same with WriteOptions.Format = orc (ORC
// magic). Old code refused it with ErrUnsupportedFormat.
func TestORCManifestRoundTrip(t *testing.T) { testManifestRoundTrip(t, FormatORC, "ORC") }

func testManifestRoundTrip(t *testing.T, format, magic string) {
	opts := WriteOptions{Format: format}
	e := sampleEntry()
	d := e
	d.Kind, d.File.FileName, d.File.ExternalPath, d.File.ExtraFiles = Delete, "data-2.parquet", nil, []string{}
	data, err := EncodeManifest([]Entry{e, d}, opts)
	if err != nil {
		t.Fatal(err)
	}
	if !bytes.HasPrefix(data, []byte(magic)) {
		t.Fatalf("not %s: % x", format, data[:8])
	}
	avroData, err := EncodeManifest([]Entry{e, d}, WriteOptions{})
	if err != nil {
		t.Fatal(err)
	}
	want, err := DecodeManifest(avroData, "avro")
	if err != nil {
		t.Fatal(err)
	}
	got, err := DecodeManifest(data, "parquet")
	if err != nil {
		t.Fatal(err)
	}
	if !reflect.DeepEqual(got, want) {
		t.Fatalf("manifest\n%+v\nwant\n%+v", got, want)
	}

	five := int32(5)
	meta := FileMeta{FileName: "manifest-x-0", FileSize: 999, NumAddedFiles: 1, NumDeletedFiles: 1,
		PartitionStats: SimpleStats{MinValues: []byte{1}, MaxValues: []byte{2}, NullCounts: []int64{0}},
		SchemaID:       2, MinBucket: &five, MaxBucket: &five}
	data, err = EncodeManifestList([]FileMeta{meta}, opts)
	if err != nil {
		t.Fatal(err)
	}
	gotList, err := DecodeManifestList(data, "list")
	if err != nil || !reflect.DeepEqual(gotList, []FileMeta{meta}) {
		t.Fatalf("manifest list %+v, %v\nwant %+v", gotList, err, meta)
	}

	ix := []IndexManifestEntry{{Kind: Add, Partition: EmptyRow(), Bucket: 1, IndexFile: IndexFileMeta{
		IndexType: "DELETION_VECTORS", FileName: "index-1", FileSize: 61, RowCount: 2,
		DVRanges: []DeletionVectorMeta{{DataFileName: "data-1.parquet", Offset: 1, Length: 22}}}}}
	data, err = EncodeIndexManifest(ix, opts)
	if err != nil {
		t.Fatal(err)
	}
	avroData, err = EncodeIndexManifest(ix, WriteOptions{})
	if err != nil {
		t.Fatal(err)
	}
	wantIx, _ := DecodeIndexManifest(avroData, "avro")
	gotIx, err := DecodeIndexManifest(data, "index")
	if err != nil || !reflect.DeepEqual(gotIx, wantIx) {
		t.Fatalf("index manifest %+v, %v\nwant %+v", gotIx, err, wantIx)
	}
	if _, err := EncodeManifestList([]FileMeta{meta}, WriteOptions{Format: "json"}); !errors.Is(err, ErrUnsupportedFormat) {
		t.Fatalf("json: %v", err)
	}
}
