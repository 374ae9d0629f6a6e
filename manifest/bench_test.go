package manifest

import (
	"context"
	"io/fs"
	"os"
	"path/filepath"
	"testing"
)

func BenchmarkDecodeFixtureManifest(b *testing.B) {
	data, err := os.ReadFile(filepath.Join(fixtures, "pk_table_scan_and_read_dv_parquet", "manifest", "manifest-ba0138c4-ea53-45bb-9e8a-207e2b01fc8d-1"))
	if err != nil {
		b.Fatal(err)
	}
	b.ReportAllocs()
	for b.Loop() {
		if _, err := DecodeManifest(data, "m"); err != nil {
			b.Fatal(err)
		}
	}
}

// BenchmarkDecodeLargeManifest measures per-entry decoding speed on a 10 000-entry manifest.
func BenchmarkDecodeLargeManifest(b *testing.B) {
	entries := make([]Entry, 10000)
	for i := range entries {
		entries[i] = sampleEntry()
	}
	data, err := EncodeManifest(entries, WriteOptions{})
	if err != nil {
		b.Fatal(err)
	}
	b.ReportAllocs()
	b.SetBytes(int64(len(data)))
	for b.Loop() {
		if _, err := DecodeManifest(data, "m"); err != nil {
			b.Fatal(err)
		}
	}
	b.ReportMetric(float64(b.Elapsed().Nanoseconds())/float64(b.N*len(entries)), "ns/entry")
}

func BenchmarkEncodeLargeManifest(b *testing.B) {
	entries := make([]Entry, 10000)
	for i := range entries {
		entries[i] = sampleEntry()
	}
	b.ReportAllocs()
	for b.Loop() {
		if _, err := EncodeManifest(entries, WriteOptions{}); err != nil {
			b.Fatal(err)
		}
	}
	b.ReportMetric(float64(b.Elapsed().Nanoseconds())/float64(b.N*len(entries)), "ns/entry")
}

// memFS is an in-memory FileReader for benchmarks.
type memFS map[string][]byte

func (m memFS) ReadFile(_ context.Context, path string) ([]byte, error) {
	if b, ok := m[path]; ok {
		return b, nil
	}
	return nil, fs.ErrNotExist
}

// BenchmarkReaderFixtureManifest reads a fixture manifest through a Reader, which reuses the
// compiled schema and the zstd decoder across files.
func BenchmarkReaderFixtureManifest(b *testing.B) {
	name := "manifest-ba0138c4-ea53-45bb-9e8a-207e2b01fc8d-1"
	data, err := os.ReadFile(filepath.Join(fixtures, "pk_table_scan_and_read_dv_parquet", "manifest", name))
	if err != nil {
		b.Fatal(err)
	}
	r := NewReader(memFS{Path(name): data})
	defer r.Close()
	b.ReportAllocs()
	for b.Loop() {
		if _, err := r.Manifest(context.Background(), name); err != nil {
			b.Fatal(err)
		}
	}
}
