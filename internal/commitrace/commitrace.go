// Package commitrace races committers in separate OS processes against one
// table and judges the outcome (issue 11, parts 3 and 5). A driver (Run)
// creates the table, starts Config.Procs worker processes, releases them at
// once, and collects one Record per commit call; Check then verifies the
// history: the calls must form a linearizable history of an append-only
// snapshot log (github.com/anishathalye/porcupine), the snapshot ids must be
// contiguous, and every acknowledged commit's rows must be in the final table
// exactly once (each commit writes rows with unique ids). Summarize reports
// latency percentiles and the histogram of lost races per commit.
//
// The worker is the same program: a process whose environment holds EnvConfig
// runs Work instead of its usual main (see WorkerMain). cmd/racebench and the
// racing-committer tests of internal/commitcases both drive it.
//
// The worker uses only API that exists since the committer of commit 32eab9f
// (commit.New, Committer.Commit, commit.WithTrace, commit.ErrConflict,
// commit.ErrRetriesExhausted), so that the package can be copied into a
// worktree of an older commit to build the "before" worker of a benchmark.
package commitrace

import (
	"bufio"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"os/exec"
	"sync"
	"time"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"
	"github.com/apache/arrow-go/v18/arrow/memory"

	"github.com/paimon-go/paimon/catalog"
	"github.com/paimon-go/paimon/commit"
	"github.com/paimon-go/paimon/types"
	"github.com/paimon-go/paimon/writer"
)

// EnvConfig is the environment variable that carries a worker's Config (as
// JSON) to a worker process.
const EnvConfig = "PAIMON_COMMITRACE_WORKER"

// Table is the table Run creates in the warehouse: db.race, an append table
// (k BIGINT, v STRING) without partitions (bucket -1).
var Table = catalog.NewIdentifier("db", "race")

var fields = []types.DataField{{ID: 0, Name: "k", Type: types.BigInt()}, {ID: 1, Name: "v", Type: types.String()}}

// Config describes a race.
type Config struct {
	Warehouse string `json:"warehouse"` // warehouse URL (file://, s3://...)
	Procs     int    `json:"procs"`     // worker processes
	Commits   int    `json:"commits"`   // commits per process
	Rows      int    `json:"rows"`      // rows per commit (default 2)
	// Deadline is each commit's context deadline (0: none), as a caller's
	// would be.
	Deadline time.Duration `json:"deadline"`
	// Options are extra table options (commit.max-retries, ...).
	Options map[string]string `json:"options,omitempty"`
	// Proc is the worker's number (set by Run per process).
	Proc int `json:"proc"`
}

func (c Config) rows() int {
	if c.Rows <= 0 {
		return 2
	}
	return c.Rows
}

// User is the commit user of worker proc.
func User(proc int) string { return fmt.Sprintf("proc-%d", proc) }

// RowID is the k of row j of commit seq (1-based) of worker proc: unique in
// the race.
func RowID(proc, seq, j, rows int) int64 {
	return int64(proc)*1_000_000_000 + int64(seq)*int64(rows) + int64(j)
}

// Record is one Commit call as its caller saw it.
type Record struct {
	Proc int `json:"proc"`
	Seq  int `json:"seq"` // the commit identifier, 1..Commits
	// Invoke and Return are unix nanoseconds read from the process's
	// monotonic clock anchored to the wall clock once at process start, so
	// they never go backwards within a process and are comparable across
	// processes of one machine.
	Invoke int64 `json:"invoke"`
	Return int64 `json:"return"`
	ID     int64 `json:"id"` // the snapshot id returned (0 on error)
	// Err is the error text ("" on success); Definite tells that the error
	// guarantees nothing was published (commit.ErrRetriesExhausted,
	// commit.ErrConflict); other errors leave the outcome unknown.
	Err      string `json:"err,omitempty"`
	Definite bool   `json:"definite,omitempty"`
	Retries  int    `json:"retries"` // lost races (commit.PhaseRetry reports)
}

// Latency is the call's duration.
func (r Record) Latency() time.Duration { return time.Duration(r.Return - r.Invoke) }

// WorkerMain runs Work when the environment holds EnvConfig and exits the
// process (status 1 on error); otherwise it returns at once. Call it first
// in main (or in a test the driver re-executes).
func WorkerMain() {
	raw, ok := os.LookupEnv(EnvConfig)
	if !ok {
		return
	}
	var cfg Config
	if err := json.Unmarshal([]byte(raw), &cfg); err != nil {
		fmt.Fprintln(os.Stderr, "commitrace worker:", err)
		os.Exit(1)
	}
	if err := Work(context.Background(), cfg, os.Stdin, os.Stdout); err != nil {
		fmt.Fprintln(os.Stderr, "commitrace worker:", err)
		os.Exit(1)
	}
	os.Exit(0)
}

// Work is one worker: it opens the table, prints "ready", waits until start
// yields a byte (or EOF), then commits cfg.Commits times as User(cfg.Proc)
// with identifiers 1.., each commit adding cfg.Rows rows written beforehand
// (outside the timed call), and prints one Record per commit as a JSON line.
// A failed commit is recorded and the worker goes on with the next one.
func Work(ctx context.Context, cfg Config, start io.Reader, out io.Writer) error {
	anchor := time.Now()
	wall := anchor.UnixNano()
	now := func() int64 { return wall + int64(time.Since(anchor)) }

	cat, err := catalog.Open(ctx, cfg.Warehouse)
	if err != nil {
		return err
	}
	defer cat.Close()
	tbl, err := cat.GetTable(ctx, Table)
	if err != nil {
		return err
	}
	user := User(cfg.Proc)
	var retries int
	var mu sync.Mutex
	c, err := commit.New(tbl.FileIO, tbl.Schema, user, commit.WithTrace(func(p commit.Phase, _ time.Duration) {
		if p == commit.PhaseRetry {
			mu.Lock()
			retries++
			mu.Unlock()
		}
	}))
	if err != nil {
		return err
	}
	defer c.Close()
	w, err := writer.New(tbl.FileIO, tbl.Schema, user)
	if err != nil {
		return err
	}
	defer w.Close()
	enc := json.NewEncoder(out)
	if _, err := fmt.Fprintln(out, `{"ready":true}`); err != nil {
		return err
	}
	var one [1]byte
	if _, err := start.Read(one[:]); err != nil && !errors.Is(err, io.EOF) {
		return err
	}
	sc := types.SchemaToArrow(fields)
	n := cfg.rows()
	for seq := 1; seq <= cfg.Commits; seq++ {
		rec := batch(sc, cfg.Proc, seq, n)
		err := w.Write(ctx, rec)
		rec.Release()
		if err != nil {
			return err
		}
		msgs, err := w.PrepareCommit(ctx)
		if err != nil {
			return err
		}
		cctx, cancel := ctx, context.CancelFunc(func() {})
		if cfg.Deadline > 0 {
			cctx, cancel = context.WithTimeout(ctx, cfg.Deadline)
		}
		mu.Lock()
		retries = 0
		mu.Unlock()
		r := Record{Proc: cfg.Proc, Seq: seq, Invoke: now()}
		id, err := c.Commit(cctx, int64(seq), msgs)
		r.Return = now()
		cancel()
		mu.Lock()
		r.Retries = retries
		mu.Unlock()
		r.ID = id
		if err != nil {
			r.ID = 0
			r.Err = err.Error()
			r.Definite = errors.Is(err, commit.ErrRetriesExhausted) || errors.Is(err, commit.ErrConflict)
		}
		if err := enc.Encode(r); err != nil {
			return err
		}
	}
	return nil
}

// batch is the rows of commit seq of worker proc.
func batch(sc *arrow.Schema, proc, seq, rows int) arrow.RecordBatch {
	b := array.NewRecordBuilder(memory.DefaultAllocator, sc)
	defer b.Release()
	ks, vs := b.Field(0).(*array.Int64Builder), b.Field(1).(*array.StringBuilder)
	for j := range rows {
		ks.Append(RowID(proc, seq, j, rows))
		vs.Append(fmt.Sprintf("%s/%d", User(proc), seq))
	}
	return b.NewRecordBatch()
}

// CreateTable creates Table in the warehouse of cfg with cfg.Options.
func CreateTable(ctx context.Context, cfg Config) error {
	cat, err := catalog.Open(ctx, cfg.Warehouse)
	if err != nil {
		return err
	}
	defer cat.Close()
	if err := cat.CreateDatabase(ctx, Table.Database, true); err != nil {
		return err
	}
	return cat.CreateTable(ctx, Table, catalog.Schema{Fields: fields, Options: cfg.Options}, false)
}

// Run creates Table in cfg.Warehouse and races cfg.Procs workers: each is
// the program bin started with args and env plus EnvConfig (so bin must call
// WorkerMain, directly or through a test it runs). It returns the records of
// all workers, and an error when a worker could not run to its end.
func Run(ctx context.Context, cfg Config, bin string, args, env []string) ([]Record, error) {
	if err := CreateTable(ctx, cfg); err != nil {
		return nil, fmt.Errorf("commitrace: create table: %w", err)
	}
	type proc struct {
		cmd   *exec.Cmd
		stdin io.WriteCloser
		lines *bufio.Scanner
		errs  *lockedBuffer
	}
	procs := make([]*proc, cfg.Procs)
	kill := func() {
		for _, p := range procs {
			if p != nil && p.cmd.Process != nil {
				_ = p.cmd.Process.Kill()
				_ = p.cmd.Wait()
			}
		}
	}
	for i := range procs {
		wc := cfg
		wc.Proc = i
		raw, err := json.Marshal(wc)
		if err != nil {
			return nil, err
		}
		cmd := exec.CommandContext(ctx, bin, args...)
		cmd.Env = append(append(os.Environ(), env...), EnvConfig+"="+string(raw))
		p := &proc{cmd: cmd, errs: &lockedBuffer{}}
		cmd.Stderr = p.errs
		if p.stdin, err = cmd.StdinPipe(); err != nil {
			kill()
			return nil, err
		}
		stdout, err := cmd.StdoutPipe()
		if err != nil {
			kill()
			return nil, err
		}
		p.lines = bufio.NewScanner(stdout)
		p.lines.Buffer(make([]byte, 1<<16), 1<<22)
		if err := cmd.Start(); err != nil {
			kill()
			return nil, fmt.Errorf("commitrace: start worker %d: %w", i, err)
		}
		procs[i] = p
	}
	// Wait until every worker is ready, then release them together.
	for i, p := range procs {
		if !readyLine(p.lines) {
			kill()
			return nil, fmt.Errorf("commitrace: worker %d did not get ready: %s", i, p.errs.String())
		}
	}
	for _, p := range procs {
		_ = p.stdin.Close()
	}
	recs := make([][]Record, len(procs))
	errs := make([]error, len(procs))
	var wg sync.WaitGroup
	for i, p := range procs {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for p.lines.Scan() {
				var r Record
				if err := json.Unmarshal(p.lines.Bytes(), &r); err != nil {
					errs[i] = fmt.Errorf("commitrace: worker %d: %q: %w", i, p.lines.Text(), err)
					continue
				}
				recs[i] = append(recs[i], r)
			}
			if err := p.cmd.Wait(); err != nil {
				errs[i] = errors.Join(errs[i], fmt.Errorf("commitrace: worker %d: %w: %s", i, err, p.errs.String()))
			}
		}()
	}
	wg.Wait()
	var all []Record
	for _, r := range recs {
		all = append(all, r...)
	}
	return all, errors.Join(errs...)
}

func readyLine(s *bufio.Scanner) bool {
	for s.Scan() {
		var v struct{ Ready bool }
		if json.Unmarshal(s.Bytes(), &v) == nil && v.Ready {
			return true
		}
	}
	return false
}

type lockedBuffer struct {
	mu  sync.Mutex
	buf []byte
}

func (b *lockedBuffer) Write(p []byte) (int, error) {
	b.mu.Lock()
	defer b.mu.Unlock()
	if len(b.buf) < 1<<16 {
		b.buf = append(b.buf, p...)
	}
	return len(p), nil
}

func (b *lockedBuffer) String() string {
	b.mu.Lock()
	defer b.mu.Unlock()
	return string(b.buf)
}
