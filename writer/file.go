package writer

import (
	"context"
	"errors"
	"fmt"

	"github.com/apache/arrow-go/v18/arrow"

	"github.com/paimon-go/paimon/datafile"
	"github.com/paimon-go/paimon/manifest"
)

// bucketWriter is the writer of one partition-bucket: Java's AppendOnlyWriter
// or MergeTreeWriter, with its DataFilePathFactory (one uuid, a file counter)
// and, unless the table is written without compaction, its compact manager.
type bucketWriter struct {
	w         *Write
	partition []byte
	bucket    int32
	dir       string // "<partition path>bucket-<N>", relative to the table root
	seq       int64  // next sequence number (primary-key tables)

	rw       *datafile.RollingWriter // level-0 / append files
	newFiles []manifest.DataFileMeta // finished files not yet in a commit message
	comp     *bucketCompaction       // nil: the bucket is not compacted

	// changelog-producer = input: the changelog files of the flushes
	cl           *datafile.RollingWriter // nil: no changelog files
	newChangelog []manifest.DataFileMeta // finished, not yet in a commit message

	// primary-key sort buffer
	pending     []chunk       // unsorted batches, fewer than minSortRows rows in all
	pendingRows int64         //
	sorted      []sortedChunk // in-memory sorted runs
	bufBytes    int64         // estimated bytes of pending and sorted
	spills      []spillFile   // sorted runs spilled to local disk
	spillBytes  int64         // bytes of spills
}

// writeAppend writes an append table's rows, rolling files at
// target-file-size (AppendOnlyWriter.write → RowDataRollingFileWriter).
func (bw *bucketWriter) writeAppend(ctx context.Context, rec arrow.RecordBatch) error {
	return bw.rw.Write(ctx, rec)
}

// finishFiles closes the open data file and moves every finished file to
// newFiles, returning those of this call.
func (bw *bucketWriter) finishFiles(ctx context.Context) ([]manifest.DataFileMeta, error) {
	files, err := bw.rw.Flush(ctx)
	if err != nil {
		return nil, err
	}
	bw.newFiles = append(bw.newFiles, files...)
	return files, nil
}

// flush closes the open file (append) or writes the sort buffer (primary
// key), so that every written row is in newFiles, and returns the files it
// finished.
func (bw *bucketWriter) flush(ctx context.Context) ([]manifest.DataFileMeta, error) {
	if bw.w.pk != nil && (bw.w.post == nil || !bw.w.post.into) {
		return bw.flushPK(ctx)
	}
	return bw.finishFiles(ctx)
}

// abort discards the open file, the buffer and the files not handed out.
func (bw *bucketWriter) abort(ctx context.Context) error {
	var errs []error
	errs = append(errs, bw.rw.Abort(ctx))
	if bw.cl != nil {
		errs = append(errs, bw.cl.Abort(ctx))
	}
	bw.releaseBuffer()
	if err := bw.removeSpills(); err != nil {
		errs = append(errs, err)
	}
	for i := range bw.newFiles {
		if err := datafile.Delete(ctx, bw.w.fio, bw.dir, &bw.newFiles[i]); err != nil {
			errs = append(errs, fmt.Errorf("writer: %w", err))
		}
	}
	for i := range bw.newChangelog {
		if err := datafile.Delete(ctx, bw.w.fio, bw.dir, &bw.newChangelog[i]); err != nil {
			errs = append(errs, fmt.Errorf("writer: %w", err))
		}
	}
	bw.newFiles, bw.newChangelog = nil, nil
	return errors.Join(errs...)
}
