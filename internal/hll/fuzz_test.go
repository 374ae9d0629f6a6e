package hll

import (
	"errors"
	"testing"
)

// FuzzUnion checks that any pair of byte strings gives either a result or
// an error wrapping ErrCorrupt: no panic, no unbounded loop or allocation.
func FuzzUnion(f *testing.F) {
	for i, c := range loadCases(f) {
		if i%7 == 0 && len(c.acc) < 20000 && len(c.in) < 20000 {
			f.Add(c.acc, c.in)
		}
	}
	f.Fuzz(func(t *testing.T, acc, in []byte) {
		out, err := Union(acc, in)
		if err != nil {
			if !errors.Is(err, ErrCorrupt) {
				t.Fatalf("error without ErrCorrupt: %v", err)
			}
			return
		}
		// A result is itself a sketch Java reads: union it again.
		if _, err := Union(out, out); err != nil {
			t.Fatalf("result does not union with itself: %v", err)
		}
	})
}
