// Package format holds what every data-file format of a Paimon table
// (Parquet, ORC, Avro) shares: the reader and writer contracts in terms of
// Arrow record batches, the statistics they exchange with the table layers,
// and the sentinel errors callers test with errors.Is.
//
// It mirrors the contracts of Java Paimon's org.apache.paimon.format package
// (FileFormat, FormatReaderFactory, FormatWriter, SimpleStatsExtractor),
// reshaped for Arrow in / Arrow out. The implementations live in the
// sub-packages (format/parquet, format/orc, ...).
//
// # Arrow shape
//
// A reader asked for fields want returns batches whose schema is exactly
// types.SchemaToArrow(want): columns in the order of want, Arrow types per
// types.ToArrow, whatever the physical layout of the file. A writer for
// fields takes batches of schema types.SchemaToArrow(fields).
//
// # Errors
//
// Implementations wrap these sentinels with %w and name the file involved:
// ErrCorrupt for bytes that violate the format, ErrUnsupportedFormat for a
// valid feature or option that is not implemented, ErrSchemaMismatch for a
// file column or an input batch that cannot be brought to the requested
// type, ErrOutOfRange for a stored value the requested Arrow type cannot
// hold, ErrTooLarge for a file that would decompress beyond DecodeBudget. I/O
// errors of the underlying file are returned wrapped as they are
// (they are not ErrCorrupt).
package format

import (
	"context"
	"errors"
	"fmt"
	"io"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/memory"

	"github.com/paimon-go/paimon/types"
)

// Sentinel errors shared by all formats (see the package comment).
var (
	// ErrCorrupt reports a data file whose bytes violate its format: bad
	// magic, truncated footer, metadata pointing outside the file, a page
	// that does not decode.
	ErrCorrupt = errors.New("format: corrupt data file")
	// ErrUnsupportedFormat reports an unknown file format name, an unknown or
	// unimplemented codec or option value, or a format feature this library
	// does not implement.
	ErrUnsupportedFormat = errors.New("format: unsupported format or feature")
	// ErrSchemaMismatch reports a file column whose type cannot be converted
	// to the requested type, or a written batch whose schema differs from the
	// writer's.
	ErrSchemaMismatch = errors.New("format: schema mismatch")
	// ErrOutOfRange reports a stored value that the requested Arrow type
	// cannot represent (e.g. a TIMESTAMP(9) before 1677 as Arrow nanoseconds).
	ErrOutOfRange = errors.New("format: value out of range")
	// ErrTooLarge reports a data file whose metadata or pages would make the
	// reader decompress or allocate far more than a file of its size holds
	// (see DecodeBudget): a hostile or corrupt file, refused before the
	// memory is spent. Errors wrapping it name the file.
	ErrTooLarge = errors.New("format: file decodes beyond its memory budget")
)

// DecodeBudget returns the number of bytes a reader may decompress (ORC
// streams) or hold in one page (Parquet) for a file of size bytes:
// max(32 MiB, 256 × size). Real files compress their columns a few to a
// few dozen times; a file that expands more is refused with ErrTooLarge.
func DecodeBudget(size int64) int64 {
	return max(32<<20, 256*size)
}

// DefaultBatchSize is the number of rows per batch a reader returns when
// ReadOptions.BatchSize is 0.
const DefaultBatchSize = 4096

// File is a data file opened for random access: fileio.File satisfies it.
type File interface {
	io.ReaderAt
	// Size returns the file length in bytes.
	Size() int64
}

// ColumnStats are the statistics of one column, as Go values per the types
// package comment (int32 for INT, types.Decimal for DECIMAL, ...). Min and
// Max are nil when unknown (no values, a type without an order, or stats
// not stored); NullCount is meaningful only when NullCountKnown. This is one
// column of Java's SimpleColStats before any stats-mode truncation.
type ColumnStats struct {
	Min, Max       any
	NullCount      int64
	NullCountKnown bool
}

// RowGroupStats describes one independently readable chunk of a file (a
// Parquet row group, an ORC stripe) to ReadOptions.RowGroupFilter.
type RowGroupStats struct {
	// Index is the position of the chunk in the file, from 0.
	Index int
	// FirstRow is the file row position of the chunk's first row.
	FirstRow int64
	// NumRows is the number of rows in the chunk.
	NumRows int64
	// Columns has one entry per requested field, in the order of want,
	// converted to the requested types. A requested field missing from the
	// file has NullCount = NumRows.
	Columns []ColumnStats
}

// ReadOptions tune a reader. The zero value is valid.
type ReadOptions struct {
	// BatchSize is the maximum number of rows per batch; 0 means
	// DefaultBatchSize. Batches never span two row groups.
	BatchSize int
	// RowGroupFilter, when set, is called once per row group before it is
	// read; returning false skips the row group (row positions of later
	// batches stay exact). It is the hook for min/max/null-count pruning.
	RowGroupFilter func(RowGroupStats) bool
	// Allocator allocates the Arrow buffers; nil means memory.DefaultAllocator.
	Allocator memory.Allocator
}

// Batch is one batch of rows read from a file.
type Batch struct {
	// Record has schema types.SchemaToArrow(want); the caller releases it.
	Record arrow.RecordBatch
	// FirstRow is the file row position (0-based, counting every row of the
	// file including skipped row groups) of Record's first row: deletion
	// vectors address rows by these positions.
	FirstRow int64
}

// Reader reads the batches of one data file (Java FileRecordReader).
type Reader interface {
	// Next returns the next batch, or io.EOF after the last one.
	Next(ctx context.Context) (Batch, error)
	// NumRows returns the number of rows in the file (all row groups).
	NumRows() int64
	// Close releases the reader's resources; it does not close the File.
	Close() error
}

// WriteOptions configure a writer.
type WriteOptions struct {
	// Options are the table options (Java CoreOptions keys such as
	// "file.compression", plus format-specific keys such as
	// "parquet.block.size"); each format reads the keys it knows and
	// ignores the rest. Invalid values are ErrUnsupportedFormat errors.
	Options map[string]string
	// Allocator allocates Arrow buffers; nil means memory.DefaultAllocator.
	Allocator memory.Allocator
}

// WriteResult describes a finished data file (the inputs of Java's
// DataFileMeta that come from the format layer).
type WriteResult struct {
	// RowCount is the number of rows written.
	RowCount int64
	// FileSize is the number of bytes written to the output.
	FileSize int64
	// Stats has one entry per written field, in the writer's field order.
	Stats []ColumnStats
}

// Writer writes one data file (Java FormatWriter).
type Writer interface {
	// Write appends the rows of rec, whose schema must be
	// types.SchemaToArrow(fields) of the writer; the writer does not keep rec.
	Write(ctx context.Context, rec arrow.RecordBatch) error
	// EstimatedSize returns an upper-bound estimate in bytes of the file if
	// it were closed now, for rolling at target-file-size.
	EstimatedSize() int64
	// Close finishes the file (it does not close the underlying io.Writer)
	// and returns its description. Calling Close twice is an error.
	Close(ctx context.Context) (WriteResult, error)
}

// Format creates readers and writers of one file format (Java FileFormat).
type Format interface {
	// Name is the value of the "file.format" option ("parquet", "orc", ...),
	// which is also the data file name extension.
	Name() string
	// NewReader opens f (named fileName in errors) for reading fields want.
	NewReader(ctx context.Context, f File, fileName string, want []types.DataField, opts ReadOptions) (Reader, error)
	// NewWriter starts a file with fields written to w (named fileName in
	// errors).
	NewWriter(ctx context.Context, w io.Writer, fileName string, fields []types.DataField, opts WriteOptions) (Writer, error)
}

// CheckBatch reports whether rec has exactly the schema in that a writer
// of kind ("parquet", "orc") for the file name was made for: the same
// columns in order (name, Arrow type, nullability) and no null in a NOT
// NULL column. Errors wrap ErrSchemaMismatch and name the file.
func CheckBatch(kind, name string, in *arrow.Schema, rec arrow.RecordBatch) error {
	s := rec.Schema()
	if s.NumFields() != in.NumFields() {
		return fmt.Errorf("%w: %s: %s: batch has %d columns, writer %d", ErrSchemaMismatch, kind, name, s.NumFields(), in.NumFields())
	}
	for i, f := range s.Fields() {
		want := in.Field(i)
		if f.Name != want.Name || f.Nullable != want.Nullable || !arrow.TypeEqual(f.Type, want.Type) {
			return fmt.Errorf("%w: %s: %s: column %d is %s, writer expects %s", ErrSchemaMismatch, kind, name, i, f, want)
		}
		if !want.Nullable && rec.Column(i).NullN() > 0 {
			return fmt.Errorf("%w: %s: %s: NOT NULL column %s has %d nulls", ErrSchemaMismatch, kind, name, f.Name, rec.Column(i).NullN())
		}
	}
	return nil
}
