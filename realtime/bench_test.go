package realtime_test

import (
	"context"
	"slices"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"
	"github.com/apache/arrow-go/v18/arrow/memory"

	"github.com/paimon-go/paimon/catalog"
	"github.com/paimon-go/paimon/internal/flights"
	"github.com/paimon-go/paimon/internal/tabletest"
	"github.com/paimon-go/paimon/predicate"
	"github.com/paimon-go/paimon/reader"
	"github.com/paimon-go/paimon/realtime"
	"github.com/paimon-go/paimon/types"
)

// Benchmarks of the real-time layer on the flights data set
// (testdata/flights, skipped when missing), on local disk:
//
//	go test ./realtime -run '^$' -bench . -benchtime 2000x   (Freshness)
//	go test ./realtime -run '^$' -bench 'Read|Ingest' -benchtime 5x
//
// Freshness reports p50/p99 latencies in µs (metrics "p50-us", "p99-us");
// the read and ingest benchmarks report rows/s.

// benchRows is how many flights rows the benchmarks use (the first ones
// of the file, in date order).
const benchRows = 1 << 18

// benchFlightsTable creates a real-time flights table in a temporary
// local warehouse: an append table bucketed by origin, or a primary-key
// table keyed by (origin, destination) (deduplicate), 4 buckets, per-batch
// statistics in memory.
func benchFlightsTable(b *testing.B, pk bool) *catalog.Table {
	b.Helper()
	fields := flights.Fields()
	s := catalog.Schema{Fields: fields, Options: tableOpts(map[string]string{
		"bucket": "4", "realtime.store.stats-mode": "full",
	})}
	if pk {
		fields[3].Type.Nullable, fields[4].Type.Nullable = false, false
		s.PrimaryKeys = []string{"origin", "destination"}
	} else {
		s.Options["bucket-key"] = "origin"
	}
	return tabletest.NewTable(b, "", s)
}

// benchSlices cuts batches into batches of at most n rows (slices, no
// copy); the caller releases them.
func benchSlices(batches []arrow.RecordBatch, n int64) []arrow.RecordBatch {
	var out []arrow.RecordBatch
	for _, r := range batches {
		for i := int64(0); i < r.NumRows(); i += n {
			out = append(out, r.NewSlice(i, min(i+n, r.NumRows())))
		}
	}
	return out
}

func releaseAll(recs []arrow.RecordBatch) {
	for _, r := range recs {
		r.Release()
	}
}

func benchWrite(b *testing.B, w *realtime.Write, recs []arrow.RecordBatch) {
	b.Helper()
	for _, r := range recs {
		if err := w.Write(context.Background(), r); err != nil {
			b.Fatal(err)
		}
	}
}

// benchFlightRow builds one flights row.
func benchFlightRow(sc *arrow.Schema, dateMicros, delay int64, origin, dest string) arrow.RecordBatch {
	bl := array.NewRecordBuilder(memory.DefaultAllocator, sc)
	defer bl.Release()
	bl.Field(0).(*array.TimestampBuilder).Append(arrow.Timestamp(dateMicros))
	bl.Field(1).(*array.Int64Builder).Append(delay)
	bl.Field(2).(*array.Int64Builder).Append(1000)
	bl.Field(3).(*array.StringBuilder).Append(origin)
	bl.Field(4).(*array.StringBuilder).Append(dest)
	return bl.NewRecordBatch()
}

// percentiles reports p50 and p99 of ds in µs under the given prefix.
func percentiles(b *testing.B, prefix string, ds []time.Duration) {
	if len(ds) == 0 {
		return
	}
	slices.Sort(ds)
	at := func(q int) float64 { return float64(ds[min(len(ds)-1, len(ds)*q/100)].Nanoseconds()) / 1e3 }
	b.ReportMetric(at(50), prefix+"p50-us")
	b.ReportMetric(at(99), prefix+"p99-us")
	b.ReportMetric(float64(ds[len(ds)-1].Nanoseconds())/1e3, prefix+"max-us")
}

// benchFreshSetup makes the table of a freshness benchmark: the first
// 131072 flights rows committed, the next 16384 in memory.
func benchFreshSetup(b *testing.B, pk bool) (*catalog.Table, *realtime.Context, *realtime.Write) {
	b.Helper()
	batches, _ := flights.Batches(b, flights.Options{MaxRows: 131072 + 16384})
	tbl := benchFlightsTable(b, pk)
	rc := newContext(b, tbl)
	w := newWrite(b, rc, "bench")
	cm := newCommit(b, rc, "bench")
	recs := benchSlices(batches, 16384)
	defer releaseAll(recs)
	benchWrite(b, w, recs[:len(recs)-1])
	refresh(b, rc, commitProg(b, cm, prepare(b, w, 1), 1))
	benchWrite(b, w, recs[len(recs)-1:])
	return tbl, rc, w
}

// BenchmarkFreshness measures the time from Write returning to the row
// being visible in a union read: each iteration writes one row, then a
// query planned right after Write returned (Plan: read views + disk
// snapshot, then the read) must see it. Memory rows are visible when
// Write returns, so this is the latency of the smallest union query; the
// metrics are its p50/p99/max in µs over the iterations.
//
//   - append/count: Plan + Count of the whole table (files by metadata,
//     memory by the views' row counts) with one Scan, whose disk plan is
//     reused while no commit happens; the count must include the row.
//   - append/read-new-scan: a new Scan (so a full disk planning) with
//     date >= the row's date (later than every flight: files and memory
//     batches are pruned by statistics) and a read returning exactly that
//     row.
//   - pk/read-new-key: a row with a new key, read back by its key with a
//     new Scan (package reader does not prune primary-key files by key
//     range, so every bucket's files are merged too).
func BenchmarkFreshness(b *testing.B) {
	ctx := context.Background()
	b.Run("append/count", func(b *testing.B) {
		tbl, rc, w := benchFreshSetup(b, false)
		sc := types.SchemaToArrow(tbl.Schema.Fields)
		want := int64(131072 + 16384)
		scan := rc.NewScan()
		var lat []time.Duration
		i := int64(0)
		for b.Loop() {
			rec := benchFlightRow(sc, 1e15+i, i, "ATL", "ORD")
			if err := w.Write(ctx, rec); err != nil {
				b.Fatal(err)
			}
			t0 := time.Now()
			rec.Release()
			want++
			i++
			p, err := scan.Plan(ctx)
			if err != nil {
				b.Fatal(err)
			}
			n, err := p.Count(ctx)
			lat = append(lat, time.Since(t0))
			if err != nil || n != want {
				b.Fatalf("count %d, %v; want %d", n, err, want)
			}
			p.Release()
		}
		percentiles(b, "", lat)
	})
	b.Run("append/read-new-scan", func(b *testing.B) {
		tbl, rc, w := benchFreshSetup(b, false)
		sc := types.SchemaToArrow(tbl.Schema.Fields)
		ref, _ := predicate.RefOf(tbl.Schema.Fields, "date")
		var lat []time.Duration
		i := int64(0)
		for b.Loop() {
			date := int64(1e15) + i // microseconds, after every flight
			rec := benchFlightRow(sc, date, i, "ATL", "ORD")
			if err := w.Write(ctx, rec); err != nil {
				b.Fatal(err)
			}
			t0 := time.Now()
			rec.Release()
			f := predicate.GreaterOrEqual(ref, types.Timestamp{Millis: date / 1000, NanoOfMilli: int32(date%1000) * 1000})
			n := benchQuery(b, rc.NewScan(reader.WithFilter(f)))
			lat = append(lat, time.Since(t0))
			if n != 1 {
				b.Fatalf("row %d: read %d rows, want 1", i, n)
			}
			i++
		}
		percentiles(b, "", lat)
	})
	b.Run("pk/read-new-key", func(b *testing.B) {
		tbl, rc, w := benchFreshSetup(b, true)
		sc := types.SchemaToArrow(tbl.Schema.Fields)
		o, _ := predicate.RefOf(tbl.Schema.Fields, "origin")
		d, _ := predicate.RefOf(tbl.Schema.Fields, "destination")
		var lat []time.Duration
		i := int64(0)
		for b.Loop() {
			dest := "K" + itoa(i)
			rec := benchFlightRow(sc, 1e15+i, i, "ZZZ", dest)
			if err := w.Write(ctx, rec); err != nil {
				b.Fatal(err)
			}
			t0 := time.Now()
			rec.Release()
			f := predicate.And(predicate.Equal(o, "ZZZ"), predicate.Equal(d, dest))
			delay, n := benchLookup(b, rc.NewScan(reader.WithFilter(f)))
			lat = append(lat, time.Since(t0))
			if n != 1 || delay != i {
				b.Fatalf("row %d: read %d rows, delay %d", i, n, delay)
			}
			i++
		}
		percentiles(b, "", lat)
	})
}

// benchQuery plans and reads a real-time scan and returns its rows.
func benchQuery(b *testing.B, s *realtime.Scan) int64 {
	ctx := context.Background()
	p, err := s.Plan(ctx)
	if err != nil {
		b.Fatal(err)
	}
	var n int64
	for rec, err := range p.Records(ctx) {
		if err != nil {
			b.Fatal(err)
		}
		n += rec.NumRows()
		rec.Release()
	}
	p.Release()
	return n
}

// benchLookup plans and reads a real-time scan and returns the delay of
// its last row and its rows.
func benchLookup(b *testing.B, s *realtime.Scan) (int64, int64) {
	ctx := context.Background()
	p, err := s.Plan(ctx)
	if err != nil {
		b.Fatal(err)
	}
	var n, delay int64
	for rec, err := range p.Records(ctx) {
		if err != nil {
			b.Fatal(err)
		}
		if k := rec.NumRows(); k > 0 {
			delay = rec.Column(1).(*array.Int64).Value(int(k - 1))
			n += k
		}
		rec.Release()
	}
	p.Release()
	return delay, n
}

// BenchmarkFreshnessConcurrent measures the visibility delay under load on
// the append table. The benchmark loop is the writer: one one-row batch
// every 200 µs (b.N rows), noting when each Write returned; a querier
// goroutine runs Plan + Count with one Scan back to back, and a committer
// goroutine prepares, commits and refreshes every 100 ms. A row's delay is
// the end of the first query that counted it minus the time its Write
// returned (0 when a query that ended before already counted it).
// Metrics: "vis-" the delays' p50/p99/max, "query-" the queries' latencies
// (µs); queries/s and commits.
func BenchmarkFreshnessConcurrent(b *testing.B) {
	ctx := context.Background()
	tbl, rc, w := benchFreshSetup(b, false)
	cm := newCommit(b, rc, "bench")
	sc := types.SchemaToArrow(tbl.Schema.Fields)
	base := int64(131072 + 16384)

	type query struct {
		end   time.Time
		count int64
	}
	var qs []query
	var lat []time.Duration
	var commits int64
	stop := make(chan struct{})
	var wg sync.WaitGroup
	var qerr, cerr error
	wg.Add(2)
	go func() {
		defer wg.Done()
		scan := rc.NewScan()
		for {
			select {
			case <-stop:
				return
			default:
			}
			t0 := time.Now()
			p, err := scan.Plan(ctx)
			if err != nil {
				qerr = err
				return
			}
			n, err := p.Count(ctx)
			p.Release()
			if err != nil {
				qerr = err
				return
			}
			end := time.Now()
			qs = append(qs, query{end, n})
			lat = append(lat, end.Sub(t0))
		}
	}()
	go func() {
		defer wg.Done()
		tick := time.NewTicker(100 * time.Millisecond)
		defer tick.Stop()
		for id := int64(2); ; id++ {
			select {
			case <-stop:
				return
			case <-tick.C:
			}
			prog, err := w.PrepareCommitWithProgress(ctx, id)
			if err == nil {
				var sid int64
				if sid, err = cm.CommitWithProgress(ctx, prog, id, nil); err == nil {
					err = rc.RefreshCommittedSnapshot(ctx, sid)
				}
			}
			if err != nil {
				cerr = err
				return
			}
			commits++
		}
	}()
	var returned []time.Time // returned[i]: row base+i's Write returned
	tick := time.NewTicker(200 * time.Microsecond)
	i := int64(0)
	for b.Loop() {
		<-tick.C
		rec := benchFlightRow(sc, 1e15+i, i, "ATL", "ORD")
		err := w.Write(ctx, rec)
		returned = append(returned, time.Now())
		rec.Release()
		if err != nil {
			b.Fatal(err)
		}
		i++
	}
	tick.Stop()
	// Let the querier see the last rows.
	time.Sleep(20 * time.Millisecond)
	close(stop)
	wg.Wait()
	elapsed := b.Elapsed()
	if qerr != nil {
		b.Fatal(qerr)
	}
	if cerr != nil {
		b.Fatal(cerr)
	}
	for k := 1; k < len(qs); k++ {
		if qs[k].count < qs[k-1].count {
			b.Fatalf("query %d counted %d rows after %d", k, qs[k].count, qs[k-1].count)
		}
	}
	if last := qs[len(qs)-1].count; last != base+i {
		b.Fatalf("last query counted %d rows, want %d", last, base+i)
	}
	var vis []time.Duration
	q := 0
	for k, ret := range returned {
		for q < len(qs) && qs[q].count <= base+int64(k) {
			q++
		}
		vis = append(vis, max(0, qs[q].end.Sub(ret)))
	}
	percentiles(b, "vis-", vis)
	percentiles(b, "query-", lat)
	b.ReportMetric(float64(len(qs))/elapsed.Seconds(), "queries/s")
	b.ReportMetric(float64(commits), "commits")
}

// halfInMemory writes benchRows flights rows into a real-time context of a
// new table, the first half committed in one snapshot, the second half
// left in memory, and returns the context and the batches written.
func halfInMemory(b *testing.B, pk bool) (*realtime.Context, []arrow.RecordBatch) {
	b.Helper()
	batches, _ := flights.Batches(b, flights.Options{MaxRows: benchRows})
	rc := newContext(b, benchFlightsTable(b, pk))
	w := newWrite(b, rc, "bench")
	cm := newCommit(b, rc, "bench")
	half := len(batches) / 2
	benchWrite(b, w, batches[:half])
	refresh(b, rc, commitProg(b, cm, prepare(b, w, 1), 1))
	benchWrite(b, w, batches[half:])
	return rc, batches
}

// BenchmarkUnionRead reads benchRows flights rows, the first half from
// committed files and the second half from memory, through a real-time
// scan (a new Scan per read); input-rows/s is benchRows per read time.
// For the primary-key table the rows merge into the latest flight per
// route (out-rows); its files hold fewer rows than were written (each
// flush keeps one row per key), its memory every written row, so compare
// ns/op with BenchmarkPlainRead/pk rather than rows.
func BenchmarkUnionRead(b *testing.B) {
	for _, pk := range []bool{false, true} {
		b.Run(benchKind(pk), func(b *testing.B) {
			rc, _ := halfInMemory(b, pk)
			var out int64
			for b.Loop() {
				out = benchQuery(b, rc.NewScan())
			}
			if !pk && out != benchRows {
				b.Fatalf("read %d rows, want %d", out, benchRows)
			}
			b.ReportMetric(float64(benchRows)*float64(b.N)/b.Elapsed().Seconds(), "input-rows/s")
			b.ReportMetric(float64(out), "out-rows")
		})
	}
}

// BenchmarkPlainRead reads the same benchRows flights rows after they were
// all committed (in the same two commits), with a plain reader scan and no
// real-time context.
func BenchmarkPlainRead(b *testing.B) {
	ctx := context.Background()
	for _, pk := range []bool{false, true} {
		b.Run(benchKind(pk), func(b *testing.B) {
			batches, _ := flights.Batches(b, flights.Options{MaxRows: benchRows})
			tbl := benchFlightsTable(b, pk)
			rc := newContext(b, tbl)
			w := newWrite(b, rc, "bench")
			cm := newCommit(b, rc, "bench")
			half := len(batches) / 2
			benchWrite(b, w, batches[:half])
			commitProg(b, cm, prepare(b, w, 1), 1)
			benchWrite(b, w, batches[half:])
			commitProg(b, cm, prepare(b, w, 2), 2)
			rc.Close()
			var out int64
			for b.Loop() {
				p, err := reader.NewScan(tbl.FileIO).Plan(ctx)
				if err != nil {
					b.Fatal(err)
				}
				out = 0
				for rec, err := range p.Records(ctx) {
					if err != nil {
						b.Fatal(err)
					}
					out += rec.NumRows()
					rec.Release()
				}
			}
			if !pk && out != benchRows {
				b.Fatalf("read %d rows, want %d", out, benchRows)
			}
			b.ReportMetric(float64(benchRows)*float64(b.N)/b.Elapsed().Seconds(), "input-rows/s")
			b.ReportMetric(float64(out), "out-rows")
		})
	}
}

func benchKind(pk bool) string {
	if pk {
		return "pk"
	}
	return "append"
}

// BenchmarkIngest writes benchRows flights rows per iteration, in batches
// of 4096, into a real-time context: with nothing else running
// (no-commits), or while a goroutine prepares, commits and refreshes every
// 100 ms (commit-100ms). rows/s is the ingest rate Write sustains.
func BenchmarkIngest(b *testing.B) {
	ctx := context.Background()
	for _, pk := range []bool{false, true} {
		for _, commits := range []bool{false, true} {
			name := benchKind(pk) + "/no-commits"
			if commits {
				name = benchKind(pk) + "/commit-100ms"
			}
			b.Run(name, func(b *testing.B) {
				batches, _ := flights.Batches(b, flights.Options{MaxRows: benchRows})
				recs := benchSlices(batches, 4096)
				defer releaseAll(recs)
				tbl := benchFlightsTable(b, pk)
				rc := newContext(b, tbl)
				w := newWrite(b, rc, "bench")
				cm := newCommit(b, rc, "bench")
				stop := make(chan struct{})
				done := make(chan error, 1)
				var rounds atomic.Int64
				if commits {
					go func() {
						tick := time.NewTicker(100 * time.Millisecond)
						defer tick.Stop()
						for id := int64(1); ; id++ {
							select {
							case <-stop:
								done <- nil
								return
							case <-tick.C:
							}
							prog, err := w.PrepareCommitWithProgress(ctx, id)
							if err == nil {
								var sid int64
								// Nothing written since the last round: no snapshot.
								if sid, err = cm.CommitWithProgress(ctx, prog, id, nil); err == nil && sid > 0 {
									err = rc.RefreshCommittedSnapshot(ctx, sid)
								}
							}
							if err != nil {
								done <- err
								return
							}
							rounds.Add(1)
						}
					}()
				} else {
					done <- nil
				}
				for b.Loop() {
					benchWrite(b, w, recs)
				}
				elapsed := b.Elapsed()
				close(stop)
				if err := <-done; err != nil {
					b.Fatal(err)
				}
				b.ReportMetric(float64(benchRows)*float64(b.N)/elapsed.Seconds(), "rows/s")
				b.ReportMetric(float64(rounds.Load()), "commits")
			})
		}
	}
}

// BenchmarkContextLookup looks up one route of the primary-key flights
// table (benchRows rows, the first half committed in one snapshot, the
// second half in memory): hit is a route both halves hold, miss a route
// nobody flew. A new key batch per call, one Context for the whole run.
func BenchmarkContextLookup(b *testing.B) {
	rc, batches := halfInMemory(b, true)
	first := batches[0]
	o, d := first.Column(flights.Origin).(*array.String).Value(0), first.Column(flights.Destination).(*array.String).Value(0)
	for _, tc := range []struct {
		name      string
		o, d      string
		wantFound int64
	}{{"hit", o, d, 1}, {"miss", "ZZZ", "ZZZ", 0}} {
		b.Run(tc.name, func(b *testing.B) {
			benchLookups(b, rc, tc.o, tc.d, tc.wantFound)
		})
	}
	// rtbench's shape: 10,000-row writes, a commit every few of them
	// (one level-0 file per commit and bucket, not compacted) and the
	// writes since the last commit in memory: every run holds the route.
	b.Run("hit-runs", func(b *testing.B) {
		batches, _ := flights.Batches(b, flights.Options{MaxRows: 120000, BatchRows: 10000})
		rc := newContext(b, benchFlightsTable(b, true))
		w := newWrite(b, rc, "bench")
		cm := newCommit(b, rc, "bench")
		for i := range 4 {
			benchWrite(b, w, batches[i*2:i*2+2])
			refresh(b, rc, commitProg(b, cm, prepare(b, w, int64(i+1)), int64(i+1)))
		}
		benchWrite(b, w, batches[8:])
		benchLookups(b, rc, o, d, 1)
	})
}

// benchLookups looks up route o→d in rc with a new key batch per call and
// fails unless each lookup finds want rows.
func benchLookups(b *testing.B, rc *realtime.Context, o, d string, want int64) {
	ctx := context.Background()
	for b.Loop() {
		kb := array.NewRecordBuilder(memory.DefaultAllocator, arrow.NewSchema([]arrow.Field{
			{Name: "origin", Type: arrow.BinaryTypes.String}, {Name: "destination", Type: arrow.BinaryTypes.String}}, nil))
		kb.Field(0).(*array.StringBuilder).Append(o)
		kb.Field(1).(*array.StringBuilder).Append(d)
		keys := kb.NewRecordBatch()
		kb.Release()
		rec, err := rc.Lookup(ctx, keys)
		keys.Release()
		if err != nil {
			b.Fatal(err)
		}
		if rec.NumRows() != want {
			b.Fatalf("%d rows, want %d", rec.NumRows(), want)
		}
		rec.Release()
	}
}
