package main

import (
	"github.com/paimon-go/paimon/catalog"
)

// Sizes the bound takes from the code (unexported there) and from package
// compaction's documentation (compaction/doc.go, section Memory):
const (
	// level0RowGroupBytes is writer.levelZeroRowGroupBytes: the Parquet row
	// group of level-0 files unless parquet.block.size is set.
	level0RowGroupBytes = 32 << 20
	// outputRowGroupBytes is compaction.defaultRowGroupBytes: the row group
	// of compaction outputs unless parquet.block.size is set, which the
	// Parquet writer holds open in memory.
	outputRowGroupBytes = 32 << 20
	// pageBytes is parquet.page.size (1 MiB) unless set.
	pageBytes = 1 << 20
	// batchRows is the rows of a run's decoded batch:
	// max(read.batch-size, 4096) with the default read.batch-size 1024.
	batchRows = 4096
	// dictBytesPerColumn is the largest dictionary hash table of one
	// dictionary-encoded output column (8-byte values: 524,288 slots of 24
	// bytes before the column falls back to plain at
	// parquet.dictionary.page.size). The bound counts every column at this
	// size, an overestimate for strings and narrow types.
	dictBytesPerColumn = 12 << 20
	// heldRows are the first rows of an output file held for parquet-mr's
	// first-page dictionary decision.
	heldRows = 20000
	// zstdBytes is the zstd encoder a writer takes from arrow-go's pool
	// (8 MiB history plus tables at level 1).
	zstdBytes = 19 << 19 // 9.5 MiB
	// systemColumns are _SEQUENCE_NUMBER and _VALUE_KIND of the KeyValue
	// layout.
	systemColumns = 2
)

// bound is the memory a full compaction may hold according to package
// compaction (compaction/doc.go, section Memory), with the numbers of this
// table:
//
//	P · (R · (G + C·p + B) + W + C·p + D + H + Z)
//
// where
//
//   - P: Plan.Execute rewrites at most Options.Parallelism buckets at once,
//     and never more than the buckets that have files;
//   - R: a bucket's rewrite merges a section's sorted runs at once, each
//     run reading one file at a time: at most the bucket's sorted runs;
//   - G: a run's reader holds the current row group, compressed: at most
//     the row group size of level-0 files (32 MiB unless
//     parquet.block.size is set);
//   - C·p: the current page of each of the C columns of the KeyValue
//     layout (primary key copies, _SEQUENCE_NUMBER, _VALUE_KIND, the value
//     columns), p = 1 MiB, once per reader and once for the writer;
//   - B: a run's decoded batch, batchRows rows of RowBytes (the Arrow bytes
//     per input row);
//   - W: the output's open row group (32 MiB unless parquet.block.size);
//   - D: dictionaries of the output columns, dictBytesPerColumn each;
//   - H: heldRows rows of RowBytes held for the dictionary decision;
//   - Z: the writer's zstd encoder.
//
// DataBytes is the part that holds data, P · (R · G + W): what grows with
// row-group sizes; the rest are the fixed costs of open readers and
// writers, which make the measured peak of small files.
type bound struct {
	// Parallelism is P; BucketsWithFiles the buckets that have files.
	Parallelism      int `json:"parallelism"`
	BucketsWithFiles int `json:"buckets_with_files"`
	// MaxSortedRuns is R.
	MaxSortedRuns int `json:"max_sorted_runs"`
	// RowGroupBytes is G, OutputRowGroupBytes W.
	RowGroupBytes       int64 `json:"row_group_bytes"`
	OutputRowGroupBytes int64 `json:"output_row_group_bytes"`
	// Columns is C, PageBytes p.
	Columns   int   `json:"columns"`
	PageBytes int64 `json:"page_bytes"`
	// RowBytes is the Arrow width of a row; BatchBytes B, HeldBytes H.
	RowBytes   int64 `json:"row_bytes"`
	BatchBytes int64 `json:"batch_bytes"`
	HeldBytes  int64 `json:"held_bytes"`
	// DictBytes is D, ZstdBytes Z.
	DictBytes int64 `json:"dict_bytes"`
	ZstdBytes int64 `json:"zstd_bytes"`
	// DataBytes = P · (R · G + W); Bytes is the whole formula.
	DataBytes int64 `json:"data_bytes"`
	Bytes     int64 `json:"bytes"`
	// MaxFileBytes is the largest input file: every row group read is at
	// most this large compressed, far below G for these small files.
	MaxFileBytes int64 `json:"max_file_bytes"`
	// MaxBucketBytes is the most input bytes of one bucket.
	MaxBucketBytes int64 `json:"max_bucket_bytes"`
}

// boundOf computes the bound for the table tbl whose files l describes,
// compacted with Options.Parallelism parallelism, for rows of rowBytes
// Arrow bytes.
func boundOf(tbl *catalog.Table, l layout, parallelism int, rowBytes int64) (*bound, error) {
	o := tbl.Schema.Options
	rg, err := o.MemorySize("parquet.block.size", level0RowGroupBytes)
	if err != nil {
		return nil, err
	}
	out, err := o.MemorySize("parquet.block.size", outputRowGroupBytes)
	if err != nil {
		return nil, err
	}
	page, err := o.MemorySize("parquet.page.size", pageBytes)
	if err != nil {
		return nil, err
	}
	cols := len(tbl.Schema.PrimaryKeys) + systemColumns + len(tbl.Schema.Fields)
	b := &bound{
		Parallelism:         min(parallelism, max(l.Buckets, 1)),
		BucketsWithFiles:    l.Buckets,
		MaxSortedRuns:       l.MaxSortedRunsPerBucket,
		RowGroupBytes:       rg,
		OutputRowGroupBytes: out,
		Columns:             cols,
		PageBytes:           page,
		RowBytes:            rowBytes,
		BatchBytes:          batchRows * rowBytes,
		HeldBytes:           heldRows * rowBytes,
		DictBytes:           int64(cols) * dictBytesPerColumn,
		ZstdBytes:           zstdBytes,
		MaxFileBytes:        l.MaxFileBytes,
		MaxBucketBytes:      l.MaxBucketBytes,
	}
	p, r, c := int64(b.Parallelism), int64(b.MaxSortedRuns), int64(cols)
	b.DataBytes = p * (r*rg + out)
	b.Bytes = p * (r*(rg+c*page+b.BatchBytes) + out + c*page + b.DictBytes + b.HeldBytes + b.ZstdBytes)
	return b, nil
}
