package snapshot

import (
	"bytes"
	"context"
	"errors"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"
	"time"

	"github.com/paimon-go/paimon/fileio"
)

const fixtures = "../testdata/paimon-tables"

func fixtureSnapshots(t testing.TB) []string {
	t.Helper()
	var out []string
	for _, p := range []string{"*/snapshot/snapshot-*", "*/branch/*/snapshot/snapshot-*"} {
		m, err := filepath.Glob(filepath.Join(fixtures, p))
		if err != nil {
			t.Fatal(err)
		}
		out = append(out, m...)
	}
	if len(out) != 60 {
		t.Fatalf("found %d fixture snapshots, want 60", len(out))
	}
	return out
}

// TestFixturesReencodeExactly decodes every Java-written snapshot and encodes it again: the
// output equals the file byte for byte, except that the explicit `"changelogManifestList" : null`
// of Paimon ≤ 1.3 is omitted as Java HEAD does.
func TestFixturesReencodeExactly(t *testing.T) {
	for _, p := range fixtureSnapshots(t) {
		data, err := os.ReadFile(p)
		if err != nil {
			t.Fatal(err)
		}
		s, err := Decode(data)
		if err != nil {
			t.Fatalf("%s: %v", p, err)
		}
		got, err := s.Encode()
		if err != nil {
			t.Fatal(err)
		}
		want := strings.Replace(string(data), "  \"changelogManifestList\" : null,\n", "", 1)
		if string(got) != want {
			t.Errorf("%s: re-encoded differs\n got: %s\nwant: %s", p, got, want)
		}
		if len(s.ExtraKeys()) != 0 {
			t.Errorf("%s: unexpected unknown keys %v", p, s.ExtraKeys())
		}
	}
}

func TestDecodeValues(t *testing.T) {
	data, err := os.ReadFile(filepath.Join(fixtures, "pk_09_parquet/snapshot/snapshot-8"))
	if err != nil {
		t.Fatal(err)
	}
	s, err := Decode(data)
	if err != nil {
		t.Fatal(err)
	}
	idx := "index-manifest-03e2700b-8409-499b-8c27-a09ccee9348c-1"
	zero := int64(0)
	want := &Snapshot{
		Version: 3, ID: 8, SchemaID: 0,
		BaseManifestList:     "manifest-list-c63559b0-8ebb-4bf9-8e0c-91062d5e7391-14",
		DeltaManifestList:    "manifest-list-c63559b0-8ebb-4bf9-8e0c-91062d5e7391-15",
		IndexManifest:        &idx,
		CommitUser:           "89dae1be-f758-4f87-a431-f0cae74c24b1",
		CommitIdentifier:     4,
		CommitKind:           KindCompact,
		TimeMillis:           1755758625645,
		LogOffsets:           map[int32]int64{},
		TotalRecordCount:     10,
		DeltaRecordCount:     -3,
		ChangelogRecordCount: &zero,
	}
	if !reflect.DeepEqual(s, want) {
		t.Errorf("got %+v\nwant %+v", s, want)
	}

	// Batch commits use Long.MAX_VALUE as identifier; it must survive without float64.
	data, err = os.ReadFile(filepath.Join(fixtures, "append_09_parquet/snapshot/snapshot-1"))
	if err != nil {
		t.Fatal(err)
	}
	s, err = Decode(data)
	if err != nil || s.CommitIdentifier != 9223372036854775807 {
		t.Errorf("commitIdentifier %d, %v", s.CommitIdentifier, err)
	}
	out, _ := s.Encode()
	if !bytes.Contains(out, []byte(`"commitIdentifier" : 9223372036854775807,`)) {
		t.Errorf("encoded %s", out)
	}
}

// TestFixtureHistories checks the snapshot histories stated in EXPECTED.md.
func TestFixtureHistories(t *testing.T) {
	ctx := context.Background()
	cases := []struct {
		table  string
		kinds  string
		totals []int64
	}{
		{"pk_09_parquet", "ACACACAC", []int64{9, 9, 11, 11, 14, 12, 13, 10}},
		{"pk_table_scan_and_read_dv_parquet", "ACACAA", []int64{9, 9, 11, 10, 13, 16}},
	}
	for _, c := range cases {
		m := NewManager(openDir(t, filepath.Join(fixtures, c.table)))
		list, err := m.List(ctx)
		if err != nil {
			t.Fatal(err)
		}
		var kinds string
		var totals []int64
		for i, s := range list {
			if s.ID != int64(i+1) {
				t.Errorf("%s: snapshot %d has id %d", c.table, i+1, s.ID)
			}
			kinds += string(s.CommitKind[0])
			totals = append(totals, s.TotalRecordCount)
		}
		if kinds != c.kinds || !reflect.DeepEqual(totals, c.totals) {
			t.Errorf("%s: kinds %s totals %v, want %s %v", c.table, kinds, totals, c.kinds, c.totals)
		}
	}
}

func openDir(t *testing.T, dir string) *fileio.FileIO {
	t.Helper()
	fs, err := fileio.Open(context.Background(), dir)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { fs.Close() })
	return fs
}

// copyTable copies the snapshot, tag and branch directories of a fixture into a temp dir.
func copyTable(t *testing.T, table string) string {
	t.Helper()
	dst := t.TempDir()
	src := filepath.Join(fixtures, table)
	err := filepath.WalkDir(src, func(p string, d os.DirEntry, err error) error {
		if err != nil || d.IsDir() {
			return err
		}
		rel, _ := filepath.Rel(src, p)
		if !strings.Contains(rel, "snapshot") && !strings.HasPrefix(rel, "tag") {
			return nil
		}
		data, err := os.ReadFile(p)
		if err != nil {
			return err
		}
		if err := os.MkdirAll(filepath.Join(dst, filepath.Dir(rel)), 0o755); err != nil {
			return err
		}
		return os.WriteFile(filepath.Join(dst, rel), data, 0o644)
	})
	if err != nil {
		t.Fatal(err)
	}
	return dst
}

func TestManagerHints(t *testing.T) {
	ctx := context.Background()
	dir := copyTable(t, "pk_table_scan_and_read_dv_parquet")
	m := NewManager(openDir(t, dir))
	hint := func(name, v string) {
		p := filepath.Join(dir, "snapshot", name)
		if v == "" {
			os.Remove(p)
			return
		}
		if err := os.WriteFile(p, []byte(v), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	check := func(what string, wantLatest, wantEarliest int64) {
		t.Helper()
		l, err := m.LatestID(ctx)
		if err != nil || l != wantLatest {
			t.Errorf("%s: latest %d %v, want %d", what, l, err, wantLatest)
		}
		e, err := m.EarliestID(ctx)
		if err != nil || e != wantEarliest {
			t.Errorf("%s: earliest %d %v, want %d", what, e, err, wantEarliest)
		}
	}
	check("fixture hints", 6, 1)
	hint("LATEST", "3") // stale: snapshot-4 exists
	check("stale LATEST", 6, 1)
	hint("LATEST", "")
	hint("EARLIEST", "")
	check("no hints", 6, 1)
	hint("LATEST", "garbage")
	check("bad LATEST", 6, 1)
	// LATEST is trusted when its successor does not exist (Java does not list then).
	hint("LATEST", "5")
	os.Remove(filepath.Join(dir, "snapshot", "snapshot-6"))
	check("LATEST 5 without 6", 5, 1)
	// Expired head: EARLIEST names a missing snapshot -> smallest listed id.
	os.Remove(filepath.Join(dir, "snapshot", "snapshot-1"))
	os.Remove(filepath.Join(dir, "snapshot", "snapshot-2"))
	check("EARLIEST gone", 5, 3)
	hint("EARLIEST", "2")
	check("EARLIEST stale", 5, 3)
	// A temporary file with the snapshot prefix is not a snapshot.
	hint(".snapshot-9.tmp", "x")
	hint("snapshot-9x", "x")
	ids, err := m.IDs(ctx)
	if err != nil || !reflect.DeepEqual(ids, []int64{3, 4, 5}) {
		t.Errorf("ids %v %v", ids, err)
	}
	s, err := m.Earliest(ctx)
	if err != nil || s.ID != 3 {
		t.Errorf("earliest %v %v", s, err)
	}

	empty := NewManager(openDir(t, t.TempDir()))
	if _, err := empty.LatestID(ctx); !errors.Is(err, ErrNotFound) {
		t.Errorf("empty table latest: %v", err)
	}
	if _, err := empty.Earliest(ctx); !errors.Is(err, ErrNotFound) {
		t.Errorf("empty table earliest: %v", err)
	}
	if _, err := m.Get(ctx, 77); !errors.Is(err, ErrNotFound) || !errors.Is(err, fileio.ErrNotExist) {
		t.Errorf("missing snapshot: %v", err)
	}
}

func TestManagerCommit(t *testing.T) {
	ctx := context.Background()
	dir := copyTable(t, "pk_table_scan_and_read_dv_parquet")
	m := NewManager(openDir(t, dir))
	latest, err := m.Latest(ctx)
	if err != nil {
		t.Fatal(err)
	}
	next := *latest
	next.ID = latest.ID + 1
	next.CommitKind = KindCompact
	next.TimeMillis = latest.TimeMillis + 1000
	next.Properties = map[string]string{"fluss-offsets": "/x/offsets-1"}
	if err := m.Commit(ctx, &next); err != nil {
		t.Fatal(err)
	}
	hint, err := os.ReadFile(filepath.Join(dir, "snapshot", "LATEST"))
	if err != nil || string(hint) != "7" {
		t.Errorf("LATEST hint %q %v", hint, err)
	}
	got, err := m.Latest(ctx)
	if err != nil || !reflect.DeepEqual(got, &next) {
		t.Errorf("latest after commit %+v %v", got, err)
	}
	if err := m.Commit(ctx, &next); !errors.Is(err, ErrExist) || !errors.Is(err, fileio.ErrExist) {
		t.Errorf("second commit of id 7: %v", err)
	}
	raw, _ := os.ReadFile(filepath.Join(dir, "snapshot", "snapshot-7"))
	if !bytes.Contains(raw, []byte("  \"properties\" : {\n    \"fluss-offsets\" : \"/x/offsets-1\"\n  },\n")) {
		t.Errorf("written snapshot %s", raw)
	}
	if err := m.Commit(ctx, &Snapshot{ID: 0}); err == nil {
		t.Error("commit of id 0 accepted")
	}
}

func TestByTimestamp(t *testing.T) {
	ctx := context.Background()
	m := NewManager(openDir(t, filepath.Join(fixtures, "pk_table_scan_and_read_dv_parquet")))
	// timeMillis of snapshots 1..6 from the fixture files.
	times := []int64{1756266171183, 1756266171330, 1756266171485, 1756266171505, 1756266234218, 1756266273434}
	cases := []struct {
		at   int64
		want int64 // 0 = not found
	}{
		{times[0] - 1, 0},
		{times[0], 1},
		{times[0] + 1, 1},
		{times[3], 4},
		{times[4] - 1, 4},
		{times[4], 5},
		{times[5], 6},
		{times[5] + 1e9, 6},
	}
	for _, c := range cases {
		s, err := m.ByTimestamp(ctx, c.at)
		switch {
		case c.want == 0 && !errors.Is(err, ErrNotFound):
			t.Errorf("at %d: %v %v, want ErrNotFound", c.at, s, err)
		case c.want != 0 && (err != nil || s.ID != c.want):
			t.Errorf("at %d: %v %v, want snapshot %d", c.at, s, err, c.want)
		}
	}
}

func TestTagsAndBranches(t *testing.T) {
	ctx := context.Background()
	m := NewManager(openDir(t, filepath.Join(fixtures, "pk_table_scan_and_read_dv_orc")))
	tag, err := m.Tag(ctx, "1")
	if err != nil {
		t.Fatal(err)
	}
	wantTime := time.Date(2026, 2, 4, 6, 8, 10, 12, time.UTC)
	if tag.Name != "1" || tag.ID != 1 || tag.TotalRecordCount != 9 || tag.CommitUser != "1878a813-c3c2-4b83-a32e-5ebddd2ec8f7" ||
		tag.CreateTime == nil || !tag.CreateTime.Equal(wantTime) ||
		tag.TimeRetained == nil || *tag.TimeRetained != 3*time.Second {
		t.Errorf("tag %+v", tag)
	}
	tags, err := m.Tags(ctx)
	if err != nil || len(tags) != 1 || tags[0].Name != "1" {
		t.Errorf("tags %v %v", tags, err)
	}
	enc, err := tag.Encode()
	if err != nil {
		t.Fatal(err)
	}
	if !bytes.HasSuffix(enc, []byte("  \"changelogRecordCount\" : 0,\n  \"tagCreateTime\" : [ 2026, 2, 4, 6, 8, 10, 12 ],\n  \"tagTimeRetained\" : 3.000000000\n}")) {
		t.Errorf("encoded tag %s", enc)
	}
	back, err := DecodeTag(enc)
	if err != nil || !reflect.DeepEqual(back.Snapshot, tag.Snapshot) || !back.CreateTime.Equal(wantTime) || *back.TimeRetained != 3*time.Second {
		t.Errorf("tag round trip %+v %v", back, err)
	}
	if _, err := m.Tag(ctx, "nope"); !errors.Is(err, ErrNotFound) {
		t.Errorf("missing tag: %v", err)
	}

	b := NewManager(openDir(t, filepath.Join(fixtures, "append_table_with_rt_branch_parquet"))).Branch("rt")
	s, err := b.Latest(ctx)
	if err != nil || s.ID != 1 || s.SchemaID != 1 || s.TotalRecordCount != 4 || s.CommitUser != "5b2d5bff-244a-44ae-ae3c-f645ded0991f" {
		t.Errorf("branch rt latest %+v %v", s, err)
	}
	if p := b.Path(1); p != "branch/branch-rt/snapshot/snapshot-1" {
		t.Errorf("branch path %s", p)
	}
	if p := b.Branch("main").Path(2); p != "snapshot/snapshot-2" {
		t.Errorf("main path %s", p)
	}
}

func TestTagTimeForms(t *testing.T) {
	base := `{"version":3,"id":1,"schemaId":0,"baseManifestList":"a","deltaManifestList":"b","commitUser":"u",` +
		`"commitIdentifier":1,"commitKind":"APPEND","timeMillis":1,"totalRecordCount":0,"deltaRecordCount":0`
	cases := []struct {
		ct, tr   string
		wantTime time.Time
		wantDur  time.Duration
	}{
		{`[2024,1,2,3,4]`, `0.0`, time.Date(2024, 1, 2, 3, 4, 0, 0, time.UTC), 0},
		{`[2024,1,2,3,4,5]`, `86400.500000000`, time.Date(2024, 1, 2, 3, 4, 5, 0, time.UTC), 24*time.Hour + 500*time.Millisecond},
		{`"2024-01-02T03:04:05.123"`, `"PT1H30M"`, time.Date(2024, 1, 2, 3, 4, 5, 123e6, time.UTC), 90 * time.Minute},
		{`"2024-01-02T03:04"`, `7`, time.Date(2024, 1, 2, 3, 4, 0, 0, time.UTC), 7 * time.Second},
	}
	for _, c := range cases {
		tag, err := DecodeTag([]byte(base + `,"tagCreateTime":` + c.ct + `,"tagTimeRetained":` + c.tr + `}`))
		if err != nil || !tag.CreateTime.Equal(c.wantTime) || *tag.TimeRetained != c.wantDur {
			t.Errorf("%s %s: %+v %v", c.ct, c.tr, tag, err)
			continue
		}
		enc, _ := tag.Encode()
		back, err := DecodeTag(enc)
		if err != nil || !back.CreateTime.Equal(c.wantTime) || *back.TimeRetained != c.wantDur {
			t.Errorf("%s %s: round trip %s %v", c.ct, c.tr, enc, err)
		}
	}
	for _, bad := range []string{`[2024,13,1,0,0]`, `[2024,2,30,0,0]`, `[2024]`, `"yesterday"`} {
		if _, err := DecodeTag([]byte(base + `,"tagCreateTime":` + bad + `}`)); !errors.Is(err, ErrCorrupt) {
			t.Errorf("tagCreateTime %s: %v", bad, err)
		}
	}
	if got := formatDuration(-1500 * time.Millisecond); got != "-2.500000000" {
		t.Errorf("negative duration %s (Java Duration seconds/nanos form)", got)
	}
}

// TestEncodeAllFields checks HEAD's key order and Jackson formatting for a snapshot using every
// field, and that unknown keys come back after the known ones with their values intact.
func TestEncodeAllFields(t *testing.T) {
	str := func(s string) *string { return &s }
	i64 := func(v int64) *int64 { return &v }
	s := &Snapshot{
		Version: 3, UUID: str("u-1"), ID: 12, SchemaID: 2,
		BaseManifestList: "b", BaseManifestListSize: i64(10), DeltaManifestList: "d", DeltaManifestListSize: i64(11),
		ChangelogManifestList: str("c"), ChangelogManifestListSize: i64(12), IndexManifest: str("i"),
		CommitUser: "user \"q\"\n\x01", WriterVersion: str("2.1"), CommitIdentifier: -9223372036854775808,
		CommitKind: KindOverwrite, TimeMillis: 1, LogOffsets: map[int32]int64{1: 5, 0: 4},
		TotalRecordCount: 3, DeltaRecordCount: -3, ChangelogRecordCount: i64(0), Watermark: i64(-9223372036854775808),
		Statistics: str("stat-1"), Properties: map[string]string{"b": "2", "a": "é"}, NextRowID: i64(0), Operation: str("DELETE"),
	}
	want := `{
  "version" : 3,
  "uuid" : "u-1",
  "id" : 12,
  "schemaId" : 2,
  "baseManifestList" : "b",
  "baseManifestListSize" : 10,
  "deltaManifestList" : "d",
  "deltaManifestListSize" : 11,
  "changelogManifestList" : "c",
  "changelogManifestListSize" : 12,
  "indexManifest" : "i",
  "commitUser" : "user \"q\"\n\u0001",
  "writerVersion" : "2.1",
  "commitIdentifier" : -9223372036854775808,
  "commitKind" : "OVERWRITE",
  "timeMillis" : 1,
  "logOffsets" : {
    "0" : 4,
    "1" : 5
  },
  "totalRecordCount" : 3,
  "deltaRecordCount" : -3,
  "changelogRecordCount" : 0,
  "watermark" : -9223372036854775808,
  "statistics" : "stat-1",
  "properties" : {
    "a" : "é",
    "b" : "2"
  },
  "nextRowId" : 0,
  "operation" : "DELETE"
}`
	got, err := s.Encode()
	if err != nil || string(got) != want {
		t.Fatalf("encode %v\n got: %s\nwant: %s", err, got, want)
	}
	back, err := Decode(got)
	if err != nil || !reflect.DeepEqual(back, s) {
		t.Errorf("decode %+v %v", back, err)
	}

	in := `{"version":3,"id":1,"future":{"a":[1,2.50,{"x":null}],"b":{}},"schemaId":0,"empty":[],"n":1.0E10,` +
		`"baseManifestList":"b","deltaManifestList":"d","commitUser":"u","commitIdentifier":1,"commitKind":"APPEND",` +
		`"timeMillis":5,"totalRecordCount":0,"deltaRecordCount":0}`
	s, err = Decode([]byte(in))
	if err != nil {
		t.Fatal(err)
	}
	if !reflect.DeepEqual(s.ExtraKeys(), []string{"future", "empty", "n"}) || string(s.Extra("n")) != "1.0E10" {
		t.Errorf("extra %v %s", s.ExtraKeys(), s.Extra("n"))
	}
	got, _ = s.Encode()
	wantTail := `  "deltaRecordCount" : 0,
  "future" : {
    "a" : [ 1, 2.50, {
      "x" : null
    } ],
    "b" : { }
  },
  "empty" : [ ],
  "n" : 1.0E10
}`
	if !strings.HasSuffix(string(got), wantTail) {
		t.Errorf("unknown keys\n got: %s\nwant tail: %s", got, wantTail)
	}
	// Version 1 snapshots have no version key and no record counts.
	v1, err := Decode([]byte(`{"id":1,"schemaId":0,"baseManifestList":"b","deltaManifestList":"d","commitUser":"u","commitIdentifier":1,"commitKind":"APPEND","timeMillis":5}`))
	if err != nil || v1.Version != 0 || v1.ID != 1 {
		t.Errorf("v1 %+v %v", v1, err)
	}
}

func TestDecodeErrors(t *testing.T) {
	for _, in := range []string{
		``, `[]`, `{`, `{"id":1}x`, `{"id":1.5}`, `{"id":"x"}`, `{"id":9223372036854775808}`,
		`{"version":4294967296}`, `{"commitUser":5}`, `{"logOffsets":{"x":1}}`, `{"logOffsets":[]}`,
		`{"properties":{"a":1}}`, `{"changelogRecordCount":true}`,
	} {
		if _, err := Decode([]byte(in)); !errors.Is(err, ErrCorrupt) {
			t.Errorf("%q: %v", in, err)
		}
	}
	// Jackson accepts integers in strings and explicit nulls.
	const required = `"schemaId":0,"baseManifestList":"b","deltaManifestList":"d","commitUser":"u","commitIdentifier":1,"commitKind":"APPEND","timeMillis":0`
	s, err := Decode([]byte(`{"id":"7","watermark":null,"indexManifest":null,` + required + `}`))
	if err != nil || s.ID != 7 || s.Watermark != nil || s.IndexManifest != nil {
		t.Errorf("lenient forms: %+v %v", s, err)
	}
	// A snapshot without one of its required keys is damaged.
	for _, k := range []string{"schemaId", "baseManifestList", "deltaManifestList", "commitKind"} {
		damaged := strings.Replace(`{"id":7,`+required+`}`, `"`+k+`"`, `"x"`, 1)
		if _, err := Decode([]byte(damaged)); !errors.Is(err, ErrCorrupt) || !strings.Contains(err.Error(), k) {
			t.Errorf("without %s: err = %v, want ErrCorrupt naming it", k, err)
		}
	}
	// The manager names the corrupt file.
	dir := t.TempDir()
	os.MkdirAll(filepath.Join(dir, "snapshot"), 0o755)
	os.WriteFile(filepath.Join(dir, "snapshot", "snapshot-1"), []byte(`{"id":`), 0o644)
	_, err = NewManager(openDir(t, dir)).Get(context.Background(), 1)
	if !errors.Is(err, ErrCorrupt) || !strings.Contains(err.Error(), "snapshot/snapshot-1") {
		t.Errorf("corrupt file: %v", err)
	}
}

// FuzzDecode decodes arbitrary snapshot JSON; decoding must not panic, errors must wrap
// ErrCorrupt, and Encode must be stable: Encode(Decode(Encode(s))) == Encode(s).
func FuzzDecode(f *testing.F) {
	for _, p := range fixtureSnapshots(f) {
		data, err := os.ReadFile(p)
		if err == nil {
			f.Add(data)
		}
	}
	f.Add([]byte(`{"x":{"y":[1,2,{"z":"\u0001"}]},"properties":{"a":"b"},"logOffsets":{"3":4}}`))
	f.Fuzz(func(t *testing.T, data []byte) {
		s, err := Decode(data)
		if err != nil {
			if !errors.Is(err, ErrCorrupt) {
				t.Fatalf("error %v does not wrap ErrCorrupt", err)
			}
			return
		}
		enc, err := s.Encode()
		if err != nil {
			t.Fatalf("encode: %v", err)
		}
		s2, err := Decode(enc)
		if err != nil {
			t.Fatalf("decode of encoded: %v\n%s", err, enc)
		}
		enc2, err := s2.Encode()
		if err != nil || !bytes.Equal(enc, enc2) {
			t.Fatalf("unstable encoding %v\n%s\n%s", err, enc, enc2)
		}
		if _, err := DecodeTag(data); err != nil && !errors.Is(err, ErrCorrupt) {
			t.Fatalf("tag error %v", err)
		}
	})
}

// *fileio.FileIO is the file system the Manager is used with.
var _ FS = (*fileio.FileIO)(nil)
