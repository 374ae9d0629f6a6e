package main

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"

	"github.com/paimon-go/paimon/catalog"
	"github.com/paimon-go/paimon/fileio"
	"github.com/paimon-go/paimon/metrics"
	"github.com/paimon-go/paimon/reader"
)

// database is the database rtbench creates its tables in.
const database = "rtbench"

// result is everything one workload run measured.
type result struct {
	workload string
	store    string
	realtime bool
	mode     string // how commits were triggered
	rows     int64
	batches  int
	// commits are the commits that created a snapshot, in order.
	commits []commitEvent
	// refresh is the latency of RefreshCommittedSnapshot (real-time).
	refresh dist
	// freshness is Write returning → row visible to a reader.
	freshness dist
	// freshnessViolations counts probes that began after Write returned
	// and did not see the rows (a broken real-time contract).
	freshnessViolations int64
	// query is the latency of a union read (plan + count or full merge);
	// plan is its planning part.
	query, plan dist
	// freshnessPlanned is Write returning → the probe's plan ready.
	freshnessPlanned dist
	// lookupFresh is Write returning → Context.Lookup of the batch's last
	// key returning its row (primary-key workloads through the real-time
	// layer); lookupMissed counts such lookups that found no row.
	lookupFresh  dist
	lookupMissed int64
	// write is the latency of one Write call.
	write dist
	// ingest is the time from the first Write call to the last return.
	ingest time.Duration
	// writerReq, commitReq and queryReq are the store requests over the
	// stream, each side counted on a FileIO of its own: the writer's (data
	// files, compaction; for the real-time layer also the context's
	// baseline and refresh reads), the committer's (commit.Committer:
	// manifests, manifest lists, snapshot, offsets file, hints,
	// expiration) and the queries' (union-read queries, freshness and
	// lookup probes, the real-time lookups' warming after a commit). With
	// sharedRequests (mem://, one FileIO) all three are that one counter.
	writerReq, commitReq, queryReq fileio.Stats
	sharedRequests                 bool
	// inputBytes is the resident size of the loaded input: the flights
	// batches and the workload's stream (the batches built from them, off
	// the heap in arenas) and the live heap they keep (the expected-state
	// model; liveHeap).
	inputBytes int64
	// encode is the raw arrow-go encode of the same batches (encode.go);
	// zero when not measured.
	encode encodeResult
	// storeBytes and storeRows sum the real-time stores' usage
	// (realtime.Context.Usage: building and sealed bytes and rows) at the
	// start of every commit; rawRowBytes is the input's Arrow bytes per
	// row (the stream's arena bytes over its rows). Zero without the
	// real-time layer.
	storeBytes, storeRows int64
	rawRowBytes           float64
	// rowsVerified and verifyErr: the read-back check(s).
	rowsVerified bool
	verifyErr    error
	verifiedRows int64
	// unionVerified is set when a union read before the final commit was
	// checked as well (real-time).
	unionVerified bool
	// readBack is the time of the final read of the committed table (plan,
	// read and comparison with the model, which streams along).
	readBack      time.Duration
	finalSnapshot int64
	files, level0 int
	peakRSS       int64
	fileRSS       int64 // of the resident pages then, those mapped from files (code)
	floor         *floor
	// follow (workload follow): Write returning → the follower yielding
	// the row; followRows rows delivered in followSnapshots deliveries at
	// followRate rows/s (first to last delivery).
	follow          dist
	followRows      int64
	followSnapshots int
	followRate      float64
}

// env is what the runs of one rtbench invocation share.
type env struct {
	cfg *config
	// store is the warehouse URL without its query, for display.
	store    string
	cat      *catalog.Catalog
	fl       *dataset
	floor    *floor
	progress func(total int64, desc string) progressBar
	// reporter receives the metrics reports of --metrics; nil: none.
	reporter metrics.Reporter
}

// progressBar is the part of the progress bar a run uses.
type progressBar interface {
	Add64(n int64) error
	Finish() error
}

type noBar struct{}

func (noBar) Add64(int64) error { return nil }
func (noBar) Finish() error     { return nil }

// createTable creates the workload's table in a fresh name.
func (e *env) createTable(ctx context.Context, w *workload) (*catalog.Table, error) {
	s := w.schema
	opts := map[string]string{}
	for k, v := range s.Options {
		opts[k] = v
	}
	if e.cfg.realtime {
		opts["realtime.enabled"] = "true"
	}
	s.Options = opts
	base := strings.ReplaceAll(w.name, "-", "_")
	for i := 1; ; i++ {
		name := base
		if i > 1 {
			name = fmt.Sprintf("%s_%d", base, i)
		}
		id := catalog.NewIdentifier(database, name)
		err := e.cat.CreateTable(ctx, id, s, false)
		if errors.Is(err, catalog.ErrTableExist) {
			continue
		}
		if err != nil {
			return nil, fmt.Errorf("rtbench: create table %s: %w", id, err)
		}
		return e.cat.GetTable(ctx, id)
	}
}

// runner is one workload run in progress.
type runner struct {
	cfg   *config
	sink  sink
	st    *stream
	res   *result
	start time.Time

	// mu serialises Write and Prepare on sinks that need it.
	mu sync.Mutex
	// written counts batches whose Write returned; writtenAt[i] is when
	// batch i's Write returned (since start).
	written   atomic.Int64
	writtenAt []time.Duration
	// included is the number of batches the last commit made durable.
	included   int
	identifier int64

	commitMu sync.Mutex // one commit at a time; guards res.commits, res.refresh, freshness
	// fresh are the freshness samples.
	fresh []time.Duration

	// latest is the newest batch written, for the querier.
	latest atomic.Pointer[probeReq]
	// freshPlanned and violations: see probeBatch.
	freshPlanned []time.Duration
	violations   atomic.Int64
	// lookupFresh and lookupMissed: see lookupProbe.
	lookupFresh  []time.Duration
	lookupMissed int64

	probeErr  error
	queryErr  error
	commitErr error
}

type probeReq struct {
	batch int
	at    time.Time
}

// runWorkload streams w into a new table and measures it.
func (e *env) runWorkload(ctx context.Context, w *workload) (*result, error) {
	steps := 0
	if e.cfg.snapshots > 0 {
		steps = int(e.cfg.snapshots)
	}
	h0 := liveHeap()
	st, err := newStream(ctx, w, e.fl, steps, e.cfg.realtime && e.cfg.appOffsets)
	if err != nil {
		return nil, err
	}
	defer st.Release()
	streamBytes := max(liveHeap()-h0, 0) + st.arena.bytes()
	rawRowBytes := 0.0
	if st.rows > 0 {
		rawRowBytes = float64(st.arena.bytes()) / float64(st.rows)
	}
	tbl, err := e.createTable(ctx, w)
	if err != nil {
		return nil, err
	}
	commitUser := "rtbench-" + w.name
	var sk sink
	if e.cfg.realtime {
		sk, err = newRealtimeSink(ctx, tbl, commitUser, e.reporter)
	} else {
		sk, err = newPlainSink(ctx, tbl, commitUser, e.reporter)
	}
	if err != nil {
		return nil, err
	}
	defer sk.Close()

	res := &result{
		workload: w.name, store: e.store, realtime: e.cfg.realtime, mode: e.cfg.commitMode(),
		rows: st.rows, batches: len(st.batches), floor: e.floor, rawRowBytes: rawRowBytes,
	}
	r := &runner{cfg: e.cfg, sink: sk, st: st, res: res, writtenAt: make([]time.Duration, len(st.batches))}
	resetPeakRSS()

	reqW0, reqC0, reqQ0, shared := sk.requests()
	bar := e.progress(st.rows, w.name)
	var fo *follower
	fctx, fcancel := context.WithCancel(ctx)
	defer fcancel()
	if w.follow {
		r.start = time.Now()
		fo = startFollower(fctx, tbl, st.rows, r.start, e.cfg.followInterval)
	}
	if err := r.stream(ctx, w, bar); err != nil {
		_ = bar.Finish()
		return nil, err
	}
	_ = bar.Finish()
	if fo != nil {
		cum := make([]int64, len(st.probes))
		for i, p := range st.probes {
			cum[i] = p.cumRows
		}
		fo.finish(fcancel, res, r.writtenAt, cum)
	}
	reqW1, reqC1, reqQ1, _ := sk.requests()
	res.writerReq, res.commitReq, res.queryReq = reqW1.Since(reqW0), reqC1.Since(reqC0), reqQ1.Since(reqQ0)
	res.sharedRequests = shared
	res.inputBytes = e.fl.inputBytes + streamBytes

	// Read back through a FileIO of its own.
	t0 := time.Now()
	rows, files, level0, verr := verifyFiles(ctx, tbl, st.model)
	res.readBack = time.Since(t0)
	res.files, res.level0 = files, level0
	res.verifiedRows = rows
	if verr != nil && res.verifyErr == nil {
		res.verifyErr = fmt.Errorf("committed table: %w", verr)
	}
	res.rowsVerified = res.verifyErr == nil
	res.peakRSS, res.fileRSS = peakRSS(), fileRSS()

	// The raw encode of the same batches, after the peak was taken and
	// with nothing else of the run going on.
	if res.encode, err = measureEncode(ctx, tbl.Schema.Options, st.batches, res.commits); err != nil {
		return nil, err
	}
	return res, nil
}

// stream runs the writer (and the freshness probes) in this goroutine, the
// committer and the querier in their own, then the final commit and the union-read check.
func (r *runner) stream(ctx context.Context, w *workload, bar progressBar) error {
	ctx, cancel := context.WithCancel(ctx)
	defer cancel()
	stop := make(chan struct{})
	var wg sync.WaitGroup
	// Commits every N batches run in the writer's goroutine, between two
	// batches; commits on an interval run in their own goroutine while
	// writes go on.
	every := r.cfg.commitEvery
	if r.cfg.snapshots > 0 {
		every = 1
	}
	if every == 0 {
		wg.Go(func() { r.committer(ctx, stop) })
	}
	wg.Go(func() { r.querier(ctx, w, stop) })

	if r.start.IsZero() {
		r.start = time.Now()
	}
	var werr error
	var writeLat []time.Duration
	var probing time.Duration // time spent on probes, off the ingest clock
	var lastProbe time.Time   // of the last union read probe
	lastUnion := false        // the last probe was a union read probe
	gap := probeGap
	if r.cfg.snapshots > 0 {
		gap = scalingProbeGap
	}
	for i, b := range r.st.batches {
		t0 := time.Now()
		if !r.sink.concurrentPrepare() {
			r.mu.Lock()
		}
		err := r.sink.Write(ctx, b)
		t1 := time.Now()
		r.writtenAt[i] = t1.Sub(r.start)
		r.written.Store(int64(i + 1))
		if !r.sink.concurrentPrepare() {
			r.mu.Unlock()
		}
		if err != nil {
			werr = fmt.Errorf("rtbench: write batch %d: %w", i, err)
			break
		}
		writeLat = append(writeLat, t1.Sub(t0))
		r.latest.Store(&probeReq{batch: i, at: t1})
		lk, lookups := r.sink.(keyLookup)
		lookups = lookups && w.primaryKey && r.sink.union() && r.cfg.snapshots == 0
		if r.sink.union() && (t1.Sub(lastProbe) >= gap || lookups) {
			// One probe per batch at most, so that each is timed from Write
			// returning: a union read probe at most every gap, and on
			// primary-key workloads a lookup probe after every other batch
			// (a lookup is cheap, and a p99 wants a few hundred samples).
			var d time.Duration
			var err error
			if lookups && (t1.Sub(lastProbe) < gap || lastUnion) {
				d, err = r.lookupProbe(ctx, lk, w, b, t1)
				lastUnion = false
			} else {
				d, err = r.probeBatch(ctx, i, t1)
				lastProbe, lastUnion = time.Now(), true
			}
			probing += d
			if err != nil {
				werr = err
				break
			}
		}
		_ = bar.Add64(b.NumRows())
		if every > 0 && (i+1)%every == 0 {
			if err := r.commitOnce(ctx); err != nil {
				werr = err
				break
			}
			if r.cfg.snapshots > 0 && r.res.finalSnapshot >= r.cfg.snapshots {
				break // compaction snapshots count too
			}
		}
		if r.failed() != nil {
			break
		}
	}
	r.res.ingest = time.Since(r.start) - probing
	if n := int(r.written.Load()); n < len(r.st.batches) {
		// --snapshots reached its snapshot early: the run wrote n batches.
		r.res.batches = n
		r.res.rows = r.st.probes[n-1].cumRows
	}
	r.st.observe(int(r.written.Load()))
	r.res.freshnessViolations = r.violations.Load()
	r.res.freshnessPlanned = distOf(r.freshPlanned)
	r.res.lookupFresh, r.res.lookupMissed = distOf(r.lookupFresh), r.lookupMissed
	r.res.write = distOf(writeLat)
	close(stop)
	wg.Wait()
	if werr != nil {
		return werr
	}
	if err := r.failed(); err != nil {
		return err
	}

	if r.sink.union() {
		// Everything written is visible before the last commit: check the
		// union of committed files and memory against the model.
		p, err := r.sink.Plan(ctx, reader.WithColumns(r.st.model.columns()...))
		if err == nil {
			_, err = r.st.model.verify(p.Records(ctx))
		}
		if err != nil {
			r.res.verifyErr = fmt.Errorf("union read before the final commit: %w", err)
		}
		r.res.unionVerified = err == nil
	}
	if err := r.commitOnce(ctx); err != nil {
		return err
	}
	r.commitMu.Lock()
	r.res.freshness = distOf(r.fresh)
	r.res.refresh = distOf(r.res.refresh)
	r.commitMu.Unlock()
	return nil
}

func (r *runner) failed() error {
	r.commitMu.Lock()
	defer r.commitMu.Unlock()
	return errors.Join(r.commitErr, r.probeErr, r.queryErr)
}

// committer commits every --commit-interval (ticks that fall during a
// commit are dropped).
func (r *runner) committer(ctx context.Context, stop <-chan struct{}) {
	t := time.NewTicker(r.cfg.commitInterval)
	defer t.Stop()
	for {
		select {
		case <-stop:
			return
		case <-ctx.Done():
			return
		case <-t.C:
		}
		if err := r.commitOnce(ctx); err != nil {
			r.commitMu.Lock()
			r.commitErr = err
			r.commitMu.Unlock()
			return
		}
	}
}

// commitOnce prepares and publishes what was written so far.
func (r *runner) commitOnce(ctx context.Context) error {
	r.commitMu.Lock()
	defer r.commitMu.Unlock()
	r.identifier++
	id := r.identifier

	lock := !r.sink.concurrentPrepare()
	if us, ok := r.sink.(interface{ storeUsage() (int64, int64) }); ok {
		b, n := us.storeUsage()
		r.res.storeBytes += b
		r.res.storeRows += n
	}
	w0, _, _, shared := r.sink.requests()
	t0 := time.Now()
	if lock {
		r.mu.Lock()
	}
	included := int(r.written.Load())
	pend, err := r.sink.Prepare(ctx, id)
	if lock {
		r.mu.Unlock()
	}
	t1 := time.Now()
	w1, p1, _, _ := r.sink.requests()
	if err != nil {
		return fmt.Errorf("rtbench: prepare commit %d: %w", id, err)
	}
	snap, phases, err := r.sink.Publish(ctx, pend, id)
	t2 := time.Now()
	w2, p2, _, _ := r.sink.requests()
	if err != nil {
		return fmt.Errorf("rtbench: commit %d: %w", id, err)
	}
	if snap == 0 {
		// Nothing to publish. Batches whose Write returned since the last
		// commit began were flushed by that commit (their Write had not
		// returned when it began): they are its rows, also for the encode
		// baseline of the last commit of a run.
		if n := len(r.res.commits); n > 0 && included > r.included {
			last := &r.res.commits[n-1]
			for b := r.included; b < included; b++ {
				last.rows += r.st.batches[b].NumRows()
			}
			last.end, r.included = included, included
		}
		return nil
	}
	if err := r.sink.Refresh(ctx, snap); err != nil {
		return fmt.Errorf("rtbench: refresh to snapshot %d: %w", snap, err)
	}
	t3 := time.Now()
	if r.sink.union() {
		r.res.refresh = append(r.res.refresh, t3.Sub(t2))
	}
	ev := commitEvent{at: t0.Sub(r.start), prepare: t1.Sub(t0), publish: t2.Sub(t1), phases: phases, snapshot: snap,
		first: r.included, end: included}
	ev.committer = ev.publish
	if !phases.published.IsZero() {
		ev.committer = min(phases.published.Sub(t1), ev.publish)
	}
	if shared {
		ev.prepareReq, ev.publishReq = w1.Since(w0), w2.Since(w1)
	} else {
		ev.prepareReq, ev.publishReq = w1.Since(w0), p2.Since(p1)
	}
	for b := r.included; b < included; b++ {
		ev.rows += r.st.batches[b].NumRows()
		if !r.sink.union() {
			// Plain reads see a batch once the snapshot holding it is
			// published.
			r.fresh = append(r.fresh, t2.Sub(r.start)-r.writtenAt[b])
		}
	}
	r.res.finalSnapshot = snap
	if included == r.included && len(r.res.commits) > 0 {
		// Only finished background compactions were published (the
		// final drain): not a commit of written rows.
		return nil
	}
	r.included = included
	r.res.commits = append(r.res.commits, ev)
	return nil
}

// querier measures union-read query latency every --query-interval.
func (r *runner) querier(ctx context.Context, w *workload, stop <-chan struct{}) {
	timer := time.NewTimer(r.cfg.queryInterval)
	defer timer.Stop()
	var query, plan []time.Duration
	defer func() {
		r.commitMu.Lock()
		r.res.query, r.res.plan = distOf(query), distOf(plan)
		r.commitMu.Unlock()
	}()
	for {
		select {
		case <-stop:
			return
		case <-ctx.Done():
			return
		case <-timer.C:
		}
		pd, qd, err := r.query(ctx, w)
		if err != nil {
			r.setErr(&r.queryErr, fmt.Errorf("rtbench: union-read query: %w", err))
			return
		}
		plan = append(plan, pd)
		query = append(query, qd)
		timer.Reset(r.cfg.queryInterval)
	}
}

// keyLookup is a sink whose rows can be looked up by primary key, memory
// and files merged (the real-time sink: realtime.Context.Lookup).
type keyLookup interface {
	Lookup(ctx context.Context, keys arrow.RecordBatch) (arrow.RecordBatch, error)
}

// lookupProbe looks up the primary key of the last row of batch b right
// after its Write returned at wrote, in the writer's goroutine, and records
// the time from Write returning to Lookup returning the row (in-process
// freshness of a point lookup). A lookup that finds no row is counted in
// lookupMissed (the real-time contract says it must). It returns the time
// it took, which the ingest clock leaves out.
func (r *runner) lookupProbe(ctx context.Context, lk keyLookup, w *workload, b arrow.RecordBatch, wrote time.Time) (time.Duration, error) {
	last := b.NumRows() - 1
	if last < 0 {
		return 0, nil
	}
	var fields []arrow.Field
	var cols []arrow.Array
	for _, k := range w.schema.PrimaryKeys {
		idx := b.Schema().FieldIndices(k)
		if len(idx) != 1 {
			return 0, fmt.Errorf("rtbench: lookup probe: batch lacks key column %q", k)
		}
		f := b.Schema().Field(idx[0])
		f.Nullable = false
		fields = append(fields, f)
		cols = append(cols, array.NewSlice(b.Column(idx[0]), last, last+1))
	}
	keys := array.NewRecordBatch(arrow.NewSchema(fields, nil), cols, 1)
	for _, c := range cols {
		c.Release()
	}
	defer keys.Release()
	got, err := lk.Lookup(ctx, keys)
	took := time.Since(wrote)
	if err != nil {
		return took, fmt.Errorf("rtbench: lookup probe: %w", err)
	}
	n := got.NumRows()
	got.Release()
	if n != 1 {
		r.lookupMissed++
		return took, nil
	}
	r.lookupFresh = append(r.lookupFresh, took)
	return took, nil
}

// probeGap is the least time between two freshness probes; scalingProbeGap
// that of --snapshots runs, where the probes' planning (every manifest is
// read) would otherwise weigh on the commits being measured.
const (
	probeGap        = 5 * time.Millisecond
	scalingProbeGap = 100 * time.Millisecond
)

// probeBatch measures the freshness of batch i on a real-time sink, in the
// writer's goroutine right after its Write returned at wrote (so no
// scheduling hand-off to another goroutine is measured): it plans a union
// read and records the time from Write returning to the plan's memory read
// views being pinned (the moment the rows are visible to that reader) and
// to the plan being ready. The plan must show the batch (the real-time
// contract); a plan that does not is counted as a violation and the probe
// is repeated until one does. It returns the time it took, which the ingest
// clock leaves out.
func (r *runner) probeBatch(ctx context.Context, i int, wrote time.Time) (time.Duration, error) {
	pr := r.st.probes[i]
	for attempt := 0; ; attempt++ {
		ok, pinned, planned, err := r.probe(ctx, pr)
		if err != nil {
			return time.Since(wrote), fmt.Errorf("rtbench: freshness probe of batch %d: %w", i, err)
		}
		if pinned.IsZero() {
			return time.Since(wrote), fmt.Errorf("rtbench: freshness probe of batch %d: the plan pinned no read view", i)
		}
		if ok {
			r.fresh = append(r.fresh, pinned.Sub(wrote))
			r.freshPlanned = append(r.freshPlanned, planned.Sub(wrote))
			return time.Since(wrote), nil
		}
		if attempt == 0 {
			r.violations.Add(1)
		}
		if time.Since(wrote) > 10*time.Second {
			return time.Since(wrote), fmt.Errorf("rtbench: batch %d not visible 10 s after Write returned", i)
		}
	}
}

func (r *runner) setErr(dst *error, err error) {
	r.commitMu.Lock()
	if *dst == nil {
		*dst = err
	}
	r.commitMu.Unlock()
}

// probe plans a union read and reports whether it shows the batch of p,
// from the offsets the plan covers (per partition-bucket, the committed end
// of the planned snapshot or the memory end of the pinned view): with
// framework offsets, contiguous from 0 in each partition-bucket of the new
// table, their sum counts the rows the plan shows; with application offsets
// (each row's position in the stream) the greatest reaches the batch's last
// row. Rows are written in stream order by this goroutine, so no later batch
// exists yet. It returns when the plan's memory read views were pinned
// (what the plan sees is fixed then) and when the plan was ready.
func (r *runner) probe(ctx context.Context, p probe) (ok bool, pinned, planned time.Time, err error) {
	clock := &pinClock{}
	pl, err := r.sink.Plan(withPinClock(ctx, clock), reader.WithColumns(r.st.model.columns()[0]))
	planned = time.Now()
	if err != nil {
		return false, clock.at, planned, err
	}
	maxEnd, sumEnd := pl.ends()
	if r.cfg.appOffsets {
		return maxEnd >= p.cumRows, clock.at, planned, nil
	}
	return sumEnd >= p.cumRows, clock.at, planned, nil
}

// query runs one union-read query and returns its planning time and its
// whole time: the rows of the month being written (append) or every route,
// merged (primary keys).
func (r *runner) query(ctx context.Context, w *workload) (plan, total time.Duration, err error) {
	opts := []reader.Option{reader.WithColumns(r.st.model.columns()...)}
	if !w.primaryKey {
		month := "2001-01"
		if req := r.latest.Load(); req != nil {
			month = monthOf(r.st.probes[req.batch].last.date)
		}
		opts = []reader.Option{reader.WithWhere("month = '" + month + "'"), reader.WithColumns("delay")}
	}
	t0 := time.Now()
	p, err := r.sink.Plan(ctx, opts...)
	plan = time.Since(t0)
	if err != nil {
		return plan, 0, err
	}
	for rec, err := range p.Records(ctx) {
		if err != nil {
			return plan, 0, err
		}
		rec.Release()
	}
	return plan, time.Since(t0), nil
}

// monthOf returns "YYYY-MM" of a timestamp in microseconds (wall time).
func monthOf(micros int64) string {
	return time.UnixMicro(micros).UTC().Format("2006-01")
}

func addStats(a, b fileio.Stats) fileio.Stats {
	return fileio.Stats{Get: a.Get + b.Get, Put: a.Put + b.Put, List: a.List + b.List, Delete: a.Delete + b.Delete, Head: a.Head + b.Head}
}
