package deletionvector_test

import (
	"bytes"
	"errors"
	"testing"

	"github.com/paimon-go/paimon/deletionvector"
)

// FuzzReadBlob feeds arbitrary bytes to the blob decoder: as a blob, as the
// single vector of an index file, and framed with a valid size prefix and
// CRC (so that mutations reach the bitmap parser). Decoding must never panic
// and must fail with ErrCorrupt; what decodes must re-encode to a blob that decodes
// to the same positions, and encoding that again must give the same bytes
// (Java's run optimization is idempotent).
func FuzzReadBlob(f *testing.F) {
	for _, b := range fixtureBlobs(f) {
		f.Add(b)
		f.Add(b[4 : len(b)-4]) // payload, for the framed path
	}
	for _, payload := range []string{
		magic64 + "0100000000000000 00000000 3a300000 01000000 0000 0100 10000000 0200 0300",
		magic64 + "0200000000000000 00000000 3a300000 00000000 01000000 3a300000 01000000 0000 0000 10000000 0500",
		magic32 + "3b300300 01 0000 0300 0100 0000 0200 0000 0300 0000 25000000 2b000000 2d000000 2f000000 0100 0000 0300 0000 0000 0000",
		magic32 + "3b300000 01 0000 0500 0300 0000 0300 0a00 0000 1400 0000",
	} {
		f.Add(frame(hx(f, payload)))
		f.Add(hx(f, payload))
	}
	f.Fuzz(func(t *testing.T, data []byte) {
		checkBlob(t, data)
		checkBlob(t, frame(data))
	})
}

func checkBlob(t *testing.T, data []byte) {
	for _, length := range []int32{int32(len(data)), int32(len(data)) - 8} {
		file := append([]byte{deletionvector.FileVersion}, data...)
		_, err := deletionvector.DecodeFile(file, "fuzz", []deletionvector.Range{{DataFileName: "d", Offset: 1, Length: length, Cardinality: -1}})
		if err != nil && !errors.Is(err, deletionvector.ErrCorrupt) {
			t.Fatalf("DecodeFile error %v is not ErrCorrupt", err)
		}
	}
	dv, err := deletionvector.DecodeBlob(data)
	if err != nil {
		if !errors.Is(err, deletionvector.ErrCorrupt) {
			t.Fatalf("error %v is not ErrCorrupt", err)
		}
		return
	}
	card := dv.Cardinality()
	if card > 1<<22 {
		return // valid but too large to walk quickly
	}
	pos := positions(dv)
	if int64(len(pos)) != card {
		t.Fatalf("%d positions, cardinality %d", len(pos), card)
	}
	for i, p := range pos {
		if !dv.IsDeleted(p) || (i > 0 && p <= pos[i-1]) {
			t.Fatalf("position %d: IsDeleted %v, previous %v", p, dv.IsDeleted(p), pos[:i])
		}
	}
	if deletionvector.BitmapCount64(dv) > 1<<16 {
		// A sparse 64-bit layout with a large key: Java re-encodes it with
		// an empty bitmap (12 bytes) for every smaller key, up to 2 GiB.
		return
	}
	enc, err := deletionvector.Encode(dv)
	if err != nil {
		t.Fatalf("Encode of decoded vector: %v", err)
	}
	dv2, err := deletionvector.DecodeBlob(enc)
	if err != nil {
		t.Fatalf("decode of re-encoded blob: %v", err)
	}
	if p2 := positions(dv2); len(p2) != len(pos) || dv2.Bitmap64() != dv.Bitmap64() {
		t.Fatalf("re-encoded vector has %d positions (bitmap64 %v), want %d (%v)", len(p2), dv2.Bitmap64(), len(pos), dv.Bitmap64())
	} else {
		for i := range pos {
			if p2[i] != pos[i] {
				t.Fatalf("re-encoded position %d = %d, want %d", i, p2[i], pos[i])
			}
		}
	}
	enc2, err := deletionvector.Encode(dv2)
	if err != nil || !bytes.Equal(enc2, enc) {
		t.Fatalf("second encoding differs:\n%x\n%x (%v)", enc2, enc, err)
	}
}
