package main

import (
	"errors"
	"flag"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strings"
	"time"

	"github.com/paimon-go/paimon/internal/benchstore"
	"github.com/paimon-go/paimon/internal/flights"
)

// Runs of at most shortRunRows rows (and no explicit commit cadence) commit
// every few batches, about shortRunCommits times, instead of every
// --commit-interval.
const (
	shortRunRows    = 500_000
	shortRunCommits = 20
)

// errUsage marks bad command-line usage (exit status 2).
var errUsage = errors.New("usage")

// config is the parsed command line.
type config struct {
	metricsPath string // --metrics: JSON lines of metrics reports
	// workloads to run, in order: some of append, pk-dedupe, pk-agg, follow.
	workloads []string
	// rows is the number of flight rows streamed per workload (ignored by
	// --snapshots, which streams until the snapshot count is reached).
	rows int64
	// batchRows is the number of rows per Write call.
	batchRows int
	// commitInterval triggers a commit every interval (when commitEvery is 0).
	commitInterval time.Duration
	// commitEvery triggers a commit every N batches; 0 uses commitInterval.
	commitEvery int
	// realtime routes writes through the real-time layer and runs the
	// freshness querier.
	realtime bool
	// warehouse selects the warehouse: --store (alias --dir), --minio and
	// --keep.
	warehouse benchstore.Flags
	// buckets is the bucket count of the primary-key tables.
	buckets int
	// snapshots, when > 0, commits every batch until this snapshot id.
	snapshots int64
	// floorSamples is the number of PUT, GET and LIST requests of the store
	// floor measurement (each).
	floorSamples int
	// queryInterval is the pause between two union-read latency queries.
	queryInterval time.Duration
	// data is the flights Parquet file.
	data string
	// jsonPath, detailPath and plotPath are the optional output files.
	jsonPath, detailPath, plotPath string
	// cpuProfile is the optional CPU profile file of the runs.
	cpuProfile string
	// memProfile is the optional allocation profile file of the runs.
	memProfile string
	// progress shows the progress bar (when stderr is a terminal).
	progress bool
	// followInterval is the follow workload's polling interval
	// (continuous.discovery-interval).
	followInterval time.Duration
	// appOffsets supplies application offsets (each row's position in the
	// stream) to the real-time writer instead of letting it assign them.
	appOffsets bool
}

// defaultRows is the stream length of a run without --rows: sized so that
// `go run ./cmd/rtbench` with every workload ends within 3 minutes on two
// busy cores.
const defaultRows = 3_000_000

// workloadNames are the workloads of --workload, in the order "all" runs them.
var workloadNames = []string{"append", "pk-dedupe", "pk-agg"}

// parseFlags parses args (without the program name). Help output and
// errors go to stderr; a bad command line returns an error wrapping errUsage.
func parseFlags(args []string, stderr io.Writer) (*config, error) {
	fs := flag.NewFlagSet("rtbench", flag.ContinueOnError)
	fs.SetOutput(stderr)
	c := &config{}
	workload := fs.String("workload", "all", "workload: append, pk-dedupe, pk-agg, all (those three), follow or serve")
	fs.Int64Var(&c.rows, "rows", defaultRows, "flight rows streamed per workload (at most the file's 3,000,000 unless --snapshots)")
	fs.IntVar(&c.batchRows, "batch-rows", 0, "rows per Write call (default 10000; 100 with --snapshots)")
	fs.DurationVar(&c.commitInterval, "commit-interval", 100*time.Millisecond, "commit every interval, from a goroutine of its own while writes go on (runs of at most 500,000 rows commit about 20 times, every few batches, unless a cadence is given)")
	fs.IntVar(&c.commitEvery, "commit-every", 0, "commit after every N batches, in the writer's goroutine, instead of every --commit-interval")
	fs.BoolVar(&c.realtime, "realtime", realtimeAvailable, "write through the real-time layer and measure freshness with a concurrent querier")
	c.warehouse.Register(fs)
	fs.BoolVar(&c.appOffsets, "app-offsets", false, "with --realtime: give every row its position in the stream as its offset (the exactly-once replay pattern) instead of framework-assigned offsets")
	fs.DurationVar(&c.followInterval, "follow-interval", 10*time.Millisecond, "--workload follow: the follower's polling interval (continuous.discovery-interval)")
	fs.IntVar(&c.buckets, "buckets", 2, "bucket count of the primary-key tables")
	fs.Int64Var(&c.snapshots, "snapshots", 0, "scaling run: commit every batch until snapshot N; reports commit p50 at the start and at the end")
	fs.IntVar(&c.floorSamples, "floor-samples", 0, "requests of each kind for the store floor (default 200 local, 100 remote)")
	fs.DurationVar(&c.queryInterval, "query-interval", 100*time.Millisecond, "pause between union-read latency queries")
	fs.StringVar(&c.data, "data", "", "flights Parquet file (default: testdata/flights/flights-3m.parquet of the repository)")
	fs.StringVar(&c.jsonPath, "json", "", "write the results as JSON to this file")
	fs.StringVar(&c.metricsPath, "metrics", "", "write a JSON line per metrics report (package metrics: every commit, scan plan and real-time commit; durations in nanoseconds) to this file")
	fs.StringVar(&c.detailPath, "detail", "", "write every measure of the summary as JSON to this file (keys may grow; --json's are fixed)")
	fs.StringVar(&c.plotPath, "plot", "", "draw latency CDFs and commit latency over time to this .svg or .png file")
	fs.StringVar(&c.cpuProfile, "cpuprofile", "", "write a CPU profile of the workload runs to this file (go tool pprof)")
	fs.StringVar(&c.memProfile, "memprofile", "", "write an allocation profile of the workload runs to this file when they end (go tool pprof -sample_index=alloc_space), and to this file + \".peak\" the heap profile of the moment the most heap was live (-sample_index=inuse_space)")
	fs.BoolVar(&c.progress, "progress", true, "show a progress bar on stderr when it is a terminal")
	fs.Usage = func() {
		fmt.Fprintf(stderr, `rtbench: commit latency, freshness, ingest and read speed of paimon-go on real flight data.

Usage: rtbench [flags]

With no flags it runs every workload on %s rows of testdata/flights/flights-3m.parquet
in a fresh temporary local warehouse. --json writes one object per workload (an array
of them for --workload all) with the keys store, workload, rows, commits,
commit_ms{p50,p95,p99,max}, data_files_ms{p50,p99} (PrepareCommit), metadata_ms{p50,p99}
(Commit), committer_ms{p50,p99} (the commit.Committer's part of it, up to its snapshot's
publication), put_ms{p50,p99}, commit_to_put_p50_ratio, metadata_to_put_p50_ratio,
committer_to_put_p50_ratio, protocol_ms{p50,p99} (the commit protocol's floor: its file PUTs at
once, the snapshot's create-if-absent, the expired-gap check's HEAD and GET, timed alone),
protocol_to_put_p50_ratio, committer_to_protocol_p50_ratio,
requests_per_commit (the committer's own FileIO; every side's on mem://),
data_files_rows_per_s, pqarrow_encode_rows_per_s (arrow-go encoding the same batches, one
file per commit, with the table's compression), encode_ratio (the first over the second),
ingest_rows_per_s, freshness_ms{p50,p99}, for primary-key workloads through the real-time
layer lookup_freshness_ms{p50,p99} (Write return → Context.Lookup returns the row),
query_ms{p50,p99} (union-read queries), plan_ms{p50,p99} (their planning), rows_verified,
input_bytes (resident size of the loaded input, held off the Go heap), peak_rss_bytes,
store_bytes_per_row_ratio (real-time stores' bytes per row held over the input's Arrow
bytes per row; 0 without the real-time layer), and for --workload follow
also follow{latency_ms{p50,p95,p99,max}, rows, deliveries, rows_per_s}. The exit status is
1 when a correctness check fails, 2 for bad usage.
interop/peers/run.sh runs the same workloads with pypaimon and Java Paimon and prints ratios.

Flags:
`, thousands(defaultRows))
		fs.PrintDefaults()
	}
	if err := fs.Parse(args); err != nil {
		if errors.Is(err, flag.ErrHelp) {
			return nil, err
		}
		return nil, fmt.Errorf("%w: %v", errUsage, err)
	}
	if fs.NArg() > 0 {
		return nil, fmt.Errorf("%w: unexpected arguments %q", errUsage, fs.Args())
	}
	set := map[string]bool{}
	fs.Visit(func(f *flag.Flag) { set[f.Name] = true })

	switch w := strings.TrimSpace(*workload); w {
	case "all":
		c.workloads = append([]string(nil), workloadNames...)
	case "append", "pk-dedupe", "pk-agg", "follow", "serve":
		c.workloads = []string{w}
	default:
		return nil, fmt.Errorf("%w: --workload %q: want append, pk-dedupe, pk-agg, all, follow or serve", errUsage, w)
	}
	if w := strings.TrimSpace(*workload); w == "follow" && c.snapshots > 0 {
		return nil, fmt.Errorf("%w: --workload follow does not take --snapshots (rows are accounted for by their position in one pass of the file)", errUsage)
	}
	if c.batchRows == 0 {
		c.batchRows = 10000
		if c.snapshots > 0 {
			c.batchRows = 100
		}
	}
	switch {
	case c.rows <= 0:
		return nil, fmt.Errorf("%w: --rows must be positive", errUsage)
	case c.batchRows <= 0:
		return nil, fmt.Errorf("%w: --batch-rows must be positive", errUsage)
	case c.commitEvery < 0:
		return nil, fmt.Errorf("%w: --commit-every must not be negative", errUsage)
	case c.commitEvery == 0 && c.commitInterval <= 0:
		return nil, fmt.Errorf("%w: --commit-interval must be positive", errUsage)
	case c.snapshots < 0:
		return nil, fmt.Errorf("%w: --snapshots must not be negative", errUsage)
	case c.followInterval <= 0:
		return nil, fmt.Errorf("%w: --follow-interval must be positive", errUsage)
	case c.buckets <= 0:
		return nil, fmt.Errorf("%w: --buckets must be positive", errUsage)
	case c.floorSamples < 0:
		return nil, fmt.Errorf("%w: --floor-samples must not be negative", errUsage)
	case c.queryInterval <= 0:
		return nil, fmt.Errorf("%w: --query-interval must be positive", errUsage)
	case c.appOffsets && !c.realtime:
		return nil, fmt.Errorf("%w: --app-offsets needs --realtime", errUsage)
	case c.realtime && !realtimeAvailable:
		return nil, fmt.Errorf("%w: --realtime: this build has no real-time layer yet", errUsage)
	}
	if err := c.warehouse.Check(); err != nil {
		return nil, fmt.Errorf("%w: %w", errUsage, err)
	}
	if set["commit-every"] && set["commit-interval"] {
		return nil, fmt.Errorf("%w: --commit-every and --commit-interval exclude each other", errUsage)
	}
	// A short run streams its rows in less than a few commit intervals, which
	// would leave one or two commits to measure: unless the cadence is given,
	// commit every few batches so that there are about shortRunCommits.
	if !set["commit-every"] && !set["commit-interval"] && c.snapshots == 0 && c.rows <= shortRunRows {
		batches := (c.rows + int64(c.batchRows) - 1) / int64(c.batchRows)
		c.commitEvery = int(max(1, batches/shortRunCommits))
	}
	// Output files are written after the run: check their directories now
	// rather than fail after minutes of work.
	for _, out := range []struct{ flag, path string }{{"json", c.jsonPath}, {"detail", c.detailPath}, {"plot", c.plotPath}} {
		if out.path == "" {
			continue
		}
		if fi, err := os.Stat(filepath.Dir(out.path)); err != nil || !fi.IsDir() {
			return nil, fmt.Errorf("%w: --%s %s: directory %s does not exist", errUsage, out.flag, out.path, filepath.Dir(out.path))
		}
	}
	if p := c.plotPath; p != "" {
		if ext := strings.ToLower(filepath.Ext(p)); ext != ".svg" && ext != ".png" {
			return nil, fmt.Errorf("%w: --plot %s: the file must end in .svg or .png", errUsage, p)
		}
	}
	var err error
	if c.data, err = flights.DataFlag(c.data); errors.Is(err, flights.ErrNotFound) {
		return nil, fmt.Errorf("%w: %w", errUsage, err)
	} else if err != nil {
		return nil, err
	}
	return c, nil
}

// commitMode describes how commits are triggered, for the summary.
func (c *config) commitMode() string {
	switch {
	case c.snapshots > 0:
		return fmt.Sprintf("every batch until snapshot %d", c.snapshots)
	case c.commitEvery > 0:
		return fmt.Sprintf("every %d batches", c.commitEvery)
	default:
		return "every " + c.commitInterval.String()
	}
}
