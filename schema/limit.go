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

// limitReader is the optional capability of an FS (*fileio.FileIO has it) to refuse a file
// larger than a limit before reading it.
type limitReader interface {
	ReadFileLimit(ctx context.Context, path string, limit int64) ([]byte, error)
}

// readFile reads p, at most MaxFileSize bytes; a larger file yields an error wrapping
// fileio.ErrTooLarge.
func readFile(ctx context.Context, fs FS, p string) ([]byte, error) {
	if l, ok := fs.(limitReader); ok {
		return l.ReadFileLimit(ctx, p, MaxFileSize)
	}
	data, err := fs.ReadFile(ctx, p)
	if err != nil {
		return nil, err
	}
	return data, checkSize(data)
}

// checkSize refuses data larger than MaxFileSize with an error wrapping fileio.ErrTooLarge.
func checkSize(data []byte) error {
	if len(data) > MaxFileSize {
		return fmt.Errorf("%w: %d bytes, limit %d", fileio.ErrTooLarge, len(data), MaxFileSize)
	}
	return nil
}
