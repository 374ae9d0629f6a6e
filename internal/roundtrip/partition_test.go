package roundtrip

import (
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/paimon-go/paimon/catalog"
	"github.com/paimon-go/paimon/commit"
	"github.com/paimon-go/paimon/internal/tabletest"
	"github.com/paimon-go/paimon/predicate"
	"github.com/paimon-go/paimon/reader"
	"github.com/paimon-go/paimon/types"
)

// writeAll writes rows (Go values of the table's columns) with one Write
// and commits them.
func writeAll(t *testing.T, tbl *catalog.Table, rows [][]any) {
	t.Helper()
	rec := tabletest.Batch(t, types.SchemaToArrow(tbl.Schema.Fields), rows...)
	defer rec.Release()
	tabletest.WriteCommit(t, tbl, "partition-test", commit.BatchIdentifier, rec)
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
	tbl := tabletest.NewTable(t, "file://"+whDir, catalog.Schema{
		Fields:        []types.DataField{{Name: "part", Type: types.String()}, {Name: "id", Type: types.Int().NotNull()}},
		PartitionKeys: []string{"part"},
	})
	values := []any{"a", "b:c", "x/y", "50%", "k=v", "with space", "", " ", nil, "ü#?", "[x]"}
	rows := make([][]any, len(values))
	for i, v := range values {
		rows[i] = []any{v, int32(i)}
	}
	writeAll(t, tbl, rows)
	want := []string{
		"part=%5Bx%5D", "part=50%25", "part=__DEFAULT_PARTITION__", "part=a", "part=b%3Ac", "part=k%3Dv",
		"part=with space", "part=x%2Fy", "part=ü%23%3F",
	}
	if got := partitionDirs(t, filepath.Join(whDir, "db.db", "t")); !slices.Equal(got, want) {
		t.Errorf("partition directories\n got %q\nwant %q", got, want)
	}
	if got, want := tabletest.ReadJSONL(t, tbl.FileIO.URL()), tabletest.JSONL(t, tbl.Schema.Fields, rows...); !slices.Equal(got, want) {
		t.Errorf("read: %s", diffLines(got, want))
	}
	ref, _ := predicate.RefOf(tbl.Schema.Fields, "part")
	for i, v := range values {
		p := predicate.IsNull(ref)
		if v != nil {
			p = predicate.Equal(ref, v)
		}
		got := tabletest.ReadJSONL(t, tbl.FileIO.URL(), reader.WithFilter(p))
		if want := tabletest.JSONL(t, tbl.Schema.Fields, rows[i]); !slices.Equal(got, want) {
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
			tbl := tabletest.NewTable(t, "file://"+whDir, catalog.Schema{
				Fields:        []types.DataField{{Name: "dt", Type: types.Date()}, {Name: "id", Type: types.Int().NotNull()}},
				PartitionKeys: []string{"dt"},
				Options:       opts,
			})
			days := []any{int32(19000), int32(-1), int32(0), int32(-719528), nil}
			rows := make([][]any, len(days))
			for i, d := range days {
				rows[i] = []any{d, int32(i)}
			}
			writeAll(t, tbl, rows)
			if got := partitionDirs(t, filepath.Join(whDir, "db.db", "t")); !slices.Equal(got, tc.want) {
				t.Errorf("partition directories\n got %q\nwant %q", got, tc.want)
			}
			got := tabletest.ReadJSONL(t, tbl.FileIO.URL())
			want := []string{
				`{"dt":"0000-01-01","id":3}`, `{"dt":"1969-12-31","id":1}`, `{"dt":"1970-01-01","id":2}`,
				`{"dt":"2022-01-08","id":0}`, `{"dt":null,"id":4}`,
			}
			if !slices.Equal(got, want) {
				t.Errorf("read\n got %q\nwant %q", got, want)
			}
			ref, _ := predicate.RefOf(tbl.Schema.Fields, "dt")
			if got := tabletest.ReadJSONL(t, tbl.FileIO.URL(), reader.WithFilter(predicate.Equal(ref, int32(-1)))); !slices.Equal(got, want[1:2]) {
				t.Errorf("read dt = 1969-12-31: %q", got)
			}
		})
	}
}
