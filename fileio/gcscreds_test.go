package fileio_test

import (
	"context"
	"errors"
	"path/filepath"
	"strings"
	"testing"

	"github.com/paimon-go/paimon/fileio"
	_ "github.com/paimon-go/paimon/fileio/gcs"
)

// TestGCSWithoutCredentials: a gs:// URL without Google Cloud credentials
// fails at Open with ErrNoCredentials and a hint, instead of gocloud's
// warning on standard output and empty credentials failing later.
func TestGCSWithoutCredentials(t *testing.T) {
	dir := t.TempDir()
	t.Setenv("STORAGE_EMULATOR_HOST", "")
	t.Setenv("STORAGE_EMULATOR_HOST_GRPC", "")
	t.Setenv("GOOGLE_APPLICATION_CREDENTIALS", filepath.Join(dir, "missing.json"))
	t.Setenv("HOME", dir)
	t.Setenv("CLOUDSDK_CONFIG", dir)
	_, err := fileio.Open(context.Background(), "gs://some-bucket/wh")
	if !errors.Is(err, fileio.ErrNoCredentials) || !strings.Contains(err.Error(), "GOOGLE_APPLICATION_CREDENTIALS") {
		t.Fatalf("open: %v, want ErrNoCredentials with a hint", err)
	}
}
