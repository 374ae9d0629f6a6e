package writer

import (
	"context"
	"errors"
	"fmt"
	"io"
	"iter"
	"slices"
	"time"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"

	"github.com/paimon-go/paimon/datafile"
	"github.com/paimon-go/paimon/manifest"
	"github.com/paimon-go/paimon/merge"
	"github.com/paimon-go/paimon/schema"
)

// ErrNoChangelog reports a write into a primary-key table whose
// changelog-producer (lookup or full-compaction) asks the writer's
// compaction to write changelog files, which this library does not produce
// yet, or an input table written into bucket-postpone files. Streaming
// readers of such tables (Flink, Java's StreamTableScan) read those
// changelog files only, so rows committed without them would be missed
// silently. Errors wrapping it also wrap ErrUnsupported and name the option.
var ErrNoChangelog = errors.New("writer: changelog files are not produced")

// checkChangelog refuses tables whose changelog-producer expects changelog
// files this writer does not write (Java CoreOptions.ChangelogProducer).
// Input tables are accepted (the writer writes its input as changelog files,
// see inputChangelog) except when rows go into bucket-postpone files
// (postpone), which carry no changelog. Lookup and full-compaction tables are
// accepted here: their changelog comes from the compactions (package
// compaction), which initCompaction sets up, or refuses with ErrNoChangelog
// when package compaction cannot produce it for the table.
func checkChangelog(o schema.Options, postpone bool) (schema.ChangelogProducer, error) {
	cp, err := o.ChangelogProducer()
	if err != nil {
		return cp, err
	}
	if cp == schema.ChangelogInput && postpone {
		return cp, fmt.Errorf("%w: %w: %s = %s with bucket = -2 (bucket-postpone files carry no changelog; streaming readers would miss these rows)",
			ErrUnsupported, ErrNoChangelog, schema.KeyChangelogProducer, cp)
	}
	return cp, nil
}

// compactionChangelog reports whether the compactions of the table produce
// its changelog (changelog-producer = lookup or full-compaction).
func compactionChangelog(o schema.Options) (schema.ChangelogProducer, bool, error) {
	cp, err := o.ChangelogProducer()
	if err != nil {
		return cp, false, err
	}
	return cp, cp == schema.ChangelogLookup || cp == schema.ChangelogFullCompaction, nil
}

// initInputChangelog prepares the changelog files of changelog-producer =
// input: level-0 key-value files named changelog-file.prefix, in
// changelog-file.format, -compression and -stats-mode where set
// (KeyValueFileWriterFactory.createRollingChangelogFileWriter(0)).
func (w *Write) initInputChangelog() error {
	lc := datafile.Config{Source: manifest.SourceAppend, Allocator: w.cfg.mem, Now: func() time.Time { return w.now() }, RowGroupBytes: levelZeroRowGroupBytes, Changelog: true}
	l, err := datafile.NewLayout(w.ts, lc)
	if err != nil {
		if errors.Is(err, datafile.ErrUnsupported) {
			err = fmt.Errorf("%w: %w", ErrUnsupported, err)
		}
		return err
	}
	w.clLayout = l
	return nil
}

// newChangelogWriter returns the rolling writer of bw's changelog files. Java
// keeps one DataFilePathFactory (one uuid, one file counter) per file format
// of a bucket writer: changelog files in the format of the level-0 data
// files share their Namer, others get their own.
func (w *Write) newChangelogWriter(bw *bucketWriter, dataNames *datafile.Namer) *datafile.RollingWriter {
	names := dataNames
	if w.clLayout.Format() != w.layout.Format() {
		names = datafile.NewNamer(w.newUUID())
	}
	return datafile.NewRollingWriter(w.fio, bw.dir, w.clLayout, names, 0)
}

// inputChangelog returns the runs of a flush of a changelog-producer = input
// table (MergeTreeWriter.flushWriteBuffer with a changelog writer, through
// SortBufferWriteBuffer.forEach's raw consumer): raw are the buffer's sorted
// runs in the spill layout; the result is one run in the KeyValue layout
// that yields every buffered record, none merged, in (key, sequence number)
// order, and writes each batch it yields to bw's changelog files first, so
// that the merge of the flush reads the records the changelog holds.
func (bw *bucketWriter) inputChangelog(ctx context.Context, raw []merge.Run) merge.Run {
	next, stop := iter.Pull2(bw.w.pk.sorter.Merge(ctx, raw))
	return &teeRun{bw: bw, raw: raw, next: next, stop: stop}
}

// teeRun is the run inputChangelog returns.
type teeRun struct {
	bw      *bucketWriter
	raw     []merge.Run // closed by the sort's iterator once started
	started bool
	next    func() (arrow.RecordBatch, error, bool)
	stop    func()
}

func (r *teeRun) Next(ctx context.Context) (arrow.RecordBatch, error) {
	r.started = true
	b, err, ok := r.next()
	if !ok {
		return nil, io.EOF
	}
	if err != nil {
		return nil, fmt.Errorf("writer: sort buffered records of bucket %s: %w", r.bw.dir, err)
	}
	// The spill layout's sequence column becomes _SEQUENCE_NUMBER (its
	// zeros are dropped), as spillRun does.
	p := r.bw.w.pk
	nk := len(p.keyIdx)
	out := array.NewRecordBatch(p.kvSchema, slices.Concat(b.Columns()[:nk+1], b.Columns()[nk+2:]), b.NumRows())
	b.Release()
	if err := r.bw.cl.Write(ctx, out); err != nil {
		out.Release()
		return nil, err
	}
	return out, nil
}

func (r *teeRun) Close() error {
	r.stop()
	if r.started {
		return nil
	}
	var errs []error
	for _, o := range r.raw {
		errs = append(errs, o.Close())
	}
	r.raw = nil
	return errors.Join(errs...)
}

// finishChangelog closes the open changelog file and moves the finished
// ones to newChangelog.
func (bw *bucketWriter) finishChangelog(ctx context.Context) error {
	if bw.cl == nil {
		return nil
	}
	files, err := bw.cl.Flush(ctx)
	if err != nil {
		return err
	}
	bw.newChangelog = append(bw.newChangelog, files...)
	return nil
}
