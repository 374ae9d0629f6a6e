package main

import (
	"bufio"
	"bytes"
	"cmp"
	"context"
	"errors"
	"fmt"
	"os"
	"runtime"
	"runtime/debug"
	"runtime/metrics"
	"runtime/pprof"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"
	"github.com/google/uuid"

	"github.com/paimon-go/paimon/catalog"
	"github.com/paimon-go/paimon/commit"
	"github.com/paimon-go/paimon/datafile"
	"github.com/paimon-go/paimon/internal/flights"
	"github.com/paimon-go/paimon/writer"
)

// memoryTable is the table of the memory phase.
const memoryTable = "memory"

// memoryKey returns the primary key of the memory phase's table for
// --mem-key.
func memoryKey(name string) []string {
	if name == memKeyDateRoute {
		return []string{"date", "origin", "destination"}
	}
	return []string{"origin", "destination", "date"}
}

// memSample is one reading of the process's memory, in bytes.
type memSample struct {
	// HeapObjects is runtime/metrics /memory/classes/heap/objects:bytes:
	// the Go heap's live objects and dead ones not yet swept.
	HeapObjects int64 `json:"heap_objects"`
	// HeapLive is /gc/heap/live:bytes: the live heap the last GC marked.
	HeapLive int64 `json:"heap_live"`
	// GoTotal is /memory/classes/total:bytes: all memory the Go runtime
	// has mapped (heap, stacks, metadata, free but not yet returned).
	GoTotal int64 `json:"go_total"`
	// RSS is VmRSS of /proc/self/status (0 where it does not exist).
	RSS int64 `json:"rss"`
}

// metricNames returns the runtime/metrics readMem reads, in memSample
// order, then the cumulative allocations.
func metricNames() []string {
	return []string{
		"/memory/classes/heap/objects:bytes",
		"/gc/heap/live:bytes",
		"/memory/classes/total:bytes",
		"/gc/heap/allocs:bytes",
	}
}

// readMem takes one memSample and returns the cumulative heap allocations
// too (/gc/heap/allocs:bytes).
func readMem(s []metrics.Sample) (memSample, int64) {
	metrics.Read(s)
	v := func(i int) int64 {
		if s[i].Value.Kind() != metrics.KindUint64 {
			return 0
		}
		return int64(s[i].Value.Uint64())
	}
	return memSample{HeapObjects: v(0), HeapLive: v(1), GoTotal: v(2), RSS: procStatus("VmRSS:")}, v(3)
}

// newSamples returns the metrics.Sample slice readMem fills.
func newSamples() []metrics.Sample {
	names := metricNames()
	s := make([]metrics.Sample, len(names))
	for i, n := range names {
		s[i].Name = n
	}
	return s
}

// procStatus returns a "kB" field of /proc/self/status (VmRSS:, VmHWM:)
// in bytes, 0 where the file or field does not exist.
func procStatus(field string) int64 {
	b, err := os.ReadFile("/proc/self/status")
	if err != nil {
		return 0
	}
	sc := bufio.NewScanner(bytes.NewReader(b))
	for sc.Scan() {
		v, ok := strings.CutPrefix(sc.Text(), field)
		if !ok {
			continue
		}
		f := strings.Fields(v)
		if len(f) == 2 && f[1] == "kB" {
			if kb, err := strconv.ParseInt(f[0], 10, 64); err == nil {
				return kb * 1024
			}
		}
	}
	return 0
}

// writeHeapProfile writes the heap profile (pprof "allocs") to path.
// The memory phase writes one before the compaction (path.base) and one
// after it.
func writeHeapProfile(path string) error {
	f, err := os.Create(path)
	if err != nil {
		return fmt.Errorf("--memprofile: %w", err)
	}
	if err := pprof.Lookup("allocs").WriteTo(f, 0); err != nil {
		f.Close()
		return fmt.Errorf("--memprofile: %w", err)
	}
	return f.Close()
}

// resetPeakRSS resets VmHWM to the current RSS (Linux 4.0+: "5" to
// /proc/self/clear_refs) and reports whether that worked.
func resetPeakRSS() bool {
	return os.WriteFile("/proc/self/clear_refs", []byte("5"), 0) == nil
}

// sampler samples memory in a goroutine and keeps the peak of each field.
type sampler struct {
	stop chan struct{}
	done chan struct{}
	peak memSample
	n    int
	// profile, when set, keeps the heap profile taken when the live heap
	// reached a new peak (the in-use profile of that GC cycle).
	profile  bool
	peakProf []byte
}

// startSampler samples every interval until Stop; with profile it also
// keeps the heap profile of the GC cycle with the largest live heap.
func startSampler(every time.Duration, profile bool) *sampler {
	s := &sampler{stop: make(chan struct{}), done: make(chan struct{}), profile: profile}
	go func() {
		defer close(s.done)
		ms := newSamples()
		tick := time.NewTicker(every)
		defer tick.Stop()
		for {
			m, _ := readMem(ms)
			if s.profile && m.HeapLive > s.peak.HeapLive {
				var buf bytes.Buffer
				if pprof.Lookup("heap").WriteTo(&buf, 0) == nil {
					s.peakProf = buf.Bytes()
				}
			}
			s.observe(m)
			select {
			case <-s.stop:
				m, _ := readMem(ms)
				s.observe(m)
				return
			case <-tick.C:
			}
		}
	}()
	return s
}

// observe counts one sample and raises the peaks it exceeds.
func (s *sampler) observe(m memSample) {
	s.n++
	s.peak.HeapObjects = max(s.peak.HeapObjects, m.HeapObjects)
	s.peak.HeapLive = max(s.peak.HeapLive, m.HeapLive)
	s.peak.GoTotal = max(s.peak.GoTotal, m.GoTotal)
	s.peak.RSS = max(s.peak.RSS, m.RSS)
}

// Stop ends the sampling and returns the peaks and the number of samples.
func (s *sampler) Stop() (memSample, int) {
	close(s.stop)
	<-s.done
	return s.peak, s.n
}

// memResult is the memory phase's result.
type memResult struct {
	// Table, PrimaryKey and Buckets describe the table; Commits is how many
	// commits (level-0 sorted runs per bucket) the rows were written in.
	Table      string   `json:"table"`
	PrimaryKey []string `json:"primary_key"`
	Buckets    int      `json:"buckets"`
	Commits    int      `json:"commits"`
	// Rows are the rows written; DistinctKeys the distinct primary keys
	// among them, counted in Go.
	Rows         int64   `json:"rows"`
	DistinctKeys int64   `json:"distinct_keys"`
	WriteS       float64 `json:"write_s"`
	// ReadBefore and ReadAfter are one full read each, before and after the
	// compaction.
	ReadBefore *readStats `json:"read_before"`
	ReadAfter  *readStats `json:"read_after"`
	RowsMatch  bool       `json:"rows_match"`

	// FullCompactionMS is the wall time of compaction.Compact(Full) with
	// Options.Parallelism Parallelism; CompactSnapshot the snapshot it
	// committed.
	FullCompactionMS float64 `json:"full_compaction_ms"`
	CompactSnapshot  int64   `json:"compact_snapshot"`
	Parallelism      int     `json:"parallelism"`
	// SampleMS is the sampling interval, Samples the samples taken.
	SampleMS float64 `json:"sample_ms"`
	Samples  int     `json:"samples"`
	// Baseline is taken after a GC right before the compaction; Peak holds
	// the greatest value of each field while it ran; PeakAboveBaseline is
	// Peak minus Baseline.
	Baseline          memSample `json:"baseline"`
	Peak              memSample `json:"peak"`
	PeakAboveBaseline memSample `json:"peak_above_baseline"`
	// VmHWM is the peak RSS the kernel recorded (reset before the
	// compaction when HWMReset), VmHWMAboveBaseline the same minus
	// Baseline.RSS.
	VmHWM              int64 `json:"vm_hwm"`
	VmHWMAboveBaseline int64 `json:"vm_hwm_above_baseline"`
	HWMReset           bool  `json:"hwm_reset"`
	// InputArrowBytes are the Arrow buffer bytes of the rows written (for
	// the row width in the bound).
	InputArrowBytes int64 `json:"input_arrow_bytes"`
	// AllocBytes is what the compaction allocated on the Go heap in total.
	AllocBytes int64 `json:"alloc_bytes"`
	// Bound is the bound derived from the code; WithinBound reports that
	// the Go heap and VmHWM above the baseline stayed below it.
	Bound       *bound `json:"bound"`
	WithinBound bool   `json:"within_bound"`
}

// runMemory runs the memory phase.
func runMemory(ctx context.Context, e *env) (*memResult, error) {
	cfg := e.cfg
	pk := memoryKey(cfg.memKey)
	tbl, err := createTable(ctx, e.cat, memoryTable, pk, map[string]string{
		"bucket": strconv.Itoa(cfg.memBuckets), "write-only": "true",
	}, "compactbench memory: flights, write-only, compacted fully at the end")
	if err != nil {
		return nil, err
	}
	url := tbl.FileIO.URL()
	r := &memResult{
		Table: database + "." + memoryTable, PrimaryKey: pk, Buckets: cfg.memBuckets,
		Commits: cfg.memCommits, Parallelism: cfg.parallelism,
		SampleMS: float64(cfg.sample.Microseconds()) / 1000,
	}
	if err := writeMemoryTable(ctx, e, tbl, r); err != nil {
		return r, err
	}
	// Everything the writes held is garbage now: collect it and hand the
	// pages back, so that the baseline is the program at rest.
	runtime.GC()
	debug.FreeOSMemory()
	if r.ReadBefore, err = timeReads(ctx, url, 1); err != nil {
		return r, fmt.Errorf("read before full compaction: %w", err)
	}
	e.logf("memory: read %d rows before the compaction in %.0f ms; %d files, at most %d sorted runs per bucket",
		r.ReadBefore.Rows, r.ReadBefore.MedianMS, r.ReadBefore.Layout.Files, r.ReadBefore.Layout.MaxSortedRunsPerBucket)
	if r.Bound, err = boundOf(tbl, r.ReadBefore.Layout, cfg.parallelism, r.InputArrowBytes/max(r.Rows, 1)); err != nil {
		return r, err
	}

	runtime.GC()
	debug.FreeOSMemory()
	ms := newSamples()
	var allocs0 int64
	r.Baseline, allocs0 = readMem(ms)
	if cfg.memProfile != "" {
		// The profile is cumulative: a base taken now lets pprof
		// -diff_base show the compaction alone.
		if err := writeHeapProfile(cfg.memProfile + ".base"); err != nil {
			return r, err
		}
	}
	r.HWMReset = resetPeakRSS()
	s := startSampler(cfg.sample, cfg.memProfile != "")
	ms2, id, cerr := fullCompact(ctx, url, cfg.parallelism)
	r.Peak, r.Samples = s.Stop()
	r.VmHWM = procStatus("VmHWM:")
	_, allocs1 := readMem(ms)
	r.AllocBytes = allocs1 - allocs0
	r.FullCompactionMS, r.CompactSnapshot = ms2, id
	if cerr != nil {
		return r, cerr
	}
	if cfg.memProfile != "" {
		if err := writeHeapProfile(cfg.memProfile); err != nil {
			return r, err
		}
		if err := os.WriteFile(cfg.memProfile+".peak", s.peakProf, 0o644); err != nil {
			return r, fmt.Errorf("--memprofile: %w", err)
		}
	}
	r.PeakAboveBaseline = memSample{
		HeapObjects: r.Peak.HeapObjects - r.Baseline.HeapObjects,
		HeapLive:    r.Peak.HeapLive - r.Baseline.HeapLive,
		GoTotal:     r.Peak.GoTotal - r.Baseline.GoTotal,
		RSS:         r.Peak.RSS - r.Baseline.RSS,
	}
	r.VmHWMAboveBaseline = r.VmHWM - r.Baseline.RSS
	r.WithinBound = r.PeakAboveBaseline.HeapObjects <= r.Bound.Bytes && r.VmHWMAboveBaseline <= r.Bound.Bytes
	e.logf("memory: full compaction in %.0f ms, peak heap %s (%s above baseline), peak RSS %s, bound %s",
		r.FullCompactionMS, mib(r.Peak.HeapObjects), mib(r.PeakAboveBaseline.HeapObjects), mib(r.VmHWM), mib(r.Bound.Bytes))

	if r.ReadAfter, err = timeReads(ctx, url, 1); err != nil {
		return r, fmt.Errorf("read after full compaction: %w", err)
	}
	r.RowsMatch = r.ReadBefore.Rows == r.ReadAfter.Rows && r.ReadAfter.Rows == r.DistinctKeys
	return r, nil
}

// writeMemoryTable writes the first memRows flights into tbl in memCommits
// commits of (nearly) equal size and counts the distinct keys.
func writeMemoryTable(ctx context.Context, e *env, tbl *catalog.Table, r *memResult) (err error) {
	cfg := e.cfg
	t0 := time.Now()
	batches, rows, err := flights.Load(ctx, cfg.data, flights.Options{MaxRows: cfg.memRows})
	if err != nil {
		return err
	}
	defer func() {
		for _, b := range batches {
			b.Release()
		}
	}()
	if rows == 0 {
		return fmt.Errorf("flights data %s holds no rows", cfg.data)
	}
	r.Rows = rows
	for _, b := range batches {
		r.InputArrowBytes += datafile.RecordSize(b)
	}
	if r.DistinctKeys, err = distinctFlightKeys(batches); err != nil {
		return err
	}
	e.logf("memory: loaded %d rows (%d distinct keys) in %v", rows, r.DistinctKeys, time.Since(t0).Round(time.Millisecond))

	user := "compactbench-" + uuid.NewString()
	w, err := writer.New(tbl.FileIO, tbl.Schema, user)
	if err != nil {
		return fmt.Errorf("new write: %w", err)
	}
	defer func() { err = errors.Join(err, w.Close()) }()
	c, err := commit.New(tbl.FileIO, tbl.Schema, user)
	if err != nil {
		return fmt.Errorf("new commit: %w", err)
	}
	defer func() { err = errors.Join(err, c.Close()) }()
	t1 := time.Now()
	commits := 0
	commitOnce := func() error {
		msgs, err := w.PrepareCommit(ctx)
		if err != nil {
			return fmt.Errorf("prepare commit %d: %w", commits+1, err)
		}
		for _, m := range msgs {
			if !m.Compact.IsEmpty() {
				return fmt.Errorf("commit %d: bucket %d compacted although write-only = true", commits+1, m.Bucket)
			}
		}
		if _, err := c.Commit(ctx, int64(commits+1), msgs); err != nil {
			return fmt.Errorf("commit %d: %w", commits+1, err)
		}
		commits++
		return nil
	}
	// Commit k ends after row boundary(k) = k·rows/commits; batches are
	// sliced there, so each commit gets exactly its share.
	boundary := func(k int) int64 { return int64(k) * rows / int64(cfg.memCommits) }
	var written int64
	for _, b := range batches {
		var off int64
		for off < b.NumRows() {
			end := b.NumRows()
			if cut := boundary(commits+1) - written; cut < end-off {
				end = off + cut
			}
			piece := b.NewSlice(off, end)
			err := w.Write(ctx, piece)
			piece.Release()
			if err != nil {
				return fmt.Errorf("write: %w", err)
			}
			written += end - off
			off = end
			if written == boundary(commits+1) {
				if err := commitOnce(); err != nil {
					return err
				}
			}
		}
	}
	r.WriteS = time.Since(t1).Seconds()
	if commits != cfg.memCommits {
		return fmt.Errorf("made %d commits, want %d (fewer rows than commits?)", commits, cfg.memCommits)
	}
	return nil
}

// flightKey is a flight's (origin, destination, date) with the airports
// numbered: the memory phase's key in either column order.
type flightKey struct {
	date int64
	od   uint32
}

// distinctFlightKeys counts the distinct (origin, destination, date) of the
// batches.
func distinctFlightKeys(batches []arrow.RecordBatch) (int64, error) {
	airports := map[string]uint32{}
	id := func(s string) (uint32, error) {
		if v, ok := airports[s]; ok {
			return v, nil
		}
		if len(airports) >= 1<<16 {
			return 0, fmt.Errorf("more than %d airports", 1<<16)
		}
		v := uint32(len(airports))
		airports[strings.Clone(s)] = v
		return v, nil
	}
	var keys []flightKey
	for _, b := range batches {
		dt := b.Column(flights.Date).(*array.Timestamp)
		o := b.Column(flights.Origin).(*array.String)
		d := b.Column(flights.Destination).(*array.String)
		for i := range int(b.NumRows()) {
			oi, err := id(o.Value(i))
			if err != nil {
				return 0, err
			}
			di, err := id(d.Value(i))
			if err != nil {
				return 0, err
			}
			keys = append(keys, flightKey{date: int64(dt.Value(i)), od: oi<<16 | di})
		}
	}
	slices.SortFunc(keys, func(a, b flightKey) int {
		return cmp.Or(cmp.Compare(a.date, b.date), cmp.Compare(a.od, b.od))
	})
	return int64(len(slices.Compact(keys))), nil
}
