package writer

import (
	"bufio"
	"context"
	"errors"
	"fmt"
	"io"
	"math"
	"os"
	"slices"
	"strings"
	"sync"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"
	"github.com/apache/arrow-go/v18/arrow/ipc"
	"github.com/klauspost/compress/zstd"
	"github.com/pierrec/lz4/v4"

	"github.com/paimon-go/paimon/datafile"
	"github.com/paimon-go/paimon/merge"
	"github.com/paimon-go/paimon/schema"
)

// Table options of the primary-key write buffer's spilling (CoreOptions).
const (
	// OptionWriteBufferSpillable is "write-buffer-spillable"
	// (WRITE_BUFFER_SPILLABLE, default true): whether a full write buffer
	// is spilled to local temp files as a sorted run instead of being
	// flushed as level-0 data files.
	OptionWriteBufferSpillable = "write-buffer-spillable"
	// OptionWriteBufferMaxDiskSize is "write-buffer-spill.max-disk-size"
	// (WRITE_BUFFER_MAX_DISK_SIZE, default unlimited): once a bucket's spill
	// files reach this many bytes, a full buffer is flushed as level-0 files
	// (spilled runs included) instead of spilling again.
	OptionWriteBufferMaxDiskSize = "write-buffer-spill.max-disk-size"
	// OptionLocalSortMaxNumFileHandles is "local-sort.max-num-file-handles"
	// (LOCAL_SORT_MAX_NUM_FILE_HANDLES, default 128, at least 2): the
	// largest number of spill files merged at once; more are merged in
	// intermediate passes first. This writer merges at most 32 at once to
	// bound its memory, so only values below 32 change anything.
	OptionLocalSortMaxNumFileHandles = "local-sort.max-num-file-handles"
	// OptionSpillCompression is "spill-compression" (SPILL_COMPRESSION,
	// default "zstd"): zstd, lz4, lzo or none. Spill files are private to
	// the writer; lzo is written as LZ4.
	OptionSpillCompression = "spill-compression"
	// OptionSpillZstdLevel is "spill-compression.zstd-level"
	// (SPILL_COMPRESSION_ZSTD_LEVEL, default 1), mapped to the nearest
	// level of the zstd library (zstd.EncoderLevelFromZstd).
	OptionSpillZstdLevel = "spill-compression.zstd-level"
)

// Memory of the merge of spilled runs. Each open run holds a read buffer,
// its decompressor (about 450 KiB for zstd with a 128 KiB window, 128 KiB
// for LZ4 with 64 KiB blocks) and one record batch of at most
// spillBatchBytes, so at most maxOpenSpills files are merged at once (about
// 20 MiB); local-sort.max-num-file-handles can only lower that fan-in.
const (
	spillBatchBytes = 128 << 10
	spillWindow     = 128 << 10
	spillReadBuffer = 64 << 10
	maxOpenSpills   = 32
)

// spillConfig holds the spill options of a primary-key table.
type spillConfig struct {
	enabled bool
	maxDisk int64  // bytes of spill files per bucket before flushing instead
	maxFan  int    // spill files merged at once
	codec   string // "zstd", "lz4" or "none"
	zstd    zstd.EncoderLevel
}

func spillOptions(o schema.Options) (spillConfig, error) {
	var c spillConfig
	var err error
	if c.enabled, err = o.Bool(OptionWriteBufferSpillable, true); err != nil {
		return c, err
	}
	if c.maxDisk, err = o.MemorySize(OptionWriteBufferMaxDiskSize, math.MaxInt64); err != nil {
		return c, err
	}
	if c.maxFan, err = o.Int(OptionLocalSortMaxNumFileHandles, 128); err != nil {
		return c, err
	}
	if c.maxFan < 2 {
		return c, fmt.Errorf("%w: %s = %d: the fan-in of a merge is at least 2", schema.ErrInvalidOption, OptionLocalSortMaxNumFileHandles, c.maxFan)
	}
	c.maxFan = min(c.maxFan, maxOpenSpills)
	switch v := o.String(OptionSpillCompression, "zstd"); strings.ToLower(v) {
	case "zstd":
		c.codec = "zstd"
	case "lz4", "lzo":
		c.codec = "lz4"
	case "none":
		c.codec = "none"
	default:
		return c, fmt.Errorf("%w: %s = %q (want zstd, lz4, lzo or none)", schema.ErrInvalidOption, OptionSpillCompression, v)
	}
	level, err := o.Int(OptionSpillZstdLevel, 1)
	if err != nil {
		return c, err
	}
	c.zstd = zstd.EncoderLevelFromZstd(level)
	return c, nil
}

// spillDir is a Write's directory of spill files, created on first use under
// the parent directory (os.TempDir() when empty) and removed by Close. It
// holds no reference to the Write, so that a cleanup attached to an unclosed
// Write can remove it.
type spillDir struct {
	mu     sync.Mutex
	parent string
	path   string
}

// create opens a new spill file.
func (d *spillDir) create() (*os.File, error) {
	d.mu.Lock()
	defer d.mu.Unlock()
	if d.path == "" {
		p, err := os.MkdirTemp(d.parent, "paimon-spill-")
		if err != nil {
			return nil, fmt.Errorf("%w: create spill directory under %q: %w", ErrSpill, d.parent, err)
		}
		d.path = p
	}
	f, err := os.CreateTemp(d.path, "run-*.arrow")
	if err != nil {
		return nil, fmt.Errorf("%w: create spill file in %s: %w", ErrSpill, d.path, err)
	}
	return f, nil
}

// remove deletes the directory and every spill file in it.
func (d *spillDir) remove() error {
	d.mu.Lock()
	defer d.mu.Unlock()
	if d.path == "" {
		return nil
	}
	err := os.RemoveAll(d.path)
	d.path = ""
	if err != nil {
		return fmt.Errorf("%w: remove spill directory: %w", ErrSpill, err)
	}
	return nil
}

// spillFile is one sorted run on local disk: an Arrow IPC stream of record
// batches in the KeyValue layout, sorted by key and sequence number (Java's
// spill channel of BinaryExternalSortBuffer).
type spillFile struct {
	path  string
	bytes int64
	rows  int64
}

// countingWriter counts the bytes written through it.
type countingWriter struct {
	w io.Writer
	n int64
}

func (c *countingWriter) Write(p []byte) (int, error) {
	n, err := c.w.Write(p)
	c.n += int64(n)
	return n, err
}

// writeSpill merges runs and writes the result as a new spill file of bw's
// Write. The runs are closed in any case; on error the file is removed.
func (bw *bucketWriter) writeSpill(ctx context.Context, runs []merge.Run) (sf spillFile, err error) {
	w := bw.w
	f, err := w.spillDir.create()
	if err != nil {
		for _, r := range runs {
			_ = r.Close()
		}
		return sf, err
	}
	sf.path = f.Name()
	var comp io.WriteCloser
	defer func() {
		if err != nil {
			if comp != nil {
				_ = comp.Close()
			}
			_ = f.Close()
			_ = os.Remove(sf.path)
		}
	}()
	bufw := bufio.NewWriterSize(f, 256<<10)
	cw := &countingWriter{w: bufw}
	switch w.spill.codec {
	case "zstd":
		var zw *zstd.Encoder
		zw, err = zstd.NewWriter(cw, zstd.WithEncoderLevel(w.spill.zstd), zstd.WithEncoderConcurrency(1),
			zstd.WithWindowSize(spillWindow), zstd.WithLowerEncoderMem(true))
		if err == nil {
			comp = zw
		}
	case "lz4":
		lw := lz4.NewWriter(cw)
		err = lw.Apply(lz4.ConcurrencyOption(1), lz4.BlockSizeOption(lz4.Block64Kb))
		comp = lw
	}
	if err != nil {
		for _, r := range runs {
			_ = r.Close()
		}
		return sf, fmt.Errorf("%w: spill file %s: %w", ErrSpill, sf.path, err)
	}
	var out io.Writer = cw
	if comp != nil {
		out = comp
	}
	iw := ipc.NewWriter(out, ipc.WithSchema(w.pk.spillSchema), ipc.WithAllocator(w.cfg.mem))
	defer func() {
		if iw != nil {
			_ = iw.Close()
		}
	}()
	maxRows := int64(0)
	for b, merr := range w.pk.sorter.Merge(ctx, runs) {
		if merr != nil {
			return sf, fmt.Errorf("writer: sort buffered records of bucket %s: %w", bw.dir, merr)
		}
		n := b.NumRows()
		if maxRows == 0 && n > 0 {
			maxRows = spillBatchRows(b)
		}
		for off := int64(0); off < n && err == nil; off += maxRows {
			part := b
			if end := min(off+maxRows, n); off != 0 || end != n {
				part = b.NewSlice(off, end)
				err = iw.Write(part)
				part.Release()
			} else {
				err = iw.Write(part)
			}
		}
		b.Release()
		if err != nil {
			return sf, fmt.Errorf("%w: write spill file %s: %w", ErrSpill, sf.path, err)
		}
		sf.rows += n
	}
	err = iw.Close()
	iw = nil
	if err == nil && comp != nil {
		err = comp.Close()
		comp = nil
	}
	if err == nil {
		err = bufw.Flush()
	}
	if err == nil {
		err = f.Close()
	}
	if err != nil {
		return sf, fmt.Errorf("%w: write spill file %s: %w", ErrSpill, sf.path, err)
	}
	sf.bytes = cw.n
	return sf, nil
}

// spillBatchRows is how many rows of b's shape make a spill batch of about
// spillBatchBytes.
func spillBatchRows(b arrow.RecordBatch) int64 {
	n := b.NumRows()
	per := max(datafile.RecordSize(b)/max(n, 1), 1)
	return min(max(spillBatchBytes/per, 16), int64(merge.DefaultBatchSize))
}

// spillRun reads a spill file as a merge.Run, in the spill layout or, with
// kv set, in the KeyValue layout (the spill sequence column becomes
// _SEQUENCE_NUMBER).
type spillRun struct {
	f    *os.File
	dec  *zstd.Decoder // nil unless zstd
	r    *ipc.Reader
	path string
	kv   *pkLayout // nil: spill layout
}

// openSpill opens sf for reading.
func (bw *bucketWriter) openSpill(sf spillFile, kv bool) (merge.Run, error) {
	f, err := os.Open(sf.path)
	if err != nil {
		return nil, fmt.Errorf("%w: open spill file: %w", ErrSpill, err)
	}
	s := &spillRun{f: f, path: sf.path}
	if kv {
		s.kv = bw.w.pk
	}
	var in io.Reader = bufio.NewReaderSize(f, spillReadBuffer)
	switch bw.w.spill.codec {
	case "zstd":
		if s.dec, err = zstd.NewReader(in, zstd.WithDecoderConcurrency(1), zstd.WithDecoderLowmem(true),
			zstd.WithDecoderMaxWindow(spillWindow)); err != nil {
			_ = f.Close()
			return nil, fmt.Errorf("%w: read spill file %s: %w", ErrSpill, sf.path, err)
		}
		in = s.dec
	case "lz4":
		in = lz4.NewReader(in)
	}
	if s.r, err = ipc.NewReader(in, ipc.WithSchema(bw.w.pk.spillSchema), ipc.WithAllocator(bw.w.cfg.mem)); err != nil {
		if s.dec != nil {
			s.dec.Close()
		}
		_ = f.Close()
		return nil, fmt.Errorf("%w: read spill file %s: %w", ErrSpill, sf.path, err)
	}
	return s, nil
}

func (s *spillRun) Next(ctx context.Context) (arrow.RecordBatch, error) {
	if err := ctx.Err(); err != nil {
		return nil, err
	}
	if !s.r.Next() {
		if err := s.r.Err(); err != nil && !errors.Is(err, io.EOF) {
			return nil, fmt.Errorf("%w: read spill file %s: %w", ErrSpill, s.path, err)
		}
		return nil, io.EOF
	}
	b := s.r.RecordBatch()
	if s.kv == nil {
		b.Retain()
		return b, nil
	}
	// Drop the zeros of _SEQUENCE_NUMBER; the spill sequence column takes
	// its place.
	nk := len(s.kv.keyIdx)
	cols := slices.Concat(b.Columns()[:nk+1], b.Columns()[nk+2:])
	return array.NewRecordBatch(s.kv.kvSchema, cols, b.NumRows()), nil
}

func (s *spillRun) Close() error {
	s.r.Release()
	if s.dec != nil {
		s.dec.Close()
	}
	return s.f.Close()
}

// removeSpills deletes bw's spill files.
func (bw *bucketWriter) removeSpills() error {
	var errs []error
	for _, sf := range bw.spills {
		if err := os.Remove(sf.path); err != nil && !errors.Is(err, os.ErrNotExist) {
			errs = append(errs, fmt.Errorf("%w: remove spill file: %w", ErrSpill, err))
		}
	}
	bw.w.stats.SpilledRuns -= len(bw.spills)
	bw.w.stats.SpilledBytes -= bw.spillBytes
	bw.spills, bw.spillBytes = nil, 0
	return errors.Join(errs...)
}

// spillPK writes the in-memory sort buffer as one sorted run to a spill file
// and frees it (BinaryExternalSortBuffer.spill): its records sorted by key
// and sequence number, none merged, so that the merge at flush time sees
// every record of a key at once, as Java's does.
func (bw *bucketWriter) spillPK(ctx context.Context) error {
	defer bw.releaseBuffer()
	runs, err := bw.memRuns(ctx, true)
	if err != nil {
		return err
	}
	if len(runs) == 0 {
		return nil
	}
	sf, err := bw.writeSpill(ctx, runs)
	if err != nil {
		return err
	}
	bw.spills = append(bw.spills, sf)
	bw.spillBytes += sf.bytes
	st := &bw.w.stats
	st.Spills++
	st.SpilledRuns++
	st.SpilledBytes += sf.bytes
	return nil
}

// reduceSpills merges spill files in passes of at most maxFan files until at
// most maxFan remain (BinaryExternalSortBuffer.spilledIterator).
func (bw *bucketWriter) reduceSpills(ctx context.Context) error {
	maxFan := bw.w.spill.maxFan
	for len(bw.spills) > maxFan {
		// Merge just enough of the oldest files that maxFan remain.
		k := min(len(bw.spills)-maxFan+1, maxFan)
		group := bw.spills[:k]
		runs := make([]merge.Run, 0, k)
		for _, sf := range group {
			r, err := bw.openSpill(sf, false)
			if err != nil {
				for _, o := range runs {
					_ = o.Close()
				}
				return err
			}
			runs = append(runs, r)
		}
		sf, err := bw.writeSpill(ctx, runs)
		if err != nil {
			return err
		}
		var removed int64
		for _, old := range group {
			removed += old.bytes
			if err := os.Remove(old.path); err != nil {
				return fmt.Errorf("%w: remove spill file: %w", ErrSpill, err)
			}
		}
		bw.spills = append(append([]spillFile(nil), bw.spills[k:]...), sf)
		bw.spillBytes += sf.bytes - removed
		st := &bw.w.stats
		st.SpilledRuns -= k - 1
		st.SpilledBytes += sf.bytes - removed
	}
	return nil
}
