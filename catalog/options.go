package catalog

import (
	"fmt"
	"maps"
	"slices"

	"github.com/paimon-go/paimon/schema"
)

// ValidateOptions checks the option values of ts: every option paimon-go
// reads (writers, compaction, commit, expiration, tags, orphan cleaning,
// the real-time layer) must be well-formed, in the type Java's CoreOptions
// declares for it (int, long, boolean, duration, memory size, double, enum,
// stats mode) and parsed as Java's OptionsUtils parses it, and within
// the ranges Java's SchemaValidation enforces (snapshot.num-retained.min and
// changelog.num-retained.min at least 1 and not above the maximum,
// target-file-row-num at least 1) or that the reading code needs
// (num-sorted-run.compaction-trigger and full-compaction.delta-commits at
// least 1, num-levels at least 2, compaction.max-size-amplification-percent
// not negative, realtime.read-view-ttl positive). snapshot.expire.limit has
// no range, as in Java: below 1 it makes expiration expire nothing
// (ExpireSnapshotsImpl.expire stops at earliest + limit).
//
// Option keys it does not know and well-formed values of features paimon-go
// does not implement (lookup-compact = gentle,
// ...) pass: such tables open and read, and the writers and compaction refuse
// them when asked to write. CreateTable and AlterTable apply it to the new
// schema; GetTable, and package paimon's OpenTable, to the schema they read,
// so that a table created elsewhere with a malformed option is refused at
// open rather than at its first write or maintenance run.
//
// Errors wrap ErrInvalidSchema and schema.ErrInvalidOption and name the
// option and its value.
func ValidateOptions(ts *schema.TableSchema) error {
	if err := checkOptions(ts); err != nil {
		return invalidSchema("", err)
	}
	return nil
}

// validateOptions is ValidateOptions, as one step of validateTable.
func validateOptions(ts *schema.TableSchema) error { return ValidateOptions(ts) }

// optionKind is the Java type of an option value.
type optionKind int

const (
	kindUnknown optionKind = iota
	kindInt
	kindLong
	kindBool
	kindDuration
	kindMemory
	kindDouble
)

// kindOf returns the CoreOptions type of the options paimon-go reads whose
// values are plain scalars (enums and stats modes are checked through their
// getters).
func kindOf(key string) optionKind {
	switch key {
	case schema.KeyBucket, schema.KeyFileCompressionZstdLevel,
		schema.KeyNumSortedRunCompactionTrigger, schema.KeyNumSortedRunStopTrigger, schema.KeyNumLevels,
		schema.KeyCompactionMaxSizeAmplification, schema.KeyCompactionSizeRatio, schema.KeyFullCompactionDeltaCommits,
		schema.KeySnapshotNumRetainedMin, schema.KeySnapshotNumRetainedMax, schema.KeySnapshotExpireLimit,
		keyChangelogNumRetainedMin, keyChangelogNumRetainedMax,
		schema.KeyMetadataStatsKeepFirstNColumns, schema.KeyManifestMergeMinCount, schema.KeyCommitMaxRetries,
		schema.KeyReadBatchSize, "compaction.min.file-num", "compaction.offpeak.start.hour",
		"compaction.offpeak.end.hour", "compaction.offpeak-ratio", "local-sort.max-num-file-handles",
		"spill-compression.zstd-level", schema.KeyPartitionExpirationMaxNum, schema.KeyPartitionExpirationBatchSize:
		return kindInt
	case schema.KeyDynamicBucketTargetRowNum, keyTargetFileRowNum:
		return kindLong
	case schema.KeyDeletionVectorsEnabled, schema.KeyDeletionVectorsBitmap64, schema.KeyPartitionLegacyName,
		schema.KeyCompactionForceUpLevel0, schema.KeyCommitForceCompact, schema.KeyFileSuffixIncludeCompression,
		schema.KeyDataFileThinMode, schema.KeyMetadataStatsDenseStore, schema.KeyWriteOnly, "write.compaction-skip",
		schema.KeyIgnoreDelete, "first-row.ignore-delete", "deduplicate.ignore-delete", "partial-update.ignore-delete",
		KeyIgnoreUpdateBefore, KeyPrimaryKeyNullable, KeyDeletionVectorsModifiable,
		"compaction.force-rewrite-all-files", "force-lookup", "snapshot.ignore-empty-commit",
		"commit.force-create-snapshot", "overwrite-upgrade", "pk-clustering-override", "dynamic-partition-overwrite",
		"consumer.changelog-only", "index-file-in-data-file-dir", "write-buffer-spillable", schema.KeyRealtimeEnabled,
		schema.KeyEndInputCheckPartitionExpire:
		return kindBool
	case schema.KeySnapshotTimeRetained, "changelog.time-retained", schema.KeyCommitMinRetryWait,
		schema.KeyCommitMaxRetryWait, schema.KeyCommitTimeout, "compaction.optimization-interval",
		"tag.default-time-retained", schema.KeyRealtimeReadViewTTL, "consumer.expiration-time", "continuous.discovery-interval",
		schema.KeyPartitionExpirationTime, schema.KeyPartitionExpirationCheckInterv:
		return kindDuration
	case schema.KeyTargetFileSize, schema.KeyWriteBufferSize, schema.KeyPageSize, schema.KeyManifestTargetFileSize,
		schema.KeyManifestFullCompactionThreshold, "source.split.open-file-cost", "compaction.total-size-threshold",
		"compaction.incremental-size-threshold", "write-buffer-spill.max-disk-size", schema.KeyLookupCacheMaxMemorySize:
		return kindMemory
	case schema.KeyCompactionSmallFileRatio:
		return kindDouble
	}
	return kindUnknown
}

// Options checked only here (CoreOptions).
const (
	keyChangelogNumRetainedMin = "changelog.num-retained.min" // CHANGELOG_NUM_RETAINED_MIN
	keyChangelogNumRetainedMax = "changelog.num-retained.max" // CHANGELOG_NUM_RETAINED_MAX
	keyTargetFileRowNum        = "target-file-row-num"        // TARGET_FILE_ROW_NUM
)

// checkOptions is ValidateOptions without the ErrInvalidSchema wrapping.
func checkOptions(ts *schema.TableSchema) error {
	o := ts.Options
	for _, k := range slices.Sorted(maps.Keys(o)) {
		var err error
		switch kindOf(k) {
		case kindInt:
			_, err = o.Int(k, 0)
		case kindLong:
			_, err = o.Int64(k, 0)
		case kindBool:
			_, err = o.Bool(k, false)
		case kindDuration:
			_, err = o.Duration(k, 0)
		case kindMemory:
			_, err = o.MemorySize(k, 0)
		case kindDouble:
			_, err = o.Float(k, 0)
		}
		if err != nil {
			return err
		}
	}
	// Enums and stats modes.
	if _, err := o.BucketFunctionType(); err != nil {
		return err
	}
	if _, err := o.MergeEngine(); err != nil {
		return err
	}
	if _, err := o.ChangelogProducer(); err != nil {
		return err
	}
	if _, err := o.SequenceFieldDescending(); err != nil {
		return err
	}
	if _, err := o.MetadataStatsMode(); err != nil {
		return err
	}
	for _, f := range ts.Fields {
		if _, err := o.FieldStatsMode(f.Name); err != nil {
			return err
		}
	}
	if _, err := o.RealtimeProvider(); err != nil {
		return err
	}
	if _, err := o.RealtimeStoreStatsMode(); err != nil {
		return err
	}
	if _, err := o.SnapshotExpireExecutionMode(); err != nil {
		return err
	}
	if _, err := o.PartitionExpirationStrategy(); err != nil {
		return err
	}
	if _, err := o.RealtimeReadViewTTL(); err != nil {
		return err
	}
	return checkRanges(o)
}

// checkRanges applies the range rules of ValidateOptions to options that
// parse.
func checkRanges(o schema.Options) error {
	atLeast := func(key string, n, lo int) error {
		if n < lo {
			return fmt.Errorf("%w: %s=%d must be at least %d", schema.ErrInvalidOption, key, n, lo)
		}
		return nil
	}
	trigger, err := o.NumSortedRunCompactionTrigger()
	if err != nil {
		return err
	}
	if err := atLeast(schema.KeyNumSortedRunCompactionTrigger, trigger, 1); err != nil {
		return err
	}
	if _, err := o.NumSortedRunStopTrigger(); err != nil {
		return err
	}
	levels, err := o.NumLevels()
	if err != nil {
		return err
	}
	if err := atLeast(schema.KeyNumLevels, levels, 2); err != nil {
		return err
	}
	amp, err := o.CompactionMaxSizeAmplificationPercent()
	if err != nil {
		return err
	}
	if err := atLeast(schema.KeyCompactionMaxSizeAmplification, amp, 0); err != nil {
		return err
	}
	if d, set, err := o.FullCompactionDeltaCommits(); err != nil {
		return err
	} else if set {
		if err := atLeast(schema.KeyFullCompactionDeltaCommits, d, 1); err != nil {
			return err
		}
	}
	// SchemaValidation.validateTableSchema.
	if n, err := o.Int64(keyTargetFileRowNum, 1); err != nil {
		return err
	} else if n < 1 {
		return fmt.Errorf("%w: %s=%d must be at least 1", schema.ErrInvalidOption, keyTargetFileRowNum, n)
	}
	snapMin, err := o.SnapshotNumRetainedMin()
	if err != nil {
		return err
	}
	snapMax, err := o.SnapshotNumRetainedMax()
	if err != nil {
		return err
	}
	if err := retained("snapshot", schema.KeySnapshotNumRetainedMin, schema.KeySnapshotNumRetainedMax, snapMin, snapMax); err != nil {
		return err
	}
	// CoreOptions.changelogNumRetainMin/Max fall back to the snapshot values.
	clMin, err := o.Int(keyChangelogNumRetainedMin, snapMin)
	if err != nil {
		return err
	}
	clMax, err := o.Int(keyChangelogNumRetainedMax, snapMax)
	if err != nil {
		return err
	}
	return retained("changelog", keyChangelogNumRetainedMin, keyChangelogNumRetainedMax, clMin, clMax)
}

// retained is SchemaValidation's check of a num-retained.min/max pair.
func retained(what, minKey, maxKey string, lo, hi int) error {
	if lo < 1 {
		return fmt.Errorf("%w: %s=%d: the minimum number of retained %ss must be at least 1", schema.ErrInvalidOption, minKey, lo, what)
	}
	if lo > hi {
		return fmt.Errorf("%w: %s=%d is larger than %s=%d", schema.ErrInvalidOption, minKey, lo, maxKey, hi)
	}
	return nil
}
