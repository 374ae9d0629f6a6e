package schema

import (
	"context"
	"fmt"

	"github.com/paimon-go/paimon/fileio"
)

// MaxFileSize is the largest schema file (bytes) Decode and the Manager
// read. Java writes a few KB per hundred columns; the bound keeps a damaged or hostile file
// from being read whole into memory.
const MaxFileSize = 16 << 20

// readFile reads p, at most MaxFileSize bytes (fileio.ReadLimit).
func readFile(ctx context.Context, fs FS, p string) ([]byte, error) {
	return fileio.ReadLimit(ctx, fs, p, MaxFileSize)
}

// checkSize refuses data larger than MaxFileSize with an error wrapping fileio.ErrTooLarge.
func checkSize(data []byte) error {
	if len(data) > MaxFileSize {
		return fmt.Errorf("%w: %d bytes, limit %d", fileio.ErrTooLarge, len(data), MaxFileSize)
	}
	return nil
}
