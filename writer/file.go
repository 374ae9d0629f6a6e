package writer

import (
	"context"
	"errors"
	"fmt"
	"io"
	"strconv"

	"github.com/apache/arrow-go/v18/arrow"

	"github.com/paimon-go/paimon/fileio"
	"github.com/paimon-go/paimon/format"
	"github.com/paimon-go/paimon/format/parquet"
	"github.com/paimon-go/paimon/manifest"
	"github.com/paimon-go/paimon/row"
	"github.com/paimon-go/paimon/types"
)

// rollCheckRows is how many rows are written between two checks of the
// target file size when a batch would overshoot it (Java's RollingFileWriter
// checks every 1000 records).
const rollCheckRows = 1000

// bucketWriter is the writer of one partition-bucket: Java's AppendOnlyWriter
// or MergeTreeWriter, with its DataFilePathFactory (one uuid, a file counter).
type bucketWriter struct {
	w         *Write
	partition []byte
	bucket    int32
	dir       string // "<partition path>bucket-<N>", relative to the table root
	uuid      string
	fileCount int
	seq       int64 // next sequence number

	cur      *dataFile               // open file, or nil
	newFiles []manifest.DataFileMeta // closed files not yet in a commit message

	// primary-key sort buffer
	pending     []chunk       // unsorted batches, fewer than minSortRows rows in all
	pendingRows int64         //
	sorted      []sortedChunk // in-memory sorted runs
	bufBytes    int64         // estimated bytes of pending and sorted
	spills      []spillFile   // sorted runs spilled to local disk
	spillBytes  int64         // bytes of spills
}

// dataFile is one data file being written (Java RowDataFileWriter /
// KeyValueDataFileWriter).
type dataFile struct {
	name string
	path string
	out  io.WriteCloser
	fw   *parquet.Writer

	minSeq, maxSeq int64
	deletes        int64
	minKey, maxKey []any // primary-key files: first and last key
}

// newFile opens the writer's next data file, "<prefix><uuid>-<n>.parquet"
// (DataFilePathFactory.newPath).
func (bw *bucketWriter) newFile(ctx context.Context, fields []types.DataField) (*dataFile, error) {
	w := bw.w
	name := w.filePrefix + bw.uuid + "-" + strconv.Itoa(bw.fileCount) + "." + w.fileFormat
	bw.fileCount++
	path := bw.dir + "/" + name
	out, err := w.fio.Create(ctx, path)
	if err != nil {
		return nil, fmt.Errorf("writer: create %s: %w", path, err)
	}
	fw, err := parquet.NewWriter(ctx, out, path, fields, format.WriteOptions{Options: w.fileOptions, Allocator: w.cfg.mem})
	if err != nil {
		abortOut(out)
		return nil, fmt.Errorf("writer: %s: %w", path, err)
	}
	return &dataFile{name: name, path: path, out: out, fw: fw, minSeq: -1, maxSeq: -1}, nil
}

func abortOut(out io.WriteCloser) {
	if a, ok := out.(fileio.Aborter); ok {
		_ = a.Abort()
	}
	_ = out.Close()
}

// finish closes f and publishes it, returning the parquet result.
func (f *dataFile) finish(ctx context.Context) (format.WriteResult, error) {
	res, err := f.fw.Close(ctx)
	if err != nil {
		abortOut(f.out)
		return res, fmt.Errorf("writer: close %s: %w", f.path, err)
	}
	if err := f.out.Close(); err != nil {
		return res, fmt.Errorf("writer: publish %s: %w", f.path, err)
	}
	return res, nil
}

// creationTime is Java's Timestamp.fromLocalDateTime(LocalDateTime.now())
// in millis: the local wall clock read as if it were UTC (format doc 6.2).
func (w *Write) creationTime() *int64 {
	t := w.now()
	_, off := t.Zone()
	ms := t.UnixMilli() + int64(off)*1000
	return &ms
}

// writeAppend writes an append table's rows, rolling files at
// target-file-size (AppendOnlyWriter.write → RowDataRollingFileWriter).
func (bw *bucketWriter) writeAppend(ctx context.Context, rec arrow.RecordBatch) error {
	return bw.writeRolling(ctx, rec, bw.w.ts.Fields, bw.closeAppendFile, nil)
}

// writeRolling writes rec into the open file, opening one first if needed,
// and rolls to a new file whenever the estimated size reaches
// target-file-size. track, when set, is called with each slice written to a
// file before it is written (primary-key bookkeeping).
func (bw *bucketWriter) writeRolling(ctx context.Context, rec arrow.RecordBatch, fields []types.DataField,
	closeFile func(context.Context) error, track func(*dataFile, arrow.RecordBatch) error) error {
	n := rec.NumRows()
	size := recordSize(rec)
	target := bw.w.targetFileSize
	for off := int64(0); off < n; {
		if bw.cur == nil {
			f, err := bw.newFile(ctx, fields)
			if err != nil {
				return err
			}
			bw.cur = f
		}
		step := n - off
		if est := bw.cur.fw.EstimatedSize(); size > 0 && est+size*step/n > target {
			// Write about as many rows as still fit, then check again.
			step = max(min((target-est)*n/size, step), min(rollCheckRows, step))
		}
		part := rec
		if step != n {
			part = rec.NewSlice(off, off+step)
		}
		var err error
		if track != nil {
			err = track(bw.cur, part)
		}
		if err == nil {
			err = bw.cur.fw.Write(ctx, part)
		}
		if step != n {
			part.Release()
		}
		if err != nil {
			return fmt.Errorf("writer: write %s: %w", bw.cur.path, err)
		}
		off += step
		if bw.cur.fw.EstimatedSize() >= target {
			if err := closeFile(ctx); err != nil {
				return err
			}
		}
	}
	return nil
}

// closeAppendFile finishes the open append file and records its
// DataFileMeta (RowDataFileWriter.result → DataFileMeta.forAppend).
func (bw *bucketWriter) closeAppendFile(ctx context.Context) error {
	f := bw.cur
	if f == nil {
		return nil
	}
	bw.cur = nil
	res, err := f.finish(ctx)
	if err != nil {
		return err
	}
	w := bw.w
	fs := make([]fieldStats, len(w.ts.Fields))
	for i, fld := range w.ts.Fields {
		fs[i] = fieldStats{field: fld, mode: w.valueModes[i], stats: statAt(res, i)}
	}
	vs, err := encodeStats(fs, w.denseStats)
	if err != nil {
		return fmt.Errorf("writer: value stats of %s: %w", f.path, err)
	}
	minSeq := bw.seq
	bw.seq += res.RowCount
	zero := int64(0)
	src := manifest.SourceAppend
	bw.newFiles = append(bw.newFiles, manifest.DataFileMeta{
		FileName: f.name, FileSize: res.FileSize, RowCount: res.RowCount,
		MinKey: manifest.EmptyRow(), MaxKey: manifest.EmptyRow(),
		KeyStats:          manifest.EmptyStats(),
		ValueStats:        simpleStats(vs),
		MinSequenceNumber: minSeq, MaxSequenceNumber: bw.seq - 1,
		SchemaID:       w.ts.ID,
		Level:          0,
		ExtraFiles:     []string{},
		CreationTime:   w.creationTime(),
		DeleteRowCount: &zero,
		FileSource:     &src,
		ValueStatsCols: vs.Cols,
	})
	return nil
}

func statAt(res format.WriteResult, i int) format.ColumnStats {
	if i < len(res.Stats) {
		return res.Stats[i]
	}
	return format.ColumnStats{}
}

// simpleStats converts encoded stats to the manifest form.
func simpleStats(s row.EncodedStats) manifest.SimpleStats {
	return manifest.SimpleStats{MinValues: row.Serialize(s.Min), MaxValues: row.Serialize(s.Max), NullCounts: s.NullCounts}
}

// flush closes the open file (append) or writes the sort buffer (primary
// key), so that every written row is in newFiles.
func (bw *bucketWriter) flush(ctx context.Context) error {
	if bw.w.pk != nil {
		return bw.flushPK(ctx)
	}
	return bw.closeAppendFile(ctx)
}

// abort discards the open file, the buffer and the files not handed out.
func (bw *bucketWriter) abort(ctx context.Context) error {
	var errs []error
	if bw.cur != nil {
		abortOut(bw.cur.out)
		bw.cur = nil
	}
	bw.releaseBuffer()
	if err := bw.removeSpills(); err != nil {
		errs = append(errs, err)
	}
	for _, f := range bw.newFiles {
		p := bw.dir + "/" + f.FileName
		if err := bw.w.fio.Delete(ctx, p); err != nil && !errors.Is(err, fileio.ErrNotExist) {
			errs = append(errs, fmt.Errorf("writer: delete %s: %w", p, err))
		}
	}
	bw.newFiles = nil
	return errors.Join(errs...)
}
