package compaction

// The data-file writing of compaction outputs. It duplicates the level-0
// file writing of package writer (bucketWriter.newFile, writeRolling,
// closeKVFile / closeAppendFile, statsModes, applyStatsMode), which is not
// exported; the stats rules are Java's StatsCollectorFactories and
// SimpleColStatsCollector, the metadata Java's KeyValueDataFileWriter.result
// and RowDataFileWriter.result.

import (
	"context"
	"errors"
	"fmt"
	"io"
	"maps"
	"strconv"
	"strings"
	"time"
	"unicode/utf8"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"
	"github.com/apache/arrow-go/v18/arrow/memory"

	"github.com/paimon-go/paimon/fileio"
	"github.com/paimon-go/paimon/format"
	"github.com/paimon-go/paimon/format/parquet"
	"github.com/paimon-go/paimon/manifest"
	"github.com/paimon-go/paimon/merge"
	"github.com/paimon-go/paimon/row"
	"github.com/paimon-go/paimon/schema"
	"github.com/paimon-go/paimon/types"
	"github.com/paimon-go/paimon/writer"
)

// Option keys of per-level file settings (Java CoreOptions map options,
// "level:value,level:value").
const (
	KeyFileFormatPerLevel      = "file.format.per.level"
	KeyFileCompressionPerLevel = "file.compression.per.level"
	KeyStatsModePerLevel       = "metadata.stats-mode.per.level"
)

// defaultRowGroupBytes is the Parquet row group size of compaction outputs
// unless the table sets parquet.block.size: a Parquet writer holds its open
// row group in memory, and package writer uses the same 32 MiB for level-0
// files to bound its memory (Java's default is 128 MiB).
const defaultRowGroupBytes = 32 << 20

// rollCheckRows is how many rows are written between two checks of the
// target file size (Java's RollingFileWriter checks every 1000 records).
const rollCheckRows = 1000

// systemTruncate is the stats mode of system columns (_KEY_*,
// _SEQUENCE_NUMBER, _VALUE_KIND) unless a per-field mode is set.
var systemTruncate = schema.StatsMode{Kind: schema.StatsTruncate, TruncateLength: 128}

// fileLayout describes the data files compaction writes for one table and
// output level.
type fileLayout struct {
	ts       *schema.TableSchema
	pk       bool
	fields   []types.DataField // written columns: KeyValue layout or table fields
	nk       int               // number of _KEY_ columns (primary-key tables)
	keyTypes []types.DataType
	modes    []schema.StatsMode // per written column
	dense    bool
	options  map[string]string // given to the Parquet writer
	target   int64             // target-file-size
	prefix   string            // data-file.prefix
	level    int
	mem      memory.Allocator
	now      func() time.Time
}

// namer names the files of one bucket's compaction:
// "<data-file.prefix><uuid>-<n>.parquet", one uuid per bucket and a counter
// (Java DataFilePathFactory).
type namer struct {
	uuid  string
	count int
}

func (n *namer) next(prefix string) string {
	name := prefix + n.uuid + "-" + strconv.Itoa(n.count) + ".parquet"
	n.count++
	return name
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

// newFileLayout prepares writing files of ts at level (primary-key tables:
// the KeyValue layout; append tables: the table row).
func newFileLayout(ts *schema.TableSchema, level int, mem memory.Allocator, now func() time.Time) (*fileLayout, error) {
	o := ts.Options
	l := &fileLayout{ts: ts, pk: len(ts.PrimaryKeys) > 0, level: level, mem: mem, now: now, prefix: o.DataFilePrefix()}
	format := o.FileFormat()
	formats, err := parseLevelMap(o, KeyFileFormatPerLevel)
	if err != nil {
		return nil, err
	}
	if f, ok := formats[level]; ok {
		format = strings.ToLower(f)
	}
	if format != "parquet" {
		return nil, fmt.Errorf("%w: file format %q for level %d (only parquet is written)", ErrUnsupported, format, level)
	}
	if l.target, err = o.TargetFileSize(l.pk); err != nil {
		return nil, err
	}
	if l.dense, err = o.MetadataStatsDenseStore(); err != nil {
		return nil, err
	}
	l.options = maps.Clone(map[string]string(o))
	if _, set := o.Get(parquet.OptionBlockSize); !set {
		l.options[parquet.OptionBlockSize] = strconv.Itoa(defaultRowGroupBytes)
	}
	comps, err := parseLevelMap(o, KeyFileCompressionPerLevel)
	if err != nil {
		return nil, err
	}
	if c, ok := comps[level]; ok {
		l.options[parquet.OptionFileCompression] = c
	}
	def, err := o.MetadataStatsMode()
	if err != nil {
		return nil, err
	}
	perLevel, err := parseLevelMap(o, KeyStatsModePerLevel)
	if err != nil {
		return nil, err
	}
	if m, ok := perLevel[level]; ok {
		if def, err = schema.ParseStatsMode(m); err != nil {
			return nil, fmt.Errorf("%w: %s: %w", schema.ErrInvalidOption, KeyStatsModePerLevel, err)
		}
	}
	if l.pk {
		l.fields = writer.KeyValueFields(ts)
		l.nk = len(ts.TrimmedPrimaryKeys())
		l.keyTypes = row.FieldTypes(l.fields[:l.nk])
	} else {
		l.fields = ts.Fields
	}
	system := 0
	if l.pk {
		system = l.nk + 2
	}
	if l.modes, err = statsModes(o, def, l.fields, system); err != nil {
		return nil, err
	}
	return l, nil
}

// statsModes resolves each written column's stats mode as Java's
// StatsCollectorFactories.createStatsFactories: "fields.<name>.stats-mode"
// first, truncate(128) for the first `system` columns, then def for the
// first metadata.stats-keep-first-n-columns other columns and none for the
// rest.
func statsModes(o schema.Options, def schema.StatsMode, fields []types.DataField, system int) ([]schema.StatsMode, error) {
	keepFirst, err := o.MetadataStatsKeepFirstNColumns()
	if err != nil {
		return nil, err
	}
	out := make([]schema.StatsMode, len(fields))
	count := 0
	for i, f := range fields {
		if raw, ok := o.Get("fields." + f.Name + ".stats-mode"); ok {
			m, err := schema.ParseStatsMode(raw)
			if err != nil {
				return nil, fmt.Errorf("%w: fields.%s.stats-mode: %w", schema.ErrInvalidOption, f.Name, err)
			}
			out[i] = m
			count++
			continue
		}
		if i < system {
			out[i] = systemTruncate
			continue
		}
		if keepFirst >= 0 && count >= keepFirst {
			out[i] = schema.StatsMode{Kind: schema.StatsNone}
		} else {
			out[i] = def
		}
		count++
	}
	return out, nil
}

// applyStatsMode is SimpleColStatsCollector.convert of the None, Counts,
// Full and Truncate collectors.
func applyStatsMode(m schema.StatsMode, s format.ColumnStats) row.ColStats {
	nulls := int64(-1)
	if s.NullCountKnown {
		nulls = s.NullCount
	}
	switch m.Kind {
	case schema.StatsNone:
		return row.ColStats{NullCount: -1}
	case schema.StatsCounts:
		return row.ColStats{NullCount: nulls}
	case schema.StatsFull:
		return row.ColStats{Min: s.Min, Max: s.Max, NullCount: nulls}
	}
	lo := truncateMin(s.Min, m.TruncateLength)
	hi, ok := truncateMax(s.Max, m.TruncateLength)
	if !ok {
		return row.ColStats{NullCount: nulls}
	}
	return row.ColStats{Min: lo, Max: hi, NullCount: nulls}
}

// truncateMin keeps the first n code points of a string, n bytes of a binary.
func truncateMin(v any, n int) any {
	switch x := v.(type) {
	case string:
		return prefixRunes(x, n)
	case []byte:
		if len(x) > n {
			return x[:n]
		}
	}
	return v
}

func prefixRunes(s string, n int) string {
	i := 0
	for k := 0; k < n && i < len(s); k++ {
		_, size := utf8.DecodeRuneInString(s[i:])
		i += size
	}
	return s[:i]
}

// truncateMax returns an upper bound of v of at most n code points (bytes),
// incrementing the last code point (byte) that can be incremented; ok is
// false when there is none.
func truncateMax(v any, n int) (any, bool) {
	switch x := v.(type) {
	case string:
		t := prefixRunes(x, n)
		if len(t) == len(x) {
			return v, true
		}
		rs := []rune(t)
		for i := len(rs) - 1; i >= 0; i-- {
			next := rs[i] + 1
			if next >= 0xD800 && next <= 0xDFFF {
				next = 0xE000
			}
			if next <= utf8.MaxRune {
				rs = append(rs[:i], next)
				return string(rs), true
			}
		}
		return nil, false
	case []byte:
		if len(x) <= n {
			return v, true
		}
		t := append([]byte(nil), x[:n]...)
		for i := n - 1; i >= 0; i-- {
			if t[i] != 0xFF {
				t[i]++
				return t[:i+1], true
			}
		}
		return nil, false
	}
	return v, true
}

// encodeStats is SimpleStatsConverter.toBinary over fields with modes.
func encodeStats(fields []types.DataField, modes []schema.StatsMode, stats []format.ColumnStats, dense bool) (row.EncodedStats, error) {
	cs := make([]row.ColStats, len(fields))
	for i := range fields {
		var s format.ColumnStats
		if i < len(stats) {
			s = stats[i]
		}
		cs[i] = applyStatsMode(modes[i], s)
	}
	return row.EncodeStats(fields, cs, dense)
}

func simpleStats(s row.EncodedStats) manifest.SimpleStats {
	return manifest.SimpleStats{MinValues: row.Serialize(s.Min), MaxValues: row.Serialize(s.Max), NullCounts: s.NullCounts}
}

// rollingWriter writes compaction output files of one bucket at one level,
// rolling to a new file at target-file-size (Java RollingFileWriter over a
// KeyValueDataFileWriter or RowDataFileWriter with FileSource COMPACT).
type rollingWriter struct {
	fio    *fileio.FileIO
	dir    string // bucket directory, relative to the table root
	layout *fileLayout
	names  *namer
	cur    *openFile
	done   []manifest.DataFileMeta
	// nextSeq is the sequence number of the next append row (append
	// compaction renumbers rows from the first input file's minimum).
	nextSeq int64
}

type openFile struct {
	name, path     string
	out            io.WriteCloser
	fw             *parquet.Writer
	minSeq, maxSeq int64
	deletes        int64
	minKey, maxKey []any
}

func abortOut(out io.WriteCloser) {
	if a, ok := out.(fileio.Aborter); ok {
		_ = a.Abort()
	}
	_ = out.Close()
}

// open starts the next file, "<prefix><uuid>-<n>.parquet"
// (DataFilePathFactory.newPath).
func (w *rollingWriter) open(ctx context.Context) error {
	l := w.layout
	name := w.names.next(l.prefix)
	path := w.dir + "/" + name
	out, err := w.fio.Create(ctx, path)
	if err != nil {
		return fmt.Errorf("compaction: create %s: %w", path, err)
	}
	fw, err := parquet.NewWriter(ctx, out, path, l.fields, format.WriteOptions{Options: l.options, Allocator: l.mem})
	if err != nil {
		abortOut(out)
		return fmt.Errorf("compaction: %s: %w", path, err)
	}
	w.cur = &openFile{name: name, path: path, out: out, fw: fw, minSeq: -1, maxSeq: -1}
	return nil
}

// write writes rec (the columns of layout.fields), rolling files at target-file-size:
// while the rest of the batch fits below the target by the estimate it is
// written at once, otherwise in steps of about the rows that still fit (at
// least rollCheckRows), checking the file size after each.
func (w *rollingWriter) write(ctx context.Context, rec arrow.RecordBatch) error {
	n := rec.NumRows()
	size := recordSize(rec)
	target := w.layout.target
	for off := int64(0); off < n; {
		if w.cur == nil {
			if err := w.open(ctx); err != nil {
				return err
			}
		}
		step := n - off
		if est := w.cur.fw.EstimatedSize(); size > 0 && est+size*step/n > target {
			step = max(min((target-est)*n/size, step), min(rollCheckRows, step))
		}
		end := off + step
		part := rec
		if off != 0 || end != n {
			part = rec.NewSlice(off, end)
		}
		err := w.track(part)
		if err == nil {
			err = w.cur.fw.Write(ctx, part)
		}
		if part != rec {
			part.Release()
		}
		if err != nil {
			return fmt.Errorf("compaction: write %s: %w", w.cur.path, err)
		}
		off = end
		if w.cur.fw.EstimatedSize() >= target {
			if err := w.closeFile(ctx); err != nil {
				return err
			}
		}
	}
	return nil
}

// recordSize estimates the bytes of rec's values: fixed-width columns by
// width, strings and binaries by their value bytes plus offsets, other
// columns by their buffers.
func recordSize(rec arrow.RecordBatch) int64 {
	var sum int64
	for _, c := range rec.Columns() {
		n := int64(c.Len())
		switch a := c.(type) {
		case *array.String:
			if o := a.ValueOffsets(); len(o) > 0 {
				sum += 4*n + int64(o[len(o)-1]-o[0])
			}
			continue
		case *array.Binary:
			if o := a.ValueOffsets(); len(o) > 0 {
				sum += 4*n + int64(o[len(o)-1]-o[0])
			}
			continue
		case *array.Boolean:
			sum += (n + 7) / 8
			continue
		}
		if fw, ok := c.DataType().(arrow.FixedWidthDataType); ok {
			sum += n * int64(fw.BitWidth()+7) / 8
			continue
		}
		for _, b := range c.Data().Buffers() {
			if b != nil {
				sum += int64(b.Len())
			}
		}
	}
	return sum
}

// track records a slice's sequence numbers, retractions and keys
// (KeyValueDataFileWriter.write); append files only count rows.
func (w *rollingWriter) track(part arrow.RecordBatch) error {
	l, f := w.layout, w.cur
	n := int(part.NumRows())
	if n == 0 || !l.pk {
		return nil
	}
	seqs, ok := part.Column(l.nk).(*array.Int64)
	if !ok {
		return fmt.Errorf("%w: column %s is %s", ErrSchema, merge.SequenceNumberColumn, part.Column(l.nk).DataType())
	}
	for _, s := range seqs.Int64Values() {
		if f.minSeq < 0 || s < f.minSeq {
			f.minSeq = s
		}
		if s > f.maxSeq {
			f.maxSeq = s
		}
	}
	kinds, ok := part.Column(l.nk + 1).(*array.Int8)
	if !ok {
		return fmt.Errorf("%w: column %s is %s", ErrSchema, merge.ValueKindColumn, part.Column(l.nk+1).DataType())
	}
	for _, k := range kinds.Int8Values() {
		if merge.IsRetract(k) {
			f.deletes++
		}
	}
	var err error
	if f.minKey == nil {
		if f.minKey, err = keyAt(part, 0, l.keyTypes); err != nil {
			return err
		}
	}
	f.maxKey, err = keyAt(part, n-1, l.keyTypes)
	return err
}

// keyAt returns the key columns (the first len(keyTypes) columns) of row i.
func keyAt(rec arrow.RecordBatch, i int, keyTypes []types.DataType) ([]any, error) {
	out := make([]any, len(keyTypes))
	for k, t := range keyTypes {
		v, err := types.ArrowValue(t, rec.Column(k), i)
		if err != nil {
			return nil, fmt.Errorf("%w: key column %d: %w", ErrSchema, k, err)
		}
		out[k] = v
	}
	return out, nil
}

// creationTime is Java's LocalDateTime.now() stored as if UTC (format doc
// 6.2).
func (l *fileLayout) creationTime() *int64 {
	t := l.now()
	_, off := t.Zone()
	ms := t.UnixMilli() + int64(off)*1000
	return &ms
}

// closeFile finishes the open file and records its DataFileMeta.
func (w *rollingWriter) closeFile(ctx context.Context) error {
	f := w.cur
	if f == nil {
		return nil
	}
	w.cur = nil
	res, err := f.fw.Close(ctx)
	if err != nil {
		abortOut(f.out)
		return fmt.Errorf("compaction: close %s: %w", f.path, err)
	}
	if err := f.out.Close(); err != nil {
		return fmt.Errorf("compaction: publish %s: %w", f.path, err)
	}
	l := w.layout
	src := manifest.SourceCompact
	meta := manifest.DataFileMeta{
		FileName: f.name, FileSize: res.FileSize, RowCount: res.RowCount,
		SchemaID:     l.ts.ID,
		Level:        int32(l.level),
		ExtraFiles:   []string{},
		CreationTime: l.creationTime(),
		FileSource:   &src,
	}
	// Recorded before any error below, so that abort deletes the file.
	w.done = append(w.done, meta)
	m := &w.done[len(w.done)-1]
	if l.pk {
		ks, err := encodeStats(l.fields[:l.nk], l.modes[:l.nk], res.Stats[:min(l.nk, len(res.Stats))], false)
		if err != nil {
			return fmt.Errorf("compaction: key stats of %s: %w", f.path, err)
		}
		var vstats []format.ColumnStats
		if len(res.Stats) > l.nk+2 {
			vstats = res.Stats[l.nk+2:]
		}
		vs, err := encodeStats(l.fields[l.nk+2:], l.modes[l.nk+2:], vstats, l.dense)
		if err != nil {
			return fmt.Errorf("compaction: value stats of %s: %w", f.path, err)
		}
		minKey, err := row.Encode(l.keyTypes, f.minKey)
		if err != nil {
			return fmt.Errorf("compaction: min key of %s: %w", f.path, err)
		}
		maxKey, err := row.Encode(l.keyTypes, f.maxKey)
		if err != nil {
			return fmt.Errorf("compaction: max key of %s: %w", f.path, err)
		}
		deletes := f.deletes
		m.MinKey, m.MaxKey = row.Serialize(minKey), row.Serialize(maxKey)
		m.KeyStats, m.ValueStats, m.ValueStatsCols = simpleStats(ks), simpleStats(vs), vs.Cols
		m.MinSequenceNumber, m.MaxSequenceNumber = f.minSeq, f.maxSeq
		m.DeleteRowCount = &deletes
		return nil
	}
	vs, err := encodeStats(l.fields, l.modes, res.Stats, l.dense)
	if err != nil {
		return fmt.Errorf("compaction: value stats of %s: %w", f.path, err)
	}
	zero := int64(0)
	m.MinKey, m.MaxKey = manifest.EmptyRow(), manifest.EmptyRow()
	m.KeyStats, m.ValueStats, m.ValueStatsCols = manifest.EmptyStats(), simpleStats(vs), vs.Cols
	m.MinSequenceNumber = w.nextSeq
	w.nextSeq += res.RowCount
	m.MaxSequenceNumber = w.nextSeq - 1
	m.DeleteRowCount = &zero
	return nil
}

// finish closes the open file and returns the metas of all files written.
func (w *rollingWriter) finish(ctx context.Context) ([]manifest.DataFileMeta, error) {
	if err := w.closeFile(ctx); err != nil {
		return nil, err
	}
	return w.done, nil
}

// abort discards the open file and deletes the files already closed.
func (w *rollingWriter) abort(ctx context.Context) error {
	if w.cur != nil {
		abortOut(w.cur.out)
		w.cur = nil
	}
	var errs []error
	for _, f := range w.done {
		p := w.dir + "/" + f.FileName
		if err := w.fio.Delete(ctx, p); err != nil && !errors.Is(err, fileio.ErrNotExist) {
			errs = append(errs, fmt.Errorf("compaction: delete %s: %w", p, err))
		}
	}
	w.done = nil
	return errors.Join(errs...)
}
