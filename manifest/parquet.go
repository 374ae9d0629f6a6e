package manifest

import (
	"bytes"
	"context"
	"errors"
	"fmt"

	"github.com/apache/arrow-go/v18/arrow/memory"
	"github.com/apache/arrow-go/v18/parquet"
	"github.com/apache/arrow-go/v18/parquet/file"
	"github.com/apache/arrow-go/v18/parquet/pqarrow"

	"github.com/paimon-go/paimon/format"
)

// decodeParquet decodes a manifest stored as Parquet (tables with
// manifest.format=parquet, Paimon ≤ 2.0; Java ManifestFile over its Parquet
// FileFormat): pqarrow reads the rows as Arrow records, derived from the
// Parquet schema alone, and fromArrow converts them, matching columns by the
// Avro field names as for ORC. Pages are bounded by the file's decoding
// budget; a panic inside arrow-go's decoder becomes an error wrapping
// ErrCorrupt.
func decodeParquet[T any](data []byte, fromArrow arrowConverter[T]) (out []T, err error) {
	defer func() {
		if p := recover(); p != nil {
			out, err = nil, fmt.Errorf("%w: Parquet: decoder failure: %v", ErrCorrupt, p)
		}
	}()
	mem := memory.DefaultAllocator
	props := parquet.NewReaderProperties(mem)
	pf, err := file.NewParquetReader(bytes.NewReader(data), file.WithReadProps(props))
	if err != nil {
		return nil, fmt.Errorf("%w: Parquet: footer: %v", ErrCorrupt, err)
	}
	defer pf.Close()
	budget := DecodeBudget(len(data))
	props.MaxUncompressedPageSize = min(parquet.DefaultMaxUncompressedPageSize,
		max(1<<20, format.DecodeBudget(int64(len(data)))/int64(max(pf.MetaData().Schema.NumColumns(), 1))))
	size := recordCost[T]()
	rows := pf.NumRows()
	if rows < 0 || rows > budget/size {
		return nil, fmt.Errorf("%w: Parquet: %d rows, at most %d", ErrTooLarge, rows, budget/size)
	}
	fr, err := pqarrow.NewFileReader(pf, pqarrow.ArrowReadProperties{BatchSize: 4096}, mem)
	if err != nil {
		return nil, fmt.Errorf("%w: Parquet: schema: %v", ErrCorrupt, err)
	}
	if fr.Manifest, err = pqarrow.NewSchemaManifest(pf.MetaData().Schema, nil, &pqarrow.ArrowReadProperties{}); err != nil {
		return nil, fmt.Errorf("%w: Parquet: schema: %v", ErrCorrupt, err)
	}
	rr, err := fr.GetRecordReader(context.Background(), nil, nil)
	if err != nil {
		return nil, parquetErr(err)
	}
	defer rr.Release()
	out = make([]T, 0, min(rows, maxPrealloc))
	for rr.Next() {
		rec := rr.RecordBatch()
		if int64(len(out))+rec.NumRows() > rows {
			return nil, fmt.Errorf("%w: Parquet: more rows than the footer's %d", ErrCorrupt, rows)
		}
		conv, err := fromArrow(rec)
		if err != nil {
			return nil, err
		}
		out = append(out, conv...)
	}
	if err := rr.Err(); err != nil {
		return nil, parquetErr(err)
	}
	if int64(len(out)) != rows {
		return nil, fmt.Errorf("%w: Parquet: %d rows read, footer says %d", ErrCorrupt, len(out), rows)
	}
	return out, nil
}

func parquetErr(err error) error {
	if errors.Is(err, format.ErrTooLarge) {
		return fmt.Errorf("%w: Parquet: %w", ErrTooLarge, err)
	}
	return fmt.Errorf("%w: Parquet: %v", ErrCorrupt, err)
}
