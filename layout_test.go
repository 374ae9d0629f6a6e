package paimon_test

import (
	"context"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/paimon-go/paimon/catalog"
	"github.com/paimon-go/paimon/compaction"
	"github.com/paimon-go/paimon/expire"
	"github.com/paimon-go/paimon/internal/tabletest"
	"github.com/paimon-go/paimon/orphan"
	"github.com/paimon-go/paimon/types"
)

// dataFiles lists the data files (.parquet/.orc/.avro) below the table root,
// sorted, with the random part of their names cut to the directory.
func dataFiles(t *testing.T, tbl *catalog.Table) []string {
	t.Helper()
	infos, err := tbl.FileIO.ListRecursive(context.Background(), "")
	if err != nil {
		t.Fatal(err)
	}
	var out []string
	for _, fi := range infos {
		if strings.HasPrefix(fi.Path, "manifest/") || strings.HasPrefix(fi.Path, "index/") {
			continue
		}
		for _, ext := range []string{".parquet", ".orc", ".avro"} {
			if strings.HasSuffix(fi.Path, ext) {
				i := strings.LastIndex(fi.Path, "/")
				out = append(out, fi.Path[:i+1])
			}
		}
	}
	slices.Sort(out)
	return out
}

// TestDataFilePathDirectory: with data-file.path-directory = data, the
// writer, compaction, the reader, orphan cleaning and expiration all place
// and find data files below data/<partition>/bucket-<n>/ (Java
// FileStorePathFactory.relativeBucketPath). Old code wrote and read
// p=1/bucket-0/ and so could not read a Java-written table.
func TestDataFilePathDirectory(t *testing.T) {
	ctx := context.Background()
	tbl := tabletest.NewTable(t, "", catalog.Schema{
		Fields:        []types.DataField{{Name: "p", Type: types.Int()}, {Name: "k", Type: types.Int()}, {Name: "v", Type: types.String()}},
		PartitionKeys: []string{"p"},
		PrimaryKeys:   []string{"p", "k"},
		Options: map[string]string{"bucket": "1", "data-file.path-directory": "data",
			"write-only": "true", "snapshot.num-retained.min": "1", "snapshot.num-retained.max": "1"},
	})
	sc := types.SchemaToArrow(tbl.Schema.Fields)
	rec := tabletest.Batch(t, sc, []any{int32(1), int32(1), "a"}, []any{int32(2), int32(2), "b"})
	tabletest.WriteCommit(t, tbl, "u", 1, rec)
	rec.Release()
	rec = tabletest.Batch(t, sc, []any{int32(1), int32(1), "A"}, []any{int32(1), int32(3), "c"})
	tabletest.WriteCommit(t, tbl, "u", 2, rec)
	rec.Release()
	if got, want := dataFiles(t, tbl), []string{"data/p=1/bucket-0/", "data/p=1/bucket-0/", "data/p=2/bucket-0/"}; !slices.Equal(got, want) {
		t.Fatalf("data files in %q, want %q", got, want)
	}
	want := []string{"1|1|A", "1|3|c", "2|2|b"}
	if got := tabletest.ReadRows(t, tbl.FileIO.URL()); !slices.Equal(got, want) {
		t.Fatalf("rows %q, want %q", got, want)
	}
	if _, err := compaction.Compact(ctx, tbl.FileIO, tbl.Schema, "u", compaction.Options{Full: true}); err != nil {
		t.Fatal(err)
	}
	// The compacted-away level-0 files are still referenced by snapshot 2
	// (p=2's single file is upgraded, not rewritten).
	if got, want := dataFiles(t, tbl), []string{"data/p=1/bucket-0/", "data/p=1/bucket-0/", "data/p=1/bucket-0/", "data/p=2/bucket-0/"}; !slices.Equal(got, want) {
		t.Fatalf("after compaction data files in %q, want %q", got, want)
	}
	res, err := orphan.Clean(ctx, tbl.FileIO, 0, orphan.Options{Now: time.Now().Add(time.Hour)})
	if err != nil {
		t.Fatal(err)
	}
	if len(res.Deleted) != 0 {
		t.Fatalf("orphan clean deleted %q", res.Deleted)
	}
	if _, err := expire.Expire(ctx, tbl.FileIO, tbl.Schema, expire.Options{RetainMin: 1, RetainMax: 1, OlderThan: time.Now().Add(time.Hour)}); err != nil {
		t.Fatal(err)
	}
	if got, want := dataFiles(t, tbl), []string{"data/p=1/bucket-0/", "data/p=2/bucket-0/"}; !slices.Equal(got, want) {
		t.Fatalf("after expiration data files in %q, want %q", got, want)
	}
	if got := tabletest.ReadRows(t, tbl.FileIO.URL()); !slices.Equal(got, want) {
		t.Fatalf("rows after compaction and expiration %q, want %q", got, want)
	}
}
