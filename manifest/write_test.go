package manifest

import (
	"bytes"
	"context"
	"errors"
	"os"
	"path/filepath"
	"reflect"
	"testing"

	hocf "github.com/hamba/avro/v2/ocf"

	"github.com/paimon-go/paimon/fileio"
)

func sampleEntry() Entry {
	src := SourceCompact
	ext := "s3://b/x/data-1.parquet"
	return Entry{
		Kind:         Add,
		Partition:    mustHex("00000001 0000000000000000 0a00000000000000"),
		Bucket:       3,
		TotalBuckets: 4,
		File: DataFileMeta{
			FileName: "data-1.parquet", FileSize: 1234, RowCount: 10,
			MinKey: EmptyRow(), MaxKey: EmptyRow(),
			KeyStats:          EmptyStats(),
			ValueStats:        SimpleStats{MinValues: []byte{1}, MaxValues: []byte{2}, NullCounts: []int64{0, -1, 5}},
			MinSequenceNumber: -1, MaxSequenceNumber: 1 << 40, SchemaID: 2, Level: 5,
			ExtraFiles:     []string{"data-1.parquet.index"},
			CreationTime:   ptr[int64](1756266273434),
			DeleteRowCount: ptr[int64](0),
			EmbeddedIndex:  []byte{},
			FileSource:     &src,
			ValueStatsCols: []string{},
			ExternalPath:   &ext,
			FirstRowID:     ptr[int64](100),
			WriteCols:      []string{"a", "b"},
		},
	}
}

// TestHambaReadsOurFiles decodes our output with hamba/avro's independent OCF reader, for every
// codec, and checks the values field by field.
func TestHambaReadsOurFiles(t *testing.T) {
	e := sampleEntry()
	for _, codec := range []string{"zstd", "null", "deflate", "snappy"} {
		data, err := EncodeManifest([]Entry{e, e}, WriteOptions{Compression: codec})
		if err != nil {
			t.Fatal(err)
		}
		dec, err := hocf.NewDecoder(bytes.NewReader(data))
		if err != nil {
			t.Fatalf("%s: %v", codec, err)
		}
		n := 0
		for dec.HasNext() {
			var m map[string]any
			if err := dec.Decode(&m); err != nil {
				t.Fatalf("%s: %v", codec, err)
			}
			n++
			f := m["_FILE"].(map[string]any)
			for k, v := range f {
				f[k] = unwrapUnion(v)
			}
			vs := f["_VALUE_STATS"].(map[string]any)
			nc := unwrapUnion(vs["_NULL_COUNTS"]).([]any)
			for i := range nc {
				nc[i] = unwrapUnion(nc[i])
			}
			if m["_VERSION"] != 2 || m["_KIND"] != 0 || m["_BUCKET"] != 3 || m["_TOTAL_BUCKETS"] != 4 ||
				!bytes.Equal(m["_PARTITION"].([]byte), e.Partition) ||
				f["_FILE_NAME"] != "data-1.parquet" || f["_FILE_SIZE"] != int64(1234) || f["_LEVEL"] != 5 ||
				f["_MAX_SEQUENCE_NUMBER"] != int64(1<<40) || f["_MIN_SEQUENCE_NUMBER"] != int64(-1) ||
				len(nc) != 3 || nc[0] != int64(0) || nc[1] != nil || nc[2] != int64(5) ||
				f["_FILE_SOURCE"] != 1 || f["_FIRST_ROW_ID"] != int64(100) ||
				f["_EXTERNAL_PATH"] != "s3://b/x/data-1.parquet" || len(f["_WRITE_COLS"].([]any)) != 2 ||
				len(f["_VALUE_STATS_COLS"].([]any)) != 0 {
				t.Errorf("%s: hamba decoded %v", codec, m)
			}
		}
		if err := dec.Error(); err != nil || n != 2 {
			t.Errorf("%s: %d records, err %v", codec, n, err)
		}
		if got := string(dec.Metadata()["avro.codec"]); got != map[string]string{"zstd": "zstandard"}[codec] && got != codec {
			t.Errorf("codec header %q for %s", got, codec)
		}
	}
}

// unwrapUnion turns hamba's generic union value {"type": v} into v.
func unwrapUnion(v any) any {
	if m, ok := v.(map[string]any); ok && len(m) == 1 {
		for k, x := range m {
			if k == "array" || k == "long" || k == "int" || k == "string" || k == "bytes" || k == "long.timestamp-millis" {
				return x
			}
		}
	}
	return v
}

// TestHambaWrittenFileDecodes reads a file written by hamba/avro (another Avro implementation,
// with its own block layout and a different top-level record name, as pypaimon writes).
func TestHambaWrittenFileDecodes(t *testing.T) {
	schema := `{"type":"record","name":"ManifestFileMeta","fields":[
		{"name":"_VERSION","type":"int"},
		{"name":"_FILE_NAME","type":"string"},
		{"name":"_FILE_SIZE","type":"long"},
		{"name":"_NUM_ADDED_FILES","type":"long"},
		{"name":"_NUM_DELETED_FILES","type":"long"},
		{"name":"_PARTITION_STATS","type":{"type":"record","name":"SimpleStats","fields":[
			{"name":"_MIN_VALUES","type":"bytes"},{"name":"_MAX_VALUES","type":"bytes"},
			{"name":"_NULL_COUNTS","type":["null",{"type":"array","items":["null","long"]}]}]}},
		{"name":"_SCHEMA_ID","type":"long"},
		{"name":"_UNKNOWN_FUTURE","type":{"type":"map","values":["null",{"type":"array","items":"double"}]}}]}`
	for _, codec := range []hocf.CodecName{hocf.Null, hocf.Deflate, hocf.Snappy, hocf.ZStandard} {
		var buf bytes.Buffer
		enc, err := hocf.NewEncoder(schema, &buf, hocf.WithCodec(codec), hocf.WithBlockLength(2))
		if err != nil {
			t.Fatal(err)
		}
		for i := int64(0); i < 5; i++ {
			rec := map[string]any{
				"_VERSION": 2, "_FILE_NAME": "m-" + string(rune('a'+i)), "_FILE_SIZE": 100 + i,
				"_NUM_ADDED_FILES": i, "_NUM_DELETED_FILES": int64(0),
				"_PARTITION_STATS": map[string]any{"_MIN_VALUES": []byte{1}, "_MAX_VALUES": []byte{2},
					"_NULL_COUNTS": []any{int64(3), nil}},
				"_SCHEMA_ID":      int64(7),
				"_UNKNOWN_FUTURE": map[string]any{"k": []float64{1.5, 2}},
			}
			if err := enc.Encode(rec); err != nil {
				t.Fatal(err)
			}
		}
		if err := enc.Close(); err != nil {
			t.Fatal(err)
		}
		got, err := DecodeManifestList(buf.Bytes(), "hamba")
		if err != nil {
			t.Fatalf("%s: %v", codec, err)
		}
		if len(got) != 5 {
			t.Fatalf("%s: %d rows", codec, len(got))
		}
		for i, m := range got {
			want := FileMeta{FileName: "m-" + string(rune('a'+i)), FileSize: 100 + int64(i), NumAddedFiles: int64(i),
				PartitionStats: SimpleStats{MinValues: []byte{1}, MaxValues: []byte{2}, NullCounts: []int64{3, -1}}, SchemaID: 7}
			if !reflect.DeepEqual(m, want) {
				t.Errorf("%s row %d: %+v, want %+v", codec, i, m, want)
			}
		}
	}
}

func TestWriteAndReadThroughFileIO(t *testing.T) {
	ctx := context.Background()
	dir := t.TempDir()
	fs, err := fileio.Open(ctx, dir)
	if err != nil {
		t.Fatal(err)
	}
	defer fs.Close()
	e1 := sampleEntry()
	e2 := sampleEntry()
	e2.Kind = Delete
	e2.Bucket = 1
	e2.File.Level = 0
	e2.File.FirstRowID = ptr[int64](5)
	e2.File.SchemaID = 9
	stats := SimpleStats{MinValues: []byte{9}, MaxValues: []byte{9}, NullCounts: []int64{0}}
	var seen [][]byte
	meta, err := WriteManifest(ctx, fs, "manifest-x-0", []Entry{e1, e2}, WriteOptions{
		PartitionStats: func(p [][]byte) (SimpleStats, error) { seen = p; return stats, nil },
	})
	if err != nil {
		t.Fatal(err)
	}
	st, err := os.Stat(filepath.Join(dir, "manifest", "manifest-x-0"))
	if err != nil {
		t.Fatal(err)
	}
	want := FileMeta{
		FileName: "manifest-x-0", FileSize: st.Size(), NumAddedFiles: 1, NumDeletedFiles: 1, PartitionStats: stats,
		SchemaID: 9, MinBucket: ptr[int32](1), MaxBucket: ptr[int32](3), MinLevel: ptr[int32](0), MaxLevel: ptr[int32](5),
		MinRowID: ptr[int64](5), MaxRowID: ptr[int64](109),
	}
	if !reflect.DeepEqual(meta, want) {
		t.Errorf("meta %+v\nwant %+v", meta, want)
	}
	if len(seen) != 2 || !bytes.Equal(seen[0], e1.Partition) {
		t.Errorf("partition stats saw %x", seen)
	}
	got, err := ReadManifest(ctx, fs, "manifest-x-0")
	if err != nil {
		t.Fatal(err)
	}
	if !reflect.DeepEqual(got, []Entry{e1, e2}) {
		t.Errorf("read back %+v", got)
	}

	size, err := WriteManifestList(ctx, fs, "manifest-list-x-0", []FileMeta{meta}, WriteOptions{})
	if err != nil {
		t.Fatal(err)
	}
	if st, _ := os.Stat(filepath.Join(dir, "manifest", "manifest-list-x-0")); st.Size() != size {
		t.Errorf("list size %d, file %d", size, st.Size())
	}
	metas, err := ReadManifestList(ctx, fs, "manifest-list-x-0")
	if err != nil || !reflect.DeepEqual(metas, []FileMeta{meta}) {
		t.Errorf("list read back %+v %v", metas, err)
	}

	ix := []IndexManifestEntry{{Kind: Add, Partition: EmptyRow(), Bucket: 0, IndexFile: IndexFileMeta{
		IndexType: IndexTypeDeletionVectors, FileName: "index-1", FileSize: 31, RowCount: 1,
		DVRanges: []DeletionVectorMeta{{DataFileName: "data-1.parquet", Offset: 1, Length: 22, Cardinality: ptr[int64](1)}},
	}}, {Kind: Add, Partition: EmptyRow(), Bucket: 0, IndexFile: IndexFileMeta{
		IndexType: "btree", FileName: "index-2", FileSize: 1, RowCount: 0,
		GlobalIndex: &GlobalIndexMeta{RowRangeStart: 0, RowRangeEnd: 99, IndexFieldID: 3, ExtraFieldIDs: []int32{4, 5}, IndexMeta: []byte{1}},
	}}}
	if _, err := WriteIndexManifest(ctx, fs, "index-manifest-x-0", ix, WriteOptions{Compression: "snappy"}); err != nil {
		t.Fatal(err)
	}
	gotIx, err := ReadIndexManifest(ctx, fs, "index-manifest-x-0")
	if err != nil || !reflect.DeepEqual(gotIx, ix) {
		t.Errorf("index read back %+v %v", gotIx, err)
	}
	if m := gotIx[0].IndexFile.DVRangeMap(); m["data-1.parquet"].Offset != 1 || len(m) != 1 {
		t.Errorf("DVRangeMap %v", m)
	}

	if _, err := ReadManifest(ctx, fs, "missing"); !errors.Is(err, fileio.ErrNotExist) {
		t.Errorf("missing manifest: %v", err)
	}
}

func TestSummarizeEdgeCases(t *testing.T) {
	// Empty manifest: Java records the latest schema id and sentinel ranges.
	m, err := SummarizeManifest(nil, WriteOptions{LatestSchemaID: 4})
	if err != nil {
		t.Fatal(err)
	}
	if m.SchemaID != 4 || *m.MinBucket != 2147483647 || *m.MaxBucket != -2147483648 || m.MinRowID == nil ||
		*m.MinRowID != 9223372036854775807 || !reflect.DeepEqual(m.PartitionStats, EmptyStats()) {
		t.Errorf("empty summary %+v", m)
	}
	// A partitioned entry needs the partition stats callback.
	e := sampleEntry()
	if _, err := SummarizeManifest([]Entry{e}, WriteOptions{}); !errors.Is(err, ErrInvalidArgument) {
		t.Errorf("missing PartitionStats: %v", err)
	}
	// Row-id range is null unless every entry has a first row id.
	e.Partition = EmptyRow()
	e2 := e
	e2.File.FirstRowID = nil
	m, err = SummarizeManifest([]Entry{e, e2}, WriteOptions{})
	if err != nil || m.MinRowID != nil || m.MaxRowID != nil {
		t.Errorf("row ids %+v %v", m, err)
	}
	if _, err := EncodeManifest(nil, WriteOptions{Compression: "bzip2"}); !errors.Is(err, ErrUnsupportedFormat) || !errors.Is(err, ErrInvalidArgument) {
		t.Errorf("bzip2: %v", err)
	}
}

func TestNet(t *testing.T) {
	mk := func(kind FileKind, name string, level int32) Entry {
		e := sampleEntry()
		e.Kind, e.File.FileName, e.File.Level = kind, name, level
		return e
	}
	a, b, c := mk(Add, "a", 0), mk(Add, "b", 0), mk(Add, "c", 0)
	live, err := Net([]Entry{a, b, mk(Delete, "a", 0), c})
	if err != nil {
		t.Fatal(err)
	}
	if len(live) != 2 || live[0].File.FileName != "b" || live[1].File.FileName != "c" {
		t.Errorf("live %v", live)
	}
	// Upgrade: DELETE at level 0 + ADD at level 4 of the same file.
	live, err = Net([]Entry{a, mk(Delete, "a", 0), mk(Add, "a", 4)})
	if err != nil || len(live) != 1 || live[0].File.Level != 4 {
		t.Errorf("upgrade %v %v", live, err)
	}
	// Deleting at the wrong level does not cancel the ADD.
	if _, err := Net([]Entry{a, mk(Delete, "a", 1)}); !errors.Is(err, ErrMerge) {
		t.Errorf("delete of unknown identity: %v", err)
	}
	// Merge keeps the pending DELETE (its ADD lives in earlier manifests).
	merged, err := Merge([]Entry{mk(Delete, "z", 0), b})
	if err != nil || len(merged) != 2 || merged[0].Kind != Delete || merged[1].File.FileName != "b" {
		t.Errorf("merge %v %v", merged, err)
	}
	// Adding the same file twice fails as in Java.
	if _, err := Merge([]Entry{a, a}); !errors.Is(err, ErrMerge) {
		t.Errorf("double add: %v", err)
	}
	// Re-adding after a delete is allowed.
	if live, err := Net([]Entry{a, mk(Delete, "a", 0), a}); err != nil || len(live) != 1 {
		t.Errorf("re-add %v %v", live, err)
	}
	// Identity includes extra files, embedded index (null differs from empty) and external path.
	x := a
	x.File.EmbeddedIndex = nil
	y := a
	y.File.ExternalPath = nil
	z := a
	z.File.ExtraFiles = []string{"data-1.parquet", "index"}
	w := a
	w.Partition = EmptyRow()
	ids := map[string]bool{}
	for _, e := range []Entry{a, x, y, z, w} {
		ids[e.Identifier()] = true
	}
	if len(ids) != 5 {
		t.Errorf("identifiers collide: %d distinct", len(ids))
	}
	// Stats, sizes, sequence numbers are not part of the identity.
	v := a
	v.File.FileSize, v.File.RowCount, v.File.ValueStats = 1, 2, SimpleStats{}
	if v.Identifier() != a.Identifier() {
		t.Error("identifier depends on non-identity fields")
	}
}

// *fileio.FileIO is the file system the package is used with.
var (
	_ FileReader = (*fileio.FileIO)(nil)
	_ FileWriter = (*fileio.FileIO)(nil)
)
