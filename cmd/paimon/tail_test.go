//go:build unix

package main

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	"github.com/paimon-go/paimon/consumer"
	"github.com/paimon-go/paimon/fileio"
)

// syncBuffer is a bytes.Buffer safe for a process's output and a test
// reading it at once.
type syncBuffer struct {
	mu sync.Mutex
	b  bytes.Buffer
}

func (s *syncBuffer) Write(p []byte) (int, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.b.Write(p)
}

func (s *syncBuffer) String() string {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.b.String()
}

// startTail runs `paimon tail args...` as a separate process.
func startTail(t *testing.T, args ...string) (*exec.Cmd, *syncBuffer, *syncBuffer) {
	t.Helper()
	cmd := exec.Command(os.Args[0], append([]string{"tail"}, args...)...)
	cmd.Env = append(os.Environ(), cliEnv+"=1")
	out, errb := &syncBuffer{}, &syncBuffer{}
	cmd.Stdout, cmd.Stderr = out, errb
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() {
		if cmd.ProcessState == nil {
			_ = cmd.Process.Kill()
			_ = cmd.Wait()
		}
	})
	return cmd, out, errb
}

// waitOutput waits until out holds want exactly.
func waitOutput(t *testing.T, out, errb *syncBuffer, want string) {
	t.Helper()
	deadline := time.Now().Add(30 * time.Second)
	for out.String() != want {
		if time.Now().After(deadline) || len(out.String()) > len(want) {
			t.Fatalf("tail printed\n%s\nwant\n%s\nstderr %s", out.String(), want, errb.String())
		}
		time.Sleep(10 * time.Millisecond)
	}
}

// stopTail sends sig and checks the clean exit (status 0).
func stopTail(t *testing.T, cmd *exec.Cmd, errb *syncBuffer, sig syscall.Signal) {
	t.Helper()
	if err := cmd.Process.Signal(sig); err != nil {
		t.Fatal(err)
	}
	hung := time.AfterFunc(time.Minute, func() { _ = cmd.Process.Kill() })
	_ = cmd.Wait()
	hung.Stop()
	if code := cmd.ProcessState.ExitCode(); code != 0 {
		t.Fatalf("tail exit status %d after %s, want 0; stderr %q", code, sig, errb.String())
	}
}

func importRows(t *testing.T, tbl string, lines ...string) {
	t.Helper()
	f := filepath.Join(t.TempDir(), "in.jsonl")
	if err := os.WriteFile(f, []byte(strings.Join(lines, "\n")+"\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	if _, err := run(t, "import", "--format", "jsonl", tbl, f); err != nil {
		t.Fatal(err)
	}
}

// TestTail: paimon tail in its own process prints each committed snapshot's
// rows with _ROW_KIND, stops with status 0 on SIGINT and SIGTERM, keeps its
// progress in the consumer file, and resumes there.
func TestTail(t *testing.T) {
	tbl := filepath.Join(t.TempDir(), "t")
	if _, err := run(t, "create", tbl, "--column", "k:BIGINT", "--column", "v:STRING", "--primary-key", "k", "--bucket", "1"); err != nil {
		t.Fatal(err)
	}
	importRows(t, tbl, `{"k":1,"v":"a"}`)
	cmd, out, errb := startTail(t, "--from", "earliest", "--consumer", "c1", "--interval", "20ms", tbl)
	want := `{"_ROW_KIND":"+I","k":1,"v":"a"}` + "\n"
	waitOutput(t, out, errb, want)
	importRows(t, tbl, `{"k":2,"v":"b"}`, `{"k":3,"v":"c"}`)
	want += `{"_ROW_KIND":"+I","k":2,"v":"b"}` + "\n" + `{"_ROW_KIND":"+I","k":3,"v":"c"}` + "\n"
	waitOutput(t, out, errb, want)
	stopTail(t, cmd, errb, syscall.SIGINT)

	fio, err := fileio.Open(context.Background(), "file://"+tbl)
	if err != nil {
		t.Fatal(err)
	}
	defer fio.Close()
	if n, ok, err := consumer.New(fio, "").Read(context.Background(), "c1"); n != 3 || !ok || err != nil {
		t.Fatalf("consumer c1 = %d %v %v, want 3", n, ok, err)
	}

	// Resumed at the consumer: snapshot 3 only, projected and filtered.
	importRows(t, tbl, `{"k":4,"v":"d"}`, `{"k":5,"v":"e"}`)
	cmd, out, errb = startTail(t, "--from", "earliest", "--consumer", "c1", "--interval", "20ms", "--columns", "v", "--where", "k > 4", tbl)
	waitOutput(t, out, errb, `{"_ROW_KIND":"+I","v":"e"}`+"\n")
	time.Sleep(100 * time.Millisecond) // nothing more may come
	waitOutput(t, out, errb, `{"_ROW_KIND":"+I","v":"e"}`+"\n")
	stopTail(t, cmd, errb, syscall.SIGTERM)
}

func TestTailUsage(t *testing.T) {
	tbl := filepath.Join(t.TempDir(), "t")
	if _, err := run(t, "create", tbl, "--column", "k:BIGINT"); err != nil {
		t.Fatal(err)
	}
	for _, args := range [][]string{
		{"--from", "snapshot:0"}, {"--from", "yesterday"}, {"--from", "timestamp:noon"},
		{"--format", "csv"}, {"--interval", "0s"}, {"--interval", "soon"}, {"--columns", "nope"},
	} {
		_, err := run(t, append(append([]string{"tail"}, args...), tbl)...)
		var u usageError
		if !errors.As(err, &u) {
			t.Errorf("tail %v: %v, want a usage error", args, err)
		}
	}
}

// TestTailLongLivedChangelog: with a decoupled changelog lifecycle, tail
// --from earliest starts at the earliest long-lived changelog (the changes
// of expired snapshots kept in changelog/), and cat --incremental reads a
// range of them in commit order.
func TestTailLongLivedChangelog(t *testing.T) {
	tbl := filepath.Join(t.TempDir(), "t")
	if _, err := run(t, "create", tbl, "--column", "k:BIGINT", "--column", "v:STRING", "--primary-key", "k", "--bucket", "1",
		"--option", "changelog-producer=input", "--option", "write-only=true",
		"--option", "snapshot.num-retained.min=1", "--option", "snapshot.num-retained.max=2", "--option", "snapshot.time-retained=1ms",
		"--option", "changelog.num-retained.min=3", "--option", "changelog.num-retained.max=5", "--option", "changelog.time-retained=1ms"); err != nil {
		t.Fatal(err)
	}
	for i := 1; i <= 6; i++ {
		importRows(t, tbl, fmt.Sprintf(`{"k":%d,"v":"v%d"}`, i%2, i))
	}
	time.Sleep(5 * time.Millisecond)
	if _, err := run(t, "expire", tbl); err != nil {
		t.Fatal(err)
	}
	// Snapshot 6 is left; changelogs 4 and 5.
	cmd, out, errb := startTail(t, "--from", "earliest", "--interval", "20ms", tbl)
	waitOutput(t, out, errb, `{"_ROW_KIND":"+I","k":0,"v":"v4"}`+"\n"+`{"_ROW_KIND":"+I","k":1,"v":"v5"}`+"\n"+`{"_ROW_KIND":"+I","k":0,"v":"v6"}`+"\n")
	stopTail(t, cmd, errb, syscall.SIGINT)
	got, err := run(t, "cat", "--incremental", "3,6", "--rowkind", "--format", "jsonl", tbl)
	if want := `{"rowkind":"+I","k":0,"v":"v4"}` + "\n" + `{"rowkind":"+I","k":1,"v":"v5"}` + "\n" + `{"rowkind":"+I","k":0,"v":"v6"}` + "\n"; err != nil || got != want {
		t.Errorf("cat --incremental 3,6: %q, %v; want %q", got, err, want)
	}
	if _, err := run(t, "cat", "--incremental", "2,6", tbl); err == nil || !strings.Contains(err.Error(), "long-lived changelogs from 4") {
		t.Errorf("cat --incremental 2,6: %v, want an error naming the long-lived changelogs", err)
	}
}
