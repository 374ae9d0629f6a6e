package main

import (
	"encoding/json"
	"fmt"
	"io"
	"os"
	"strings"
)

// report is everything a run measured; --json writes it as it is.
type report struct {
	// Store is the warehouse's benchstore kind ("local", "minio", or the
	// scheme of a --store URL such as "s3"), Warehouse its URL without the query,
	// Data the flights file; the rest describes the machine and the start
	// time (UTC, RFC 3339).
	Store      string `json:"store"`
	Warehouse  string `json:"warehouse"`
	Data       string `json:"data"`
	GoVersion  string `json:"go_version"`
	CPUs       int    `json:"cpus"`
	GOMAXPROCS int    `json:"gomaxprocs"`
	Started    string `json:"started"`
	// WriteAmp and Read are the upsert phase, Memory the memory phase; nil
	// when not run.
	WriteAmp *ampResult  `json:"write_amp,omitempty"`
	Read     *readResult `json:"read,omitempty"`
	Memory   *memResult  `json:"memory,omitempty"`
}

// failures lists the checks that did not hold.
func (r *report) failures() []string {
	var f []string
	if a := r.WriteAmp; a != nil {
		files := a.Level0Files + a.CompactionFiles
		if a.NewFilesNotLevel0 > 0 {
			f = append(f, fmt.Sprintf("upsert: %d new data files not at level 0", a.NewFilesNotLevel0))
		}
		if a.StoreBytes != a.TotalBytesWritten || a.StoreFiles != files {
			f = append(f, fmt.Sprintf("upsert: the bucket directories hold %d files of %d bytes, the messages name %d of %d bytes",
				a.StoreFiles, a.StoreBytes, files, a.TotalBytesWritten))
		}
		if !a.AsyncCompaction && a.WriterPuts != int64(files) {
			f = append(f, fmt.Sprintf("upsert: the writer made %d Put requests for %d files in the messages", a.WriterPuts, files))
		}
		if a.Snapshots != int64(a.AppendSnapshots+a.CompactSnapshots) {
			f = append(f, fmt.Sprintf("upsert: latest snapshot %d, the messages imply %d APPEND + %d COMPACT",
				a.Snapshots, a.AppendSnapshots, a.CompactSnapshots))
		}
		if a.Level0Bytes > 0 && a.WriteAmpLevel0 < 1 {
			f = append(f, fmt.Sprintf("upsert: write amplification %.3f below 1", a.WriteAmpLevel0))
		}
	}
	if rd := r.Read; rd != nil && rd.Before != nil && rd.After != nil {
		if !rd.RowsMatch {
			f = append(f, fmt.Sprintf("upsert: read %d rows before and %d after the full compaction, %d distinct keys written",
				rd.Before.Rows, rd.After.Rows, rd.DistinctKeys))
		}
		if l := rd.After.Layout; l.MaxSortedRunsPerBucket > 1 {
			f = append(f, fmt.Sprintf("upsert: %d sorted runs in one bucket after the full compaction", l.MaxSortedRunsPerBucket))
		}
	}
	if m := r.Memory; m != nil && m.ReadBefore != nil && m.ReadAfter != nil {
		if !m.RowsMatch {
			f = append(f, fmt.Sprintf("memory: read %d rows before and %d after the full compaction, %d distinct keys written",
				m.ReadBefore.Rows, m.ReadAfter.Rows, m.DistinctKeys))
		}
		if l := m.ReadAfter.Layout; l.MaxSortedRunsPerBucket > 1 {
			f = append(f, fmt.Sprintf("memory: %d sorted runs in one bucket after the full compaction", l.MaxSortedRunsPerBucket))
		}
	}
	return f
}

// writeJSON writes rep to path, indented.
func writeJSON(path string, rep *report) error {
	b, err := json.MarshalIndent(rep, "", "  ")
	if err != nil {
		return err
	}
	return os.WriteFile(path, append(b, '\n'), 0o644)
}

// mib formats bytes as MiB with two decimals.
func mib(n int64) string {
	return fmt.Sprintf("%.2f MiB", float64(n)/(1<<20))
}

// thousands formats n with thousands separators.
func thousands(n int64) string {
	if n < 0 {
		return "-" + thousands(-n)
	}
	s := fmt.Sprint(n)
	var b strings.Builder
	for i, c := range s {
		if i > 0 && (len(s)-i)%3 == 0 {
			b.WriteByte(',')
		}
		b.WriteRune(c)
	}
	return b.String()
}

// printReport prints the human-readable summary.
func printReport(w io.Writer, r *report) {
	fmt.Fprintf(w, "compactbench: store %s (%s), data %s\n", r.Store, r.Warehouse, r.Data)
	fmt.Fprintf(w, "  %s, %d CPUs, GOMAXPROCS %d, started %s\n", r.GoVersion, r.CPUs, r.GOMAXPROCS, r.Started)
	if a := r.WriteAmp; a != nil {
		mode := "synchronous (in PrepareCommit)"
		if a.AsyncCompaction {
			mode = "asynchronous (WithAsyncCompaction(1))"
		}
		fmt.Fprintf(w, "\nWrite amplification: %s, primary key (%s), %d buckets, compaction %s\n",
			a.Table, strings.Join(a.PrimaryKey, ", "), a.Buckets, mode)
		fmt.Fprintf(w, "  input               %s rows (%.2f passes over %s), %s Arrow bytes, %s distinct keys\n",
			thousands(a.InputRows), a.Passes, thousands(a.SourceRows), thousands(a.InputArrowBytes), thousands(a.DistinctKeys))
		fmt.Fprintf(w, "  time                %.1f s, %.0f rows/s; PrepareCommit %.1f s, Commit %.1f s\n",
			a.DurationS, a.IngestRowsPerS, a.PrepareS, a.CommitS)
		fmt.Fprintf(w, "  commits             %d (commit every %s rows), snapshots %d (%d APPEND + %d COMPACT)\n",
			a.Commits, thousands(a.CommitRows), a.Snapshots, a.AppendSnapshots, a.CompactSnapshots)
		fmt.Fprintf(w, "  level-0 (flush)     %s files, %s bytes\n", thousands(int64(a.Level0Files)), thousands(a.Level0Bytes))
		fmt.Fprintf(w, "  compaction output   %s files, %s bytes, by level %v; %d compactions\n",
			thousands(int64(a.CompactionFiles)), thousands(a.CompactionBytes), a.CompactionOutputLevels, a.Compactions)
		fmt.Fprintf(w, "  compaction input    %s files, %s bytes rewritten; %d upgrades (%s bytes, not written)\n",
			thousands(int64(a.CompactionInputFiles)), thousands(a.CompactionInputBytes), a.Upgrades, thousands(a.UpgradeBytes))
		fmt.Fprintf(w, "  total written       %s bytes = level-0 + compaction\n", thousands(a.TotalBytesWritten))
		fmt.Fprintf(w, "  write amplification %.3f × level-0 bytes, %.4f × input Arrow bytes\n", a.WriteAmpLevel0, a.WriteAmpInput)
		fmt.Fprintf(w, "  store               %s files, %s bytes in bucket dirs; writer Put requests %s\n",
			thousands(int64(a.StoreFiles)), thousands(a.StoreBytes), thousands(a.WriterPuts))
		fmt.Fprintf(w, "  live                %d files, %s bytes, %d sorted runs (max %d per bucket), files per level %v\n",
			a.Live.Files, thousands(a.Live.Bytes), a.Live.SortedRuns, a.Live.MaxSortedRunsPerBucket, a.Live.FilesPerLevel)
	}
	if rd := r.Read; rd != nil {
		fmt.Fprintf(w, "\nFull read before/after full compaction (compaction.Compact Full, parallelism %d), after %d write-only commits\n", rd.Parallelism, rd.TailCommits)
		printRead(w, "before", rd.Before)
		if rd.Before != nil {
			fmt.Fprintf(w, "  full compaction     %.1f ms, snapshot %d\n", rd.FullCompactionMS, rd.CompactSnapshot)
		}
		printRead(w, "after", rd.After)
		if rd.After != nil {
			fmt.Fprintf(w, "  rows match          %v (distinct keys written %s); speedup %.2f×\n", rd.RowsMatch, thousands(rd.DistinctKeys), rd.Speedup)
		}
	}
	if m := r.Memory; m != nil {
		fmt.Fprintf(w, "\nPeak memory of a full compaction: %s, primary key (%s), %d buckets, write-only, %d commits\n",
			m.Table, strings.Join(m.PrimaryKey, ", "), m.Buckets, m.Commits)
		fmt.Fprintf(w, "  input               %s rows, %s distinct keys, written in %.1f s\n", thousands(m.Rows), thousands(m.DistinctKeys), m.WriteS)
		printRead(w, "read before", m.ReadBefore)
		if m.Bound == nil {
			return
		}
		fmt.Fprintf(w, "  full compaction     %.1f ms, parallelism %d, %d samples every %.0f ms, %s allocated\n",
			m.FullCompactionMS, m.Parallelism, m.Samples, m.SampleMS, mib(m.AllocBytes))
		fmt.Fprintf(w, "  %-19s %14s %14s %14s\n", "memory", "baseline", "peak", "peak-baseline")
		row := func(name string, base, peak int64) {
			fmt.Fprintf(w, "  %-19s %14s %14s %14s\n", name, mib(base), mib(peak), mib(peak-base))
		}
		row("Go heap objects", m.Baseline.HeapObjects, m.Peak.HeapObjects)
		row("Go live heap (GC)", m.Baseline.HeapLive, m.Peak.HeapLive)
		row("Go total mapped", m.Baseline.GoTotal, m.Peak.GoTotal)
		row("RSS (sampled)", m.Baseline.RSS, m.Peak.RSS)
		row("RSS (VmHWM)", m.Baseline.RSS, m.VmHWM)
		b := m.Bound
		fmt.Fprintf(w, "  bound: P = %d buckets at once (of %d with files), R = %d sorted runs per bucket at most\n",
			b.Parallelism, b.BucketsWithFiles, b.MaxSortedRuns)
		fmt.Fprintf(w, "    bound    P·(R·(G + C·p + B) + W + C·p + D + H + Z) = %d·(%d·(%s + %d·%s + %s) + %s + %d·%s + %s + %s + %s) = %s\n",
			b.Parallelism, b.MaxSortedRuns, mib(b.RowGroupBytes), b.Columns, mib(b.PageBytes), mib(b.BatchBytes),
			mib(b.OutputRowGroupBytes), b.Columns, mib(b.PageBytes), mib(b.DictBytes), mib(b.HeldBytes), mib(b.ZstdBytes), mib(b.Bytes))
		fmt.Fprintf(w, "             (compaction/doc.go, Memory; of it data P·(R·G + W) = %s, G and W the level-0 and output row groups)\n", mib(b.DataBytes))
		fmt.Fprintf(w, "    inputs   largest file %s, largest bucket %s (row groups read are at most file-sized)\n",
			mib(b.MaxFileBytes), mib(b.MaxBucketBytes))
		fmt.Fprintf(w, "    measured above baseline: Go heap %s (%.2f× bound), live heap %s (%.2f×), VmHWM %s (%.2f×); within bound %v\n",
			mib(m.PeakAboveBaseline.HeapObjects), ratio(m.PeakAboveBaseline.HeapObjects, b.Bytes),
			mib(m.PeakAboveBaseline.HeapLive), ratio(m.PeakAboveBaseline.HeapLive, b.Bytes),
			mib(m.VmHWMAboveBaseline), ratio(m.VmHWMAboveBaseline, b.Bytes), m.WithinBound)
		fmt.Fprintf(w, "    per bucket slot (÷P): Go heap %s, live heap %s, vs bound ÷ P = %s\n",
			mib(m.PeakAboveBaseline.HeapObjects/int64(b.Parallelism)), mib(m.PeakAboveBaseline.HeapLive/int64(b.Parallelism)),
			mib(b.Bytes/int64(b.Parallelism)))
		printRead(w, "read after", m.ReadAfter)
		if m.ReadAfter != nil {
			fmt.Fprintf(w, "  rows match          %v\n", m.RowsMatch)
		}
	}
}

// ratio returns a/b, 0 when b is 0.
func ratio(a, b int64) float64 {
	if b == 0 {
		return 0
	}
	return float64(a) / float64(b)
}

// printRead prints one readStats line pair.
func printRead(w io.Writer, name string, s *readStats) {
	if s == nil {
		return
	}
	l := s.Layout
	fmt.Fprintf(w, "  %-19s %s rows, median %.1f ms of %d, %.0f rows/s\n", name, thousands(s.Rows), s.MedianMS, len(s.MS), s.RowsPerS)
	fmt.Fprintf(w, "  %-19s %d files, %s bytes, %s physical rows, %d sorted runs (max %d per bucket), files per level %v\n",
		"", l.Files, thousands(l.Bytes), thousands(l.PhysicalRows), l.SortedRuns, l.MaxSortedRunsPerBucket, l.FilesPerLevel)
}
