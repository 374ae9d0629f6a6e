//go:build interop

package interop

import (
	"context"
	"maps"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/paimon-go/paimon/catalog"
	"github.com/paimon-go/paimon/compaction"
	"github.com/paimon-go/paimon/datafile"
	"github.com/paimon-go/paimon/fileio"
	"github.com/paimon-go/paimon/reader"
	"github.com/paimon-go/paimon/row"
)

// whToken in a goTable option value stands for the warehouse URL the table
// is written to (whOptions), so that external roots sit beside the
// warehouse's databases, where every peer reaches them.
const whToken = "@WH@"

// whOptions returns opts with whToken replaced by whURL in every value.
func whOptions(opts map[string]string, whURL string) map[string]string {
	out := maps.Clone(opts)
	for k, v := range out {
		out[k] = strings.ReplaceAll(v, whToken, strings.TrimSuffix(whURL, "/"))
	}
	return out
}

// externalOptions are the options of a Go table written to two external
// roots, <warehouse>/external/<name>/{a,b}, with strategy, in 2 buckets.
func externalOptions(name, strategy string) map[string]string {
	dir := whToken + "/external/" + name
	return map[string]string{"bucket": "2",
		"data-file.external-paths":          dir + "/a," + dir + "/b",
		"data-file.external-paths.strategy": strategy}
}

func withOption(opts map[string]string, k, v string) map[string]string {
	opts[k] = v
	return opts
}

// TestGoORCManifests writes tables of the Go table set with
// manifest.format = orc (ORC manifests, manifest lists and, with deletion
// vectors, index manifests; issue 13) and has our reader and Java read
// them exactly. pypaimon reads Avro manifests only (as for Java-written
// tables of this format and for Parquet manifests), so it has no cell here.
func TestGoORCManifests(t *testing.T) {
	ctx := context.Background()
	wh := workDir(t, "go-orc-manifests")
	java := javaPeer()
	for _, base := range []string{"go_pk_dedupe_compacted", "go_pk_dv_dedupe", "go_append_part", "go_pk_dedupe_manifests_compacted"} {
		var g goTable
		for _, x := range goTables() {
			if x.name == base {
				g = x
			}
		}
		if g.name == "" {
			t.Fatalf("no Go table %s", base)
		}
		g.name += "_orc_manifests"
		g.options = maps.Clone(g.options)
		g.options["manifest.format"] = "orc"
		t.Run(g.name, func(t *testing.T) {
			rel, err := g.write(ctx, "file://"+wh)
			if err != nil {
				t.Fatal(err)
			}
			path := filepath.Join(wh, filepath.FromSlash(rel))
			want, err := g.expectedJSONL(tableFields(t, ctx, path))
			if err != nil {
				t.Fatal(err)
			}
			got, err := readGo(ctx, path, false)
			if err != nil {
				t.Fatalf("our reader: %v", err)
			}
			compare(t, want, got)
			got, err = java.run(ctx, "read", path)
			if err != nil {
				t.Fatalf("java: %v", err)
			}
			compare(t, want, got)
		})
	}
}

// TestJavaExtPathScenariosWrittenByGo runs the Java scenarios of
// ScenariosExtPath (Java writes data files below two external roots,
// round-robin and entropy-inject; TestJavaScenarios reads them at every
// snapshot), then writes into the same tables with our writer (and, for
// the primary-key table, a full compaction), and requires every data file
// we wrote to lie below one of the table's roots, in the bucket directory
// (with entropy-inject: the hash directories Java's
// EntropyInjectExternalPathProvider gives that name), and our read, Java's
// and pypaimon's to give the exact rows.
func TestJavaExtPathScenariosWrittenByGo(t *testing.T) {
	ctx := context.Background()
	java, py := javaPeer(), pythonPeer()
	out := workDir(t, "java-extpath-scenarios")
	names := []string{"extpath_pk_round_robin", "extpath_append_entropy"}
	if _, err := java.run(ctx, "scenarios", append([]string{out}, names...)...); err != nil {
		t.Fatalf("java scenarios: %v", err)
	}
	cat, err := catalog.Open(ctx, "file://"+filepath.Join(out, "warehouse"))
	if err != nil {
		t.Fatal(err)
	}
	defer cat.Close()
	for _, tc := range []struct {
		name    string
		rows    []goRow
		compact bool
		// dir is the directory of the file called name below a root, given
		// the location's first directory below the root.
		dir  func(first, name string) string
		want string
	}{
		{name: "extpath_pk_round_robin", compact: true,
			rows: []goRow{ins(int32(1), int32(2), "b-go"), ins(int32(2), int32(6), "f-go"),
				withKind(row.RowKindDelete, int32(2), int32(3), nil), ins(int32(3), int32(7), "g-go")},
			dir: func(first, _ string) string {
				if !strings.HasPrefix(first, "p=") {
					return "p=?/"
				}
				return first + "/bucket-"
			},
			want: `{"p":1,"k":1,"v":"A"}
{"p":1,"k":2,"v":"b-go"}
{"p":1,"k":5,"v":"e"}
{"p":2,"k":6,"v":"f-go"}
{"p":3,"k":7,"v":"g-go"}
`},
		{name: "extpath_append_entropy",
			rows: []goRow{ins(int32(4), "go"), ins(int32(5), nil)},
			dir:  func(_, name string) string { return "data/bucket-0/" + datafile.EntropyDirs(name) + "/" + name },
			want: `{"id":1,"s":"x"}
{"id":2,"s":null}
{"id":3,"s":"z"}
{"id":4,"s":"go"}
{"id":5,"s":null}
`},
	} {
		t.Run(tc.name, func(t *testing.T) {
			tbl, err := cat.GetTable(ctx, catalog.NewIdentifier("interop", tc.name))
			if err != nil {
				t.Fatal(err)
			}
			javaFiles := externalFiles(t, ctx, tbl.FileIO)
			if err := commitRows(ctx, tbl, "go-writer", 1, tc.rows, len(tc.rows[0].values) == 3); err != nil {
				t.Fatalf("our write: %v", err)
			}
			if tc.compact {
				if _, err := compaction.Compact(ctx, tbl.FileIO, tbl.Schema, "go-writer", compaction.Options{Full: true}); err != nil {
					t.Fatalf("our compaction: %v", err)
				}
			}
			roots := strings.Split(tbl.Schema.Options.String("data-file.external-paths", ""), ",")
			// Java's files and ours: with entropy-inject this checks our hash
			// directories against Java's on the files Java wrote.
			ours := 0
			for loc := range externalFiles(t, ctx, tbl.FileIO) {
				if !javaFiles[loc] {
					ours++
				}
				name := loc[strings.LastIndex(loc, "/")+1:]
				ok := false
				for _, r := range roots {
					rest, found := strings.CutPrefix(loc, "file:"+strings.TrimPrefix(r, "file://")+"/")
					ok = ok || (found && strings.HasPrefix(rest, tc.dir(strings.Split(rest, "/")[0], name)))
				}
				if !ok {
					t.Errorf("file %s (ours: %v) is not where Java puts it below %q", loc, !javaFiles[loc], roots)
				}
			}
			if ours == 0 {
				t.Errorf("no live file of ours")
			}
			if got, err := dataFilesIn(filepath.Join(out, "warehouse", "interop.db", tc.name)); err != nil || len(got) != 0 {
				t.Errorf("data files in the table directory: %q, %v", got, err)
			}
			path := filepath.Join(out, "warehouse", "interop.db", tc.name)
			for _, p := range []peer{{name: "go"}, java, py} {
				t.Run(p.name, func(t *testing.T) {
					var got []byte
					var err error
					if p.name == "go" {
						got, err = readGo(ctx, path, false)
					} else {
						got, err = p.run(ctx, "read", path)
					}
					if err != nil {
						t.Fatal(err)
					}
					compare(t, []byte(tc.want), got)
				})
			}
		})
	}
}

// externalFiles returns the _EXTERNAL_PATH of every live data file.
func externalFiles(t *testing.T, ctx context.Context, fio *fileio.FileIO) map[string]bool {
	t.Helper()
	plan, err := reader.NewScan(fio).Plan(ctx)
	if err != nil {
		t.Fatal(err)
	}
	out := map[string]bool{}
	for _, sp := range plan.Splits {
		for _, f := range sp.Files {
			if f.ExternalPath == nil {
				t.Fatalf("data file %s has no external path", f.FileName)
			}
			out[*f.ExternalPath] = true
		}
	}
	return out
}

// dataFilesIn lists the data files (.parquet, .orc, .avro) below dir.
func dataFilesIn(dir string) ([]string, error) {
	var out []string
	err := filepath.WalkDir(dir, func(p string, d os.DirEntry, err error) error {
		if err == nil && !d.IsDir() && slices.Contains([]string{".parquet", ".orc", ".avro"}, filepath.Ext(p)) &&
			!strings.Contains(p, string(filepath.Separator)+"manifest"+string(filepath.Separator)) {
			out = append(out, p)
		}
		return err
	})
	return out, err
}
