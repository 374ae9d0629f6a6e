package manifest

import (
	"bytes"
	"errors"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"

	"github.com/paimon-go/paimon/internal/ocf"
)

// blockEnds returns the offsets at which a container may validly end: after the header and
// after each block's sync marker.
func blockEnds(t *testing.T, data []byte) map[int]bool {
	t.Helper()
	f, err := ocf.Open(data)
	if err != nil {
		t.Fatal(err)
	}
	ends := map[int]bool{}
	d := ocf.NewDecoder(data)
	// Re-parse the header to find its end: magic, metadata map, sync.
	d.Skip(4)
	for {
		n := d.BlockCount(2)
		if n == 0 {
			break
		}
		for i := 0; i < n; i++ {
			d.SkipBytes()
			d.SkipBytes()
		}
	}
	d.Skip(16)
	ends[d.Offset()] = true
	for d.Remaining() > 0 {
		d.Long()
		size := d.Long()
		d.Skip(int(size) + 16)
		if d.Err() != nil {
			t.Fatal(d.Err())
		}
		ends[d.Offset()] = true
	}
	_ = f
	return ends
}

func decodeKind(kind string, data []byte) (any, error) {
	return decodeAny(kind, data, "x")
}

// TestTruncated decodes every prefix of several fixture files: each must fail with ErrCorrupt,
// except prefixes ending exactly at a block boundary, which are valid shorter files.
func TestTruncated(t *testing.T) {
	picked := map[string]bool{}
	for _, f := range avroFixtures(t) {
		key := f.kind + filepath.Dir(f.path)
		if picked[key] {
			continue
		}
		picked[key] = true
		ends := blockEnds(t, f.data)
		for n := 0; n < len(f.data); n++ {
			_, err := decodeKind(f.kind, f.data[:n])
			switch {
			case ends[n] && err != nil:
				t.Errorf("%s[:%d] ends at a block boundary but fails: %v", f.path, n, err)
			case !ends[n] && !errors.Is(err, ErrCorrupt):
				t.Fatalf("%s[:%d]: err = %v, want ErrCorrupt", f.path, n, err)
			case !ends[n] && !strings.Contains(err.Error(), "x"):
				t.Fatalf("error does not name the file: %v", err)
			}
		}
	}
}

// TestBitFlips flips every byte of a few fixtures; decoding must not panic and must either
// succeed or fail with one of the package's sentinel errors.
func TestBitFlips(t *testing.T) {
	for _, f := range avroFixtures(t)[:12] {
		for i := range f.data {
			data := bytes.Clone(f.data)
			data[i] ^= 0x5a
			_, err := decodeKind(f.kind, data)
			if err != nil && !errors.Is(err, ErrCorrupt) && !errors.Is(err, ErrUnsupportedFormat) &&
				!errors.Is(err, ErrUnsupportedVersion) {
				t.Fatalf("%s byte %d: unexpected error %v", f.path, i, err)
			}
		}
	}
}

func TestFormatSniffing(t *testing.T) {
	paths, _ := filepath.Glob(filepath.Join(fixtures, "append_09_parquet", "manifest", "manifest-list-*"))
	if len(paths) == 0 {
		t.Fatal("no ORC fixture")
	}
	data, err := os.ReadFile(paths[0])
	if err != nil {
		t.Fatal(err)
	}
	if !bytes.HasPrefix(data, []byte("ORC")) {
		t.Fatalf("%s is not ORC", paths[0])
	}
	if rows, err := DecodeManifestList(data, "orc"); err != nil || len(rows) == 0 {
		t.Errorf("ORC manifest list: %v %v", rows, err)
	}
	// A truncated ORC manifest is corrupt, not unsupported.
	if _, err := DecodeManifestList(data[:len(data)/2], "orc"); !errors.Is(err, ErrCorrupt) {
		t.Errorf("truncated ORC: %v", err)
	}
	// Parquet manifests are read (manifest.format=parquet); a stub is corrupt.
	// The prefix is said once ("manifest: corrupt file" only once).
	if _, err := DecodeManifestList([]byte("PAR1xxxx"), "p"); !errors.Is(err, ErrCorrupt) || !strings.HasPrefix(err.Error(), "manifest: p: manifest: corrupt file: Parquet: ") || strings.Count(err.Error(), "corrupt") != 1 {
		t.Errorf("parquet: %v", err)
	}
	if _, err := DecodeManifestList([]byte("junk"), "j"); !errors.Is(err, ErrCorrupt) {
		t.Errorf("junk: %v", err)
	}
	if _, err := DecodeManifestList(nil, "empty"); !errors.Is(err, ErrCorrupt) {
		t.Errorf("empty: %v", err)
	}
}

func TestVersionChecks(t *testing.T) {
	e := sampleEntry()
	data, err := EncodeManifest([]Entry{e}, WriteOptions{Compression: "null"})
	if err != nil {
		t.Fatal(err)
	}
	// The first datum byte after the block header is _VERSION (zig-zag 2 = 0x04).
	f, _ := ocf.Open(data)
	_, block, _ := f.Next()
	at := bytes.Index(data, block)
	if block[0] != 0x04 || at < 0 {
		t.Fatalf("unexpected layout: %x", block[:4])
	}
	for v, msg := range map[byte]string{0x02: "legacy", 0x06: "_VERSION 3"} {
		bad := bytes.Clone(data)
		bad[at] = v
		_, err := DecodeManifest(bad, "m")
		if !errors.Is(err, ErrUnsupportedVersion) || errors.Is(err, ErrCorrupt) || !strings.Contains(err.Error(), msg) {
			t.Errorf("version byte %x: %v", v, err)
		}
	}
	// An index manifest row must carry _VERSION 1.
	ix, err := EncodeIndexManifest([]IndexManifestEntry{{Partition: EmptyRow(), IndexFile: IndexFileMeta{IndexType: "HASH"}}},
		WriteOptions{Compression: "null"})
	if err != nil {
		t.Fatal(err)
	}
	if _, err := DecodeManifest(ix, "ix"); err == nil {
		t.Error("an index manifest decoded as a manifest")
	}
}

// TestSchemaResolution covers writer schemas Java may produce or accept: missing nullable
// fields become null, a missing required field is an error, int widens to long.
func TestSchemaResolution(t *testing.T) {
	build := func(schema string, rec func(w *ocf.Writer)) []byte {
		w, err := ocf.NewWriter([]byte(schema), "null", -1)
		if err != nil {
			t.Fatal(err)
		}
		rec(w)
		if err := w.EndRecord(); err != nil {
			t.Fatal(err)
		}
		out, err := w.Finish()
		if err != nil {
			t.Fatal(err)
		}
		return out
	}
	// _SCHEMA_ID written as int, _PARTITION_STATS absent would be required -> error.
	noStats := build(`{"type":"record","name":"r","fields":[{"name":"_VERSION","type":"int"},
		{"name":"_FILE_NAME","type":"string"},{"name":"_FILE_SIZE","type":"long"},{"name":"_NUM_ADDED_FILES","type":"long"},
		{"name":"_NUM_DELETED_FILES","type":"long"},{"name":"_SCHEMA_ID","type":"int"}]}`, func(w *ocf.Writer) {
		w.Block.Int(2)
		w.Block.String("m")
		w.Block.Long(1)
		w.Block.Long(2)
		w.Block.Long(3)
		w.Block.Int(4)
	})
	if _, err := DecodeManifestList(noStats, "n"); !errors.Is(err, ErrCorrupt) || !strings.Contains(err.Error(), "_PARTITION_STATS") {
		t.Errorf("missing required field: %v", err)
	}
	ok := build(`{"type":"record","name":"r","fields":[{"name":"_VERSION","type":"int"},
		{"name":"_SCHEMA_ID","type":"int"},{"name":"_FILE_NAME","type":"string"},{"name":"_FILE_SIZE","type":"long"},
		{"name":"_NUM_ADDED_FILES","type":"long"},{"name":"_NUM_DELETED_FILES","type":"long"},
		{"name":"_PARTITION_STATS","type":{"type":"record","name":"s","fields":[{"name":"_MIN_VALUES","type":"bytes"},
		{"name":"_MAX_VALUES","type":"bytes"}]}},{"name":"_MAX_BUCKET","type":["null","int"]},
		{"name":"x","type":{"type":"enum","name":"e","symbols":["A","B"]}}]}`, func(w *ocf.Writer) {
		w.Block.Int(2)
		w.Block.Int(-4)
		w.Block.String("m")
		w.Block.Long(1)
		w.Block.Long(2)
		w.Block.Long(3)
		w.Block.Bytes([]byte{7})
		w.Block.Bytes(nil)
		w.Block.NonNull()
		w.Block.Int(9)
		w.Block.Int(1)
	})
	got, err := DecodeManifestList(ok, "ok")
	want := []FileMeta{{FileName: "m", FileSize: 1, NumAddedFiles: 2, NumDeletedFiles: 3, SchemaID: -4,
		PartitionStats: SimpleStats{MinValues: []byte{7}, MaxValues: []byte{}}, MaxBucket: ptr[int32](9)}}
	if err != nil || !reflect.DeepEqual(got, want) {
		t.Errorf("resolution: %+v %v", got, err)
	}
	// A field of an incompatible type is rejected when the schema is compiled.
	bad := build(`{"type":"record","name":"r","fields":[{"name":"_VERSION","type":"string"}]}`, func(w *ocf.Writer) {
		w.Block.String("2")
	})
	if _, err := DecodeManifestList(bad, "b"); !errors.Is(err, ErrCorrupt) {
		t.Errorf("incompatible type: %v", err)
	}
}

// fuzzBudget is the decoding budget of fuzzed inputs: small, so that an input that expands
// costs milliseconds (DecodeBudget gives every file at least 32 MiB).
const fuzzBudget = 1 << 20

// fuzzDecode decodes data as kind with the fuzzing budget and the decoders cached in c (plans
// per writer schema, the zstd decoder), as a Reader does.
func fuzzDecode(c *codec, kind string, data []byte) (any, error) {
	switch kind {
	case "list":
		return decodeFileBudget(c, data, "x", listTable, listFromArrow, fuzzBudget)
	case "index":
		return decodeFileBudget(c, data, "x", indexTable, indexFromArrow, fuzzBudget)
	}
	return decodeFileBudget(c, data, "x", entryTable, entriesFromArrow, fuzzBudget)
}

// FuzzReadManifest decodes arbitrary bytes as each kind of manifest file (with a 1 MiB budget).
// Decoding must not panic; errors must wrap the package's sentinels; anything that decodes must
// survive a write/read round trip unchanged.
func FuzzReadManifest(f *testing.F) {
	paths, _ := filepath.Glob(filepath.Join(fixtures, "*", "manifest", "*"))
	for _, p := range paths {
		data, err := os.ReadFile(p)
		if err == nil && len(data) < 4096 {
			f.Add(data)
		}
	}
	r := &Reader{}
	defer r.Close()
	c := &r.codec
	f.Fuzz(func(t *testing.T, data []byte) {
		for _, kind := range []string{"list", "manifest", "index"} {
			rows, err := fuzzDecode(c, kind, data)
			if err != nil {
				if !errors.Is(err, ErrCorrupt) && !errors.Is(err, ErrUnsupportedFormat) &&
					!errors.Is(err, ErrUnsupportedVersion) && !errors.Is(err, ErrTooLarge) {
					t.Fatalf("%s: unexpected error %v", kind, err)
				}
				continue
			}
			var out []byte
			switch kind {
			case "list":
				out, err = EncodeManifestList(rows.([]FileMeta), WriteOptions{Compression: "null"})
			case "index":
				out, err = EncodeIndexManifest(rows.([]IndexManifestEntry), WriteOptions{Compression: "null"})
			default:
				out, err = EncodeManifest(rows.([]Entry), WriteOptions{Compression: "null"})
			}
			if err != nil {
				t.Fatalf("%s: re-encode: %v", kind, err)
			}
			again, err := decodeKind(kind, out)
			if err != nil {
				t.Fatalf("%s: decode re-encoded: %v", kind, err)
			}
			if reflect.ValueOf(rows).Len() != 0 && !reflect.DeepEqual(again, rows) {
				t.Fatalf("%s: round trip changed rows\n got: %+v\nwant: %+v", kind, again, rows)
			}
		}
	})
}
