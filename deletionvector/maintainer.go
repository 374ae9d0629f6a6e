package deletionvector

import (
	"bytes"
	"context"
	"fmt"
	"maps"
	"slices"
	"strconv"
	"sync/atomic"

	"github.com/paimon-go/paimon/manifest"
)

// Storage is the file access WriteDeletionVectorsIndex needs; *fileio.FileIO
// satisfies it. Paths are relative to the table root.
type Storage interface {
	// WriteFile writes a whole file, replacing any file of that path.
	WriteFile(ctx context.Context, path string, data []byte) error
}

// Namer hands out the names of new index files as Java's
// FileStorePathFactory.globalIndexFileFactory().newPath() does:
// "index-<uuid>-<n>", n counting from 0 per Namer. One Namer per writer
// (Java: per FileStorePathFactory) keeps names unique when its uuid is
// random. It is safe for concurrent use.
type Namer struct {
	uuid string
	next atomic.Int64
}

// NewNamer returns a Namer for the given uuid (a random UUID string).
func NewNamer(uuid string) *Namer { return &Namer{uuid: uuid} }

// Next returns the next file name.
func (n *Namer) Next() string {
	return "index-" + n.uuid + "-" + strconv.FormatInt(n.next.Add(1)-1, 10)
}

// BucketFiles returns the deletion-vector index files of one partition-bucket
// among the entries of an index manifest (Java
// IndexFileHandler.scan(snapshot, DELETION_VECTORS_INDEX, partition, bucket)),
// in manifest order. partition is the serialized partition row as stored in
// manifests. Entries of other kinds than ADD are skipped (index manifests
// hold only ADD entries).
func BucketFiles(entries []manifest.IndexManifestEntry, partition []byte, bucket int32) []manifest.IndexFileMeta {
	var out []manifest.IndexFileMeta
	for i := range entries {
		e := &entries[i]
		if e.Kind == manifest.Add && e.Bucket == bucket && e.IndexFile.IndexType == manifest.IndexTypeDeletionVectors &&
			bytes.Equal(e.Partition, partition) {
			out = append(out, e.IndexFile)
		}
	}
	return out
}

// Maintainer keeps the deletion vectors of one partition-bucket of a
// primary-key table while a writer changes it (Java BucketedDvMaintainer):
// compaction notifies it of rows that newer records replace
// (NotifyNewDeletion) and of files it rewrote (RemoveDeletionVector), and
// WriteDeletionVectorsIndex writes all current vectors of the bucket into
// one new index file for the next commit.
//
// It is not safe for concurrent use.
type Maintainer struct {
	bitmap64 bool
	dvs      map[string]*DeletionVector
	// live are the bucket's index files in the snapshot the Maintainer was
	// restored from, or the file it wrote last: what its next index file
	// replaces.
	live     []manifest.IndexFileMeta
	modified bool
}

// NewMaintainer returns a Maintainer of a bucket without deletion vectors.
// New vectors are 64-bit when bitmap64 is set (table option
// deletion-vectors.bitmap64), else 32-bit.
func NewMaintainer(bitmap64 bool) *Maintainer {
	return &Maintainer{bitmap64: bitmap64, dvs: map[string]*DeletionVector{}}
}

// RestoreMaintainer returns a Maintainer holding the deletion vectors of the
// index files files: the deletion-vector index files of one partition-bucket
// in the latest snapshot, as BucketFiles returns them from its index
// manifest (Java BucketedDvMaintainer.Factory.create with the restored
// files). A data file named by several files takes its vector from the last
// one. Restored vectors keep their encoding; new ones follow bitmap64.
//
// Errors: ErrCorrupt (a file without deletion-vector ranges, or bytes that
// do not decode), ErrInvalid (a file of another index type, or one in an
// external path, which this package does not read), and the FileReader's
// errors, all naming the file.
func RestoreMaintainer(ctx context.Context, fs FileReader, files []manifest.IndexFileMeta, bitmap64 bool) (*Maintainer, error) {
	m := NewMaintainer(bitmap64)
	for _, f := range files {
		p := Path(f.FileName)
		if f.IndexType != manifest.IndexTypeDeletionVectors {
			return nil, fmt.Errorf("deletionvector: restore %s: %w: index type %s", p, ErrInvalid, f.IndexType)
		}
		if f.ExternalPath != nil {
			return nil, fmt.Errorf("deletionvector: restore %s: %w: index file in external path %s", p, ErrInvalid, *f.ExternalPath)
		}
		if f.DVRanges == nil {
			return nil, corrupt(p, fmt.Errorf("deletion-vector index file without ranges"))
		}
		dvs, err := ReadAll(ctx, fs, f.FileName, Ranges(f.DVRanges))
		if err != nil {
			return nil, err
		}
		maps.Copy(m.dvs, dvs)
	}
	m.live = slices.Clone(files)
	return m, nil
}

// Ranges converts the manifest's deletion-vector metadata into Ranges
// (Cardinality -1 where the manifest has none).
func Ranges(metas []manifest.DeletionVectorMeta) []Range {
	out := make([]Range, len(metas))
	for i, r := range metas {
		out[i] = Range{DataFileName: r.DataFileName, Offset: r.Offset, Length: r.Length, Cardinality: -1}
		if r.Cardinality != nil {
			out[i].Cardinality = *r.Cardinality
		}
	}
	return out
}

// NotifyNewDeletion marks row position pos (0-based) of data file fileName
// as deleted (Java BucketedDvMaintainer.notifyNewDeletion). Deleting a row
// that is already deleted changes nothing.
//
// Errors: ErrPosition for a position the file's vector cannot hold.
func (m *Maintainer) NotifyNewDeletion(fileName string, pos int64) error {
	dv := m.dvs[fileName]
	if dv == nil {
		dv = New(m.bitmap64)
	}
	if dv.IsDeleted(pos) {
		return nil
	}
	if err := dv.Delete(pos); err != nil {
		return fmt.Errorf("deletionvector: data file %s: %w", fileName, err)
	}
	m.dvs[fileName] = dv
	m.modified = true
	return nil
}

// RemoveDeletionVector forgets the vector of data file fileName, when
// compaction rewrote the file (Java removeDeletionVectorOf, called for the
// inputs of a rewrite). Files without a vector are ignored.
func (m *Maintainer) RemoveDeletionVector(fileName string) {
	if _, ok := m.dvs[fileName]; ok {
		delete(m.dvs, fileName)
		m.modified = true
	}
}

// DeletionVectorOf returns the vector of data file fileName, or nil when
// none of its rows is deleted (Java deletionVectorOf). The vector belongs
// to the Maintainer: callers only read it.
func (m *Maintainer) DeletionVectorOf(fileName string) *DeletionVector { return m.dvs[fileName] }

// DataFiles returns the names of the data files that have a vector, sorted.
func (m *Maintainer) DataFiles() []string { return slices.Sorted(maps.Keys(m.dvs)) }

// Modified reports whether vectors changed since the Maintainer was
// restored or last wrote an index file.
func (m *Maintainer) Modified() bool { return m.modified }

// Bitmap64 reports whether new vectors are 64-bit.
func (m *Maintainer) Bitmap64() bool { return m.bitmap64 }

// WriteDeletionVectorsIndex writes, when vectors changed, one index file
// index/<names.Next()> holding every vector of the bucket, in data-file
// name order (Java writeDeletionVectorsIndex / writeSingleFile), and returns
// the commit message's index changes: newFiles, the file written (none when
// no vector is left), and deletedFiles, the bucket's index files it
// replaces (those restored, or the one this Maintainer wrote last). The
// caller puts them into the message's CompactIncrement (NewIndexFiles,
// DeletedIndexFiles) and commits them; the Maintainer assumes they are
// committed, so that its next file replaces this one. After a failed
// commit, restore a new Maintainer from the latest snapshot.
//
// Naming the replaced files lets the committer detect a concurrent commit
// that changed the bucket's vectors (Java relies on replacing the bucket's
// entry instead, which needs no DELETE entry; both give the same index
// manifest). When no vector is left, Java writes an index file holding
// only the version byte; here the replaced files are deleted instead and
// nothing is written.
//
// Nothing changed: nil, nil, nil. Errors: ErrInvalid (an index file over
// 2 GiB) and the Storage's error; nothing is returned then, and the
// Maintainer is unchanged.
func (m *Maintainer) WriteDeletionVectorsIndex(ctx context.Context, fs Storage, names *Namer) (newFiles, deletedFiles []manifest.IndexFileMeta, err error) {
	if !m.modified {
		return nil, nil, nil
	}
	var written []manifest.IndexFileMeta
	if len(m.dvs) > 0 {
		w := NewFileWriter()
		for _, name := range m.DataFiles() {
			if _, err := w.Write(name, m.dvs[name]); err != nil {
				return nil, nil, err
			}
		}
		f := w.Result()
		name := names.Next()
		if err := fs.WriteFile(ctx, Path(name), f.Data); err != nil {
			return nil, nil, fmt.Errorf("deletionvector: write %s: %w", Path(name), err)
		}
		written = []manifest.IndexFileMeta{IndexFileMeta(name, f)}
	}
	deleted := m.live
	m.live = slices.Clone(written)
	m.modified = false
	return written, deleted, nil
}

// IndexFileMeta returns the manifest metadata of index file f written
// under name (Java DeletionFileWriter.result): type DELETION_VECTORS,
// size len(f.Data), row count the number of vectors, and the ranges with
// their cardinalities.
func IndexFileMeta(name string, f IndexFile) manifest.IndexFileMeta {
	ranges := make([]manifest.DeletionVectorMeta, len(f.Ranges))
	for i, r := range f.Ranges {
		ranges[i] = manifest.DeletionVectorMeta{DataFileName: r.DataFileName, Offset: r.Offset, Length: r.Length}
		if r.Cardinality >= 0 {
			c := r.Cardinality
			ranges[i].Cardinality = &c
		}
	}
	return manifest.IndexFileMeta{
		IndexType: manifest.IndexTypeDeletionVectors,
		FileName:  name,
		FileSize:  int64(len(f.Data)),
		RowCount:  int64(len(f.Ranges)),
		DVRanges:  ranges,
	}
}
