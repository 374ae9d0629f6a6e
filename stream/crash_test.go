//go:build unix

package stream_test

import (
	"context"
	"fmt"
	"math/rand/v2"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/paimon-go/paimon"
	"github.com/paimon-go/paimon/catalog"
	"github.com/paimon-go/paimon/consumer"
	"github.com/paimon-go/paimon/internal/tabletest"
	"github.com/paimon-go/paimon/snapshot"
	"github.com/paimon-go/paimon/stream"
	"github.com/paimon-go/paimon/testenv"
	"github.com/paimon-go/paimon/types"
)

// workerEnv makes the test binary run as a worker process of
// TestFollowerCrashes: "writer" or "follower".
const workerEnv = "STREAM_WORKER"

// longEnv turns on the long form of TestFollowerCrashes (≥ 50 kills).
const longEnv = "STREAM_CRASH_LONG"

const rowsPerCommit = 3

func TestMain(m *testing.M) {
	switch os.Getenv(workerEnv) {
	case "writer":
		os.Exit(report(crashWriter(os.Args[1], atoi(os.Args[2]))))
	case "follower":
		os.Exit(report(crashFollower(os.Args[1], os.Args[2], atoi(os.Args[3]))))
	}
	testenv.Main(m)
}

func atoi(s string) int { n, _ := strconv.Atoi(s); return n }

func report(err error) int {
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		return 3
	}
	return 0
}

// crashWriter commits n snapshots of rowsPerCommit rows each (k = i*3+j),
// through paimon.Table.NewCommit, whose maintenance expires snapshots after
// every commit (the table keeps at most 2, unless a consumer needs more).
func crashWriter(url string, n int) error {
	ctx := context.Background()
	t, err := paimon.OpenTable(ctx, url)
	if err != nil {
		return err
	}
	defer t.Close()
	w, err := t.NewWrite("writer")
	if err != nil {
		return err
	}
	defer w.Close()
	c, err := t.NewCommit("writer")
	if err != nil {
		return err
	}
	defer c.Close()
	sc := types.SchemaToArrow(t.Schema().Fields)
	for i := range n {
		if i == n-1 {
			// The last commit waits for the follower to have checkpointed
			// past snapshot 1, so that its expiration runs against the
			// consumer's protection whatever the store's speed.
			if err := awaitConsumer(ctx, t, 2); err != nil {
				return err
			}
		}
		var rows [][]any
		for j := range rowsPerCommit {
			rows = append(rows, []any{int64(i*rowsPerCommit + j), fmt.Sprintf("c%d", i)})
		}
		b, err := tabletest.NewBatch(sc, rows...)
		if err != nil {
			return err
		}
		err = w.Write(ctx, b)
		b.Release()
		if err != nil {
			return err
		}
		msgs, err := w.PrepareCommit(ctx)
		if err != nil {
			return err
		}
		if _, err := c.Commit(ctx, int64(i+1), msgs); err != nil {
			return err
		}
		time.Sleep(time.Duration(rand.IntN(8)) * time.Millisecond)
	}
	return nil
}

// awaitConsumer waits, at most a minute, until consumer "sink" has a next
// snapshot of at least next.
func awaitConsumer(ctx context.Context, t *paimon.Table, next int64) error {
	for deadline := time.Now().Add(time.Minute); ; time.Sleep(10 * time.Millisecond) {
		n, ok, err := consumer.New(t.FileIO(), "").Read(ctx, "sink")
		if err != nil {
			return err
		}
		if ok && n >= next {
			return nil
		}
		if time.Now().After(deadline) {
			return fmt.Errorf("consumer sink still at %d after a minute", n)
		}
	}
}

// crashFollower follows the table as consumer "sink" with an idempotent
// sink: each delivery is written whole to out/out-<snapshot>.jsonl
// (temporary file, then rename), and only then checkpointed. It exits once
// it has checkpointed past snapshot stopAt (0: never).
func crashFollower(url, out string, stopAt int) error {
	ctx := context.Background()
	t, err := paimon.OpenTable(ctx, url)
	if err != nil {
		return err
	}
	defer t.Close()
	// An earlier (killed) follower may have checkpointed past stopAt
	// already: nothing is left to deliver then.
	if next, ok, err := consumer.New(t.FileIO(), "").Read(ctx, "sink"); err != nil {
		return err
	} else if ok && stopAt > 0 && next > int64(stopAt) {
		return nil
	}
	src := &stream.ReaderSource{FIO: t.FileIO(), Table: t.Schema()}
	f := stream.New(t.FileIO(), t.Schema(), src, stream.Options{Mode: stream.ModeFromSnapshot, SnapshotID: 1, ConsumerID: "sink", Interval: 2 * time.Millisecond})
	for {
		s, err := f.Next(ctx)
		if err != nil {
			return err
		}
		var b strings.Builder
		for _, r := range s.Batches {
			for i := range int(r.NumRows()) {
				fmt.Fprintf(&b, "%s %s %s\n", r.Column(0).ValueStr(i), r.Column(1).ValueStr(i), r.Column(2).ValueStr(i))
			}
		}
		s.Release()
		tmp := filepath.Join(out, fmt.Sprintf(".tmp-%d", s.ID))
		if err := os.WriteFile(tmp, []byte(b.String()), 0o644); err != nil {
			return err
		}
		if err := os.Rename(tmp, filepath.Join(out, fmt.Sprintf("out-%d.jsonl", s.ID))); err != nil {
			return err
		}
		if err := f.Checkpoint(ctx, s.Next); err != nil {
			return err
		}
		if stopAt > 0 && s.ID >= int64(stopAt) {
			return nil
		}
	}
}

func worker(t *testing.T, args ...string) *exec.Cmd {
	t.Helper()
	cmd := exec.Command(os.Args[0], args[1:]...)
	cmd.Env = append(os.Environ(), workerEnv+"="+args[0])
	cmd.Stderr = os.Stderr
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() {
		if cmd.ProcessState == nil {
			_ = cmd.Process.Kill()
			_ = cmd.Wait()
		}
	})
	return cmd
}

// TestFollowerCrashes: a follower process with a consumer and an idempotent
// per-snapshot sink is killed with SIGKILL at random points while a writer
// process commits (and expires snapshots after each commit, down to 2), and
// restarted each time; at the end every committed row was delivered exactly
// once, and no snapshot the follower still needed was expired (the consumer
// protects them). STREAM_CRASH_LONG=1 runs ≥ 50 kills over 200 commits.
func TestFollowerCrashes(t *testing.T) {
	t.Run("local", func(t *testing.T) { followerCrashes(t, "") })
	t.Run("minio", func(t *testing.T) { followerCrashes(t, testenv.MinIO(t)) })
}

// followerCrashes runs TestFollowerCrashes on a table in the warehouse at
// whURL ("" for a local temporary directory).
func followerCrashes(t *testing.T, whURL string) {
	commits, kills := 30, 5
	if os.Getenv(longEnv) != "" {
		commits, kills = 200, 60
	}
	tbl := tabletest.NewTable(t, whURL, catalog.Schema{Fields: kvFields, Options: map[string]string{
		"snapshot.num-retained.min": "1", "snapshot.num-retained.max": "2", "snapshot.time-retained": "1 ms",
	}})
	ctx := context.Background()
	// The consumer is registered before the writer starts, as a streaming
	// job's consumer is: expiration keeps every snapshot from 1 on for it.
	if err := consumer.New(tbl.FileIO, "").Write(ctx, "sink", 1); err != nil {
		t.Fatal(err)
	}
	url := tbl.FileIO.URL()
	out := t.TempDir()
	w := worker(t, "writer", url, strconv.Itoa(commits))
	writerDone := make(chan error, 1)
	go func() { writerDone <- w.Wait() }()
	killed := 0
	rng := rand.New(rand.NewPCG(uint64(time.Now().UnixNano()), 7))
	for running := true; running || killed < kills; {
		f := worker(t, "follower", url, out, "0")
		life := time.Duration(5+rng.IntN(60)) * time.Millisecond
		if killed%5 == 4 {
			// Now and then a longer life, so that the follower gets past
			// its start-up on slow stores and checkpoints.
			life = 400 * time.Millisecond
		}
		time.Sleep(life)
		_ = f.Process.Kill() // SIGKILL
		_ = f.Wait()
		if f.ProcessState.ExitCode() == 3 {
			t.Fatal("the follower failed (see stderr)")
		}
		killed++
		select {
		case err := <-writerDone:
			if err != nil {
				t.Fatalf("writer: %v", err)
			}
			running = false
		default:
		}
	}
	latest, err := snapshot.NewManager(tbl.FileIO).LatestID(ctx)
	if err != nil || latest != int64(commits) {
		t.Fatalf("latest snapshot %d, %v; want %d", latest, err, commits)
	}
	final := worker(t, "follower", url, out, strconv.FormatInt(latest, 10))
	done := make(chan error, 1)
	go func() { done <- final.Wait() }()
	select {
	case err := <-done:
		if err != nil {
			t.Fatalf("final follower: %v", err)
		}
	case <-time.After(2 * time.Minute):
		t.Fatal("the final follower did not catch up within 2 minutes")
	}

	// Every committed row exactly once, in the file of its own snapshot.
	seen := map[string]int{}
	files, _ := filepath.Glob(filepath.Join(out, "out-*.jsonl"))
	if len(files) != commits {
		t.Errorf("%d sink files, want one per commit: %d", len(files), commits)
	}
	for _, p := range files {
		id := atoi(strings.TrimSuffix(strings.TrimPrefix(filepath.Base(p), "out-"), ".jsonl"))
		data, err := os.ReadFile(p)
		if err != nil {
			t.Fatal(err)
		}
		for _, line := range strings.Split(strings.TrimSpace(string(data)), "\n") {
			seen[line]++
			if !strings.HasSuffix(line, fmt.Sprintf(" c%d", id-1)) {
				t.Errorf("%s holds %q, a row of another commit", filepath.Base(p), line)
			}
		}
	}
	var want []string
	for i := range commits {
		for j := range rowsPerCommit {
			want = append(want, fmt.Sprintf("+I %d c%d", i*rowsPerCommit+j, i))
		}
	}
	var got []string
	for line, n := range seen {
		if n != 1 {
			t.Errorf("row %q delivered %d times", line, n)
		}
		got = append(got, line)
	}
	slices.Sort(got)
	slices.Sort(want)
	if !slices.Equal(got, want) {
		t.Errorf("delivered %d distinct rows, want %d:\n got %q\nwant %q", len(got), len(want), got, want)
	}
	if n, _, err := consumer.New(tbl.FileIO, "").Read(ctx, "sink"); n != latest+1 || err != nil {
		t.Errorf("consumer sink = %d, %v; want %d", n, err, latest+1)
	}
	// Expiration ran meanwhile (without the consumer's protection the
	// follower, dead while the writer committed, meets an expired snapshot
	// and exits with status 3).
	earliest, err := snapshot.NewManager(tbl.FileIO).EarliestID(ctx)
	if err != nil {
		t.Fatal(err)
	}
	if earliest <= 1 {
		t.Errorf("earliest snapshot %d: expiration never ran", earliest)
	}
	t.Logf("%d commits, %d SIGKILLs of the follower, earliest snapshot left %d", commits, killed, earliest)
}
