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

// maxHintSize is the largest hint file (LATEST, EARLIEST) read, in bytes. A hint holds one
// decimal id (at most 20 bytes, plus whitespace); a larger one cannot parse and is treated as
// an unparsable hint without being read whole.
const maxHintSize = 1 << 10

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
