package snapshot

import (
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/paimon-go/paimon/fileio"
	"github.com/paimon-go/paimon/internal/memcheck"
)

// TestHugeSnapshotFileRefused reads a 1 GiB (sparse) snapshot and tag file: Get and Tag refuse
// them with fileio.ErrTooLarge naming the file, without reading them (heap ≤ 256 MiB).
func TestHugeSnapshotFileRefused(t *testing.T) {
	for _, kind := range []string{"snapshot", "tag"} {
		t.Run(kind, func(t *testing.T) {
			res, peak := memcheck.Peak(t, 256<<20, func() []byte {
				dir := t.TempDir()
				rel := (&Manager{}).Path(1)
				if kind == "tag" {
					rel = (&Manager{}).TagPath("t")
				}
				p := filepath.Join(dir, rel)
				if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
					t.Fatal(err)
				}
				if err := os.WriteFile(p, []byte(`{"id":1}`), 0o644); err != nil {
					t.Fatal(err)
				}
				if err := os.Truncate(p, 1<<30); err != nil {
					t.Fatal(err)
				}
				return []byte(dir)
			}, func(dir []byte) string {
				ctx := context.Background()
				fio, err := fileio.Open(ctx, "file://"+string(dir))
				if err != nil {
					return err.Error()
				}
				m := NewManager(fio)
				want := m.Path(1)
				if kind == "tag" {
					_, err = m.Tag(ctx, "t")
					want = m.TagPath("t")
				} else {
					_, err = m.Get(ctx, 1)
				}
				if errors.Is(err, fileio.ErrTooLarge) && strings.Contains(err.Error(), want) {
					return "ok"
				}
				return fmt.Sprintf("err = %v, want fileio.ErrTooLarge naming %s", err, want)
			})
			t.Logf("peak heap %d MiB", peak>>20)
			if peak > 256<<20 {
				t.Errorf("peak heap %d bytes, want ≤ %d", peak, 256<<20)
			}
			if res != "ok" {
				t.Error(res)
			}
		})
	}
}

// TestDecodeRefusesOversizedData checks the size bound of Decode and DecodeTag themselves.
func TestDecodeRefusesOversizedData(t *testing.T) {
	data := make([]byte, MaxFileSize+1)
	if _, err := Decode(data); !errors.Is(err, fileio.ErrTooLarge) {
		t.Errorf("Decode: %v, want fileio.ErrTooLarge", err)
	}
	if _, err := DecodeTag(data); !errors.Is(err, fileio.ErrTooLarge) {
		t.Errorf("DecodeTag: %v, want fileio.ErrTooLarge", err)
	}
}
