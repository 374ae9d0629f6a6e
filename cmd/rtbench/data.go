package main

import (
	"context"
	"fmt"
	"runtime"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"

	"github.com/paimon-go/paimon/internal/flights"
)

// dataset is the flights data set in memory (package internal/flights):
// batches of flights.Fields in file (date) order, none longer than the
// batch size it was loaded with.
type dataset struct {
	batches []arrow.RecordBatch
	rows    int64
	// inputBytes is the memory the batches hold: their bytes in the arena
	// (see arena) and what stays on the heap (liveHeap before and after
	// loading them).
	inputBytes int64
	arena      arena
}

// Release releases the batches and unmaps their arena.
func (d *dataset) Release() {
	for _, b := range d.batches {
		b.Release()
	}
	d.batches = nil
	d.arena.reset()
}

// loadFlights reads up to maxRows rows of the flights Parquet file at path
// in batches of at most batchRows rows (batches do not span row groups, so a
// few are shorter).
func loadFlights(ctx context.Context, path string, batchRows int, maxRows int64) (*dataset, error) {
	h0 := liveHeap()
	batches, rows, err := flights.Load(ctx, path, flights.Options{BatchRows: batchRows, MaxRows: maxRows})
	if err != nil {
		return nil, fmt.Errorf("rtbench: %w", err)
	}
	if rows == 0 {
		return nil, fmt.Errorf("rtbench: flights data %s holds no rows", path)
	}
	d := &dataset{rows: rows}
	for i, b := range batches {
		c, err := d.arena.record(b)
		for _, b := range batches[i:] {
			if err != nil {
				b.Release()
			}
		}
		if err != nil {
			d.Release()
			return nil, err
		}
		b.Release()
		d.batches = append(d.batches, c)
	}
	d.inputBytes = max(liveHeap()-h0, 0) + d.arena.bytes()
	return d, nil
}

// liveHeap returns the bytes of live heap objects after a full collection
// (two, so that what sync.Pools hold is dropped as well): measured before
// and after loading something, it gives the memory that thing keeps
// resident.
func liveHeap() int64 {
	runtime.GC()
	runtime.GC()
	var m runtime.MemStats
	runtime.ReadMemStats(&m)
	return int64(m.HeapAlloc)
}

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
		date:        rec.Column(flights.Date).(*array.Timestamp),
		delay:       rec.Column(flights.Delay).(*array.Int64),
		distance:    rec.Column(flights.Distance).(*array.Int64),
		origin:      rec.Column(flights.Origin).(*array.String),
		destination: rec.Column(flights.Destination).(*array.String),
	}
}

func (c cols) row(i int) flightRow {
	return flightRow{
		date: int64(c.date.Value(i)), delay: c.delay.Value(i), distance: c.distance.Value(i),
		origin: c.origin.Value(i), destination: c.destination.Value(i),
	}
}
