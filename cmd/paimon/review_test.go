package main

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/apache/arrow-go/v18/arrow"

	"github.com/paimon-go/paimon"
	"github.com/paimon-go/paimon/catalog"
	"github.com/paimon-go/paimon/compaction"
	"github.com/paimon-go/paimon/internal/fixture"
	"github.com/paimon-go/paimon/schema"
	"github.com/paimon-go/paimon/snapshot"
)

// wantUsage fails unless paimon args fails with the usage error text want.
func wantUsage(t *testing.T, want string, args ...string) error {
	t.Helper()
	_, err := run(t, args...)
	var u usageError
	if !errors.As(err, &u) || err.Error() != want {
		t.Errorf("paimon %s: err = %v\nwant usage error %q", strings.Join(args, " "), err, want)
	}
	return err
}

// wantError fails unless paimon args fails (not as a usage error) with
// the text want.
func wantError(t *testing.T, want string, args ...string) error {
	t.Helper()
	_, err := run(t, args...)
	var u usageError
	if err == nil || errors.As(err, &u) || err.Error() != want {
		t.Errorf("paimon %s: err = %v\nwant error %q (exit status 1)", strings.Join(args, " "), err, want)
	}
	return err
}

// setSchemaOption rewrites the schema file at path with option key set to
// value, as another engine or a hand edit would leave it.
func setSchemaOption(t *testing.T, path, key, value string) {
	t.Helper()
	data, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	var doc map[string]any
	if err := json.Unmarshal(data, &doc); err != nil {
		t.Fatal(err)
	}
	doc["options"].(map[string]any)[key] = value
	if data, err = json.MarshalIndent(doc, "", "  "); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(path, data, 0o644); err != nil {
		t.Fatal(err)
	}
}

// TestRollbackNamesRecreatingTag: rolling back by id to a snapshot that
// only a tag still holds names that tag.
func TestRollbackNamesRecreatingTag(t *testing.T) {
	dir := fixture.Copy(t, dvTable)
	mustRun(t, "tag", "create", "--snapshot", "3", dir, "t3")
	if got := mustRun(t, "expire", "--retain-min", "1", "--retain-max", "1", dir); !strings.HasSuffix(got, "expired 5 snapshots (1 to 5); earliest snapshot is 6\n") {
		t.Fatalf("expire printed:\n%s", got)
	}
	if got, want := mustRun(t, "rollback", "--to", "3", dir), lines("recreated snapshot 3 from tag t3", "removed snapshot 6", "rolled back to snapshot 3"); got != want {
		t.Errorf("rollback printed:\n%s\nwant\n%s", got, want)
	}
}

// TestExpireRetainAgainstTableOptions: one of --retain-min/--retain-max
// that contradicts the table's other option is a usage error naming it.
func TestExpireRetainAgainstTableOptions(t *testing.T) {
	dir := fixture.Copy(t, dvTable)
	wantUsage(t, "--retain-max 1 is below the table's snapshot.num-retained.min (10); give --retain-min too", "expire", "--retain-max", "1", dir)
	if got := mustRun(t, "alter", dir, "--set", "snapshot.num-retained.min=2", "--set", "snapshot.num-retained.max=5"); got != "published schema 1 (set snapshot.num-retained.min=2; set snapshot.num-retained.max=5)\n" {
		t.Errorf("alter printed %q", got)
	}
	wantUsage(t, "--retain-min 6 is above the table's snapshot.num-retained.max (5); give --retain-max too", "expire", "--retain-min", "6", dir)
	wantUsage(t, "--retain-max 1 is below the table's snapshot.num-retained.min (2); give --retain-min too", "expire", "--retain-max", "1", dir)
	if got := mustRun(t, "expire", "--retain-max", "10", "--retain-min", "6", "--dry-run", dir); got != "no snapshot expired; earliest snapshot is 1\n" {
		t.Errorf("expire with both flags printed %q", got)
	}
}

// TestCreateErrorText: option errors name each sentinel once; a zero
// snapshot.expire.limit is accepted at create (Java's rule); a bucketed table without
// a primary key is told which option to add.
func TestCreateErrorText(t *testing.T) {
	base := t.TempDir()
	err := wantError(t, `catalog: invalid table schema: invalid table option: bucket="abc": not a 32-bit integer`,
		"create", filepath.Join(base, "o2"), "--column", "id:BIGINT", "--primary-key", "id", "--option", "bucket=abc")
	if !errors.Is(err, catalog.ErrInvalidSchema) || !errors.Is(err, schema.ErrInvalidOption) {
		t.Errorf("bucket=abc: %v does not match catalog.ErrInvalidSchema and schema.ErrInvalidOption", err)
	}
	wantError(t, `catalog: create table d.o2: invalid table schema: invalid table option: bucket="abc": not a 32-bit integer`,
		"create", filepath.Join(base, "wh", "d.db", "o2"), "--column", "id:BIGINT", "--primary-key", "id", "--option", "bucket=abc")
	// A zero snapshot.expire.limit is legal, as in Java: expiration then
	// expires nothing.
	mustRun(t, "create", filepath.Join(base, "lim"), "--column", "id:BIGINT", "--option", "snapshot.expire.limit=0")
	const bucketKey = "a table without a primary key needs a bucket key for bucket = 2: add --option bucket-key=COL[,COL2] " +
		"(the columns whose hash picks a row's bucket), or give --primary-key"
	err = wantUsage(t, bucketKey, "create", filepath.Join(base, "b"), "--column", "a:INT", "--bucket", "2")
	if !errors.Is(err, catalog.ErrInvalidSchema) {
		t.Errorf("bucket without key: %v does not match catalog.ErrInvalidSchema", err)
	}
	in := filepath.Join(base, "in.jsonl")
	if err := os.WriteFile(in, []byte(`{"a":1}`+"\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	wantUsage(t, bucketKey, "import", "--create", "--bucket", "2", "--column", "a:INT", filepath.Join(base, "b"), in)
	if _, err := os.Stat(filepath.Join(base, "b")); !os.IsNotExist(err) {
		t.Errorf("refused create left the table behind (%v)", err)
	}
	mustRun(t, "create", filepath.Join(base, "b"), "--column", "a:INT", "--bucket", "2", "--option", "bucket-key=a")
}

// TestEmptyTableMaintenance: tag create and expire on a table without
// snapshots say so; expire does nothing and succeeds, as Java's does.
func TestEmptyTableMaintenance(t *testing.T) {
	dir := filepath.Join(t.TempDir(), "e")
	mustRun(t, "create", dir, "--column", "a:INT")
	for _, args := range [][]string{{"tag", "create", dir, "t"}, {"tag", "create", "--snapshot", "3", dir, "t"}} {
		if err := wantError(t, "cannot create tag t: the table has no snapshots", args...); !errors.Is(err, snapshot.ErrNotFound) {
			t.Errorf("%v: %v does not match snapshot.ErrNotFound", args, err)
		}
	}
	if got := mustRun(t, "expire", dir); got != "no snapshot expired: the table has no snapshots\n" {
		t.Errorf("expire printed %q", got)
	}
}

// TestDurationFlags: Paimon and Go duration syntaxes are both accepted.
func TestDurationFlags(t *testing.T) {
	for _, tc := range []struct {
		in   string
		want string
	}{{"1d", "24h0m0s"}, {"1 h", "1h0m0s"}, {"30min", "30m0s"}, {"500", "500ms"}, {"1h30m", "1h30m0s"}, {"1.5h", "1h30m0s"}, {" 90s ", "1m30s"}} {
		d, err := durationFlag("older-than", tc.in)
		if err != nil || d.String() != tc.want {
			t.Errorf("durationFlag(%q) = %v, %v; want %s", tc.in, d, err, tc.want)
		}
	}
	dir := fixture.Copy(t, dvTable)
	wantUsage(t, `--older-than "soon": not a duration; write it in Paimon syntax (1d, 2 h, 30min, 500 ms) or Go syntax (1h30m, 1.5h)`, "expire", "--older-than", "soon", dir)
	wantUsage(t, `--older-than "-1h": must not be negative`, "expire", "--older-than", "-1h", dir)
	if got := mustRun(t, "expire", "--older-than", "1h30m", "--dry-run", dir); got != "no snapshot expired; earliest snapshot is 1\n" {
		t.Errorf("expire --older-than 1h30m printed %q", got)
	}
	mustRun(t, "tag", "create", "--time-retained", "1.5h", dir, "x")
	out := mustRun(t, "tag", "list", dir)
	if f := strings.Fields(strings.Split(out, "\n")[1]); len(f) != 6 || f[0] != "x" || f[4] != "1h30m0s" {
		t.Errorf("tag list after --time-retained 1.5h:\n%s", out)
	}
}

// TestMalformedOptionAlter: a malformed option in the schema blocks the
// data commands with one clear line, but schema and snapshots still show
// the table, and alter --set fixes it.
func TestMalformedOptionAlter(t *testing.T) {
	dir := fixture.Copy(t, dvTable)
	setSchemaOption(t, filepath.Join(dir, "schema", "schema-0"), "snapshot.num-retained.min", "ten")
	if out := mustRun(t, "schema", dir); !strings.Contains(out, `"snapshot.num-retained.min" : "ten"`) {
		t.Errorf("schema does not show the malformed option:\n%s", out)
	}
	if n := strings.Count(mustRun(t, "snapshots", dir), "\n"); n != 7 {
		t.Errorf("snapshots listed %d lines, want 7", n)
	}
	want := "table " + dir + ` has a malformed option in its schema: snapshot.num-retained.min="ten": not a 32-bit integer` +
		" (fix it with: paimon alter " + dir + " --set snapshot.num-retained.min=VALUE)"
	for _, cmd := range []string{"cat", "files", "expire", "tag list"} {
		args := append(strings.Fields(cmd), dir)
		if err := wantError(t, want, args...); !errors.Is(err, catalog.ErrInvalidSchema) || !errors.Is(err, schema.ErrInvalidOption) {
			t.Errorf("%s: %v does not match catalog.ErrInvalidSchema and schema.ErrInvalidOption", cmd, err)
		}
	}
	// alter checks the new options.
	wantError(t, `catalog: invalid table schema: invalid table option: snapshot.num-retained.min="3x": not a 32-bit integer`,
		"alter", dir, "--set", "snapshot.num-retained.min=3x")
	if got := mustRun(t, "alter", dir, "--set", "snapshot.num-retained.min=3", "--unset", "commit.force-compact"); got != "published schema 1 (set snapshot.num-retained.min=3; unset commit.force-compact)\n" {
		t.Errorf("alter printed %q", got)
	}
	ts := readSchema(t, dir)
	if _, has := ts.Options["commit.force-compact"]; ts.ID != 1 || ts.Options["snapshot.num-retained.min"] != "3" || has {
		t.Errorf("schema %d options %v", ts.ID, ts.Options)
	}
	c := fixture.Lookup(t, dvTable, "latest")
	fixture.AssertJSONL(t, c, []byte(mustRun(t, "cat", "--format", "jsonl", dir)))

	for _, tc := range []struct {
		args []string
		want string
	}{
		{[]string{"alter", dir}, "nothing to change: give --set key=value, --unset key or --type column=TYPE"},
		{[]string{"alter", dir, "--set", "novalue"}, `--set "novalue": want key=value`},
		{[]string{"alter", dir, "--set", "a=1", "--unset", "a"}, `option "a" is given twice`},
	} {
		wantUsage(t, tc.want, tc.args...)
	}
	missing := filepath.Join(t.TempDir(), "missing")
	wantError(t, "table "+missing+" does not exist (no schema file)", "alter", missing, "--set", "a=1")

	// A bucket count that does not decode: schema prints the file as
	// stored; the other commands say it cannot be altered.
	dir = fixture.Copy(t, dvTable)
	setSchemaOption(t, filepath.Join(dir, "schema", "schema-0"), "bucket", "two")
	if out := mustRun(t, "schema", dir); !strings.Contains(out, `"bucket": "two"`) {
		t.Errorf("schema of a table with bucket=two:\n%s", out)
	}
	wantError(t, "table "+dir+` has a malformed option in its schema: bucket="two": not a 32-bit integer (correct it in the latest schema file by hand)`, "cat", dir)
}

// TestBucketFlag: --bucket outside the table's buckets is a usage error.
func TestBucketFlag(t *testing.T) {
	dir := fixture.Dir(t, dvTable) // bucket = 2
	wantUsage(t, "--bucket 2: the table has 2 buckets (0 to 1)", "cat", "--bucket", "2", dir)
	wantUsage(t, "--bucket 99: the table has 2 buckets (0 to 1)", "files", "--bucket", "99", dir)
	wantUsage(t, "--bucket must be a bucket number >= 0, got -2", "cat", "--bucket", "-2", dir)
	unaware := filepath.Join(t.TempDir(), "u")
	mustRun(t, "create", unaware, "--column", "a:INT")
	wantUsage(t, "--bucket 1: the table is bucket-unaware (bucket = -1): all its files are in bucket 0", "cat", "--bucket", "1", unaware)
	if got := mustRun(t, "cat", "--bucket", "0", "--format", "csv", unaware); got != "a\n" {
		t.Errorf("cat --bucket 0 of an empty bucket-unaware table: %q", got)
	}
}

func TestCompactPartitionRepeatedKey(t *testing.T) {
	dir := fixture.Dir(t, "pk_table_scan_and_read_mor_parquet")
	wantUsage(t, `--partition "f1=10,f1=20": key "f1" given twice (repeat --partition to compact several partitions)`,
		"compact", "--partition", "f1=10,f1=20", dir)
}

// TestImportReportsCommittedBeforeError: an import with --commit-every
// that fails after two commits prints what those committed, and the rows
// are in the table.
func TestImportReportsCommittedBeforeError(t *testing.T) {
	dir := t.TempDir()
	tbl := filepath.Join(dir, "t")
	mustRun(t, "create", tbl, "--column", "a:INT")
	in := filepath.Join(dir, "in.jsonl")
	if err := os.WriteFile(in, []byte(`{"a":1}`+"\n"+`{"a":2}`+"\n"+`{"a":"x"}`+"\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	out, err := run(t, "import", "--commit-every", "1", tbl, in)
	if !errors.Is(err, errBadRow) {
		t.Fatalf("import: err = %v, want errBadRow", err)
	}
	if want := "imported 2 rows in 2 commits (snapshots 1..2) before the error; later rows were not imported\n"; out != want {
		t.Errorf("import printed %q, want %q", out, want)
	}
	if got := sortedLines(mustRun(t, "cat", "--format", "jsonl", tbl)); strings.Join(got, ",") != `{"a":1},{"a":2}` {
		t.Errorf("rows %v", got)
	}
}

// compactingSource yields the rows of a JSONL text one per batch and, before
// the batch numbered at (1-based), runs a dedicated full compaction of the
// table, as a concurrent 'paimon compact --full' would.
type compactingSource struct {
	batchSource
	t     *testing.T
	tbl   *paimon.Table
	n, at int
}

func (s *compactingSource) Next(ctx context.Context) (arrow.RecordBatch, error) {
	s.n++
	if s.n == s.at {
		id, err := compaction.Compact(ctx, s.tbl.FileIO(), s.tbl.Schema(), "concurrent-compact", compaction.Options{Full: true})
		if err != nil || id == 0 {
			s.t.Fatalf("concurrent compaction: id %d, %v", id, err)
		}
	}
	return s.batchSource.Next(ctx)
}

// TestImportSurvivesLostCompaction: on a table that fully compacts every
// second commit, a dedicated full compaction between the import's first
// and second commits rewrites the file the writer's compaction of commit 2
// reads. Commit 2 publishes its rows (snapshot 3) but not its compaction;
// the writer takes the refusal over (commit.Message.OnCompactionRefused:
// it rebuilds the bucket's levels from the table), so the import goes on
// without a warning, and every row is in the table.
func TestImportSurvivesLostCompaction(t *testing.T) {
	ctx := context.Background()
	dir := filepath.Join(t.TempDir(), "t")
	mustRun(t, "create", dir, "--column", "a:INT", "--column", "b:STRING", "--primary-key", "a",
		"--bucket", "1", "--option", "full-compaction.delta-commits=2")
	tbl, err := paimon.OpenTable(ctx, dir)
	if err != nil {
		t.Fatal(err)
	}
	defer tbl.Close()
	const user = "paimon-import-test"
	w, err := tbl.NewWrite(user)
	if err != nil {
		t.Fatal(err)
	}
	defer w.Close()
	cm, err := tbl.NewCommit(user)
	if err != nil {
		t.Fatal(err)
	}
	defer cm.Close()
	rows := `{"a":1,"b":"x"}` + "\n" + `{"a":2,"b":"y"}` + "\n" + `{"a":1,"b":"z"}` + "\n" + `{"a":3,"b":"w"}` + "\n"
	src := &compactingSource{batchSource: &jsonlSource{r: newJSONLReader(strings.NewReader(rows), tbl.Schema().Fields, 1)}, t: t, tbl: tbl, at: 2}
	var warn bytes.Buffer
	im := &importer{sm: tbl.Snapshots(), w: w, cm: cm, user: user, commitEvery: 1, warn: &warn}
	if err := im.run(ctx, src); err != nil {
		t.Fatalf("import: %v", err)
	}
	// Snapshots: 1 APPEND (import), 2 COMPACT (concurrent), 3 APPEND
	// (import; its compaction lost), then the import's commits 3 and 4
	// (commit 4 compacts fully again: APPEND 5, COMPACT 6).
	if want := ""; warn.String() != want {
		t.Errorf("warnings %q, want %q", warn.String(), want)
	}
	var kinds []string
	for _, l := range strings.Split(strings.TrimSpace(mustRun(t, "snapshots", dir)), "\n")[1:] {
		f := strings.Fields(l)
		kinds = append(kinds, f[0]+":"+f[2]+":"+strings.TrimPrefix(f[6], "paimon-"))
	}
	if got, want := strings.Join(kinds, ","), "1:APPEND:import-test,2:COMPACT:concurrent-compact,3:APPEND:import-test,4:APPEND:import-test,5:APPEND:import-test,6:COMPACT:import-test"; got != want {
		t.Errorf("snapshots %s\nwant %s", got, want)
	}
	if got, want := im.summary(), "imported 4 rows in 4 commits (snapshots 1..6)"; got != want {
		t.Errorf("summary %q, want %q", got, want)
	}
	if got := strings.Join(sortedLines(mustRun(t, "cat", "--format", "jsonl", dir)), ","); got != `{"a":1,"b":"z"},{"a":2,"b":"y"},{"a":3,"b":"w"}` {
		t.Errorf("rows %s", got)
	}
}
