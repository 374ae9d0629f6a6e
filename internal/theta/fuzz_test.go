package theta

import (
	"errors"
	"testing"
)

// FuzzUnion: any bytes give a union or a typed error, never a panic; a
// successful union is itself a sketch Union accepts.
func FuzzUnion(f *testing.F) {
	var t testing.T
	for _, c := range loadCases(&t) {
		if len(c.acc)+len(c.in) < 4096 {
			f.Add(c.acc, c.in)
		}
	}
	f.Fuzz(func(t *testing.T, acc, in []byte) {
		out, err := Union(acc, in)
		if err != nil {
			if !errors.Is(err, ErrCorrupt) && !errors.Is(err, ErrUnsupported) {
				t.Fatalf("err %v, want ErrCorrupt or ErrUnsupported", err)
			}
			return
		}
		if _, err := Union(out, nil); err != nil {
			t.Fatalf("our union is not accepted again: %v", err)
		}
	})
}

func BenchmarkUnion(b *testing.B) {
	var t testing.T
	for _, c := range loadCases(&t) {
		if c.name != "est+est2" && c.name != "exact+mid" {
			continue
		}
		b.Run(c.name, func(b *testing.B) {
			b.SetBytes(int64(len(c.acc) + len(c.in)))
			for b.Loop() {
				if _, err := Union(c.acc, c.in); err != nil {
					b.Fatal(err)
				}
			}
		})
	}
}
