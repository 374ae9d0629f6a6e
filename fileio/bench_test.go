package fileio_test

import (
	"context"
	"fmt"
	"testing"

	"github.com/paimon-go/paimon/fileio"
	"github.com/paimon-go/paimon/testenv"
)

// BenchmarkStore measures the latency of the operations a commit makes, on
// each store, with 1 KiB files:
//
//	go test ./fileio -run '^$' -bench Store -benchtime 200x
func BenchmarkStore(b *testing.B) {
	stores := []struct {
		name string
		url  func(b *testing.B) string
	}{
		{"file", func(b *testing.B) string { return "file://" + b.TempDir() }},
		{"mem", func(*testing.B) string { return "mem://" }},
		{"minio", func(b *testing.B) string { return testenv.MinIO(b) }},
	}
	data := make([]byte, 1024)
	for _, s := range stores {
		b.Run(s.name, func(b *testing.B) {
			ctx := context.Background()
			fio, err := fileio.Open(ctx, s.url(b))
			if err != nil {
				b.Fatal(err)
			}
			defer fio.Close()
			for i := range 100 {
				if err := fio.WriteFile(ctx, fmt.Sprintf("list/f-%03d", i), data); err != nil {
					b.Fatal(err)
				}
			}
			b.Run("WriteFile", func(b *testing.B) {
				for i := 0; b.Loop(); i++ {
					if err := fio.WriteFile(ctx, fmt.Sprintf("w/f-%d", i), data); err != nil {
						b.Fatal(err)
					}
				}
			})
			b.Run("CreateIfAbsent", func(b *testing.B) {
				for i := 0; b.Loop(); i++ {
					if err := fio.CreateIfAbsent(ctx, fmt.Sprintf("c/snapshot-%d", i), data); err != nil {
						b.Fatal(err)
					}
				}
			})
			b.Run("ReadFile", func(b *testing.B) {
				for i := 0; b.Loop(); i++ {
					if _, err := fio.ReadFile(ctx, fmt.Sprintf("list/f-%03d", i%100)); err != nil {
						b.Fatal(err)
					}
				}
			})
			b.Run("List100", func(b *testing.B) {
				for b.Loop() {
					if l, err := fio.List(ctx, "list"); err != nil || len(l) != 100 {
						b.Fatal(len(l), err)
					}
				}
			})
		})
	}
}
