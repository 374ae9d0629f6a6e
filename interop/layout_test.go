//go:build interop

package interop

import (
	"context"
	"maps"
	"path/filepath"
	"testing"
)

// TestGoParquetManifests writes tables of the Go table set with
// manifest.format = parquet (Parquet manifests, manifest lists and, with
// deletion vectors, index manifests; issue 13) and has our reader and Java
// read them exactly. pypaimon reads Avro manifests only (as for
// Java-written tables of this format), so it has no cell here.
func TestGoParquetManifests(t *testing.T) {
	ctx := context.Background()
	wh := workDir(t, "go-parquet-manifests")
	java := javaPeer()
	for _, base := range []string{"go_pk_dedupe_compacted", "go_pk_dv_dedupe", "go_append_part"} {
		var g goTable
		for _, x := range goTables() {
			if x.name == base {
				g = x
			}
		}
		if g.name == "" {
			t.Fatalf("no Go table %s", base)
		}
		g.name += "_parquet_manifests"
		g.options = maps.Clone(g.options)
		g.options["manifest.format"] = "parquet"
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
