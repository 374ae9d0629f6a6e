package manifest

import (
	"fmt"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"
)

// Conversion of manifest rows held in Arrow records (as produced by the ORC reader for tables
// with manifest.format=orc) into the typed structs. Columns are matched by name like the Avro
// fields; integer columns of any width are accepted, strings and binaries interchangeably, and
// timestamps in any unit (converted to milliseconds). Missing nullable columns stay null; a
// missing NOT NULL column is an error wrapping ErrCorrupt.

// arrowConverter converts all rows of one record batch.
type arrowConverter[T any] func(rec arrow.RecordBatch) ([]T, error)

// cols gives access to the children of a record or struct array by name.
type cols struct {
	names []string
	arrs  []arrow.Array
}

func recordCols(rec arrow.RecordBatch) cols {
	c := cols{}
	for i, f := range rec.Schema().Fields() {
		c.names = append(c.names, f.Name)
		c.arrs = append(c.arrs, rec.Column(i))
	}
	return c
}

func structCols(s *array.Struct) cols {
	c := cols{}
	st := s.DataType().(*arrow.StructType)
	for i, f := range st.Fields() {
		c.names = append(c.names, f.Name)
		c.arrs = append(c.arrs, s.Field(i))
	}
	return c
}

func (c cols) get(name string) arrow.Array {
	for i, n := range c.names {
		if n == name {
			return c.arrs[i]
		}
	}
	return nil
}

// conv accumulates the first conversion error.
type conv struct {
	err error
}

func (v *conv) failf(format string, args ...any) {
	if v.err == nil {
		v.err = fmt.Errorf("%w: "+format, append([]any{ErrCorrupt}, args...)...)
	}
}

// column returns the named column; a missing or null value of a required column is an error.
// ok is false when the value is null or the column is missing.
func (v *conv) column(c cols, name string, i int, required bool) (arrow.Array, bool) {
	a := c.get(name)
	if a == nil {
		if required {
			v.failf("missing column %s", name)
		}
		return nil, false
	}
	if i >= a.Len() {
		v.failf("column %s has %d rows, need row %d", name, a.Len(), i)
		return nil, false
	}
	if a.IsNull(i) {
		if required {
			v.failf("null value in required column %s row %d", name, i)
		}
		return nil, false
	}
	return a, true
}

func (v *conv) int64At(a arrow.Array, name string, i int) int64 {
	switch a := a.(type) {
	case *array.Int8:
		return int64(a.Value(i))
	case *array.Int16:
		return int64(a.Value(i))
	case *array.Int32:
		return int64(a.Value(i))
	case *array.Int64:
		return a.Value(i)
	case *array.Timestamp:
		return timestampMillis(a, i)
	}
	v.failf("column %s has type %s, want an integer", name, a.DataType())
	return 0
}

func timestampMillis(a *array.Timestamp, i int) int64 {
	x := int64(a.Value(i))
	switch a.DataType().(*arrow.TimestampType).Unit {
	case arrow.Second:
		return x * 1000
	case arrow.Millisecond:
		return x
	case arrow.Microsecond:
		return floorDiv(x, 1000)
	default:
		return floorDiv(x, 1_000_000)
	}
}

func floorDiv(a, b int64) int64 {
	q := a / b
	if (a%b != 0) && ((a < 0) != (b < 0)) {
		q--
	}
	return q
}

func (v *conv) bytesAt(a arrow.Array, name string, i int) []byte {
	switch a := a.(type) {
	case *array.Binary:
		return append([]byte{}, a.Value(i)...)
	case *array.LargeBinary:
		return append([]byte{}, a.Value(i)...)
	case *array.String:
		return []byte(a.Value(i))
	case *array.LargeString:
		return []byte(a.Value(i))
	case *array.FixedSizeBinary:
		return append([]byte{}, a.Value(i)...)
	}
	v.failf("column %s has type %s, want binary", name, a.DataType())
	return nil
}

func (v *conv) stringAt(a arrow.Array, name string, i int) string {
	switch a := a.(type) {
	case *array.String:
		return a.Value(i)
	case *array.LargeString:
		return a.Value(i)
	case *array.Binary:
		return string(a.Value(i))
	case *array.LargeBinary:
		return string(a.Value(i))
	}
	v.failf("column %s has type %s, want string", name, a.DataType())
	return ""
}

// listAt returns the element array and the [start, end) range of row i of a list column.
func (v *conv) listAt(a arrow.Array, name string, i int) (arrow.Array, int, int) {
	switch a := a.(type) {
	case *array.List:
		s, e := a.ValueOffsets(i)
		return a.ListValues(), int(s), int(e)
	case *array.LargeList:
		s, e := a.ValueOffsets(i)
		return a.ListValues(), int(s), int(e)
	}
	v.failf("column %s has type %s, want a list", name, a.DataType())
	return nil, 0, 0
}

func (v *conv) reqInt64(c cols, name string, i int) int64 {
	a, ok := v.column(c, name, i, true)
	if !ok {
		return 0
	}
	return v.int64At(a, name, i)
}

func (v *conv) reqInt32(c cols, name string, i int) int32 {
	x := v.reqInt64(c, name, i)
	if int64(int32(x)) != x {
		v.failf("column %s row %d: %d out of int range", name, i, x)
	}
	return int32(x)
}

func (v *conv) optInt64(c cols, name string, i int) *int64 {
	a, ok := v.column(c, name, i, false)
	if !ok {
		return nil
	}
	x := v.int64At(a, name, i)
	return &x
}

func (v *conv) optInt32(c cols, name string, i int) *int32 {
	p := v.optInt64(c, name, i)
	if p == nil {
		return nil
	}
	x := int32(*p)
	if int64(x) != *p {
		v.failf("column %s row %d: %d out of int range", name, i, *p)
	}
	return &x
}

func (v *conv) reqBytes(c cols, name string, i int) []byte {
	a, ok := v.column(c, name, i, true)
	if !ok {
		return nil
	}
	return v.bytesAt(a, name, i)
}

func (v *conv) optBytes(c cols, name string, i int) []byte {
	a, ok := v.column(c, name, i, false)
	if !ok {
		return nil
	}
	return v.bytesAt(a, name, i)
}

func (v *conv) reqString(c cols, name string, i int) string {
	a, ok := v.column(c, name, i, true)
	if !ok {
		return ""
	}
	return v.stringAt(a, name, i)
}

func (v *conv) optString(c cols, name string, i int) *string {
	a, ok := v.column(c, name, i, false)
	if !ok {
		return nil
	}
	s := v.stringAt(a, name, i)
	return &s
}

// strings reads a list<string> column; nil when null or missing.
func (v *conv) strings(c cols, name string, i int, required bool) []string {
	a, ok := v.column(c, name, i, required)
	if !ok {
		return nil
	}
	vals, s, e := v.listAt(a, name, i)
	if vals == nil {
		return nil
	}
	out := make([]string, 0, e-s)
	for j := s; j < e; j++ {
		if vals.IsNull(j) {
			v.failf("null element in %s row %d", name, i)
			return nil
		}
		out = append(out, v.stringAt(vals, name, j))
	}
	return out
}

// int64s reads a list<bigint> column; null elements become nullElem (or an error if
// nullElem is nil). Returns nil when the list is null or missing.
func (v *conv) int64s(c cols, name string, i int, nullElem *int64) []int64 {
	a, ok := v.column(c, name, i, false)
	if !ok {
		return nil
	}
	vals, s, e := v.listAt(a, name, i)
	if vals == nil {
		return nil
	}
	out := make([]int64, 0, e-s)
	for j := s; j < e; j++ {
		if vals.IsNull(j) {
			if nullElem == nil {
				v.failf("null element in %s row %d", name, i)
				return nil
			}
			out = append(out, *nullElem)
			continue
		}
		out = append(out, v.int64At(vals, name, j))
	}
	return out
}

func (v *conv) structAt(c cols, name string, i int, required bool) (cols, bool) {
	a, ok := v.column(c, name, i, required)
	if !ok {
		return cols{}, false
	}
	s, isStruct := a.(*array.Struct)
	if !isStruct {
		v.failf("column %s has type %s, want a struct", name, a.DataType())
		return cols{}, false
	}
	return structCols(s), true
}

func (v *conv) version(c cols, i int, want int32) {
	a, ok := v.column(c, "_VERSION", i, true)
	if !ok {
		return
	}
	got := v.int64At(a, "_VERSION", i)
	if v.err == nil && got != int64(want) {
		v.err = fmt.Errorf("%w: _VERSION %d, want %d", ErrUnsupportedVersion, got, want)
	}
}

func (v *conv) kind(c cols, i int) FileKind {
	k := v.reqInt64(c, "_KIND", i)
	if k != int64(Add) && k != int64(Delete) {
		v.failf("invalid _KIND %d", k)
	}
	return FileKind(k)
}

func (v *conv) stats(c cols, name string, i int) SimpleStats {
	sc, ok := v.structAt(c, name, i, true)
	if !ok {
		return SimpleStats{}
	}
	nullCount := int64(-1)
	return SimpleStats{
		MinValues:  v.reqBytes(sc, "_MIN_VALUES", i),
		MaxValues:  v.reqBytes(sc, "_MAX_VALUES", i),
		NullCounts: v.int64s(sc, "_NULL_COUNTS", i, &nullCount),
	}
}

func (v *conv) dataFile(c cols, i int) DataFileMeta {
	fc, ok := v.structAt(c, "_FILE", i, true)
	if !ok {
		return DataFileMeta{}
	}
	m := DataFileMeta{
		FileName:           v.reqString(fc, "_FILE_NAME", i),
		FileSize:           v.reqInt64(fc, "_FILE_SIZE", i),
		RowCount:           v.reqInt64(fc, "_ROW_COUNT", i),
		MinKey:             v.reqBytes(fc, "_MIN_KEY", i),
		MaxKey:             v.reqBytes(fc, "_MAX_KEY", i),
		KeyStats:           v.stats(fc, "_KEY_STATS", i),
		ValueStats:         v.stats(fc, "_VALUE_STATS", i),
		MinSequenceNumber:  v.reqInt64(fc, "_MIN_SEQUENCE_NUMBER", i),
		MaxSequenceNumber:  v.reqInt64(fc, "_MAX_SEQUENCE_NUMBER", i),
		SchemaID:           v.reqInt64(fc, "_SCHEMA_ID", i),
		Level:              v.reqInt32(fc, "_LEVEL", i),
		ExtraFiles:         v.strings(fc, "_EXTRA_FILES", i, true),
		CreationTime:       v.optInt64(fc, "_CREATION_TIME", i),
		DeleteRowCount:     v.optInt64(fc, "_DELETE_ROW_COUNT", i),
		EmbeddedIndex:      v.optBytes(fc, "_EMBEDDED_FILE_INDEX", i),
		ValueStatsCols:     v.strings(fc, "_VALUE_STATS_COLS", i, false),
		ExternalPath:       v.optString(fc, "_EXTERNAL_PATH", i),
		FirstRowID:         v.optInt64(fc, "_FIRST_ROW_ID", i),
		WriteCols:          v.strings(fc, "_WRITE_COLS", i, false),
		WriteColsSequences: v.int64s(fc, "_WRITE_COLS_SEQUENCES", i, nil),
	}
	if m.ExtraFiles == nil && v.err == nil {
		m.ExtraFiles = []string{}
	}
	if p := v.optInt64(fc, "_FILE_SOURCE", i); p != nil {
		if *p != int64(SourceAppend) && *p != int64(SourceCompact) {
			v.failf("invalid _FILE_SOURCE %d", *p)
		}
		s := FileSource(*p)
		m.FileSource = &s
	}
	return m
}

func entriesFromArrow(rec arrow.RecordBatch) ([]Entry, error) {
	c := recordCols(rec)
	v := &conv{}
	out := make([]Entry, 0, rec.NumRows())
	for i := 0; i < int(rec.NumRows()) && v.err == nil; i++ {
		v.version(c, i, entryVersion)
		out = append(out, Entry{
			Kind:         v.kind(c, i),
			Partition:    v.reqBytes(c, "_PARTITION", i),
			Bucket:       v.reqInt32(c, "_BUCKET", i),
			TotalBuckets: v.reqInt32(c, "_TOTAL_BUCKETS", i),
			File:         v.dataFile(c, i),
		})
	}
	return out, v.err
}

func listFromArrow(rec arrow.RecordBatch) ([]FileMeta, error) {
	c := recordCols(rec)
	v := &conv{}
	out := make([]FileMeta, 0, rec.NumRows())
	for i := 0; i < int(rec.NumRows()) && v.err == nil; i++ {
		v.version(c, i, entryVersion)
		out = append(out, FileMeta{
			FileName:        v.reqString(c, "_FILE_NAME", i),
			FileSize:        v.reqInt64(c, "_FILE_SIZE", i),
			NumAddedFiles:   v.reqInt64(c, "_NUM_ADDED_FILES", i),
			NumDeletedFiles: v.reqInt64(c, "_NUM_DELETED_FILES", i),
			PartitionStats:  v.stats(c, "_PARTITION_STATS", i),
			SchemaID:        v.reqInt64(c, "_SCHEMA_ID", i),
			MinBucket:       v.optInt32(c, "_MIN_BUCKET", i),
			MaxBucket:       v.optInt32(c, "_MAX_BUCKET", i),
			MinLevel:        v.optInt32(c, "_MIN_LEVEL", i),
			MaxLevel:        v.optInt32(c, "_MAX_LEVEL", i),
			MinRowID:        v.optInt64(c, "_MIN_ROW_ID", i),
			MaxRowID:        v.optInt64(c, "_MAX_ROW_ID", i),
		})
	}
	return out, v.err
}

func indexFromArrow(rec arrow.RecordBatch) ([]IndexManifestEntry, error) {
	c := recordCols(rec)
	v := &conv{}
	out := make([]IndexManifestEntry, 0, rec.NumRows())
	for i := 0; i < int(rec.NumRows()) && v.err == nil; i++ {
		v.version(c, i, indexVersion)
		e := IndexManifestEntry{
			Kind:      v.kind(c, i),
			Partition: v.reqBytes(c, "_PARTITION", i),
			Bucket:    v.reqInt32(c, "_BUCKET", i),
			IndexFile: IndexFileMeta{
				IndexType:    v.reqString(c, "_INDEX_TYPE", i),
				FileName:     v.reqString(c, "_FILE_NAME", i),
				FileSize:     v.reqInt64(c, "_FILE_SIZE", i),
				RowCount:     v.reqInt64(c, "_ROW_COUNT", i),
				ExternalPath: v.optString(c, "_EXTERNAL_PATH", i),
			},
		}
		e.IndexFile.DVRanges = v.dvRanges(c, i)
		e.IndexFile.GlobalIndex = v.globalIndex(c, i)
		out = append(out, e)
	}
	return out, v.err
}

func (v *conv) dvRanges(c cols, i int) []DeletionVectorMeta {
	const name = "_DELETIONS_VECTORS_RANGES"
	a, ok := v.column(c, name, i, false)
	if !ok {
		return nil
	}
	vals, s, e := v.listAt(a, name, i)
	if vals == nil {
		return nil
	}
	st, isStruct := vals.(*array.Struct)
	if !isStruct {
		v.failf("column %s has element type %s, want a struct", name, vals.DataType())
		return nil
	}
	sc := structCols(st)
	out := make([]DeletionVectorMeta, 0, e-s)
	for j := s; j < e; j++ {
		if st.IsNull(j) {
			v.failf("null element in %s row %d", name, i)
			return nil
		}
		out = append(out, DeletionVectorMeta{
			DataFileName: v.reqString(sc, "f0", j),
			Offset:       v.reqInt32(sc, "f1", j),
			Length:       v.reqInt32(sc, "f2", j),
			Cardinality:  v.optInt64(sc, "_CARDINALITY", j),
		})
	}
	return out
}

func (v *conv) globalIndex(c cols, i int) *GlobalIndexMeta {
	gc, ok := v.structAt(c, "_GLOBAL_INDEX", i, false)
	if !ok {
		return nil
	}
	g := &GlobalIndexMeta{
		RowRangeStart: v.reqInt64(gc, "_ROW_RANGE_START", i),
		RowRangeEnd:   v.reqInt64(gc, "_ROW_RANGE_END", i),
		IndexFieldID:  v.reqInt32(gc, "_INDEX_FIELD_ID", i),
		IndexMeta:     v.optBytes(gc, "_INDEX_META", i),
		SourceMeta:    v.optBytes(gc, "_SOURCE_META", i),
	}
	if ids := v.int64s(gc, "_EXTRA_FIELD_IDS", i, nil); ids != nil {
		g.ExtraFieldIDs = make([]int32, len(ids))
		for k, x := range ids {
			g.ExtraFieldIDs[k] = int32(x)
		}
	}
	return g
}
