package progress

import (
	"context"
	"errors"
	"fmt"
	"path/filepath"
	"strings"
	"testing"

	"github.com/paimon-go/paimon/fileio"
	"github.com/paimon-go/paimon/internal/memcheck"
)

// TestHugeOffsetsFileRefused reads a 1 GiB (sparse) offsets file: Read refuses it with
// fileio.ErrTooLarge naming the file, without reading it (heap ≤ 256 MiB); Decode refuses data
// over MaxFileSize.
func TestHugeOffsetsFileRefused(t *testing.T) {
	const rel = "metadata/huge.offsets"
	res, peak := memcheck.Peak(t, 256<<20, func() []byte {
		dir := t.TempDir()
		p := filepath.Join(dir, rel)
		memcheck.SparseFile(t, p, []byte(`{"version":1}`), 1<<30)
		return []byte(dir)
	}, func(dir []byte) string {
		ctx := context.Background()
		fio, err := fileio.Open(ctx, "file://"+string(dir))
		if err != nil {
			return err.Error()
		}
		_, err = Read(ctx, fio, "", "/elsewhere/"+rel)
		if errors.Is(err, fileio.ErrTooLarge) && strings.Contains(err.Error(), rel) {
			return "ok"
		}
		return fmt.Sprintf("err = %v, want fileio.ErrTooLarge naming %s", err, rel)
	})
	t.Logf("peak heap %d MiB", peak>>20)
	if peak > 256<<20 {
		t.Errorf("peak heap %d bytes, want ≤ %d", peak, 256<<20)
	}
	if res != "ok" {
		t.Error(res)
	}
	if _, err := Decode(make([]byte, MaxFileSize+1)); !errors.Is(err, fileio.ErrTooLarge) {
		t.Errorf("Decode: %v, want fileio.ErrTooLarge", err)
	}
}
