package rbm

import (
	"errors"
	"testing"
)

// FuzzUnion: any bytes give a union or ErrCorrupt, never a panic; a
// successful union decodes again. Seeds are Java-written bitmaps.
func FuzzUnion64(f *testing.F) {
	for _, c := range loadCasesF(f) {
		f.Add(c.acc, c.in)
	}
	f.Fuzz(func(t *testing.T, acc, in []byte) {
		out, err := Union64(acc, in)
		if err != nil {
			if !errors.Is(err, ErrCorrupt) {
				t.Fatalf("err %v, want ErrCorrupt", err)
			}
			return
		}
		if _, err := Values(out); err != nil {
			t.Fatalf("our union does not decode: %v", err)
		}
	})
}

func loadCasesF(f *testing.F) []javaCase {
	var t testing.T
	cases := loadCases(&t, "testdata/java-unions.txt.gz")
	if len(cases) > 12 {
		cases = cases[:12]
	}
	return cases
}

func BenchmarkUnion64(b *testing.B) {
	var t testing.T
	for _, c := range loadCases(&t, "testdata/java-unions.txt.gz") {
		if c.name != "random-dense" && c.name != "node256" {
			continue
		}
		b.Run(c.name, func(b *testing.B) {
			b.SetBytes(int64(len(c.acc) + len(c.in)))
			for b.Loop() {
				if _, err := Union64(c.acc, c.in); err != nil {
					b.Fatal(err)
				}
			}
		})
	}
}
