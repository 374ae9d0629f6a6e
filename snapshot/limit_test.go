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
				memcheck.SparseFile(t, p, []byte(`{"id":1}`), 1<<30)
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

// TestHugeHintFilesIgnored: LATEST and EARLIEST hint files of 1 GiB (sparse)
// were read whole by every latest-snapshot lookup. A hint larger than
// maxHintSize cannot hold an id; it is ignored like an unparsable hint
// without being read, and the latest and earliest snapshots come from
// listing.
func TestHugeHintFilesIgnored(t *testing.T) {
	res, peak := memcheck.Peak(t, 256<<20, func() []byte {
		dir := t.TempDir()
		m := &Manager{}
		for _, id := range []int64{1, 2} {
			p := filepath.Join(dir, m.Path(id))
			if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
				t.Fatal(err)
			}
			data, err := (&Snapshot{Version: 3, ID: id, SchemaID: 0, CommitUser: "u", CommitKind: "APPEND"}).Encode()
			if err != nil {
				t.Fatal(err)
			}
			if err := os.WriteFile(p, data, 0o644); err != nil {
				t.Fatal(err)
			}
		}
		for _, hint := range []string{HintLatest, HintEarliest} {
			p := filepath.Join(dir, SnapshotDir, hint)
			memcheck.SparseFile(t, p, []byte("1"), 1<<30)
		}
		return []byte(dir)
	}, func(dir []byte) string {
		ctx := context.Background()
		fio, err := fileio.Open(ctx, "file://"+string(dir))
		if err != nil {
			return err.Error()
		}
		m := NewManager(fio)
		latest, err := m.LatestID(ctx)
		if err != nil {
			return fmt.Sprintf("LatestID: %v", err)
		}
		earliest, err := m.EarliestID(ctx)
		if err != nil {
			return fmt.Sprintf("EarliestID: %v", err)
		}
		_, ok, err := m.EarliestHint(ctx)
		return fmt.Sprintf("latest %d earliest %d hint ok %v err %v", latest, earliest, ok, err)
	})
	t.Logf("peak heap %d MiB", peak>>20)
	if peak > 256<<20 {
		t.Errorf("peak heap %d bytes, want ≤ %d", peak, 256<<20)
	}
	if want := "latest 2 earliest 1 hint ok false err <nil>"; res != want {
		t.Errorf("got %q, want %q", res, want)
	}
}
