package manifest

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"math"

	"github.com/paimon-go/paimon/internal/ocf"
)

// ErrInvalidArgument reports writer input that Java would reject or that cannot be written
// (unknown compression, missing partition statistics for a partitioned manifest).
var ErrInvalidArgument = errors.New("manifest: invalid argument")

// WriteOptions configures the manifest writers. The zero value writes zstd level 1, Java's
// defaults for manifest.compression and file.compression.zstd-level.
type WriteOptions struct {
	// Compression is the table option manifest.compression: "zstd" (default when empty) maps to
	// the Avro codec "zstandard" at ZstdLevel; "null", "deflate", "snappy" and "zstandard" are
	// used as Avro codec names (Java's CodecFactory.fromString). bzip2 and xz are not supported.
	Compression string
	// ZstdLevel is file.compression.zstd-level; 0 means Java's default 1.
	ZstdLevel int
	// LatestSchemaID is the _SCHEMA_ID recorded for a manifest without entries (Java uses the
	// latest schema id of the table).
	LatestSchemaID int64
	// PartitionStats computes the manifest's _PARTITION_STATS from the serialized partition rows
	// of all its entries (ADD and DELETE), as Java's SimpleStatsCollector in "full" mode does
	// (format doc section 5). It may be nil only when every partition is the empty row
	// (unpartitioned table); then the stats are EMPTY_ROW min/max and no null counts.
	PartitionStats func(partitions [][]byte) (SimpleStats, error)
	// Format is the table option manifest.format: "" or FormatAvro (the
	// default) writes Avro object containers, FormatParquet Parquet files
	// and FormatORC ORC files with the same columns (Java ManifestFile with
	// a Parquet or ORC FileFormat; Paimon ≤ 2.0). Other values wrap
	// ErrUnsupportedFormat.
	Format string
}

// codec maps manifest.compression to an Avro codec name and level.
func (o *WriteOptions) codec() (string, int, error) {
	level := o.ZstdLevel
	if level == 0 {
		level = 1
	}
	switch o.Compression {
	case "", "zstd":
		return ocf.CodecZstandard, level, nil
	case ocf.CodecZstandard:
		return ocf.CodecZstandard, 3, nil // Avro's CodecFactory default level
	case ocf.CodecNull, ocf.CodecSnappy:
		return o.Compression, -1, nil
	case ocf.CodecDeflate:
		return ocf.CodecDeflate, -1, nil
	}
	return "", 0, fmt.Errorf("%w: manifest compression %q (%w)", ErrInvalidArgument, o.Compression, ErrUnsupportedFormat)
}

// emptyRow is the serialized BinaryRow of arity 0 (Java BinaryRow.EMPTY_ROW as written by
// SerializationUtils.serializeBinaryRow).
var emptyRow = [12]byte{}

// EmptyRow returns a new copy of the 12-byte serialized empty BinaryRow, the partition of an
// unpartitioned table and the min/max key of an append file.
func EmptyRow() []byte { return append([]byte(nil), emptyRow[:]...) }

// EmptyStats returns the statistics of zero columns (Java SimpleStats.EMPTY_STATS): EMPTY_ROW
// min/max and an empty null-count array.
func EmptyStats() SimpleStats {
	return SimpleStats{MinValues: EmptyRow(), MaxValues: EmptyRow(), NullCounts: []int64{}}
}

// EncodeManifest encodes entries as a manifest file (Avro object container) with the schema of
// Paimon 2.0, or of HEAD when some entry carries WriteColsSequences.
func EncodeManifest(entries []Entry, opts WriteOptions) ([]byte, error) {
	g := genCurrent()
	for i := range entries {
		if entries[i].File.WriteColsSequences != nil {
			g = genHead()
			break
		}
	}
	return encodeAvro(entryTable, entries, g, &opts)
}

// EncodeManifestList encodes manifest-list rows (Paimon 2.0 schema, identical to HEAD's).
func EncodeManifestList(metas []FileMeta, opts WriteOptions) ([]byte, error) {
	return encodeAvro(listTable, metas, genCurrent(), &opts)
}

// EncodeIndexManifest encodes index manifest rows (Paimon 2.0 schema, identical to HEAD's).
func EncodeIndexManifest(entries []IndexManifestEntry, opts WriteOptions) ([]byte, error) {
	return encodeAvro(indexTable, entries, genCurrent(), &opts)
}

func encodeAvro[T any](t *table[T], rows []T, g *gen, opts *WriteOptions) ([]byte, error) {
	switch opts.Format {
	case "", FormatAvro:
	case FormatParquet:
		plain := *opts
		plain.Format, plain.Compression = FormatAvro, ocf.CodecNull
		data, err := encodeAvro(t, rows, g, &plain)
		if err != nil {
			return nil, err
		}
		return encodeParquet(data, opts)
	case FormatORC:
		plain := *opts
		plain.Format, plain.Compression = FormatAvro, ocf.CodecNull
		data, err := encodeAvro(t, rows, g, &plain)
		if err != nil {
			return nil, err
		}
		return encodeORC(data, opts)
	default:
		return nil, fmt.Errorf("%w: manifest.format %q (%w)", ErrInvalidArgument, opts.Format, ErrUnsupportedFormat)
	}
	codec, level, err := opts.codec()
	if err != nil {
		return nil, err
	}
	w, err := ocf.NewWriter([]byte(schemaJSON(t.desc, g)), codec, level)
	if err != nil {
		return nil, err
	}
	for i := range rows {
		if g.wrapped {
			w.Block.NonNull()
		}
		t.encode(&w.Block, &rows[i], g)
		if err := w.EndRecord(); err != nil {
			return nil, err
		}
	}
	return w.Finish()
}

// WriteManifest writes entries to manifest/<name> (Java ManifestFile.write for one file) and
// returns the manifest-list row describing it: file size, added/deleted counts, partition
// statistics (from opts.PartitionStats), max schema id, bucket, level and row-id ranges, computed
// as Java's ManifestAvroWriter does.
func WriteManifest(ctx context.Context, fs FileWriter, name string, entries []Entry, opts WriteOptions) (FileMeta, error) {
	meta, err := SummarizeManifest(entries, opts)
	if err != nil {
		return FileMeta{}, fmt.Errorf("manifest: write %s: %w", name, err)
	}
	data, err := EncodeManifest(entries, opts)
	if err != nil {
		return FileMeta{}, fmt.Errorf("manifest: write %s: %w", name, err)
	}
	if err := fs.WriteFile(ctx, Path(name), data); err != nil {
		return FileMeta{}, fmt.Errorf("manifest: write %s: %w", name, err)
	}
	meta.FileName = name
	meta.FileSize = int64(len(data))
	return meta, nil
}

// SummarizeManifest computes the FileMeta of a manifest holding entries, except FileName and
// FileSize.
func SummarizeManifest(entries []Entry, opts WriteOptions) (FileMeta, error) {
	m := FileMeta{SchemaID: math.MinInt64}
	minBucket, maxBucket := int32(math.MaxInt32), int32(math.MinInt32)
	minLevel, maxLevel := int32(math.MaxInt32), int32(math.MinInt32)
	minRow, maxRow := int64(math.MaxInt64), int64(math.MinInt64)
	rowIDs := true
	partitions := make([][]byte, 0, len(entries))
	allEmpty := true
	for i := range entries {
		e := &entries[i]
		switch e.Kind {
		case Add:
			m.NumAddedFiles++
		case Delete:
			m.NumDeletedFiles++
		default:
			return FileMeta{}, fmt.Errorf("%w: entry %d has kind %d", ErrInvalidArgument, i, e.Kind)
		}
		m.SchemaID = max(m.SchemaID, e.File.SchemaID)
		minBucket, maxBucket = min(minBucket, e.Bucket), max(maxBucket, e.Bucket)
		minLevel, maxLevel = min(minLevel, e.File.Level), max(maxLevel, e.File.Level)
		if e.File.FirstRowID == nil {
			rowIDs = false
		} else if rowIDs {
			minRow = min(minRow, *e.File.FirstRowID)
			maxRow = max(maxRow, *e.File.FirstRowID+e.File.RowCount-1)
		}
		partitions = append(partitions, e.Partition)
		if !bytes.Equal(e.Partition, emptyRow[:]) {
			allEmpty = false
		}
	}
	if len(entries) == 0 {
		m.SchemaID = opts.LatestSchemaID
	}
	m.MinBucket, m.MaxBucket = &minBucket, &maxBucket
	m.MinLevel, m.MaxLevel = &minLevel, &maxLevel
	if rowIDs {
		m.MinRowID, m.MaxRowID = &minRow, &maxRow
	}
	switch {
	case opts.PartitionStats != nil:
		s, err := opts.PartitionStats(partitions)
		if err != nil {
			return FileMeta{}, fmt.Errorf("partition stats: %w", err)
		}
		m.PartitionStats = s
	case allEmpty:
		m.PartitionStats = EmptyStats()
	default:
		return FileMeta{}, fmt.Errorf("%w: partitioned entries need WriteOptions.PartitionStats", ErrInvalidArgument)
	}
	return m, nil
}

// WriteManifestList writes metas to manifest/<name> (Java ManifestList.write) and returns the
// file size in bytes (the snapshot's baseManifestListSize / deltaManifestListSize).
func WriteManifestList(ctx context.Context, fs FileWriter, name string, metas []FileMeta, opts WriteOptions) (int64, error) {
	data, err := EncodeManifestList(metas, opts)
	if err != nil {
		return 0, fmt.Errorf("manifest: write manifest list %s: %w", name, err)
	}
	if err := fs.WriteFile(ctx, Path(name), data); err != nil {
		return 0, fmt.Errorf("manifest: write manifest list %s: %w", name, err)
	}
	return int64(len(data)), nil
}

// WriteIndexManifest writes entries to manifest/<name> (Java IndexManifestFile.write): the
// complete list of live index files of the new snapshot. It returns the file size in bytes.
func WriteIndexManifest(ctx context.Context, fs FileWriter, name string, entries []IndexManifestEntry, opts WriteOptions) (int64, error) {
	data, err := EncodeIndexManifest(entries, opts)
	if err != nil {
		return 0, fmt.Errorf("manifest: write index manifest %s: %w", name, err)
	}
	if err := fs.WriteFile(ctx, Path(name), data); err != nil {
		return 0, fmt.Errorf("manifest: write index manifest %s: %w", name, err)
	}
	return int64(len(data)), nil
}
