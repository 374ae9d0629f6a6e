package manifest

import (
	"bytes"
	"context"
	"encoding/hex"
	"encoding/json"
	"errors"
	"io"
	"os"
	"path/filepath"
	"reflect"
	"sort"
	"strconv"
	"strings"
	"testing"

	"github.com/hamba/avro/v2"

	"github.com/paimon-go/paimon/fileio"
	"github.com/paimon-go/paimon/internal/ocf"
)

const fixtures = "../testdata/paimon-tables"

// fixtureFile is one Avro manifest-directory file of the Java-written fixtures.
type fixtureFile struct {
	path string // relative to fixtures
	name string
	kind string // "list", "manifest", "index"
	data []byte
}

func kindOf(name string) string {
	switch {
	case strings.HasPrefix(name, "manifest-list-"):
		return "list"
	case strings.HasPrefix(name, "index-manifest-"):
		return "index"
	default:
		return "manifest"
	}
}

// avroFixtures returns every Avro file under */manifest and */branch/*/manifest.
func avroFixtures(t testing.TB) []fixtureFile {
	t.Helper()
	var out []fixtureFile
	for _, pattern := range []string{"*/manifest/*", "*/branch/*/manifest/*"} {
		paths, err := filepath.Glob(filepath.Join(fixtures, pattern))
		if err != nil {
			t.Fatal(err)
		}
		for _, p := range paths {
			data, err := os.ReadFile(p)
			if err != nil {
				t.Fatal(err)
			}
			if !bytes.HasPrefix(data, []byte("Obj\x01")) {
				continue
			}
			rel, _ := filepath.Rel(fixtures, p)
			out = append(out, fixtureFile{path: rel, name: filepath.Base(p), kind: kindOf(filepath.Base(p)), data: data})
		}
	}
	if len(out) < 100 {
		t.Fatalf("found only %d Avro fixture files", len(out))
	}
	return out
}

// genOf derives the schema generation of a fixture from its embedded writer schema.
func genOf(t *testing.T, schema []byte) *gen {
	t.Helper()
	s, err := avro.ParseBytesWithCache(schema, "", &avro.SchemaCache{})
	if err != nil {
		t.Fatal(err)
	}
	g := &gen{}
	var top *avro.RecordSchema
	if u, ok := s.(*avro.UnionSchema); ok {
		g.wrapped = true
		top = u.Types()[1].(*avro.RecordSchema)
	} else {
		top = s.(*avro.RecordSchema)
	}
	record := func(s avro.Schema) *avro.RecordSchema {
		if u, ok := s.(*avro.UnionSchema); ok {
			s = u.Types()[1]
		}
		if a, ok := s.(*avro.ArraySchema); ok {
			s = a.Items()
			if u, ok := s.(*avro.UnionSchema); ok {
				s = u.Types()[1]
			}
		}
		return s.(*avro.RecordSchema)
	}
	for _, f := range top.Fields() {
		switch f.Name() {
		case "_FILE":
			g.n[rowFile] = len(record(f.Type()).Fields())
		case "_DELETIONS_VECTORS_RANGES":
			g.n[rowDV] = len(record(f.Type()).Fields())
		case "_GLOBAL_INDEX":
			g.n[rowGlobal] = len(record(f.Type()).Fields())
		}
	}
	n := len(top.Fields())
	g.n[rowEntry], g.n[rowList], g.n[rowIndex] = n, n, n
	return g
}

func tableDesc(kind string) *rowDesc {
	switch kind {
	case "list":
		return listTable.desc
	case "index":
		return indexTable.desc
	}
	return entryTable.desc
}

// TestFixtureSchemasEqualGenerated checks, for every Avro manifest, manifest list and index
// manifest written by Java, that the schema we generate for the file's generation is the
// embedded writer schema byte for byte. Together with TestWriterSchemaIsPaimon20 this proves
// the writer emits Java's schema exactly.
func TestFixtureSchemasEqualGenerated(t *testing.T) {
	gens := map[string]int{}
	for _, f := range avroFixtures(t) {
		of, err := ocf.Open(f.data)
		if err != nil {
			t.Fatalf("%s: %v", f.path, err)
		}
		g := genOf(t, of.Schema)
		got := schemaJSON(tableDesc(f.kind), g)
		if got != string(of.Schema) {
			t.Errorf("%s: generated schema differs\n got: %s\nwant: %s", f.path, got, of.Schema)
		}
		if of.Codec != "zstandard" {
			t.Errorf("%s: codec %q, want zstandard", f.path, of.Codec)
		}
		gens[f.kind+" "+genName(f.kind, g)]++
	}
	// The fixtures span three generations: 0.9 (wrapped), 1.0–1.2, and a 1.3 build with
	// _FIRST_ROW_ID only.
	want := map[string]int{
		"index 0.9-wrapped": 2, "index 1.0": 3,
		"list 0.9-wrapped": 16, "list 1.1": 62,
		"manifest 0.9-wrapped": 8, "manifest 1.0": 12, "manifest 1.3-dev": 19,
	}
	total := 0
	for _, n := range gens {
		total += n
	}
	if total != 122 || !reflect.DeepEqual(gens, want) {
		t.Errorf("generations = %v (total %d), want %v", gens, total, want)
	}
}

func genName(kind string, g *gen) string {
	if g.wrapped {
		return "0.9-wrapped"
	}
	switch kind {
	case "manifest":
		switch g.n[rowFile] {
		case 18:
			return "1.0"
		case 19:
			return "1.3-dev"
		case 20:
			return "2.0"
		}
	case "list":
		switch g.n[rowList] {
		case 11:
			return "1.1"
		case 13:
			return "1.4"
		}
	case "index":
		if g.n[rowIndex] == 9 && g.n[rowDV] == 4 {
			return "1.0"
		}
	}
	return "other"
}

// Paimon 2.0 schemas as printed by Java (format doc sections 5, 6.2 and 9.1; the manifest schema
// is the HEAD schema of section 6.2 without _WRITE_COLS_SEQUENCES).
const (
	java20Manifest = `{"type":"record","name":"record","namespace":"org.apache.paimon.avro.generated","fields":[` +
		`{"name":"_VERSION","type":"int"},{"name":"_KIND","type":"int"},{"name":"_PARTITION","type":"bytes"},` +
		`{"name":"_BUCKET","type":"int"},{"name":"_TOTAL_BUCKETS","type":"int"},` +
		`{"name":"_FILE","type":{"type":"record","name":"record__FILE","fields":[` +
		`{"name":"_FILE_NAME","type":"string"},{"name":"_FILE_SIZE","type":"long"},{"name":"_ROW_COUNT","type":"long"},` +
		`{"name":"_MIN_KEY","type":"bytes"},{"name":"_MAX_KEY","type":"bytes"},` +
		`{"name":"_KEY_STATS","type":{"type":"record","name":"record__FILE__KEY_STATS","fields":[` +
		`{"name":"_MIN_VALUES","type":"bytes"},{"name":"_MAX_VALUES","type":"bytes"},` +
		`{"name":"_NULL_COUNTS","type":["null",{"type":"array","items":["null","long"]}],"default":null}]}},` +
		`{"name":"_VALUE_STATS","type":{"type":"record","name":"record__FILE__VALUE_STATS","fields":[` +
		`{"name":"_MIN_VALUES","type":"bytes"},{"name":"_MAX_VALUES","type":"bytes"},` +
		`{"name":"_NULL_COUNTS","type":["null",{"type":"array","items":["null","long"]}],"default":null}]}},` +
		`{"name":"_MIN_SEQUENCE_NUMBER","type":"long"},{"name":"_MAX_SEQUENCE_NUMBER","type":"long"},` +
		`{"name":"_SCHEMA_ID","type":"long"},{"name":"_LEVEL","type":"int"},` +
		`{"name":"_EXTRA_FILES","type":{"type":"array","items":"string"}},` +
		`{"name":"_CREATION_TIME","type":["null",{"type":"long","logicalType":"timestamp-millis"}],"default":null},` +
		`{"name":"_DELETE_ROW_COUNT","type":["null","long"],"default":null},` +
		`{"name":"_EMBEDDED_FILE_INDEX","type":["null","bytes"],"default":null},` +
		`{"name":"_FILE_SOURCE","type":["null","int"],"default":null},` +
		`{"name":"_VALUE_STATS_COLS","type":["null",{"type":"array","items":"string"}],"default":null},` +
		`{"name":"_EXTERNAL_PATH","type":["null","string"],"default":null},` +
		`{"name":"_FIRST_ROW_ID","type":["null","long"],"default":null},` +
		`{"name":"_WRITE_COLS","type":["null",{"type":"array","items":"string"}],"default":null}]}}]}`
	java20List = `{"type":"record","name":"record","namespace":"org.apache.paimon.avro.generated","fields":[` +
		`{"name":"_VERSION","type":"int"},{"name":"_FILE_NAME","type":"string"},{"name":"_FILE_SIZE","type":"long"},` +
		`{"name":"_NUM_ADDED_FILES","type":"long"},{"name":"_NUM_DELETED_FILES","type":"long"},` +
		`{"name":"_PARTITION_STATS","type":{"type":"record","name":"record__PARTITION_STATS","fields":[` +
		`{"name":"_MIN_VALUES","type":"bytes"},{"name":"_MAX_VALUES","type":"bytes"},` +
		`{"name":"_NULL_COUNTS","type":["null",{"type":"array","items":["null","long"]}],"default":null}]}},` +
		`{"name":"_SCHEMA_ID","type":"long"},` +
		`{"name":"_MIN_BUCKET","type":["null","int"],"default":null},{"name":"_MAX_BUCKET","type":["null","int"],"default":null},` +
		`{"name":"_MIN_LEVEL","type":["null","int"],"default":null},{"name":"_MAX_LEVEL","type":["null","int"],"default":null},` +
		`{"name":"_MIN_ROW_ID","type":["null","long"],"default":null},{"name":"_MAX_ROW_ID","type":["null","long"],"default":null}]}`
	java20Index = `{"type":"record","name":"record","namespace":"org.apache.paimon.avro.generated","fields":[` +
		`{"name":"_VERSION","type":"int"},{"name":"_KIND","type":"int"},{"name":"_PARTITION","type":"bytes"},` +
		`{"name":"_BUCKET","type":"int"},{"name":"_INDEX_TYPE","type":"string"},{"name":"_FILE_NAME","type":"string"},` +
		`{"name":"_FILE_SIZE","type":"long"},{"name":"_ROW_COUNT","type":"long"},` +
		`{"name":"_DELETIONS_VECTORS_RANGES","type":["null",{"type":"array","items":["null",{"type":"record","name":"record__DELETIONS_VECTORS_RANGES","fields":[` +
		`{"name":"f0","type":"string"},{"name":"f1","type":"int"},{"name":"f2","type":"int"},` +
		`{"name":"_CARDINALITY","type":["null","long"],"default":null}]}]}],"default":null},` +
		`{"name":"_EXTERNAL_PATH","type":["null","string"],"default":null},` +
		`{"name":"_GLOBAL_INDEX","type":["null",{"type":"record","name":"record__GLOBAL_INDEX","fields":[` +
		`{"name":"_ROW_RANGE_START","type":"long"},{"name":"_ROW_RANGE_END","type":"long"},{"name":"_INDEX_FIELD_ID","type":"int"},` +
		`{"name":"_EXTRA_FIELD_IDS","type":["null",{"type":"array","items":"int"}],"default":null},` +
		`{"name":"_INDEX_META","type":["null","bytes"],"default":null},` +
		`{"name":"_SOURCE_META","type":["null","bytes"],"default":null}]}],"default":null}]}`
)

func writerSchema(t *testing.T, data []byte) string {
	t.Helper()
	f, err := ocf.Open(data)
	if err != nil {
		t.Fatal(err)
	}
	return string(f.Schema)
}

func TestWriterSchemaIsPaimon20(t *testing.T) {
	m, err := EncodeManifest([]Entry{sampleEntry()}, WriteOptions{})
	if err != nil {
		t.Fatal(err)
	}
	if got := writerSchema(t, m); got != java20Manifest {
		t.Errorf("manifest schema\n got: %s\nwant: %s", got, java20Manifest)
	}
	l, err := EncodeManifestList(nil, WriteOptions{})
	if err != nil {
		t.Fatal(err)
	}
	if got := writerSchema(t, l); got != java20List {
		t.Errorf("manifest list schema\n got: %s\nwant: %s", got, java20List)
	}
	ix, err := EncodeIndexManifest(nil, WriteOptions{})
	if err != nil {
		t.Fatal(err)
	}
	if got := writerSchema(t, ix); got != java20Index {
		t.Errorf("index manifest schema\n got: %s\nwant: %s", got, java20Index)
	}
	// HEAD adds _WRITE_COLS_SEQUENCES only when a file carries it.
	e := sampleEntry()
	e.File.WriteColsSequences = []int64{7}
	h, err := EncodeManifest([]Entry{e}, WriteOptions{})
	if err != nil {
		t.Fatal(err)
	}
	wantHead := strings.TrimSuffix(java20Manifest, `]}}]}`) +
		`,{"name":"_WRITE_COLS_SEQUENCES","type":["null",{"type":"array","items":"long"}],"default":null}]}}]}`
	if got := writerSchema(t, h); got != wantHead {
		t.Errorf("HEAD manifest schema\n got: %s\nwant: %s", got, wantHead)
	}
	// Each generated schema is valid Avro and compares equal in parsed canonical form.
	for _, s := range []string{java20Manifest, java20List, java20Index, wantHead} {
		a, err := avro.ParseWithCache(s, "", &avro.SchemaCache{})
		if err != nil {
			t.Fatalf("generated schema does not parse: %v", err)
		}
		if a.String() == "" {
			t.Fatal("empty canonical form")
		}
	}
}

// encodeRows encodes decoded rows with generation g, without container (datum bytes only).
func encodeRows(kind string, rows any, g *gen) []byte {
	var e ocf.Encoder
	each := func(enc func(i int)) {
		n := reflect.ValueOf(rows).Len()
		for i := 0; i < n; i++ {
			if g.wrapped {
				e.NonNull()
			}
			enc(i)
		}
	}
	switch kind {
	case "list":
		r := rows.([]FileMeta)
		each(func(i int) { listTable.encode(&e, &r[i], g) })
	case "index":
		r := rows.([]IndexManifestEntry)
		each(func(i int) { indexTable.encode(&e, &r[i], g) })
	default:
		r := rows.([]Entry)
		each(func(i int) { entryTable.encode(&e, &r[i], g) })
	}
	return e.Buf
}

func decodeAny(kind string, data []byte, name string) (any, error) {
	switch kind {
	case "list":
		return DecodeManifestList(data, name)
	case "index":
		return DecodeIndexManifest(data, name)
	}
	return DecodeManifest(data, name)
}

// TestFixtureDatumBytes re-encodes every decoded fixture file in its own generation and
// compares with the decompressed Avro blocks Java wrote: the encoder is byte-exact.
func TestFixtureDatumBytes(t *testing.T) {
	for _, f := range avroFixtures(t) {
		of, err := ocf.Open(f.data)
		if err != nil {
			t.Fatal(err)
		}
		var javaBytes []byte
		for {
			_, block, err := of.Next()
			if errors.Is(err, io.EOF) {
				break
			}
			if err != nil {
				t.Fatalf("%s: %v", f.path, err)
			}
			javaBytes = append(javaBytes, block...)
		}
		rows, err := decodeAny(f.kind, f.data, f.name)
		if err != nil {
			t.Fatalf("%s: %v", f.path, err)
		}
		got := encodeRows(f.kind, rows, genOf(t, of.Schema))
		if !bytes.Equal(got, javaBytes) {
			t.Errorf("%s: re-encoded datum bytes differ\n got: %x\nwant: %x", f.path, got, javaBytes)
		}
	}
}

// TestFixtureRewrite decodes every fixture, writes it with our writer (Paimon 2.0 schema) in
// every codec, decodes again and compares all fields.
func TestFixtureRewrite(t *testing.T) {
	for _, f := range avroFixtures(t) {
		want, err := decodeAny(f.kind, f.data, f.name)
		if err != nil {
			t.Fatalf("%s: %v", f.path, err)
		}
		for _, codec := range []string{"zstd", "null", "deflate", "snappy", "zstandard"} {
			opts := WriteOptions{Compression: codec}
			var data []byte
			switch f.kind {
			case "list":
				data, err = EncodeManifestList(want.([]FileMeta), opts)
			case "index":
				data, err = EncodeIndexManifest(want.([]IndexManifestEntry), opts)
			default:
				data, err = EncodeManifest(want.([]Entry), opts)
			}
			if err != nil {
				t.Fatalf("%s %s: %v", f.path, codec, err)
			}
			got, err := decodeAny(f.kind, data, f.name)
			if err != nil {
				t.Fatalf("%s %s: decode rewritten: %v", f.path, codec, err)
			}
			if reflect.ValueOf(want).Len() == 0 {
				if reflect.ValueOf(got).Len() != 0 {
					t.Errorf("%s %s: got rows from an empty file", f.path, codec)
				}
				continue
			}
			if !reflect.DeepEqual(got, want) {
				t.Errorf("%s %s: rewritten rows differ\n got: %+v\nwant: %+v", f.path, codec, got, want)
			}
		}
	}
}

// snapshotJSON is the part of a snapshot file these tests need.
type snapshotJSON struct {
	TimeMillis            int64   `json:"timeMillis"`
	ID                    int64   `json:"id"`
	BaseManifestList      string  `json:"baseManifestList"`
	BaseManifestListSize  *int64  `json:"baseManifestListSize"`
	DeltaManifestList     string  `json:"deltaManifestList"`
	DeltaManifestListSize *int64  `json:"deltaManifestListSize"`
	IndexManifest         *string `json:"indexManifest"`
	TotalRecordCount      int64   `json:"totalRecordCount"`
	DeltaRecordCount      int64   `json:"deltaRecordCount"`
}

func readSnapshots(t *testing.T, table string) []snapshotJSON {
	t.Helper()
	paths, _ := filepath.Glob(filepath.Join(fixtures, table, "snapshot", "snapshot-*"))
	var out []snapshotJSON
	for _, p := range paths {
		data, err := os.ReadFile(p)
		if err != nil {
			t.Fatal(err)
		}
		var s snapshotJSON
		if err := json.Unmarshal(data, &s); err != nil {
			t.Fatal(err)
		}
		out = append(out, s)
	}
	sort.Slice(out, func(i, j int) bool { return out[i].ID < out[j].ID })
	return out
}

func openTable(t *testing.T, table string) *fileio.FileIO {
	t.Helper()
	fs, err := fileio.Open(context.Background(), filepath.Join(fixtures, table))
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { fs.Close() })
	return fs
}

// liveFiles nets base then delta manifests of a snapshot.
func liveFiles(t *testing.T, fs *fileio.FileIO, s snapshotJSON) (live []Entry, delta []Entry) {
	t.Helper()
	ctx := context.Background()
	var all []Entry
	for i, list := range []string{s.BaseManifestList, s.DeltaManifestList} {
		metas, err := ReadManifestList(ctx, fs, list)
		if err != nil {
			t.Fatal(err)
		}
		for _, m := range metas {
			entries, err := ReadManifest(ctx, fs, m.FileName)
			if err != nil {
				t.Fatal(err)
			}
			all = append(all, entries...)
			if i == 1 {
				delta = append(delta, entries...)
			}
		}
	}
	live, err := Net(all)
	if err != nil {
		t.Fatalf("snapshot %d: %v", s.ID, err)
	}
	return live, delta
}

// fixtureTables lists every fixture table; the first six keep manifests as ORC.
var fixtureTables = []string{
	"append_09_orc",
	"append_09_parquet",
	"append_10_parquet",
	"parquet_append_table",
	"pk_table_nested_type_parquet",
	"pk_table_scan_and_read_dv_orc",
	"append_complex_data_parquet",
	"append_table_with_alter_table_parquet",
	"append_table_with_rt_branch_parquet",
	"append_with_multiple_ts_precision_and_timezone_parquet",
	"pk_09_parquet",
	"pk_table_scan_and_read_dv_parquet",
	"pk_table_scan_and_read_first_row_parquet",
	"pk_table_scan_and_read_mor_parquet",
	"pk_table_with_alter_table_parquet",
}

// TestSnapshotRecordCounts checks the Java invariants for every snapshot of every fixture (Avro
// and ORC manifests): totalRecordCount = Σ rowCount of the live files after netting base+delta manifests,
// deltaRecordCount = Σ rowCount(ADD) − Σ rowCount(DELETE) of the delta manifests, and every
// manifest-list row agrees with the manifest it describes (size, counts, schema id, bucket/level
// ranges as Java's ManifestAvroWriter computes them).
func TestSnapshotRecordCounts(t *testing.T) {
	ctx := context.Background()
	for _, table := range fixtureTables {
		fs := openTable(t, table)
		snaps := readSnapshots(t, table)
		if len(snaps) == 0 {
			t.Fatalf("%s: no snapshots", table)
		}
		for _, s := range snaps {
			live, delta := liveFiles(t, fs, s)
			var total, dsum int64
			for _, e := range live {
				total += e.File.RowCount
			}
			for _, e := range delta {
				if e.Kind == Add {
					dsum += e.File.RowCount
				} else {
					dsum -= e.File.RowCount
				}
				// The fixtures were written in UTC+8: _CREATION_TIME holds the local wall clock
				// as if it were UTC (format doc 6.2), so it is 8 h ahead of the snapshot's UTC
				// commit time, less the seconds between writing the file and committing.
				if e.Kind == Add && e.File.CreationTime != nil {
					lag := s.TimeMillis - (*e.File.CreationTime - 8*3600*1000)
					if lag < 0 || lag > 60_000 {
						t.Errorf("%s snapshot %d: %s created %d ms before the commit", table, s.ID, e.File.FileName, lag)
					}
				}
			}
			if total != s.TotalRecordCount || dsum != s.DeltaRecordCount {
				t.Errorf("%s snapshot %d: total %d delta %d, snapshot says %d %d",
					table, s.ID, total, dsum, s.TotalRecordCount, s.DeltaRecordCount)
			}
			for _, list := range []struct {
				name string
				size *int64
			}{{s.BaseManifestList, s.BaseManifestListSize}, {s.DeltaManifestList, s.DeltaManifestListSize}} {
				if list.size != nil {
					st, err := os.Stat(filepath.Join(fixtures, table, "manifest", list.name))
					if err != nil || st.Size() != *list.size {
						t.Errorf("%s: manifest list %s size %v, snapshot says %d", table, list.name, st.Size(), *list.size)
					}
				}
				metas, err := ReadManifestList(ctx, fs, list.name)
				if err != nil {
					t.Fatal(err)
				}
				for _, m := range metas {
					checkListRow(t, table, fs, m)
				}
			}
		}
	}
}

func checkListRow(t *testing.T, table string, fs *fileio.FileIO, m FileMeta) {
	t.Helper()
	entries, err := ReadManifest(context.Background(), fs, m.FileName)
	if err != nil {
		t.Fatal(err)
	}
	st, err := os.Stat(filepath.Join(fixtures, table, "manifest", m.FileName))
	if err != nil {
		t.Fatal(err)
	}
	sum, err := SummarizeManifest(entries, WriteOptions{PartitionStats: func([][]byte) (SimpleStats, error) {
		return m.PartitionStats, nil // needs BinaryRow comparison (package row); checked separately
	}})
	if err != nil {
		t.Fatal(err)
	}
	sum.FileName, sum.FileSize = m.FileName, st.Size()
	if m.MinBucket == nil { // 0.9 lists have no bucket/level ranges
		sum.MinBucket, sum.MaxBucket, sum.MinLevel, sum.MaxLevel = nil, nil, nil, nil
	}
	if !reflect.DeepEqual(sum, m) {
		t.Errorf("%s: manifest list row for %s\n got: %+v\nwant: %+v", table, m.FileName, sum, m)
	}
}

func mustHex(s string) []byte {
	b, err := hex.DecodeString(strings.ReplaceAll(s, " ", ""))
	if err != nil {
		panic(err)
	}
	return b
}

func ptr[T any](v T) *T { return &v }

// TestDecodedValues asserts values stated in the fixtures' EXPECTED.md and the format doc.
func TestDecodedValues(t *testing.T) {
	ctx := context.Background()
	part10 := mustHex("00000001 0000000000000000 0a00000000000000") // partition f1 = 10
	part20 := mustHex("00000001 0000000000000000 1400000000000000") // partition f1 = 20

	t.Run("pk_09 index manifests (EXPECTED.md snapshot 6 and 8 DV offsets)", func(t *testing.T) {
		fs := openTable(t, "pk_09_parquet")
		got, err := ReadIndexManifest(ctx, fs, "index-manifest-03e2700b-8409-499b-8c27-a09ccee9348c-0")
		if err != nil {
			t.Fatal(err)
		}
		want := []IndexManifestEntry{
			{Kind: Add, Partition: part10, Bucket: 1, IndexFile: IndexFileMeta{
				IndexType: "DELETION_VECTORS", FileName: "index-ff7801ad-df90-49b2-9619-586eab9c68e3-1", FileSize: 31, RowCount: 1,
				DVRanges: []DeletionVectorMeta{{DataFileName: "data-6d416200-c9db-49ff-bc27-79837bf1aaab-0.parquet", Offset: 1, Length: 22}}}},
			{Kind: Add, Partition: part10, Bucket: 0, IndexFile: IndexFileMeta{
				IndexType: "DELETION_VECTORS", FileName: "index-ff7801ad-df90-49b2-9619-586eab9c68e3-0", FileSize: 61, RowCount: 2,
				DVRanges: []DeletionVectorMeta{
					{DataFileName: "data-0f3a001e-ce2f-4f01-bb47-08d9901cb76c-1.parquet", Offset: 1, Length: 22},
					{DataFileName: "data-0f3a001e-ce2f-4f01-bb47-08d9901cb76c-0.parquet", Offset: 31, Length: 22}}}},
		}
		if !reflect.DeepEqual(got, want) {
			t.Errorf("got %+v\nwant %+v", got, want)
		}
		got, err = ReadIndexManifest(ctx, fs, "index-manifest-03e2700b-8409-499b-8c27-a09ccee9348c-1")
		if err != nil {
			t.Fatal(err)
		}
		if len(got) != 2 || got[1].IndexFile.FileName != "index-ff7801ad-df90-49b2-9619-586eab9c68e3-2" ||
			got[1].IndexFile.FileSize != 1 || got[1].IndexFile.RowCount != 0 || got[1].IndexFile.DVRanges == nil ||
			len(got[1].IndexFile.DVRanges) != 0 || !reflect.DeepEqual(got[0], want[0]) {
			t.Errorf("index manifest -1 = %+v", got)
		}
	})

	t.Run("pk_09 snapshot 8 live files (EXPECTED.md TestPkTableWithSnapshot8)", func(t *testing.T) {
		fs := openTable(t, "pk_09_parquet")
		snaps := readSnapshots(t, "pk_09_parquet")
		live, _ := liveFiles(t, fs, snaps[7])
		var got []string
		for _, e := range live {
			got = append(got, hex.EncodeToString(e.Partition[12:13])+"/"+strconv.Itoa(int(e.Bucket))+"/"+e.File.FileName)
		}
		sort.Strings(got)
		want := []string{
			"0a/0/data-2b672a79-68bb-447c-8f8d-b4764e29b391-1.parquet",
			"0a/1/data-6d416200-c9db-49ff-bc27-79837bf1aaab-0.parquet",
			"14/0/data-cf4e088c-c6e7-4812-bb97-196f6aff271c-0.parquet",
		}
		if !reflect.DeepEqual(got, want) {
			t.Errorf("live files %v, want %v", got, want)
		}
	})

	t.Run("dv table manifest list row (format doc section 5)", func(t *testing.T) {
		fs := openTable(t, "pk_table_scan_and_read_dv_parquet")
		lists, _ := filepath.Glob(filepath.Join(fixtures, "pk_table_scan_and_read_dv_parquet", "manifest", "manifest-list-*"))
		var metas []FileMeta
		for _, l := range lists {
			m, err := ReadManifestList(ctx, fs, filepath.Base(l))
			if err != nil {
				t.Fatal(err)
			}
			metas = append(metas, m...)
		}
		want := FileMeta{
			FileName: "manifest-ba0138c4-ea53-45bb-9e8a-207e2b01fc8d-3", FileSize: 2122, NumAddedFiles: 1, NumDeletedFiles: 2,
			PartitionStats: SimpleStats{MinValues: part10, MaxValues: part10, NullCounts: []int64{0}},
			SchemaID:       0, MinBucket: ptr[int32](0), MaxBucket: ptr[int32](1), MinLevel: ptr[int32](0), MaxLevel: ptr[int32](4),
		}
		var found bool
		for _, m := range metas {
			if m.FileName == want.FileName {
				found = true
				if !reflect.DeepEqual(m, want) {
					t.Errorf("got %+v\nwant %+v", m, want)
				}
			}
		}
		if !found {
			t.Errorf("%s not in list: %+v", want.FileName, metas)
		}
	})

	t.Run("dv table level upgrade entry (format doc section 6.3)", func(t *testing.T) {
		fs := openTable(t, "pk_table_scan_and_read_dv_parquet")
		entries, err := ReadManifest(ctx, fs, "manifest-ba0138c4-ea53-45bb-9e8a-207e2b01fc8d-3")
		if err != nil {
			t.Fatal(err)
		}
		var del, add *Entry
		for i := range entries {
			e := &entries[i]
			if e.File.FileName == "data-f19db350-7c55-4686-8839-78d15aa17fc1-1.parquet" {
				if e.Kind == Delete {
					del = e
				} else {
					add = e
				}
			}
		}
		if del == nil || add == nil {
			t.Fatalf("upgrade pair not found in %+v", entries)
		}
		if !bytes.Equal(del.Partition, part10) || del.Bucket != 0 || del.TotalBuckets != 2 || del.File.FileSize != 1728 ||
			del.File.RowCount != 1 || del.File.Level != 0 || add.File.Level != 4 ||
			!bytes.Equal(del.File.MinKey, mustHex("00000002 0000000000000000 416c696365000085 0100000000000000")) ||
			del.File.FileSource == nil || *del.File.FileSource != SourceAppend {
			t.Errorf("delete %+v\nadd %+v", del, add)
		}
		if del.Identifier() == add.Identifier() {
			t.Error("level must be part of the identifier")
		}
	})

	t.Run("partition 20 present", func(t *testing.T) {
		fs := openTable(t, "pk_table_scan_and_read_dv_parquet")
		snaps := readSnapshots(t, "pk_table_scan_and_read_dv_parquet")
		live, _ := liveFiles(t, fs, snaps[0])
		n20 := 0
		for _, e := range live {
			if bytes.Equal(e.Partition, part20) {
				n20++
				if e.File.RowCount != 2 || e.Bucket != 0 || e.File.Level != 0 {
					t.Errorf("partition 20 file %+v", e)
				}
			}
		}
		if len(live) != 3 || n20 != 1 {
			t.Errorf("snapshot 1: %d live files, %d in partition 20; want 3 and 1", len(live), n20)
		}
	})

	t.Run("ORC manifests: append_09 snapshot 5 (EXPECTED.md: 11 rows, 3 splits)", func(t *testing.T) {
		for _, table := range []string{"append_09_parquet", "append_09_orc"} {
			fs := openTable(t, table)
			snaps := readSnapshots(t, table)
			live, _ := liveFiles(t, fs, snaps[4])
			groups := map[string]int64{}
			for _, e := range live {
				groups[hex.EncodeToString(e.Partition[12:13])+"/"+strconv.Itoa(int(e.Bucket))] += e.File.RowCount
				if e.TotalBuckets != 2 || e.File.Level != 0 || !bytes.Equal(e.File.MinKey, EmptyRow()) {
					t.Errorf("%s: entry %+v", table, e)
				}
			}
			var rows int64
			for _, n := range groups {
				rows += n
			}
			if len(groups) != 3 || groups["0a/0"] == 0 || groups["0a/1"] == 0 || groups["14/0"] == 0 || rows != 11 {
				t.Errorf("%s: partition-buckets %v", table, groups)
			}
		}
	})

	t.Run("ORC index manifest of the DV table", func(t *testing.T) {
		fs := openTable(t, "pk_table_scan_and_read_dv_orc")
		got, err := ReadIndexManifest(ctx, fs, "index-manifest-06caeebd-72bd-4490-90cf-8073e46be369-0")
		if err != nil {
			t.Fatal(err)
		}
		if len(got) != 2 {
			t.Fatalf("%+v", got)
		}
		for i, want := range []struct {
			bucket int32
			file   string
		}{{1, "index-9bb71660-7904-4690-b0fa-eaa921b89480-1"}, {0, "index-9bb71660-7904-4690-b0fa-eaa921b89480-0"}} {
			f := got[i].IndexFile
			if got[i].Bucket != want.bucket || f.FileName != want.file || f.FileSize != 31 || f.RowCount != 1 ||
				len(f.DVRanges) != 1 || f.DVRanges[0].Offset != 1 || f.DVRanges[0].Length != 22 ||
				f.DVRanges[0].Cardinality == nil || *f.DVRanges[0].Cardinality != 1 || !bytes.Equal(got[i].Partition, part10) {
				t.Errorf("entry %d: %+v", i, got[i])
			}
		}
	})

	t.Run("unpartitioned append table", func(t *testing.T) {
		fs := openTable(t, "append_with_multiple_ts_precision_and_timezone_parquet")
		snaps := readSnapshots(t, "append_with_multiple_ts_precision_and_timezone_parquet")
		live, _ := liveFiles(t, fs, snaps[0])
		if len(live) != 1 {
			t.Fatalf("live = %+v", live)
		}
		e := live[0]
		if !bytes.Equal(e.Partition, EmptyRow()) || !bytes.Equal(e.File.MinKey, EmptyRow()) || e.TotalBuckets != -1 ||
			e.Bucket != 0 || e.File.MinSequenceNumber != 0 || !reflect.DeepEqual(e.File.KeyStats, EmptyStats()) {
			t.Errorf("entry %+v", e)
		}
	})
}

// TestReaderMatchesDecode reads every manifest-directory file of every fixture through one
// shared Reader from several goroutines and compares with the uncached decoders.
func TestReaderMatchesDecode(t *testing.T) {
	ctx := context.Background()
	for _, table := range fixtureTables {
		fs := openTable(t, table)
		r := NewReader(fs)
		paths, _ := filepath.Glob(filepath.Join(fixtures, table, "manifest", "*"))
		errs := make(chan error, len(paths))
		for _, p := range paths {
			go func() {
				name := filepath.Base(p)
				data, err := os.ReadFile(p)
				if err != nil {
					errs <- err
					return
				}
				want, err := decodeAny(kindOf(name), data, name)
				if err != nil {
					errs <- err
					return
				}
				var got any
				switch kindOf(name) {
				case "list":
					got, err = r.ManifestList(ctx, name)
				case "index":
					got, err = r.IndexManifest(ctx, name)
				default:
					got, err = r.Manifest(ctx, name)
				}
				if err == nil && !reflect.DeepEqual(got, want) {
					err = errors.New(name + ": Reader result differs")
				}
				errs <- err
			}()
		}
		for range paths {
			if err := <-errs; err != nil {
				t.Error(err)
			}
		}
		r.Close()
	}
}
