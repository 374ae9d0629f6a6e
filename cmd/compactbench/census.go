package main

import (
	"context"
	"fmt"
	"path"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/paimon-go/paimon"
	"github.com/paimon-go/paimon/fileio"
	"github.com/paimon-go/paimon/reader"
)

// layout describes the live data files of a table's latest snapshot as a
// reader plan lists them (one split per bucket, all levels).
type layout struct {
	// Snapshot is the snapshot planned.
	Snapshot int64 `json:"snapshot"`
	// Files and Bytes count the live data files and their FileSize sum.
	Files int   `json:"files"`
	Bytes int64 `json:"bytes"`
	// PhysicalRows is the sum of the files' RowCount (before merging).
	PhysicalRows int64 `json:"physical_rows"`
	// Buckets counts the buckets that hold files.
	Buckets int `json:"buckets"`
	// SortedRuns sums, over buckets, the level-0 files plus the non-empty
	// levels above 0 (compaction.Levels.NumberOfSortedRuns);
	// MaxSortedRunsPerBucket is the most in one bucket.
	SortedRuns             int `json:"sorted_runs"`
	MaxSortedRunsPerBucket int `json:"max_sorted_runs_per_bucket"`
	// FilesPerLevel counts the files of each level ("0", "1", ...).
	FilesPerLevel map[string]int `json:"files_per_level"`
	// MaxFileBytes and MaxFileRows are the largest file's size and the most
	// rows in one file; MaxBucketBytes and MaxBucketRows the most bytes and
	// physical rows in one bucket.
	MaxFileBytes   int64 `json:"max_file_bytes"`
	MaxFileRows    int64 `json:"max_file_rows"`
	MaxBucketBytes int64 `json:"max_bucket_bytes"`
	MaxBucketRows  int64 `json:"max_bucket_rows"`
}

// layoutOf describes the files of plan.
func layoutOf(p *reader.Plan) layout {
	l := layout{FilesPerLevel: map[string]int{}}
	if p.Snapshot != nil {
		l.Snapshot = p.Snapshot.ID
	}
	for _, sp := range p.Splits {
		if len(sp.Files) == 0 {
			continue
		}
		l.Buckets++
		levels := map[int32]bool{}
		runs := 0
		var bucketRows, bucketBytes int64
		for _, f := range sp.Files {
			l.Files++
			l.Bytes += f.FileSize
			l.PhysicalRows += f.RowCount
			bucketRows += f.RowCount
			bucketBytes += f.FileSize
			l.FilesPerLevel[strconv.Itoa(int(f.Level))]++
			l.MaxFileBytes = max(l.MaxFileBytes, f.FileSize)
			l.MaxFileRows = max(l.MaxFileRows, f.RowCount)
			if f.Level == 0 {
				runs++
			} else if !levels[f.Level] {
				levels[f.Level] = true
				runs++
			}
		}
		l.SortedRuns += runs
		l.MaxSortedRunsPerBucket = max(l.MaxSortedRunsPerBucket, runs)
		l.MaxBucketRows = max(l.MaxBucketRows, bucketRows)
		l.MaxBucketBytes = max(l.MaxBucketBytes, bucketBytes)
	}
	return l
}

// readStats are timed full reads of a table.
type readStats struct {
	// Rows is the number of rows every read returned.
	Rows int64 `json:"rows"`
	// MS are the wall times of the reads (plan + read all batches), in
	// milliseconds; MedianMS their median.
	MS       []float64 `json:"ms"`
	MedianMS float64   `json:"median_ms"`
	// RowsPerS is Rows / median time.
	RowsPerS float64 `json:"rows_per_s"`
	// Layout describes the files read.
	Layout layout `json:"layout"`
}

// timeReads opens the table at url (paimon.OpenTable) and reads it
// completely n times (Table.NewScan, Plan, Records). Every read must return
// the same number of rows.
func timeReads(ctx context.Context, url string, n int) (*readStats, error) {
	t, err := paimon.OpenTable(ctx, url)
	if err != nil {
		return nil, err
	}
	defer t.Close()
	rs := &readStats{Rows: -1}
	for i := range n {
		t0 := time.Now()
		p, err := t.NewScan().Plan(ctx)
		if err != nil {
			return nil, fmt.Errorf("plan: %w", err)
		}
		var rows int64
		for rec, err := range p.Records(ctx) {
			if err != nil {
				return nil, fmt.Errorf("read: %w", err)
			}
			rows += rec.NumRows()
			rec.Release()
		}
		rs.MS = append(rs.MS, float64(time.Since(t0).Microseconds())/1000)
		if i == 0 {
			rs.Layout = layoutOf(p)
			rs.Rows = rows
		} else if rows != rs.Rows {
			return nil, fmt.Errorf("read %d returned %d rows, read 1 returned %d", i+1, rows, rs.Rows)
		}
	}
	rs.MedianMS = median(rs.MS)
	if rs.MedianMS > 0 {
		rs.RowsPerS = float64(rs.Rows) / (rs.MedianMS / 1000)
	}
	return rs, nil
}

// median returns the median of xs (the mean of the middle two for an even
// count); 0 for none.
func median(xs []float64) float64 {
	if len(xs) == 0 {
		return 0
	}
	s := slices.Clone(xs)
	slices.Sort(s)
	if len(s)%2 == 1 {
		return s[len(s)/2]
	}
	return (s[len(s)/2-1] + s[len(s)/2]) / 2
}

// storeFiles counts the files below the bucket-N directories of the table
// rooted at fio, and their bytes: every data file committed and not expired.
func storeFiles(ctx context.Context, fio *fileio.FileIO) (files int, bytes int64, err error) {
	top, err := fio.List(ctx, "")
	if err != nil {
		return 0, 0, fmt.Errorf("list table root: %w", err)
	}
	for _, d := range top {
		if !d.IsDir || !strings.HasPrefix(path.Base(d.Path), "bucket-") {
			continue
		}
		fis, err := fio.List(ctx, d.Path)
		if err != nil {
			return 0, 0, fmt.Errorf("list %s: %w", d.Path, err)
		}
		for _, fi := range fis {
			if fi.IsDir {
				continue
			}
			files++
			bytes += fi.Size
		}
	}
	return files, bytes, nil
}
