// Command racebench measures commits under contention (issue 11, part 3):
// --procs OS processes (default 8) each commit --commits times (default 100)
// to one append table as fast as they can, each commit adding --rows rows
// written beforehand, and the latency of every Commit call is recorded. It
// reports p50, p90, p99 and max of the acknowledged commits (with the ratios
// of p99 and max to p50; the issue targets p99 <= 10x p50 and max <= 30x
// p50), the commits that gave up, throughput, and the histogram of lost
// races per commit; then it checks the history (package
// internal/commitrace: linearizable, contiguous, every acknowledged row
// exactly once).
//
//	go run ./cmd/racebench                          # local temporary warehouse
//	go run ./cmd/racebench --minio                  # a MinIO server started for the run
//	go run ./cmd/racebench --minio --rounds 2 \
//	    --worker old=/tmp/racebench-old --worker new=self   # before/after, alternating
//
// The workers are processes of this program (--worker NAME=self, the default
// "new=self") or of another build of it (NAME=PATH), e.g. one built from a
// worktree of an older commit with this command's and internal/commitrace's
// sources copied in, so that old and new committers are measured side by
// side on one server: each round runs every worker once, in alternating
// order, each on a fresh table (a new bucket or directory).
//
// Each commit runs under a --deadline context (default 60s), as a caller's;
// --option KEY=VALUE sets table options (commit.max-retries, ...).
package main

import (
	"context"
	"encoding/json"
	"flag"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"time"

	"github.com/paimon-go/paimon/internal/commitrace"
	"github.com/paimon-go/paimon/testenv"
)

type multi []string

func (m *multi) String() string     { return strings.Join(*m, ",") }
func (m *multi) Set(v string) error { *m = append(*m, v); return nil }

type run struct {
	Worker string              `json:"worker"`
	Round  int                 `json:"round"`
	Stats  commitrace.Stats    `json:"stats"`
	Report *commitrace.Report  `json:"report,omitempty"`
	Recs   []commitrace.Record `json:"-"`
}

func main() {
	commitrace.WorkerMain()
	if err := mainErr(); err != nil {
		fmt.Fprintln(os.Stderr, "racebench:", err)
		os.Exit(1)
	}
}

func mainErr() error {
	var workers, options multi
	procs := flag.Int("procs", 8, "worker processes")
	commits := flag.Int("commits", 100, "commits per process")
	rows := flag.Int("rows", 2, "rows per commit")
	deadline := flag.Duration("deadline", 60*time.Second, "context deadline of each commit")
	rounds := flag.Int("rounds", 1, "rounds; each runs every worker once")
	useMinIO := flag.Bool("minio", false, "run on a MinIO server started for the run")
	store := flag.String("store", "", "local directory for the warehouses (default: a temporary one)")
	check := flag.Bool("check", true, "check the history and rows after each run")
	jsonOut := flag.String("json", "", "also write the results as JSON to this file")
	flag.Var(&workers, "worker", "NAME=PATH of a worker binary, or NAME=self (repeatable; default new=self)")
	flag.Var(&options, "option", "table option KEY=VALUE (repeatable)")
	flag.Parse()
	if len(workers) == 0 {
		workers = multi{"new=self"}
	}
	self, err := os.Executable()
	if err != nil {
		return err
	}
	type worker struct{ name, bin string }
	var ws []worker
	for _, w := range workers {
		name, bin, ok := strings.Cut(w, "=")
		if !ok {
			return fmt.Errorf("--worker %q: want NAME=PATH", w)
		}
		if bin == "self" {
			bin = self
		}
		ws = append(ws, worker{name, bin})
	}
	opts := map[string]string{}
	for _, o := range options {
		k, v, ok := strings.Cut(o, "=")
		if !ok {
			return fmt.Errorf("--option %q: want KEY=VALUE", o)
		}
		opts[k] = v
	}
	ctx := context.Background()
	var srv *testenv.Server
	if *useMinIO {
		if srv, err = testenv.StartMinIO(); err != nil {
			return err
		}
		defer srv.Stop()
	}
	dir := *store
	if dir == "" && srv == nil {
		if dir, err = os.MkdirTemp("", "racebench-"); err != nil {
			return err
		}
		defer os.RemoveAll(dir)
	}
	var runs []run
	for round := 1; round <= *rounds; round++ {
		for i := range ws {
			w := ws[i]
			if round%2 == 0 {
				w = ws[len(ws)-1-i]
			}
			wh := ""
			if srv != nil {
				if wh, err = srv.NewBucket(ctx); err != nil {
					return err
				}
			} else {
				p := filepath.Join(dir, fmt.Sprintf("%s-%d", w.name, round))
				if err := os.MkdirAll(p, 0o755); err != nil {
					return err
				}
				wh = "file://" + p
			}
			cfg := commitrace.Config{Warehouse: wh, Procs: *procs, Commits: *commits, Rows: *rows, Deadline: *deadline, Options: opts}
			recs, err := commitrace.Run(ctx, cfg, w.bin, nil, nil)
			if err != nil {
				return fmt.Errorf("%s round %d: %w", w.name, round, err)
			}
			end := time.Now().UnixNano()
			r := run{Worker: w.name, Round: round, Stats: commitrace.Summarize(recs), Recs: recs}
			fmt.Printf("round %d %-6s %s\n", round, w.name, r.Stats)
			if *check {
				rep, err := commitrace.Check(ctx, cfg, recs, end, 0)
				if err != nil {
					return fmt.Errorf("%s round %d: check: %w", w.name, round, err)
				}
				r.Report = &rep
				fmt.Printf("               %s\n", rep)
				for _, p := range rep.Problems {
					fmt.Printf("               problem: %s\n", p)
				}
			}
			runs = append(runs, r)
		}
	}
	if *rounds > 1 {
		for _, w := range ws {
			var all []commitrace.Record
			var wall time.Duration
			for _, r := range runs {
				if r.Worker == w.name {
					all = append(all, r.Recs...)
					wall += r.Stats.Wall
				}
			}
			// Percentiles over the calls of all rounds; throughput over the
			// sum of the rounds' walls (not the time between them).
			st := commitrace.Summarize(all)
			st.Wall = wall
			st.Throughput = float64(st.Commits-st.GaveUp) / wall.Seconds()
			fmt.Printf("all    %-6s %s\n", w.name, st)
		}
	}
	if *jsonOut != "" {
		data, err := json.MarshalIndent(runs, "", "  ")
		if err != nil {
			return err
		}
		return os.WriteFile(*jsonOut, append(data, '\n'), 0o644)
	}
	return nil
}
