package main

import (
	"context"
	"fmt"
	"sort"
	"time"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"

	"github.com/paimon-go/paimon/catalog"
	streaming "github.com/paimon-go/paimon/stream"
)

// positionColumn is the follow workload's column holding each row's
// position in the stream (0, 1, ...), by which the follower's deliveries
// are accounted for.
const positionColumn = "n"

// followWait bounds the wait, after the final commit, for the follower to
// deliver every row.
const followWait = 60 * time.Second

// withPosition returns rec with a last column positionColumn holding
// first, first+1, ...
func withPosition(rec arrow.RecordBatch, first int64) arrow.RecordBatch {
	n := rec.NumRows()
	pos := sequence(first, n)
	defer pos.Release()
	sc := arrow.NewSchema(append(rec.Schema().Fields(), arrow.Field{Name: positionColumn, Type: arrow.PrimitiveTypes.Int64}), nil)
	return array.NewRecordBatch(sc, append(rec.Columns(), pos), n)
}

// follower follows the workload's table with a stream.Follower in a
// goroutine of its own while the run writes, and records when each row
// (by its position) was delivered.
type follower struct {
	rows  int64
	start time.Time
	done  chan struct{} // closed when the follower stops
	// Written by the follower goroutine only; read after done.
	at        []time.Duration // per position: delivery time since start; 0 when not delivered
	delivered int64
	dups      int64
	badKinds  int64
	snapshots int
	err       error
}

// startFollower starts following tbl from its first snapshot, polling every
// interval; rows is the number of rows the run writes and start its clock.
// The follower stops once every row was delivered, or when ctx ends.
func startFollower(ctx context.Context, tbl *catalog.Table, rows int64, start time.Time, interval time.Duration) *follower {
	fo := &follower{rows: rows, start: start, done: make(chan struct{}), at: make([]time.Duration, rows)}
	src := &streaming.ReaderSource{FIO: tbl.FileIO, Table: tbl.Schema}
	f := streaming.New(tbl.FileIO, tbl.Schema, src, streaming.Options{Mode: streaming.ModeFromSnapshot, SnapshotID: 1, Interval: interval})
	go func() {
		defer close(fo.done)
		for fo.delivered < rows {
			s, err := f.Next(ctx)
			if err != nil {
				if ctx.Err() == nil {
					fo.err = fmt.Errorf("rtbench: follower: %w", err)
				}
				return
			}
			now := time.Since(start)
			fo.snapshots++
			for _, b := range s.Batches {
				fo.account(b, now)
			}
			s.Release()
		}
	}()
	return fo
}

// account records the rows of one delivered batch ("rowkind" first, then
// the table's columns).
func (fo *follower) account(b arrow.RecordBatch, now time.Duration) {
	idx := b.Schema().FieldIndices(positionColumn)
	if len(idx) != 1 {
		fo.err = fmt.Errorf("rtbench: follower: batch without column %q", positionColumn)
		return
	}
	pos := b.Column(idx[0]).(*array.Int64)
	kinds := b.Column(0).(*array.String)
	for i := range int(b.NumRows()) {
		if kinds.Value(i) != "+I" {
			fo.badKinds++
		}
		n := pos.Value(i)
		if n < 0 || n >= fo.rows {
			fo.dups++ // a row the run did not write
			continue
		}
		if fo.at[n] != 0 {
			fo.dups++
			continue
		}
		fo.at[n] = max(now, 1)
		fo.delivered++
	}
}

// finish waits for the follower (at most followWait after the final
// commit), stops it and fills res: the end-to-end latency of every row from
// its Write returning (writtenAt, by batch; cum are the batches' cumulative
// row counts) to its delivery, the delivery rate, and the exactly-once check.
func (fo *follower) finish(cancel context.CancelFunc, res *result, writtenAt []time.Duration, cum []int64) {
	select {
	case <-fo.done:
	case <-time.After(followWait):
	}
	cancel()
	<-fo.done
	lat := make([]time.Duration, 0, fo.delivered)
	var first, last time.Duration
	missing := int64(0)
	for n, at := range fo.at[:res.rows] {
		if at == 0 {
			missing++
			continue
		}
		b := sort.Search(len(cum), func(i int) bool { return cum[i] > int64(n) })
		lat = append(lat, at-writtenAt[b])
		if first == 0 || at < first {
			first = at
		}
		last = max(last, at)
	}
	res.follow = distOf(lat)
	res.followRows = fo.delivered
	res.followSnapshots = fo.snapshots
	if last > first {
		res.followRate = float64(fo.delivered) / (last - first).Seconds()
	}
	var err error
	switch {
	case fo.err != nil:
		err = fo.err
	case missing > 0:
		err = fmt.Errorf("follower: %d of %d rows never delivered (waited %s after the final commit)", missing, res.rows, followWait)
	case fo.dups > 0:
		err = fmt.Errorf("follower: %d rows delivered more than once", fo.dups)
	case fo.badKinds > 0:
		err = fmt.Errorf("follower: %d rows delivered with a row kind other than +I", fo.badKinds)
	}
	if err != nil && res.verifyErr == nil {
		res.verifyErr = err
	}
}
