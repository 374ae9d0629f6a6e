// Package memcheck measures the peak heap of a piece of code in tests: the code runs in a child
// process (the test binary re-executed for one test), so the measure is not blurred by what other
// tests allocated, and a runaway allocation is stopped before it can hurt the machine.
package memcheck

import (
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"runtime"
	"runtime/debug"
	"strconv"
	"testing"
	"time"
)

const (
	envVar   = "PAIMON_MEMCHECK_TEST"
	envInput = "PAIMON_MEMCHECK_INPUT"
)

// abortFactor stops the child once its heap reaches abortFactor × limit.
const abortFactor = 4

var (
	peakRE   = regexp.MustCompile(`memcheck-peak=(\d+)`)
	resultRE = regexp.MustCompile(`memcheck-result=(".*")`)
)

// Peak runs fn(input()) in a child process with debug.SetMemoryLimit(limit) and returns the
// string fn returned and the peak heap of the child in bytes: runtime.MemStats.HeapSys at the
// end (it never shrinks), or the first sample at or above 4 × limit, at which point the child
// stops early and result is "". input runs in the calling process only (its allocations are not
// measured); its bytes reach the child through a temporary file. fn never runs in the calling
// process, so a runaway allocation cannot hurt the test binary. Peak must be called at most once
// per test (the child re-runs exactly t.Name(), then exits when Peak is reached); use subtests
// for several measures.
func Peak(t *testing.T, limit uint64, input func() []byte, fn func([]byte) string) (result string, peak uint64) {
	t.Helper()
	if os.Getenv(envVar) == t.Name() {
		data, err := os.ReadFile(os.Getenv(envInput))
		if err != nil {
			fmt.Println("memcheck:", err)
			os.Exit(2)
		}
		child(limit, func() string { return fn(data) })
		return "", 0 // not reached
	}
	path := filepath.Join(t.TempDir(), "input")
	if err := os.WriteFile(path, input(), 0o600); err != nil {
		t.Fatal(err)
	}
	cmd := exec.Command(os.Args[0], "-test.run=^"+regexp.QuoteMeta(t.Name())+"$", "-test.count=1", "-test.v")
	cmd.Env = append(os.Environ(), envVar+"="+t.Name(), envInput+"="+path)
	out, _ := cmd.CombinedOutput()
	m := peakRE.FindSubmatch(out)
	if m == nil {
		t.Fatalf("memcheck: child printed no measure:\n%s", out)
	}
	n, err := strconv.ParseUint(string(m[1]), 10, 64)
	if err != nil {
		t.Fatal(err)
	}
	if r := resultRE.FindSubmatch(out); r != nil {
		if result, err = strconv.Unquote(string(r[1])); err != nil {
			t.Fatal(err)
		}
	}
	return result, n
}

func child(limit uint64, fn func() string) {
	debug.SetMemoryLimit(int64(limit))
	stop := make(chan struct{})
	go func() {
		var ms runtime.MemStats
		tick := time.NewTicker(2 * time.Millisecond)
		defer tick.Stop()
		for {
			select {
			case <-stop:
				return
			case <-tick.C:
			}
			runtime.ReadMemStats(&ms)
			if ms.HeapSys >= abortFactor*limit {
				fmt.Printf("memcheck-peak=%d (aborted)\n", ms.HeapSys)
				os.Exit(0)
			}
		}
	}()
	result := fn()
	close(stop)
	fmt.Printf("memcheck-result=%s\n", strconv.Quote(result))
	var ms runtime.MemStats
	runtime.ReadMemStats(&ms)
	fmt.Printf("memcheck-peak=%d\n", ms.HeapSys)
	os.Exit(0)
}

// SparseFile makes path (and its directory) a file of size bytes that starts with head and
// holds zeros after it, without writing them (a sparse file on local disk): the hostile input
// of a reader that reads a file whole before checking its size.
func SparseFile(t *testing.T, path string, head []byte, size int64) {
	t.Helper()
	if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(path, head, 0o644); err != nil {
		t.Fatal(err)
	}
	if err := os.Truncate(path, size); err != nil {
		t.Fatal(err)
	}
}
