// Package fileiotest is the conformance suite every store behind
// fileio.FileIO must pass, in the manner of gocloud.dev/blob/drivertest: the
// same cases run against the local file system, memory and a real MinIO
// server, so the stores cannot drift apart in the semantics Paimon relies on
// (atomic create-if-absent, invisible partial writes, range reads past the end,
// listing).
//
// Usage, in the test package of a store:
//
//	func TestMain(m *testing.M) {
//		fileiotest.ChildMain() // serves the cross-process races
//		testenv.Main(m)        // or os.Exit(m.Run())
//	}
//
//	func TestConformanceFile(t *testing.T) {
//		fileiotest.RunConformance(t, func(t *testing.T) *fileio.FileIO { ... })
//	}
package fileiotest

import (
	"bufio"
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"math/rand/v2"
	"os"
	"os/exec"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/paimon-go/paimon/fileio"
)

// Opener returns a fresh, empty FileIO for one test; the suite closes it.
// A FileIO whose URL() can be reopened by another process (any store except
// mem://) also gets the cross-process tests.
type Opener func(t *testing.T) *fileio.FileIO

// Races is the number of create-if-absent races run between goroutines and
// between processes.
const Races = 200

// RunConformance runs the conformance cases as subtests of t, each on a fresh
// FileIO from open.
func RunConformance(t *testing.T, open Opener) {
	cases := []struct {
		name string
		fn   func(*testing.T, *fileio.FileIO)
	}{
		{"RoundTrip", testRoundTrip},
		{"RangeRead", testRangeRead},
		{"NotExist", testNotExist},
		{"InvalidPath", testInvalidPath},
		{"List", testList},
		{"ListPaging", testListPaging},
		{"Delete", testDelete},
		{"CreateIfAbsent", testCreateIfAbsent},
		{"CreateIfAbsentRaceGoroutines", testRaceGoroutines},
		{"CreateIfAbsentRaceProcesses", testRaceProcesses},
		{"CreateInvisibleUntilClose", testCreateInvisible},
		{"CreateAbort", testCreateAbort},
		{"OverwriteAtomic", testOverwriteAtomic},
		{"NoLeftovers", testNoLeftovers},
		{"Sub", testSub},
		{"URLReopen", testURLReopen},
		{"File", testFile},
		{"FileLarge", testFileLarge},
		{"Stats", testStats},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			fio := open(t)
			t.Cleanup(func() { fio.Close() })
			c.fn(t, fio)
		})
	}
}

// pattern returns n bytes whose byte i is (i+seed) mod 251, so that any
// misplaced range shows up.
func pattern(n, seed int) []byte {
	b := make([]byte, n)
	for i := range b {
		b[i] = byte((i + seed) % 251)
	}
	return b
}

func ctxT(t *testing.T) context.Context {
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Minute)
	t.Cleanup(cancel)
	return ctx
}

func mustWrite(t *testing.T, fio *fileio.FileIO, path string, data []byte) {
	t.Helper()
	if err := fio.WriteFile(ctxT(t), path, data); err != nil {
		t.Fatalf("WriteFile(%q): %v", path, err)
	}
}

func mustRead(t *testing.T, fio *fileio.FileIO, path string) []byte {
	t.Helper()
	b, err := fio.ReadFile(ctxT(t), path)
	if err != nil {
		t.Fatalf("ReadFile(%q): %v", path, err)
	}
	return b
}

func isMem(fio *fileio.FileIO) bool { return strings.HasPrefix(fio.URL(), "mem:") }

func testRoundTrip(t *testing.T, fio *fileio.FileIO) {
	ctx := ctxT(t)
	for _, n := range []int{0, 1, 1000, 1<<20 + 3} {
		path := fmt.Sprintf("a/b/c/data-%d.bin", n)
		want := pattern(n, n)
		mustWrite(t, fio, path, want)
		if got := mustRead(t, fio, path); !bytes.Equal(got, want) {
			t.Errorf("ReadFile(%q): got %d bytes, want %d (content differs: %v)", path, len(got), n, len(got) == n)
		}
		size, err := fio.Size(ctx, path)
		if err != nil || size != int64(n) {
			t.Errorf("Size(%q) = %d, %v; want %d, nil", path, size, err, n)
		}
		ok, err := fio.Exists(ctx, path)
		if err != nil || !ok {
			t.Errorf("Exists(%q) = %v, %v; want true, nil", path, ok, err)
		}
	}
	// Overwriting with shorter content replaces the whole file.
	mustWrite(t, fio, "over", pattern(5000, 1))
	mustWrite(t, fio, "over", []byte("short"))
	if got := mustRead(t, fio, "over"); string(got) != "short" {
		t.Errorf("after overwrite: got %q, want %q", got, "short")
	}
	// Streaming writes in pieces.
	w, err := fio.Create(ctx, "streamed")
	if err != nil {
		t.Fatal(err)
	}
	want := pattern(300_000, 7)
	for off := 0; off < len(want); off += 70_001 {
		if _, err := w.Write(want[off:min(off+70_001, len(want))]); err != nil {
			t.Fatal(err)
		}
	}
	if err := w.Close(); err != nil {
		t.Fatal(err)
	}
	if got := mustRead(t, fio, "streamed"); !bytes.Equal(got, want) {
		t.Errorf("streamed: got %d bytes, want %d", len(got), len(want))
	}
}

func testRangeRead(t *testing.T, fio *fileio.FileIO) {
	ctx := ctxT(t)
	data := pattern(1000, 0)
	mustWrite(t, fio, "f", data)
	mustWrite(t, fio, "empty", nil)
	cases := []struct {
		path           string
		offset, length int64
		want           []byte
	}{
		{"f", 0, -1, data},
		{"f", 0, 1000, data},
		{"f", 0, 5000, data},
		{"f", 10, 20, data[10:30]},
		{"f", 999, 1, data[999:]},
		{"f", 990, 100, data[990:]},
		{"f", 990, -1, data[990:]},
		{"f", 500, 0, nil},
		{"f", 1000, 10, nil},
		{"f", 1000, -1, nil},
		{"f", 2000, 10, nil},
		{"f", 2000, -1, nil},
		{"empty", 0, -1, nil},
		{"empty", 0, 10, nil},
		{"empty", 5, -1, nil},
		{"empty", 5, 10, nil},
	}
	for _, c := range cases {
		r, err := fio.NewRangeReader(ctx, c.path, c.offset, c.length)
		if err != nil {
			t.Errorf("NewRangeReader(%q, %d, %d): %v", c.path, c.offset, c.length, err)
			continue
		}
		got, err := io.ReadAll(r)
		r.Close()
		if err != nil || !bytes.Equal(got, c.want) {
			t.Errorf("NewRangeReader(%q, %d, %d) read %d bytes, %v; want %d bytes", c.path, c.offset, c.length, len(got), err, len(c.want))
		}
	}
	if _, err := fio.NewRangeReader(ctx, "f", -1, 10); !errors.Is(err, fileio.ErrInvalidRange) {
		t.Errorf("NewRangeReader at -1: %v, want ErrInvalidRange", err)
	}
}

func testNotExist(t *testing.T, fio *fileio.FileIO) {
	ctx := ctxT(t)
	mustWrite(t, fio, "dir/present", []byte("x"))
	const p = "dir/missing"
	check := func(what string, err error) {
		t.Helper()
		if !errors.Is(err, fileio.ErrNotExist) || !errors.Is(err, fs.ErrNotExist) {
			t.Errorf("%s: %v, want ErrNotExist", what, err)
		} else if !strings.Contains(err.Error(), p) {
			t.Errorf("%s: error %q does not name %q", what, err, p)
		}
	}
	_, err := fio.ReadFile(ctx, p)
	check("ReadFile", err)
	_, err = fio.NewRangeReader(ctx, p, 0, -1)
	check("NewRangeReader(0,-1)", err)
	_, err = fio.NewRangeReader(ctx, p, 5, 10)
	check("NewRangeReader(5,10)", err)
	_, err = fio.NewRangeReader(ctx, p, 5, 0)
	check("NewRangeReader(5,0)", err)
	_, err = fio.Open(ctx, p)
	check("Open", err)
	_, err = fio.Size(ctx, p)
	check("Size", err)
	check("Delete", fio.Delete(ctx, p))
	// A directory is not a file.
	_, err = fio.ReadFile(ctx, "dir")
	if !errors.Is(err, fileio.ErrNotExist) {
		t.Errorf("ReadFile of a directory: %v, want ErrNotExist", err)
	}
	if ok, err := fio.Exists(ctx, p); ok || err != nil {
		t.Errorf("Exists(missing) = %v, %v; want false, nil", ok, err)
	}
	if ok, err := fio.Exists(ctx, "dir"); ok || err != nil {
		t.Errorf("Exists(directory) = %v, %v; want false, nil", ok, err)
	}
	for _, dir := range []string{"nodir", "dir/missing"} {
		if l, err := fio.List(ctx, dir); len(l) != 0 || err != nil {
			t.Errorf("List(%q) = %v, %v; want no entries", dir, l, err)
		}
		if l, err := fio.ListRecursive(ctx, dir); len(l) != 0 || err != nil {
			t.Errorf("ListRecursive(%q) = %v, %v; want no entries", dir, l, err)
		}
	}
}

func testInvalidPath(t *testing.T, fio *fileio.FileIO) {
	ctx := ctxT(t)
	for _, p := range []string{"", "/a", "a/", "a//b", "./a", "a/./b", "a/../b", "..", "\xff"} {
		_, err := fio.ReadFile(ctx, p)
		if !errors.Is(err, fileio.ErrInvalidPath) {
			t.Errorf("ReadFile(%q): %v, want ErrInvalidPath", p, err)
		}
		if err := fio.WriteFile(ctx, p, nil); !errors.Is(err, fileio.ErrInvalidPath) {
			t.Errorf("WriteFile(%q): %v, want ErrInvalidPath", p, err)
		}
		if err := fio.CreateIfAbsent(ctx, p, nil); !errors.Is(err, fileio.ErrInvalidPath) {
			t.Errorf("CreateIfAbsent(%q): %v, want ErrInvalidPath", p, err)
		}
	}
	for _, d := range []string{"/a", "a//b", "../a", "a/.."} {
		if _, err := fio.List(ctx, d); !errors.Is(err, fileio.ErrInvalidPath) {
			t.Errorf("List(%q): %v, want ErrInvalidPath", d, err)
		}
		if err := fio.Sub(d).WriteFile(ctx, "x", nil); !errors.Is(err, fileio.ErrInvalidPath) {
			t.Errorf("Sub(%q).WriteFile: %v, want ErrInvalidPath", d, err)
		}
	}
	if l, err := fio.ListRecursive(ctx, ""); len(l) != 0 || err != nil {
		t.Errorf("after invalid writes the store holds %v, %v", l, err)
	}
}

// entry formats a FileInfo for comparison: "path" or "path/" for directories,
// with the size of files.
func entries(infos []fileio.FileInfo) []string {
	out := make([]string, len(infos))
	for i, fi := range infos {
		if fi.IsDir {
			out[i] = fi.Path + "/"
		} else {
			out[i] = fmt.Sprintf("%s:%d", fi.Path, fi.Size)
		}
	}
	return out
}

func testList(t *testing.T, fio *fileio.FileIO) {
	ctx := ctxT(t)
	start := time.Now()
	files := map[string]int{
		"a.txt": 1, "dir/b.txt": 2, "dir/c.txt": 3, "dir/sub/d.txt": 4, "dir2/e.txt": 5, "dirx": 6, "dir-y/f": 7,
	}
	for p, n := range files {
		mustWrite(t, fio, p, pattern(n, 0))
	}
	cases := []struct {
		dir       string
		recursive bool
		want      []string
	}{
		{"", false, []string{"a.txt:1", "dir-y/", "dir/", "dir2/", "dirx:6"}},
		{"dir", false, []string{"dir/b.txt:2", "dir/c.txt:3", "dir/sub/"}},
		{"dir/", false, []string{"dir/b.txt:2", "dir/c.txt:3", "dir/sub/"}},
		{"dir/sub", false, []string{"dir/sub/d.txt:4"}},
		{"", true, []string{"a.txt:1", "dir-y/f:7", "dir/b.txt:2", "dir/c.txt:3", "dir/sub/d.txt:4", "dir2/e.txt:5", "dirx:6"}},
		{"dir", true, []string{"dir/b.txt:2", "dir/c.txt:3", "dir/sub/d.txt:4"}},
		{"dirx", false, nil}, // a file is not a directory
	}
	for _, c := range cases {
		list := fio.List
		if c.recursive {
			list = fio.ListRecursive
		}
		got, err := list(ctx, c.dir)
		if err != nil {
			t.Errorf("list(%q, recursive=%v): %v", c.dir, c.recursive, err)
			continue
		}
		if g := entries(got); !slices.Equal(g, c.want) {
			t.Errorf("list(%q, recursive=%v) = %q, want %q", c.dir, c.recursive, g, c.want)
		}
		for _, fi := range got {
			if fi.IsDir {
				continue
			}
			if d := fi.ModTime.Sub(start); d < -time.Minute || d > 10*time.Minute {
				t.Errorf("%s: ModTime %v is not about now (%v)", fi.Path, fi.ModTime, start)
			}
		}
	}
}

func testListPaging(t *testing.T, fio *fileio.FileIO) {
	// More than one 1000-key listing page.
	const n = 1003
	ctx := ctxT(t)
	var want []string
	for i := range n {
		want = append(want, fmt.Sprintf("many/f%04d:1", i))
	}
	parallel(t, n, func(i int) error { return fio.WriteFile(ctx, fmt.Sprintf("many/f%04d", i), []byte{byte(i)}) })
	before := fio.Stats()
	got, err := fio.List(ctx, "many")
	if err != nil {
		t.Fatal(err)
	}
	if g := entries(got); !slices.Equal(g, want) {
		t.Fatalf("List(many): %d entries, want %d (first %q)", len(g), n, g[:min(3, len(g))])
	}
	if d := fio.Stats().Since(before); d.List != 2 {
		t.Errorf("List of %d files made %d list requests, want 2 pages", n, d.List)
	}
	got, err = fio.ListRecursive(ctx, "")
	if err != nil || !slices.Equal(entries(got), want) {
		t.Errorf("ListRecursive: %d entries, %v; want %d", len(got), err, n)
	}
}

// parallel runs fn(0..n-1) on 16 goroutines and fails t on the first error.
func parallel(t *testing.T, n int, fn func(i int) error) {
	t.Helper()
	var wg sync.WaitGroup
	errs := make(chan error, n)
	next := make(chan int)
	for range 16 {
		wg.Go(func() {
			for i := range next {
				if err := fn(i); err != nil {
					errs <- err
				}
			}
		})
	}
	for i := range n {
		next <- i
	}
	close(next)
	wg.Wait()
	close(errs)
	if err := <-errs; err != nil {
		t.Fatal(err)
	}
}

func testDelete(t *testing.T, fio *fileio.FileIO) {
	ctx := ctxT(t)
	mustWrite(t, fio, "d/x", []byte("x"))
	mustWrite(t, fio, "d/y", []byte("y"))
	if err := fio.Delete(ctx, "d/x"); err != nil {
		t.Fatal(err)
	}
	if ok, err := fio.Exists(ctx, "d/x"); ok || err != nil {
		t.Errorf("Exists after Delete = %v, %v", ok, err)
	}
	if _, err := fio.ReadFile(ctx, "d/x"); !errors.Is(err, fileio.ErrNotExist) {
		t.Errorf("ReadFile after Delete: %v", err)
	}
	if l, _ := fio.List(ctx, "d"); !slices.Equal(entries(l), []string{"d/y:1"}) {
		t.Errorf("List after Delete = %q", entries(l))
	}
	if err := fio.Delete(ctx, "d/x"); !errors.Is(err, fileio.ErrNotExist) {
		t.Errorf("second Delete: %v, want ErrNotExist", err)
	}
	if err := fio.Delete(ctx, "d"); !errors.Is(err, fileio.ErrNotExist) {
		t.Errorf("Delete of a directory: %v, want ErrNotExist", err)
	}
	if got := mustRead(t, fio, "d/y"); string(got) != "y" {
		t.Errorf("d/y = %q after deleting its directory failed", got)
	}
}

func testCreateIfAbsent(t *testing.T, fio *fileio.FileIO) {
	ctx := ctxT(t)
	if err := fio.CreateIfAbsent(ctx, "snapshot/snapshot-1", []byte("first")); err != nil {
		t.Fatal(err)
	}
	err := fio.CreateIfAbsent(ctx, "snapshot/snapshot-1", []byte("second"))
	if !errors.Is(err, fileio.ErrExist) || !errors.Is(err, fs.ErrExist) {
		t.Fatalf("second CreateIfAbsent: %v, want ErrExist", err)
	}
	if !strings.Contains(err.Error(), "snapshot/snapshot-1") {
		t.Errorf("error %q does not name the path", err)
	}
	if got := mustRead(t, fio, "snapshot/snapshot-1"); string(got) != "first" {
		t.Errorf("content = %q, want %q", got, "first")
	}
	mustWrite(t, fio, "plain", []byte("w"))
	if err := fio.CreateIfAbsent(ctx, "plain", []byte("c")); !errors.Is(err, fileio.ErrExist) {
		t.Errorf("CreateIfAbsent over WriteFile: %v, want ErrExist", err)
	}
	if err := fio.Delete(ctx, "snapshot/snapshot-1"); err != nil {
		t.Fatal(err)
	}
	if err := fio.CreateIfAbsent(ctx, "snapshot/snapshot-1", []byte("third")); err != nil {
		t.Errorf("CreateIfAbsent after Delete: %v", err)
	}
	if got := mustRead(t, fio, "snapshot/snapshot-1"); string(got) != "third" {
		t.Errorf("content = %q, want %q", got, "third")
	}
	if l, _ := fio.ListRecursive(ctx, ""); !slices.Equal(entries(l), []string{"plain:1", "snapshot/snapshot-1:5"}) {
		t.Errorf("store holds %q", entries(l))
	}
}

func testRaceGoroutines(t *testing.T, fio *fileio.FileIO) {
	const racers = 8
	ctx := ctxT(t)
	wins := make([]int, racers)
	for round := range Races {
		path := fmt.Sprintf("race/snapshot-%d", round)
		var wg sync.WaitGroup
		errs := make([]error, racers)
		startGate := make(chan struct{})
		for g := range racers {
			wg.Go(func() {
				<-startGate
				errs[g] = fio.CreateIfAbsent(ctx, path, fmt.Appendf(nil, "racer %d round %d", g, round))
			})
		}
		close(startGate)
		wg.Wait()
		winner := -1
		for g, err := range errs {
			switch {
			case err == nil && winner >= 0:
				t.Fatalf("round %d: racers %d and %d both created %s", round, winner, g, path)
			case err == nil:
				winner = g
			case !errors.Is(err, fileio.ErrExist):
				t.Fatalf("round %d racer %d: %v", round, g, err)
			}
		}
		if winner < 0 {
			t.Fatalf("round %d: no racer created %s", round, path)
		}
		wins[winner]++
		if got, want := string(mustRead(t, fio, path)), fmt.Sprintf("racer %d round %d", winner, round); got != want {
			t.Fatalf("round %d: content %q, want the winner's %q", round, got, want)
		}
	}
	t.Logf("%d races of %d goroutines: exactly one winner each; wins per goroutine %v", Races, racers, wins)
}

// Child process protocol. The parent starts the test binary with childEnv
// set; ChildMain opens the FileIO at childURL, prints "ready", then for each
// path read from stdin calls CreateIfAbsent(path, "<id> <path>") and prints
// "won", "lost" or "error <message>".
const (
	childEnv = "PAIMON_FILEIOTEST_CHILD"
	childURL = "PAIMON_FILEIOTEST_URL"
)

// ChildMain serves the cross-process create-if-absent races. Call it first in
// TestMain of every package that runs RunConformance: in the child processes
// the suite starts, it does the child's work and exits; otherwise it returns
// at once.
func ChildMain() {
	id := os.Getenv(childEnv)
	if id == "" {
		return
	}
	os.Exit(child(id, os.Getenv(childURL), os.Stdin, os.Stdout))
}

func child(id, url string, in io.Reader, out io.Writer) int {
	ctx := context.Background()
	fio, err := fileio.Open(ctx, url)
	if err != nil {
		fmt.Fprintf(out, "error %v\n", err)
		return 1
	}
	defer fio.Close()
	w := bufio.NewWriter(out)
	fmt.Fprintln(w, "ready")
	w.Flush()
	sc := bufio.NewScanner(in)
	for sc.Scan() {
		path := sc.Text()
		err := fio.CreateIfAbsent(ctx, path, []byte(id+" "+path))
		switch {
		case err == nil:
			fmt.Fprintln(w, "won")
		case errors.Is(err, fileio.ErrExist):
			fmt.Fprintln(w, "lost")
		default:
			fmt.Fprintf(w, "error %s\n", strings.ReplaceAll(err.Error(), "\n", " "))
		}
		w.Flush()
	}
	return 0
}

// racer is a child process taking part in the races.
type racer struct {
	id  string
	cmd *exec.Cmd
	in  io.WriteCloser
	out *bufio.Scanner
}

func startRacer(t *testing.T, id, url string) *racer {
	t.Helper()
	cmd := exec.Command(os.Args[0], "-test.run=^$")
	cmd.Env = append(os.Environ(), childEnv+"="+id, childURL+"="+url)
	cmd.Stderr = os.Stderr
	in, err := cmd.StdinPipe()
	if err != nil {
		t.Fatal(err)
	}
	out, err := cmd.StdoutPipe()
	if err != nil {
		t.Fatal(err)
	}
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	r := &racer{id: id, cmd: cmd, in: in, out: bufio.NewScanner(out)}
	t.Cleanup(func() {
		r.in.Close()
		if err := cmd.Wait(); err != nil {
			t.Errorf("racer %s: %v", id, err)
		}
	})
	if line := r.line(); line != "ready" {
		t.Fatalf("racer %s said %q instead of \"ready\"; does TestMain call fileiotest.ChildMain()?", id, line)
	}
	return r
}

func (r *racer) line() string {
	if r.out.Scan() {
		return r.out.Text()
	}
	return fmt.Sprintf("<no output: %v>", r.out.Err())
}

func testRaceProcesses(t *testing.T, fio *fileio.FileIO) {
	if isMem(fio) {
		t.Skip("mem:// is private to one process")
	}
	racers := []*racer{startRacer(t, "A", fio.URL()), startRacer(t, "B", fio.URL())}
	wins := map[string]int{}
	for round := range Races {
		path := fmt.Sprintf("xrace/snapshot-%d", round)
		var wg sync.WaitGroup
		res := make([]string, len(racers))
		gate := make(chan struct{})
		for i, r := range racers {
			wg.Go(func() {
				<-gate
				fmt.Fprintln(r.in, path)
				res[i] = r.line()
			})
		}
		close(gate)
		wg.Wait()
		won := ""
		for i, line := range res {
			switch line {
			case "won":
				if won != "" {
					t.Fatalf("round %d: processes %s and %s both created %s", round, won, racers[i].id, path)
				}
				won = racers[i].id
			case "lost":
			default:
				t.Fatalf("round %d: process %s: %s", round, racers[i].id, line)
			}
		}
		if won == "" {
			t.Fatalf("round %d: no process created %s", round, path)
		}
		wins[won]++
		if got := string(mustRead(t, fio, path)); got != won+" "+path {
			t.Fatalf("round %d: content %q, want the winner's %q", round, got, won+" "+path)
		}
	}
	t.Logf("%d races between 2 processes: exactly one winner each; wins A=%d B=%d", Races, wins["A"], wins["B"])
}

func testCreateInvisible(t *testing.T, fio *fileio.FileIO) {
	ctx := ctxT(t)
	mustWrite(t, fio, "old", []byte("old content"))
	for _, path := range []string{"new/file", "old"} {
		w, err := fio.Create(ctx, path)
		if err != nil {
			t.Fatal(err)
		}
		// 6 MiB in 64 KiB pieces: past S3's 5 MiB multipart threshold.
		want := pattern(6<<20, 3)
		for off := 0; off < len(want); off += 64 << 10 {
			if _, err := w.Write(want[off : off+64<<10]); err != nil {
				t.Fatal(err)
			}
			if off != 3<<20 && off != 64<<10 {
				continue
			}
			// Mid-write: nothing of the new content is visible.
			if path == "old" {
				if got := mustRead(t, fio, "old"); string(got) != "old content" {
					t.Fatalf("mid-write, old = %d bytes, want the old content", len(got))
				}
			} else {
				if ok, err := fio.Exists(ctx, path); ok || err != nil {
					t.Fatalf("mid-write Exists(%q) = %v, %v", path, ok, err)
				}
				if _, err := fio.ReadFile(ctx, path); !errors.Is(err, fileio.ErrNotExist) {
					t.Fatalf("mid-write ReadFile: %v", err)
				}
			}
			if l, err := fio.ListRecursive(ctx, ""); err != nil || !slices.Equal(entries(l), []string{"old:11"}) {
				t.Fatalf("mid-write listing %q, %v; want only old", entries(l), err)
			}
		}
		if err := w.Close(); err != nil {
			t.Fatal(err)
		}
		if got := mustRead(t, fio, path); !bytes.Equal(got, want) {
			t.Fatalf("%s after Close: %d bytes, want %d", path, len(got), len(want))
		}
		if err := w.Close(); err != nil {
			t.Errorf("second Close: %v", err)
		}
		if path == "new/file" {
			if err := fio.Delete(ctx, path); err != nil {
				t.Fatal(err)
			}
		}
	}
}

func testCreateAbort(t *testing.T, fio *fileio.FileIO) {
	ctx := ctxT(t)
	mustWrite(t, fio, "keep", []byte("kept"))
	for _, path := range []string{"aborted", "keep"} {
		w, err := fio.Create(ctx, path)
		if err != nil {
			t.Fatal(err)
		}
		if _, err := w.Write(pattern(100_000, 0)); err != nil {
			t.Fatal(err)
		}
		a, ok := w.(fileio.Aborter)
		if !ok {
			t.Fatalf("Create's writer %T does not implement fileio.Aborter", w)
		}
		if err := a.Abort(); err != nil {
			t.Fatal(err)
		}
		if err := w.Close(); err != nil {
			t.Errorf("Close after Abort: %v", err)
		}
	}
	// Cancelling the context abandons the write too.
	cctx, cancel := context.WithCancel(ctx)
	w, err := fio.Create(cctx, "cancelled")
	if err != nil {
		t.Fatal(err)
	}
	if _, err := w.Write([]byte("data")); err != nil {
		t.Fatal(err)
	}
	cancel()
	if err := w.Close(); err == nil {
		t.Errorf("Close after cancel succeeded")
	}
	if l, err := fio.ListRecursive(ctx, ""); err != nil || !slices.Equal(entries(l), []string{"keep:4"}) {
		t.Errorf("after aborted writes the store holds %q, %v; want keep only", entries(l), err)
	}
	if got := mustRead(t, fio, "keep"); string(got) != "kept" {
		t.Errorf("keep = %q after an aborted overwrite", got)
	}
}

func testOverwriteAtomic(t *testing.T, fio *fileio.FileIO) {
	// A reader racing with overwrites sees one whole version or the other.
	ctx := ctxT(t)
	a, b := bytes.Repeat([]byte{'a'}, 256<<10), bytes.Repeat([]byte{'b'}, 256<<10)
	mustWrite(t, fio, "v", a)
	done := make(chan error, 1)
	go func() {
		for i := range 40 {
			data := a
			if i%2 == 0 {
				data = b
			}
			if err := fio.WriteFile(ctx, "v", data); err != nil {
				done <- err
				return
			}
		}
		done <- nil
	}()
	reads := 0
	for {
		select {
		case err := <-done:
			if err != nil {
				t.Fatal(err)
			}
			t.Logf("%d reads during 40 overwrites, all whole", reads)
			return
		default:
		}
		got := mustRead(t, fio, "v")
		if !bytes.Equal(got, a) && !bytes.Equal(got, b) {
			t.Fatalf("read %d bytes that are neither version", len(got))
		}
		reads++
	}
}

func testNoLeftovers(t *testing.T, fio *fileio.FileIO) {
	ctx := ctxT(t)
	mustWrite(t, fio, "t/a", []byte("a"))
	mustWrite(t, fio, "t/a", []byte("aa"))
	if err := fio.CreateIfAbsent(ctx, "t/s", []byte("s")); err != nil {
		t.Fatal(err)
	}
	if err := fio.CreateIfAbsent(ctx, "t/s", []byte("lost")); !errors.Is(err, fileio.ErrExist) {
		t.Fatal(err)
	}
	w, _ := fio.Create(ctx, "t/c")
	w.Write([]byte("ccc"))
	w.Close()
	w, _ = fio.Create(ctx, "t/x")
	w.Write([]byte("x"))
	w.(fileio.Aborter).Abort()
	want := []string{"t/a:2", "t/c:3", "t/s:1"}
	if l, err := fio.ListRecursive(ctx, ""); err != nil || !slices.Equal(entries(l), want) {
		t.Errorf("ListRecursive = %q, %v; want %q", entries(l), err, want)
	}
	if l, err := fio.List(ctx, "t"); err != nil || !slices.Equal(entries(l), want) {
		t.Errorf("List(t) = %q, %v; want %q", entries(l), err, want)
	}
}

func testSub(t *testing.T, fio *fileio.FileIO) {
	ctx := ctxT(t)
	tbl := fio.Sub("db.db/t1")
	if err := tbl.WriteFile(ctx, "snapshot/snapshot-1", []byte("s1")); err != nil {
		t.Fatal(err)
	}
	if got := mustRead(t, fio, "db.db/t1/snapshot/snapshot-1"); string(got) != "s1" {
		t.Errorf("root view reads %q", got)
	}
	for _, v := range []*fileio.FileIO{fio.Sub("db.db").Sub("t1"), fio.Sub("db.db/t1/"), fio.Sub("db.db/t1").Sub("")} {
		if got := mustRead(t, v, "snapshot/snapshot-1"); string(got) != "s1" {
			t.Errorf("view %s reads %q", v.URL(), got)
		}
		if v.URL() != tbl.URL() {
			t.Errorf("view URL %q, want %q", v.URL(), tbl.URL())
		}
	}
	if l, _ := tbl.List(ctx, "snapshot"); !slices.Equal(entries(l), []string{"snapshot/snapshot-1:2"}) {
		t.Errorf("Sub List = %q", entries(l))
	}
	if l, _ := tbl.List(ctx, ""); !slices.Equal(entries(l), []string{"snapshot/"}) {
		t.Errorf("Sub List root = %q", entries(l))
	}
	if l, _ := fio.Sub("db.db").ListRecursive(ctx, ""); !slices.Equal(entries(l), []string{"t1/snapshot/snapshot-1:2"}) {
		t.Errorf("Sub ListRecursive = %q", entries(l))
	}
	// A sibling with a common name prefix is not inside the view.
	mustWrite(t, fio, "db.db/t10/x", []byte("x"))
	if l, _ := tbl.ListRecursive(ctx, ""); len(l) != 1 {
		t.Errorf("t1 view lists %q", entries(l))
	}
	// URL: the view's path is inserted before any query.
	root, sub := fio.URL(), tbl.URL()
	rootBase, query, _ := strings.Cut(root, "?")
	subBase, subQuery, _ := strings.Cut(sub, "?")
	if !strings.HasSuffix(rootBase, "://") {
		rootBase = strings.TrimSuffix(rootBase, "/")
	}
	if subQuery != query || rootBase+"/db.db/t1" != subBase {
		t.Errorf("Sub URL %q does not extend root URL %q by /db.db/t1", sub, root)
	}
	if err := tbl.CreateIfAbsent(ctx, "snapshot/snapshot-1", nil); !errors.Is(err, fileio.ErrExist) {
		t.Errorf("CreateIfAbsent in view: %v", err)
	}
	if !strings.Contains(fmt.Sprint(tbl.Delete(ctx, "nope")), "db.db/t1/nope") {
		t.Errorf("view errors do not name the full path: %v", tbl.Delete(ctx, "nope"))
	}
	if fio.Stats() != tbl.Stats() {
		t.Errorf("views do not share request counters")
	}
}

func testURLReopen(t *testing.T, fio *fileio.FileIO) {
	if isMem(fio) {
		t.Skip("mem:// is private to one FileIO")
	}
	ctx := ctxT(t)
	mustWrite(t, fio, "t/x", []byte("hello"))
	for _, u := range []string{fio.URL(), fio.Sub("t").URL()} {
		other, err := fileio.Open(ctx, u)
		if err != nil {
			t.Fatalf("Open(%q): %v", u, err)
		}
		path := "t/x"
		if u != fio.URL() {
			path = "x"
		}
		if got := mustRead(t, other, path); string(got) != "hello" {
			t.Errorf("Open(%q).ReadFile(%q) = %q", u, path, got)
		}
		if other.URL() != u {
			t.Errorf("Open(%q).URL() = %q", u, other.URL())
		}
		other.Close()
	}
}

func testFile(t *testing.T, fio *fileio.FileIO) {
	ctx := ctxT(t)
	data := pattern(1000, 5)
	mustWrite(t, fio, "small", data)
	before := fio.Stats()
	f, err := fio.Open(ctx, "small")
	if err != nil {
		t.Fatal(err)
	}
	if f.Size() != 1000 {
		t.Errorf("Size = %d, want 1000", f.Size())
	}
	cases := []struct {
		off   int64
		n     int
		wantN int
		eof   bool
	}{
		{0, 10, 10, false}, {990, 10, 10, false}, {995, 10, 5, true}, {1000, 10, 0, true}, {5000, 1, 0, true}, {0, 1000, 1000, false},
	}
	for _, c := range cases {
		p := make([]byte, c.n)
		n, err := f.ReadAt(p, c.off)
		if n != c.wantN || (err == io.EOF) != c.eof || (err != nil && err != io.EOF) {
			t.Errorf("ReadAt(%d bytes at %d) = %d, %v; want %d, eof=%v", c.n, c.off, n, err, c.wantN, c.eof)
		}
		if !bytes.Equal(p[:n], data[min(int(c.off), 1000):min(int(c.off)+n, 1000)]) {
			t.Errorf("ReadAt(%d bytes at %d): wrong bytes", c.n, c.off)
		}
	}
	if d := fio.Stats().Since(before); d.Get != 1 || d.Total() != 1 {
		t.Errorf("Open and reads of a 1000-byte file cost %+v, want 1 get", d)
	}
	if pos, err := f.Seek(-10, io.SeekEnd); pos != 990 || err != nil {
		t.Errorf("Seek(-10, end) = %d, %v", pos, err)
	}
	rest, err := io.ReadAll(f)
	if err != nil || !bytes.Equal(rest, data[990:]) {
		t.Errorf("Read after Seek: %d bytes, %v", len(rest), err)
	}
	if _, err := f.ReadAt(make([]byte, 1), -1); !errors.Is(err, fileio.ErrInvalidRange) {
		t.Errorf("ReadAt(-1): %v", err)
	}
	f.Close()
	if _, err := f.ReadAt(make([]byte, 1), 0); !errors.Is(err, fileio.ErrClosed) {
		t.Errorf("ReadAt after Close: %v, want ErrClosed", err)
	}
	// An empty file.
	mustWrite(t, fio, "empty", nil)
	f, err = fio.Open(ctx, "empty")
	if err != nil {
		t.Fatal(err)
	}
	if n, err := f.ReadAt(make([]byte, 4), 0); f.Size() != 0 || n != 0 || err != io.EOF {
		t.Errorf("empty file: Size %d, ReadAt = %d, %v", f.Size(), n, err)
	}
	f.Close()
}

func testFileLarge(t *testing.T, fio *fileio.FileIO) {
	ctx := ctxT(t)
	const size = 300_000
	data := pattern(size, 9)
	mustWrite(t, fio, "large", data)
	f, err := fio.Open(ctx, "large")
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	if f.Size() != size {
		t.Fatalf("Size = %d", f.Size())
	}
	read := func(off, n int) {
		t.Helper()
		p := make([]byte, n)
		got, err := f.ReadAt(p, int64(off))
		want := min(n, size-off)
		if got != want || (want < n) != (err == io.EOF) || (err != nil && err != io.EOF) {
			t.Fatalf("ReadAt(%d at %d) = %d, %v", n, off, got, err)
		}
		if !bytes.Equal(p[:got], data[off:off+got]) {
			t.Fatalf("ReadAt(%d at %d): wrong bytes", n, off)
		}
	}
	// Footer-style reads: the first costs one GET, the next none.
	before := fio.Stats()
	read(size-8, 8)
	read(size-1000, 992)
	read(size-100, 200)
	if d := fio.Stats().Since(before); d.Get != 1 || d.Total() != 1 {
		t.Errorf("three reads in the last 64 KiB cost %+v, want 1 get", d)
	}
	before = fio.Stats()
	read(0, 100) // in the chunk read by Open
	if d := fio.Stats().Since(before); d.Total() != 0 {
		t.Errorf("a read in the first 64 KiB cost %+v, want nothing", d)
	}
	before = fio.Stats()
	read(100_000, 50_000)
	read(60_000, 10_000) // straddles the first chunk's end
	if d := fio.Stats().Since(before); d.Get != 2 || d.Total() != 2 {
		t.Errorf("two middle reads cost %+v, want 2 gets", d)
	}
	// Concurrent reads at random places.
	var wg sync.WaitGroup
	errs := make(chan string, 8)
	for g := range 8 {
		wg.Go(func() {
			rng := rand.New(rand.NewPCG(uint64(g), 1))
			for range 20 {
				off, n := rng.IntN(size), 1+rng.IntN(20_000)
				p := make([]byte, n)
				got, err := f.ReadAt(p, int64(off))
				if (err != nil && err != io.EOF) || got != min(n, size-off) || !bytes.Equal(p[:got], data[off:off+got]) {
					errs <- fmt.Sprintf("ReadAt(%d at %d) = %d, %v", n, off, got, err)
					return
				}
			}
		})
	}
	wg.Wait()
	close(errs)
	for e := range errs {
		t.Error(e)
	}
	// Sequential reading through Read.
	if _, err := f.Seek(0, io.SeekStart); err != nil {
		t.Fatal(err)
	}
	all, err := io.ReadAll(f)
	if err != nil || !bytes.Equal(all, data) {
		t.Errorf("ReadAll through Read: %d bytes, %v", len(all), err)
	}
}

func testStats(t *testing.T, fio *fileio.FileIO) {
	ctx := ctxT(t)
	s3 := strings.HasPrefix(fio.URL(), "s3:")
	step := func(what string, want fileio.Stats, op func() error) {
		t.Helper()
		before := fio.Stats()
		if err := op(); err != nil {
			t.Fatalf("%s: %v", what, err)
		}
		if got := fio.Stats().Since(before); got != want {
			t.Errorf("%s: requests %+v, want %+v", what, got, want)
		}
	}
	step("WriteFile", fileio.Stats{Put: 1}, func() error { return fio.WriteFile(ctx, "s/a", []byte("a")) })
	step("CreateIfAbsent", fileio.Stats{Put: 1}, func() error { return fio.CreateIfAbsent(ctx, "s/b", []byte("b")) })
	step("CreateIfAbsent lost", fileio.Stats{Put: 1}, func() error {
		if err := fio.CreateIfAbsent(ctx, "s/b", []byte("b")); !errors.Is(err, fileio.ErrExist) {
			return fmt.Errorf("got %v, want ErrExist", err)
		}
		return nil
	})
	step("ReadFile", fileio.Stats{Get: 1}, func() error { _, err := fio.ReadFile(ctx, "s/a"); return err })
	step("NewRangeReader", fileio.Stats{Get: 1}, func() error {
		r, err := fio.NewRangeReader(ctx, "s/a", 0, 1)
		if err == nil {
			r.Close()
		}
		return err
	})
	step("Exists", fileio.Stats{Head: 1}, func() error { _, err := fio.Exists(ctx, "s/a"); return err })
	step("Size", fileio.Stats{Head: 1}, func() error { _, err := fio.Size(ctx, "s/a"); return err })
	step("List", fileio.Stats{List: 1}, func() error { _, err := fio.List(ctx, "s"); return err })
	step("ListRecursive", fileio.Stats{List: 1}, func() error { _, err := fio.ListRecursive(ctx, ""); return err })
	del := fileio.Stats{Delete: 1}
	if s3 {
		del.Head = 1
	}
	step("Delete", del, func() error { return fio.Delete(ctx, "s/a") })
	step("Create", fileio.Stats{Put: 1}, func() error {
		w, err := fio.Create(ctx, "s/c")
		if err != nil {
			return err
		}
		w.Write([]byte("c"))
		return w.Close()
	})
	step("ReadFile missing", fileio.Stats{Get: 1}, func() error {
		if _, err := fio.ReadFile(ctx, "s/missing"); !errors.Is(err, fileio.ErrNotExist) {
			return fmt.Errorf("got %v", err)
		}
		return nil
	})
}
