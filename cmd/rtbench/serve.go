package main

import (
	"bufio"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"os"
	"os/exec"
	"strconv"
	"strings"
	"sync"
	"time"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"
	"github.com/apache/arrow-go/v18/arrow/memory"
	"github.com/google/uuid"

	paimon "github.com/paimon-go/paimon"
	"github.com/paimon-go/paimon/catalog"
	"github.com/paimon-go/paimon/internal/flights"
	"github.com/paimon-go/paimon/realtime"
	"github.com/paimon-go/paimon/serve"
	"github.com/paimon-go/paimon/types"
)

// serveWriterEnv makes rtbench run as the serve workload's writer process:
// it loads the flights itself and puts them into the server over Flight,
// printing "ack <batch> <unix nanos>" after each acknowledgement and
// "done <rows> <nanos>" at the end.
const serveWriterEnv = "RTBENCH_SERVE_WRITER"

// serveTable is the serve workload's table: flights keyed by (origin,
// destination, date), deduplicate, served by a paimon serve server.
func serveSchema(buckets int) catalog.Schema {
	key := types.String()
	key.Nullable = false
	date := types.TimestampOf(6)
	date.Nullable = false
	return catalog.Schema{
		Fields: []types.DataField{
			{Name: "origin", Type: key}, {Name: "destination", Type: key}, {Name: "date", Type: date},
			{Name: "delay", Type: types.BigInt()}, {Name: "distance", Type: types.BigInt()},
		},
		PrimaryKeys: []string{"origin", "destination", "date"},
		Options: map[string]string{"bucket": strconv.Itoa(buckets), "realtime.enabled": "true", "realtime.provider": "flight",
			"merge-engine": "deduplicate"},
		Comment: "rtbench serve: flights keyed by (origin, destination, date)",
	}
}

// serveKey builds a one-row key batch.
func serveKey(r flightRow) arrow.RecordBatch {
	b := array.NewRecordBuilder(memory.DefaultAllocator, arrow.NewSchema([]arrow.Field{
		{Name: "origin", Type: arrow.BinaryTypes.String}, {Name: "destination", Type: arrow.BinaryTypes.String},
		{Name: "date", Type: &arrow.TimestampType{Unit: arrow.Microsecond}}}, nil))
	defer b.Release()
	b.Field(0).(*array.StringBuilder).Append(r.origin)
	b.Field(1).(*array.StringBuilder).Append(r.destination)
	b.Field(2).(*array.TimestampBuilder).Append(arrow.Timestamp(r.date))
	return b.NewRecordBatch()
}

// serveResult is the serve workload's measurement (--json: {"serve": ...}).
type serveResult struct {
	Rows          int64              `json:"rows"`
	Batches       int                `json:"batches"`
	FlightRowsPS  float64            `json:"ingest_flight_rows_per_s"`
	InProcRowsPS  float64            `json:"ingest_in_process_rows_per_s"`
	Freshness     map[string]float64 `json:"freshness_ms"` // DoPut acknowledged → another process's lookup returns the row
	LookupHit     map[string]float64 `json:"lookup_hit_ms"`
	LookupMiss    map[string]float64 `json:"lookup_miss_ms"`
	RealtimeRead  map[string]float64 `json:"realtime_read_ms"`
	InProcFresh   map[string]float64 `json:"in_process_freshness_ms"` // Write returns → Context.Lookup returns the row
	IdleHit       map[string]float64 `json:"lookup_hit_at_rest_ms"`
	IdleMiss      map[string]float64 `json:"lookup_miss_at_rest_ms"`
	Commits       int64              `json:"commits"`
	VerifiedKeys  int64              `json:"verified_keys"`
	VerifyProblem string             `json:"verify_error,omitempty"`
}

// tableURL is the URL of the table at path below the warehouse URL.
func tableURL(wh, path string) string {
	u, q, ok := strings.Cut(wh, "?")
	u = strings.TrimSuffix(u, "/") + "/" + path
	if ok {
		u += "?" + q
	}
	return u
}

// runServe is --workload serve: a paimon serve server in this process, a
// writer process putting the flights over loopback Flight, and this
// process looking up each acknowledged batch's last row through the
// server, timing lookups of present and absent keys and real-time-only
// reads meanwhile; then the same rows written in process through a
// realtime.Context with a lookup after every Write; and a check that the
// committed table holds, per key, the last row written.
func runServe(ctx context.Context, cfg *config, whURL string, cat *catalog.Catalog, data *dataset, stdout, stderr io.Writer) (*serveResult, error) {
	res := &serveResult{}
	id := catalog.NewIdentifier(database, "serve")
	if err := cat.CreateTable(ctx, id, serveSchema(cfg.buckets), false); err != nil {
		return nil, err
	}
	url := tableURL(whURL, catalog.TablePath(id))
	tb, err := paimon.OpenTable(ctx, url)
	if err != nil {
		return nil, err
	}
	defer tb.Close()
	token := uuid.NewString()
	srv, err := serve.New(tb, serve.Config{Token: token, CommitInterval: cfg.serveCommitInterval()})
	if err != nil {
		return nil, err
	}
	if err := srv.Start("127.0.0.1:0"); err != nil {
		return nil, err
	}
	c, err := serve.Dial(srv.Location(), token)
	if err != nil {
		return nil, err
	}
	defer c.Close()

	// The writer process.
	wcmd := exec.CommandContext(ctx, os.Args[0], "-workload", "serve", "-data", cfg.data, "-rows", strconv.FormatInt(data.rows, 10),
		"-batch-rows", strconv.Itoa(cfg.batchRows))
	wcmd.Env = append(os.Environ(), serveWriterEnv+"="+srv.Location()+" "+token)
	wcmd.Stderr = stderr
	out, err := wcmd.StdoutPipe()
	if err != nil {
		return nil, err
	}
	if err := wcmd.Start(); err != nil {
		return nil, err
	}
	fmt.Fprintf(stderr, "rtbench: serve: server %s, writer process %d\n", srv.Location(), wcmd.Process.Pid)
	var (
		fresh, hit, miss, rt []time.Duration
		mu                   sync.Mutex
		stop                 = make(chan struct{})
		bg                   sync.WaitGroup
	)
	// Real-time-only reads and misses, in the background.
	bg.Add(1)
	go func() {
		defer bg.Done()
		absent := serveKey(flightRow{origin: "ZZZ", destination: "ZZZ", date: 1})
		defer absent.Release()
		for i := 0; ; i++ {
			select {
			case <-stop:
				return
			case <-time.After(20 * time.Millisecond):
			}
			t0 := time.Now()
			if i%2 == 0 {
				r, err := c.Lookup(ctx, absent)
				if err == nil {
					r.Release()
					mu.Lock()
					miss = append(miss, time.Since(t0))
					mu.Unlock()
				}
				continue
			}
			_, portions, err := c.Portions(ctx)
			if err == nil {
				for _, p := range portions {
					for _, r := range p.Rows {
						r.Release()
					}
				}
				mu.Lock()
				rt = append(rt, time.Since(t0))
				mu.Unlock()
			}
		}
	}()
	// The writer's lines arrive in a goroutine; the prober looks up the
	// newest acknowledged batch only, so a slow lookup never queues the
	// next ones (freshness is not inflated by a backlog of probes).
	type ack struct {
		batch int
		at    int64
	}
	acks := make(chan ack, 1)
	var flightNanos int64
	go func() {
		defer close(acks)
		sc := bufio.NewScanner(out)
		for sc.Scan() {
			f := strings.Fields(sc.Text())
			switch {
			case len(f) == 3 && f[0] == "ack":
				bi, _ := strconv.Atoi(f[1])
				at, _ := strconv.ParseInt(f[2], 10, 64)
				select { // keep only the newest
				case <-acks:
				default:
				}
				acks <- ack{bi, at}
				mu.Lock()
				res.Batches++
				mu.Unlock()
			case len(f) == 3 && f[0] == "done":
				mu.Lock()
				res.Rows, _ = strconv.ParseInt(f[1], 10, 64)
				flightNanos, _ = strconv.ParseInt(f[2], 10, 64)
				mu.Unlock()
			}
		}
	}()
	var writerErr error
	for a := range acks {
		b := data.batches[a.batch]
		last := colsOf(b).row(int(b.NumRows()) - 1)
		key := serveKey(last)
		for writerErr == nil {
			t0 := time.Now()
			r, err := c.Lookup(ctx, key)
			if err != nil {
				writerErr = fmt.Errorf("lookup: %w", err)
				break
			}
			found := r.NumRows() == 1
			r.Release()
			if found {
				hit = append(hit, time.Since(t0))
				fresh = append(fresh, time.Since(time.Unix(0, a.at)))
				break
			}
		}
		key.Release()
	}
	werr := wcmd.Wait()
	close(stop)
	bg.Wait()
	if writerErr == nil && werr != nil {
		writerErr = fmt.Errorf("writer process: %w", werr)
	}
	if writerErr != nil {
		_ = srv.Shutdown(ctx)
		return nil, writerErr
	}
	if _, err := c.Commit(ctx); err != nil {
		return nil, err
	}
	// At rest (ingest over, everything committed): lookups over Flight of
	// keys spread over the stream, and of absent keys.
	var idleHit, idleMiss []time.Duration
	for i := range 200 {
		b := data.batches[(i*7919)%len(data.batches)]
		var key arrow.RecordBatch
		want := int64(1)
		if i%2 == 0 {
			key = serveKey(colsOf(b).row((i * 31) % int(b.NumRows())))
		} else {
			key, want = serveKey(flightRow{origin: "ZZZ", destination: fmt.Sprint(i), date: int64(i)}), 0
		}
		t0 := time.Now()
		r, err := c.Lookup(ctx, key)
		el := time.Since(t0)
		key.Release()
		if err != nil {
			return nil, err
		}
		got := r.NumRows()
		r.Release()
		if got != want {
			return nil, fmt.Errorf("lookup at rest found %d rows, want %d", got, want)
		}
		if want == 1 {
			idleHit = append(idleHit, el)
		} else {
			idleMiss = append(idleMiss, el)
		}
	}
	res.IdleHit, res.IdleMiss = pctMap(distOf(idleHit)), pctMap(distOf(idleMiss))
	if err := srv.Shutdown(ctx); err != nil {
		return nil, err
	}
	if flightNanos > 0 {
		res.FlightRowsPS = float64(res.Rows) / (float64(flightNanos) / 1e9)
	}
	res.Freshness, res.LookupHit = pctMap(distOf(fresh)), pctMap(distOf(hit))
	res.LookupMiss, res.RealtimeRead = pctMap(distOf(miss)), pctMap(distOf(rt))
	snaps, err := tb.Snapshots().LatestID(ctx)
	if err == nil {
		res.Commits = snaps
	}
	n, verr := verifyServe(ctx, tb, data)
	res.VerifiedKeys = n
	if verr != nil {
		res.VerifyProblem = verr.Error()
	}

	// In process: the same rows through a realtime.Context, a lookup after
	// every Write, commits every 100 ms beside.
	ip, err := inProcessServe(ctx, cat, whURL, cfg, data)
	if err != nil {
		return nil, err
	}
	res.InProcRowsPS, res.InProcFresh = ip.rowsPS, pctMap(distOf(ip.fresh))
	printServe(stdout, res)
	if cfg.jsonPath != "" {
		b, _ := json.MarshalIndent(map[string]any{"serve": res}, "", "  ")
		if err := os.WriteFile(cfg.jsonPath, append(b, '\n'), 0o644); err != nil {
			return res, err
		}
	}
	if res.VerifyProblem != "" {
		return res, fmt.Errorf("rows do not verify: %s", res.VerifyProblem)
	}
	return res, nil
}

// serveCommitInterval is the server's commit interval: --commit-interval,
// 100 ms unless given.
func (c *config) serveCommitInterval() time.Duration {
	if c.commitInterval > 0 {
		return c.commitInterval
	}
	return 100 * time.Millisecond
}

type inProc struct {
	rowsPS float64
	fresh  []time.Duration
}

// inProcessServe writes data into a fresh served-shape table through a
// realtime.Context in this process, committing every 100 ms in another
// goroutine, and after every Write looks up its last row (Write returns →
// Context.Lookup returns the row).
func inProcessServe(ctx context.Context, cat *catalog.Catalog, whURL string, cfg *config, data *dataset) (*inProc, error) {
	id := catalog.NewIdentifier(database, "serve_in_process")
	if err := cat.CreateTable(ctx, id, serveSchema(cfg.buckets), false); err != nil {
		return nil, err
	}
	tb, err := paimon.OpenTable(ctx, tableURL(whURL, catalog.TablePath(id)))
	if err != nil {
		return nil, err
	}
	defer tb.Close()
	rc, err := tb.NewRealtimeContext()
	if err != nil {
		return nil, err
	}
	defer rc.Close()
	w, err := rc.NewWrite("rtbench-serve")
	if err != nil {
		return nil, err
	}
	defer w.Close()
	cm, err := rc.NewCommit("rtbench-serve")
	if err != nil {
		return nil, err
	}
	defer cm.Close()
	stop := make(chan struct{})
	cerr := make(chan error, 1)
	go func() {
		tk := time.NewTicker(100 * time.Millisecond)
		defer tk.Stop()
		var ident int64
		for {
			select {
			case <-stop:
				cerr <- nil
				return
			case <-tk.C:
			}
			ident++
			if err := commitRealtime(ctx, rc, w, cm, ident); err != nil {
				cerr <- err
				return
			}
		}
	}()
	ip := &inProc{}
	t0 := time.Now()
	var rows int64
	for _, b := range data.batches {
		tbl := projectServe(b)
		err := w.Write(ctx, tbl)
		wrote := time.Now()
		tbl.Release()
		if err != nil {
			close(stop)
			<-cerr
			return nil, err
		}
		rows += b.NumRows()
		key := serveKey(colsOf(b).row(int(b.NumRows()) - 1))
		r, err := rc.Lookup(ctx, key)
		key.Release()
		if err != nil {
			close(stop)
			<-cerr
			return nil, err
		}
		if r.NumRows() != 1 {
			r.Release()
			close(stop)
			<-cerr
			return nil, fmt.Errorf("in-process lookup of a written row found %d rows", r.NumRows())
		}
		r.Release()
		ip.fresh = append(ip.fresh, time.Since(wrote))
	}
	ip.rowsPS = float64(rows) / time.Since(t0).Seconds()
	close(stop)
	if err := <-cerr; err != nil {
		return nil, err
	}
	return ip, nil
}

// commitRealtime prepares and commits what w holds.
func commitRealtime(ctx context.Context, rc *realtime.Context, w *realtime.Write, cm *realtime.Commit, ident int64) error {
	prog, err := w.PrepareCommitWithProgress(ctx, ident)
	if err != nil {
		return err
	}
	id, err := cm.CommitWithProgress(ctx, prog, ident, nil)
	if err != nil {
		return err
	}
	return rc.RefreshCommittedSnapshot(ctx, id)
}

// projectServe returns the table columns of a flights batch in the serve
// table's order.
func projectServe(b arrow.RecordBatch) arrow.RecordBatch {
	idx := []int{flights.Origin, flights.Destination, flights.Date, flights.Delay, flights.Distance}
	fields := make([]arrow.Field, len(idx))
	cols := make([]arrow.Array, len(idx))
	for i, j := range idx {
		fields[i] = b.Schema().Field(j)
		cols[i] = b.Column(j)
	}
	fields[0].Name, fields[1].Name, fields[2].Name, fields[3].Name, fields[4].Name = "origin", "destination", "date", "delay", "distance"
	return array.NewRecordBatch(arrow.NewSchema(fields, nil), cols, b.NumRows())
}

type serveKeyT struct {
	origin, destination string
	date                int64
}

// verifyServe checks that the committed table holds, per key, the last row
// written for it, and nothing else. It returns the keys compared.
func verifyServe(ctx context.Context, tb *paimon.Table, data *dataset) (int64, error) {
	want := map[serveKeyT][2]int64{}
	for _, b := range data.batches {
		c := colsOf(b)
		for i := range int(b.NumRows()) {
			r := c.row(i)
			want[serveKeyT{r.origin, r.destination, r.date}] = [2]int64{r.delay, r.distance}
		}
	}
	p, err := tb.NewScan().Plan(ctx)
	if err != nil {
		return 0, err
	}
	var n int64
	seen := map[serveKeyT]bool{}
	for rec, err := range p.Records(ctx) {
		if err != nil {
			return n, err
		}
		o, d := rec.Column(0).(*array.String), rec.Column(1).(*array.String)
		dt, de, di := rec.Column(2).(*array.Timestamp), rec.Column(3).(*array.Int64), rec.Column(4).(*array.Int64)
		for i := range int(rec.NumRows()) {
			k := serveKeyT{o.Value(i), d.Value(i), int64(dt.Value(i))}
			w, ok := want[k]
			if !ok || seen[k] || w != [2]int64{de.Value(i), di.Value(i)} {
				rec.Release()
				return n, fmt.Errorf("row %v: delay %d distance %d, want %v (known %v, seen before %v)", k, de.Value(i), di.Value(i), w, ok, seen[k])
			}
			seen[k] = true
			n++
		}
		rec.Release()
	}
	if n != int64(len(want)) {
		return n, fmt.Errorf("%d keys in the table, %d written", n, len(want))
	}
	return n, nil
}

// runServeWriter is the writer process of the serve workload (see
// serveWriterEnv): it returns the exit status.
func runServeWriter(ctx context.Context, env string, args []string, stdout, stderr io.Writer) int {
	cfg, err := parseFlags(args, stderr)
	if err != nil {
		fmt.Fprintln(stderr, "rtbench serve writer:", err)
		return 2
	}
	loc, token, _ := strings.Cut(env, " ")
	data, err := loadFlights(ctx, cfg.data, cfg.batchRows, cfg.rows)
	if err != nil {
		fmt.Fprintln(stderr, "rtbench serve writer:", err)
		return 1
	}
	defer data.Release()
	c, err := serve.Dial(loc, token)
	if err != nil {
		fmt.Fprintln(stderr, "rtbench serve writer:", err)
		return 1
	}
	defer c.Close()
	bw := bufio.NewWriter(stdout)
	var st *serve.PutStream
	t0 := time.Now()
	var rows int64
	for i, b := range data.batches {
		rec := projectServe(b)
		if st == nil {
			if st, err = c.OpenPut(ctx, rec.Schema()); err != nil {
				fmt.Fprintln(stderr, "rtbench serve writer:", err)
				return 1
			}
		}
		_, err := st.Write(rec)
		rec.Release()
		if err != nil {
			fmt.Fprintln(stderr, "rtbench serve writer: put:", err)
			return 1
		}
		rows += b.NumRows()
		fmt.Fprintf(bw, "ack %d %d\n", i, time.Now().UnixNano())
		_ = bw.Flush()
	}
	el := time.Since(t0)
	if st != nil {
		if err := st.Close(); err != nil {
			fmt.Fprintln(stderr, "rtbench serve writer: close:", err)
			return 1
		}
	}
	fmt.Fprintf(bw, "done %d %d\n", rows, el.Nanoseconds())
	_ = bw.Flush()
	return 0
}

// printServe prints the serve workload's summary.
func printServe(w io.Writer, r *serveResult) {
	f := func(m map[string]float64) string {
		return fmt.Sprintf("p50 %.3f  p99 %.3f  max %.3f ms  (n=%.0f)", m["p50"], m["p99"], m["max"], m["n"])
	}
	fmt.Fprintf(w, "serve: %s rows in %d batches over Arrow Flight (loopback), %d snapshots; the newest acknowledged batch's last row is probed\n", thousands(r.Rows), r.Batches, r.Commits)
	fmt.Fprintf(w, "  ingest rows/s: Flight %s, in process %s (ratio %.2f)\n", thousands(int64(r.FlightRowsPS)), thousands(int64(r.InProcRowsPS)), r.InProcRowsPS/max(r.FlightRowsPS, 1))
	fmt.Fprintf(w, "  freshness DoPut acknowledged → another process's lookup returns the row: %s\n", f(r.Freshness))
	fmt.Fprintf(w, "  lookup over Flight, hit:  %s\n", f(r.LookupHit))
	fmt.Fprintf(w, "  lookup over Flight, miss: %s\n", f(r.LookupMiss))
	fmt.Fprintf(w, "  real-time-only read (DoGet realtime): %s\n", f(r.RealtimeRead))
	fmt.Fprintf(w, "  at rest (all committed), lookup over Flight, hit:  %s\n", f(r.IdleHit))
	fmt.Fprintf(w, "  at rest (all committed), lookup over Flight, miss: %s\n", f(r.IdleMiss))
	fmt.Fprintf(w, "  in process, Write returns → Context.Lookup returns the row: %s\n", f(r.InProcFresh))
	if r.VerifyProblem == "" {
		fmt.Fprintf(w, "  verified: %s keys, each the last row written\n", thousands(r.VerifiedKeys))
	} else {
		fmt.Fprintf(w, "  ROWS DO NOT VERIFY: %s\n", r.VerifyProblem)
	}
}
