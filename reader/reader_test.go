package reader_test

import (
	"bytes"
	"context"
	"errors"
	"io/fs"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/apache/arrow-go/v18/arrow"

	"github.com/paimon-go/paimon"
	"github.com/paimon-go/paimon/deletionvector"
	"github.com/paimon-go/paimon/format"
	"github.com/paimon-go/paimon/internal/fixture"
	"github.com/paimon-go/paimon/manifest"
	"github.com/paimon-go/paimon/reader"
	"github.com/paimon-go/paimon/rowfmt"
	"github.com/paimon-go/paimon/snapshot"
	"github.com/paimon-go/paimon/types"
)

// readJSONL plans and reads a table and returns its rows as sorted JSONL
// lines.
func readJSONL(t *testing.T, dir string, opts ...reader.Option) (*reader.Plan, []string) {
	t.Helper()
	ctx := context.Background()
	tbl, err := paimon.OpenTable(ctx, dir)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { tbl.Close() })
	plan, err := tbl.NewScan(opts...).Plan(ctx)
	if err != nil {
		t.Fatal(err)
	}
	var buf bytes.Buffer
	w, err := rowfmt.NewWriter(&buf, rowfmt.JSONL, &rowfmt.Options{Fields: plan.Fields})
	if err != nil {
		t.Fatal(err)
	}
	for rec, err := range plan.Records(ctx) {
		if err != nil {
			t.Fatal(err)
		}
		if err := w.Write(rec); err != nil {
			t.Fatal(err)
		}
		rec.Release()
	}
	if err := w.Close(); err != nil {
		t.Fatal(err)
	}
	lines := strings.Split(strings.TrimSpace(buf.String()), "\n")
	if lines[0] == "" {
		lines = nil
	}
	slices.Sort(lines)
	return plan, lines
}

func TestTagReadsTaggedSnapshot(t *testing.T) {
	dir := fixture.Dir(t, "pk_table_scan_and_read_dv_orc")
	plan, byTag := readJSONL(t, dir, reader.WithTag("1"), reader.WithAllLevels())
	if plan.Snapshot.ID != 1 {
		t.Fatalf("tag 1 read snapshot %d, want 1", plan.Snapshot.ID)
	}
	_, bySnapshot := readJSONL(t, dir, reader.WithSnapshot(1), reader.WithAllLevels())
	if len(byTag) != 9 || !slices.Equal(byTag, bySnapshot) {
		t.Fatalf("tag rows (%d) differ from snapshot-1 rows (%d):\n%v\n%v", len(byTag), len(bySnapshot), byTag, bySnapshot)
	}
	// The default batch read skips level 0 of a deletion-vector table, and
	// snapshot 1 has only level-0 files.
	_, batch := readJSONL(t, dir, reader.WithTag("1"))
	if len(batch) != 0 {
		t.Fatalf("batch read of tag 1 returned %d rows, want 0", len(batch))
	}
	_, err := paimonScan(t, dir, reader.WithTag("no-such-tag"))
	if !errors.Is(err, reader.ErrNoSnapshot) {
		t.Fatalf("missing tag: err = %v, want ErrNoSnapshot", err)
	}
}

func paimonScan(t *testing.T, dir string, opts ...reader.Option) (*reader.Plan, error) {
	t.Helper()
	ctx := context.Background()
	tbl, err := paimon.OpenTable(ctx, dir)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { tbl.Close() })
	return tbl.NewScan(opts...).Plan(ctx)
}

func TestTimestampPicksEarlierOrEqualSnapshot(t *testing.T) {
	dir := fixture.Dir(t, "pk_09_parquet")
	// snapshot 3 was committed at 2025-08-21T06:43:45.364Z, snapshot 4 at .382Z.
	at := time.Date(2025, 8, 21, 6, 43, 45, 370_000_000, time.UTC)
	plan, err := paimonScan(t, dir, reader.WithTimestamp(at))
	if err != nil {
		t.Fatal(err)
	}
	if plan.Snapshot.ID != 3 {
		t.Fatalf("timestamp %s read snapshot %d, want 3", at, plan.Snapshot.ID)
	}
	_, err = paimonScan(t, dir, reader.WithTimestamp(at.Add(-time.Hour)))
	if !errors.Is(err, reader.ErrNoSnapshot) {
		t.Fatalf("timestamp before the first snapshot: err = %v, want ErrNoSnapshot", err)
	}
}

func TestRecordReaderAndProjection(t *testing.T) {
	ctx := context.Background()
	tbl, err := paimon.OpenTable(ctx, fixture.Dir(t, "pk_table_scan_and_read_mor_parquet"))
	if err != nil {
		t.Fatal(err)
	}
	defer tbl.Close()
	plan, err := tbl.NewScan(reader.WithColumns("f3", "f0"), reader.WithWhere("f1 = 20")).Plan(ctx)
	if err != nil {
		t.Fatal(err)
	}
	rr := plan.RecordReader(ctx)
	defer rr.Release()
	want := map[string]float64{"Lucy": 14.1, "Paul": 18.1}
	got := map[string]float64{}
	for rr.Next() {
		rec := rr.RecordBatch()
		if rec.Schema().Field(0).Name != "f3" || rec.Schema().Field(1).Name != "f0" {
			t.Fatalf("schema %v, want f3, f0", rec.Schema())
		}
		f3 := rec.Column(0).(interface{ Value(int) float64 })
		f0 := rec.Column(1).(interface{ Value(int) string })
		for i := 0; i < int(rec.NumRows()); i++ {
			got[f0.Value(i)] = f3.Value(i)
		}
	}
	if err := rr.Err(); err != nil {
		t.Fatal(err)
	}
	if len(got) != len(want) || got["Lucy"] != want["Lucy"] || got["Paul"] != want["Paul"] {
		t.Fatalf("rows %v, want %v", got, want)
	}
	_, err = tbl.NewScan(reader.WithColumns("f0", "nope")).Plan(ctx)
	if want := `reader: invalid scan: no column "nope" in the table (columns f0, f1, f2, f3)`; !errors.Is(err, reader.ErrInvalidScan) || err.Error() != want {
		t.Fatalf("unknown column: err = %v, want ErrInvalidScan %q", err, want)
	}
}

// readAll reads every row of a table and returns the first error.
func readAll(t *testing.T, dir string, opts ...reader.Option) error {
	t.Helper()
	ctx := context.Background()
	tbl, err := paimon.OpenTable(ctx, dir)
	if err != nil {
		return err
	}
	defer tbl.Close()
	plan, err := tbl.NewScan(opts...).Plan(ctx)
	if err != nil {
		return err
	}
	var recs []arrow.RecordBatch
	defer func() {
		for _, r := range recs {
			r.Release()
		}
	}()
	for rec, err := range plan.Records(ctx) {
		if err != nil {
			return err
		}
		recs = append(recs, rec)
	}
	return nil
}

func onlyFile(t *testing.T, pattern string) string {
	t.Helper()
	m, err := filepath.Glob(pattern)
	if err != nil || len(m) == 0 {
		t.Fatalf("no file matches %s", pattern)
	}
	slices.Sort(m)
	return m[0]
}

func truncate(t *testing.T, path string, keep int) {
	t.Helper()
	data, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(path, data[:min(keep, len(data))], 0o644); err != nil {
		t.Fatal(err)
	}
}

// TestBadInput damages copies of fixture tables and checks that each damage
// gives a typed error naming the file, never a panic or wrong rows.
func TestBadInput(t *testing.T) {
	cases := []struct {
		name   string
		table  string
		damage func(t *testing.T, dir string) string // returns the damaged file's base name
		want   error
	}{
		{"missing data file", "pk_table_scan_and_read_mor_parquet", func(t *testing.T, dir string) string {
			f := onlyFile(t, filepath.Join(dir, "f1=20", "bucket-0", "*.parquet"))
			if err := os.Remove(f); err != nil {
				t.Fatal(err)
			}
			return filepath.Base(f)
		}, fs.ErrNotExist},
		{"truncated data file", "pk_table_scan_and_read_mor_parquet", func(t *testing.T, dir string) string {
			f := onlyFile(t, filepath.Join(dir, "f1=20", "bucket-0", "*.parquet"))
			truncate(t, f, 100)
			return filepath.Base(f)
		}, format.ErrCorrupt},
		{"truncated manifest", "pk_table_scan_and_read_mor_parquet", func(t *testing.T, dir string) string {
			for _, f := range mustGlob(t, filepath.Join(dir, "manifest", "manifest-[0-9a-f]*")) {
				truncate(t, f, 40)
			}
			return "manifest-"
		}, manifest.ErrCorrupt},
		{"corrupt snapshot", "pk_table_scan_and_read_mor_parquet", func(t *testing.T, dir string) string {
			if err := os.WriteFile(filepath.Join(dir, "snapshot", "snapshot-5"), []byte(`{"version": 3, "id": `), 0o644); err != nil {
				t.Fatal(err)
			}
			return "snapshot-5"
		}, snapshot.ErrCorrupt},
		{"corrupt deletion vector", "pk_09_parquet", func(t *testing.T, dir string) string {
			f := filepath.Join(dir, "index", "index-ff7801ad-df90-49b2-9619-586eab9c68e3-1")
			data, err := os.ReadFile(f)
			if err != nil {
				t.Fatal(err)
			}
			data[len(data)-1] ^= 0xff // break the checksum
			if err := os.WriteFile(f, data, 0o644); err != nil {
				t.Fatal(err)
			}
			return filepath.Base(f)
		}, deletionvector.ErrCorrupt},
		{"unknown type", "append_10_parquet", func(t *testing.T, dir string) string {
			f := filepath.Join(dir, "schema", "schema-0")
			data, err := os.ReadFile(f)
			if err != nil {
				t.Fatal(err)
			}
			data = bytes.Replace(data, []byte(`"INT"`), []byte(`"HYPERINT"`), 1)
			if err := os.WriteFile(f, data, 0o644); err != nil {
				t.Fatal(err)
			}
			return "schema-0"
		}, types.ErrUnknownType},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			dir := fixture.Copy(t, c.table)
			name := c.damage(t, dir)
			err := readAll(t, dir)
			if !errors.Is(err, c.want) {
				t.Fatalf("err = %v, want %v", err, c.want)
			}
			if !strings.Contains(err.Error(), name) {
				t.Fatalf("error %q does not name %s", err, name)
			}
		})
	}
}

func mustGlob(t *testing.T, pattern string) []string {
	t.Helper()
	m, err := filepath.Glob(pattern)
	if err != nil || len(m) == 0 {
		t.Fatalf("no file matches %s", pattern)
	}
	return m
}

// TestLatestReadUsesLatestSchema: a column added after the last commit is
// part of a latest read (as null), while time travel keeps the snapshot's
// own schema (Java AbstractFileStoreTable.copyInternal).
func TestLatestReadUsesLatestSchema(t *testing.T) {
	dir := fixture.Copy(t, "pk_table_scan_and_read_mor_parquet")
	data, err := os.ReadFile(filepath.Join(dir, "schema", "schema-0"))
	if err != nil {
		t.Fatal(err)
	}
	// schema-1 = schema-0 plus a nullable column f4 (id 4).
	s1 := bytes.Replace(data, []byte(`"id" : 0,`), []byte(`"id" : 1,`), 1)
	s1 = bytes.Replace(s1, []byte(`"type" : "DOUBLE"
  } ]`), []byte(`"type" : "DOUBLE"
  }, {
    "id" : 4,
    "name" : "f4",
    "type" : "INT"
  } ]`), 1)
	s1 = bytes.Replace(s1, []byte(`"highestFieldId" : 3`), []byte(`"highestFieldId" : 4`), 1)
	if bytes.Equal(s1, data) || !bytes.Contains(s1, []byte(`"f4"`)) {
		t.Fatalf("could not build schema-1 from:\n%s", data)
	}
	if err := os.WriteFile(filepath.Join(dir, "schema", "schema-1"), s1, 0o644); err != nil {
		t.Fatal(err)
	}
	plan, rows := readJSONL(t, dir, reader.WithWhere("f0 = 'Paul'"))
	if plan.Schema.ID != 1 || len(rows) != 1 || rows[0] != `{"f0":"Paul","f1":20,"f2":1,"f3":18.1,"f4":null}` {
		t.Fatalf("latest read: schema %d rows %v", plan.Schema.ID, rows)
	}
	plan, rows = readJSONL(t, dir, reader.WithSnapshot(5), reader.WithWhere("f0 = 'Paul'"))
	if plan.Schema.ID != 0 || len(rows) != 1 || rows[0] != `{"f0":"Paul","f1":20,"f2":1,"f3":18.1}` {
		t.Fatalf("time travel: schema %d rows %v", plan.Schema.ID, rows)
	}
}

// TestDamagedLatest: a LATEST hint that names a missing snapshot (past the
// end, or the latest snapshot deleted, as an interrupted rollback leaves it)
// resolves to the latest snapshot that exists (issue 12), never to an error
// that blocks every read, nor to an empty table.
func TestDamagedLatest(t *testing.T) {
	for name, tc := range map[string]struct {
		damage func(dir string) error
		want   int64
	}{
		"hint past the end": {func(dir string) error {
			return os.WriteFile(filepath.Join(dir, "snapshot", "LATEST"), []byte("99"), 0o644)
		}, 5},
		"latest snapshot deleted": {func(dir string) error {
			return os.Remove(filepath.Join(dir, "snapshot", "snapshot-5"))
		}, 4},
	} {
		t.Run(name, func(t *testing.T) {
			dir := fixture.Copy(t, "pk_table_scan_and_read_mor_parquet")
			_, want := readJSONL(t, dir, reader.WithSnapshot(tc.want))
			if err := tc.damage(dir); err != nil {
				t.Fatal(err)
			}
			plan, got := readJSONL(t, dir)
			if plan.Snapshot == nil || plan.Snapshot.ID != tc.want || !slices.Equal(got, want) || len(got) == 0 {
				t.Fatalf("read snapshot %v rows %v; want snapshot %d rows %v", plan.Snapshot, got, tc.want, want)
			}
		})
	}
}
