//go:build unix

package main

import (
	"bytes"
	"context"
	"errors"
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
