package commit

import (
	"context"
	"slices"
	"sync"
	"testing"

	"github.com/paimon-go/paimon/fileio"
	"github.com/paimon-go/paimon/snapshot"
)

// hintFS records hint writes and blocks each until released.
type hintFS struct {
	snapshot.FS
	mu      sync.Mutex
	writes  []string
	started chan struct{}
	release chan struct{}
}

func (f *hintFS) WriteFile(_ context.Context, path string, data []byte) error {
	f.started <- struct{}{}
	<-f.release
	f.mu.Lock()
	defer f.mu.Unlock()
	f.writes = append(f.writes, path+"="+string(data))
	return nil
}

func (f *hintFS) Exists(context.Context, string) (bool, error) { return false, nil }

func (f *hintFS) List(context.Context, string) ([]fileio.FileInfo, error) { return nil, nil }

// TestHintWriterCoalesces: background hint writes never overlap, and ids
// that arrive during a write are coalesced into one write of the highest.
func TestHintWriterCoalesces(t *testing.T) {
	fs := &hintFS{started: make(chan struct{}), release: make(chan struct{})}
	h := newHintWriter(snapshot.NewManager(fs), false)
	ctx := context.Background()
	h.update(ctx, 1)
	<-fs.started // writing 1
	h.update(ctx, 3)
	h.update(ctx, 2)
	fs.release <- struct{}{}
	<-fs.started // writing 3
	fs.release <- struct{}{}
	h.wait()
	want := []string{"snapshot/LATEST=1", "snapshot/LATEST=3"}
	if !slices.Equal(fs.writes, want) {
		t.Errorf("hint writes %v, want %v", fs.writes, want)
	}
	// An older id after a newer one writes nothing.
	h.update(ctx, 2)
	h.wait()
	if len(fs.writes) != 2 {
		t.Errorf("hint writes %v after an older id", fs.writes)
	}
}
