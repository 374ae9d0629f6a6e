package deletionvector_test

import (
	"encoding/binary"
	"fmt"
	"hash/crc32"
	"testing"

	"github.com/paimon-go/paimon/deletionvector"
	"github.com/paimon-go/paimon/internal/memcheck"
)

// fullRuns64 builds a 64-bit blob of keys bitmaps, each one run container holding all 65536
// positions of its key: 19 bytes per 65536 deleted positions, the densest encoding.
func fullRuns64(keys int) []byte {
	payload := binary.LittleEndian.AppendUint32(nil, deletionvector.Magic64)
	payload = binary.LittleEndian.AppendUint64(payload, uint64(keys))
	for k := range keys {
		payload = binary.LittleEndian.AppendUint32(payload, uint32(k))
		payload = binary.LittleEndian.AppendUint32(payload, 12347) // SERIAL_COOKIE, one container
		payload = append(payload, 1)                               // container 0 is a run container
		payload = binary.LittleEndian.AppendUint16(payload, 0)     // high 16 bits 0
		payload = binary.LittleEndian.AppendUint16(payload, 65535) // cardinality - 1
		payload = binary.LittleEndian.AppendUint16(payload, 1)     // one run
		payload = binary.LittleEndian.AppendUint16(payload, 0)     // from 0
		payload = binary.LittleEndian.AppendUint16(payload, 65535) // length - 1
	}
	blob := binary.BigEndian.AppendUint32(nil, uint32(len(payload)))
	blob = append(blob, payload...)
	return binary.BigEndian.AppendUint32(blob, crc32.ChecksumIEEE(payload))
}

// TestDenseBlobBoundedMemory decodes a 110 KB 64-bit blob that deletes 380 million positions:
// the decoder keeps run containers as runs (memory proportional to the blob), so decoding,
// counting and probing it stays within 256 MiB. This guards the present behaviour.
func TestDenseBlobBoundedMemory(t *testing.T) {
	const keys = 5800
	res, peak := memcheck.Peak(t, 256<<20, func() []byte {
		b := fullRuns64(keys)
		t.Logf("%d bytes", len(b))
		return b
	}, func(blob []byte) string {
		dv, err := deletionvector.DecodeBlob(blob)
		if err != nil {
			return err.Error()
		}
		return fmt.Sprint(dv.Cardinality(), dv.IsDeleted(int64(keys-1)<<32|65535), dv.IsDeleted(int64(keys)<<32))
	})
	t.Logf("peak heap %d MiB", peak>>20)
	if peak > 256<<20 {
		t.Errorf("peak heap %d bytes, want ≤ %d", peak, 256<<20)
	}
	if want := fmt.Sprint(keys*65536, true, false); res != want {
		t.Errorf("got %q, want %q", res, want)
	}
}
