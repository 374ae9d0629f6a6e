// Package parquet reads and writes Paimon data files in Apache Parquet, from
// and to Arrow record batches, compatibly with Java Paimon's
// org.apache.paimon.format.parquet (ParquetSchemaConverter,
// ParquetRowDataWriter, ParquetReaderFactory, ParquetSimpleStatsExtractor).
// It is built on arrow-go's parquet/pqarrow (see docs/decisions.md).
//
// # Layout (what Java writes, what Writer writes, what Reader accepts)
//
//	BOOLEAN                 BOOLEAN
//	TINYINT, SMALLINT       INT32 + INT(8|16, signed)
//	INT, BIGINT             INT32, INT64
//	FLOAT, DOUBLE           FLOAT, DOUBLE
//	CHAR, VARCHAR           BINARY + STRING
//	BINARY, VARBINARY, BLOB BINARY
//	DECIMAL(p, s)           INT32 (p <= 9), INT64 (p <= 18), else FIXED_LEN_BYTE_ARRAY(min bytes); + DECIMAL
//	DATE                    INT32 + DATE
//	TIME(p)                 INT32 + TIME(MILLIS)
//	TIMESTAMP(p)            INT64 + TIMESTAMP(MILLIS) p <= 3, (MICROS) p <= 6, INT96 p > 6
//	TIMESTAMP(p) LTZ        the same with isAdjustedToUTC
//	ARRAY                   3-level LIST: <name> / repeated list / element
//	MAP, MULTISET           MAP: <name> / repeated key_value / required key, value (MULTISET: INT NOT NULL counts)
//	ROW                     group of its fields
//	VARIANT                 group{value BINARY id 0, metadata BINARY id 1}
//
// Every node carries a Parquet field id: the DataField id, and for nodes
// without a DataField (list element, map key and value) Java's synthetic ids
// 536870911 + 1024·id + depth (element, value) and 536870911 − 1024·id −
// depth (key), where id is the nearest enclosing DataField's id and depth
// counts from 1 below it (SpecialFields.getArrayElementFieldId etc.).
//
// # Reading
//
// NewReader matches columns by field id when the file carries ids (Java
// Paimon 0.9 and older wrote none: then by name), fills missing columns
// with nulls, widens changed primitive types, reads only the wanted leaves,
// lets a callback skip row groups by their statistics, and tags every batch
// with the file position of its first row. INT96 values are decoded here
// (Java writes pre-1970 instants with a negative nanos-of-day that arrow-go
// rejects). Batches have exactly the schema types.SchemaToArrow(want).
//
// # Writing
//
// NewWriter takes the table options (file.compression, parquet.block.size,
// ...; see the Option* constants), writes the layout above, and on Close
// returns row count, file size and per-column statistics as Go values
// (format.ColumnStats) for SimpleStats.
//
// Dictionary encoding is decided per column as parquet-mr decides it for
// Java Paimon (dictionary.go): the Writer holds back the file's first 20,000
// rows (page.row.count.limit, the extent of parquet-mr's first page) and
// writes a top-level primitive column PLAIN when its dictionary would not
// be smaller than the plain values together with the encoded indices
// (FallbackValuesWriter's isCompressionSatisfying) — columns of distinct
// values such as _SEQUENCE_NUMBER — and never dictionary-encodes
// FIXED_LEN_BYTE_ARRAY decimals under the default v1 writer version. The
// decision reproduces which columns of the Java-written files in testdata
// have a dictionary page. Row groups roll at parquet.block.size by an
// estimate that learns the compression ratio from a probe encoding of up to
// 32,768 rows, run only once a file may reach a size limit.
//
// # Errors
//
// All errors name the file and wrap the format package's sentinels
// (format.ErrCorrupt, format.ErrSchemaMismatch, format.ErrUnsupportedFormat,
// format.ErrOutOfRange); I/O errors of the underlying file are returned
// wrapped as they are.
package parquet
