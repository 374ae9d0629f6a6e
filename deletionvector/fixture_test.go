package deletionvector_test

import (
	"bytes"
	"context"
	"encoding/binary"
	"os"
	"path/filepath"
	"reflect"
	"slices"
	"sort"
	"strconv"
	"strings"
	"testing"

	"github.com/paimon-go/paimon/deletionvector"
	"github.com/paimon-go/paimon/fileio"
	"github.com/paimon-go/paimon/internal/fixture"
	"github.com/paimon-go/paimon/manifest"
)

// fixtureDV is one deletion vector of a Java-written fixture table.
type fixtureDV struct {
	indexFile string
	deletionvector.Range
	positions []int64
}

// fixtureDVs lists every deletion vector that the fixture tables' index
// manifests reference. Index files, data files, offsets and lengths are
// stated in each table's EXPECTED.md (from upstream paimon-cpp tests);
// cardinalities are null in the 0.9-written pk_09_parquet (-1 here). The
// deleted positions follow from the write history in EXPECTED.md and the
// primary-key order of rows in the compacted files:
//
//   - pk_09_parquet, f1=10/bucket-1 holds Alex, Bob, David, Emily, Tony;
//     Tony (-D, snapshot 5) is position 4. f1=10/bucket-0 has two files
//     whose first rows are the old Alice (+U) and Lily (-D): position 0 each.
//   - pk_table_scan_and_read_dv_parquet: the same for Tony (4) and Alice (0).
//   - pk_table_with_alter_table_parquet, key0=1/key1=1 holds key2 = 22 Bob,
//     32 Emily, 42 Tony, 52 Alex, 62 David, 72 WHETHER, 82 Lily: -D Tony and
//     Lily (snapshot 3) are {2, 6}, +U Alex (snapshot 5) adds 3; key0=0 holds
//     TWO_ROADS (key2 2) and Alice (12): +U Alice is {1}.
var fixtureDVs = map[string][]fixtureDV{
	"pk_09_parquet": {
		{"index-ff7801ad-df90-49b2-9619-586eab9c68e3-0", deletionvector.Range{"data-0f3a001e-ce2f-4f01-bb47-08d9901cb76c-1.parquet", 1, 22, -1}, []int64{0}},
		{"index-ff7801ad-df90-49b2-9619-586eab9c68e3-0", deletionvector.Range{"data-0f3a001e-ce2f-4f01-bb47-08d9901cb76c-0.parquet", 31, 22, -1}, []int64{0}},
		{"index-ff7801ad-df90-49b2-9619-586eab9c68e3-1", deletionvector.Range{"data-6d416200-c9db-49ff-bc27-79837bf1aaab-0.parquet", 1, 22, -1}, []int64{4}},
	},
	"pk_table_scan_and_read_dv_parquet": {
		{"index-16bec1d6-fa31-49bd-a240-deadcfff6003-0", deletionvector.Range{"data-f19db350-7c55-4686-8839-78d15aa17fc1-0.parquet", 1, 22, 1}, []int64{0}},
		{"index-16bec1d6-fa31-49bd-a240-deadcfff6003-1", deletionvector.Range{"data-d18e5571-abce-4309-ad4a-37f0bc93679f-0.parquet", 1, 22, 1}, []int64{4}},
	},
	"pk_table_with_alter_table_parquet": {
		{"index-84326ea4-5d74-40a2-8a08-9d43d29f657a-0", deletionvector.Range{"data-4d96625f-825f-4703-a8c6-d38353070969-0.parquet", 1, 22, 1}, []int64{1}},
		{"index-84326ea4-5d74-40a2-8a08-9d43d29f657a-1", deletionvector.Range{"data-8969384c-d715-4113-b663-2248c9a8c8d9-0.parquet", 1, 24, 2}, []int64{2, 6}},
		{"index-c93829f3-1a72-4d88-8401-70663ce46426-1", deletionvector.Range{"data-8969384c-d715-4113-b663-2248c9a8c8d9-0.parquet", 1, 26, 3}, []int64{2, 3, 6}},
	},
}

// emptyIndexFiles are the fixture index files without vectors (the version
// byte alone, rowCount 0 in the index manifest).
var emptyIndexFiles = map[string][]string{
	"pk_09_parquet":                     {"index-ff7801ad-df90-49b2-9619-586eab9c68e3-2"},
	"pk_table_with_alter_table_parquet": {"index-c93829f3-1a72-4d88-8401-70663ce46426-0"},
}

func openTable(t *testing.T, table string) (*fileio.FileIO, string) {
	t.Helper()
	dir := fixture.Dir(t, table)
	fs, err := fileio.Open(context.Background(), dir)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { fs.Close() })
	return fs, dir
}

// TestFixtureIndexManifests checks that the index manifests reference
// exactly the expected vectors, and reads each with ReadOne (ranged reads
// through fileio) and ReadAll.
func TestFixtureIndexManifests(t *testing.T) {
	ctx := context.Background()
	for table, want := range fixtureDVs {
		t.Run(table, func(t *testing.T) {
			fs, dir := openTable(t, table)
			ents, err := os.ReadDir(filepath.Join(dir, "manifest"))
			if err != nil {
				t.Fatal(err)
			}
			type key struct {
				indexFile string
				r         deletionvector.Range
			}
			seen := map[key]bool{}
			byFile := map[string][]deletionvector.Range{}
			empty := map[string]bool{}
			for _, e := range ents {
				if !strings.HasPrefix(e.Name(), "index-manifest-") {
					continue
				}
				entries, err := manifest.ReadIndexManifest(ctx, fs, e.Name())
				if err != nil {
					t.Fatal(err)
				}
				for _, x := range entries {
					if x.IndexFile.IndexType != manifest.IndexTypeDeletionVectors {
						continue
					}
					if len(x.IndexFile.DVRanges) == 0 {
						empty[x.IndexFile.FileName] = true
					}
					var ranges []deletionvector.Range
					for _, r := range x.IndexFile.DVRanges {
						card := int64(-1)
						if r.Cardinality != nil {
							card = *r.Cardinality
						}
						dr := deletionvector.Range{DataFileName: r.DataFileName, Offset: r.Offset, Length: r.Length, Cardinality: card}
						seen[key{x.IndexFile.FileName, dr}] = true
						ranges = append(ranges, dr)
					}
					byFile[x.IndexFile.FileName] = ranges
				}
			}
			wantSeen := map[key]bool{}
			for _, w := range want {
				wantSeen[key{w.indexFile, w.Range}] = true
			}
			if !reflect.DeepEqual(seen, wantSeen) {
				t.Fatalf("index manifests reference %v, want %v", seen, wantSeen)
			}
			var emptyNames []string
			for n := range empty {
				emptyNames = append(emptyNames, n)
			}
			sort.Strings(emptyNames)
			if !slices.Equal(emptyNames, emptyIndexFiles[table]) {
				t.Fatalf("empty index files %v, want %v", emptyNames, emptyIndexFiles[table])
			}

			for _, w := range want {
				dv, err := deletionvector.ReadOne(ctx, fs, w.indexFile, w.Offset, w.Length)
				if err != nil {
					t.Fatal(err)
				}
				if got := positions(dv); !slices.Equal(got, w.positions) || dv.Cardinality() != int64(len(w.positions)) || dv.Bitmap64() {
					t.Fatalf("%s@%d: positions %v cardinality %d, want %v", w.indexFile, w.Offset, got, dv.Cardinality(), w.positions)
				}
				all, err := deletionvector.ReadAll(ctx, fs, w.indexFile, byFile[w.indexFile])
				if err != nil {
					t.Fatal(err)
				}
				if got := positions(all[w.DataFileName]); !slices.Equal(got, w.positions) {
					t.Fatalf("ReadAll %s: %s = %v, want %v", w.indexFile, w.DataFileName, got, w.positions)
				}
			}
		})
	}
}

// TestFixtureRewrite rebuilds every fixture index file from the decoded
// vectors, in the manifest's range order, and gets the Java-written bytes
// and ranges back.
func TestFixtureRewrite(t *testing.T) {
	for table, dvs := range fixtureDVs {
		_, dir := openTable(t, table)
		files := map[string][]fixtureDV{}
		for _, d := range dvs {
			files[d.indexFile] = append(files[d.indexFile], d)
		}
		for _, name := range emptyIndexFiles[table] {
			files[name] = nil
		}
		for name, list := range files {
			data, err := os.ReadFile(filepath.Join(dir, "index", name))
			if err != nil {
				t.Fatal(err)
			}
			slices.SortFunc(list, func(a, b fixtureDV) int { return int(a.Offset - b.Offset) })
			var entries []deletionvector.Entry
			var ranges []deletionvector.Range
			for _, d := range list {
				dv, err := deletionvector.ReadOne(context.Background(), &memFS{files: map[string][]byte{"index/" + name: data}}, name, d.Offset, d.Length)
				if err != nil {
					t.Fatal(err)
				}
				entries = append(entries, deletionvector.Entry{DataFileName: d.DataFileName, DV: dv})
				r := d.Range
				r.Cardinality = int64(len(d.positions)) // the writer always knows it
				ranges = append(ranges, r)
			}
			f, err := deletionvector.WriteSingleFile(entries)
			if err != nil {
				t.Fatal(err)
			}
			if !bytes.Equal(f.Data, data) {
				t.Fatalf("%s/%s: rewritten\n%x\nwant\n%x", table, name, f.Data, data)
			}
			if !reflect.DeepEqual(f.Ranges, ranges) {
				t.Fatalf("%s/%s: ranges %+v, want %+v", table, name, f.Ranges, ranges)
			}
		}
	}
}

// fixtureBlobs splits every index file of the fixture tables into its
// blobs by walking the size prefixes (all fixture blobs are 32-bit).
func fixtureBlobs(t testing.TB) map[string][]byte {
	t.Helper()
	out := map[string][]byte{}
	root := fixture.Root(t)
	paths, err := filepath.Glob(filepath.Join(root, "*", "index", "index-*"))
	if err != nil {
		t.Fatal(err)
	}
	for _, p := range paths {
		data, err := os.ReadFile(p)
		if err != nil {
			t.Fatal(err)
		}
		if len(data) == 0 || data[0] != deletionvector.FileVersion {
			t.Fatalf("%s: no version byte", p)
		}
		for off := 1; off < len(data); {
			if off+4 > len(data) {
				t.Fatalf("%s: trailing bytes at %d", p, off)
			}
			n := 4 + int(binary.BigEndian.Uint32(data[off:])) + 4
			if off+n > len(data) {
				t.Fatalf("%s: blob at %d runs past the end", p, off)
			}
			rel, _ := filepath.Rel(root, p)
			out[rel+"@"+strconv.Itoa(off)] = data[off : off+n]
			off += n
		}
	}
	return out
}

// TestFixtureBlobsRoundTrip decodes every blob of every fixture index file
// (including the ORC table's, whose manifests are ORC) and re-encodes it to
// the same bytes.
func TestFixtureBlobsRoundTrip(t *testing.T) {
	blobs := fixtureBlobs(t)
	if len(blobs) != 10 {
		t.Fatalf("%d fixture blobs, want 10", len(blobs))
	}
	for name, b := range blobs {
		dv, err := deletionvector.DecodeBlob(b)
		if err != nil {
			t.Fatalf("%s: %v", name, err)
		}
		enc, err := deletionvector.Encode(dv)
		if err != nil || !bytes.Equal(enc, b) {
			t.Fatalf("%s: re-encoded %x (%v), want %x", name, enc, err, b)
		}
	}
}
