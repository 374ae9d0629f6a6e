//go:build unix

package main

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"math/rand/v2"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"
)

// importProc is a `paimon import` running as a separate process.
type importProc struct {
	cmd       *exec.Cmd
	out, errb bytes.Buffer
}

func startImport(t *testing.T, args ...string) *importProc {
	t.Helper()
	p := &importProc{}
	p.cmd = exec.Command(os.Args[0], append([]string{"import"}, args...)...)
	p.cmd.Env = append(os.Environ(), cliEnv+"=1")
	p.cmd.Stdout, p.cmd.Stderr = &p.out, &p.errb
	if err := p.cmd.Start(); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() {
		if p.cmd.ProcessState == nil {
			_ = p.cmd.Process.Kill()
			_ = p.cmd.Wait()
		}
	})
	return p
}

// wait waits for the process and returns its exit code. A process still
// running a minute after the call (an import that ignores the signal) is
// killed, and the test fails.
func (p *importProc) wait(t *testing.T) int {
	t.Helper()
	hung := time.AfterFunc(time.Minute, func() { _ = p.cmd.Process.Kill() })
	err := p.cmd.Wait()
	if !hung.Stop() {
		t.Fatalf("the import did not exit within a minute of the signal; stdout %q, stderr %q", p.out.String(), p.errb.String())
	}
	var ee *exec.ExitError
	if err != nil && !errors.As(err, &ee) {
		t.Fatal(err)
	}
	return p.cmd.ProcessState.ExitCode()
}

var interruptedLine = regexp.MustCompile(`^interrupted by (SIGINT|SIGTERM): imported (\d+) rows in (\d+) commits \(([^)]*)\); later rows were not imported\n$`)

// committed is what an interrupted import said it committed.
type committed struct{ rows, commits int }

// checkInterrupted checks the exit code and the stderr line of an import
// interrupted by sig, and returns what it says was committed.
func checkInterrupted(t *testing.T, p *importProc, sig syscall.Signal, code int) committed {
	t.Helper()
	m := interruptedLine.FindStringSubmatch(p.errb.String())
	if code != 128+int(sig) || m == nil || m[1] != signalName(sig) {
		t.Fatalf("exit %d, stderr %q; want exit %d and one line 'interrupted by %s: imported ...'", code, p.errb.String(), 128+int(sig), signalName(sig))
	}
	rows, _ := strconv.Atoi(m[2])
	commits, _ := strconv.Atoi(m[3])
	want := "no snapshot"
	switch commits {
	case 0:
	case 1:
		want = "snapshot 1"
	default:
		want = fmt.Sprintf("snapshots 1..%d", commits)
	}
	if m[4] != want {
		t.Errorf("stderr %q: snapshots %q, want %q", p.errb.String(), m[4], want)
	}
	return committed{rows, commits}
}

// checkTable checks the table after an interrupted import of ids 0, 1, ...
// committed every `every` rows: c.commits snapshots, exactly ids 0 to
// c.rows-1 (a prefix of the input in whole commits; every 0: any number
// of rows), no temporary file, and every file the snapshots name exists.
func checkTable(t *testing.T, tbl string, c committed, every int) {
	t.Helper()
	if every > 0 && c.rows != c.commits*every {
		t.Errorf("committed %d rows in %d commits of %d rows", c.rows, c.commits, every)
	}
	var temps []string
	_ = filepath.WalkDir(tbl, func(p string, d fs.DirEntry, err error) error {
		if err == nil && strings.HasPrefix(d.Name(), ".") && strings.HasSuffix(d.Name(), ".tmp") {
			temps = append(temps, p)
		}
		return nil
	})
	if len(temps) > 0 {
		t.Errorf("temporary files left: %v", temps)
	}
	snaps, _ := filepath.Glob(filepath.Join(tbl, "snapshot", "snapshot-*"))
	if len(snaps) != c.commits {
		t.Errorf("%d snapshot files, want %d", len(snaps), c.commits)
	}
	if c.commits > 0 {
		if missing := liveFilesMissing(t, context.Background(), tbl); len(missing) > 0 {
			t.Errorf("files named by snapshots are missing: %v", missing)
		}
	}
	var ids []int
	for _, line := range strings.Split(strings.TrimSpace(mustRun(t, "cat", "--format", "jsonl", "--columns", "id", tbl)), "\n") {
		if line == "" {
			continue
		}
		var r struct{ ID int }
		if err := json.Unmarshal([]byte(line), &r); err != nil {
			t.Fatal(err)
		}
		ids = append(ids, r.ID)
	}
	slices.Sort(ids)
	for i, id := range ids {
		if id != i {
			t.Fatalf("table holds ids %v...; want 0 to %d", ids[:min(len(ids), i+3)], c.rows-1)
		}
	}
	if len(ids) != c.rows {
		t.Errorf("table holds %d rows, the import said %d", len(ids), c.rows)
	}
}

func jsonlRows(from, to int) []byte {
	var b bytes.Buffer
	for i := from; i < to; i++ {
		fmt.Fprintf(&b, `{"id": %d, "s": "row %d of the signal test"}`+"\n", i, i)
	}
	return b.Bytes()
}

// waitFile waits (at most a minute) until path exists.
func waitFile(t *testing.T, path string) {
	t.Helper()
	for range 6000 {
		if _, err := os.Stat(path); err == nil {
			return
		}
		time.Sleep(10 * time.Millisecond)
	}
	t.Fatalf("%s did not appear", path)
}

// TestImportSignals: SIGTERM stops `paimon import` as SIGINT does (issue
// 12, part 5). The input comes through a named pipe, so that the signal
// arrives at known points: before any row, and between commits with rows
// written but not committed (a data file being written). The import exits
// with 128 + the signal number and one stderr line saying what it
// committed; the table then holds exactly those rows (whole commits, a
// prefix of the input), no temporary file is left and every file the
// snapshots name exists.
func TestImportSignals(t *testing.T) {
	for _, sig := range []syscall.Signal{syscall.SIGTERM, syscall.SIGINT} {
		for _, tc := range []struct {
			name      string
			rows      int // written to the pipe before the signal
			wantSnaps int // snapshots to wait for before the signal
		}{
			{"before-rows", 0, 0},
			{"between-commits", 250, 2},
		} {
			t.Run(fmt.Sprintf("%v/%s", sig, tc.name), func(t *testing.T) {
				dir := t.TempDir()
				tbl := filepath.Join(dir, "t")
				mustRun(t, "create", tbl, "--column", "id:BIGINT", "--column", "s:STRING")
				pipe := filepath.Join(dir, "in.jsonl")
				if err := syscall.Mkfifo(pipe, 0o600); err != nil {
					t.Fatal(err)
				}
				p := startImport(t, "--commit-every", "100", tbl, pipe)
				// Opening the pipe waits for the import to open it: by
				// then it handles signals.
				w, err := os.OpenFile(pipe, os.O_WRONLY, 0)
				if err != nil {
					t.Fatal(err)
				}
				defer w.Close()
				if _, err := w.Write(jsonlRows(0, tc.rows)); err != nil {
					t.Fatal(err)
				}
				if tc.wantSnaps > 0 {
					waitFile(t, filepath.Join(tbl, "snapshot", fmt.Sprintf("snapshot-%d", tc.wantSnaps)))
				}
				if err := p.cmd.Process.Signal(sig); err != nil {
					t.Fatal(err)
				}
				code := p.wait(t)
				c := checkInterrupted(t, p, sig, code)
				if want := (committed{rows: tc.wantSnaps * 100, commits: tc.wantSnaps}); c != want {
					t.Errorf("committed %+v, want %+v", c, want)
				}
				checkTable(t, tbl, c, 100)
			})
		}
	}
}

// TestImportSignalsRandom sends SIGTERM (or SIGINT) to imports of a file
// after a random commit of the first half and a random delay, so that it
// lands while rows are read, data files written and commits made; the checks of TestImportSignals hold after
// every run. An import that finished before the signal must have
// imported every row.
func TestImportSignalsRandom(t *testing.T) {
	if testing.Short() {
		t.Skip("separate processes")
	}
	const rows, every = 60000, 2000
	dir := t.TempDir()
	in := filepath.Join(dir, "in.jsonl")
	if err := os.WriteFile(in, jsonlRows(0, rows), 0o644); err != nil {
		t.Fatal(err)
	}
	rng := rand.New(rand.NewPCG(12, 5))
	finished := 0
	for run := range 8 {
		sig := syscall.SIGTERM
		if run%4 == 3 {
			sig = syscall.SIGINT
		}
		tbl := filepath.Join(dir, fmt.Sprintf("t%d", run))
		mustRun(t, "create", tbl, "--column", "id:BIGINT", "--column", "s:STRING")
		p := startImport(t, "--commit-every", strconv.Itoa(every), tbl, in)
		// Wait for a random commit among the first half, then up to
		// 100 ms more: the signal lands while rows are read, files written
		// or a commit made, with at least 15 commits still to go.
		k := 1 + rng.IntN(rows/every/2)
		waitFile(t, filepath.Join(tbl, "snapshot", fmt.Sprintf("snapshot-%d", k)))
		time.Sleep(time.Duration(rng.IntN(100)) * time.Millisecond)
		if err := p.cmd.Process.Signal(sig); err != nil && !errors.Is(err, os.ErrProcessDone) {
			t.Fatal(err)
		}
		code := p.wait(t)
		if code == 0 {
			finished++
			if want := fmt.Sprintf("imported %d rows in %d commits (snapshots 1..%d)\n", rows, rows/every, rows/every); p.out.String() != want {
				t.Errorf("run %d: finished with %q, want %q", run, p.out.String(), want)
			}
			checkTable(t, tbl, committed{rows, rows / every}, every)
			continue
		}
		c := checkInterrupted(t, p, sig, code)
		t.Logf("run %d: %s after %d commits", run, signalName(sig), c.commits)
		checkTable(t, tbl, c, every)
	}
	if finished > 2 {
		t.Errorf("%d of 8 imports finished before the signal", finished)
	}
}

// waitNewFile waits (at most a minute) until a file below dir exists that
// is not below orig (dir is a copy of orig), temporary files included.
func waitNewFile(t *testing.T, dir, orig string) {
	t.Helper()
	for range 60000 {
		found := false
		_ = filepath.WalkDir(dir, func(p string, d fs.DirEntry, err error) error {
			if err != nil || d.IsDir() || found {
				return nil
			}
			rel, _ := filepath.Rel(dir, p)
			if _, err := os.Stat(filepath.Join(orig, rel)); errors.Is(err, fs.ErrNotExist) {
				found = true
			}
			return nil
		})
		if found {
			return
		}
		time.Sleep(time.Millisecond)
	}
	t.Fatalf("no new file appeared in %s", dir)
}

// TestCompactSignalsRandom sends SIGTERM to full compactions of a
// primary-key table after random delays: each exits 143 with one
// "interrupted by SIGTERM" line (or 0 after committing its COMPACT
// snapshot), leaves no temporary file, no snapshot naming a missing file,
// and the table's rows unchanged.
func TestCompactSignalsRandom(t *testing.T) {
	if testing.Short() {
		t.Skip("separate processes")
	}
	const rows, every = 40000, 4000
	dir := t.TempDir()
	in := filepath.Join(dir, "in.jsonl")
	if err := os.WriteFile(in, jsonlRows(0, rows), 0o644); err != nil {
		t.Fatal(err)
	}
	orig := filepath.Join(dir, "orig")
	mustRun(t, "create", orig, "--column", "id:BIGINT", "--column", "s:STRING", "--primary-key", "id", "--bucket", "2",
		"--option", "write-only=true")
	mustRun(t, "import", "--commit-every", strconv.Itoa(every), orig, in)
	snaps, _ := filepath.Glob(filepath.Join(orig, "snapshot", "snapshot-*"))
	// The signals fall within the time one uninterrupted compaction takes
	// here (process start included).
	measure := filepath.Join(dir, "measure")
	if err := os.CopyFS(measure, os.DirFS(orig)); err != nil {
		t.Fatal(err)
	}
	start := time.Now()
	if _, stderr, code := runCLI(t, dir, nil, "compact", "--full", measure); code != 0 {
		t.Fatalf("compact: %s", stderr)
	}
	took := time.Since(start)
	rng := rand.New(rand.NewPCG(12, 6))
	for run := range 6 {
		tbl := filepath.Join(dir, fmt.Sprintf("t%d", run))
		if err := os.CopyFS(tbl, os.DirFS(orig)); err != nil {
			t.Fatal(err)
		}
		p := &importProc{cmd: exec.Command(os.Args[0], "compact", "--full", tbl)}
		p.cmd.Env = append(os.Environ(), cliEnv+"=1")
		p.cmd.Stdout, p.cmd.Stderr = &p.out, &p.errb
		if err := p.cmd.Start(); err != nil {
			t.Fatal(err)
		}
		// The compaction handles signals once it writes a file (its
		// first output, as a temporary file); the signal comes some time
		// after that.
		waitNewFile(t, tbl, orig)
		time.Sleep(time.Duration(rng.Int64N(int64(took / 2))))
		if err := p.cmd.Process.Signal(syscall.SIGTERM); err != nil && !errors.Is(err, os.ErrProcessDone) {
			t.Fatal(err)
		}
		code := p.wait(t)
		after, _ := filepath.Glob(filepath.Join(tbl, "snapshot", "snapshot-*"))
		switch {
		case code == 0 && p.out.String() == fmt.Sprintf("committed COMPACT snapshot %d\n", len(snaps)+1) && len(after) == len(snaps)+1:
		case code == 143 && strings.HasPrefix(p.errb.String(), "interrupted by SIGTERM: ") && strings.Count(p.errb.String(), "\n") == 1 && len(after) == len(snaps):
		default:
			t.Fatalf("run %d: exit %d, stdout %q, stderr %q, %d snapshots (%d before)", run, code, p.out.String(), p.errb.String(), len(after), len(snaps))
		}
		t.Logf("run %d: exit %d", run, code)
		c := committed{rows: rows, commits: len(after)}
		checkTable(t, tbl, c, 0)
	}
}

// TestImportCreateRace: separate `paimon import --create` processes
// racing to create one table all import into it (create if it does not
// exist): the losers of the create go on with the winner's table, and
// every row lands once. Ten rounds of three processes.
func TestImportCreateRace(t *testing.T) {
	src := filepath.Join("..", "..", "testdata", "flights", "flights-3m.parquet")
	for round := range 10 {
		tbl := filepath.Join(t.TempDir(), "db.db", "t")
		var ps []*importProc
		for range 3 {
			ps = append(ps, startImport(t, "--create", "--limit", "1000", tbl, src))
		}
		for i, p := range ps {
			if code := p.wait(t); code != 0 {
				t.Fatalf("round %d, process %d: exit %d: %s", round, i, code, p.errb.String())
			}
		}
		out, err := run(t, "cat", "--format", "jsonl", tbl)
		if err != nil {
			t.Fatal(err)
		}
		if n := strings.Count(out, "\n"); n != 3000 {
			t.Fatalf("round %d: %d rows, want 3000", round, n)
		}
	}
}
