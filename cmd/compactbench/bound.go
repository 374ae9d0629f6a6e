package main

import (
	"github.com/paimon-go/paimon/catalog"
)

// Sizes the bound takes from the code (unexported there):
const (
	// level0RowGroupBytes is writer.levelZeroRowGroupBytes: the Parquet row
	// group of level-0 files unless parquet.block.size is set.
	level0RowGroupBytes = 32 << 20
	// outputRowGroupBytes is compaction.defaultRowGroupBytes: the row group
	// of compaction outputs unless parquet.block.size is set, which the
	// Parquet writer holds open in memory.
	outputRowGroupBytes = 32 << 20
)

// bound is the memory a full compaction may hold according to package
// compaction (compaction/doc.go, section Memory), with the numbers of this
// table: P · (R · G + W), where
//
//   - P: Plan.Execute (compact.go) rewrites at most Options.Parallelism
//     buckets at once, and never more than the buckets that have files;
//   - R: a bucket's rewrite (rewrite.go bucketJob.rewrite) merges, per
//     section of IntervalPartition, all the section's sorted runs at once,
//     each run reading one file at a time; at most the bucket's sorted runs;
//   - G: a run's reader holds the current row group (format/parquet Reader
//     over arrow-go, which reads a column chunk whole), at most the row
//     group size of level-0 files, 32 MiB (writer) unless parquet.block.size
//     is set;
//   - W: the rolling writer of the output holds one open row group of
//     32 MiB (compaction) unless parquet.block.size is set.
//
// The formula counts data only: a merge batch per run and the fixed costs of
// each open Parquet reader and writer (decode buffers, compression state,
// dictionary hash tables) are not in it; with small files they are what the
// measured peak is made of (see the profile of --memprofile).
type bound struct {
	// Parallelism is P; BucketsWithFiles the buckets that have files.
	Parallelism      int `json:"parallelism"`
	BucketsWithFiles int `json:"buckets_with_files"`
	// MaxSortedRuns is R.
	MaxSortedRuns int `json:"max_sorted_runs"`
	// RowGroupBytes is G, OutputRowGroupBytes W.
	RowGroupBytes       int64 `json:"row_group_bytes"`
	OutputRowGroupBytes int64 `json:"output_row_group_bytes"`
	// NominalBytes = P · (R · G + W).
	NominalBytes int64 `json:"nominal_bytes"`
	// MaxFileBytes is the largest input file: every row group read is at
	// most this large compressed, far below G for these small files.
	MaxFileBytes int64 `json:"max_file_bytes"`
	// MaxBucketBytes is the most input bytes of one bucket.
	MaxBucketBytes int64 `json:"max_bucket_bytes"`
}

// boundOf computes the bound for the table tbl whose files l describes,
// compacted with Options.Parallelism parallelism.
func boundOf(tbl *catalog.Table, l layout, parallelism int) (*bound, error) {
	o := tbl.Schema.Options
	rg, err := o.MemorySize("parquet.block.size", level0RowGroupBytes)
	if err != nil {
		return nil, err
	}
	out, err := o.MemorySize("parquet.block.size", outputRowGroupBytes)
	if err != nil {
		return nil, err
	}
	b := &bound{
		Parallelism:         min(parallelism, max(l.Buckets, 1)),
		BucketsWithFiles:    l.Buckets,
		MaxSortedRuns:       l.MaxSortedRunsPerBucket,
		RowGroupBytes:       rg,
		OutputRowGroupBytes: out,
		MaxFileBytes:        l.MaxFileBytes,
		MaxBucketBytes:      l.MaxBucketBytes,
	}
	b.NominalBytes = int64(b.Parallelism) * (int64(b.MaxSortedRuns)*rg + out)
	return b, nil
}
