package snapshot

import (
	"context"
	"fmt"

	"github.com/paimon-go/paimon/fileio"
)

// MaxFileSize is the largest snapshot or tag file (bytes) Decode, DecodeTag and the Manager
// read. Java writes a few KB (properties included); the bound keeps a damaged or hostile file
// from being read whole into memory.
const MaxFileSize = 16 << 20

// limitReader is the optional capability of an FS (*fileio.FileIO has it) to refuse a file
// larger than a limit before reading it.
type limitReader interface {
	ReadFileLimit(ctx context.Context, path string, limit int64) ([]byte, error)
}

// maxHintSize is the largest hint file (LATEST, EARLIEST) read, in bytes. A hint holds one
// decimal id (at most 20 bytes, plus whitespace); a larger one cannot parse and is treated as
// an unparsable hint without being read whole.
const maxHintSize = 1 << 10

// readFile reads p, at most MaxFileSize bytes; a larger file yields an error wrapping
// fileio.ErrTooLarge.
func readFile(ctx context.Context, fs FS, p string) ([]byte, error) {
	return readFileLimit(ctx, fs, p, MaxFileSize)
}

// readFileLimit reads p, at most limit bytes; a larger file yields an error wrapping
// fileio.ErrTooLarge.
func readFileLimit(ctx context.Context, fs FS, p string, limit int64) ([]byte, error) {
	if l, ok := fs.(limitReader); ok {
		return l.ReadFileLimit(ctx, p, limit)
	}
	data, err := fs.ReadFile(ctx, p)
	if err != nil {
		return nil, err
	}
	if int64(len(data)) > limit {
		return nil, fmt.Errorf("snapshot: read %s: %w: %d bytes, limit %d", p, fileio.ErrTooLarge, len(data), limit)
	}
	return data, nil
}

// checkSize refuses data larger than MaxFileSize with an error wrapping fileio.ErrTooLarge.
func checkSize(data []byte) error {
	if len(data) > MaxFileSize {
		return fmt.Errorf("%w: %d bytes, limit %d", fileio.ErrTooLarge, len(data), MaxFileSize)
	}
	return nil
}
