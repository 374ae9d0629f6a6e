package datafile

import (
	"errors"
	"fmt"
	"maps"
	"strconv"
	"strings"
	"time"

	"github.com/apache/arrow-go/v18/arrow/memory"

	"github.com/paimon-go/paimon/format"
	"github.com/paimon-go/paimon/format/parquet"
	"github.com/paimon-go/paimon/manifest"
	"github.com/paimon-go/paimon/row"
	"github.com/paimon-go/paimon/schema"
	"github.com/paimon-go/paimon/types"
)

// Sentinel errors; test with errors.Is.
var (
	// ErrUnsupported: a file format this package does not write (parquet,
	// avro and orc are written), named with the option that asks for it.
	ErrUnsupported = errors.New("datafile: unsupported data file format or placement")
	// ErrSchema: a batch given to a key-value RollingWriter whose
	// _SEQUENCE_NUMBER, _VALUE_KIND or key columns do not have the layout's
	// types.
	ErrSchema = errors.New("datafile: batch does not match the file layout")
)

// Field ids and names of the system columns of key-value data files (Java
// SpecialFields): the _KEY_<pk> columns take KeyFieldIDStart + the key
// field's id.
const (
	KeyFieldPrefix       = "_KEY_"
	KeyFieldIDStart      = 1073741823 // Integer.MAX_VALUE / 2
	SequenceNumberID     = 2147483646 // Integer.MAX_VALUE - 1
	ValueKindID          = 2147483645 // Integer.MAX_VALUE - 2
	SequenceNumberColumn = "_SEQUENCE_NUMBER"
	ValueKindColumn      = "_VALUE_KIND"
)

// Option keys of the per-level file settings of key-value files (Java
// CoreOptions map options, "level:value,level:value").
const (
	KeyFileFormatPerLevel      = "file.format.per.level"
	KeyFileCompressionPerLevel = "file.compression.per.level"
	KeyStatsModePerLevel       = "metadata.stats-mode.per.level"
)

// Option keys of changelog files (Java CoreOptions CHANGELOG_FILE_FORMAT,
// CHANGELOG_FILE_COMPRESSION, CHANGELOG_FILE_STATS_MODE; no defaults: unset,
// changelog files take the settings of level-0 data files).
const (
	KeyChangelogFileFormat      = "changelog-file.format"
	KeyChangelogFileCompression = "changelog-file.compression"
	KeyChangelogFileStatsMode   = "changelog-file.stats-mode"
)

// systemTruncate is the stats mode Java gives system columns (_KEY_*,
// _SEQUENCE_NUMBER, _VALUE_KIND) unless a per-field mode is set: truncate(128)
// (StatsCollectorFactories.createStatsFactories).
var systemTruncate = schema.StatsMode{Kind: schema.StatsTruncate, TruncateLength: 128}

// KeyValueFields returns the columns of a primary-key data file of ts:
// _KEY_<pk> for the trimmed primary key (ids KeyFieldIDStart + id, the key
// columns' types), _SEQUENCE_NUMBER BIGINT NOT NULL, _VALUE_KIND TINYINT NOT
// NULL and then all table columns (KeyValue.createKeyValueFields, format doc
// 11.1).
func KeyValueFields(ts *schema.TableSchema) []types.DataField {
	var out []types.DataField
	for _, f := range ts.TrimmedPrimaryKeyFields() {
		out = append(out, types.DataField{ID: KeyFieldIDStart + f.ID, Name: KeyFieldPrefix + f.Name, Type: f.Type})
	}
	out = append(out,
		types.DataField{ID: SequenceNumberID, Name: SequenceNumberColumn, Type: types.BigInt().NotNull()},
		types.DataField{ID: ValueKindID, Name: ValueKindColumn, Type: types.TinyInt().NotNull()})
	return append(out, ts.Fields...)
}

// Config selects the files a Layout describes.
type Config struct {
	// Level is the LSM level recorded in the files' metadata: 0 for the
	// files of the write path, the output level for compaction outputs.
	Level int
	// Source is the file source recorded in the metadata:
	// manifest.SourceAppend for the write path, manifest.SourceCompact for
	// compaction outputs.
	Source manifest.FileSource
	// RowGroupBytes, when positive, is the Parquet row group size
	// (parquet.block.size) used unless the table sets one: a Parquet writer
	// holds its open row group in memory. 0 keeps the format's default.
	RowGroupBytes int64
	// Allocator allocates the Parquet writer's Arrow buffers; nil means
	// memory.DefaultAllocator.
	Allocator memory.Allocator
	// Now is the clock of creation times; nil means time.Now.
	Now func() time.Time
	// Changelog selects changelog files instead of data files (key-value
	// layouts only; Java KeyValueFileWriterFactory's WriteFormatKey with
	// isChangelog): named changelog-file.prefix (default "changelog-")
	// instead of data-file.prefix, in changelog-file.format,
	// changelog-file.compression and changelog-file.stats-mode where set,
	// else as the data files of Level.
	Changelog bool
}

// Layout describes the data files of one table at one level: their columns,
// statistics, format options and metadata (Java RowDataFileWriter /
// KeyValueDataFileWriter as KeyValueFileWriterFactory and
// RowDataRollingFileWriter configure them). A Layout is immutable and safe
// for concurrent use by any number of RollingWriters.
type Layout struct {
	ts       *schema.TableSchema
	kv       bool
	fields   []types.DataField // written columns
	nk       int               // number of _KEY_ columns (key-value files)
	keyTypes []types.DataType
	modes    []schema.StatsMode // per written column
	dense    bool
	format   string
	ff       format.Format
	options  map[string]string // given to the format's writer
	target   int64
	prefix   string
	level    int
	source   manifest.FileSource
	mem      memory.Allocator
	now      func() time.Time
	ext      *externalPaths // nil: files go into the bucket directory
	// blooms are the file-index.bloom-filter.columns; indexes of at most
	// indexThreshold bytes are embedded in DataFileMeta.
	blooms         []bloomColumn
	indexThreshold int64
}

// NewLayout returns the layout of the data files of ts (a primary-key table
// writes the KeyValue layout, others the table row) with cfg's level and
// source. Key-value files follow file.format.per.level,
// file.compression.per.level and metadata.stats-mode.per.level for their
// level, as Java's KeyValueFileWriterFactory does; append files use the
// table-wide settings. Statistics modes are resolved as Java's
// StatsCollectorFactories: "fields.<name>.stats-mode" first, truncate(128)
// for system columns, then metadata.stats-mode for the first
// metadata.stats-keep-first-n-columns other columns and none for the rest.
//
// With data-file.external-paths and a strategy other than none, every new
// file goes below one of those roots instead of the table, in the bucket's
// relative directory (Java FileStorePathFactory.relativeBucketPath with
// data-file.path-directory), and its DataFileMeta records the location in
// _EXTERNAL_PATH (Java DataFilePathFactory with an ExternalPathProvider):
// round-robin (and specific-fs over the roots of that file system) from a
// random first root per Namer, weighted (data-file.external-paths.weights)
// by a weighted random draw per file, entropy-inject round-robin from the
// second root with three hash directories before the name.
//
// Errors: ErrUnsupported for a file format this package does not write
// (naming file.format or file.format.per.level); schema.ErrInvalidOption for
// malformed options.
func NewLayout(ts *schema.TableSchema, cfg Config) (*Layout, error) {
	o := ts.Options
	l := &Layout{
		ts: ts, kv: len(ts.PrimaryKeys) > 0, level: cfg.Level, source: cfg.Source,
		prefix: o.DataFilePrefix(), mem: cfg.Allocator, now: cfg.Now,
		format: strings.ToLower(o.FileFormat()), options: o,
	}
	if l.mem == nil {
		l.mem = memory.DefaultAllocator
	}
	if l.now == nil {
		l.now = time.Now
	}
	var err error
	if l.ext, err = parseExternalPaths(o); err != nil {
		return nil, err
	}
	formatKey := "file.format"
	def, err := o.MetadataStatsMode()
	if err != nil {
		return nil, err
	}
	if l.kv {
		formats, err := parseLevelMap(o, KeyFileFormatPerLevel)
		if err != nil {
			return nil, err
		}
		if f, ok := formats[l.level]; ok {
			l.format, formatKey = strings.ToLower(f), KeyFileFormatPerLevel
		}
		comps, err := parseLevelMap(o, KeyFileCompressionPerLevel)
		if err != nil {
			return nil, err
		}
		if c, ok := comps[l.level]; ok {
			l.options = maps.Clone(l.options)
			l.options[parquet.OptionFileCompression] = c
		}
		modes, err := parseLevelMap(o, KeyStatsModePerLevel)
		if err != nil {
			return nil, err
		}
		if m, ok := modes[l.level]; ok {
			if def, err = schema.ParseStatsMode(m); err != nil {
				return nil, fmt.Errorf("%w: %s: %w", schema.ErrInvalidOption, KeyStatsModePerLevel, err)
			}
		}
		if cfg.Changelog {
			if formatKey, def, err = l.changelog(formatKey, def); err != nil {
				return nil, err
			}
		}
	}
	ff, writes := lookupFormat(l.format)
	if !writes {
		return nil, fmt.Errorf("%w: %s = %s for level %d (parquet, avro and orc are written)", ErrUnsupported, formatKey, l.format, l.level)
	}
	l.ff = ff
	if l.target, err = o.TargetFileSize(l.kv); err != nil {
		return nil, err
	}
	if l.dense, err = o.MetadataStatsDenseStore(); err != nil {
		return nil, err
	}
	if _, set := o.Get(parquet.OptionBlockSize); !set && cfg.RowGroupBytes > 0 {
		l.options = maps.Clone(l.options)
		l.options[parquet.OptionBlockSize] = strconv.FormatInt(cfg.RowGroupBytes, 10)
	}
	system := 0
	if l.kv {
		l.fields = KeyValueFields(ts)
		l.nk = len(ts.TrimmedPrimaryKeys())
		l.keyTypes = row.FieldTypes(l.fields[:l.nk])
		system = l.nk + 2
	} else {
		l.fields = ts.Fields
	}
	if l.modes, err = statsModes(o, def, l.fields, system); err != nil {
		return nil, err
	}
	if l.blooms, l.indexThreshold, err = parseFileIndex(o, l.fields, system); err != nil {
		return nil, err
	}
	return l, nil
}

// changelog applies the changelog-file options to a key-value layout
// (KeyValueFileWriterFactory.Builder's key2Format, key2Compress and
// key2Stats for changelog keys): it returns the option naming the format and
// the default stats mode.
func (l *Layout) changelog(formatKey string, def schema.StatsMode) (string, schema.StatsMode, error) {
	o := l.ts.Options
	l.prefix = o.ChangelogFilePrefix()
	if f, ok := o.Get(KeyChangelogFileFormat); ok {
		l.format, formatKey = strings.ToLower(f), KeyChangelogFileFormat
	}
	if c, ok := o.Get(KeyChangelogFileCompression); ok {
		l.options = maps.Clone(l.options)
		l.options[parquet.OptionFileCompression] = c
	}
	if m, ok := o.Get(KeyChangelogFileStatsMode); ok {
		var err error
		if def, err = schema.ParseStatsMode(m); err != nil {
			return "", def, fmt.Errorf("%w: %s: %w", schema.ErrInvalidOption, KeyChangelogFileStatsMode, err)
		}
	}
	return formatKey, def, nil
}

// Format returns the file format written (its name, as in file names).
func (l *Layout) Format() string { return l.format }

// Fields returns the written columns: KeyValueFields(ts) for primary-key
// tables, the table fields otherwise. RollingWriter.Write takes batches of
// types.SchemaToArrow(Fields()). The slice must not be modified.
func (l *Layout) Fields() []types.DataField { return l.fields }

// KeyValue reports whether the files have the KeyValue layout.
func (l *Layout) KeyValue() bool { return l.kv }

// Level returns the level recorded in the files' metadata.
func (l *Layout) Level() int { return l.level }

// TargetFileSize returns target-file-size in bytes, where files roll.
func (l *Layout) TargetFileSize() int64 { return l.target }

// creationTime is Java's Timestamp.fromLocalDateTime(LocalDateTime.now())
// in millis: the local wall clock read as if it were UTC (format doc 6.2).
func (l *Layout) creationTime() *int64 {
	t := l.now()
	_, off := t.Zone()
	ms := t.UnixMilli() + int64(off)*1000
	return &ms
}

// parseLevelMap parses a Java map option "0:lz4,1:zstd" into level → value.
func parseLevelMap(o schema.Options, key string) (map[int]string, error) {
	raw, ok := o.Get(key)
	if !ok || strings.TrimSpace(raw) == "" {
		return nil, nil
	}
	out := map[int]string{}
	for _, kv := range strings.Split(raw, ",") {
		k, v, found := strings.Cut(kv, ":")
		lvl, err := strconv.Atoi(strings.TrimSpace(k))
		if !found || err != nil {
			return nil, fmt.Errorf("%w: %s = %q: entry %q is not level:value", schema.ErrInvalidOption, key, raw, kv)
		}
		out[lvl] = strings.TrimSpace(v)
	}
	return out, nil
}
