package schema

import (
	"errors"
	"fmt"
	"math"
	"strconv"
	"strings"
	"time"
)

// ErrInvalidOption is returned (wrapped) by Options getters when a table
// option is present but malformed; the message names the key and value.
var ErrInvalidOption = errors.New("schema: invalid table option")

// Options are a table's options (schema "options"), keyed by Java Paimon's
// option keys. Only explicitly set options are stored; the getters apply
// the defaults of upstream
// apache/paimon: paimon-api/src/main/java/org/apache/paimon/CoreOptions.java
// (HEAD 5dacde51, 2.1-SNAPSHOT, unless a getter says otherwise).
//
// Getters that parse return an error wrapping ErrInvalidOption naming the
// key when the stored value is malformed. Parsing follows Java's
// OptionsUtils: integers with Integer/Long.parseInt (no surrounding spaces),
// booleans "true"/"false" case-insensitively, enums case-insensitively by
// their value, memory sizes with ParseMemorySize, durations with
// ParseDuration.
type Options map[string]string

// Option keys (CoreOptions constant names in brackets).
const (
	KeyBucket                          = "bucket"                                    // BUCKET
	KeyBucketKey                       = "bucket-key"                                // BUCKET_KEY
	KeyBucketFunctionType              = "bucket-function.type"                      // BUCKET_FUNCTION_TYPE
	KeyFileFormat                      = "file.format"                               // FILE_FORMAT
	KeyManifestFormat                  = "manifest.format"                           // MANIFEST_FORMAT (<= 2.0)
	KeyDataFilePathDirectory           = "data-file.path-directory"                  // DATA_FILE_PATH_DIRECTORY
	KeyDataFileExternalPaths           = "data-file.external-paths"                  // DATA_FILE_EXTERNAL_PATHS
	KeyDataFileExternalPathsStrategy   = "data-file.external-paths.strategy"         // DATA_FILE_EXTERNAL_PATHS_STRATEGY
	KeyDataFileExternalPathsSpecificFS = "data-file.external-paths.specific-fs"      // DATA_FILE_EXTERNAL_PATHS_SPECIFIC_FS
	KeyManifestCompression             = "manifest.compression"                      // MANIFEST_COMPRESSION
	KeyFileCompression                 = "file.compression"                          // FILE_COMPRESSION
	KeyFileCompressionZstdLevel        = "file.compression.zstd-level"               // FILE_COMPRESSION_ZSTD_LEVEL
	KeyTargetFileSize                  = "target-file-size"                          // TARGET_FILE_SIZE
	KeyWriteBufferSize                 = "write-buffer-size"                         // WRITE_BUFFER_SIZE
	KeyLookupCacheMaxMemorySize        = "lookup.cache-max-memory-size"              // LOOKUP_CACHE_MAX_MEMORY_SIZE
	KeyPageSize                        = "page-size"                                 // PAGE_SIZE
	KeyMergeEngine                     = "merge-engine"                              // MERGE_ENGINE
	KeySequenceField                   = "sequence.field"                            // SEQUENCE_FIELD
	KeySequenceFieldSortOrder          = "sequence.field.sort-order"                 // SEQUENCE_FIELD_SORT_ORDER
	KeyIgnoreDelete                    = "ignore-delete"                             // IGNORE_DELETE
	KeyDeletionVectorsEnabled          = "deletion-vectors.enabled"                  // DELETION_VECTORS_ENABLED
	KeyDeletionVectorsBitmap64         = "deletion-vectors.bitmap64"                 // DELETION_VECTOR_BITMAP64
	KeyChangelogProducer               = "changelog-producer"                        // CHANGELOG_PRODUCER
	KeyPartitionDefaultName            = "partition.default-name"                    // PARTITION_DEFAULT_NAME
	KeyPartitionLegacyName             = "partition.legacy-name"                     // PARTITION_GENERATE_LEGACY_NAME
	KeyNumSortedRunCompactionTrigger   = "num-sorted-run.compaction-trigger"         // NUM_SORTED_RUNS_COMPACTION_TRIGGER
	KeyNumSortedRunStopTrigger         = "num-sorted-run.stop-trigger"               // NUM_SORTED_RUNS_STOP_TRIGGER
	KeyNumLevels                       = "num-levels"                                // NUM_LEVELS
	KeyCompactionMaxSizeAmplification  = "compaction.max-size-amplification-percent" // COMPACTION_MAX_SIZE_AMPLIFICATION_PERCENT
	KeyCompactionSizeRatio             = "compaction.size-ratio"                     // COMPACTION_SIZE_RATIO
	KeyCompactionForceUpLevel0         = "compaction.force-up-level-0"               // COMPACTION_FORCE_UP_LEVEL_0
	KeyCompactionSmallFileRatio        = "compaction.small-file-ratio"               // COMPACTION_SMALL_FILE_RATIO
	KeyFullCompactionDeltaCommits      = "full-compaction.delta-commits"             // FULL_COMPACTION_DELTA_COMMITS
	KeySnapshotNumRetainedMin          = "snapshot.num-retained.min"                 // SNAPSHOT_NUM_RETAINED_MIN
	KeySnapshotNumRetainedMax          = "snapshot.num-retained.max"                 // SNAPSHOT_NUM_RETAINED_MAX
	KeySnapshotTimeRetained            = "snapshot.time-retained"                    // SNAPSHOT_TIME_RETAINED
	KeySnapshotExpireLimit             = "snapshot.expire.limit"                     // SNAPSHOT_EXPIRE_LIMIT
	KeySnapshotExpireExecutionMode     = "snapshot.expire.execution-mode"            // SNAPSHOT_EXPIRE_EXECUTION_MODE
	KeyPartitionExpirationTime         = "partition.expiration-time"                 // PARTITION_EXPIRATION_TIME
	KeyPartitionExpirationCheckInterv  = "partition.expiration-check-interval"       // PARTITION_EXPIRATION_CHECK_INTERVAL
	KeyPartitionExpirationStrategy     = "partition.expiration-strategy"             // PARTITION_EXPIRATION_STRATEGY
	KeyPartitionExpirationMaxNum       = "partition.expiration-max-num"              // PARTITION_EXPIRATION_MAX_NUM
	KeyPartitionExpirationBatchSize    = "partition.expiration-batch-size"           // PARTITION_EXPIRATION_BATCH_SIZE
	KeyPartitionTimestampFormatter     = "partition.timestamp-formatter"             // PARTITION_TIMESTAMP_FORMATTER
	KeyPartitionTimestampPattern       = "partition.timestamp-pattern"               // PARTITION_TIMESTAMP_PATTERN
	KeyEndInputCheckPartitionExpire    = "end-input.check-partition-expire"          // END_INPUT_CHECK_PARTITION_EXPIRE
	KeyScanFallbackBranch              = "scan.fallback-branch"                      // SCAN_FALLBACK_BRANCH
	KeyMetadataStatsMode               = "metadata.stats-mode"                       // METADATA_STATS_MODE
	KeyMetadataStatsDenseStore         = "metadata.stats-dense-store"                // METADATA_STATS_DENSE_STORE
	KeyMetadataStatsKeepFirstNColumns  = "metadata.stats-keep-first-n-columns"       // METADATA_STATS_KEEP_FIRST_N_COLUMNS
	KeyManifestTargetFileSize          = "manifest.target-file-size"                 // MANIFEST_TARGET_FILE_SIZE
	KeyManifestMergeMinCount           = "manifest.merge-min-count"                  // MANIFEST_MERGE_MIN_COUNT
	KeyManifestFullCompactionThreshold = "manifest.full-compaction-threshold-size"   // MANIFEST_FULL_COMPACTION_FILE_SIZE
	KeyCommitForceCompact              = "commit.force-compact"                      // COMMIT_FORCE_COMPACT
	KeyCommitMaxRetries                = "commit.max-retries"                        // COMMIT_MAX_RETRIES
	KeyCommitMinRetryWait              = "commit.min-retry-wait"                     // COMMIT_MIN_RETRY_WAIT
	KeyCommitMaxRetryWait              = "commit.max-retry-wait"                     // COMMIT_MAX_RETRY_WAIT
	KeyCommitTimeout                   = "commit.timeout"                            // COMMIT_TIMEOUT
	KeyDataFilePrefix                  = "data-file.prefix"                          // DATA_FILE_PREFIX
	KeyChangelogFilePrefix             = "changelog-file.prefix"                     // CHANGELOG_FILE_PREFIX
	KeyFileSuffixIncludeCompression    = "file.suffix.include.compression"           // FILE_SUFFIX_INCLUDE_COMPRESSION
	KeyDataFileThinMode                = "data-file.thin-mode"                       // DATA_FILE_THIN_MODE
	KeyReadBatchSize                   = "read.batch-size"                           // READ_BATCH_SIZE
	KeyDynamicBucketTargetRowNum       = "dynamic-bucket.target-row-num"             // DYNAMIC_BUCKET_TARGET_ROW_NUM
	KeyWriteOnly                       = "write-only"                                // WRITE_ONLY
	KeyRealtimeEnabled                 = "realtime.enabled"                          // paimon-cpp real-time extension
	KeyRealtimeReadViewTTL             = "realtime.read-view-ttl"                    // paimon-cpp real-time extension
	KeyRealtimeStoreStatsMode          = "realtime.store.stats-mode"                 // paimon-cpp real-time extension
	KeyRealtimeProvider                = "realtime.provider"                         // PIP-46 "a table option may identify the real-time provider"; paimon-go
)

// Get returns the raw value of key and whether it is set.
func (o Options) Get(key string) (string, bool) {
	v, ok := o[key]
	return v, ok
}

// String returns the value of key, or def when the key is absent.
func (o Options) String(key, def string) string {
	if v, ok := o[key]; ok {
		return v
	}
	return def
}

func invalid(key, value, why string) error {
	return fmt.Errorf("%w: %s=%q: %s", ErrInvalidOption, key, value, why)
}

// Int returns key as a Java int (32 bits), or def when absent.
func (o Options) Int(key string, def int) (int, error) {
	v, ok := o[key]
	if !ok {
		return def, nil
	}
	n, err := strconv.ParseInt(v, 10, 32)
	if err != nil {
		return 0, invalid(key, v, "not a 32-bit integer")
	}
	return int(n), nil
}

// OptionalInt returns key as a Java int and whether it is set.
func (o Options) OptionalInt(key string) (int, bool, error) {
	if _, ok := o[key]; !ok {
		return 0, false, nil
	}
	n, err := o.Int(key, 0)
	return n, err == nil, err
}

// Int64 returns key as a Java long, or def when absent.
func (o Options) Int64(key string, def int64) (int64, error) {
	v, ok := o[key]
	if !ok {
		return def, nil
	}
	n, err := strconv.ParseInt(v, 10, 64)
	if err != nil {
		return 0, invalid(key, v, "not a 64-bit integer")
	}
	return n, nil
}

// Float returns key as a Java double, or def when absent.
func (o Options) Float(key string, def float64) (float64, error) {
	v, ok := o[key]
	if !ok {
		return def, nil
	}
	f, err := strconv.ParseFloat(strings.TrimSpace(v), 64)
	if err != nil {
		return 0, invalid(key, v, "not a number")
	}
	return f, nil
}

// Bool returns key as a boolean ("true"/"false", case-insensitive), or def
// when absent.
func (o Options) Bool(key string, def bool) (bool, error) {
	v, ok := o[key]
	if !ok {
		return def, nil
	}
	switch strings.ToUpper(v) {
	case "TRUE":
		return true, nil
	case "FALSE":
		return false, nil
	}
	return false, invalid(key, v, "expected true or false")
}

// MemorySize returns key in bytes (see ParseMemorySize), or def when absent.
func (o Options) MemorySize(key string, def int64) (int64, error) {
	v, ok := o[key]
	if !ok {
		return def, nil
	}
	n, err := ParseMemorySize(v)
	if err != nil {
		return 0, invalid(key, v, err.Error())
	}
	return n, nil
}

// Duration returns key as a duration (see ParseDuration), or def when absent.
func (o Options) Duration(key string, def time.Duration) (time.Duration, error) {
	v, ok := o[key]
	if !ok {
		return def, nil
	}
	d, err := ParseDuration(v)
	if err != nil {
		return 0, invalid(key, v, err.Error())
	}
	return d, nil
}

// enum returns the allowed value equal to key's value ignoring case, or def.
func (o Options) enum(key, def string, allowed ...string) (string, error) {
	v, ok := o[key]
	if !ok {
		return def, nil
	}
	for _, a := range allowed {
		if strings.EqualFold(a, v) {
			return a, nil
		}
	}
	return "", invalid(key, v, "expected one of "+strings.Join(allowed, ", "))
}

// list splits key's value at "," (no trimming, as Java); nil when absent or
// blank.
func (o Options) list(key string) []string {
	v, ok := o[key]
	if !ok || strings.TrimSpace(v) == "" {
		return nil
	}
	return strings.Split(v, ",")
}

// Bucket is "bucket", the number of buckets; default -1 (dynamic bucket for
// PK tables, unaware for append tables). -2 means postpone. Schema files of
// version 1 without the key mean 1; Decode materialises that.
func (o Options) Bucket() (int, error) { return o.Int(KeyBucket, -1) }

// BucketKey is "bucket-key" split at ","; nil when unset (then the trimmed
// primary key is used, see TableSchema.BucketKeys).
func (o Options) BucketKey() []string { return o.list(KeyBucketKey) }

// BucketFunctionType is "bucket-function.type": default | mod | hive;
// default "default".
func (o Options) BucketFunctionType() (string, error) {
	return o.enum(KeyBucketFunctionType, "default", "default", "mod", "hive")
}

// FileFormat is "file.format" lower-cased; default "parquet" (schema
// version <= 2 files without the key mean "orc"; Decode materialises that).
func (o Options) FileFormat() string {
	return strings.ToLower(o.String(KeyFileFormat, "parquet"))
}

// ManifestFormat is "manifest.format" lower-cased; default "avro" (the key
// exists up to release 2.0; HEAD always writes Avro manifests).
func (o Options) ManifestFormat() string {
	return strings.ToLower(o.String(KeyManifestFormat, "avro"))
}

// DataFilePathDirectory is "data-file.path-directory" followed by "/", or ""
// when unset: the directory below the table root that holds the partition
// and bucket directories (Java FileStorePathFactory.relativeBucketPath).
func (o Options) DataFilePathDirectory() string {
	d := strings.Trim(o.String(KeyDataFilePathDirectory, ""), "/")
	if d == "" {
		return ""
	}
	return d + "/"
}

// DataFileExternalPaths returns the roots outside the table that Java writes
// new data files to (AbstractFileStore.createExternalPaths): none when
// data-file.external-paths is unset or empty or
// data-file.external-paths.strategy is "none" (the default); with
// "specific-fs" only the paths whose scheme is
// data-file.external-paths.specific-fs (case-insensitive); otherwise
// (round-robin, entropy-inject, weighted) every path. Errors wrap
// ErrInvalidOption for an unknown strategy, a path without a scheme,
// specific-fs without its file system, or no path left.
func (o Options) DataFileExternalPaths() ([]string, error) {
	all := strings.TrimSpace(o.String(KeyDataFileExternalPaths, ""))
	strategy, err := o.enum(KeyDataFileExternalPathsStrategy, "none", "none", "specific-fs", "round-robin", "entropy-inject", "weighted")
	if err != nil || all == "" || strategy == "none" {
		return nil, err
	}
	fs, hasFS := o.Get(KeyDataFileExternalPathsSpecificFS)
	if strategy == "specific-fs" && !hasFS {
		return nil, fmt.Errorf("%w: %s = specific-fs needs %s", ErrInvalidOption, KeyDataFileExternalPathsStrategy, KeyDataFileExternalPathsSpecificFS)
	}
	var out []string
	for _, p := range strings.Split(all, ",") {
		p = strings.TrimSpace(p)
		scheme, _, ok := strings.Cut(p, ":")
		if !ok || scheme == "" || strings.Contains(scheme, "/") {
			return nil, fmt.Errorf("%w: %s: path %q has no scheme", ErrInvalidOption, KeyDataFileExternalPaths, p)
		}
		if strategy != "specific-fs" || strings.EqualFold(scheme, fs) {
			out = append(out, p)
		}
	}
	if len(out) == 0 {
		return nil, fmt.Errorf("%w: %s: no path of file system %q", ErrInvalidOption, KeyDataFileExternalPaths, fs)
	}
	return out, nil
}

// ManifestCompression is "manifest.compression"; default "zstd".
func (o Options) ManifestCompression() string { return o.String(KeyManifestCompression, "zstd") }

// FileCompression is "file.compression"; default "zstd".
func (o Options) FileCompression() string { return o.String(KeyFileCompression, "zstd") }

// FileCompressionZstdLevel is "file.compression.zstd-level"; default 1 (also
// used for manifests).
func (o Options) FileCompressionZstdLevel() (int, error) {
	return o.Int(KeyFileCompressionZstdLevel, 1)
}

const mib = 1 << 20

// TargetFileSize is "target-file-size" in bytes; no default in the option,
// CoreOptions.targetFileSize(hasPrimaryKey) uses 128 MiB for primary-key
// tables and 256 MiB for append tables.
func (o Options) TargetFileSize(hasPrimaryKey bool) (int64, error) {
	def := int64(256 * mib)
	if hasPrimaryKey {
		def = 128 * mib
	}
	return o.MemorySize(KeyTargetFileSize, def)
}

// WriteBufferSize is "write-buffer-size" in bytes; default 256 MiB.
func (o Options) WriteBufferSize() (int64, error) {
	return o.MemorySize(KeyWriteBufferSize, 256*mib)
}

// LookupCacheMaxMemorySize is "lookup.cache-max-memory-size" in bytes, the
// bound of the decoded data files point lookups keep (reader.LookupCache);
// default 256 MiB as Java's.
func (o Options) LookupCacheMaxMemorySize() (int64, error) {
	return o.MemorySize(KeyLookupCacheMaxMemorySize, 256*mib)
}

// PageSize is "page-size" in bytes; default 64 KiB.
func (o Options) PageSize() (int64, error) { return o.MemorySize(KeyPageSize, 64<<10) }

// MergeEngine is a primary-key table's merge engine (CoreOptions.MergeEngine).
type MergeEngine string

// The merge engines, spelled as their option values.
const (
	MergeDeduplicate   MergeEngine = "deduplicate"
	MergePartialUpdate MergeEngine = "partial-update"
	MergeAggregation   MergeEngine = "aggregation"
	MergeFirstRow      MergeEngine = "first-row"
)

// MergeEngine is "merge-engine"; default deduplicate.
func (o Options) MergeEngine() (MergeEngine, error) {
	v, err := o.enum(KeyMergeEngine, string(MergeDeduplicate),
		string(MergeDeduplicate), string(MergePartialUpdate), string(MergeAggregation), string(MergeFirstRow))
	return MergeEngine(v), err
}

// ChangelogProducer is how changelog files are produced
// (CoreOptions.ChangelogProducer).
type ChangelogProducer string

// The changelog producers, spelled as their option values.
const (
	ChangelogNone           ChangelogProducer = "none"
	ChangelogInput          ChangelogProducer = "input"
	ChangelogFullCompaction ChangelogProducer = "full-compaction"
	ChangelogLookup         ChangelogProducer = "lookup"
)

// ChangelogProducer is "changelog-producer"; default none.
func (o Options) ChangelogProducer() (ChangelogProducer, error) {
	v, err := o.enum(KeyChangelogProducer, string(ChangelogNone),
		string(ChangelogNone), string(ChangelogInput), string(ChangelogFullCompaction), string(ChangelogLookup))
	return ChangelogProducer(v), err
}

// SequenceField is "sequence.field" split at ","; nil when unset.
func (o Options) SequenceField() []string { return o.list(KeySequenceField) }

// SequenceFieldDescending reports "sequence.field.sort-order" = descending;
// default ascending.
func (o Options) SequenceFieldDescending() (bool, error) {
	v, err := o.enum(KeySequenceFieldSortOrder, "ascending", "ascending", "descending")
	return v == "descending", err
}

// IgnoreDelete is "ignore-delete"; default false. As in Java, the fallback
// keys "first-row.ignore-delete", "deduplicate.ignore-delete" and
// "partial-update.ignore-delete" are consulted (in that order) when the main
// key is absent.
func (o Options) IgnoreDelete() (bool, error) {
	for _, k := range []string{KeyIgnoreDelete, "first-row.ignore-delete",
		"deduplicate.ignore-delete", "partial-update.ignore-delete"} {
		if _, ok := o[k]; ok {
			return o.Bool(k, false)
		}
	}
	return false, nil
}

// DeletionVectorsEnabled is "deletion-vectors.enabled"; default false.
func (o Options) DeletionVectorsEnabled() (bool, error) {
	return o.Bool(KeyDeletionVectorsEnabled, false)
}

// KeyForceLookup is "force-lookup" (CoreOptions.FORCE_LOOKUP).
const KeyForceLookup = "force-lookup"

// LookupMerge reports whether merges of the table's records go through
// Java's LookupMergeFunction (CoreOptions.needLookup, LookupStrategy:
// changelog-producer = lookup, deletion vectors, first-row or force-lookup;
// LookupMergeFunction.wrap leaves first-row unwrapped): per key, only the
// lowest level's record above 0 is merged with the level-0 records.
// Errors wrap ErrInvalidOption (malformed options).
func (o Options) LookupMerge() (bool, error) {
	engine, err := o.MergeEngine()
	if err != nil {
		return false, err
	}
	cp, err := o.ChangelogProducer()
	if err != nil {
		return false, err
	}
	dv, err := o.DeletionVectorsEnabled()
	if err != nil {
		return false, err
	}
	force, err := o.Bool(KeyForceLookup, false)
	if err != nil {
		return false, err
	}
	return engine != MergeFirstRow && (cp == ChangelogLookup || dv || force), nil
}

// DeletionVectorsBitmap64 is "deletion-vectors.bitmap64"; default false.
func (o Options) DeletionVectorsBitmap64() (bool, error) {
	return o.Bool(KeyDeletionVectorsBitmap64, false)
}

// PartitionDefaultName is "partition.default-name"; default
// "__DEFAULT_PARTITION__".
func (o Options) PartitionDefaultName() string {
	return o.String(KeyPartitionDefaultName, "__DEFAULT_PARTITION__")
}

// PartitionLegacyName is "partition.legacy-name"; default true.
func (o Options) PartitionLegacyName() (bool, error) {
	return o.Bool(KeyPartitionLegacyName, true)
}

// NumSortedRunCompactionTrigger is "num-sorted-run.compaction-trigger";
// default 5.
func (o Options) NumSortedRunCompactionTrigger() (int, error) {
	return o.Int(KeyNumSortedRunCompactionTrigger, 5)
}

// NumSortedRunStopTrigger is "num-sorted-run.stop-trigger"; default
// compaction trigger + 3, and never below the compaction trigger
// (CoreOptions.numSortedRunStopTrigger).
func (o Options) NumSortedRunStopTrigger() (int, error) {
	trigger, err := o.NumSortedRunCompactionTrigger()
	if err != nil {
		return 0, err
	}
	stop, set, err := o.OptionalInt(KeyNumSortedRunStopTrigger)
	if err != nil {
		return 0, err
	}
	if !set {
		stop = addSafely(trigger, 3)
	}
	return max(trigger, stop), nil
}

// NumLevels is "num-levels"; default compaction trigger + 1
// (CoreOptions.numLevels).
func (o Options) NumLevels() (int, error) {
	n, set, err := o.OptionalInt(KeyNumLevels)
	if err != nil || set {
		return n, err
	}
	trigger, err := o.NumSortedRunCompactionTrigger()
	if err != nil {
		return 0, err
	}
	return addSafely(trigger, 1), nil
}

// addSafely adds like Java MathUtils.addSafely: saturating at Integer.MAX_VALUE.
func addSafely(a, b int) int {
	s := int64(a) + int64(b)
	if s > math.MaxInt32 {
		return math.MaxInt32
	}
	return int(s)
}

// CompactionMaxSizeAmplificationPercent is
// "compaction.max-size-amplification-percent"; default 200.
func (o Options) CompactionMaxSizeAmplificationPercent() (int, error) {
	return o.Int(KeyCompactionMaxSizeAmplification, 200)
}

// CompactionSizeRatio is "compaction.size-ratio" (percent); default 1.
func (o Options) CompactionSizeRatio() (int, error) { return o.Int(KeyCompactionSizeRatio, 1) }

// CompactionForceUpLevel0 is "compaction.force-up-level-0"; default false.
func (o Options) CompactionForceUpLevel0() (bool, error) {
	return o.Bool(KeyCompactionForceUpLevel0, false)
}

// CompactionSmallFileRatio is "compaction.small-file-ratio"; default 0.7.
func (o Options) CompactionSmallFileRatio() (float64, error) {
	return o.Float(KeyCompactionSmallFileRatio, 0.7)
}

// FullCompactionDeltaCommits is "full-compaction.delta-commits"; no default
// (set reports whether it is configured).
func (o Options) FullCompactionDeltaCommits() (n int, set bool, err error) {
	return o.OptionalInt(KeyFullCompactionDeltaCommits)
}

// SnapshotNumRetainedMin is "snapshot.num-retained.min"; default 10.
func (o Options) SnapshotNumRetainedMin() (int, error) {
	return o.Int(KeySnapshotNumRetainedMin, 10)
}

// SnapshotNumRetainedMax is "snapshot.num-retained.max"; default
// Integer.MAX_VALUE (2147483647).
func (o Options) SnapshotNumRetainedMax() (int, error) {
	return o.Int(KeySnapshotNumRetainedMax, math.MaxInt32)
}

// SnapshotTimeRetained is "snapshot.time-retained"; default 1 hour.
func (o Options) SnapshotTimeRetained() (time.Duration, error) {
	return o.Duration(KeySnapshotTimeRetained, time.Hour)
}

// SnapshotExpireLimit is "snapshot.expire.limit"; default 50.
func (o Options) SnapshotExpireLimit() (int, error) { return o.Int(KeySnapshotExpireLimit, 50) }

// SnapshotExpireExecutionMode is "snapshot.expire.execution-mode": "sync"
// (the default: expiration runs inside the commit call, after the snapshot
// is published) or "async" (it runs in the background, one run at a time).
func (o Options) SnapshotExpireExecutionMode() (string, error) {
	return o.enum(KeySnapshotExpireExecutionMode, "sync", "sync", "async")
}

// PartitionExpirationTime is "partition.expiration-time", the age after
// which a partition expires; no default (set reports whether it is
// configured: without it partitions never expire).
func (o Options) PartitionExpirationTime() (d time.Duration, set bool, err error) {
	if _, ok := o[KeyPartitionExpirationTime]; !ok {
		return 0, false, nil
	}
	d, err = o.Duration(KeyPartitionExpirationTime, 0)
	return d, err == nil, err
}

// CrossPartitionUpsertIndexTTL is "cross-partition-upsert.index-ttl": a
// key index bootstrap skips the partition-buckets none of whose files was
// created within it (Java IndexBootstrap.filterSplit); no default (set
// reports whether it is configured: without it every key is indexed).
func (o Options) CrossPartitionUpsertIndexTTL() (d time.Duration, set bool, err error) {
	if _, ok := o["cross-partition-upsert.index-ttl"]; !ok {
		return 0, false, nil
	}
	d, err = o.Duration("cross-partition-upsert.index-ttl", 0)
	return d, err == nil, err
}

// PartitionExpirationCheckInterval is "partition.expiration-check-interval";
// default 1 hour. Zero checks after every commit.
func (o Options) PartitionExpirationCheckInterval() (time.Duration, error) {
	return o.Duration(KeyPartitionExpirationCheckInterv, time.Hour)
}

// PartitionExpirationStrategy is "partition.expiration-strategy":
// "values-time" (the default: the time parsed from the partition values) or
// "update-time" (the creation time of the partition's newest data file).
func (o Options) PartitionExpirationStrategy() (string, error) {
	return o.enum(KeyPartitionExpirationStrategy, "values-time", "values-time", "update-time")
}

// PartitionExpirationMaxNum is "partition.expiration-max-num", the most
// partitions one check drops; default 100.
func (o Options) PartitionExpirationMaxNum() (int, error) {
	return o.Int(KeyPartitionExpirationMaxNum, 100)
}

// PartitionExpirationBatchSize is "partition.expiration-batch-size", the
// most partitions one drop commit holds; no default (set false: one commit
// drops them all).
func (o Options) PartitionExpirationBatchSize() (n int, set bool, err error) {
	return o.OptionalInt(KeyPartitionExpirationBatchSize)
}

// PartitionTimestampFormatter is "partition.timestamp-formatter", a Java
// DateTimeFormatter pattern; "" when unset (then yyyy-MM-dd[ HH:mm:ss]).
func (o Options) PartitionTimestampFormatter() string {
	return o.String(KeyPartitionTimestampFormatter, "")
}

// PartitionTimestampPattern is "partition.timestamp-pattern", e.g.
// "$dt $hour:00:00"; "" when unset (then the first partition value).
func (o Options) PartitionTimestampPattern() string {
	return o.String(KeyPartitionTimestampPattern, "")
}

// EndInputCheckPartitionExpire is "end-input.check-partition-expire";
// default false. When true, a batch commit (identifier Long.MAX_VALUE)
// checks partition expiration whatever the check interval says.
func (o Options) EndInputCheckPartitionExpire() (bool, error) {
	return o.Bool(KeyEndInputCheckPartitionExpire, false)
}

// ScanFallbackBranch is "scan.fallback-branch"; "" when unset.
func (o Options) ScanFallbackBranch() string { return o.String(KeyScanFallbackBranch, "") }

// StatsMode is a parsed "metadata.stats-mode" value
// (SimpleColStatsCollector.from): none, counts (null counts only), full
// (null counts, min, max) or truncate(N) (full with strings/binaries cut to
// N characters/bytes).
type StatsMode struct {
	Kind           StatsModeKind
	TruncateLength int // only for StatsTruncate
}

// StatsModeKind is the kind of a StatsMode.
type StatsModeKind int

// The stats mode kinds.
const (
	StatsNone StatsModeKind = iota
	StatsCounts
	StatsFull
	StatsTruncate
)

// String renders the mode as Paimon spells it ("none", "counts", "full",
// "truncate(16)").
func (m StatsMode) String() string {
	switch m.Kind {
	case StatsNone:
		return "none"
	case StatsCounts:
		return "counts"
	case StatsFull:
		return "full"
	}
	return "truncate(" + strconv.Itoa(m.TruncateLength) + ")"
}

// ParseStatsMode parses none | counts | full | truncate(N), case-insensitive.
func ParseStatsMode(s string) (StatsMode, error) {
	u := strings.ToUpper(s)
	switch u {
	case "NONE":
		return StatsMode{Kind: StatsNone}, nil
	case "COUNTS":
		return StatsMode{Kind: StatsCounts}, nil
	case "FULL":
		return StatsMode{Kind: StatsFull}, nil
	}
	if strings.HasPrefix(u, "TRUNCATE(") && strings.HasSuffix(u, ")") {
		digits := u[len("TRUNCATE(") : len(u)-1]
		if digits != "" && strings.Trim(digits, "0123456789") == "" {
			n, err := strconv.ParseInt(digits, 10, 32)
			if err == nil {
				return StatsMode{Kind: StatsTruncate, TruncateLength: int(n)}, nil
			}
		}
	}
	return StatsMode{}, fmt.Errorf("stats mode %q is not none, counts, full or truncate(N)", s)
}

// MetadataStatsMode is "metadata.stats-mode"; default truncate(16).
func (o Options) MetadataStatsMode() (StatsMode, error) {
	v := o.String(KeyMetadataStatsMode, "truncate(16)")
	m, err := ParseStatsMode(v)
	if err != nil {
		return StatsMode{}, invalid(KeyMetadataStatsMode, v, err.Error())
	}
	return m, nil
}

// FieldStatsMode is the stats mode of one column: "fields.<name>.stats-mode"
// when set, else MetadataStatsMode.
func (o Options) FieldStatsMode(field string) (StatsMode, error) {
	key := "fields." + field + ".stats-mode"
	if v, ok := o[key]; ok {
		m, err := ParseStatsMode(v)
		if err != nil {
			return StatsMode{}, invalid(key, v, err.Error())
		}
		return m, nil
	}
	return o.MetadataStatsMode()
}

// MetadataStatsDenseStore is "metadata.stats-dense-store"; default true.
func (o Options) MetadataStatsDenseStore() (bool, error) {
	return o.Bool(KeyMetadataStatsDenseStore, true)
}

// MetadataStatsKeepFirstNColumns is "metadata.stats-keep-first-n-columns";
// default -1 (all columns).
func (o Options) MetadataStatsKeepFirstNColumns() (int, error) {
	return o.Int(KeyMetadataStatsKeepFirstNColumns, -1)
}

// ManifestTargetFileSize is "manifest.target-file-size" in bytes; default 8 MiB.
func (o Options) ManifestTargetFileSize() (int64, error) {
	return o.MemorySize(KeyManifestTargetFileSize, 8*mib)
}

// ManifestMergeMinCount is "manifest.merge-min-count"; default 30.
func (o Options) ManifestMergeMinCount() (int, error) {
	return o.Int(KeyManifestMergeMinCount, 30)
}

// ManifestFullCompactionThresholdSize is
// "manifest.full-compaction-threshold-size" in bytes; default 16 MiB.
func (o Options) ManifestFullCompactionThresholdSize() (int64, error) {
	return o.MemorySize(KeyManifestFullCompactionThreshold, 16*mib)
}

// CommitForceCompact is "commit.force-compact"; default false.
func (o Options) CommitForceCompact() (bool, error) {
	return o.Bool(KeyCommitForceCompact, false)
}

// CommitMaxRetries is "commit.max-retries"; default 10.
func (o Options) CommitMaxRetries() (int, error) { return o.Int(KeyCommitMaxRetries, 10) }

// CommitMinRetryWait is "commit.min-retry-wait"; default 10 ms.
func (o Options) CommitMinRetryWait() (time.Duration, error) {
	return o.Duration(KeyCommitMinRetryWait, 10*time.Millisecond)
}

// CommitMaxRetryWait is "commit.max-retry-wait"; default 10 s.
func (o Options) CommitMaxRetryWait() (time.Duration, error) {
	return o.Duration(KeyCommitMaxRetryWait, 10*time.Second)
}

// CommitTimeout is "commit.timeout"; no default (set false = unlimited).
func (o Options) CommitTimeout() (d time.Duration, set bool, err error) {
	if _, ok := o[KeyCommitTimeout]; !ok {
		return 0, false, nil
	}
	d, err = o.Duration(KeyCommitTimeout, 0)
	return d, err == nil, err
}

// DataFilePrefix is "data-file.prefix"; default "data-".
func (o Options) DataFilePrefix() string { return o.String(KeyDataFilePrefix, "data-") }

// ChangelogFilePrefix is "changelog-file.prefix"; default "changelog-".
func (o Options) ChangelogFilePrefix() string {
	return o.String(KeyChangelogFilePrefix, "changelog-")
}

// FileSuffixIncludeCompression is "file.suffix.include.compression"; default false.
func (o Options) FileSuffixIncludeCompression() (bool, error) {
	return o.Bool(KeyFileSuffixIncludeCompression, false)
}

// DataFileThinMode is "data-file.thin-mode"; default false.
func (o Options) DataFileThinMode() (bool, error) { return o.Bool(KeyDataFileThinMode, false) }

// ReadBatchSize is "read.batch-size"; default 1024.
func (o Options) ReadBatchSize() (int, error) { return o.Int(KeyReadBatchSize, 1024) }

// DynamicBucketTargetRowNum is "dynamic-bucket.target-row-num"; default 2000000.
func (o Options) DynamicBucketTargetRowNum() (int64, error) {
	return o.Int64(KeyDynamicBucketTargetRowNum, 2_000_000)
}

// WriteOnly is "write-only" (fallback key "write.compaction-skip"); default false.
func (o Options) WriteOnly() (bool, error) {
	if _, ok := o[KeyWriteOnly]; !ok {
		if _, ok := o["write.compaction-skip"]; ok {
			return o.Bool("write.compaction-skip", false)
		}
	}
	return o.Bool(KeyWriteOnly, false)
}

// RealtimeEnabled is "realtime.enabled"; default false. Real-time write,
// scan, read and CommitWithProgress require it (paimon-cpp real-time
// extension, docs/realtime-design.md section 10; not in Java).
func (o Options) RealtimeEnabled() (bool, error) { return o.Bool(KeyRealtimeEnabled, false) }

// RealtimeReadViewTTL is "realtime.read-view-ttl", the lifetime of a pinned,
// not yet consumed split ticket; default 5 minutes; must be > 0.
func (o Options) RealtimeReadViewTTL() (time.Duration, error) {
	d, err := o.Duration(KeyRealtimeReadViewTTL, 5*time.Minute)
	if err == nil && d <= 0 {
		return 0, invalid(KeyRealtimeReadViewTTL, o[KeyRealtimeReadViewTTL], "must be greater than 0")
	}
	return d, err
}

// RealtimeStoreStatsMode is "realtime.store.stats-mode": "none" or "full";
// default "none" (per-batch statistics of the in-memory store).
func (o Options) RealtimeStoreStatsMode() (string, error) {
	return o.enum(KeyRealtimeStoreStatsMode, "none", "none", "full")
}

// RealtimeProvider is "realtime.provider": "" (none, the default) or
// "flight", which says that a `paimon serve` Arrow Flight server serves the
// table's real-time rows and records its address in the table folder
// (package serve). PIP-46 names such an option as future work; it is a
// paimon-go extension.
func (o Options) RealtimeProvider() (string, error) {
	return o.enum(KeyRealtimeProvider, "", "", "flight")
}

// Clone returns a copy of o (nil stays nil).
func (o Options) Clone() Options {
	if o == nil {
		return nil
	}
	c := make(Options, len(o))
	for k, v := range o {
		c[k] = v
	}
	return c
}
