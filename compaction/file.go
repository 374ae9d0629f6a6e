package compaction

// The data files compaction writes: package datafile's rolling writer with
// FileSource COMPACT at the output level.

import (
	"errors"
	"fmt"

	"github.com/paimon-go/paimon/datafile"
	"github.com/paimon-go/paimon/manifest"
)

// Option keys of per-level file settings (Java CoreOptions map options,
// "level:value,level:value"), applied to the key-value files of each output
// level (datafile.NewLayout).
const (
	KeyFileFormatPerLevel      = datafile.KeyFileFormatPerLevel
	KeyFileCompressionPerLevel = datafile.KeyFileCompressionPerLevel
	KeyStatsModePerLevel       = datafile.KeyStatsModePerLevel
)

// defaultRowGroupBytes is the Parquet row group size of compaction outputs
// unless the table sets parquet.block.size: a Parquet writer holds its open
// row group in memory, and package writer uses the same 32 MiB for level-0
// files to bound its memory (Java's default is 128 MiB).
const defaultRowGroupBytes = 32 << 20

// layout returns the file layout of output level level.
func (t *table) layout(level int) (*datafile.Layout, error) {
	t.mu.Lock()
	defer t.mu.Unlock()
	if l, ok := t.layouts[level]; ok {
		return l, nil
	}
	l, err := datafile.NewLayout(t.ts, datafile.Config{
		Level: level, Source: manifest.SourceCompact, RowGroupBytes: defaultRowGroupBytes,
		Allocator: t.mem, Now: t.now,
	})
	if errors.Is(err, datafile.ErrUnsupported) {
		err = fmt.Errorf("%w: %w", ErrUnsupported, err)
	}
	if err != nil {
		return nil, err
	}
	t.layouts[level] = l
	return l, nil
}
