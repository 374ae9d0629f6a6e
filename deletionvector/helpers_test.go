package deletionvector_test

import (
	"bytes"
	"context"
	"encoding/binary"
	"encoding/hex"
	"hash/crc32"
	"io"
	"strings"
	"testing"

	"github.com/paimon-go/paimon/deletionvector"
)

// hx decodes hex, ignoring spaces, newlines and '|' separators.
func hx(t testing.TB, s string) []byte {
	t.Helper()
	s = strings.NewReplacer(" ", "", "\n", "", "\t", "", "|", "").Replace(s)
	b, err := hex.DecodeString(s)
	if err != nil {
		t.Fatalf("bad hex %q: %v", s, err)
	}
	return b
}

// build returns a deletion vector with the given positions deleted.
func build(t testing.TB, bitmap64 bool, positions ...int64) *deletionvector.DeletionVector {
	t.Helper()
	dv := deletionvector.New(bitmap64)
	for _, p := range positions {
		if err := dv.Delete(p); err != nil {
			t.Fatalf("Delete(%d): %v", p, err)
		}
	}
	return dv
}

// positions lists the deleted positions of dv.
func positions(dv *deletionvector.DeletionVector) []int64 {
	var out []int64
	for p := range dv.All() {
		out = append(out, p)
	}
	return out
}

// blob32 frames a 32-bit payload (magic + roaring bytes) as a blob: size
// prefix and CRC-32 computed here, independently of the package.
func frame(payload []byte) []byte {
	out := binary.BigEndian.AppendUint32(nil, uint32(len(payload)))
	out = append(out, payload...)
	return binary.BigEndian.AppendUint32(out, crc32.ChecksumIEEE(payload))
}

// memFS is an in-memory FileReader that counts requests.
type memFS struct {
	files      map[string][]byte
	rangeReads [][2]int64 // offset, length of each NewRangeReader call
	wholeReads int
}

func (m *memFS) NewRangeReader(_ context.Context, path string, offset, length int64) (io.ReadCloser, error) {
	m.rangeReads = append(m.rangeReads, [2]int64{offset, length})
	data, ok := m.files[path]
	if !ok {
		return nil, errNotExist
	}
	if offset >= int64(len(data)) {
		return io.NopCloser(bytes.NewReader(nil)), nil
	}
	end := int64(len(data))
	if length >= 0 && offset+length < end {
		end = offset + length
	}
	return io.NopCloser(bytes.NewReader(data[offset:end])), nil
}

func (m *memFS) ReadFile(_ context.Context, path string) ([]byte, error) {
	m.wholeReads++
	data, ok := m.files[path]
	if !ok {
		return nil, errNotExist
	}
	return data, nil
}

type notExist struct{}

func (notExist) Error() string { return "file does not exist" }

var errNotExist error = notExist{}
