// Package flights reads the repository's real data set,
// testdata/flights/flights-3m.parquet (3,000,000 US domestic flights of
// 2001 in date order, written by Polars; see testdata/flights/README.md),
// for the benchmarks and tests that use it and for cmd/rtbench.
//
// The rows come as Arrow record batches of the Paimon schema Fields, in file
// order, through format/parquet.
package flights

import (
	"context"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/memory"

	"github.com/paimon-go/paimon/format"
	"github.com/paimon-go/paimon/format/parquet"
	"github.com/paimon-go/paimon/types"
)

// File is the data set's path inside the repository.
const File = "testdata/flights/flights-3m.parquet"

// ErrNotFound reports that Find found no copy of File.
var ErrNotFound = errors.New("flights: data set not found")

// Column indexes of Fields and of the batches.
const (
	Date        = iota // TIMESTAMP(6), local wall time in microseconds
	Delay              // BIGINT, minutes
	Distance           // BIGINT, miles
	Origin             // STRING, IATA code
	Destination        // STRING, IATA code
)

// Fields returns the Paimon schema of the file (ids 0-4, in column order;
// the file carries no field ids, so columns match by name). Each call
// returns a new slice.
func Fields() []types.DataField {
	return []types.DataField{
		{ID: Date, Name: "date", Type: types.TimestampOf(6)},
		{ID: Delay, Name: "delay", Type: types.BigInt()},
		{ID: Distance, Name: "distance", Type: types.BigInt()},
		{ID: Origin, Name: "origin", Type: types.String()},
		{ID: Destination, Name: "destination", Type: types.String()},
	}
}

// Find returns the path of File below dir or below the nearest of its
// parents that holds it ("" is the working directory: a test's package
// directory, or wherever a program runs inside a clone). It wraps
// ErrNotFound when no directory up to the root holds the file.
func Find(dir string) (string, error) {
	if dir == "" {
		wd, err := os.Getwd()
		if err != nil {
			return "", fmt.Errorf("flights: find %s: %w", File, err)
		}
		dir = wd
	}
	dir, err := filepath.Abs(dir)
	if err != nil {
		return "", fmt.Errorf("flights: find %s: %w", File, err)
	}
	for d := dir; ; {
		p := filepath.Join(d, File)
		if _, err := os.Stat(p); err == nil {
			return p, nil
		} else if !errors.Is(err, fs.ErrNotExist) {
			return "", fmt.Errorf("flights: find %s: %w", File, err)
		}
		parent := filepath.Dir(d)
		if parent == d {
			return "", fmt.Errorf("%w: no %s in %s or its parents", ErrNotFound, File, dir)
		}
		d = parent
	}
}

// DataFlag resolves the --data flag of the programs that read the data set
// (cmd/rtbench, cmd/compactbench): a given path is returned as is, an empty
// one is looked up with Find from the working directory. The error wraps
// ErrNotFound (and says to pass --data) when the repository's copy is not
// found.
func DataFlag(path string) (string, error) {
	if path != "" {
		return path, nil
	}
	p, err := Find("")
	if errors.Is(err, ErrNotFound) {
		return "", fmt.Errorf("%w: %s not found in the working directory or its parents; pass --data FILE", ErrNotFound, File)
	}
	return p, err
}

// Options say how much of the file to read and how.
type Options struct {
	// BatchRows is the most rows per batch; 0 means 65536. Batches do not
	// span the file's row groups, so a few are shorter.
	BatchRows int
	// MaxRows is how many rows to read from the start of the file; 0 means
	// all. The last batch is cut to fit.
	MaxRows int64
	// Allocator allocates the batches' buffers; nil means
	// memory.DefaultAllocator.
	Allocator memory.Allocator
}

// DefaultBatchRows is the batch size of Options without BatchRows.
const DefaultBatchRows = 65536

// Scan reads the file at path in file order and calls fn with each batch
// (released after fn returns: Retain it to keep it). It returns the rows
// given to fn. An error of fn stops the scan and is returned as it is;
// errors opening or decoding the file are wrapped and name path.
func Scan(ctx context.Context, path string, o Options, fn func(arrow.RecordBatch) error) (int64, error) {
	f, err := os.Open(path)
	if err != nil {
		return 0, fmt.Errorf("flights: %w", err)
	}
	defer f.Close()
	st, err := f.Stat()
	if err != nil {
		return 0, fmt.Errorf("flights: %w", err)
	}
	batch := o.BatchRows
	if batch <= 0 {
		batch = DefaultBatchRows
	}
	rd, err := parquet.NewReader(ctx, sizedFile{f, st.Size()}, path, Fields(),
		format.ReadOptions{BatchSize: batch, Allocator: o.Allocator})
	if err != nil {
		return 0, fmt.Errorf("flights: read %s: %w", path, err)
	}
	defer rd.Close()
	var rows int64
	for o.MaxRows <= 0 || rows < o.MaxRows {
		b, err := rd.Next(ctx)
		if errors.Is(err, io.EOF) {
			break
		}
		if err != nil {
			return rows, fmt.Errorf("flights: read %s: %w", path, err)
		}
		rec := b.Record
		if o.MaxRows > 0 && rows+rec.NumRows() > o.MaxRows {
			cut := rec.NewSlice(0, o.MaxRows-rows)
			rec.Release()
			rec = cut
		}
		rows += rec.NumRows()
		err = fn(rec)
		rec.Release()
		if err != nil {
			return rows, err
		}
	}
	return rows, nil
}

// Load reads the file at path into memory (see Scan) and returns the
// batches, which the caller releases, and their rows.
func Load(ctx context.Context, path string, o Options) ([]arrow.RecordBatch, int64, error) {
	var out []arrow.RecordBatch
	rows, err := Scan(ctx, path, o, func(b arrow.RecordBatch) error {
		b.Retain()
		out = append(out, b)
		return nil
	})
	if err != nil {
		release(out)
		return nil, 0, err
	}
	return out, rows, nil
}

func release(bs []arrow.RecordBatch) {
	for _, b := range bs {
		b.Release()
	}
}

// sizedFile adapts *os.File to format.File.
type sizedFile struct {
	*os.File
	size int64
}

func (f sizedFile) Size() int64 { return f.size }

// TB is the part of testing.TB that Batches and Each use; a *testing.T or
// *testing.B is one. It is an interface of its own so that programs using
// this package do not link package testing.
type TB interface {
	Helper()
	Skipf(format string, args ...any)
	Fatal(args ...any)
	Cleanup(func())
}

// path finds the file from the working directory for a test, skipping t
// when the data set is missing (it is 13.5 MB; clones may leave it out).
func path(t TB) string {
	t.Helper()
	p, err := Find("")
	if err != nil {
		t.Skipf("flights data: %v", err)
	}
	return p
}

// Batches loads the data set for a test or benchmark (see Load), found
// from the working directory: t is skipped when it is missing and fails on
// read errors. The batches are released when t ends.
func Batches(t TB, o Options) ([]arrow.RecordBatch, int64) {
	t.Helper()
	out, rows, err := Load(context.Background(), path(t), o)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { release(out) })
	return out, rows
}

// Each streams the data set through fn for a test or benchmark (see Scan),
// found from the working directory: t is skipped when it is missing and
// fails on read errors and errors of fn. It returns the rows read.
func Each(t TB, o Options, fn func(arrow.RecordBatch) error) int64 {
	t.Helper()
	rows, err := Scan(context.Background(), path(t), o, fn)
	if err != nil {
		t.Fatal(err)
	}
	return rows
}
