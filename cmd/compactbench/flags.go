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

// errUsage marks bad command-line usage (exit status 2).
var errUsage = errors.New("usage")

// Phase names of --phase.
const (
	phaseUpsert = "upsert"
	phaseMemory = "memory"
)

// Primary keys of the memory phase's table (--mem-key).
const (
	memKeyRouteDate = "route-date" // (origin, destination, date)
	memKeyDateRoute = "date-route" // (date, origin, destination)
)

// config is the parsed command line.
type config struct {
	// upsert and memory select the phases.
	upsert, memory bool
	// warehouse selects the warehouse: --store (alias --dir), --minio and
	// --keep.
	warehouse benchstore.Flags
	// data is the flights Parquet file.
	data string

	// duration is how long the upsert phase writes.
	duration time.Duration
	// rows is how many rows of the file the upsert phase loops over (0 =
	// all).
	rows int64
	// batchRows is the number of rows per Write call in the upsert phase.
	batchRows int
	// commitRows triggers a commit after this many rows.
	commitRows int64
	// tailCommits is the number of write-only commits after the timed
	// upsert run, so that the read before the full compaction finds sorted
	// runs above the last compaction's.
	tailCommits int
	// buckets is the bucket count of the upsert table.
	buckets int
	// async runs the writer's compactions in the background
	// (writer.WithAsyncCompaction(1)).
	async bool
	// reads is how many full reads are timed before and after the full
	// compaction (median reported).
	reads int
	// parallelism is compaction.Options.Parallelism of the full compactions.
	parallelism int

	// memBuckets, memRows, memCommits and memKey shape the memory phase's
	// table and writes.
	memBuckets int
	memRows    int64
	memCommits int
	memKey     string
	// sample is the memory sampling interval.
	sample time.Duration

	// jsonPath is the optional JSON output file.
	jsonPath string
	// memProfile, when set, is where the memory phase writes the heap
	// profile (allocations and in-use) taken right after the full
	// compaction.
	memProfile string
}

// parseFlags parses args (without the program name). Help and errors go to
// stderr; a bad command line returns an error wrapping errUsage.
func parseFlags(args []string, stderr io.Writer) (*config, error) {
	fs := flag.NewFlagSet("compactbench", flag.ContinueOnError)
	fs.SetOutput(stderr)
	c := &config{}
	phase := fs.String("phase", "all", "phases to run: upsert (write amplification, reads before/after full compaction), memory (peak memory of a full compaction), or all")
	c.warehouse.Register(fs)
	fs.StringVar(&c.data, "data", "", "flights Parquet file (default: testdata/flights/flights-3m.parquet of the repository)")
	fs.DurationVar(&c.duration, "duration", 10*time.Minute, "how long the upsert phase writes")
	fs.Int64Var(&c.rows, "rows", 0, "flight rows the upsert phase loops over (0 = all 3,000,000)")
	fs.IntVar(&c.batchRows, "batch-rows", 10000, "rows per Write call in the upsert phase")
	fs.Int64Var(&c.commitRows, "commit-rows", 100000, "commit after every N rows in the upsert phase")
	fs.IntVar(&c.tailCommits, "tail-commits", 3, "write-only commits (of --commit-rows rows) after the upsert run, before the read-compact-read")
	fs.IntVar(&c.buckets, "buckets", 4, "bucket count of the upsert table")
	fs.BoolVar(&c.async, "async-compaction", false, "run the writer's compactions in the background (stream write, writer.WithAsyncCompaction(1)) instead of in PrepareCommit")
	fs.IntVar(&c.reads, "reads", 3, "full reads timed before and after the full compaction (median reported)")
	fs.IntVar(&c.parallelism, "parallelism", 2, "buckets rewritten at once by the full compactions (compaction.Options.Parallelism; paimon compact defaults to 2)")
	fs.IntVar(&c.memBuckets, "mem-buckets", 64, "bucket count of the memory phase's table")
	fs.Int64Var(&c.memRows, "mem-rows", 0, "flight rows written into the memory phase's table (0 = all 3,000,000)")
	fs.IntVar(&c.memCommits, "mem-commits", 5, "commits the memory phase's rows are split into (level-0 sorted runs per bucket)")
	fs.StringVar(&c.memKey, "mem-key", memKeyRouteDate, "primary key of the memory phase's table: route-date (origin, destination, date) or date-route (date, origin, destination)")
	fs.DurationVar(&c.sample, "sample", 10*time.Millisecond, "memory sampling interval during the full compaction")
	fs.StringVar(&c.jsonPath, "json", "", "also write the results as JSON to this file")
	fs.StringVar(&c.memProfile, "memprofile", "", "write heap profiles taken right before (FILE.base) and after (FILE) the memory phase's full compaction (go tool pprof -sample_index=alloc_space -diff_base FILE.base FILE), and the in-use profile of its GC cycle with the largest live heap (FILE.peak)")
	fs.Usage = func() {
		fmt.Fprint(stderr, `compactbench: write amplification, read speed before/after full compaction and
peak compaction memory of paimon-go on real flight data (see go doc ./cmd/compactbench).

Usage: compactbench [flags]

Flags:
`)
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
	switch p := strings.TrimSpace(*phase); p {
	case "all":
		c.upsert, c.memory = true, true
	case phaseUpsert:
		c.upsert = true
	case phaseMemory:
		c.memory = true
	default:
		return nil, fmt.Errorf("%w: --phase %q: want upsert, memory or all", errUsage, p)
	}
	switch {
	case c.duration <= 0:
		return nil, fmt.Errorf("%w: --duration must be positive", errUsage)
	case c.rows < 0:
		return nil, fmt.Errorf("%w: --rows must not be negative", errUsage)
	case c.batchRows <= 0:
		return nil, fmt.Errorf("%w: --batch-rows must be positive", errUsage)
	case c.tailCommits < 0:
		return nil, fmt.Errorf("%w: --tail-commits must not be negative", errUsage)
	case c.commitRows <= 0:
		return nil, fmt.Errorf("%w: --commit-rows must be positive", errUsage)
	case c.buckets <= 0:
		return nil, fmt.Errorf("%w: --buckets must be positive", errUsage)
	case c.reads <= 0:
		return nil, fmt.Errorf("%w: --reads must be positive", errUsage)
	case c.parallelism <= 0:
		return nil, fmt.Errorf("%w: --parallelism must be positive", errUsage)
	case c.memBuckets <= 0:
		return nil, fmt.Errorf("%w: --mem-buckets must be positive", errUsage)
	case c.memRows < 0:
		return nil, fmt.Errorf("%w: --mem-rows must not be negative", errUsage)
	case c.memCommits <= 0:
		return nil, fmt.Errorf("%w: --mem-commits must be positive", errUsage)
	case c.memKey != memKeyRouteDate && c.memKey != memKeyDateRoute:
		return nil, fmt.Errorf("%w: --mem-key %q: want %s or %s", errUsage, c.memKey, memKeyRouteDate, memKeyDateRoute)
	case c.sample <= 0:
		return nil, fmt.Errorf("%w: --sample must be positive", errUsage)
	}
	if err := c.warehouse.Check(); err != nil {
		return nil, fmt.Errorf("%w: %w", errUsage, err)
	}
	// The upsert phase opens a second FileIO on the table for the writer,
	// and every FileIO of mem:// is a store of its own.
	if strings.HasPrefix(c.warehouse.Store, "mem://") {
		return nil, fmt.Errorf("%w: --store %s: compactbench opens the warehouse more than once, and each mem:// FileIO is a separate store", errUsage, c.warehouse.Store)
	}
	if c.jsonPath != "" {
		if fi, err := os.Stat(filepath.Dir(c.jsonPath)); err != nil || !fi.IsDir() {
			return nil, fmt.Errorf("%w: --json %s: directory %s does not exist", errUsage, c.jsonPath, filepath.Dir(c.jsonPath))
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
