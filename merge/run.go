package merge

import (
	"context"
	"errors"
	"io"
	"iter"
	"slices"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"
)

// Run is one sorted run of a bucket (Java SortedRun read through a
// RecordReader<KeyValue>): record batches in the KeyValue layout of primary-key
// data files (see the package documentation), sorted by key and, within a
// key, by _SEQUENCE_NUMBER. A run that spans several data files simply
// returns the batches of each file in turn.
//
// Deletion vectors are the caller's business: rows they mark deleted must
// already be filtered out of the batches a Run returns.
type Run interface {
	// Next returns the next batch. The merge takes ownership of the batch
	// and releases it when done with it. At the end of the run Next returns
	// (nil, io.EOF); (nil, nil) is treated the same way. Empty batches are
	// allowed and skipped.
	Next(ctx context.Context) (arrow.RecordBatch, error)
	// Close releases the run's resources. The merge calls it exactly once,
	// when the run is exhausted or the merge stops early.
	Close() error
}

// RunOf returns a Run over batches that are already in memory. It takes
// ownership of the batches: each is released once the merge is done with it
// (or by Close, for those never returned).
func RunOf(batches ...arrow.RecordBatch) Run {
	return &sliceRun{batches: slices.Clone(batches)}
}

type sliceRun struct{ batches []arrow.RecordBatch }

func (r *sliceRun) Next(ctx context.Context) (arrow.RecordBatch, error) {
	if err := ctx.Err(); err != nil {
		return nil, err
	}
	if len(r.batches) == 0 {
		return nil, io.EOF
	}
	b := r.batches[0]
	r.batches[0] = nil
	r.batches = r.batches[1:]
	return b, nil
}

func (r *sliceRun) Close() error {
	for _, b := range r.batches {
		b.Release()
	}
	r.batches = nil
	return nil
}

// RunFromReader adapts an array.RecordReader (for example a Parquet file
// reader) to a Run. Each batch is retained before it is handed to the merge,
// so the reader's reuse of batches is harmless. Close releases the reader.
func RunFromReader(r array.RecordReader) Run { return &readerRun{r: r} }

type readerRun struct{ r array.RecordReader }

func (r *readerRun) Next(ctx context.Context) (arrow.RecordBatch, error) {
	if err := ctx.Err(); err != nil {
		return nil, err
	}
	if !r.r.Next() {
		if err := r.r.Err(); err != nil && !errors.Is(err, io.EOF) {
			return nil, err
		}
		return nil, io.EOF
	}
	b := r.r.RecordBatch()
	b.Retain()
	return b, nil
}

func (r *readerRun) Close() error {
	r.r.Release()
	return nil
}

// RunFromSeq adapts an iterator of batches to a Run. The iterator's batches
// become owned by the merge. Close stops the iterator.
func RunFromSeq(seq iter.Seq2[arrow.RecordBatch, error]) Run {
	next, stop := iter.Pull2(seq)
	return &seqRun{next: next, stop: stop}
}

type seqRun struct {
	next func() (arrow.RecordBatch, error, bool)
	stop func()
}

func (r *seqRun) Next(ctx context.Context) (arrow.RecordBatch, error) {
	if err := ctx.Err(); err != nil {
		return nil, err
	}
	b, err, ok := r.next()
	if !ok {
		return nil, io.EOF
	}
	if err != nil {
		if b != nil {
			b.Release()
		}
		return nil, err
	}
	return b, nil
}

func (r *seqRun) Close() error {
	r.stop()
	return nil
}
