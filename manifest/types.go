// Package manifest reads and writes Paimon's manifest lists, manifest files and index manifests
// (the Avro files under <table>/manifest/) and nets manifest entries into the live file set.
//
// Types mirror the Java classes of apache/paimon (paimon-core, org.apache.paimon.manifest and
// org.apache.paimon.io): [FileMeta] is ManifestFileMeta, [Entry] is ManifestEntry, [DataFileMeta]
// is DataFileMeta, [IndexManifestEntry]/[IndexFileMeta] are their index counterparts. Binary rows
// (partitions, keys, statistics rows) are kept in the serialized form stored in the files: a
// 4-byte big-endian arity followed by the BinaryRow bytes (format doc section 7.4).
//
// Reading accepts every schema generation Java has written (0.8/0.9 union-wrapped records, the
// 1.x/2.0 plain records, HEAD's additional fields): fields are matched by name against the
// writer schema embedded in each file, as Java's AvroRowDatumReader does; unknown fields are
// skipped and fields absent from the file stay null. Writing emits the schema of Paimon 2.0
// exactly (see [WriteManifest]).
//
// [ReadManifest] and its siblings decode a file per call; a [Reader] shares the decoders compiled
// per writer schema between the files of one table; a [Cache] also keeps decoded files in a
// size-bounded LRU for planners that read the same manifests again and again.
//
// # Errors
//
// Malformed or truncated files yield errors wrapping [ErrCorrupt]; files in a format other than
// Avro (ORC, Parquet manifests) wrap [ErrUnsupportedFormat]; a "_VERSION" other than the one
// Java accepts wraps [ErrUnsupportedVersion]; a file that would decompress or decode beyond
// [DecodeBudget] wraps [ErrTooLarge]. Errors name the file. I/O errors of the file system are
// wrapped unchanged. Nothing panics on bad input.
package manifest

import (
	"errors"
	"strconv"
)

// Sentinel errors; test with errors.Is.
var (
	// ErrCorrupt reports a manifest file that cannot be decoded: truncated, bad container, bad
	// values, or a writer schema that lacks a required field or has an incompatible type.
	ErrCorrupt = errors.New("manifest: corrupt file")
	// ErrUnsupportedFormat reports a manifest stored in a format or with a codec this package
	// cannot decode (ORC until format/orc is wired in, Parquet, Avro bzip2/xz).
	ErrUnsupportedFormat = errors.New("manifest: unsupported file format")
	// ErrUnsupportedVersion reports a row whose "_VERSION" format identifier is not the one Java
	// accepts (2 for manifest entries and manifest-list rows, 1 for index manifest rows).
	ErrUnsupportedVersion = errors.New("manifest: unsupported format version")
	// ErrMerge reports an inconsistent entry sequence while netting entries: a file added twice,
	// or a file deleted that was never added (Java's FileEntry.mergeEntries and
	// ConflictDetection "not previously added" checks).
	ErrMerge = errors.New("manifest: inconsistent entries")
)

// FileKind is the kind of a manifest entry (Java FileKind): ADD or DELETE, stored as TINYINT
// "_KIND" (0 or 1).
type FileKind int8

// File kinds.
const (
	Add    FileKind = 0
	Delete FileKind = 1
)

// String returns "ADD" or "DELETE".
func (k FileKind) String() string {
	switch k {
	case Add:
		return "ADD"
	case Delete:
		return "DELETE"
	}
	return "FileKind(" + strconv.Itoa(int(k)) + ")"
}

// FileSource tells whether a data file was produced by a writer or by compaction (Java
// FileSource), stored as nullable TINYINT "_FILE_SOURCE" (0.9+).
type FileSource int8

// File sources.
const (
	SourceAppend  FileSource = 0
	SourceCompact FileSource = 1
)

// SimpleStats holds min/max/null-count statistics of a set of columns (Java SimpleStats, Avro
// record with _MIN_VALUES, _MAX_VALUES, _NULL_COUNTS).
type SimpleStats struct {
	// MinValues is the serialized BinaryRow of per-column minima (4-byte BE arity + row bytes).
	MinValues []byte
	// MaxValues is the serialized BinaryRow of per-column maxima.
	MaxValues []byte
	// NullCounts holds one null count per column. A nil slice means the whole array is null;
	// an element of -1 means that column's null count is null (unknown) — Java stores it as a
	// nullable BIGINT element, and a real null count is never negative.
	NullCounts []int64
}

// DataFileMeta describes one data file (Java DataFileMeta, Avro record "_FILE"). Nullable fields
// are pointers or nil slices; "since" names the Paimon release that added a field.
type DataFileMeta struct {
	FileName string // _FILE_NAME: name only, no directory
	FileSize int64  // _FILE_SIZE: bytes
	RowCount int64  // _ROW_COUNT: physical rows including retract rows
	// MinKey, MaxKey: serialized BinaryRow of the first/last record's trimmed primary key
	// (EMPTY_ROW, 12 bytes, for append tables).
	MinKey, MaxKey    []byte
	KeyStats          SimpleStats // _KEY_STATS
	ValueStats        SimpleStats // _VALUE_STATS
	MinSequenceNumber int64       // _MIN_SEQUENCE_NUMBER
	MaxSequenceNumber int64       // _MAX_SEQUENCE_NUMBER
	SchemaID          int64       // _SCHEMA_ID: schema the file was written with
	Level             int32       // _LEVEL: LSM level
	ExtraFiles        []string    // _EXTRA_FILES: sidecar file names (never null; may be empty)
	// CreationTime (_CREATION_TIME, TIMESTAMP(3)) is epoch milliseconds of the writer's local
	// wall-clock time encoded as if it were UTC (format doc 6.2); nil when null.
	CreationTime   *int64
	DeleteRowCount *int64      // _DELETE_ROW_COUNT (0.8+)
	EmbeddedIndex  []byte      // _EMBEDDED_FILE_INDEX (0.8+); nil when null
	FileSource     *FileSource // _FILE_SOURCE (0.9+)
	// ValueStatsCols (_VALUE_STATS_COLS, 1.0+): nil = value stats cover all columns of SchemaID;
	// otherwise the names of the columns present in ValueStats ([] = none).
	ValueStatsCols []string
	ExternalPath   *string  // _EXTERNAL_PATH (1.0+): full URI when the file lives outside the table
	FirstRowID     *int64   // _FIRST_ROW_ID (1.3+): row tracking
	WriteCols      []string // _WRITE_COLS (1.3+): columns physically written; nil = all
	// WriteColsSequences (_WRITE_COLS_SEQUENCES, unreleased HEAD after 2.0): per written column
	// max sequence numbers; nil when null. Writing a non-nil value switches the writer to the
	// HEAD schema.
	WriteColsSequences []int64
}

// Entry is one manifest entry (Java ManifestEntry): a file added to or deleted from a
// partition-bucket.
type Entry struct {
	Kind FileKind // _KIND
	// Partition is the serialized partition BinaryRow (12-byte EMPTY_ROW when unpartitioned).
	Partition []byte
	Bucket    int32 // _BUCKET (0 for unaware append tables, -2 for postpone)
	// TotalBuckets (_TOTAL_BUCKETS) is the bucket option when written: N, -1 for dynamic-bucket
	// and unaware tables, -2 for postpone.
	TotalBuckets int32
	File         DataFileMeta // _FILE
}

// FileMeta is one row of a manifest list (Java ManifestFileMeta): a manifest file and its
// summary statistics.
type FileMeta struct {
	FileName        string // _FILE_NAME: name in manifest/
	FileSize        int64  // _FILE_SIZE: bytes
	NumAddedFiles   int64  // _NUM_ADDED_FILES
	NumDeletedFiles int64  // _NUM_DELETED_FILES
	// PartitionStats (_PARTITION_STATS) covers the partition rows of all entries.
	PartitionStats SimpleStats
	SchemaID       int64 // _SCHEMA_ID: max schema id of the entries
	// Bucket and level ranges (1.1+) and row-id range (1.4+); nil when null.
	MinBucket, MaxBucket *int32
	MinLevel, MaxLevel   *int32
	MinRowID, MaxRowID   *int64
}

// DeletionVectorMeta locates the deletion vector of one data file inside a deletion-vector index
// file (Java DeletionVectorMeta, Avro record with f0, f1, f2, _CARDINALITY).
type DeletionVectorMeta struct {
	DataFileName string // f0
	// Offset (f1) is the byte position of the blob's 4-byte size prefix in the index file.
	Offset int32
	// Length (f2): for 32-bit bitmaps the blob size without the size prefix and checksum; for
	// 64-bit bitmaps the size including both (format doc 9.2).
	Length      int32
	Cardinality *int64 // _CARDINALITY (1.0+): number of deleted rows; nil when null
}

// GlobalIndexMeta describes a global (row-id based) index file (Java GlobalIndexMeta, 1.4+).
type GlobalIndexMeta struct {
	RowRangeStart int64   // _ROW_RANGE_START
	RowRangeEnd   int64   // _ROW_RANGE_END
	IndexFieldID  int32   // _INDEX_FIELD_ID
	ExtraFieldIDs []int32 // _EXTRA_FIELD_IDS; nil when null
	IndexMeta     []byte  // _INDEX_META; nil when null
	SourceMeta    []byte  // _SOURCE_META (2.0+); nil when null
}

// IndexFileMeta describes one index file under <table>/index/ (Java IndexFileMeta).
type IndexFileMeta struct {
	IndexType string // _INDEX_TYPE: "DELETION_VECTORS", "HASH" or a global index type
	FileName  string // _FILE_NAME
	FileSize  int64  // _FILE_SIZE: bytes
	// RowCount (_ROW_COUNT): number of deletion vectors (DV files) or hashes (HASH files).
	RowCount int64
	// DVRanges (_DELETIONS_VECTORS_RANGES) lists, in file order, where each data file's deletion
	// vector lives; nil for non-DV indexes. See [IndexFileMeta.DVRangeMap].
	DVRanges     []DeletionVectorMeta
	ExternalPath *string          // _EXTERNAL_PATH (1.3+)
	GlobalIndex  *GlobalIndexMeta // _GLOBAL_INDEX (1.4+)
}

// DVRangeMap returns DVRanges keyed by data file name (Java's IndexFileMeta.dvRanges map).
func (m *IndexFileMeta) DVRangeMap() map[string]DeletionVectorMeta {
	if m.DVRanges == nil {
		return nil
	}
	out := make(map[string]DeletionVectorMeta, len(m.DVRanges))
	for _, r := range m.DVRanges {
		out[r.DataFileName] = r
	}
	return out
}

// IndexManifestEntry is one row of an index manifest (Java IndexManifestEntry).
type IndexManifestEntry struct {
	Kind      FileKind // _KIND (files on disk only contain ADD)
	Partition []byte   // _PARTITION: serialized partition BinaryRow
	Bucket    int32    // _BUCKET
	IndexFile IndexFileMeta
}

// Index types used by Paimon.
const (
	IndexTypeDeletionVectors = "DELETION_VECTORS"
	IndexTypeHash            = "HASH"
)
