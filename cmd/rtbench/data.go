package main

import (
	"context"
	"errors"
	"fmt"
	"io"
	"os"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"

	"github.com/paimon-go/paimon/format"
	"github.com/paimon-go/paimon/format/parquet"
	"github.com/paimon-go/paimon/types"
)

// flightsFields is the schema of flights-3m.parquet (testdata/flights): the
// rows are in date order.
var flightsFields = []types.DataField{
	{ID: 0, Name: "date", Type: types.TimestampOf(6)},
	{ID: 1, Name: "delay", Type: types.BigInt()},
	{ID: 2, Name: "distance", Type: types.BigInt()},
	{ID: 3, Name: "origin", Type: types.String()},
	{ID: 4, Name: "destination", Type: types.String()},
}

// Column indexes of the flights batches.
const (
	colDate = iota
	colDelay
	colDistance
	colOrigin
	colDestination
)

// flights is the data set in memory: batches of the flights schema in file
// (date) order, none longer than the batch size it was loaded with.
type flights struct {
	batches []arrow.RecordBatch
	rows    int64
}

// Release releases the batches.
func (f *flights) Release() {
	for _, b := range f.batches {
		b.Release()
	}
	f.batches = nil
}

// loadFlights reads up to maxRows rows of the flights Parquet file at path
// in batches of at most batchRows rows (batches do not span row groups, so a
// few are shorter).
func loadFlights(ctx context.Context, path string, batchRows int, maxRows int64) (*flights, error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, fmt.Errorf("rtbench: open flights data: %w", err)
	}
	defer f.Close()
	st, err := f.Stat()
	if err != nil {
		return nil, fmt.Errorf("rtbench: open flights data: %w", err)
	}
	rd, err := parquet.NewReader(ctx, sizedFile{f, st.Size()}, path, flightsFields, format.ReadOptions{BatchSize: batchRows})
	if err != nil {
		return nil, fmt.Errorf("rtbench: read flights data: %w", err)
	}
	defer rd.Close()
	out := &flights{}
	for out.rows < maxRows {
		b, err := rd.Next(ctx)
		if errors.Is(err, io.EOF) {
			break
		}
		if err != nil {
			out.Release()
			return nil, fmt.Errorf("rtbench: read flights data: %w", err)
		}
		rec := b.Record
		if n := rec.NumRows(); out.rows+n > maxRows {
			cut := rec.NewSlice(0, maxRows-out.rows)
			rec.Release()
			rec = cut
		}
		out.batches = append(out.batches, rec)
		out.rows += rec.NumRows()
	}
	if out.rows == 0 {
		return nil, fmt.Errorf("rtbench: flights data %s holds no rows", path)
	}
	return out, nil
}

// sizedFile adapts *os.File to format.File.
type sizedFile struct {
	*os.File
	size int64
}

func (f sizedFile) Size() int64 { return f.size }

// flightRow is one flight as Go values (date in microseconds since the epoch,
// local wall time as stored).
type flightRow struct {
	date, delay, distance int64
	origin, destination   string
}

// cols gives typed access to the columns of a flights batch.
type cols struct {
	date                *array.Timestamp
	delay, distance     *array.Int64
	origin, destination *array.String
}

func colsOf(rec arrow.RecordBatch) cols {
	return cols{
		date:        rec.Column(colDate).(*array.Timestamp),
		delay:       rec.Column(colDelay).(*array.Int64),
		distance:    rec.Column(colDistance).(*array.Int64),
		origin:      rec.Column(colOrigin).(*array.String),
		destination: rec.Column(colDestination).(*array.String),
	}
}

func (c cols) row(i int) flightRow {
	return flightRow{
		date: int64(c.date.Value(i)), delay: c.delay.Value(i), distance: c.distance.Value(i),
		origin: c.origin.Value(i), destination: c.destination.Value(i),
	}
}
