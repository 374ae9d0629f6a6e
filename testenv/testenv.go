// Package testenv starts real storage services for tests: a MinIO server (S3)
// and, optionally, fake-gcs-server (GCS). Servers run on 127.0.0.1 with free
// ports and temporary data directories, one per test binary, started on first
// use and stopped when the tests end.
//
// A package whose tests use it must run them through [Main]:
//
//	func TestMain(m *testing.M) { testenv.Main(m) }
//
// and can then ask for a fresh, empty bucket in any test:
//
//	url := testenv.MinIO(t) // "s3://b0001-…?endpoint=http://127.0.0.1:PORT&use_path_style=true&region=us-east-1"
//	fio, err := fileio.Open(ctx, url)
//
// # Finding the binaries
//
// The MinIO server binary is looked up as $MINIO_BIN, then "minio" on $PATH,
// then ${XDG_CACHE_HOME:-$HOME/.cache}/paimon-go/minio/bin/minio, where
// scripts/install-minio.sh builds it. If none exists, the test is skipped, or
// fails when the environment variable CI is "true", so that CI never passes
// by skipping. fake-gcs-server is looked up the same way ($FAKE_GCS_BIN,
// PATH, …/paimon-go/fake-gcs-server/bin/fake-gcs-server) and its tests are
// always skipped when it is missing: GCS coverage is optional.
//
// # Shared state
//
// The servers are process-wide: this package keeps them in package-level
// state guarded by a mutex, the one exception to the project's no-globals
// rule, because a server takes seconds to start and must outlive single
// tests. Each call returns a new bucket, so tests stay isolated.
package testenv

import (
	"crypto/rand"
	"encoding/hex"
	"fmt"
	"net"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"
)

// servers holds the process-wide test servers, started lazily by the first
// test that needs each and stopped by Main.
var servers struct {
	mu      sync.Mutex
	inMain  bool
	minio   *server
	gcs     *server
	azurite *server
	errs    map[string]error // start failures, so later tests fail fast
	seq     int              // bucket counter
}

// Main runs the tests of m and then stops the servers started by MinIO,
// FakeGCS and Azurite, removing their data; it exits the process with the tests' status.
// Call it from TestMain. It is an error to call MinIO or FakeGCS from a test
// binary whose TestMain does not use Main (the server would leak).
func Main(m *testing.M) {
	servers.mu.Lock()
	servers.inMain = true
	servers.mu.Unlock()
	code := m.Run()
	servers.mu.Lock()
	for _, s := range []*server{servers.minio, servers.gcs, servers.azurite} {
		if s != nil {
			s.stop()
		}
	}
	servers.minio, servers.gcs, servers.azurite = nil, nil, nil
	servers.mu.Unlock()
	os.Exit(code)
}

// server is a running service process.
type server struct {
	name    string
	cmd     *exec.Cmd
	dir     string // temporary directory: data and log
	addr    string // host:port of the API
	exited  chan struct{}
	started time.Duration
}

func (s *server) stop() {
	_ = s.cmd.Process.Signal(syscall.SIGTERM)
	select {
	case <-s.exited:
	case <-time.After(5 * time.Second):
		_ = s.cmd.Process.Kill()
		<-s.exited
	}
	_ = os.RemoveAll(s.dir)
}

// log returns the last 2 KiB of the server's output, for failure messages.
func (s *server) log() string {
	b, _ := os.ReadFile(filepath.Join(s.dir, "server.log"))
	if len(b) > 2048 {
		b = b[len(b)-2048:]
	}
	return string(b)
}

// findBinary returns the path of a server binary: $envVar, then name on PATH,
// then the cache path cached (relative to the user cache directory). It
// returns "" if none exists, and an error if $envVar names a missing file.
func findBinary(envVar, name, cached string) (string, error) {
	if p := os.Getenv(envVar); p != "" {
		if _, err := os.Stat(p); err != nil {
			return "", fmt.Errorf("testenv: $%s=%s: %w", envVar, p, err)
		}
		return p, nil
	}
	if p, err := exec.LookPath(name); err == nil {
		return p, nil
	}
	if dir, err := os.UserCacheDir(); err == nil {
		p := filepath.Join(dir, "paimon-go", cached)
		if fi, err := os.Stat(p); err == nil && !fi.IsDir() {
			return p, nil
		}
	}
	return "", nil
}

// anyStatus prefixes a probe path that is ready on any HTTP answer (the
// emulator refuses unauthenticated requests).
const anyStatus = "any:"

// freePort returns a TCP port on 127.0.0.1 that was free a moment ago.
func freePort() (int, error) {
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		return 0, err
	}
	defer l.Close()
	return l.Addr().(*net.TCPAddr).Port, nil
}

// start runs the command built by mk for a fresh port, in a new temporary
// directory, until GET http://addr+probe answers 200 (or, for a probe
// starting with anyStatus, answers at all). A port taken between
// choosing and binding it makes the server exit; start then tries again with
// new ports, 3 times in all.
func start(name string, mk func(dir string, port int) (*exec.Cmd, error), probe string) (*server, error) {
	dir, err := os.MkdirTemp("", "paimon-go-"+name+"-")
	if err != nil {
		return nil, fmt.Errorf("testenv: start %s: %w", name, err)
	}
	var lastErr error
	for range 3 {
		s, err := startOnce(name, dir, mk, probe)
		if err == nil {
			return s, nil
		}
		lastErr = err
	}
	_ = os.RemoveAll(dir)
	return nil, lastErr
}

func startOnce(name, dir string, mk func(dir string, port int) (*exec.Cmd, error), probe string) (*server, error) {
	port, err := freePort()
	if err != nil {
		return nil, fmt.Errorf("testenv: start %s: %w", name, err)
	}
	cmd, err := mk(dir, port)
	if err != nil {
		return nil, fmt.Errorf("testenv: start %s: %w", name, err)
	}
	logf, err := os.Create(filepath.Join(dir, "server.log"))
	if err != nil {
		return nil, fmt.Errorf("testenv: start %s: %w", name, err)
	}
	defer logf.Close() // the child keeps its own descriptor
	cmd.Stdout, cmd.Stderr = logf, logf
	cmd.SysProcAttr = sysProcAttr()
	t0 := time.Now()
	if err := cmd.Start(); err != nil {
		return nil, fmt.Errorf("testenv: start %s: %w", name, err)
	}
	s := &server{name: name, cmd: cmd, dir: dir, addr: fmt.Sprintf("127.0.0.1:%d", port), exited: make(chan struct{})}
	go func() { _ = cmd.Wait(); close(s.exited) }()

	client := &http.Client{Timeout: 2 * time.Second}
	deadline := time.Now().Add(2 * time.Minute) // MinIO needs ~1 s idle, more on a busy machine
	for time.Now().Before(deadline) {
		select {
		case <-s.exited:
			return nil, fmt.Errorf("testenv: %s exited during start-up: %s", name, s.log())
		case <-time.After(50 * time.Millisecond):
		}
		resp, err := client.Get("http://" + s.addr + strings.TrimPrefix(probe, anyStatus))
		if err == nil {
			resp.Body.Close()
			if resp.StatusCode == http.StatusOK || strings.HasPrefix(probe, anyStatus) {
				s.started = time.Since(t0)
				return s, nil
			}
		}
	}
	s.stop()
	return nil, fmt.Errorf("testenv: %s not ready after 2 minutes: %s", name, s.log())
}

// shared returns the running server *slot, starting it with startFn on first
// use. Missing binaries skip the test, or fail it if required (CI=true).
func shared(t testing.TB, slot **server, key string, find func() (string, error), required bool, hint string,
	startFn func(bin string) (*server, error)) *server {
	t.Helper()
	servers.mu.Lock()
	defer servers.mu.Unlock()
	if !servers.inMain {
		t.Fatalf("testenv: %s needs the package's TestMain to call testenv.Main(m)", key)
	}
	if *slot != nil {
		return *slot
	}
	if err := servers.errs[key]; err != nil {
		t.Fatal(err)
	}
	bin, err := find()
	if err != nil {
		t.Fatal(err)
	}
	if bin == "" {
		msg := fmt.Sprintf("testenv: %s binary not found; %s", key, hint)
		if required {
			t.Fatal(msg + " (CI=true: required)")
		}
		t.Skip(msg)
	}
	s, err := startFn(bin)
	if err != nil {
		if servers.errs == nil {
			servers.errs = map[string]error{}
		}
		servers.errs[key] = err
		t.Fatal(err)
	}
	t.Logf("testenv: started %s (%s) at %s in %v", key, bin, s.addr, s.started.Round(time.Millisecond))
	*slot = s
	return s
}

// bucketName returns a new bucket name, unique within the process and
// unlikely to repeat across processes: "b" + counter + "-" + 8 hex digits.
func bucketName() string {
	servers.mu.Lock()
	servers.seq++
	n := servers.seq
	servers.mu.Unlock()
	var rnd [4]byte
	_, _ = rand.Read(rnd[:])
	return fmt.Sprintf("b%04d-%s", n, hex.EncodeToString(rnd[:]))
}

// isCI reports whether the tests run in CI, where missing services fail.
func isCI() bool { return strings.EqualFold(os.Getenv("CI"), "true") }
