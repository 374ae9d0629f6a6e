package schema

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

// TestHugeSchemaFileRefused reads a 1 GiB (sparse) schema file: Get refuses it with
// fileio.ErrTooLarge naming the file, without reading it (heap ≤ 256 MiB); Decode refuses data
// over MaxFileSize.
func TestHugeSchemaFileRefused(t *testing.T) {
	res, peak := memcheck.Peak(t, 256<<20, func() []byte {
		dir := t.TempDir()
		p := filepath.Join(dir, NewManager(nil, "t").Path(0))
		memcheck.SparseFile(t, p, []byte(`{"id":0}`), 1<<30)
		return []byte(dir)
	}, func(dir []byte) string {
		ctx := context.Background()
		fio, err := fileio.Open(ctx, "file://"+string(dir))
		if err != nil {
			return err.Error()
		}
		m := NewManager(fio, "t")
		_, err = m.Get(ctx, 0)
		if errors.Is(err, fileio.ErrTooLarge) && strings.Contains(err.Error(), m.Path(0)) {
			return "ok"
		}
		return fmt.Sprintf("err = %v, want fileio.ErrTooLarge naming %s", err, m.Path(0))
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
