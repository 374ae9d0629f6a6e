package deletionvector

import (
	"context"
	"encoding/binary"
	"fmt"
	"io"
	"math"
)

// FileReader is the file access the readers need; *fileio.FileIO satisfies
// it. Paths are relative to the table root.
type FileReader interface {
	// NewRangeReader reads length bytes from offset (cut short at the end
	// of the file).
	NewRangeReader(ctx context.Context, path string, offset, length int64) (io.ReadCloser, error)
	// ReadFile reads a whole file.
	ReadFile(ctx context.Context, path string) ([]byte, error)
}

// Range locates the deletion vector of one data file in an index file (Java
// DeletionVectorMeta; the manifest's _DELETIONS_VECTORS_RANGES element).
type Range struct {
	DataFileName string // f0: the data file the vector belongs to
	// Offset (f1) is the byte position of the blob's size prefix.
	Offset int32
	// Length (f2) is the blob's size prefix value for 32-bit vectors
	// (payload only), the whole blob including size prefix and CRC for
	// 64-bit vectors.
	Length int32
	// Cardinality (_CARDINALITY, Paimon 1.0+) is the number of deleted
	// rows, -1 when unknown.
	Cardinality int64
}

// Path returns the path of index file name relative to the table root.
func Path(name string) string { return "index/" + name }

// prefetch is the largest prefix of an index file ReadOne reads in one
// request to get the version byte together with the blob; beyond it the
// version byte is read separately.
const prefetch = 256 << 10

// ReadOne reads the deletion vector at (offset, length) of index file
// index/<indexFile> (Java DeletionVectorsIndexFile.readDeletionVector), with
// ranged reads: one covering the version byte and the blob when the blob
// ends within the first 256 KiB, else one for each. offset and length are
// the manifest's DeletionVectorMeta values (see [Range]).
//
// Errors: ErrCorrupt (naming the file and offset) for a wrong version byte,
// a size prefix that disagrees with length, a bad magic number or checksum,
// a range past the end of the file, or a malformed bitmap; the FileReader's
// error (e.g. fileio.ErrNotExist) if reading fails.
func ReadOne(ctx context.Context, fs FileReader, indexFile string, offset, length int32) (*DeletionVector, error) {
	p := Path(indexFile)
	where := fmt.Sprintf("%s at offset %d", p, offset)
	if offset < 1 || length < 1 {
		return nil, corrupt(where, fmt.Errorf("invalid range (offset %d, length %d)", offset, length))
	}
	// A blob spans at most length+8 bytes (32-bit: size prefix and CRC
	// around length bytes; 64-bit: length bytes).
	end := int64(offset) + int64(length) + 8
	var (
		data []byte
		base int64
		err  error
	)
	if end <= prefetch {
		data, err = readRange(ctx, fs, p, 0, end)
		if err != nil {
			return nil, err
		}
		if err := checkVersion(data); err != nil {
			return nil, corrupt(p, err)
		}
	} else {
		v, err := readRange(ctx, fs, p, 0, 1)
		if err != nil {
			return nil, err
		}
		if err := checkVersion(v); err != nil {
			return nil, corrupt(p, err)
		}
		if data, err = readRange(ctx, fs, p, int64(offset), int64(length)+8); err != nil {
			return nil, err
		}
		base = int64(offset)
	}
	blob, err := blobAt(data, base, offset, length)
	if err != nil {
		return nil, corrupt(where, err)
	}
	dv, err := decodeBlob(blob)
	if err != nil {
		return nil, corrupt(where, err)
	}
	return dv, nil
}

// ReadAll reads the whole index file index/<indexFile> and decodes the
// deletion vectors at ranges, keyed by data file name (Java
// DeletionVectorsIndexFile.readAllDeletionVectors). See [DecodeFile].
//
// Errors: as DecodeFile; the FileReader's error if reading fails.
func ReadAll(ctx context.Context, fs FileReader, indexFile string, ranges []Range) (map[string]*DeletionVector, error) {
	p := Path(indexFile)
	data, err := fs.ReadFile(ctx, p)
	if err != nil {
		return nil, fmt.Errorf("deletionvector: read %s: %w", p, err)
	}
	return DecodeFile(data, indexFile, ranges)
}

// DecodeFile decodes the deletion vectors at ranges of the index file
// content data, keyed by data file name; name is the file name, used in
// errors. A range whose Cardinality is known (>= 0) must match the decoded
// vector.
//
// Errors: ErrCorrupt naming the file and offset, as for ReadOne, also for a
// cardinality mismatch.
func DecodeFile(data []byte, name string, ranges []Range) (map[string]*DeletionVector, error) {
	p := Path(name)
	if err := checkVersion(data); err != nil {
		return nil, corrupt(p, err)
	}
	out := make(map[string]*DeletionVector, len(ranges))
	for _, r := range ranges {
		where := fmt.Sprintf("%s at offset %d", p, r.Offset)
		if r.Offset < 1 || r.Length < 1 {
			return nil, corrupt(where, fmt.Errorf("invalid range (offset %d, length %d)", r.Offset, r.Length))
		}
		blob, err := blobAt(data, 0, r.Offset, r.Length)
		if err != nil {
			return nil, corrupt(where, err)
		}
		dv, err := decodeBlob(blob)
		if err != nil {
			return nil, corrupt(where, err)
		}
		if r.Cardinality >= 0 && dv.Cardinality() != r.Cardinality {
			return nil, corrupt(where, fmt.Errorf("%d deleted rows, manifest says %d for %s", dv.Cardinality(), r.Cardinality, r.DataFileName))
		}
		out[r.DataFileName] = dv
	}
	return out, nil
}

// checkVersion checks the index file's first byte.
func checkVersion(data []byte) error {
	if len(data) == 0 {
		return fmt.Errorf("empty index file, no version byte")
	}
	if data[0] != FileVersion {
		return fmt.Errorf("version byte %d, expected %d", data[0], FileVersion)
	}
	return nil
}

// blobAt returns the blob at file position offset with manifest length
// length, from data holding the file's bytes from position base on. It
// applies Java DeletionVector.read's length rules: for the 32-bit magic the
// size prefix must equal length, for the 64-bit magic size+8 must.
func blobAt(data []byte, base int64, offset, length int32) ([]byte, error) {
	rel := int64(offset) - base
	if rel < 0 || rel+8 > int64(len(data)) {
		return nil, fmt.Errorf("range (length %d) starts past the end of the file", length)
	}
	size := int64(int32(binary.BigEndian.Uint32(data[rel:])))
	magic := binary.BigEndian.Uint32(data[rel+4:])
	var total int64
	switch {
	case magic == Magic32:
		if size != int64(length) {
			return nil, fmt.Errorf("size prefix %d, manifest length %d (32-bit)", size, length)
		}
		total = size + 8
	case binary.LittleEndian.Uint32(data[rel+4:]) == Magic64:
		if size+8 != int64(length) {
			return nil, fmt.Errorf("size prefix %d, manifest length %d (64-bit, expected size+8)", size, length)
		}
		total = size + 8
	default:
		return nil, fmt.Errorf("magic number %#08x is neither %#08x (32-bit) nor %#08x little-endian (64-bit)", magic, Magic32, Magic64)
	}
	if rel+total > int64(len(data)) {
		return nil, fmt.Errorf("blob of %d bytes runs past the end of the file", total)
	}
	return data[rel : rel+total], nil
}

// readRange reads up to n bytes of path from offset.
func readRange(ctx context.Context, fs FileReader, path string, offset, n int64) ([]byte, error) {
	rc, err := fs.NewRangeReader(ctx, path, offset, n)
	if err != nil {
		return nil, fmt.Errorf("deletionvector: read %s: %w", path, err)
	}
	defer rc.Close()
	data, err := io.ReadAll(io.LimitReader(rc, n))
	if err != nil {
		return nil, fmt.Errorf("deletionvector: read %s: %w", path, err)
	}
	return data, nil
}

// Entry is one data file's deletion vector to write into an index file.
type Entry struct {
	DataFileName string
	DV           *DeletionVector
}

// IndexFile is the content of one written deletion-vector index file, as
// Java's DeletionFileWriter produces it.
type IndexFile struct {
	// Data is the whole file: the version byte, then the blobs.
	Data []byte
	// Ranges lists, in file order, where each data file's vector is: the
	// IndexFileMeta's dvRanges. len(Ranges) is its rowCount, len(Data) its
	// fileSize.
	Ranges []Range
}

// FileWriter builds one deletion-vector index file in memory (Java
// DeletionFileWriter): the version byte, then one blob per Write, in order.
// The zero value is not usable; use NewFileWriter.
type FileWriter struct {
	data   []byte
	ranges []Range
	names  map[string]struct{}
}

// NewFileWriter returns a writer holding just the version byte.
func NewFileWriter() *FileWriter {
	return &FileWriter{data: []byte{FileVersion}, names: map[string]struct{}{}}
}

// Write appends the blob of dv for data file dataFile (Java
// DeletionFileWriter.write) and returns its range: the offset of its size
// prefix, its manifest length and dv's cardinality. Like [Encode] it
// run-optimizes dv in place.
//
// Errors: ErrInvalid for a nil vector, a data file already written, or a
// file that would outgrow the int32 offsets (2 GiB); the file is unchanged.
func (w *FileWriter) Write(dataFile string, dv *DeletionVector) (Range, error) {
	if _, dup := w.names[dataFile]; dup {
		return Range{}, fmt.Errorf("deletionvector: write %s: %w: data file written twice", dataFile, ErrInvalid)
	}
	start := len(w.data)
	data, err := appendBlob(w.data, dv)
	if err != nil {
		return Range{}, fmt.Errorf("deletionvector: write %s: %w", dataFile, err)
	}
	if int64(len(data)) > math.MaxInt32 {
		w.data = data[:start]
		return Range{}, fmt.Errorf("deletionvector: write %s: %w: index file would exceed 2 GiB", dataFile, ErrInvalid)
	}
	w.data = data
	r := Range{
		DataFileName: dataFile,
		Offset:       int32(start),
		Length:       dv.metaLength(len(data) - start),
		Cardinality:  dv.Cardinality(),
	}
	w.ranges = append(w.ranges, r)
	w.names[dataFile] = struct{}{}
	return r, nil
}

// Size returns the current file size in bytes (Java DeletionFileWriter.getPos).
func (w *FileWriter) Size() int64 { return int64(len(w.data)) }

// Result returns the file written so far. The writer must not be used
// afterwards.
func (w *FileWriter) Result() IndexFile {
	return IndexFile{Data: w.data, Ranges: w.ranges}
}

// WriteSingleFile writes all entries, in order, into one index file (Java
// DeletionVectorIndexFileWriter.writeSingleFile). With no entries the file
// is the version byte alone, as Java writes it to replace a bucket's last
// index file. Java iterates a HashMap here; a caller that wants Java's exact
// bytes passes the entries in that map's iteration order.
//
// Errors: as FileWriter.Write.
func WriteSingleFile(entries []Entry) (IndexFile, error) {
	w := NewFileWriter()
	for _, e := range entries {
		if _, err := w.Write(e.DataFileName, e.DV); err != nil {
			return IndexFile{}, err
		}
	}
	return w.Result(), nil
}

// WriteWithRolling writes entries, in order, into as many index files as
// needed (Java DeletionVectorIndexFileWriter.writeWithRolling): an entry is
// always written into the current file, and the file is closed once its
// size exceeds targetSize bytes (option deletion-vector.index-file.target-size,
// default 2 MiB). No entries give no files.
//
// Errors: as FileWriter.Write.
func WriteWithRolling(entries []Entry, targetSize int64) ([]IndexFile, error) {
	var (
		out []IndexFile
		w   *FileWriter
	)
	for _, e := range entries {
		if w == nil {
			w = NewFileWriter()
		}
		if _, err := w.Write(e.DataFileName, e.DV); err != nil {
			return nil, err
		}
		if w.Size() > targetSize {
			out = append(out, w.Result())
			w = nil
		}
	}
	if w != nil {
		out = append(out, w.Result())
	}
	return out, nil
}
