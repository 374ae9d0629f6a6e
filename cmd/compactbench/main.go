// Command compactbench measures the acceptance numbers of compaction and table
// maintenance on real data: the write amplification of a long upsert stream
// with the writer's integrated compaction, the read speed of the table before
// and after a full compaction, and the peak memory of a full compaction of a
// 64-bucket table compared with the bound the code implies.
//
//	go run ./cmd/compactbench                          # all phases, 10 minutes, temporary local warehouse
//	go run ./cmd/compactbench --json out.json          # the same, results also as JSON
//	go run ./cmd/compactbench --duration 1m --phase upsert
//	go run ./cmd/compactbench --phase memory --mem-rows 3000000 --parallelism 2
//	go run ./cmd/compactbench --minio                  # on a MinIO server started for the run
//	go run ./cmd/compactbench --keep                   # keep the temporary warehouse for inspection
//	go run ./cmd/compactbench --store /tmp/wh          # a given warehouse, directory or URL (--dir is an alias)
//
// The data are the 3,000,000 flights of testdata/flights/flights-3m.parquet
// (package internal/flights), found from the working directory as cmd/rtbench
// finds them, or given with --data.
//
// # Phase "upsert": write amplification
//
// Table bench.upsert has the flights columns, primary key (origin,
// destination) (3,399 routes in the whole file), no partition, --buckets
// fixed buckets (default 4) and otherwise default options: merge engine
// deduplicate, num-sorted-run.compaction-trigger 5, stop-trigger 8,
// compaction.max-size-amplification-percent 200, compaction.size-ratio 1,
// write-only false. The first --rows rows of the file (default all) are
// written in batches of --batch-rows for --duration (default 10m); when they
// run out they are written again from the start, so every pass upserts the
// same keys with the values of other flights. After every --commit-rows rows
// (default 100,000) PrepareCommit is called and its messages are committed.
// The writer compacts as a batch write does (package writer: after the flush
// of each PrepareCommit the universal strategy picks, the compaction runs
// synchronously, and its Compact increment goes into the same messages);
// --async-compaction uses writer.WithAsyncCompaction(1) instead (stream write).
//
// Every number is taken from the commit messages that PrepareCommit returned
// and that were committed (commit.Message), per message:
//
//   - input rows: rows given to Write; input Arrow bytes: datafile.RecordSize
//     of every batch given to Write (value bytes of the rows: 8 per BIGINT and
//     TIMESTAMP, 4-byte offset plus the bytes of each string, validity bitmaps
//     only of columns with nulls, of which the flights have none).
//   - level-0 bytes and files: Data.NewFiles, sum of DataFileMeta.FileSize
//     (every such file has Level 0; one with another level is counted in
//     "new files not at level 0" and makes the run fail).
//   - compaction bytes and files: Compact.After files whose FileName is not
//     among the same message's Compact.Before (an After file with a Before
//     name is an upgrade: the same file moved to another level, nothing
//     written; counted as upgrades), sum of FileSize. Compaction input bytes
//     are the Compact.Before files that are not upgraded.
//   - total bytes written = level-0 bytes + compaction bytes.
//   - write amplification = total / level-0 bytes (what compaction adds to
//     the flushes) and total / input Arrow bytes (bytes on the store per byte
//     of rows given to the writer; dedup in the write buffer and Parquet
//     compression make this one small).
//   - commits: PrepareCommit + Commit rounds; compactions: messages whose
//     Compact increment wrote at least one file (with synchronous compaction
//     one per bucket per commit at most); snapshots: the table's latest
//     snapshot id (APPEND and COMPACT snapshots, counted apart from the
//     messages: one APPEND per commit with new files, one COMPACT per commit
//     with a Compact increment).
//   - live files: the files of the latest snapshot (reader plan); files on
//     the store: every file below the table's bucket-N directories (nothing
//     is expired during the run, so these are all data files ever committed).
//     The run checks that their bytes equal the total written and that the
//     writer's Put requests (its own FileIO) equal the files counted, which
//     shows that no intermediate compaction output went unaccounted.
//
// # Phase "upsert": reads before and after a full compaction
//
// The timed run may end just after a compaction that left one sorted run
// per bucket, so --tail-commits (default 3) more commits of --commit-rows
// rows are made first by a write-only writer (not counted in the write
// amplification), leaving level-0 sorted runs on top, as a stream stopped
// between two compactions does. The table is then read completely with
// paimon.OpenTable, Table.NewScan,
// Plan and Records (planning included in the time), --reads times (default
// 3; median reported), fully compacted with compaction.Compact(Full: true,
// Parallelism: --parallelism), as `paimon compact --full` does, and read
// again. Reported: rows returned, rows/s (rows returned / median read time),
// data files, physical rows in them, and sorted runs (level-0 files plus
// non-empty higher levels, summed over buckets, and the most in one bucket).
// Rows before and after must be equal and equal to the distinct (origin,
// destination) keys written (counted in Go from the input batches); otherwise
// the exit status is 1.
//
// # Phase "memory": peak memory of a full compaction of 64 buckets
//
// Table bench.memory has the flights columns with primary key (origin,
// destination, date) (--mem-key route-date; 2,992,108 distinct keys among
// the 3,000,000 rows, so every bucket has real merge work: each commit
// covers every route, and the runs of a bucket overlap over its whole key
// range) or (date, origin, destination) (--mem-key date-route: commits in
// date order then write non-overlapping key ranges), --mem-buckets fixed
// buckets (default 64) and write-only = true. The first --mem-rows rows
// (default all) are written in --mem-commits commits of equal row counts
// (default 5), so each bucket gets that many level-0 sorted runs and nothing
// is compacted. The loaded rows are released, the garbage collector run, the
// table read once (timed), the collector run again, the baseline taken and
// VmHWM reset (/proc/self/clear_refs); then compaction.Compact(Full: true,
// Parallelism: --parallelism) runs while a goroutine samples every --sample
// (default 10ms): the Go heap in objects (runtime/metrics
// /memory/classes/heap/objects:bytes: live objects and dead ones not yet
// swept), the live heap the last GC marked (/gc/heap/live:bytes), all memory
// the Go runtime has mapped (/memory/classes/total:bytes) and the process RSS
// (VmRSS); VmHWM is read at the end. Reported: the peaks, the same minus the
// baseline, and the bound of the compaction package documentation (section
// Memory) with this table's numbers (see type bound):
//
//	P · (R · (G + C·p + B) + W + C·p + D + H + Z)
//
// with P the buckets rewritten at once (min(--parallelism, buckets with
// files)), R the most sorted runs in one bucket (all merged at once), G =
// 32 MiB the row group of level-0 files a run's reader holds, C·p a 1 MiB
// page per column of the KeyValue layout per reader and for the writer, B a
// run's decoded batch (4,096 rows), W = 32 MiB the output row group, D 12 MiB
// of dictionary hash table per output column, H the 20,000 rows held for
// the dictionary decision and Z the writer's zstd encoder; P · (R · G + W)
// is reported too, as the part that holds data. "Within bound"
// means the Go heap and VmHWM above the baseline both stayed below it. The
// table is read once more after the compaction; the rows before and after
// must equal the distinct keys written (exit status 1 otherwise).
// --memprofile FILE writes heap profiles before (FILE.base) and after (FILE)
// the compaction and the in-use profile of the GC cycle with the largest live
// heap (FILE.peak), which shows what the peak is made of.
//
// # Output
//
// A summary on stdout; with --json FILE the same numbers as one JSON object
// (type report). Exit status: 0 when every check passed, 1 when a
// phase failed or a check did not hold, 2 for bad usage.
package main

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"os"
	"os/signal"
	"strings"
)

// main runs the program with the process arguments and exits with its
// status; an interrupt (Ctrl-C) cancels the run.
func main() {
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt)
	code := run(ctx, os.Args[1:], os.Stdout, os.Stderr)
	stop()
	os.Exit(code)
}

// run is the whole program: it parses args, runs the phases, prints the
// summary to stdout and progress to stderr, and returns the exit status.
func run(ctx context.Context, args []string, stdout, stderr io.Writer) int {
	cfg, err := parseFlags(args, stderr)
	if errors.Is(err, flag.ErrHelp) {
		return 0
	}
	if err != nil {
		fmt.Fprintln(stderr, "compactbench:", oneLine(err))
		if errors.Is(err, errUsage) {
			return 2
		}
		return 1
	}
	rep, err := bench(ctx, cfg, stderr)
	if rep != nil {
		printReport(stdout, rep)
		if cfg.jsonPath != "" {
			if jerr := writeJSON(cfg.jsonPath, rep); jerr != nil {
				fmt.Fprintln(stderr, "compactbench:", oneLine(jerr))
				return 1
			}
		}
	}
	if err != nil {
		fmt.Fprintln(stderr, "compactbench:", oneLine(err))
		return 1
	}
	if fails := rep.failures(); len(fails) > 0 {
		for _, f := range fails {
			fmt.Fprintln(stderr, "compactbench: CHECK FAILED:", f)
		}
		return 1
	}
	return 0
}

// oneLine returns err's message on one line.
func oneLine(err error) string {
	return strings.ReplaceAll(err.Error(), "\n", " ")
}
