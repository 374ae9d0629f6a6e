package main

import (
	"context"
	"fmt"
	"strconv"
	"strings"
	"time"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"
	"github.com/apache/arrow-go/v18/parquet"
	"github.com/apache/arrow-go/v18/parquet/compress"
	"github.com/apache/arrow-go/v18/parquet/pqarrow"

	"github.com/paimon-go/paimon/realtime"
	"github.com/paimon-go/paimon/schema"
)

// encodeResult is the raw arrow-go encode of a run's batches (issue 16,
// goal 2): rows encoded in files files of bytes bytes, taking d.
type encodeResult struct {
	rows, bytes int64
	files       int
	d           time.Duration
	codec       string // compression codec and level, e.g. "zstd level 1"
}

// rate returns the rows encoded per second; 0 when nothing was encoded.
func (e encodeResult) rate() float64 {
	if e.rows == 0 || e.d <= 0 {
		return 0
	}
	return float64(e.rows) / e.d.Seconds()
}

// measureEncode encodes the batches of each commit (commitEvent.first to
// end) with arrow-go's pqarrow as one Parquet file per commit, written to a
// writer that counts and drops the bytes, with the table's compression
// (parquet.compression or file.compression, and the zstd level, as
// format/parquet reads them) and arrow-go's defaults otherwise (dictionary
// encoding, 1 MiB pages, statistics; one row group per file, as
// WriteBuffered leaves it). This is the rate the data-file phase is
// compared with: the same batches, without partitioning, bucketing,
// sorting, merging, Paimon's file layout or the store. A real-time
// offsets column is left out, as it never reaches data files. Tables not
// in Parquet are not measured (zero result).
func measureEncode(ctx context.Context, opts schema.Options, batches []arrow.RecordBatch, commits []commitEvent) (encodeResult, error) {
	if opts.FileFormat() != "parquet" {
		return encodeResult{}, nil
	}
	codec, level, name, err := tableCompression(opts)
	if err != nil {
		return encodeResult{}, fmt.Errorf("rtbench: encode baseline: %w", err)
	}
	props := parquet.NewWriterProperties(parquet.WithCompression(codec), parquet.WithCompressionLevel(level))
	res := encodeResult{codec: name}
	for _, c := range commits {
		if c.end <= c.first {
			continue
		}
		if err := ctx.Err(); err != nil {
			return res, err
		}
		recs := make([]arrow.RecordBatch, 0, c.end-c.first)
		for _, b := range batches[c.first:c.end] {
			recs = append(recs, withoutOffsets(b))
		}
		t0 := time.Now()
		n, err := encodeFile(recs, props)
		res.d += time.Since(t0)
		for _, r := range recs {
			res.rows += r.NumRows()
			r.Release()
		}
		if err != nil {
			return res, fmt.Errorf("rtbench: encode baseline: %w", err)
		}
		res.bytes += n
		res.files++
	}
	return res, nil
}

// encodeFile writes recs (of one schema) as one Parquet file with props
// and returns its size.
func encodeFile(recs []arrow.RecordBatch, props *parquet.WriterProperties) (int64, error) {
	var w countWriter
	fw, err := pqarrow.NewFileWriter(recs[0].Schema(), &w, props, pqarrow.DefaultWriterProps())
	if err != nil {
		return 0, err
	}
	for _, r := range recs {
		if err := fw.WriteBuffered(r); err != nil {
			_ = fw.Close()
			return 0, err
		}
	}
	if err := fw.Close(); err != nil {
		return 0, err
	}
	return int64(w), nil
}

// countWriter counts the bytes written to it and drops them.
type countWriter int64

func (w *countWriter) Write(p []byte) (int, error) {
	*w += countWriter(len(p))
	return len(p), nil
}

// withoutOffsets returns rec without a first realtime.OffsetColumn
// (--app-offsets), retained either way.
func withoutOffsets(rec arrow.RecordBatch) arrow.RecordBatch {
	if rec.NumCols() == 0 || rec.Schema().Field(0).Name != realtime.OffsetColumn {
		rec.Retain()
		return rec
	}
	fields := rec.Schema().Fields()[1:]
	return array.NewRecordBatch(arrow.NewSchema(fields, nil), rec.Columns()[1:], rec.NumRows())
}

// tableCompression returns the Parquet codec and level the table's data
// files are written with, as format/parquet reads the options:
// parquet.compression over file.compression (default zstd), and
// parquet.compression.codec.zstd.level over file.compression.zstd-level
// (default 1), the level passed whatever the codec.
func tableCompression(opts schema.Options) (compress.Compression, int, string, error) {
	name := opts.FileCompression()
	if v, ok := opts["parquet.compression"]; ok {
		name = v
	}
	var codec compress.Compression
	switch strings.ToLower(strings.TrimSpace(name)) {
	case "zstd":
		codec = compress.Codecs.Zstd
	case "snappy":
		codec = compress.Codecs.Snappy
	case "gzip":
		codec = compress.Codecs.Gzip
	case "brotli":
		codec = compress.Codecs.Brotli
	case "lz4", "lz4_raw":
		codec = compress.Codecs.Lz4Raw // as format/parquet writes lz4
	case "none", "uncompressed":
		codec = compress.Codecs.Uncompressed
	default:
		return codec, 0, "", fmt.Errorf("unknown compression %q", name)
	}
	level, err := opts.FileCompressionZstdLevel()
	if v, ok := opts["parquet.compression.codec.zstd.level"]; ok {
		level, err = strconv.Atoi(strings.TrimSpace(v))
	}
	if err != nil {
		return codec, 0, "", fmt.Errorf("compression level: %w", err)
	}
	return codec, level, fmt.Sprintf("%s level %d", strings.ToLower(strings.TrimSpace(name)), level), nil
}
