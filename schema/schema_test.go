package schema

import (
	"bytes"
	"encoding/json"
	"errors"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/paimon-go/paimon/types"
)

const fixtures = "../testdata/paimon-tables"

func fixtureFiles(t *testing.T) []string {
	t.Helper()
	a, _ := filepath.Glob(fixtures + "/*/schema/schema-*")
	b, _ := filepath.Glob(fixtures + "/*/branch/*/schema/schema-*")
	files := append(a, b...)
	if len(files) != 20 {
		t.Fatalf("expected 20 fixture schema files, found %d", len(files))
	}
	return files
}

// Every Java-written schema decodes and re-encodes to the identical bytes,
// except the known empty-description gap (see types.DataField).
func TestFixturesEncodeByteExact(t *testing.T) {
	gaps := 0
	for _, file := range fixtureFiles(t) {
		data, err := os.ReadFile(file)
		if err != nil {
			t.Fatal(err)
		}
		s, err := Decode(data)
		if err != nil {
			t.Fatalf("%s: %v", file, err)
		}
		out, err := s.Encode()
		if err != nil {
			t.Fatalf("%s: %v", file, err)
		}
		want := data
		if bytes.Contains(data, []byte(",\n    \"description\" : \"\"")) {
			want = bytes.ReplaceAll(data, []byte(",\n    \"description\" : \"\""), nil)
			gaps++
		}
		if !bytes.Equal(out, want) {
			t.Errorf("%s: re-encoded bytes differ:\n%s\n--- want ---\n%s", file, out, want)
		}
		if base := filepath.Base(file); base != FileName(s.ID) {
			t.Errorf("%s: id %d", file, s.ID)
		}
	}
	if gaps != 2 {
		t.Errorf("expected 2 files with empty descriptions, got %d", gaps)
	}
}

func decodeFixture(t *testing.T, rel string) *TableSchema {
	t.Helper()
	data, err := os.ReadFile(filepath.Join(fixtures, rel))
	if err != nil {
		t.Fatal(err)
	}
	s, err := Decode(data)
	if err != nil {
		t.Fatal(err)
	}
	return s
}

func TestDecodeNestedPK(t *testing.T) {
	s := decodeFixture(t, "pk_table_nested_type_parquet/schema/schema-0")
	if s.Version != 3 || s.ID != 0 || s.HighestFieldID != 8 || s.TimeMillis != 1755848431346 || s.Comment != "" {
		t.Errorf("header = %d %d %d %d %q", s.Version, s.ID, s.HighestFieldID, s.TimeMillis, s.Comment)
	}
	wantFields := []types.DataField{
		types.Field(0, "shopId", types.Int().NotNull()),
		types.Field(1, "dt", types.String().NotNull()),
		types.Field(2, "hr", types.Int().NotNull()),
		types.Field(3, "col0", types.Int()),
		types.Field(4, "col1", types.RowOf(
			types.Field(5, "f0", types.String()),
			types.Field(6, "f1", types.Int()),
			types.Field(7, "f2", types.ArrayOf(types.Int())))),
		types.Field(8, "col2", types.MapOf(types.Int(), types.Int())),
	}
	if len(s.Fields) != len(wantFields) {
		t.Fatalf("%d fields", len(s.Fields))
	}
	for i := range wantFields {
		if !s.Fields[i].Equal(wantFields[i]) {
			t.Errorf("field %d = %s", i, s.Fields[i])
		}
	}
	eq := func(name string, got, want []string) {
		if !slices.Equal(got, want) {
			t.Errorf("%s = %q, want %q", name, got, want)
		}
	}
	eq("PartitionKeys", s.PartitionKeys, []string{"dt", "hr"})
	eq("PrimaryKeys", s.PrimaryKeys, []string{"shopId", "dt", "hr"})
	eq("TrimmedPrimaryKeys", s.TrimmedPrimaryKeys(), []string{"shopId"})
	eq("BucketKeys", s.BucketKeys(), []string{"shopId"})
	eq("PartitionFields", types.FieldNames(s.PartitionFields()), []string{"dt", "hr"})
	eq("BucketKeyFields", types.FieldNames(s.BucketKeyFields()), []string{"shopId"})
	if n, err := s.NumBuckets(); n != 2 || err != nil {
		t.Errorf("NumBuckets = %d %v", n, err)
	}
	if f := s.Options.FileFormat(); f != "parquet" {
		t.Errorf("FileFormat = %q", f)
	}
	if f := s.Options.ManifestFormat(); f != "orc" {
		t.Errorf("ManifestFormat = %q", f)
	}
	if s.CrossPartitionUpdate() {
		t.Error("CrossPartitionUpdate")
	}
	rt := s.LogicalRowType()
	if rt.Kind != types.KindRow || len(rt.Fields) != 6 || !rt.Nullable {
		t.Errorf("LogicalRowType = %s", rt)
	}
}

func TestDecodeAlteredPK(t *testing.T) {
	s := decodeFixture(t, "pk_table_with_alter_table_parquet/schema/schema-1")
	wantNames := []string{"key1", "k", "key_2", "c", "d", "a", "key0", "e"}
	wantIDs := []int{1, 7, 2, 4, 8, 6, 0, 9}
	for i, f := range s.Fields {
		if f.Name != wantNames[i] || f.ID != wantIDs[i] {
			t.Errorf("field %d = %s id %d", i, f.Name, f.ID)
		}
	}
	if s.HighestFieldID != 9 || s.ID != 1 {
		t.Errorf("ids %d %d", s.ID, s.HighestFieldID)
	}
	if got := s.TrimmedPrimaryKeys(); !slices.Equal(got, []string{"key_2"}) {
		t.Errorf("TrimmedPrimaryKeys = %q", got)
	}
	if got := s.BucketKeys(); !slices.Equal(got, []string{"key_2"}) {
		t.Errorf("BucketKeys = %q", got)
	}
	if got := s.FieldIndexes([]string{"key0", "key1", "nope"}); !slices.Equal(got, []int{6, 0, -1}) {
		t.Errorf("FieldIndexes = %v", got)
	}
	dv, err := s.Options.DeletionVectorsEnabled()
	if !dv || err != nil {
		t.Errorf("DeletionVectorsEnabled = %v %v", dv, err)
	}
	fc, err := s.Options.CommitForceCompact()
	if !fc || err != nil {
		t.Errorf("CommitForceCompact = %v %v", fc, err)
	}
	if n, _ := s.NumBuckets(); n != 1 {
		t.Errorf("bucket = %d", n)
	}
}

func TestDecodeFirstRowAndAppend(t *testing.T) {
	s := decodeFixture(t, "pk_table_scan_and_read_first_row_parquet/schema/schema-0")
	me, err := s.Options.MergeEngine()
	if me != MergeFirstRow || err != nil {
		t.Errorf("MergeEngine = %q %v", me, err)
	}
	if ig, err := s.Options.IgnoreDelete(); !ig || err != nil {
		t.Errorf("IgnoreDelete = %v %v", ig, err)
	}
	if got := s.BucketKeys(); !slices.Equal(got, []string{"f2"}) {
		t.Errorf("BucketKeys = %q", got)
	}
	if got := s.TrimmedPrimaryKeys(); !slices.Equal(got, []string{"f0", "f2"}) {
		t.Errorf("TrimmedPrimaryKeys = %q", got)
	}

	a := decodeFixture(t, "append_table_with_rt_branch_parquet/schema/schema-1")
	if n, _ := a.NumBuckets(); n != -1 {
		t.Errorf("append bucket = %d", n)
	}
	if got := a.BucketKeys(); len(got) != 0 {
		t.Errorf("append BucketKeys = %q", got)
	}
	if fb := a.Options.ScanFallbackBranch(); fb != "rt" {
		t.Errorf("ScanFallbackBranch = %q", fb)
	}
	b := decodeFixture(t, "append_table_with_rt_branch_parquet/branch/branch-rt/schema/schema-1")
	if got := b.PrimaryKeys; !slices.Equal(got, []string{"dt", "name"}) {
		t.Errorf("branch PrimaryKeys = %q", got)
	}
	if n, _ := b.NumBuckets(); n != 2 {
		t.Errorf("branch bucket = %d", n)
	}
}

// Old-version defaults: missing version = 1 means bucket=1 and file.format=orc;
// version 2 only adds the orc default.
func TestDecodeOldVersions(t *testing.T) {
	v1 := `{"id":0,"fields":[{"id":0,"name":"a","type":"INT"}],"highestFieldId":0,` +
		`"partitionKeys":[],"primaryKeys":[],"options":{}}`
	s, err := Decode([]byte(v1))
	if err != nil {
		t.Fatal(err)
	}
	if s.Version != 1 || s.Options["bucket"] != "1" || s.Options["file.format"] != "orc" || s.TimeMillis != 0 {
		t.Errorf("v1 = %d %v %d", s.Version, s.Options, s.TimeMillis)
	}
	v2 := `{"version":2,"id":3,"fields":[],"highestFieldId":-1,"partitionKeys":[],"primaryKeys":[],` +
		`"options":{"bucket":"4"},"comment":"c","timeMillis":5}`
	s, err = Decode([]byte(v2))
	if err != nil {
		t.Fatal(err)
	}
	if s.Options["bucket"] != "4" || s.Options["file.format"] != "orc" || s.Comment != "c" || s.TimeMillis != 5 || s.ID != 3 {
		t.Errorf("v2 = %v %q %d", s.Options, s.Comment, s.TimeMillis)
	}
	v3 := `{"version":3,"id":0,"fields":[],"highestFieldId":-1,"partitionKeys":[],"primaryKeys":[],"options":{}}`
	s, err = Decode([]byte(v3))
	if err != nil {
		t.Fatal(err)
	}
	if len(s.Options) != 0 || s.Options.FileFormat() != "parquet" {
		t.Errorf("v3 options = %v", s.Options)
	}
	if n, _ := s.NumBuckets(); n != -1 {
		t.Errorf("v3 bucket = %d", n)
	}
}

func TestEncodeCommentAndNewOptions(t *testing.T) {
	s, err := New([]types.DataField{
		{Name: "id", Type: types.BigInt().NotNull()},
		{Name: "r", Type: types.RowOf(types.DataField{Name: "x", Type: types.String(), Description: "the \"x\""})},
	}, false, nil, []string{"id"}, map[string]string{"bucket": "2", "a": "1"}, "tbl", 42)
	if err != nil {
		t.Fatal(err)
	}
	out, err := s.Encode()
	if err != nil {
		t.Fatal(err)
	}
	want := `{
  "version" : 3,
  "id" : 0,
  "fields" : [ {
    "id" : 0,
    "name" : "id",
    "type" : "BIGINT NOT NULL"
  }, {
    "id" : 1,
    "name" : "r",
    "type" : {
      "type" : "ROW",
      "fields" : [ {
        "id" : 2,
        "name" : "x",
        "type" : "STRING",
        "description" : "the \"x\""
      } ]
    }
  } ],
  "highestFieldId" : 2,
  "partitionKeys" : [ ],
  "primaryKeys" : [ "id" ],
  "options" : {
    "a" : "1",
    "bucket" : "2"
  },
  "comment" : "tbl",
  "timeMillis" : 42
}`
	if string(out) != want {
		t.Errorf("got\n%s\nwant\n%s", out, want)
	}
	back, err := Decode(out)
	if err != nil {
		t.Fatal(err)
	}
	if back.Comment != "tbl" || back.HighestFieldID != 2 || !back.Fields[1].Equal(s.Fields[1]) {
		t.Errorf("round trip = %+v", back)
	}
	// an empty options object prints as Jackson does
	s.Options = Options{}
	out, _ = s.Encode()
	if !strings.Contains(string(out), `"options" : { },`) {
		t.Errorf("empty options: %s", out)
	}
}

func TestDecodeErrors(t *testing.T) {
	corrupt := []string{
		``, `[]`, `{"id":0}`, `{"fields":[]}`, `{"id":"x","fields":[]}`,
		`{"id":0,"fields":[{"id":0,"name":"a","type":"NOPE"}]}`,
		`{"id":0,"fields":[],"options":{"a":{"b":1}}}`,
		`{"id":0,"fields":[],"options":[1]}`,
	}
	for _, c := range corrupt {
		if _, err := Decode([]byte(c)); !errors.Is(err, ErrCorrupt) {
			t.Errorf("Decode(%s) = %v, want ErrCorrupt", c, err)
		}
	}
	f := `{"id":0,"fields":[{"id":0,"name":"a","type":"INT"},{"id":1,"name":"b","type":"INT"}],"highestFieldId":1,`
	invalid := []string{
		f + `"partitionKeys":["x"],"primaryKeys":[],"options":{}}`,
		f + `"partitionKeys":[],"primaryKeys":["x"],"options":{}}`,
		f + `"partitionKeys":["a"],"primaryKeys":["a"],"options":{}}`,
		f + `"partitionKeys":[],"primaryKeys":[],"options":{"bucket-key":"x"}}`,
		f + `"partitionKeys":["a"],"primaryKeys":[],"options":{"bucket-key":"a"}}`,
		f + `"partitionKeys":[],"primaryKeys":["a"],"options":{"bucket-key":"b"}}`,
		f + `"partitionKeys":[],"primaryKeys":[],"options":{"bucket":"two"}}`,
		`{"id":0,"fields":[{"id":0,"name":"a","type":"INT"},{"id":0,"name":"b","type":"INT"}],"highestFieldId":1,"partitionKeys":[],"primaryKeys":[]}`,
		`{"id":0,"fields":[{"id":0,"name":"a","type":"INT"},{"id":1,"name":"a","type":"INT"}],"highestFieldId":1,"partitionKeys":[],"primaryKeys":[]}`,
		`{"id":0,"fields":[{"id":5,"name":"a","type":"INT"}],"highestFieldId":1,"partitionKeys":[],"primaryKeys":[]}`,
		`{"id":0,"fields":[{"id":0,"name":"a","type":{"type":"ROW","fields":[{"id":0,"name":"x","type":"INT"}]}}],"highestFieldId":1,"partitionKeys":[],"primaryKeys":[]}`,
	}
	for _, k := range []string{"partitionKeys", "primaryKeys"} {
		damaged := strings.Replace(f+`"partitionKeys":[],"primaryKeys":[],"options":{}}`, `"`+k+`"`, `"x"`, 1)
		if _, err := Decode([]byte(damaged)); !errors.Is(err, ErrCorrupt) || !strings.Contains(err.Error(), k) {
			t.Errorf("Decode without %s = %v, want ErrCorrupt naming it", k, err)
		}
	}
	for _, c := range invalid {
		if _, err := Decode([]byte(c)); !errors.Is(err, ErrInvalidSchema) {
			t.Errorf("Decode(%s) = %v, want ErrInvalidSchema", c, err)
		}
	}
}

func TestFileNames(t *testing.T) {
	if FileName(12) != "schema-12" {
		t.Error(FileName(12))
	}
	for name, want := range map[string]int64{"schema-0": 0, "schema-17": 17} {
		if id, ok := ParseFileName(name); !ok || id != want {
			t.Errorf("ParseFileName(%q) = %d %v", name, id, ok)
		}
	}
	for _, bad := range []string{"schema-", "schema--1", "schema-1.tmp", ".schema-1.uuid.tmp", "snapshot-1", "schema-x"} {
		if _, ok := ParseFileName(bad); ok {
			t.Errorf("ParseFileName(%q) accepted", bad)
		}
	}
}

func TestPrettyJSON(t *testing.T) {
	got, err := PrettyJSON([]byte(`{"a":[],"b":{},"c":[1,"x",{"d":null,"e":[true,false]}],"f":"\u00e9\u0001/"}`))
	if err != nil {
		t.Fatal(err)
	}
	want := "{\n  \"a\" : [ ],\n  \"b\" : { },\n  \"c\" : [ 1, \"x\", {\n    \"d\" : null,\n    \"e\" : [ true, false ]\n  } ],\n  \"f\" : \"é\\u0001/\"\n}"
	if string(got) != want {
		t.Errorf("got\n%s\nwant\n%s", got, want)
	}
	for _, bad := range []string{`{`, `{"a":1}x`, `{"a"}`} {
		if _, err := PrettyJSON([]byte(bad)); err == nil {
			t.Errorf("PrettyJSON(%s) accepted", bad)
		}
	}
}

func TestJSONMarshalers(t *testing.T) {
	s := decodeFixture(t, "pk_09_parquet/schema/schema-0")
	raw, err := json.Marshal(s)
	if err != nil {
		t.Fatal(err)
	}
	var back TableSchema
	if err := json.Unmarshal(raw, &back); err != nil {
		t.Fatal(err)
	}
	a, _ := s.Encode()
	b, _ := back.Encode()
	if !bytes.Equal(a, b) {
		t.Errorf("round trip through encoding/json differs:\n%s\n%s", a, b)
	}
	if err := json.Unmarshal([]byte(`{"id":0}`), &back); !errors.Is(err, ErrCorrupt) {
		t.Errorf("Unmarshal bad = %v", err)
	}
}
