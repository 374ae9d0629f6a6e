// Package hashindex implements dynamic-bucket mode (bucket = -1 on a
// primary-key table): the HASH index files that record, per
// partition-bucket, the hash codes of the keys living in the bucket (Java
// org.apache.paimon.index.HashIndexFile over IntFileUtils), the per-partition
// map from key hash to bucket that assigns new keys (Java PartitionIndex and
// HashBucketAssigner). Two writers that gave one key hash two buckets are
// reconciled by the committer (package commit, Dynamic buckets across
// writers; Java assumes a single assigner per key range and has no
// counterpart).
//
// A key's hash is Java's BinaryRow.hashCode of its trimmed primary key
// (row.HashCode of the encoded trimmed key row). A HASH index file is the
// hashes as 4-byte big-endian ints, nothing else; its IndexFileMeta has
// IndexType "HASH" and RowCount the number of hashes. A partition-bucket has
// one live HASH file, which replaces the previous one (the committer's
// BucketedCombiner).
package hashindex

import (
	"context"
	"encoding/binary"
	"errors"
	"fmt"
	"strconv"
	"sync/atomic"

	"github.com/paimon-go/paimon/fileio"
	"github.com/paimon-go/paimon/manifest"
)

// Sentinel errors; test with errors.Is.
var (
	// ErrCorrupt: a HASH index file whose size is not a multiple of 4 bytes
	// or does not match its IndexFileMeta (size or hash count). The message
	// names the file.
	ErrCorrupt = errors.New("hashindex: corrupt hash index file")
	// ErrMissing: a HASH index file named by the index manifest does not
	// exist; wraps fileio.ErrNotExist too. The message names the file.
	ErrMissing = errors.New("hashindex: hash index file missing")
	// ErrTooManyBuckets: a partition needs a new bucket but every bucket id
	// up to 32766 is taken (dynamic-bucket.max-buckets = -1); Java's "Too
	// more bucket ..., you should increase target bucket row number".
	ErrTooManyBuckets = errors.New("hashindex: no bucket id left")
)

// maxHashes bounds the hashes of one file: a bucket holds at most 2^32
// distinct int hashes.
const maxHashes = 1 << 32

// Path is the path of index file name relative to the table root
// ("index/<name>", Java IndexPathFactory).
func Path(name string) string { return "index/" + name }

// Read returns the hashes of the HASH index file f (Java
// HashIndexFile.read), in file order.
//
// Errors: ErrMissing (with fileio.ErrNotExist) when the file is absent;
// ErrCorrupt when its length is not a multiple of 4 or disagrees with
// f.FileSize or f.RowCount; other read errors wrapped. Each names the file.
func Read(ctx context.Context, fio *fileio.FileIO, f manifest.IndexFileMeta) ([]int32, error) {
	p := Path(f.FileName)
	if f.RowCount < 0 || f.RowCount > maxHashes {
		return nil, fmt.Errorf("%w: %s: its metadata says %d hashes", ErrCorrupt, p, f.RowCount)
	}
	b, err := fio.ReadFileLimit(ctx, p, 4*f.RowCount)
	switch {
	case errors.Is(err, fileio.ErrNotExist):
		return nil, fmt.Errorf("%w: %s: %w", ErrMissing, p, err)
	case errors.Is(err, fileio.ErrTooLarge):
		return nil, fmt.Errorf("%w: %s: larger than its metadata's %d hashes: %w", ErrCorrupt, p, f.RowCount, err)
	case err != nil:
		return nil, fmt.Errorf("hashindex: read %s: %w", p, err)
	}
	if len(b)%4 != 0 || (f.FileSize > 0 && int64(len(b)) != f.FileSize) || int64(len(b)/4) != f.RowCount {
		return nil, fmt.Errorf("%w: %s: %d bytes, its metadata says %d bytes and %d hashes", ErrCorrupt, p, len(b), f.FileSize, f.RowCount)
	}
	out := make([]int32, len(b)/4)
	for i := range out {
		out[i] = int32(binary.BigEndian.Uint32(b[4*i:]))
	}
	return out, nil
}

// Write writes hashes as a new HASH index file named name (see Namer) and
// returns its metadata (Java HashIndexFile.write). The file is created only
// if absent.
func Write(ctx context.Context, fio *fileio.FileIO, name string, hashes []int32) (manifest.IndexFileMeta, error) {
	// WriteFile replaces: names are unique (a UUID per writer).
	b := make([]byte, 4*len(hashes))
	for i, h := range hashes {
		binary.BigEndian.PutUint32(b[4*i:], uint32(h))
	}
	if err := fio.WriteFile(ctx, Path(name), b); err != nil {
		return manifest.IndexFileMeta{}, fmt.Errorf("hashindex: write %s: %w", Path(name), err)
	}
	return manifest.IndexFileMeta{IndexType: manifest.IndexTypeHash, FileName: name, FileSize: int64(len(b)), RowCount: int64(len(hashes))}, nil
}

// Namer hands out index file names "index-<uuid>-<n>" (Java
// IndexPathFactory.newPath), n counting from 0. Safe for concurrent use.
type Namer struct {
	uuid string
	next atomic.Int64
}

// NewNamer returns a Namer for the given UUID string.
func NewNamer(uuid string) *Namer { return &Namer{uuid: uuid} }

// Next returns the next name.
func (n *Namer) Next() string {
	return "index-" + n.uuid + "-" + strconv.FormatInt(n.next.Add(1)-1, 10)
}
