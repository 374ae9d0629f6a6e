package roundtrip

import (
	"context"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/paimon-go/paimon/catalog"
	"github.com/paimon-go/paimon/commit"
	"github.com/paimon-go/paimon/predicate"
	"github.com/paimon-go/paimon/reader"
	"github.com/paimon-go/paimon/types"
	"github.com/paimon-go/paimon/writer"
)

// writeAll writes recs with one Write and commits them.
func writeAll(t *testing.T, tbl *catalog.Table, recs []record, kinds bool) {
	t.Helper()
	ctx := context.Background()
	w, err := writer.New(tbl.FileIO, tbl.Schema, "partition-test")
	if err != nil {
		t.Fatal(err)
	}
	defer w.Close()
	rec := buildRecord(t, tbl.Schema.Fields, recs, kinds)
	defer rec.Release()
	if err := w.Write(ctx, rec); err != nil {
		t.Fatal(err)
	}
	msgs, err := w.PrepareCommit(ctx)
	if err != nil {
		t.Fatal(err)
	}
	cm, err := commit.New(tbl.FileIO, tbl.Schema, "partition-test")
	if err != nil {
		t.Fatal(err)
	}
	if _, err := cm.Commit(ctx, commit.BatchIdentifier, msgs); err != nil {
		t.Fatal(err)
	}
}

func newTable(t *testing.T, whDir string, s catalog.Schema) *catalog.Table {
	t.Helper()
	ctx := context.Background()
	c, err := catalog.Open(ctx, "file://"+whDir)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { c.Close() })
	if err := c.CreateDatabase(ctx, "db", true); err != nil {
		t.Fatal(err)
	}
	id := catalog.NewIdentifier("db", "t")
	if err := c.CreateTable(ctx, id, s, false); err != nil {
		t.Fatal(err)
	}
	tbl, err := c.GetTable(ctx, id)
	if err != nil {
		t.Fatal(err)
	}
	return tbl
}

func partitionDirs(t *testing.T, tableDir string) []string {
	t.Helper()
	entries, err := os.ReadDir(tableDir)
	if err != nil {
		t.Fatal(err)
	}
	var out []string
	for _, e := range entries {
		if e.IsDir() && strings.Contains(e.Name(), "=") {
			out = append(out, e.Name())
		}
	}
	slices.Sort(out)
	return out
}

// TestPartitionEscaping is issue case (c) with hand-written directory
// names: NULL and blank values share __DEFAULT_PARTITION__ (yet stay
// distinct values), ':', '/', '%', '=', '#', '?', '[' and ']' are escaped as
// %XX, spaces and non-ASCII letters are kept; every value reads back as
// written, with and without a partition filter.
func TestPartitionEscaping(t *testing.T) {
	whDir := t.TempDir()
	tbl := newTable(t, whDir, catalog.Schema{
		Fields:        []types.DataField{{Name: "part", Type: types.String()}, {Name: "id", Type: types.Int().NotNull()}},
		PartitionKeys: []string{"part"},
	})
	values := []any{"a", "b:c", "x/y", "50%", "k=v", "with space", "", " ", nil, "ü#?", "[x]"}
	var recs []record
	for i, v := range values {
		recs = append(recs, record{row: []any{v, int32(i)}})
	}
	writeAll(t, tbl, recs, false)
	want := []string{
		"part=%5Bx%5D", "part=50%25", "part=__DEFAULT_PARTITION__", "part=a", "part=b%3Ac", "part=k%3Dv",
		"part=with space", "part=x%2Fy", "part=ü%23%3F",
	}
	if got := partitionDirs(t, filepath.Join(whDir, "db.db", "t")); !slices.Equal(got, want) {
		t.Errorf("partition directories\n got %q\nwant %q", got, want)
	}
	rows := make([][]any, len(recs))
	for i, r := range recs {
		rows[i] = r.row
	}
	if got, want := readLines(t, tbl), expectedLines(t, tbl.Schema.Fields, rows); !slices.Equal(got, want) {
		t.Errorf("read: %s", diffLines(got, want))
	}
	ref, _ := predicate.RefOf(tbl.Schema.Fields, "part")
	for i, v := range values {
		p := predicate.IsNull(ref)
		if v != nil {
			p = predicate.Equal(ref, v)
		}
		got := readLines(t, tbl, reader.WithFilter(p))
		if want := expectedLines(t, tbl.Schema.Fields, rows[i:i+1]); !slices.Equal(got, want) {
			t.Errorf("read part = %q: %s", v, diffLines(got, want))
		}
	}
}

// TestDatePartitionDirectory is issue case (d): a DATE partition's
// directory is the epoch-day number under the default legacy names
// (partition.legacy-name = true, Java's InternalRowPartitionComputer uses
// the internal int's toString) and the ISO date when legacy names are off.
func TestDatePartitionDirectory(t *testing.T) {
	for _, tc := range []struct {
		legacy string
		want   []string
	}{
		{"", []string{"dt=-1", "dt=-719528", "dt=0", "dt=19000", "dt=__DEFAULT_PARTITION__"}},
		{"false", []string{"dt=0000-01-01", "dt=1969-12-31", "dt=1970-01-01", "dt=2022-01-08", "dt=__DEFAULT_PARTITION__"}},
	} {
		t.Run("legacy="+tc.legacy, func(t *testing.T) {
			whDir := t.TempDir()
			opts := map[string]string{}
			if tc.legacy != "" {
				opts["partition.legacy-name"] = tc.legacy
			}
			tbl := newTable(t, whDir, catalog.Schema{
				Fields:        []types.DataField{{Name: "dt", Type: types.Date()}, {Name: "id", Type: types.Int().NotNull()}},
				PartitionKeys: []string{"dt"},
				Options:       opts,
			})
			days := []any{int32(19000), int32(-1), int32(0), int32(-719528), nil}
			var recs []record
			rows := make([][]any, len(days))
			for i, d := range days {
				rows[i] = []any{d, int32(i)}
				recs = append(recs, record{row: rows[i]})
			}
			writeAll(t, tbl, recs, false)
			if got := partitionDirs(t, filepath.Join(whDir, "db.db", "t")); !slices.Equal(got, tc.want) {
				t.Errorf("partition directories\n got %q\nwant %q", got, tc.want)
			}
			got := readLines(t, tbl)
			want := []string{
				`{"dt":"0000-01-01","id":3}`, `{"dt":"1969-12-31","id":1}`, `{"dt":"1970-01-01","id":2}`,
				`{"dt":"2022-01-08","id":0}`, `{"dt":null,"id":4}`,
			}
			if !slices.Equal(got, want) {
				t.Errorf("read\n got %q\nwant %q", got, want)
			}
			ref, _ := predicate.RefOf(tbl.Schema.Fields, "dt")
			if got := readLines(t, tbl, reader.WithFilter(predicate.Equal(ref, int32(-1)))); !slices.Equal(got, want[1:2]) {
				t.Errorf("read dt = 1969-12-31: %q", got)
			}
		})
	}
}
