package paimon_test

import (
	"context"
	"path"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/paimon-go/paimon/catalog"
	"github.com/paimon-go/paimon/commit"
	"github.com/paimon-go/paimon/compaction"
	"github.com/paimon-go/paimon/expire"
	"github.com/paimon-go/paimon/internal/tabletest"
	"github.com/paimon-go/paimon/orphan"
	"github.com/paimon-go/paimon/reader"
	"github.com/paimon-go/paimon/types"
)

// TestORCManifests: a table with manifest.format = orc gets ORC manifests
// and manifest lists from commits, compaction and an on-demand manifest
// compaction (index manifests: manifest.TestORCManifestRoundTrip), reads
// back exactly the rows of its Avro-manifest twin at every snapshot, and
// expiration and orphan cleaning read them (the latter deletes nothing). Old code refused commit.New with commit.ErrUnsupported.
func TestORCManifests(t *testing.T) {
	ctx := context.Background()
	build := func(format string) (*catalog.Table, int64) {
		tbl := tabletest.NewTable(t, "", catalog.Schema{
			Fields:        []types.DataField{{Name: "p", Type: types.Int()}, {Name: "k", Type: types.Int()}, {Name: "v", Type: types.String()}},
			PartitionKeys: []string{"p"},
			PrimaryKeys:   []string{"p", "k"},
			Options:       map[string]string{"bucket": "1", "manifest.format": format, "deletion-vectors.enabled": "true"},
		})
		sc := types.SchemaToArrow(tbl.Schema.Fields)
		rec := tabletest.Batch(t, sc, []any{int32(1), int32(1), "a"}, []any{int32(2), int32(2), "b"})
		tabletest.WriteCommit(t, tbl, "u", 1, rec)
		rec.Release()
		rec = tabletest.Batch(t, sc, []any{int32(1), int32(1), "A"}, []any{int32(1), int32(3), "c"})
		tabletest.WriteCommit(t, tbl, "u", 2, rec)
		rec.Release()
		if _, err := compaction.Compact(ctx, tbl.FileIO, tbl.Schema, "u", compaction.Options{Full: true}); err != nil {
			t.Fatal(err)
		}
		c, err := commit.New(tbl.FileIO, tbl.Schema, "u")
		if err != nil {
			t.Fatal(err)
		}
		defer c.Close()
		sid, err := c.CompactManifests(ctx)
		if err != nil || sid == 0 {
			t.Fatalf("%s: manifest compaction: snapshot %d, %v", format, sid, err)
		}
		return tbl, sid
	}
	tbl, last := build("orc")
	twin, twinLast := build("avro")
	if last != twinLast {
		t.Fatalf("%d snapshots, the Avro twin %d", last, twinLast)
	}
	want := []string{"1|1|A", "1|3|c", "2|2|b"}
	if got := tabletest.ReadRows(t, tbl.FileIO.URL()); !slices.Equal(got, want) {
		t.Fatalf("rows %q, want %q", got, want)
	}
	// Every snapshot reads as the same snapshot of the Avro-manifest twin.
	for n := int64(1); n <= last; n++ {
		got := tabletest.ReadRows(t, tbl.FileIO.URL(), reader.WithSnapshot(n))
		if w := tabletest.ReadRows(t, twin.FileIO.URL(), reader.WithSnapshot(n)); !slices.Equal(got, w) {
			t.Fatalf("rows at snapshot %d %q, the Avro twin %q", n, got, w)
		}
	}
	infos, err := tbl.FileIO.List(ctx, "manifest")
	if err != nil {
		t.Fatal(err)
	}
	kinds := map[string]bool{}
	for _, fi := range infos {
		b, err := tbl.FileIO.ReadFile(ctx, fi.Path)
		if err != nil {
			t.Fatal(err)
		}
		if !strings.HasPrefix(string(b), "ORC") {
			t.Fatalf("%s is not ORC", fi.Path)
		}
		name := path.Base(fi.Path)
		for _, k := range []string{"index-manifest-", "manifest-list-", "manifest-"} {
			if strings.HasPrefix(name, k) {
				kinds[k] = true
				break
			}
		}
	}
	if !kinds["manifest-"] || !kinds["manifest-list-"] {
		t.Fatalf("manifest kinds %v", kinds)
	}
	if res, err := orphan.Clean(ctx, tbl.FileIO, 0, orphan.Options{Now: time.Now().Add(time.Hour)}); err != nil || len(res.Deleted) != 0 {
		t.Fatalf("orphan clean deleted %q, %v", res.Deleted, err)
	}
	if _, err := expire.Expire(ctx, tbl.FileIO, tbl.Schema, expire.Options{RetainMin: 1, RetainMax: 1, OlderThan: time.Now().Add(time.Hour)}); err != nil {
		t.Fatal(err)
	}
	if got := tabletest.ReadRows(t, tbl.FileIO.URL()); !slices.Equal(got, want) {
		t.Fatalf("rows after expiration %q, want %q", got, want)
	}
}
