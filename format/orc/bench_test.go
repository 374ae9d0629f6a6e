package orc

import (
	"bytes"
	"context"
	"os"
	"testing"
)

func benchmarkRead(b *testing.B, path string) {
	data, err := os.ReadFile(path)
	if err != nil {
		b.Fatal(err)
	}
	b.SetBytes(int64(len(data)))
	for b.Loop() {
		f, err := Open(bytes.NewReader(data), int64(len(data)))
		if err != nil {
			b.Fatal(err)
		}
		for rec, err := range f.Records(context.Background(), nil, 0) {
			if err != nil {
				b.Fatal(err)
			}
			rec.Release()
		}
	}
}

// BenchmarkReadAllTypes decodes the 1000-row, 22-column generated file.
func BenchmarkReadAllTypes(b *testing.B) { benchmarkRead(b, "testdata/types_zstd.orc") }

// BenchmarkReadManifest decodes a Java-written ORC manifest (2 entries).
func BenchmarkReadManifest(b *testing.B) {
	benchmarkRead(b, tablesDir+"/append_09_orc/manifest/manifest-3a44a0da-1008-463c-914e-28d271375e24-0")
}
