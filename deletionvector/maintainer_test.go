package deletionvector_test

import (
	"bytes"
	"context"
	"errors"
	"os"
	"path/filepath"
	"reflect"
	"slices"
	"testing"

	"github.com/paimon-go/paimon/deletionvector"
	"github.com/paimon-go/paimon/fileio"
	"github.com/paimon-go/paimon/manifest"
	"github.com/paimon-go/paimon/row"
	"github.com/paimon-go/paimon/types"
)

func tempFS(t *testing.T) (*fileio.FileIO, string) {
	t.Helper()
	dir := t.TempDir()
	fs, err := fileio.Open(context.Background(), dir)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { fs.Close() })
	return fs, dir
}

func card(n int64) *int64 { return &n }

// Roaring portable bytes (no-run cookie 12346, one container of key 0,
// cardinality-1, offset 16, then the 16-bit values), built by hand.
const (
	roaring0  = "3a300000 01000000 0000 0000 10000000 0000"
	roaring23 = "3a300000 01000000 0000 0100 10000000 0200 0300"
	roaring14 = "3a300000 01000000 0000 0100 10000000 0100 0400"
)

func TestMaintainerWriteExactBytes(t *testing.T) {
	ctx := context.Background()
	fs, dir := tempFS(t)
	m := deletionvector.NewMaintainer(false)
	if m.Modified() {
		t.Fatal("new Maintainer is modified")
	}
	for _, d := range []struct {
		file string
		pos  int64
	}{{"data-b.parquet", 0}, {"data-a.parquet", 3}, {"data-a.parquet", 2}, {"data-a.parquet", 3}} {
		if err := m.NotifyNewDeletion(d.file, d.pos); err != nil {
			t.Fatal(err)
		}
	}
	names := deletionvector.NewNamer("u")
	added, deleted, err := m.WriteDeletionVectorsIndex(ctx, fs, names)
	if err != nil {
		t.Fatal(err)
	}
	if deleted != nil {
		t.Errorf("deleted = %v, want none (nothing restored)", deleted)
	}
	blobA := frame(hx(t, magic32+roaring23)) // 4 + 24 + 4 bytes
	blobB := frame(hx(t, magic32+roaring0))  // 4 + 22 + 4 bytes
	wantData := append(append([]byte{1}, blobA...), blobB...)
	want := []manifest.IndexFileMeta{{
		IndexType: "DELETION_VECTORS", FileName: "index-u-0", FileSize: 63, RowCount: 2,
		DVRanges: []manifest.DeletionVectorMeta{
			{DataFileName: "data-a.parquet", Offset: 1, Length: 24, Cardinality: card(2)},
			{DataFileName: "data-b.parquet", Offset: 33, Length: 22, Cardinality: card(1)},
		},
	}}
	if !reflect.DeepEqual(added, want) {
		t.Fatalf("added = %+v\nwant %+v", added, want)
	}
	got, err := os.ReadFile(filepath.Join(dir, "index", "index-u-0"))
	if err != nil {
		t.Fatal(err)
	}
	if !bytes.Equal(got, wantData) || len(got) != 63 {
		t.Fatalf("index file\n%x\nwant\n%x", got, wantData)
	}
	if m.Modified() {
		t.Error("Modified after write")
	}
	// Nothing changed: nothing written.
	if a, d, err := m.WriteDeletionVectorsIndex(ctx, fs, names); a != nil || d != nil || err != nil {
		t.Errorf("unchanged write = %v, %v, %v; want nothing", a, d, err)
	}
	// Deleting a deleted row is no change either.
	if err := m.NotifyNewDeletion("data-b.parquet", 0); err != nil || m.Modified() {
		t.Errorf("re-deleting: err %v, modified %v; want no change", err, m.Modified())
	}

	// The next file replaces the first; removing vectors of rewritten files.
	m.RemoveDeletionVector("data-b.parquet")
	m.RemoveDeletionVector("data-unknown.parquet")
	added2, deleted2, err := m.WriteDeletionVectorsIndex(ctx, fs, names)
	if err != nil {
		t.Fatal(err)
	}
	if !reflect.DeepEqual(deleted2, want) {
		t.Errorf("deleted = %+v, want the first file", deleted2)
	}
	if len(added2) != 1 || added2[0].FileName != "index-u-1" || added2[0].FileSize != 33 || added2[0].RowCount != 1 ||
		!reflect.DeepEqual(added2[0].DVRanges, want[0].DVRanges[:1]) {
		t.Errorf("added = %+v, want index-u-1 with data-a's vector at offset 1", added2)
	}
	// No vector left: the last file is deleted, nothing written.
	m.RemoveDeletionVector("data-a.parquet")
	added3, deleted3, err := m.WriteDeletionVectorsIndex(ctx, fs, names)
	if err != nil || added3 != nil || !reflect.DeepEqual(deleted3, added2) {
		t.Errorf("emptying write = %+v, %+v, %v; want no file, delete %s", added3, deleted3, err, added2[0].FileName)
	}
	if _, err := os.Stat(filepath.Join(dir, "index", "index-u-2")); !errors.Is(err, os.ErrNotExist) {
		t.Errorf("index-u-2 written (%v)", err)
	}
}

func TestMaintainerPositionError(t *testing.T) {
	m := deletionvector.NewMaintainer(false)
	if err := m.NotifyNewDeletion("f", deletionvector.MaxPosition32+1); !errors.Is(err, deletionvector.ErrPosition) {
		t.Errorf("err = %v, want ErrPosition", err)
	}
	if m.Modified() || m.DeletionVectorOf("f") != nil {
		t.Error("failed deletion changed the Maintainer")
	}
	m64 := deletionvector.NewMaintainer(true)
	if err := m64.NotifyNewDeletion("f", deletionvector.MaxPosition32+1); err != nil {
		t.Fatal(err)
	}
	if dv := m64.DeletionVectorOf("f"); !dv.Bitmap64() || !dv.IsDeleted(deletionvector.MaxPosition32+1) {
		t.Error("64-bit Maintainer did not keep the position in a 64-bit vector")
	}
}

// TestMaintainerRestoreFixture restores the vectors of a Java-written
// bucket (pk_table_scan_and_read_dv_parquet, f1=10 bucket 1: Tony at
// position 4 of data-d18e5571-...-0), adds a deletion and checks the bytes
// of the replacing index file.
func TestMaintainerRestoreFixture(t *testing.T) {
	ctx := context.Background()
	src, _ := openTable(t, "pk_table_scan_and_read_dv_parquet")
	entries, err := manifest.ReadIndexManifest(ctx, src, "index-manifest-3f491f6b-79ec-484b-aa03-f4737e96bf9a-0")
	if err != nil {
		t.Fatal(err)
	}
	part := row.Serialize(mustEncode(t, int32(10)))
	files := deletionvector.BucketFiles(entries, part, 1)
	if len(files) != 1 || files[0].FileName != "index-16bec1d6-fa31-49bd-a240-deadcfff6003-1" {
		t.Fatalf("bucket files = %+v, want index-...-1", files)
	}
	if other := deletionvector.BucketFiles(entries, part, 7); other != nil {
		t.Errorf("bucket 7 files = %+v, want none", other)
	}
	m, err := deletionvector.RestoreMaintainer(ctx, src, files, false)
	if err != nil {
		t.Fatal(err)
	}
	const data = "data-d18e5571-abce-4309-ad4a-37f0bc93679f-0.parquet"
	if got := m.DataFiles(); !slices.Equal(got, []string{data}) {
		t.Fatalf("data files = %v", got)
	}
	if got := positions(m.DeletionVectorOf(data)); !slices.Equal(got, []int64{4}) || m.Modified() {
		t.Fatalf("restored positions %v (modified %v), want [4]", got, m.Modified())
	}
	if err := m.NotifyNewDeletion(data, 1); err != nil {
		t.Fatal(err)
	}
	dst, dir := tempFS(t)
	added, deleted, err := m.WriteDeletionVectorsIndex(ctx, dst, deletionvector.NewNamer("g"))
	if err != nil {
		t.Fatal(err)
	}
	if !reflect.DeepEqual(deleted, files) {
		t.Errorf("deleted = %+v, want the restored file", deleted)
	}
	want := manifest.IndexFileMeta{IndexType: "DELETION_VECTORS", FileName: "index-g-0", FileSize: 33, RowCount: 1,
		DVRanges: []manifest.DeletionVectorMeta{{DataFileName: data, Offset: 1, Length: 24, Cardinality: card(2)}}}
	if len(added) != 1 || !reflect.DeepEqual(added[0], want) {
		t.Fatalf("added = %+v, want %+v", added, want)
	}
	got, _ := os.ReadFile(filepath.Join(dir, "index", "index-g-0"))
	if wantData := append([]byte{1}, frame(hx(t, magic32+roaring14))...); !bytes.Equal(got, wantData) {
		t.Errorf("index file %x, want %x", got, wantData)
	}
}

func TestRestoreMaintainerErrors(t *testing.T) {
	ctx := context.Background()
	fs, dir := tempFS(t)
	if err := os.MkdirAll(filepath.Join(dir, "index"), 0o755); err != nil {
		t.Fatal(err)
	}
	// index-bad holds a wrong version byte.
	if err := os.WriteFile(filepath.Join(dir, "index", "index-bad"), append([]byte{2}, frame(hx(t, magic32+roaring0))...), 0o644); err != nil {
		t.Fatal(err)
	}
	ext := "s3://elsewhere/index-x"
	rng := []manifest.DeletionVectorMeta{{DataFileName: "d", Offset: 1, Length: 22}}
	for _, c := range []struct {
		name string
		f    manifest.IndexFileMeta
		want error
	}{
		{"hash index", manifest.IndexFileMeta{IndexType: "HASH", FileName: "index-h"}, deletionvector.ErrInvalid},
		{"external path", manifest.IndexFileMeta{IndexType: "DELETION_VECTORS", FileName: "index-x", ExternalPath: &ext, DVRanges: rng}, deletionvector.ErrInvalid},
		{"no ranges", manifest.IndexFileMeta{IndexType: "DELETION_VECTORS", FileName: "index-bad"}, deletionvector.ErrCorrupt},
		{"bad version", manifest.IndexFileMeta{IndexType: "DELETION_VECTORS", FileName: "index-bad", DVRanges: rng}, deletionvector.ErrCorrupt},
		{"missing", manifest.IndexFileMeta{IndexType: "DELETION_VECTORS", FileName: "index-gone", DVRanges: rng}, fileio.ErrNotExist},
	} {
		if _, err := deletionvector.RestoreMaintainer(ctx, fs, []manifest.IndexFileMeta{c.f}, false); !errors.Is(err, c.want) {
			t.Errorf("%s: err = %v, want %v", c.name, err, c.want)
		}
	}
}

func TestNamer(t *testing.T) {
	n := deletionvector.NewNamer("abc")
	if a, b := n.Next(), n.Next(); a != "index-abc-0" || b != "index-abc-1" {
		t.Errorf("names %q, %q", a, b)
	}
}

func mustEncode(t *testing.T, vals ...any) row.BinaryRow {
	t.Helper()
	ts := make([]types.DataType, len(vals))
	for i, v := range vals {
		switch v.(type) {
		case int32:
			ts[i] = types.Int()
		default:
			t.Fatalf("unsupported %T", v)
		}
	}
	r, err := row.Encode(ts, vals)
	if err != nil {
		t.Fatal(err)
	}
	return r
}
