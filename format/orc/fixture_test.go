package orc

import (
	"encoding/hex"
	"encoding/json"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"reflect"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/apache/arrow-go/v18/arrow"

	"github.com/paimon-go/paimon/types"
)

// Tests against the Java-written fixture tables in testdata/paimon-tables:
// every ORC manifest list, manifest, index manifest and data file there.
// Expected values come from the tables' EXPECTED.md, from file sizes on
// disk, from counts one file states about another (a manifest list's
// added/deleted counts vs. the manifest's rows, a manifest entry's row
// count vs. the data file's footer), from Paimon's field-id rules, and
// from hand-computed BinaryRow bytes.

const tablesDir = "../../testdata/paimon-tables"

// Tables with ORC manifests (the *_orc ones also have ORC data files).
var orcManifestTables = []string{
	"append_09_orc", "pk_table_scan_and_read_dv_orc",
	"append_09_parquet", "append_10_parquet", "parquet_append_table", "pk_table_nested_type_parquet",
}

func isORC(t testing.TB, path string) bool {
	t.Helper()
	f, err := os.Open(path)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	head := make([]byte, 3)
	n, _ := f.Read(head)
	return n == 3 && string(head) == "ORC"
}

func fileSize(t testing.TB, path string) int64 {
	t.Helper()
	st, err := os.Stat(path)
	if err != nil {
		t.Fatal(err)
	}
	return st.Size()
}

// filesByName maps the base name of every file under the table to its path.
func filesByName(t testing.TB, table string) map[string]string {
	t.Helper()
	m := map[string]string{}
	err := filepath.WalkDir(filepath.Join(tablesDir, table), func(p string, d fs.DirEntry, err error) error {
		if err == nil && !d.IsDir() {
			m[d.Name()] = p
		}
		return err
	})
	if err != nil {
		t.Fatal(err)
	}
	return m
}

func TestFixtureCrossCheck(t *testing.T) {
	orcDataFiles := 0
	for _, table := range orcManifestTables {
		t.Run(table, func(t *testing.T) {
			files := filesByName(t, table)
			checkedManifests := map[string]bool{}
			for name, path := range files {
				if !strings.HasPrefix(name, "manifest-list-") {
					continue
				}
				if !isORC(t, path) {
					t.Fatalf("%s is not ORC", path)
				}
				lf := openFile(t, path)
				list := rows(t, lf, ReadOptions{})
				if int64(len(list)) != lf.NumRows() {
					t.Fatalf("%s: decoded %d rows, footer says %d", name, len(list), lf.NumRows())
				}
				for _, m := range list {
					mname := m["_FILE_NAME"].(string)
					mpath := files[mname]
					if m["_VERSION"] != int64(2) {
						t.Errorf("%s: _VERSION %v", name, m["_VERSION"])
					}
					if got := fileSize(t, mpath); got != m["_FILE_SIZE"] {
						t.Errorf("%s: _FILE_SIZE %v, file has %d bytes", mname, m["_FILE_SIZE"], got)
					}
					mf := openFile(t, mpath)
					entries := rows(t, mf, ReadOptions{BatchRows: 1})
					kinds := map[int64]int64{}
					for _, e := range entries {
						kinds[e["_KIND"].(int64)]++
						file := e["_FILE"].(map[string]any)
						dname := file["_FILE_NAME"].(string)
						dpath, ok := files[dname]
						if !ok {
							t.Errorf("%s: data file %s missing", mname, dname)
							continue
						}
						if got := fileSize(t, dpath); got != file["_FILE_SIZE"] {
							t.Errorf("%s: _FILE_SIZE %v, file has %d bytes", dname, file["_FILE_SIZE"], got)
						}
						if !strings.Contains(dpath, fmt.Sprintf("bucket-%d", e["_BUCKET"])) {
							t.Errorf("%s: _BUCKET %v but path %s", dname, e["_BUCKET"], dpath)
						}
						if isORC(t, dpath) && !checkedManifests[mname+"/"+dname] {
							checkedManifests[mname+"/"+dname] = true
							df := openFile(t, dpath)
							if df.NumRows() != file["_ROW_COUNT"] {
								t.Errorf("%s: _ROW_COUNT %v, footer has %d rows", dname, file["_ROW_COUNT"], df.NumRows())
							}
							if got := rows(t, df, ReadOptions{}); int64(len(got)) != df.NumRows() {
								t.Errorf("%s: decoded %d rows of %d", dname, len(got), df.NumRows())
							}
						}
					}
					if kinds[0] != m["_NUM_ADDED_FILES"] || kinds[1] != m["_NUM_DELETED_FILES"] || int64(len(entries)) != kinds[0]+kinds[1] {
						t.Errorf("%s: %d ADD + %d DELETE entries (%d rows); list says %v + %v",
							mname, kinds[0], kinds[1], len(entries), m["_NUM_ADDED_FILES"], m["_NUM_DELETED_FILES"])
					}
					checkedManifests[mname] = true
				}
			}
			for name := range files {
				if strings.HasPrefix(name, "manifest-") && !strings.HasPrefix(name, "manifest-list-") && !checkedManifests[name] {
					t.Errorf("manifest %s is referenced by no manifest list", name)
				}
			}
			for key := range checkedManifests {
				if strings.Contains(key, "/") && strings.HasSuffix(key, ".orc") {
					orcDataFiles++
				}
			}
		})
	}
	// 8 data files in each *_orc table; every one is referenced by at least
	// one manifest (some by several: ADD, then DELETE at compaction).
	distinct := map[string]bool{}
	for _, table := range []string{"append_09_orc", "pk_table_scan_and_read_dv_orc"} {
		for name := range filesByName(t, table) {
			if strings.HasSuffix(name, ".orc") {
				distinct[name] = true
			}
		}
	}
	if len(distinct) != 16 || orcDataFiles < 16 {
		t.Errorf("%d ORC data files on disk, %d manifest references checked; want 16 and >= 16", len(distinct), orcDataFiles)
	}
}

// partitionF1 is the serialized BinaryRow of a one-column partition f1 INT:
// int 1 (arity, big endian), 8 bytes null bitmap/header, the INT in an
// 8-byte little-endian slot (paimon-format.md sections 7.1 and 7.4).
func partitionF1(v byte) []byte {
	return []byte{0, 0, 0, 1, 0, 0, 0, 0, 0, 0, 0, 0, v, 0, 0, 0, 0, 0, 0, 0}
}

func TestFixtureManifestListRow(t *testing.T) {
	dir := tablesDir + "/append_09_orc/manifest/"
	f := openFile(t, dir+"manifest-list-469f3a0f-f6f1-4027-91bf-d1e897e8ea23-0")
	got := rows(t, f, ReadOptions{})
	want := []map[string]any{{
		"_VERSION":           int64(2),
		"_FILE_NAME":         "manifest-f8b15cfc-437a-4d21-a6a0-e45b639ae7ed-0",
		"_FILE_SIZE":         fileSize(t, dir+"manifest-f8b15cfc-437a-4d21-a6a0-e45b639ae7ed-0"),
		"_NUM_ADDED_FILES":   int64(3),
		"_NUM_DELETED_FILES": int64(0),
		"_PARTITION_STATS": map[string]any{
			"_MIN_VALUES": partitionF1(10), "_MAX_VALUES": partitionF1(20), "_NULL_COUNTS": []any{int64(0)},
		},
		"_SCHEMA_ID": int64(0),
	}}
	if !reflect.DeepEqual(got, want) {
		t.Fatalf("got %v\nwant %v", got, want)
	}
	if want[0]["_FILE_SIZE"] != int64(2666) {
		t.Fatalf("file size %v", want[0]["_FILE_SIZE"])
	}
	// the 0-row manifest list of the first snapshot: no stripes, no rows
	empty := openFile(t, dir+"manifest-list-616d1847-a02c-495f-9cca-2c8b7def0fec-0")
	if empty.NumRows() != 0 || empty.NumStripes() != 0 || len(rows(t, empty, ReadOptions{})) != 0 {
		t.Fatalf("empty list: %d rows, %d stripes", empty.NumRows(), empty.NumStripes())
	}
}

func TestFixtureManifestEntry(t *testing.T) {
	dir := tablesDir + "/append_09_orc/"
	f := openFile(t, dir+"manifest/manifest-3a44a0da-1008-463c-914e-28d271375e24-0")
	got := rows(t, f, ReadOptions{})
	if len(got) != 2 {
		t.Fatalf("%d entries", len(got))
	}
	e := got[0]
	file := e["_FILE"].(map[string]any)
	checks := []struct {
		name      string
		got, want any
	}{
		{"_KIND", e["_KIND"], int64(0)},
		{"_PARTITION", e["_PARTITION"], partitionF1(10)},
		{"_BUCKET", e["_BUCKET"], int64(1)},
		{"_TOTAL_BUCKETS", e["_TOTAL_BUCKETS"], int64(2)},
		{"_FILE_NAME", file["_FILE_NAME"], "data-10b9eea8-241d-4e4b-8ab8-2a82d72d79a2-0.orc"},
		{"_FILE_SIZE", file["_FILE_SIZE"], fileSize(t, dir+"f1=10/bucket-1/data-10b9eea8-241d-4e4b-8ab8-2a82d72d79a2-0.orc")},
		// snapshot 2 appended Emily, Bob, Alex to f1=10 bucket 1 (EXPECTED.md)
		{"_ROW_COUNT", file["_ROW_COUNT"], int64(3)},
		{"_MIN_KEY", file["_MIN_KEY"], make([]byte, 12)}, // EMPTY_ROW of an append table
		{"_LEVEL", file["_LEVEL"], int64(0)},
		{"_EXTRA_FILES", file["_EXTRA_FILES"], []any{}},
		{"_EMBEDDED_FILE_INDEX", file["_EMBEDDED_FILE_INDEX"], nil},
		{"_FILE_SOURCE", file["_FILE_SOURCE"], int64(0)},
		{"_NULL_COUNTS", file["_VALUE_STATS"].(map[string]any)["_NULL_COUNTS"], []any{int64(0), int64(0), int64(0), int64(0)}},
		{"second _PARTITION", got[1]["_PARTITION"], partitionF1(20)},
		{"second _BUCKET", got[1]["_BUCKET"], int64(0)},
		{"second _ROW_COUNT", got[1]["_FILE"].(map[string]any)["_ROW_COUNT"], int64(1)}, // Paul
		{"second _NULL_COUNTS", got[1]["_FILE"].(map[string]any)["_VALUE_STATS"].(map[string]any)["_NULL_COUNTS"],
			[]any{int64(0), int64(0), int64(0), int64(1)}}, // Paul's f3 is null
	}
	for _, c := range checks {
		if !reflect.DeepEqual(c.got, c.want) {
			t.Errorf("%s: got %#v, want %#v", c.name, c.got, c.want)
		}
	}
	// _CREATION_TIME: the writer's (UTC+8, stripe footer writerTimezone
	// Asia/Shanghai) wall-clock time as a zone-less timestamp; the value
	// 2024-07-22 10:14:27.385 is what the Apache ORC C++ reader (pyarrow)
	// returns for this file, and lies 0.9 s before snapshot 2's commit time
	// 1721614468258 ms (UTC) + 8 h.
	wantTime := time.Date(2024, 7, 22, 10, 14, 27, 385_000_000, time.UTC).UnixNano()
	if file["_CREATION_TIME"] != wantTime {
		t.Errorf("_CREATION_TIME = %v, want %d", file["_CREATION_TIME"], wantTime)
	}
}

func TestFixtureFieldIDs(t *testing.T) {
	// Paimon 1.0 writes the paimon.id attribute; list elements get
	// 536870911 + 1024*fieldId + depth (paimon-format.md section 11.4).
	f := openFile(t, tablesDir+"/append_10_parquet/manifest/manifest-list-3814e573-510f-4d64-a620-bd6feb84bafa-1")
	ids := map[string]string{}
	for _, fd := range f.Schema().Fields() {
		ids[fd.Name], _ = fd.Metadata.GetValue(types.FieldIDKey)
	}
	want := map[string]string{"_VERSION": "-1", "_FILE_NAME": "0", "_FILE_SIZE": "1", "_NUM_ADDED_FILES": "2",
		"_NUM_DELETED_FILES": "3", "_PARTITION_STATS": "4", "_SCHEMA_ID": "5", "_MIN_BUCKET": "6",
		"_MAX_BUCKET": "7", "_MIN_LEVEL": "8", "_MAX_LEVEL": "9"}
	if !reflect.DeepEqual(ids, want) {
		t.Errorf("top-level ids %v, want %v", ids, want)
	}
	stats := f.Schema().Field(5).Type.(*arrow.StructType)
	nulls := stats.Field(2)
	if id, _ := nulls.Metadata.GetValue(types.FieldIDKey); id != "2" {
		t.Errorf("_NULL_COUNTS id %q", id)
	}
	elem := nulls.Type.(*arrow.ListType).ElemField()
	if id, _ := elem.Metadata.GetValue(types.FieldIDKey); id != fmt.Sprint(536870911+1024*2+1) {
		t.Errorf("_NULL_COUNTS element id %q", id)
	}

	// PK data file: system fields _KEY_<name> = 1073741823 + id,
	// _SEQUENCE_NUMBER = MaxInt32-1, _VALUE_KIND = MaxInt32-2.
	df := openFile(t, tablesDir+"/pk_table_scan_and_read_dv_orc/f1=10/bucket-0/data-fa75c075-d54d-4062-aab9-23c76fe00f96-0.orc")
	var got []string
	for _, fd := range df.Schema().Fields() {
		id, _ := fd.Metadata.GetValue(types.FieldIDKey)
		got = append(got, fd.Name+"="+id)
	}
	wantData := []string{"_KEY_f0=1073741823", "_KEY_f2=1073741825", "_SEQUENCE_NUMBER=2147483646",
		"_VALUE_KIND=2147483645", "f0=0", "f1=1", "f2=2", "f3=3"}
	if !slices.Equal(got, wantData) {
		t.Errorf("data file ids %v, want %v", got, wantData)
	}

	// index manifest: list<struct> of deletion-vector ranges, field 7
	im := openFile(t, tablesDir+"/pk_table_scan_and_read_dv_orc/manifest/index-manifest-06caeebd-72bd-4490-90cf-8073e46be369-0")
	ranges := im.Schema().Field(8)
	elem = ranges.Type.(*arrow.ListType).ElemField()
	if id, _ := elem.Metadata.GetValue(types.FieldIDKey); ranges.Name != "_DELETIONS_VECTORS_RANGES" || id != fmt.Sprint(536870911+1024*7+1) {
		t.Errorf("index manifest field 8: %s element id %q", ranges.Name, id)
	}
	entries := rows(t, im, ReadOptions{})
	for _, e := range entries {
		size := fileSize(t, tablesDir+"/pk_table_scan_and_read_dv_orc/index/"+e["_FILE_NAME"].(string))
		if e["_FILE_SIZE"] != size || e["_INDEX_TYPE"] != "DELETION_VECTORS" || e["_VERSION"] != int64(1) {
			t.Errorf("index entry %v (file size %d)", e, size)
		}
		dv := e["_DELETIONS_VECTORS_RANGES"].([]any)
		if len(dv) != 1 || !strings.HasPrefix(dv[0].(map[string]any)["f0"].(string), "data-") {
			t.Errorf("deletion vector ranges %v", dv)
		}
	}
	if len(entries) != 2 {
		t.Errorf("%d index entries", len(entries))
	}
}

type snapshotJSON struct {
	BaseManifestList  string `json:"baseManifestList"`
	DeltaManifestList string `json:"deltaManifestList"`
}

// liveFiles returns the data files of a snapshot: ADD entries of its base
// and delta manifest lists minus DELETE entries, identified by partition,
// bucket, level and name (FileEntry.Identifier without the extras).
func liveFiles(t *testing.T, table string, snapshot int) []string {
	t.Helper()
	dir := filepath.Join(tablesDir, table)
	raw, err := os.ReadFile(filepath.Join(dir, "snapshot", fmt.Sprintf("snapshot-%d", snapshot)))
	if err != nil {
		t.Fatal(err)
	}
	var s snapshotJSON
	if err := json.Unmarshal(raw, &s); err != nil {
		t.Fatal(err)
	}
	live := map[string]string{}
	var order []string
	for _, list := range []string{s.BaseManifestList, s.DeltaManifestList} {
		for _, m := range rows(t, openFile(t, filepath.Join(dir, "manifest", list)), ReadOptions{}) {
			for _, e := range rows(t, openFile(t, filepath.Join(dir, "manifest", m["_FILE_NAME"].(string))), ReadOptions{}) {
				file := e["_FILE"].(map[string]any)
				id := fmt.Sprintf("%s/%v/%v/%s", hex.EncodeToString(e["_PARTITION"].([]byte)), e["_BUCKET"], file["_LEVEL"], file["_FILE_NAME"])
				if e["_KIND"] == int64(0) {
					live[id] = file["_FILE_NAME"].(string)
					order = append(order, id)
				} else {
					delete(live, id)
				}
			}
		}
	}
	var out []string
	for _, id := range order {
		if name, ok := live[id]; ok {
			out = append(out, name)
			delete(live, id)
		}
	}
	return out
}

// dataRows reads the rows (f0, f1, f2, f3) of the given data files as
// "f0|f1|f2|f3" strings, sorted.
func dataRows(t *testing.T, table string, names []string, extra func(map[string]any)) []string {
	t.Helper()
	files := filesByName(t, table)
	var out []string
	for _, name := range names {
		for _, r := range rows(t, openFile(t, files[name]), ReadOptions{}) {
			if extra != nil {
				extra(r)
			}
			f3 := "null"
			if r["f3"] != nil {
				f3 = fmt.Sprint(r["f3"])
			}
			out = append(out, fmt.Sprintf("%v|%v|%v|%s", r["f0"], r["f1"], r["f2"], f3))
		}
	}
	slices.Sort(out)
	return out
}

func TestFixtureAppend09Rows(t *testing.T) {
	// EXPECTED.md, snapshot 1 (TestWithAppendSnapshot1)
	got := dataRows(t, "append_09_orc", liveFiles(t, "append_09_orc", 1), nil)
	want := []string{"Alice|10|1|11.1", "Bob|10|0|12.1", "Emily|10|0|13.1", "Lucy|20|1|14.1", "Tony|10|0|14.1"}
	if !slices.Equal(got, want) {
		t.Errorf("snapshot 1: got %v\nwant %v", got, want)
	}
	// EXPECTED.md, latest = snapshot 5 after full compaction (TestWithAppendSnapshot5)
	got = dataRows(t, "append_09_orc", liveFiles(t, "append_09_orc", 5), nil)
	want = []string{"Alex|10|0|16.1", "Alice|10|1|11.1", "Bob|10|0|12.1", "Bob|10|0|12.1", "David|10|0|17.1",
		"Emily|10|0|13.1", "Emily|10|0|15.1", "Lily|10|0|17.1", "Lucy|20|1|14.1", "Paul|20|1|null", "Tony|10|0|14.1"}
	if !slices.Equal(got, want) {
		t.Errorf("snapshot 5: got %v\nwant %v", got, want)
	}
}

func TestFixturePKDeletionVectorRows(t *testing.T) {
	// EXPECTED.md table E: snapshot 1 wrote each key once (+I), so its
	// level-0 files hold exactly the merged rows.
	twoRoads := "Two roads diverged in a wood, and I took the one less traveled by, And that has made all the difference."
	kinds := map[any]int{}
	got := dataRows(t, "pk_table_scan_and_read_dv_orc", liveFiles(t, "pk_table_scan_and_read_dv_orc", 1), func(r map[string]any) {
		kinds[r["_VALUE_KIND"]]++
		if r["_KEY_f0"] != r["f0"] || r["_KEY_f2"] != r["f2"] {
			t.Errorf("key columns %v/%v differ from f0/f2 %v/%v", r["_KEY_f0"], r["_KEY_f2"], r["f0"], r["f2"])
		}
	})
	want := []string{"Alex|10|0|16.1", "Alice|10|1|11.1", "Bob|10|0|12.1", "David|10|0|17.1", "Emily|10|0|13.1",
		"Lucy|20|1|14.1", "Paul|20|1|18.1", "Tony|10|0|14.1", twoRoads + "|10|1|11"}
	if !slices.Equal(got, want) {
		t.Errorf("snapshot 1: got %v\nwant %v", got, want)
	}
	if !reflect.DeepEqual(kinds, map[any]int{int64(0): 9}) {
		t.Errorf("_VALUE_KIND counts %v, want 9 x +I (0)", kinds)
	}
}
