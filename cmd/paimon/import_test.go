package main

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/paimon-go/paimon/catalog"
	"github.com/paimon-go/paimon/fileio"
	"github.com/paimon-go/paimon/format"
	"github.com/paimon-go/paimon/format/parquet"
	"github.com/paimon-go/paimon/internal/fixture"
	"github.com/paimon-go/paimon/rowfmt"
	"github.com/paimon-go/paimon/schema"
	"github.com/paimon-go/paimon/types"
	"github.com/paimon-go/paimon/writer"
)

func mustRun(t *testing.T, args ...string) string {
	t.Helper()
	out, err := run(t, args...)
	if err != nil {
		t.Fatalf("paimon %s: %v", strings.Join(args, " "), err)
	}
	return out
}

func sortedLines(s string) []string {
	s = strings.TrimSuffix(s, "\n")
	if s == "" {
		return nil
	}
	lines := strings.Split(s, "\n")
	slices.Sort(lines)
	return lines
}

func readSchema(t *testing.T, tableDir string) *schema.TableSchema {
	t.Helper()
	fio, err := fileio.Open(context.Background(), tableDir)
	if err != nil {
		t.Fatal(err)
	}
	defer fio.Close()
	ts, err := schema.NewManager(fio, "").Latest(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	return ts
}

func TestCreateInWarehouse(t *testing.T) {
	wh := t.TempDir()
	table := filepath.Join(wh, "shop.db", "orders")
	out := mustRun(t, "create", table,
		"--column", "id:BIGINT", "--column", "dt:STRING", "--column", "amount:DECIMAL(10, 2)",
		"--column", "note:VARCHAR(20) NOT NULL",
		"--primary-key", "id,dt", "--partition", "dt", "--bucket", "4",
		"--option", "merge-engine=partial-update", "--option", "write-buffer-size=64 mb", "--comment", "orders")
	ts := readSchema(t, table)
	printed, err := ts.Encode()
	if err != nil {
		t.Fatal(err)
	}
	if out != string(printed)+"\n" {
		t.Errorf("printed schema differs from schema-0:\n%s\nvs\n%s", out, printed)
	}
	want := "0:id BIGINT NOT NULL, 1:dt STRING NOT NULL, 2:amount DECIMAL(10, 2), 3:note VARCHAR(20) NOT NULL"
	var got []string
	for _, f := range ts.Fields {
		got = append(got, fmt.Sprintf("%d:%s %s", f.ID, f.Name, f.Type))
	}
	if strings.Join(got, ", ") != want {
		t.Errorf("fields = %s, want %s", strings.Join(got, ", "), want)
	}
	if !slices.Equal(ts.PrimaryKeys, []string{"id", "dt"}) || !slices.Equal(ts.PartitionKeys, []string{"dt"}) ||
		ts.Options["bucket"] != "4" || ts.Options["merge-engine"] != "partial-update" ||
		ts.Options["write-buffer-size"] != "64 mb" || len(ts.Options) != 3 || ts.Comment != "orders" || ts.ID != 0 {
		t.Errorf("schema = %+v", ts)
	}
	// Created through the warehouse's catalog: the database exists and lists the table.
	c, err := catalog.Open(context.Background(), wh)
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close()
	tables, err := c.ListTables(context.Background(), "shop")
	if err != nil || !slices.Equal(tables, []string{"orders"}) {
		t.Errorf("ListTables(shop) = %v, %v", tables, err)
	}
	if _, err := os.Stat(filepath.Join(wh, "shop.db", catalog.DatabaseMarker)); err != nil {
		t.Errorf("database marker: %v", err)
	}
	// A second create fails with ErrTableExist (exit status 1, not usage).
	_, err = run(t, "create", table, "--column", "x:INT")
	var u usageError
	if !errors.Is(err, catalog.ErrTableExist) || errors.As(err, &u) {
		t.Errorf("second create: err = %v, want ErrTableExist", err)
	}
}

func TestCreateOutsideWarehouse(t *testing.T) {
	dir := filepath.Join(t.TempDir(), "plain")
	schemaFile := filepath.Join(t.TempDir(), "s.json")
	// Java's Schema JSON without field ids; the flags add a column and override the keys.
	doc := `{"fields":[{"name":"k","type":"INT NOT NULL"},{"name":"v","type":{"type":"ARRAY","element":"STRING"}}],
		"partitionKeys":[],"primaryKeys":["k"],"options":{"bucket":"1","file.format":"parquet"},"comment":"from file"}`
	if err := os.WriteFile(schemaFile, []byte(doc), 0o644); err != nil {
		t.Fatal(err)
	}
	mustRun(t, "create", "file://"+dir, "--schema", schemaFile, "--column", "w:DOUBLE", "--bucket", "3")
	ts := readSchema(t, dir)
	if got := strings.Join(ts.FieldNames(), ","); got != "k,v,w" || ts.HighestFieldID != 2 ||
		!slices.Equal(ts.PrimaryKeys, []string{"k"}) || ts.Options["bucket"] != "3" || ts.Options["file.format"] != "parquet" ||
		ts.Comment != "from file" {
		t.Errorf("schema = %+v", ts)
	}
	if entries, _ := os.ReadDir(filepath.Dir(dir)); len(entries) != 1 {
		t.Errorf("files next to the table: %v", entries)
	}
	// A schema-N file (paimon schema output) is accepted as --schema too.
	out := mustRun(t, "schema", dir)
	if err := os.WriteFile(schemaFile, []byte(out), 0o644); err != nil {
		t.Fatal(err)
	}
	other := filepath.Join(t.TempDir(), "copy")
	mustRun(t, "create", other, "--schema", schemaFile)
	a, b := readSchema(t, dir), readSchema(t, other)
	a.TimeMillis, b.TimeMillis = 0, 0
	ea, _ := a.Encode()
	eb, _ := b.Encode()
	if !bytes.Equal(ea, eb) {
		t.Errorf("schema recreated from its own JSON differs:\n%s\n%s", ea, eb)
	}
	if _, err := run(t, "create", dir, "--column", "x:INT"); !errors.Is(err, catalog.ErrTableExist) {
		t.Errorf("create over existing table: err = %v, want ErrTableExist", err)
	}
	// Invalid definitions are rejected before anything is written.
	bad := filepath.Join(t.TempDir(), "bad")
	if _, err := run(t, "create", bad, "--column", "a:INT", "--primary-key", "zz"); !errors.Is(err, catalog.ErrInvalidSchema) {
		t.Errorf("primary key on a missing column: err = %v, want ErrInvalidSchema", err)
	}
	if _, err := os.Stat(bad); !os.IsNotExist(err) {
		t.Errorf("rejected create left %s behind (%v)", bad, err)
	}
}

func TestWarehouseOf(t *testing.T) {
	for _, tc := range []struct {
		in, wh string
		id     catalog.Identifier
		ok     bool
	}{
		{"s3://bkt/wh/db.db/t?endpoint=http://x:9000&region=us", "s3://bkt/wh?endpoint=http://x:9000&region=us", catalog.NewIdentifier("db", "t"), true},
		{"s3://bkt/db.db/t/", "s3://bkt/", catalog.NewIdentifier("db", "t"), true},
		{"file:///tmp/w/a.db/b", "file:///tmp/w", catalog.NewIdentifier("a", "b"), true},
		{"/tmp/w/a.db/b", "/tmp/w", catalog.NewIdentifier("a", "b"), true},
		{"file:///tmp/w/a/b", "", catalog.Identifier{}, false},
		{"s3://bkt/.db/t", "", catalog.Identifier{}, false},
		{"mem://t", "", catalog.Identifier{}, false},
	} {
		wh, id, ok := warehouseOf(tc.in)
		if ok != tc.ok || wh != tc.wh || id != tc.id {
			t.Errorf("warehouseOf(%q) = %q, %v, %v; want %q, %v, %v", tc.in, wh, id, ok, tc.wh, tc.id, tc.ok)
		}
	}
}

func TestCreateImportUsageErrors(t *testing.T) {
	dir := t.TempDir()
	jsonl := filepath.Join(dir, "x.jsonl")
	if err := os.WriteFile(jsonl, []byte(`{"a":1}`+"\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	tbl := filepath.Join(dir, "t")
	for _, args := range [][]string{
		{"create"},
		{"create", tbl},
		{"create", tbl, "--column", "a"},
		{"create", tbl, "--column", "a:NOTATYPE"},
		{"create", tbl, "--column", "a:INT", "--option", "novalue"},
		{"create", tbl, "--column", "a:INT", "--bucket", "two"},
		{"create", tbl, "--schema", filepath.Join(dir, "missing.json")},
		{"import", tbl},
		{"import", tbl, jsonl, "extra"},
		{"import", tbl, jsonl, "--column", "a:INT"},
		{"import", tbl, filepath.Join(dir, "x.csv")},
		{"import", tbl, jsonl, "--format", "xml"},
		{"import", tbl, jsonl, "--batch-rows", "0"},
		{"import", tbl, jsonl, "--limit", "-1"},
		{"import", "--create", tbl, jsonl},
	} {
		_, err := run(t, args...)
		var u usageError
		if !errors.As(err, &u) {
			t.Errorf("paimon %v: err = %v, want a usage error", args, err)
		}
	}
	if _, err := os.Stat(tbl); !os.IsNotExist(err) {
		t.Errorf("usage errors left %s behind", tbl)
	}
}

func TestImportJSONLErrors(t *testing.T) {
	dir := t.TempDir()
	tbl := filepath.Join(dir, "t")
	mustRun(t, "create", tbl, "--column", "a:INT NOT NULL", "--column", "d:DECIMAL(4, 2)", "--column", "ts:TIMESTAMP(3)", "--column", "b:BYTES")
	for _, tc := range []struct {
		name, rows string
		want       error
	}{
		{"unknown column", `{"a":1,"zz":2}`, errBadRow},
		{"int overflow", `{"a":2147483648}`, errBadRow},
		{"float for int", `{"a":1.5}`, errBadRow},
		{"decimal too precise", `{"a":1,"d":"1.234"}`, errBadRow},
		{"decimal too large", `{"a":1,"d":"123.4"}`, errBadRow},
		{"timestamp beyond ms", `{"a":1,"ts":"2024-01-01T00:00:00.0001"}`, errBadRow},
		{"bad date", `{"a":1,"ts":"2024-02-30T00:00:00"}`, errBadRow},
		{"bad base64", `{"a":1,"b":"@@"}`, errBadRow},
		{"not an object", `[1,2]`, errBadRow},
		{"duplicate key", `{"a":1,"a":2}`, errBadRow},
		{"truncated", `{"a":1`, errBadRow},
		{"null into NOT NULL", `{"a":1}` + "\n" + `{"a":null}`, writer.ErrNullViolation},
	} {
		in := filepath.Join(dir, "in.jsonl")
		if err := os.WriteFile(in, []byte(tc.rows+"\n"), 0o644); err != nil {
			t.Fatal(err)
		}
		if _, err := run(t, "import", tbl, in); !errors.Is(err, tc.want) {
			t.Errorf("%s: err = %v, want %v", tc.name, err, tc.want)
		}
	}
	// Nothing was published by the failed imports.
	if out := mustRun(t, "snapshots", tbl); strings.Count(out, "\n") != 1 {
		t.Errorf("snapshots after failed imports:\n%s", out)
	}
	files, err := filepath.Glob(filepath.Join(tbl, "bucket-*", "*"))
	if err != nil || len(files) != 0 {
		t.Errorf("data files left behind: %v %v", files, err)
	}
	in := filepath.Join(dir, "ok.jsonl")
	rows := `{"a":1,"d":"-1.5","ts":"1969-12-31T23:59:59.999","b":"AAEC/w=="}` + "\n\n" + `{"ts":null,"a":2}` + "\n" + `{"a":3,"d":7}`
	if err := os.WriteFile(in, []byte(rows), 0o644); err != nil {
		t.Fatal(err)
	}
	if out := mustRun(t, "import", tbl, in); out != "imported 3 rows in 1 commits (snapshot 1)\n" {
		t.Errorf("import output %q", out)
	}
	got := sortedLines(mustRun(t, "cat", "--format", "jsonl", tbl))
	want := []string{
		`{"a":1,"d":"-1.50","ts":"1969-12-31T23:59:59.999","b":"AAEC/w=="}`,
		`{"a":2,"d":null,"ts":null,"b":null}`,
		`{"a":3,"d":"7.00","ts":null,"b":null}`,
	}
	if !slices.Equal(got, want) {
		t.Errorf("cat:\n got %q\nwant %q", got, want)
	}
}

func flightsFile(t *testing.T) string {
	t.Helper()
	for _, p := range []string{"../../testdata/flights/flights-3m.parquet", "../../../shared/data/flights-3m.parquet"} {
		if _, err := os.Stat(p); err == nil {
			abs, _ := filepath.Abs(p)
			return abs
		}
	}
	t.Skip("flights-3m.parquet not found")
	return ""
}

// TestImportFlights imports the first 50,000 flights with --create (columns
// from the Parquet file), in three commits, and compares `cat` with the
// same rows read straight from the file.
func TestImportFlights(t *testing.T) {
	src := flightsFile(t)
	const limit = 50_000
	table := filepath.Join(t.TempDir(), "wh", "air.db", "flights")
	out := mustRun(t, "import", "--create", "--limit", fmt.Sprint(limit), "--batch-rows", "8192", "--commit-every", "20000", table, src)
	if out != "imported 50000 rows in 3 commits (snapshots 1..3)\n" {
		t.Errorf("import output %q", out)
	}
	ts := readSchema(t, table)
	var got []string
	for _, f := range ts.Fields {
		got = append(got, f.Name+" "+f.Type.String())
	}
	if s := strings.Join(got, ", "); s != "date TIMESTAMP(6), delay BIGINT, distance BIGINT, origin STRING, destination STRING" {
		t.Errorf("derived columns: %s", s)
	}
	if !strings.Contains(mustRun(t, "snapshots", table), "APPEND") {
		t.Error("no APPEND snapshot listed")
	}
	rows := sortedLines(mustRun(t, "cat", "--format", "jsonl", table))
	if len(rows) != limit {
		t.Fatalf("cat returned %d rows, want %d", len(rows), limit)
	}
	want := sortedLines(readParquetJSONL(t, src, ts.Fields, limit))
	if !slices.Equal(rows, want) {
		for i := range rows {
			if rows[i] != want[i] {
				t.Fatalf("row %d (sorted): got %s want %s", i, rows[i], want[i])
			}
		}
	}
	// Importing again appends: 100,000 rows in snapshot 4.
	mustRun(t, "import", "--limit", fmt.Sprint(limit), table, src)
	if n := strings.Count(mustRun(t, "cat", "--format", "jsonl", "--columns", "delay", table), "\n"); n != 2*limit {
		t.Errorf("after second import cat has %d rows, want %d", n, 2*limit)
	}
	// A table whose columns differ from the file's is refused before any write.
	other := filepath.Join(t.TempDir(), "other")
	mustRun(t, "create", other, "--column", "date:TIMESTAMP(6)", "--column", "delay:BIGINT")
	if _, err := run(t, "import", other, src); !errors.Is(err, errImportSchema) {
		t.Errorf("import into a narrower table: err = %v, want errImportSchema", err)
	}
	wider := filepath.Join(t.TempDir(), "wider")
	mustRun(t, "create", wider, "--column", "date:TIMESTAMP(6)", "--column", "delay:BIGINT", "--column", "distance:BIGINT",
		"--column", "origin:STRING", "--column", "destination:STRING", "--column", "x:INT")
	if _, err := run(t, "import", wider, src); !errors.Is(err, errImportSchema) {
		t.Errorf("import into a table with a column the file lacks: err = %v, want errImportSchema", err)
	}
}

// readParquetJSONL renders the first n rows of a Parquet file as JSONL.
func readParquetJSONL(t *testing.T, name string, fields []types.DataField, n int64) string {
	t.Helper()
	ctx := context.Background()
	f, err := os.Open(name)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	st, _ := f.Stat()
	r, err := parquet.NewReader(ctx, osFile{f, st.Size()}, name, fields, format.ReadOptions{})
	if err != nil {
		t.Fatal(err)
	}
	defer r.Close()
	var buf bytes.Buffer
	w, err := rowfmt.NewWriter(&buf, rowfmt.JSONL, &rowfmt.Options{Fields: fields})
	if err != nil {
		t.Fatal(err)
	}
	for done := int64(0); done < n; {
		b, err := r.Next(ctx)
		if errors.Is(err, io.EOF) {
			break
		}
		if err != nil {
			t.Fatal(err)
		}
		rec := b.Record
		if done+rec.NumRows() > n {
			cut := rec.NewSlice(0, n-done)
			rec.Release()
			rec = cut
		}
		done += rec.NumRows()
		if err := w.Write(rec); err != nil {
			t.Fatal(err)
		}
		rec.Release()
	}
	if err := w.Close(); err != nil {
		t.Fatal(err)
	}
	return buf.String()
}

// TestJSONLRoundTripFixtures cats every fixture table as JSONL, imports the
// lines into a new table with the fixture's columns and keys (written as
// Parquet, without the options our writer does not support), and checks
// that cat of the new table prints the same lines.
func TestJSONLRoundTripFixtures(t *testing.T) {
	unsupported := []string{"file.format", "manifest.format", "deletion-vectors.enabled", "commit.force-compact",
		"scan.fallback-branch", "merge-engine", "ignore-delete", "parquet.use-native"}
	for _, tbl := range fixture.Tables(t) {
		t.Run(tbl.Name, func(t *testing.T) {
			dir := t.TempDir()
			dump := filepath.Join(dir, "rows.jsonl")
			lines := mustRun(t, "cat", "--format", "jsonl", tbl.Dir)
			if err := os.WriteFile(dump, []byte(lines), 0o644); err != nil {
				t.Fatal(err)
			}
			ts := readSchema(t, tbl.Dir)
			opts := map[string]string{}
			for k, v := range ts.Options {
				if !slices.Contains(unsupported, k) {
					opts[k] = v
				}
			}
			if len(ts.PrimaryKeys) > 0 {
				if b, _ := ts.NumBuckets(); b < 1 {
					opts["bucket"] = "1"
				}
			}
			doc, err := json.Marshal(map[string]any{
				"fields": ts.Fields, "partitionKeys": ts.PartitionKeys, "primaryKeys": ts.PrimaryKeys, "options": opts,
			})
			if err != nil {
				t.Fatal(err)
			}
			schemaFile := filepath.Join(dir, "schema.json")
			if err := os.WriteFile(schemaFile, doc, 0o644); err != nil {
				t.Fatal(err)
			}
			target := filepath.Join(dir, "wh", "db.db", "copy")
			mustRun(t, "import", "--create", "--schema", schemaFile, "--batch-rows", "3", target, dump)
			got := sortedLines(mustRun(t, "cat", "--format", "jsonl", target))
			want := sortedLines(lines)
			if len(want) == 0 {
				t.Fatal("fixture read returned no rows")
			}
			if !slices.Equal(got, want) {
				t.Errorf("round trip differs:\n got %s\nwant %s", strings.Join(got, "\n     "), strings.Join(want, "\n     "))
			}
		})
	}
}

func TestParseHelpers(t *testing.T) {
	for _, tc := range []struct {
		in   string
		days int64
	}{
		{"1970-01-01", 0}, {"1969-12-31", -1}, {"2000-02-29", 11016}, {"+10000-01-01", 2932897}, {"-0001-12-31", -719529}, {"0000-01-01", -719528},
	} {
		d, err := parseDate(tc.in)
		if err != nil || d != tc.days {
			t.Errorf("parseDate(%q) = %d, %v; want %d", tc.in, d, err, tc.days)
		}
	}
	for _, bad := range []string{"2001-02-29", "1970-1-01", "70-01-01", "1970-13-01", "x"} {
		if _, err := parseDate(bad); err == nil {
			t.Errorf("parseDate(%q) succeeded", bad)
		}
	}
	for _, tc := range []struct {
		in         string
		p, s       int
		want, fail string
	}{
		{"1.5", 5, 2, "150", ""}, {"-0.01", 3, 2, "-1", ""}, {"7", 3, 2, "700", ""}, {"12.3400", 4, 2, "1234", ""},
		{"123.4", 4, 2, "", "too many digits"}, {"1.234", 9, 2, "", "fractional"}, {"1e3", 9, 2, "", "not a decimal"}, {".", 9, 2, "", "not a decimal"},
	} {
		n, err := parseDecimal(tc.in, tc.p, tc.s)
		switch {
		case tc.fail != "":
			if err == nil || !strings.Contains(err.Error(), tc.fail) {
				t.Errorf("parseDecimal(%q) err = %v, want %q", tc.in, err, tc.fail)
			}
		case err != nil || n.BigInt().String() != tc.want:
			t.Errorf("parseDecimal(%q) = %v, %v; want %s", tc.in, n.BigInt(), err, tc.want)
		}
	}
}

// TestImportCompactingCommits: on a table that fully compacts on every
// commit, each commit of an import publishes an APPEND and a COMPACT
// snapshot, and the import prints the range from the first APPEND to the
// last COMPACT (Commit returns only the last id of each commit).
func TestImportCompactingCommits(t *testing.T) {
	dir := t.TempDir()
	tbl := filepath.Join(dir, "t")
	mustRun(t, "create", tbl, "--column", "a:INT", "--column", "b:STRING", "--primary-key", "a",
		"--bucket", "1", "--option", "full-compaction.delta-commits=1")
	in := filepath.Join(dir, "in.jsonl")
	if err := os.WriteFile(in, []byte(`{"a":1,"b":"x"}`+"\n"+`{"a":2,"b":"y"}`+"\n"+`{"a":1,"b":"z"}`+"\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	if got, want := mustRun(t, "import", tbl, in), "imported 3 rows in 1 commits (snapshots 1..2)\n"; got != want {
		t.Errorf("import printed %q, want %q", got, want)
	}
	if got, want := mustRun(t, "import", "--commit-every", "1", tbl, in), "imported 3 rows in 3 commits (snapshots 3..8)\n"; got != want {
		t.Errorf("import --commit-every 1 printed %q, want %q", got, want)
	}
	var kinds []string
	for _, l := range strings.Split(strings.TrimSpace(mustRun(t, "snapshots", tbl)), "\n")[1:] {
		kinds = append(kinds, strings.Fields(l)[2])
	}
	if got, want := strings.Join(kinds, ","), "APPEND,COMPACT,APPEND,COMPACT,APPEND,COMPACT,APPEND,COMPACT"; got != want {
		t.Errorf("snapshot kinds %s, want %s", got, want)
	}
}
