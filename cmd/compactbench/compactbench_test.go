package main

import (
	"bytes"
	"context"
	"encoding/json"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"

	"github.com/apache/arrow-go/v18/arrow/array"

	"github.com/paimon-go/paimon"
	"github.com/paimon-go/paimon/internal/flights"
	"github.com/paimon-go/paimon/reader"
)

// runCLI runs compactbench with args and returns its exit status, stdout
// and stderr.
func runCLI(t *testing.T, args ...string) (int, string, string) {
	t.Helper()
	var stdout, stderr bytes.Buffer
	code := run(context.Background(), args, &stdout, &stderr)
	return code, stdout.String(), stderr.String()
}

// dirFiles counts the regular files directly in the directories of root
// whose names start with prefix, and their bytes.
func dirFiles(t *testing.T, root, prefix string) (files int, size int64, names []string) {
	t.Helper()
	des, err := os.ReadDir(root)
	if err != nil {
		t.Fatal(err)
	}
	for _, d := range des {
		if !d.IsDir() || !strings.HasPrefix(d.Name(), prefix) {
			continue
		}
		fes, err := os.ReadDir(filepath.Join(root, d.Name()))
		if err != nil {
			t.Fatal(err)
		}
		for _, f := range fes {
			fi, err := f.Info()
			if err != nil {
				t.Fatal(err)
			}
			if fi.Mode().IsRegular() {
				files++
				size += fi.Size()
				names = append(names, d.Name()+"/"+f.Name())
			}
		}
	}
	return files, size, names
}

// TestSmallRun runs the whole program on 50,000 rows (2 s of upserts, a
// 64-bucket memory phase of 3 commits) and checks its numbers against what
// the test computes itself from the flights batches and finds on disk.
func TestSmallRun(t *testing.T) {
	const rows = 50000
	// The expected keys, counted here from the same rows.
	batches, n := flights.Batches(t, flights.Options{MaxRows: rows})
	if n != rows {
		t.Fatalf("loaded %d rows, want %d", n, rows)
	}
	routes := map[string]bool{}
	flightKeys := map[string]bool{}
	// The memory phase commits rows [k·rows/3, (k+1)·rows/3) in commit k;
	// its write buffer merges the rows of one key within a commit.
	perCommit := [3]map[string]bool{{}, {}, {}}
	row := 0
	for _, b := range batches {
		dt := b.Column(flights.Date).(*array.Timestamp)
		o := b.Column(flights.Origin).(*array.String)
		d := b.Column(flights.Destination).(*array.String)
		for i := range int(b.NumRows()) {
			r := o.Value(i) + "\x00" + d.Value(i)
			routes[r] = true
			k := r + "\x00" + strconv.FormatInt(int64(dt.Value(i)), 10)
			flightKeys[k] = true
			c := 0
			for row >= (c+1)*rows/3 {
				c++
			}
			perCommit[c][k] = true
			row++
		}
	}

	wh := t.TempDir()
	out := filepath.Join(t.TempDir(), "out.json")
	code, stdout, stderr := runCLI(t, "--dir", wh, "--duration", "2s", "--rows", strconv.Itoa(rows),
		"--batch-rows", "10000", "--commit-rows", "10000", "--reads", "2",
		"--mem-rows", strconv.Itoa(rows), "--mem-commits", "3", "--json", out)
	if code != 0 {
		t.Fatalf("exit status %d\nstdout:\n%s\nstderr:\n%s", code, stdout, stderr)
	}
	raw, err := os.ReadFile(out)
	if err != nil {
		t.Fatal(err)
	}
	var rep report
	if err := json.Unmarshal(raw, &rep); err != nil {
		t.Fatal(err)
	}
	a, rd, m := rep.WriteAmp, rep.Read, rep.Memory
	if a == nil || rd == nil || m == nil || rd.Before == nil || rd.After == nil || m.ReadBefore == nil || m.ReadAfter == nil || m.Bound == nil {
		t.Fatalf("incomplete report:\n%s", raw)
	}

	// Upsert phase: rows and keys.
	if a.InputRows < rows {
		t.Fatalf("wrote %d rows in 2 s, less than one pass of %d", a.InputRows, rows)
	}
	want := int64(len(routes))
	if a.DistinctKeys != want || rd.DistinctKeys != want || rd.Before.Rows != want || rd.After.Rows != want || !rd.RowsMatch {
		t.Errorf("distinct routes %d (test), %d (program); read %d before, %d after the full compaction",
			want, a.DistinctKeys, rd.Before.Rows, rd.After.Rows)
	}
	// Every batch has 10,000 rows and every batch triggers a commit.
	if wantCommits := int((a.InputRows + 9999) / 10000); a.Commits != wantCommits || a.AppendSnapshots != wantCommits {
		t.Errorf("commits %d, APPEND snapshots %d, want %d for %d rows", a.Commits, a.AppendSnapshots, wantCommits, a.InputRows)
	}
	if a.Commits >= 5 && a.Compactions == 0 {
		t.Errorf("%d commits into 4 buckets and no compaction (trigger 5)", a.Commits)
	}

	// Bytes: the messages' numbers add up and match the bucket directories.
	if a.TotalBytesWritten != a.Level0Bytes+a.CompactionBytes {
		t.Errorf("total %d != level-0 %d + compaction %d", a.TotalBytesWritten, a.Level0Bytes, a.CompactionBytes)
	}
	if a.Level0Bytes <= 0 || a.WriteAmpLevel0 != float64(a.TotalBytesWritten)/float64(a.Level0Bytes) || a.WriteAmpLevel0 < 1 {
		t.Errorf("write amplification %v for total %d, level-0 %d", a.WriteAmpLevel0, a.TotalBytesWritten, a.Level0Bytes)
	}
	if a.WriteAmpInput != float64(a.TotalBytesWritten)/float64(a.InputArrowBytes) {
		t.Errorf("write amplification of input %v for total %d, input %d", a.WriteAmpInput, a.TotalBytesWritten, a.InputArrowBytes)
	}
	tableDir := filepath.Join(wh, database+".db", upsertTable)
	files, size, _ := dirFiles(t, tableDir, "bucket-")
	after, err := paimon.OpenTable(context.Background(), tableDir)
	if err != nil {
		t.Fatal(err)
	}
	defer after.Close()
	liveAt := func(id int64) map[string]int64 {
		p, err := after.NewScan(reader.WithSnapshot(id)).Plan(context.Background())
		if err != nil {
			t.Fatal(err)
		}
		out := map[string]int64{}
		for _, sp := range p.Splits {
			for _, f := range sp.Files {
				out[sp.BucketPath+"/"+f.FileName] = f.FileSize
			}
		}
		return out
	}
	live := liveAt(a.Snapshots)
	// The write-only tail commits (not part of the measured run) added
	// level-0 files: those live at the read before that were not live at the
	// end of the run.
	liveBefore := liveAt(rd.Before.Layout.Snapshot)
	var tailFiles int
	var tailBytes int64
	for name, size := range liveBefore {
		if _, ok := live[name]; !ok {
			tailFiles++
			tailBytes += size
		}
	}
	if rd.TailCommits != 3 || rd.Before.Layout.Snapshot != a.Snapshots+3 || tailFiles == 0 || rd.Before.Layout.FilesPerLevel["0"] != a.Live.FilesPerLevel["0"]+tailFiles {
		t.Errorf("tail: %d commits, read before at snapshot %d (run ended at %d), %d new files, levels %v",
			rd.TailCommits, rd.Before.Layout.Snapshot, a.Snapshots, tailFiles, rd.Before.Layout.FilesPerLevel)
	}
	// The full compaction of the read phase wrote more files afterwards:
	// those live after it that were not live before.
	var fullFiles int
	var fullBytes int64
	if rd.CompactSnapshot > 0 {
		for name, size := range liveAt(rd.CompactSnapshot) {
			if _, ok := live[name]; !ok {
				fullFiles++
				fullBytes += size
			}
		}
	}
	if files-fullFiles-tailFiles != a.Level0Files+a.CompactionFiles || size-fullBytes-tailBytes != a.TotalBytesWritten {
		t.Errorf("bucket dirs hold %d files of %d bytes (%d of %d by the full compaction, %d of %d by the tail); messages: %d level-0 + %d compaction files, %d bytes",
			files, size, fullFiles, fullBytes, tailFiles, tailBytes, a.Level0Files, a.CompactionFiles, a.TotalBytesWritten)
	}
	if a.WriterPuts != int64(a.Level0Files+a.CompactionFiles) {
		t.Errorf("writer Put requests %d, files %d", a.WriterPuts, a.Level0Files+a.CompactionFiles)
	}
	// Snapshots: one file per snapshot id; the tail adds one per commit, the
	// read phase's compaction one.
	snaps, _, names := dirFiles(t, tableDir, "snapshot")
	for _, n := range names {
		if !strings.HasPrefix(n, "snapshot/snapshot-") {
			snaps--
		}
	}
	wantSnaps := a.Snapshots + int64(rd.TailCommits)
	if rd.CompactSnapshot > 0 {
		wantSnaps++
		if rd.CompactSnapshot != wantSnaps {
			t.Errorf("full compaction committed snapshot %d, want %d", rd.CompactSnapshot, wantSnaps)
		}
	}
	if int64(snaps) != wantSnaps || a.Snapshots != int64(a.AppendSnapshots+a.CompactSnapshots) {
		t.Errorf("%d snapshot files, want %d; snapshots %d = %d APPEND + %d COMPACT?", snaps, wantSnaps, a.Snapshots, a.AppendSnapshots, a.CompactSnapshots)
	}
	// Live files of the snapshot the writes ended at.
	var liveFiles int
	var liveBytes int64
	for _, size := range live {
		liveFiles++
		liveBytes += size
	}
	if liveFiles != a.Live.Files || liveBytes != a.Live.Bytes || rd.Before.Layout.Files != liveFiles+tailFiles || rd.Before.Layout.Bytes != liveBytes+tailBytes {
		t.Errorf("live files %d of %d bytes; report %+v, read before %+v", liveFiles, liveBytes, a.Live, rd.Before.Layout)
	}
	if l := rd.After.Layout; l.MaxSortedRunsPerBucket != 1 || l.SortedRuns != l.Buckets || l.FilesPerLevel["5"] != l.Files {
		t.Errorf("after the full compaction: %+v, want one run per bucket on level 5", l)
	}
	if len(rd.Before.MS) != 2 || len(rd.After.MS) != 2 || rd.Before.RowsPerS <= 0 || rd.After.RowsPerS <= 0 {
		t.Errorf("reads: before %+v, after %+v", rd.Before, rd.After)
	}

	// Memory phase.
	wantKeys := int64(len(flightKeys))
	if m.Rows != rows || m.DistinctKeys != wantKeys || m.ReadBefore.Rows != wantKeys || m.ReadAfter.Rows != wantKeys || !m.RowsMatch {
		t.Errorf("memory: %d rows, %d distinct keys (test %d), read %d before and %d after", m.Rows, m.DistinctKeys, wantKeys, m.ReadBefore.Rows, m.ReadAfter.Rows)
	}
	lb, la := m.ReadBefore.Layout, m.ReadAfter.Layout
	level0Rows := int64(len(perCommit[0]) + len(perCommit[1]) + len(perCommit[2]))
	if lb.Buckets != 64 || lb.MaxSortedRunsPerBucket != 3 || lb.FilesPerLevel["0"] != lb.Files || lb.Files != 64*3 || lb.PhysicalRows != level0Rows {
		t.Errorf("memory table before compaction: %+v, want 3 level-0 files in each of 64 buckets", lb)
	}
	if la.Buckets != 64 || la.Files != 64 || la.FilesPerLevel["5"] != 64 || la.PhysicalRows != wantKeys {
		t.Errorf("memory table after compaction: %+v, want one level-5 file per bucket", la)
	}
	b := m.Bound
	// C = 3 key copies + 2 system columns + 5 value columns; B and H from
	// the Arrow width of the rows written.
	const mi = int64(1 << 20)
	rb := m.InputArrowBytes / m.Rows
	wantBytes := 2 * (3*(32*mi+10*mi+4096*rb) + 32*mi + 10*mi + 10*12*mi + 20000*rb + 19*mi/2)
	if b.Parallelism != 2 || b.MaxSortedRuns != 3 || b.Columns != 10 || b.RowBytes != rb || rb <= 0 ||
		b.DataBytes != 2*(3*32*mi+32*mi) || b.Bytes != wantBytes {
		t.Errorf("bound %+v, want P 2, R 3, C 10, data 256 MiB, total %d", b, wantBytes)
	}
	if m.Samples < 1 || m.Peak.HeapObjects <= 0 || m.Peak.GoTotal <= 0 {
		t.Errorf("memory samples %d, peak %+v", m.Samples, m.Peak)
	}
	if !strings.Contains(stdout, "write amplification") || !strings.Contains(stdout, "P·(R·(G + C·p + B) + W + C·p + D + H + Z)") {
		t.Errorf("summary lacks the write amplification or the bound:\n%s", stdout)
	}
}

// TestUsage checks that bad command lines exit with status 2.
func TestUsage(t *testing.T) {
	for _, args := range [][]string{
		{"--phase", "nope"},
		{"--duration", "0s"},
		{"--mem-key", "x"},
		{"--minio", "--dir", "/tmp/x"},
		{"--minio", "--store", "s3://bucket"},
		{"--store", "mem://"},
		{"extra"},
	} {
		if code, _, stderr := runCLI(t, args...); code != 2 {
			t.Errorf("%v: exit status %d, want 2 (%s)", args, code, stderr)
		}
	}
	if code, _, _ := runCLI(t, "--help"); code != 0 {
		t.Errorf("--help: exit status %d, want 0", code)
	}
}
