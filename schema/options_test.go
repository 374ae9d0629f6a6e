package schema

import (
	"errors"
	"math"
	"strings"
	"testing"
	"time"
)

func TestParseMemorySize(t *testing.T) {
	good := map[string]int64{
		"0":                   0,
		"500":                 500,
		"500 B":               500,
		"500bytes":            500,
		"64 kb":               64 << 10,
		"256kb":               256 << 10,
		"1k":                  1024,
		"3 KiBiBytes":         3 << 10,
		"128 mb":              128 << 20,
		"128MB":               128 << 20,
		"8m":                  8 << 20,
		"2 mebibytes":         2 << 20,
		"1 g":                 1 << 30,
		"1gb":                 1 << 30,
		"1 tb":                1 << 40,
		"  7  t ":             7 << 40,
		"8388607 t":           8388607 << 40,
		"9223372036854775807": math.MaxInt64,
	}
	for in, want := range good {
		got, err := ParseMemorySize(in)
		if err != nil || got != want {
			t.Errorf("ParseMemorySize(%q) = %d, %v; want %d", in, got, err, want)
		}
	}
	for _, bad := range []string{"", "  ", "mb", "-1", "1.5 mb", "12 xb", "1 kbb", "8388608 t", "9223372036854775808"} {
		if _, err := ParseMemorySize(bad); err == nil {
			t.Errorf("ParseMemorySize(%q) accepted", bad)
		}
	}
}

func TestParseDuration(t *testing.T) {
	good := map[string]time.Duration{
		"500":             500 * time.Millisecond,
		"1 h":             time.Hour,
		"1h":              time.Hour,
		"2 hours":         2 * time.Hour,
		"30 s":            30 * time.Second,
		"30s":             30 * time.Second,
		"5 sec":           5 * time.Second,
		"5 secs":          5 * time.Second,
		"10 min":          10 * time.Minute,
		"10m":             10 * time.Minute,
		"3 minutes":       3 * time.Minute,
		"1 d":             24 * time.Hour,
		"2 DAYS":          48 * time.Hour,
		"10 ms":           10 * time.Millisecond,
		"7 millis":        7 * time.Millisecond,
		"4 µs":            4 * time.Microsecond,
		"4 micros":        4 * time.Microsecond,
		"9 ns":            9,
		"9 nanoseconds":   9,
		" 1 milliseconds": time.Millisecond,
	}
	for in, want := range good {
		got, err := ParseDuration(in)
		if err != nil || got != want {
			t.Errorf("ParseDuration(%q) = %v, %v; want %v", in, got, err, want)
		}
	}
	for _, bad := range []string{"", "h", "-1 s", "1.5 h", "1 hr", "1 y", "1h30m", "300000 d"} {
		if _, err := ParseDuration(bad); err == nil {
			t.Errorf("ParseDuration(%q) accepted", bad)
		}
	}
}

// Defaults of an empty option map, as in CoreOptions HEAD.
func TestOptionDefaults(t *testing.T) {
	o := Options{}
	ints := map[string]func() (int, error){
		"bucket":                     o.Bucket,
		"zstd-level":                 o.FileCompressionZstdLevel,
		"compaction-trigger":         o.NumSortedRunCompactionTrigger,
		"stop-trigger":               o.NumSortedRunStopTrigger,
		"num-levels":                 o.NumLevels,
		"max-size-amp":               o.CompactionMaxSizeAmplificationPercent,
		"size-ratio":                 o.CompactionSizeRatio,
		"num-retained.min":           o.SnapshotNumRetainedMin,
		"num-retained.max":           o.SnapshotNumRetainedMax,
		"expire.limit":               o.SnapshotExpireLimit,
		"merge-min-count":            o.ManifestMergeMinCount,
		"commit.max-retries":         o.CommitMaxRetries,
		"read.batch-size":            o.ReadBatchSize,
		"stats-keep-first-n-columns": o.MetadataStatsKeepFirstNColumns,
	}
	wantInts := map[string]int{
		"bucket": -1, "zstd-level": 1, "compaction-trigger": 5, "stop-trigger": 8, "num-levels": 6,
		"max-size-amp": 200, "size-ratio": 1, "num-retained.min": 10, "num-retained.max": math.MaxInt32,
		"expire.limit": 50, "merge-min-count": 30, "commit.max-retries": 10, "read.batch-size": 1024,
		"stats-keep-first-n-columns": -1,
	}
	for name, f := range ints {
		got, err := f()
		if err != nil || got != wantInts[name] {
			t.Errorf("%s = %d %v, want %d", name, got, err, wantInts[name])
		}
	}
	sizes := []struct {
		name string
		f    func() (int64, error)
		want int64
	}{
		{"write-buffer-size", o.WriteBufferSize, 256 << 20},
		{"page-size", o.PageSize, 64 << 10},
		{"manifest.target-file-size", o.ManifestTargetFileSize, 8 << 20},
		{"manifest.full-compaction-threshold-size", o.ManifestFullCompactionThresholdSize, 16 << 20},
		{"target-file-size pk", func() (int64, error) { return o.TargetFileSize(true) }, 128 << 20},
		{"target-file-size append", func() (int64, error) { return o.TargetFileSize(false) }, 256 << 20},
		{"dynamic-bucket.target-row-num", o.DynamicBucketTargetRowNum, 2_000_000},
	}
	for _, c := range sizes {
		got, err := c.f()
		if err != nil || got != c.want {
			t.Errorf("%s = %d %v, want %d", c.name, got, err, c.want)
		}
	}
	bools := []struct {
		name string
		f    func() (bool, error)
		want bool
	}{
		{"ignore-delete", o.IgnoreDelete, false},
		{"deletion-vectors.enabled", o.DeletionVectorsEnabled, false},
		{"deletion-vectors.bitmap64", o.DeletionVectorsBitmap64, false},
		{"partition.legacy-name", o.PartitionLegacyName, true},
		{"commit.force-compact", o.CommitForceCompact, false},
		{"compaction.force-up-level-0", o.CompactionForceUpLevel0, false},
		{"metadata.stats-dense-store", o.MetadataStatsDenseStore, true},
		{"file.suffix.include.compression", o.FileSuffixIncludeCompression, false},
		{"data-file.thin-mode", o.DataFileThinMode, false},
		{"write-only", o.WriteOnly, false},
		{"realtime.enabled", o.RealtimeEnabled, false},
		{"sequence descending", o.SequenceFieldDescending, false},
	}
	for _, c := range bools {
		got, err := c.f()
		if err != nil || got != c.want {
			t.Errorf("%s = %v %v, want %v", c.name, got, err, c.want)
		}
	}
	durs := []struct {
		name string
		f    func() (time.Duration, error)
		want time.Duration
	}{
		{"snapshot.time-retained", o.SnapshotTimeRetained, time.Hour},
		{"commit.min-retry-wait", o.CommitMinRetryWait, 10 * time.Millisecond},
		{"commit.max-retry-wait", o.CommitMaxRetryWait, 10 * time.Second},
		{"realtime.read-view-ttl", o.RealtimeReadViewTTL, 5 * time.Minute},
	}
	for _, c := range durs {
		got, err := c.f()
		if err != nil || got != c.want {
			t.Errorf("%s = %v %v, want %v", c.name, got, err, c.want)
		}
	}
	strs := map[string]string{
		"file.format":            o.FileFormat(),
		"manifest.format":        o.ManifestFormat(),
		"manifest.compression":   o.ManifestCompression(),
		"file.compression":       o.FileCompression(),
		"partition.default-name": o.PartitionDefaultName(),
		"scan.fallback-branch":   o.ScanFallbackBranch(),
		"data-file.prefix":       o.DataFilePrefix(),
		"changelog-file.prefix":  o.ChangelogFilePrefix(),
	}
	wantStrs := map[string]string{
		"file.format": "parquet", "manifest.format": "avro", "manifest.compression": "zstd",
		"file.compression": "zstd", "partition.default-name": "__DEFAULT_PARTITION__",
		"scan.fallback-branch": "", "data-file.prefix": "data-", "changelog-file.prefix": "changelog-",
	}
	for k, v := range strs {
		if v != wantStrs[k] {
			t.Errorf("%s = %q, want %q", k, v, wantStrs[k])
		}
	}
	if me, err := o.MergeEngine(); me != MergeDeduplicate || err != nil {
		t.Errorf("merge-engine = %q %v", me, err)
	}
	if cp, err := o.ChangelogProducer(); cp != ChangelogNone || err != nil {
		t.Errorf("changelog-producer = %q %v", cp, err)
	}
	if m, err := o.MetadataStatsMode(); m != (StatsMode{Kind: StatsTruncate, TruncateLength: 16}) || err != nil || m.String() != "truncate(16)" {
		t.Errorf("metadata.stats-mode = %v %v", m, err)
	}
	if s, err := o.RealtimeStoreStatsMode(); s != "none" || err != nil {
		t.Errorf("realtime.store.stats-mode = %q %v", s, err)
	}
	if bf, err := o.BucketFunctionType(); bf != "default" || err != nil {
		t.Errorf("bucket-function.type = %q %v", bf, err)
	}
	if _, set, err := o.FullCompactionDeltaCommits(); set || err != nil {
		t.Errorf("full-compaction.delta-commits set=%v %v", set, err)
	}
	if _, set, err := o.CommitTimeout(); set || err != nil {
		t.Errorf("commit.timeout set=%v %v", set, err)
	}
	if r, err := o.CompactionSmallFileRatio(); r != 0.7 || err != nil {
		t.Errorf("compaction.small-file-ratio = %v %v", r, err)
	}
	if o.BucketKey() != nil || o.SequenceField() != nil {
		t.Error("list options not nil")
	}
}

func TestOptionValues(t *testing.T) {
	o := Options{
		"bucket":                            "4",
		"bucket-key":                        "a,b",
		"file.format":                       "ORC",
		"target-file-size":                  "64 mb",
		"merge-engine":                      "Partial-Update",
		"changelog-producer":                "LOOKUP",
		"sequence.field":                    "ts",
		"sequence.field.sort-order":         "DESCENDING",
		"deduplicate.ignore-delete":         "TRUE",
		"num-sorted-run.compaction-trigger": "3",
		"num-sorted-run.stop-trigger":       "2",
		"full-compaction.delta-commits":     "7",
		"snapshot.time-retained":            "30 min",
		"metadata.stats-mode":               "FULL",
		"fields.name.stats-mode":            "Truncate(8)",
		"commit.timeout":                    "2 s",
		"realtime.enabled":                  "true",
		"realtime.read-view-ttl":            "10 ms",
		"realtime.store.stats-mode":         "full",
		"write.compaction-skip":             "true",
	}
	check := func(name string, got, want any, err error) {
		t.Helper()
		if err != nil || got != want {
			t.Errorf("%s = %v %v, want %v", name, got, err, want)
		}
	}
	n, err := o.Bucket()
	check("bucket", n, 4, err)
	if bk := o.BucketKey(); strings.Join(bk, "|") != "a|b" {
		t.Errorf("bucket-key = %q", bk)
	}
	check("file.format", o.FileFormat(), "orc", nil)
	sz, err := o.TargetFileSize(true)
	check("target-file-size", sz, int64(64<<20), err)
	me, err := o.MergeEngine()
	check("merge-engine", me, MergePartialUpdate, err)
	cp, err := o.ChangelogProducer()
	check("changelog-producer", cp, ChangelogLookup, err)
	desc, err := o.SequenceFieldDescending()
	check("sort-order", desc, true, err)
	ig, err := o.IgnoreDelete()
	check("ignore-delete fallback", ig, true, err)
	stop, err := o.NumSortedRunStopTrigger()
	check("stop-trigger below trigger", stop, 3, err)
	lv, err := o.NumLevels()
	check("num-levels", lv, 4, err)
	fc, set, err := o.FullCompactionDeltaCommits()
	check("delta-commits", fc, 7, err)
	check("delta-commits set", set, true, nil)
	d, err := o.SnapshotTimeRetained()
	check("time-retained", d, 30*time.Minute, err)
	m, err := o.MetadataStatsMode()
	check("stats-mode", m, StatsMode{Kind: StatsFull}, err)
	fm, err := o.FieldStatsMode("name")
	check("field stats-mode", fm, StatsMode{Kind: StatsTruncate, TruncateLength: 8}, err)
	fm, err = o.FieldStatsMode("other")
	check("other field stats-mode", fm, StatsMode{Kind: StatsFull}, err)
	to, set, err := o.CommitTimeout()
	check("commit.timeout", to, 2*time.Second, err)
	check("commit.timeout set", set, true, nil)
	rt, err := o.RealtimeEnabled()
	check("realtime.enabled", rt, true, err)
	ttl, err := o.RealtimeReadViewTTL()
	check("read-view-ttl", ttl, 10*time.Millisecond, err)
	sm, err := o.RealtimeStoreStatsMode()
	check("realtime stats", sm, "full", err)
	wo, err := o.WriteOnly()
	check("write-only fallback", wo, true, err)

	// main key wins over fallback keys
	o2 := Options{"ignore-delete": "false", "first-row.ignore-delete": "true"}
	ig, err = o2.IgnoreDelete()
	check("ignore-delete main key", ig, false, err)
	if c := o.Clone(); c["bucket"] != "4" || len(c) != len(o) {
		t.Error("Clone")
	}
}

func TestOptionErrorsNameKey(t *testing.T) {
	cases := []struct {
		key, value string
		get        func(Options) error
	}{
		{"bucket", "x", func(o Options) error { _, err := o.Bucket(); return err }},
		{"bucket", " 2", func(o Options) error { _, err := o.Bucket(); return err }},
		{"bucket", "3000000000", func(o Options) error { _, err := o.Bucket(); return err }},
		{"write-buffer-size", "lots", func(o Options) error { _, err := o.WriteBufferSize(); return err }},
		{"target-file-size", "1 zb", func(o Options) error { _, err := o.TargetFileSize(false); return err }},
		{"snapshot.time-retained", "1 fortnight", func(o Options) error { _, err := o.SnapshotTimeRetained(); return err }},
		{"merge-engine", "partial_update", func(o Options) error { _, err := o.MergeEngine(); return err }},
		{"changelog-producer", "always", func(o Options) error { _, err := o.ChangelogProducer(); return err }},
		{"deletion-vectors.enabled", "yes", func(o Options) error { _, err := o.DeletionVectorsEnabled(); return err }},
		{"partition.legacy-name", "1", func(o Options) error { _, err := o.PartitionLegacyName(); return err }},
		{"metadata.stats-mode", "truncate(x)", func(o Options) error { _, err := o.MetadataStatsMode(); return err }},
		{"fields.a.stats-mode", "some", func(o Options) error { _, err := o.FieldStatsMode("a"); return err }},
		{"num-sorted-run.stop-trigger", "many", func(o Options) error { _, err := o.NumSortedRunStopTrigger(); return err }},
		{"num-sorted-run.compaction-trigger", "many", func(o Options) error { _, err := o.NumLevels(); return err }},
		{"realtime.read-view-ttl", "0 s", func(o Options) error { _, err := o.RealtimeReadViewTTL(); return err }},
		{"realtime.store.stats-mode", "counts", func(o Options) error { _, err := o.RealtimeStoreStatsMode(); return err }},
		{"compaction.small-file-ratio", "big", func(o Options) error { _, err := o.CompactionSmallFileRatio(); return err }},
		{"dynamic-bucket.target-row-num", "1e6", func(o Options) error { _, err := o.DynamicBucketTargetRowNum(); return err }},
		{"ignore-delete", "maybe", func(o Options) error { _, err := o.IgnoreDelete(); return err }},
		{"commit.timeout", "soon", func(o Options) error { _, _, err := o.CommitTimeout(); return err }},
	}
	for _, c := range cases {
		err := c.get(Options{c.key: c.value})
		if !errors.Is(err, ErrInvalidOption) {
			t.Errorf("%s=%q: err = %v, want ErrInvalidOption", c.key, c.value, err)
			continue
		}
		if !strings.Contains(err.Error(), c.key) {
			t.Errorf("%s=%q: error %q does not name the key", c.key, c.value, err)
		}
	}
}

func TestParseStatsMode(t *testing.T) {
	for in, want := range map[string]StatsMode{
		"none": {Kind: StatsNone}, "Counts": {Kind: StatsCounts}, "full": {Kind: StatsFull},
		"truncate(16)": {Kind: StatsTruncate, TruncateLength: 16}, "TRUNCATE(128)": {Kind: StatsTruncate, TruncateLength: 128},
	} {
		got, err := ParseStatsMode(in)
		if err != nil || got != want {
			t.Errorf("ParseStatsMode(%q) = %v %v", in, got, err)
		}
	}
	for _, bad := range []string{"", "truncate()", "truncate(-1)", "truncate(16", "trunc(3)", "truncate( 3)"} {
		if _, err := ParseStatsMode(bad); err == nil {
			t.Errorf("ParseStatsMode(%q) accepted", bad)
		}
	}
}

// TestExpirationOptions: the options of automatic expiration after commits
// (Java CoreOptions), defaults and parsed values.
func TestExpirationOptions(t *testing.T) {
	o := Options{}
	if m, err := o.SnapshotExpireExecutionMode(); m != "sync" || err != nil {
		t.Errorf("execution-mode default %q %v", m, err)
	}
	if d, set, err := o.PartitionExpirationTime(); d != 0 || set || err != nil {
		t.Errorf("partition.expiration-time default %v %v %v", d, set, err)
	}
	if d, err := o.PartitionExpirationCheckInterval(); d != time.Hour || err != nil {
		t.Errorf("check-interval default %v %v", d, err)
	}
	if s, err := o.PartitionExpirationStrategy(); s != "values-time" || err != nil {
		t.Errorf("strategy default %q %v", s, err)
	}
	if n, err := o.PartitionExpirationMaxNum(); n != 100 || err != nil {
		t.Errorf("max-num default %d %v", n, err)
	}
	if n, set, err := o.PartitionExpirationBatchSize(); n != 0 || set || err != nil {
		t.Errorf("batch-size default %d %v %v", n, set, err)
	}
	if b, err := o.EndInputCheckPartitionExpire(); b || err != nil {
		t.Errorf("end-input default %v %v", b, err)
	}
	if o.PartitionTimestampFormatter() != "" || o.PartitionTimestampPattern() != "" {
		t.Error("formatter/pattern defaults not empty")
	}
	o = Options{
		KeySnapshotExpireExecutionMode: "ASYNC", KeyPartitionExpirationTime: "7 d",
		KeyPartitionExpirationCheckInterv: "10 min", KeyPartitionExpirationStrategy: "update-time",
		KeyPartitionExpirationMaxNum: "5", KeyPartitionExpirationBatchSize: "2", KeyEndInputCheckPartitionExpire: "true",
	}
	if m, err := o.SnapshotExpireExecutionMode(); m != "async" || err != nil {
		t.Errorf("execution-mode %q %v", m, err)
	}
	if d, set, err := o.PartitionExpirationTime(); d != 7*24*time.Hour || !set || err != nil {
		t.Errorf("partition.expiration-time %v %v %v", d, set, err)
	}
	if d, err := o.PartitionExpirationCheckInterval(); d != 10*time.Minute || err != nil {
		t.Errorf("check-interval %v %v", d, err)
	}
	if s, err := o.PartitionExpirationStrategy(); s != "update-time" || err != nil {
		t.Errorf("strategy %q %v", s, err)
	}
	if n, set, err := o.PartitionExpirationBatchSize(); n != 2 || !set || err != nil {
		t.Errorf("batch-size %d %v %v", n, set, err)
	}
	for k, v := range map[string]string{KeySnapshotExpireExecutionMode: "later", KeyPartitionExpirationStrategy: "age",
		KeyPartitionExpirationTime: "soon"} {
		bad := Options{k: v}
		_, err1 := bad.SnapshotExpireExecutionMode()
		_, err2 := bad.PartitionExpirationStrategy()
		_, _, err3 := bad.PartitionExpirationTime()
		if err := errors.Join(err1, err2, err3); !errors.Is(err, ErrInvalidOption) {
			t.Errorf("%s=%q: %v, want ErrInvalidOption", k, v, err)
		}
	}
}

// TestCrossPartitionUpsertIndexTTL: cross-partition-upsert.index-ttl has no
// default, parses Java durations and rejects others.
func TestCrossPartitionUpsertIndexTTL(t *testing.T) {
	if d, set, err := (Options{}).CrossPartitionUpsertIndexTTL(); d != 0 || set || err != nil {
		t.Errorf("default %v %v %v", d, set, err)
	}
	if d, set, err := (Options{"cross-partition-upsert.index-ttl": "2 h"}).CrossPartitionUpsertIndexTTL(); d != 2*time.Hour || !set || err != nil {
		t.Errorf("2 h: %v %v %v", d, set, err)
	}
	if _, set, err := (Options{"cross-partition-upsert.index-ttl": "soon"}).CrossPartitionUpsertIndexTTL(); set || !errors.Is(err, ErrInvalidOption) {
		t.Errorf("soon: %v %v, want ErrInvalidOption", set, err)
	}
}
