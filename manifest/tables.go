package manifest

import (
	"fmt"

	"github.com/paimon-go/paimon/internal/ocf"
)

// Record layouts of the manifest files, in Java's field order (apache/paimon HEAD:
// io/DataFileMeta.SCHEMA, stats/SimpleStats.SCHEMA, manifest/ManifestEntry.SCHEMA,
// manifest/ManifestFileMeta.SCHEMA, manifest/IndexManifestEntry.SCHEMA,
// index/DeletionVectorMeta.SCHEMA, index/GlobalIndexMeta.SCHEMA; "_VERSION" is prepended by
// ManifestSchemaUtils.withFormatIdentifier / the index serializer). These package-level tables
// are immutable after initialisation.

func pt(k pkind) *ptype  { return &ptype{kind: k} }
func npt(k pkind) *ptype { return &ptype{kind: k, nullable: true} }
func arr(nullable bool, elem *ptype) *ptype {
	return &ptype{kind: pArray, nullable: nullable, elem: elem}
}

// Format identifiers ("_VERSION") Java accepts.
const (
	entryVersion = 2 // ManifestEntrySerializer / ManifestFileMetaSerializer
	indexVersion = 1 // IndexManifestEntrySerializer
)

// versionField is the leading "_VERSION" format identifier of a top-level row.
func versionField[T any](want int32) field[T] {
	return field[T]{
		name: "_VERSION",
		typ:  pt(pInt),
		enc:  func(e *ocf.Encoder, _ *T, _ *gen) { e.Int(want) },
		dec: func(ws *ocf.Schema, c *compiler) (func(d *ocf.Decoder, v *T), error) {
			f, err := optional(ws, c, cInt)
			if err != nil {
				return nil, err
			}
			return func(d *ocf.Decoder, _ *T) {
				v, ok := f(d)
				if d.Err() != nil {
					return
				}
				switch {
				case !ok:
					d.Failf("null _VERSION")
				case v != want && v == 1 && want == entryVersion:
					d.Fail(fmt.Errorf("%w: _VERSION 1 is the legacy Flink Table Store format; Java asks to recreate the table", ErrUnsupportedVersion))
				case v != want:
					d.Fail(fmt.Errorf("%w: _VERSION %d, want %d", ErrUnsupportedVersion, v, want))
				}
			}, nil
		},
	}
}

func cFileKind(ws *ocf.Schema, c *compiler) (dec[FileKind], error) {
	f, err := cInt(ws, c)
	if err != nil {
		return nil, err
	}
	return func(d *ocf.Decoder) FileKind {
		v := f(d)
		if v != int32(Add) && v != int32(Delete) && d.Err() == nil {
			d.Failf("invalid _KIND %d", v)
		}
		return FileKind(v)
	}, nil
}

func eFileKind(e *ocf.Encoder, v FileKind, _ *gen) { e.Int(int32(v)) }

func cFileSource(ws *ocf.Schema, c *compiler) (dec[FileSource], error) {
	f, err := cInt(ws, c)
	if err != nil {
		return nil, err
	}
	return func(d *ocf.Decoder) FileSource {
		v := f(d)
		if v != int32(SourceAppend) && v != int32(SourceCompact) && d.Err() == nil {
			d.Failf("invalid _FILE_SOURCE %d", v)
		}
		return FileSource(v)
	}, nil
}

func eFileSource(e *ocf.Encoder, v FileSource, _ *gen) { e.Int(int32(v)) }

var (
	statsTable = newTable(rowStats,
		reqField("_MIN_VALUES", pt(pBytes), cBytes, func(v *SimpleStats) *[]byte { return &v.MinValues }, eBytes),
		reqField("_MAX_VALUES", pt(pBytes), cBytes, func(v *SimpleStats) *[]byte { return &v.MaxValues }, eBytes),
		sliceField("_NULL_COUNTS", arr(true, npt(pLong)), cArray(cNullableLong),
			func(v *SimpleStats) *[]int64 { return &v.NullCounts }, eNullCounts),
	)

	fileTable = newTable(rowFile,
		reqField("_FILE_NAME", pt(pString), cString, func(v *DataFileMeta) *string { return &v.FileName }, eString),
		reqField("_FILE_SIZE", pt(pLong), cLong, func(v *DataFileMeta) *int64 { return &v.FileSize }, eLong),
		reqField("_ROW_COUNT", pt(pLong), cLong, func(v *DataFileMeta) *int64 { return &v.RowCount }, eLong),
		reqField("_MIN_KEY", pt(pBytes), cBytes, func(v *DataFileMeta) *[]byte { return &v.MinKey }, eBytes),
		reqField("_MAX_KEY", pt(pBytes), cBytes, func(v *DataFileMeta) *[]byte { return &v.MaxKey }, eBytes),
		recField("_KEY_STATS", statsTable,
			func(v *DataFileMeta) *SimpleStats { return &v.KeyStats }, statsTable.encodeValue),
		recField("_VALUE_STATS", statsTable,
			func(v *DataFileMeta) *SimpleStats { return &v.ValueStats }, statsTable.encodeValue),
		reqField("_MIN_SEQUENCE_NUMBER", pt(pLong), cLong, func(v *DataFileMeta) *int64 { return &v.MinSequenceNumber }, eLong),
		reqField("_MAX_SEQUENCE_NUMBER", pt(pLong), cLong, func(v *DataFileMeta) *int64 { return &v.MaxSequenceNumber }, eLong),
		reqField("_SCHEMA_ID", pt(pLong), cLong, func(v *DataFileMeta) *int64 { return &v.SchemaID }, eLong),
		reqField("_LEVEL", pt(pInt), cInt, func(v *DataFileMeta) *int32 { return &v.Level }, eInt),
		reqField("_EXTRA_FILES", arr(false, pt(pString)), cArray(nonNull(cString)),
			func(v *DataFileMeta) *[]string { return &v.ExtraFiles }, eArray(eString)),
		ptrField("_CREATION_TIME", npt(pTimestampMillis), cLong, func(v *DataFileMeta) **int64 { return &v.CreationTime }, eLong),
		ptrField("_DELETE_ROW_COUNT", npt(pLong), cLong, func(v *DataFileMeta) **int64 { return &v.DeleteRowCount }, eLong),
		sliceField("_EMBEDDED_FILE_INDEX", npt(pBytes), cBytes, func(v *DataFileMeta) *[]byte { return &v.EmbeddedIndex }, eBytes),
		ptrField("_FILE_SOURCE", npt(pInt), cFileSource, func(v *DataFileMeta) **FileSource { return &v.FileSource }, eFileSource),
		sliceField("_VALUE_STATS_COLS", arr(true, pt(pString)), cArray(nonNull(cString)),
			func(v *DataFileMeta) *[]string { return &v.ValueStatsCols }, eArray(eString)),
		ptrField("_EXTERNAL_PATH", npt(pString), cString, func(v *DataFileMeta) **string { return &v.ExternalPath }, eString),
		ptrField("_FIRST_ROW_ID", npt(pLong), cLong, func(v *DataFileMeta) **int64 { return &v.FirstRowID }, eLong),
		sliceField("_WRITE_COLS", arr(true, pt(pString)), cArray(nonNull(cString)),
			func(v *DataFileMeta) *[]string { return &v.WriteCols }, eArray(eString)),
		sliceField("_WRITE_COLS_SEQUENCES", arr(true, pt(pLong)), cArray(nonNull(cLong)),
			func(v *DataFileMeta) *[]int64 { return &v.WriteColsSequences }, eArray(eLong)),
	)

	entryTable = newTable(rowEntry,
		versionField[Entry](entryVersion),
		reqField("_KIND", pt(pInt), cFileKind, func(v *Entry) *FileKind { return &v.Kind }, eFileKind),
		reqField("_PARTITION", pt(pBytes), cBytes, func(v *Entry) *[]byte { return &v.Partition }, eBytes),
		reqField("_BUCKET", pt(pInt), cInt, func(v *Entry) *int32 { return &v.Bucket }, eInt),
		reqField("_TOTAL_BUCKETS", pt(pInt), cInt, func(v *Entry) *int32 { return &v.TotalBuckets }, eInt),
		recField("_FILE", fileTable,
			func(v *Entry) *DataFileMeta { return &v.File }, fileTable.encodeValue),
	)

	listTable = newTable(rowList,
		versionField[FileMeta](entryVersion),
		reqField("_FILE_NAME", pt(pString), cString, func(v *FileMeta) *string { return &v.FileName }, eString),
		reqField("_FILE_SIZE", pt(pLong), cLong, func(v *FileMeta) *int64 { return &v.FileSize }, eLong),
		reqField("_NUM_ADDED_FILES", pt(pLong), cLong, func(v *FileMeta) *int64 { return &v.NumAddedFiles }, eLong),
		reqField("_NUM_DELETED_FILES", pt(pLong), cLong, func(v *FileMeta) *int64 { return &v.NumDeletedFiles }, eLong),
		recField("_PARTITION_STATS", statsTable,
			func(v *FileMeta) *SimpleStats { return &v.PartitionStats }, statsTable.encodeValue),
		reqField("_SCHEMA_ID", pt(pLong), cLong, func(v *FileMeta) *int64 { return &v.SchemaID }, eLong),
		ptrField("_MIN_BUCKET", npt(pInt), cInt, func(v *FileMeta) **int32 { return &v.MinBucket }, eInt),
		ptrField("_MAX_BUCKET", npt(pInt), cInt, func(v *FileMeta) **int32 { return &v.MaxBucket }, eInt),
		ptrField("_MIN_LEVEL", npt(pInt), cInt, func(v *FileMeta) **int32 { return &v.MinLevel }, eInt),
		ptrField("_MAX_LEVEL", npt(pInt), cInt, func(v *FileMeta) **int32 { return &v.MaxLevel }, eInt),
		ptrField("_MIN_ROW_ID", npt(pLong), cLong, func(v *FileMeta) **int64 { return &v.MinRowID }, eLong),
		ptrField("_MAX_ROW_ID", npt(pLong), cLong, func(v *FileMeta) **int64 { return &v.MaxRowID }, eLong),
	)

	dvTable = newTable(rowDV,
		reqField("f0", pt(pString), cString, func(v *DeletionVectorMeta) *string { return &v.DataFileName }, eString),
		reqField("f1", pt(pInt), cInt, func(v *DeletionVectorMeta) *int32 { return &v.Offset }, eInt),
		reqField("f2", pt(pInt), cInt, func(v *DeletionVectorMeta) *int32 { return &v.Length }, eInt),
		ptrField("_CARDINALITY", npt(pLong), cLong, func(v *DeletionVectorMeta) **int64 { return &v.Cardinality }, eLong),
	)

	globalTable = newTable(rowGlobal,
		reqField("_ROW_RANGE_START", pt(pLong), cLong, func(v *GlobalIndexMeta) *int64 { return &v.RowRangeStart }, eLong),
		reqField("_ROW_RANGE_END", pt(pLong), cLong, func(v *GlobalIndexMeta) *int64 { return &v.RowRangeEnd }, eLong),
		reqField("_INDEX_FIELD_ID", pt(pInt), cInt, func(v *GlobalIndexMeta) *int32 { return &v.IndexFieldID }, eInt),
		sliceField("_EXTRA_FIELD_IDS", arr(true, pt(pInt)), cArray(nonNull(cInt)),
			func(v *GlobalIndexMeta) *[]int32 { return &v.ExtraFieldIDs }, eArray(eInt)),
		sliceField("_INDEX_META", npt(pBytes), cBytes, func(v *GlobalIndexMeta) *[]byte { return &v.IndexMeta }, eBytes),
		sliceField("_SOURCE_META", npt(pBytes), cBytes, func(v *GlobalIndexMeta) *[]byte { return &v.SourceMeta }, eBytes),
	)

	indexTable = newTable(rowIndex,
		versionField[IndexManifestEntry](indexVersion),
		reqField("_KIND", pt(pInt), cFileKind, func(v *IndexManifestEntry) *FileKind { return &v.Kind }, eFileKind),
		reqField("_PARTITION", pt(pBytes), cBytes, func(v *IndexManifestEntry) *[]byte { return &v.Partition }, eBytes),
		reqField("_BUCKET", pt(pInt), cInt, func(v *IndexManifestEntry) *int32 { return &v.Bucket }, eInt),
		reqField("_INDEX_TYPE", pt(pString), cString, func(v *IndexManifestEntry) *string { return &v.IndexFile.IndexType }, eString),
		reqField("_FILE_NAME", pt(pString), cString, func(v *IndexManifestEntry) *string { return &v.IndexFile.FileName }, eString),
		reqField("_FILE_SIZE", pt(pLong), cLong, func(v *IndexManifestEntry) *int64 { return &v.IndexFile.FileSize }, eLong),
		reqField("_ROW_COUNT", pt(pLong), cLong, func(v *IndexManifestEntry) *int64 { return &v.IndexFile.RowCount }, eLong),
		sliceField("_DELETIONS_VECTORS_RANGES", arr(true, dvTable.ptype(true)), cArray(nonNull(dvTable.compile)),
			func(v *IndexManifestEntry) *[]DeletionVectorMeta { return &v.IndexFile.DVRanges },
			eArray(func(e *ocf.Encoder, x DeletionVectorMeta, g *gen) { e.NonNull(); dvTable.encode(e, &x, g) })),
		ptrField("_EXTERNAL_PATH", npt(pString), cString, func(v *IndexManifestEntry) **string { return &v.IndexFile.ExternalPath }, eString),
		ptrField("_GLOBAL_INDEX", globalTable.ptype(true), globalTable.compile,
			func(v *IndexManifestEntry) **GlobalIndexMeta { return &v.IndexFile.GlobalIndex }, globalTable.encodeValue),
	)
)

// encodeValue is encode for a value argument (the shape field encoders use).
func (t *table[T]) encodeValue(e *ocf.Encoder, v T, g *gen) { t.encode(e, &v, g) }

// Schema generations. The writer emits genCurrent (Paimon 2.0: DataFileMeta through
// _WRITE_COLS) unless some file carries _WRITE_COLS_SEQUENCES, which needs genHead.
func genCurrent() *gen {
	g := &gen{}
	g.n[rowFile] = 20
	return g
}

func genHead() *gen { return &gen{} }
