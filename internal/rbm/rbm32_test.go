package rbm

import (
	"bytes"
	"errors"
	"math/rand/v2"
	"testing"
)

// TestUnion32Java checks Union32 against the bytes Java Paimon 1.4.2's rbm32
// aggregate (FieldRoaringBitmap32Agg, RoaringBitmap 1.2.1) wrote for the same
// inputs (interop/java Rbm32Cases): every container pairing, with and
// without run containers in the inputs, run containers that Java turns into
// arrays, the tie where Java keeps a run container, full containers and
// folds of several inputs.
func TestUnion32Java(t *testing.T) {
	cases := loadCases(t, "testdata/java-unions32.txt.gz")
	if len(cases) != 42 {
		t.Fatalf("%d cases", len(cases))
	}
	for _, c := range cases {
		got, err := Union32(c.acc, c.in)
		if err != nil {
			t.Errorf("%s: %v", c.name, err)
			continue
		}
		if !bytes.Equal(got, c.union) {
			t.Errorf("%s:\n got %x\nwant %x", c.name, got, c.union)
		}
	}
}

// TestUnion32Corrupt: every truncation of a valid input, and a count of
// containers the bytes cannot hold, give ErrCorrupt; garbled bytes give a
// result or ErrCorrupt, never a panic.
func TestUnion32Corrupt(t *testing.T) {
	cases := loadCases(t, "testdata/java-unions32.txt.gz")
	for _, c := range cases[:12] {
		for n := range len(c.acc) {
			if _, err := Union32(c.acc[:n], c.in); !errors.Is(err, ErrCorrupt) {
				t.Fatalf("%s truncated to %d: %v", c.name, n, err)
			}
		}
	}
	huge := []byte{0x3a, 0x30, 0, 0, 0xff, 0xff, 0, 0}
	if _, err := Union32(huge, huge); !errors.Is(err, ErrCorrupt) {
		t.Fatalf("65535 containers in 8 bytes: %v", err)
	}
	rnd := rand.New(rand.NewPCG(1, 2))
	for _, c := range cases {
		for range 50 {
			g := bytes.Clone(c.acc)
			for range 3 {
				g[rnd.IntN(len(g))] = byte(rnd.Uint32())
			}
			if _, err := Union32(g, c.in); err != nil && !errors.Is(err, ErrCorrupt) {
				t.Fatalf("%s garbled: %v", c.name, err)
			}
		}
	}
}
