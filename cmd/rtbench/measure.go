package main

import (
	"bufio"
	"bytes"
	"context"
	"fmt"
	"math"
	"os"
	"runtime/debug"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/paimon-go/paimon/commit"
	"github.com/paimon-go/paimon/fileio"
)

// dist is a latency distribution: sorted samples.
type dist []time.Duration

func distOf(d []time.Duration) dist {
	v := slices.Clone(d)
	slices.Sort(v)
	return dist(v)
}

// pct returns the p-th percentile (0 < p <= 100) by the nearest-rank
// method; 0 for no samples.
func (d dist) pct(p float64) time.Duration {
	if len(d) == 0 {
		return 0
	}
	i := int(math.Ceil(p/100*float64(len(d)))) - 1
	return d[min(max(i, 0), len(d)-1)]
}

func (d dist) max() time.Duration {
	if len(d) == 0 {
		return 0
	}
	return d[len(d)-1]
}

// ms converts to milliseconds with microsecond resolution.
func ms(d time.Duration) float64 { return math.Round(float64(d.Nanoseconds())/1e3) / 1e3 }

// commitEvent is one commit of a run.
type commitEvent struct {
	// at is when the commit started, since the start of the stream.
	at time.Duration
	// prepare is the data-file phase (PrepareCommit: flush buffered rows
	// into data files); publish is the metadata phase (Commit: manifests,
	// manifest list and the snapshot), of which committer is the
	// commit.Committer's part, up to its snapshot's publication (the rest
	// is the real-time layer's: readying lookups, handing the progress to
	// the context; publish for plain commits).
	prepare, publish, committer time.Duration
	// prepareReq and publishReq are the store requests of each phase.
	prepareReq, publishReq fileio.Stats
	// phases splits publish as commit.WithTrace reports it.
	phases phaseTimes
	// snapshot is the id Commit returned (0: no snapshot).
	snapshot int64
	// rows is the number of rows the commit made durable: those of the
	// batches [first, end) of the stream, whose Write had returned when
	// the commit began (a real-time commit may flush a few rows written
	// during its data-file phase, which the next commit counts).
	rows       int64
	first, end int
}

func (e commitEvent) total() time.Duration { return e.prepare + e.publish }

// phaseTimes is what commit.WithTrace reported during one Publish (the
// snapshots of one commit call), summed per commit.Phase: the manifest
// PUTs, the manifest-list PUTs, the offsets file PUT (real-time commits)
// and the snapshot's create-if-absent of the published attempts, and the
// lost races. The first three are spans of one round of concurrent PUTs:
// they overlap.
type phaseTimes struct {
	d       [commit.PhaseSnapshot + 1]time.Duration
	retries int // lost races
	// published is when the last snapshot of the commit was reported
	// published (the committer's trace calls back before its commit
	// method returns): what a real-time Commit does after it (readying
	// lookups for the new snapshot, handing the progress to the context)
	// is the rest of the metadata phase.
	published time.Time
}

// add is the commit.WithTrace callback.
func (p *phaseTimes) add(ph commit.Phase, d time.Duration) {
	if int(ph) >= len(p.d) {
		return // a phase this build does not know
	}
	p.d[ph] += d
	switch ph {
	case commit.PhaseRetry:
		p.retries++
	case commit.PhaseSnapshot:
		p.published = time.Now()
	}
}

// phaseTrace collects the phases of the committer of one sink; Publish
// takes them after each commit. The committer calls add in Publish's
// goroutine, and rtbench publishes one commit at a time.
type phaseTrace struct{ cur phaseTimes }

func (t *phaseTrace) option() commit.Option { return commit.WithTrace(t.cur.add) }

// take returns the phases reported since the last take.
func (t *phaseTrace) take() phaseTimes {
	p := t.cur
	t.cur = phaseTimes{}
	return p
}

// floor is the store's own latency for single small requests, and for the
// requests a commit cannot do without (protocol).
type floor struct {
	put, get, list dist
	// protocol is the commit protocol's floor: protocolPuts create-if-absent
	// PUTs at once, then one more (the snapshot), then a HEAD and a GET at
	// once (the expired-gap check), each of 1 KiB, with nothing encoded.
	protocol     dist
	protocolPuts int
}

// floorPayload is the size of the floor's objects: about a snapshot file.
const floorPayload = 1024

// measureFloor times n create-if-absent PUTs of small objects, n GETs of
// them and n LISTs of their directory, sequentially, through fio (the
// warehouse root), then deletes the objects.
func measureFloor(ctx context.Context, fio *fileio.FileIO, n int) (*floor, error) {
	dir := fmt.Sprintf("rtbench-floor-%d", time.Now().UnixNano())
	data := bytes.Repeat([]byte("x"), floorPayload)
	put := make([]time.Duration, 0, n)
	get := make([]time.Duration, 0, n)
	list := make([]time.Duration, 0, n)
	paths := make([]string, 0, n)
	defer func() {
		for _, p := range paths {
			_ = fio.Delete(context.WithoutCancel(ctx), p)
		}
	}()
	for i := range n {
		p := fmt.Sprintf("%s/object-%06d", dir, i)
		t0 := time.Now()
		if err := fio.CreateIfAbsent(ctx, p, data); err != nil {
			return nil, fmt.Errorf("rtbench: store floor: %w", err)
		}
		put = append(put, time.Since(t0))
		paths = append(paths, p)
	}
	for i := range n {
		t0 := time.Now()
		b, err := fio.ReadFile(ctx, paths[i])
		if err != nil {
			return nil, fmt.Errorf("rtbench: store floor: %w", err)
		}
		get = append(get, time.Since(t0))
		if len(b) != floorPayload {
			return nil, fmt.Errorf("rtbench: store floor: read %d bytes of %s, wrote %d", len(b), paths[i], floorPayload)
		}
	}
	// LIST a directory of 10 objects, about a snapshot directory between
	// two expirations of a small table.
	ldir := dir + "/list"
	for i := range 10 {
		p := fmt.Sprintf("%s/object-%02d", ldir, i)
		if err := fio.CreateIfAbsent(ctx, p, data[:16]); err != nil {
			return nil, fmt.Errorf("rtbench: store floor: %w", err)
		}
		paths = append(paths, p)
	}
	for range n {
		t0 := time.Now()
		fis, err := fio.List(ctx, ldir)
		if err != nil {
			return nil, fmt.Errorf("rtbench: store floor: %w", err)
		}
		list = append(list, time.Since(t0))
		if len(fis) != 10 {
			return nil, fmt.Errorf("rtbench: store floor: listed %d objects in %s, wrote 10", len(fis), ldir)
		}
	}
	return &floor{put: distOf(put), get: distOf(get), list: distOf(list)}, nil
}

// measureProtocol times n rounds of what a commit's metadata phase must
// do on fio, sequentially, with no encoding, reading or checking between
// the requests (package commit, "One commit"): k
// create-if-absent PUTs at once (the delta manifest, the delta manifest
// list and, for a real-time commit, the offsets file; the base list is
// prepared in the background), then the create-if-absent of the snapshot,
// then the expired-gap check's HEAD of the base snapshot and GET of the
// EARLIEST hint at once (commit/gap.go). The objects are 1 KiB, about the
// size of each of those files in rtbench's commits, and are deleted at the
// end.
func measureProtocol(ctx context.Context, fio *fileio.FileIO, n, k int) (dist, error) {
	dir := fmt.Sprintf("rtbench-protocol-%d", time.Now().UnixNano())
	data := bytes.Repeat([]byte("x"), floorPayload)
	hint := dir + "/EARLIEST"
	if err := fio.CreateIfAbsent(ctx, hint, data[:8]); err != nil {
		return nil, fmt.Errorf("rtbench: commit protocol floor: %w", err)
	}
	paths := []string{hint}
	defer func() {
		for _, p := range paths {
			_ = fio.Delete(context.WithoutCancel(ctx), p)
		}
	}()
	round := func(ps []string, do func(i int, p string) error) error {
		errs := make(chan error, len(ps))
		for i, p := range ps {
			go func() { errs <- do(i, p) }()
		}
		var first error
		for range ps {
			if err := <-errs; err != nil && first == nil {
				first = err
			}
		}
		return first
	}
	out := make([]time.Duration, 0, n)
	base := ""
	for i := range n {
		files := make([]string, k)
		for j := range files {
			files[j] = fmt.Sprintf("%s/file-%06d-%d", dir, i, j)
		}
		snap := fmt.Sprintf("%s/snapshot-%06d", dir, i)
		t0 := time.Now()
		err := round(files, func(_ int, p string) error { return fio.CreateIfAbsent(ctx, p, data) })
		if err == nil {
			err = fio.CreateIfAbsent(ctx, snap, data)
		}
		if err == nil && base != "" {
			err = round([]string{base, hint}, func(j int, p string) error {
				if j == 0 {
					ok, err := fio.Exists(ctx, p)
					if err == nil && !ok {
						err = fmt.Errorf("%s: base snapshot missing", p)
					}
					return err
				}
				_, err := fio.ReadFile(ctx, p)
				return err
			})
		}
		if err != nil {
			return nil, fmt.Errorf("rtbench: commit protocol floor: %w", err)
		}
		if base != "" {
			out = append(out, time.Since(t0))
		}
		paths = append(paths, files...)
		paths = append(paths, snap)
		base = snap
	}
	return distOf(out), nil
}

// peakRSS returns the process's peak resident set size in bytes (VmHWM of
// /proc/self/status), or 0 where that file does not exist.
func peakRSS() int64 { return procStatus("VmHWM:") }

// fileRSS returns the bytes of the process's resident pages mapped from
// files (RssFile of /proc/self/status: the executable's code and data
// pages, mostly), or 0 where that file does not exist. They count in
// peakRSS and do not depend on the rows held.
func fileRSS() int64 { return procStatus("RssFile:") }

// procStatus returns the value in bytes of a "kB" line of
// /proc/self/status, 0 when there is none.
func procStatus(key string) int64 {
	b, err := os.ReadFile("/proc/self/status")
	if err != nil {
		return 0
	}
	sc := bufio.NewScanner(bytes.NewReader(b))
	for sc.Scan() {
		line := sc.Text()
		if v, ok := strings.CutPrefix(line, key); ok {
			f := strings.Fields(v)
			if len(f) == 2 && f[1] == "kB" {
				kb, err := strconv.ParseInt(f[0], 10, 64)
				if err == nil {
					return kb * 1024
				}
			}
		}
	}
	return 0
}

// resetPeakRSS returns the heap the Go runtime holds free to the
// operating system, then resets VmHWM to the current RSS (Linux 4.0+, "5"
// to /proc/self/clear_refs), so that each workload reports its own peak.
// Without the first step the peak carried what loading the input or the
// workload before left free but resident (the runtime returns free heap
// in the background, a few MiB a second): loading grows the heap to
// about twice the input before moving it off the heap (loadFlights).
// It reports whether the reset took effect.
func resetPeakRSS() bool {
	debug.FreeOSMemory()
	return os.WriteFile("/proc/self/clear_refs", []byte("5"), 0) == nil
}
