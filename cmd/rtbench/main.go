// Command rtbench is paimon-go's benchmark on real data: it streams the
// flights of testdata/flights (3 million US domestic flights of 2001, in date
// order) into Paimon tables and measures how long a commit takes compared
// with one request to the store, how fresh rows are through the real-time
// layer, how fast ingest and union reads are, and checks at the end that the
// table holds exactly what was written.
//
//	go run ./cmd/rtbench                       # every workload, temporary local warehouse
//	go run ./cmd/rtbench --minio --json out.json --plot out.svg
//	go run ./cmd/rtbench --workload pk-agg --store s3://bucket/wh?endpoint=...
//	go run ./cmd/rtbench --workload append --snapshots 10000
//
// Workloads (--workload): append (flights partitioned by month), pk-dedupe
// (primary key (origin, destination), the latest flight per route) and pk-agg
// (sum(delay), count and max(distance) per route), or all of them; and
// follow (not in all): pk-dedupe with changelog-producer = input and each
// row's stream position, followed by a stream.Follower in another goroutine
// while it is written, reporting the latency from Write returning to the
// follower yielding the row and checking that every row arrives once; and
// serve (not in all): a paimon serve server (package serve) of a table keyed
// by (origin, destination, date), a writer process putting the flights over
// loopback Arrow Flight, and lookups through the server of each
// acknowledged batch's last row (freshness), of absent keys and
// real-time-only reads meanwhile, then the same rows written in process
// with a Context.Lookup after each Write; the committed table must hold
// each key's last row.
//
// Commit latency is split into the data-file phase (PrepareCommit) and the
// metadata phase (Commit), and the metadata phase into what
// commit.WithTrace reports: the manifest PUTs, the manifest-list PUTs and
// the offsets file (spans of one round of concurrent PUTs, which overlap),
// the snapshot's create-if-absent, and lost races (summary, --detail and
// --plot; the keys of --json are those of issues 5 and 16).
//
// The writer, the committer and the queries each get a FileIO of their own
// (the real-time context through realtime.WithCommitFileIO and
// WithScanFileIO), so requests per commit are the committer's own. The
// data-file phase's rate is set against arrow-go's pqarrow encoding the
// same batches in the same run (encode.go), and the peak RSS against the
// resident size of the loaded input (the flights batches, the workload's
// batches and model).
//
// Exit status: 0 when every check passed, 1 when a run failed or its rows did
// not verify, 2 for bad usage.
package main

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"log/slog"
	"os"
	"os/signal"
	"runtime/pprof"
	"time"

	"github.com/schollz/progressbar/v3"
	"golang.org/x/term"

	"github.com/paimon-go/paimon/internal/benchstore"
	"github.com/paimon-go/paimon/metrics"
)

func main() {
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt)
	code := run(ctx, os.Args[1:], os.Stdout, os.Stderr)
	stop()
	os.Exit(code)
}

// run is the whole program; it returns the exit status.
func run(ctx context.Context, args []string, stdout, stderr io.Writer) int {
	if env := os.Getenv(serveWriterEnv); env != "" {
		return runServeWriter(ctx, env, args, stdout, stderr)
	}
	cfg, err := parseFlags(args, stderr)
	if errors.Is(err, flag.ErrHelp) {
		return 0
	}
	if err != nil {
		fmt.Fprintln(stderr, "rtbench:", oneLine(err))
		if errors.Is(err, errUsage) {
			return 2
		}
		return 1
	}
	results, err := bench(ctx, cfg, stdout, stderr)
	if err != nil {
		fmt.Fprintln(stderr, oneLine(err))
		return 1
	}
	code := 0
	for _, r := range results {
		if !r.rowsVerified {
			fmt.Fprintf(stderr, "rtbench: %s: ROWS DO NOT VERIFY: %s\n", r.workload, oneLine(r.verifyErr))
			code = 1
		}
		if r.lookupMissed > 0 {
			fmt.Fprintf(stderr, "rtbench: %s: %d lookups right after Write returned did not find the row\n", r.workload, r.lookupMissed)
			code = 1
		}
		if r.freshnessViolations > 0 {
			fmt.Fprintf(stderr, "rtbench: %s: %d freshness probes began after Write returned and did not see the rows\n",
				r.workload, r.freshnessViolations)
			code = 1
		}
	}
	return code
}

// bench opens the store, measures its floor, runs the workloads and writes
// the outputs.
func bench(ctx context.Context, cfg *config, stdout, stderr io.Writer) ([]*result, error) {
	wh, err := benchstore.Open(ctx, "rtbench", cfg.warehouse, database)
	if err != nil {
		return nil, fmt.Errorf("rtbench: %w", err)
	}
	defer wh.Close(stderr)

	samples := cfg.floorSamples
	if samples == 0 {
		samples = 200
		if !wh.Local() {
			samples = 100
		}
	}
	fmt.Fprintf(stderr, "rtbench: store %s: measuring the floor (%d PUT, GET, LIST)\n", wh.Redacted(), samples)
	fl, err := measureFloor(ctx, wh.FileIO, samples)
	if err != nil {
		return nil, err
	}
	fl.protocolPuts = 2
	if cfg.realtime {
		fl.protocolPuts = 3 // and the offsets file
	}
	// One more round than samples: the first has no base snapshot to check.
	if fl.protocol, err = measureProtocol(ctx, wh.FileIO, samples+1, fl.protocolPuts); err != nil {
		return nil, err
	}

	t0 := time.Now()
	maxRows := cfg.rows
	if cfg.snapshots > 0 {
		// Batches cycle through the rows loaded; no more are needed.
		maxRows = min(maxRows, cfg.snapshots*int64(cfg.batchRows))
	}
	data, err := loadFlights(ctx, cfg.data, cfg.batchRows, maxRows)
	if err != nil {
		return nil, err
	}
	defer data.Release()
	fmt.Fprintf(stderr, "rtbench: loaded %s flights from %s in %v\n", thousands(data.rows), cfg.data, time.Since(t0).Round(time.Millisecond))

	e := &env{cfg: cfg, store: wh.Redacted(), cat: wh.Catalog, fl: data, floor: fl, progress: progressFactory(cfg, stderr)}
	if cfg.metricsPath != "" {
		f, err := os.Create(cfg.metricsPath)
		if err != nil {
			return nil, fmt.Errorf("rtbench: --metrics: %w", err)
		}
		defer f.Close()
		counts := &reportCounts{}
		e.reporter = metrics.Multi{metrics.Slog{Logger: slog.New(slog.NewJSONHandler(f, nil))}, counts}
		defer func() { fmt.Fprintf(stderr, "rtbench: --metrics: %s to %s\n", counts, cfg.metricsPath) }()
	}
	if cfg.cpuProfile != "" {
		f, err := os.Create(cfg.cpuProfile)
		if err != nil {
			return nil, fmt.Errorf("rtbench: --cpuprofile: %w", err)
		}
		defer f.Close()
		if err := pprof.StartCPUProfile(f); err != nil {
			return nil, fmt.Errorf("rtbench: --cpuprofile: %w", err)
		}
		defer pprof.StopCPUProfile()
	}
	if cfg.memProfile != "" {
		// Written when the runs end: the allocations of the workload runs
		// (alloc_space, alloc_objects) and what was live at the last
		// collection (inuse_space); beside it, F.peak, the heap when the
		// most was live (heapPeak).
		peak := startHeapPeak(ctx, 20*time.Millisecond)
		defer func() {
			f, err := os.Create(cfg.memProfile)
			if err == nil {
				err = errors.Join(pprof.Lookup("allocs").WriteTo(f, 0), f.Close())
			}
			err = errors.Join(err, peak.write(cfg.memProfile+".peak"))
			if err != nil {
				fmt.Fprintf(stderr, "rtbench: --memprofile: %v\n", err)
			}
		}()
	}
	if len(cfg.workloads) == 1 && cfg.workloads[0] == "serve" {
		fmt.Fprintf(stderr, "rtbench: serve: paimon serve in process, a writer process over loopback Flight, commits every %v\n", cfg.serveCommitInterval())
		if _, err := runServe(ctx, cfg, wh.URL, wh.Catalog, data, stdout, stderr); err != nil {
			return nil, fmt.Errorf("rtbench: serve: %w", err)
		}
		return nil, nil
	}
	var results []*result
	for _, name := range cfg.workloads {
		w, err := newWorkload(name, cfg.buckets)
		if err != nil {
			return nil, err
		}
		fmt.Fprintf(stderr, "rtbench: %s: streaming, commit %s, real-time layer %v\n", name, cfg.commitMode(), onOff(cfg.realtime))
		res, err := e.runWorkload(ctx, w)
		if err != nil {
			return nil, fmt.Errorf("rtbench: %s: %w", name, err)
		}
		results = append(results, res)
	}
	printSummary(stdout, cfg, results)
	if cfg.jsonPath != "" {
		if err := writeJSON(cfg.jsonPath, results); err != nil {
			return results, err
		}
	}
	if cfg.detailPath != "" {
		if err := writeDetail(cfg.detailPath, results); err != nil {
			return results, err
		}
	}
	if cfg.plotPath != "" {
		if err := writePlot(cfg.plotPath, results); err != nil {
			return results, err
		}
	}
	return results, nil
}

func onOff(b bool) string {
	if b {
		return "on"
	}
	return "off"
}

// progressFactory returns the progress bar constructor: a bar on stderr
// when it is a terminal and --progress is on, nothing otherwise.
func progressFactory(cfg *config, stderr io.Writer) func(total int64, desc string) progressBar {
	f, ok := stderr.(*os.File)
	if !cfg.progress || !ok || !term.IsTerminal(int(f.Fd())) {
		return func(int64, string) progressBar { return noBar{} }
	}
	return func(total int64, desc string) progressBar {
		return progressbar.NewOptions64(total,
			progressbar.OptionSetWriter(f),
			progressbar.OptionSetDescription(desc),
			progressbar.OptionShowCount(),
			progressbar.OptionShowIts(),
			progressbar.OptionSetItsString("rows"),
			progressbar.OptionThrottle(100*time.Millisecond),
			progressbar.OptionSetWidth(30),
			progressbar.OptionClearOnFinish(),
		)
	}
}
