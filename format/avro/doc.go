// Package avro reads and writes Paimon data files in Avro (file.format=avro,
// file.format.per.level entries naming avro, the postpone bucket's files)
// from and to Arrow record batches, mirroring Java Paimon's
// org.apache.paimon.format.avro (AvroFileFormat, AvroSchemaConverter,
// AvroRowDatumWriter, AvroRowDatumReader).
//
// # Files
//
// A data file is an Avro object container (internal/ocf) whose writer
// schema is the written row type converted as Java's AvroSchemaConverter
// does, as a nullable ROW: ["null", record "org.apache.paimon.avro.generated.record"],
// nullable columns ["null", T] with default null, DECIMAL as bytes with the
// decimal logical type (minimal big-endian two's complement), DATE int/date,
// TIME(p ≤ 3) int/time-millis, TIMESTAMP(p ≤ 3 / ≤ 6) long
// timestamp-millis / timestamp-micros (local-timestamp-* for WITH LOCAL TIME
// ZONE), MAP with string keys as Avro maps and other MAPs and MULTISETs as
// arrays of {key, value} records, ROW as records named "<parent>_<field>".
// VARIANT, TIMESTAMP(p > 6) and TIME(p > 3) cannot be written (Java refuses
// them too).
//
// The codec is avro.codec when set, else file.compression (default zstd,
// written as zstandard at file.compression.zstd-level, default 1), as
// Java's AvroFileFormat.createCodecFactory; null, deflate, snappy and
// zstandard are read and written.
//
// Reading matches wanted fields to the file's record fields by name (Avro
// files carry no field ids; the table reader maps ids to the file's names),
// reads absent fields as nulls, skips unwanted ones, and widens INT to
// BIGINT, FLOAT to DOUBLE, timestamps across millis/micros and decimals to a
// larger scale. Blocks are read one at a time through the format.File; the
// decompressed bytes and the decoded item counts of a file are bounded by
// format.DecodeBudget of its size.
//
// The writer streams each finished container block (about 64 KB
// uncompressed) to its output and collects, per column, the minimum,
// maximum and null count over all rows, as Java's SimpleStatsCollector does
// for Avro files (nested columns and BLOB: null count only; a NaN makes the
// float column's min/max unknown, as the Parquet writer reports).
//
// # Errors
//
// Errors name the file (and column where there is one) and wrap the
// sentinels of package format: format.ErrCorrupt for a missing magic, a
// truncated or malformed header or block, a bad sync marker or union
// branch; format.ErrTooLarge for a file that decodes beyond its budget;
// format.ErrUnsupportedFormat for an unknown codec, a type Avro cannot hold
// or a writer schema that is not a record; format.ErrSchemaMismatch for a
// file column that cannot be read as the wanted type, or a written batch of
// another schema; format.ErrOutOfRange for a value the wanted type cannot
// hold. A container cut exactly after its header or after a whole block is
// a valid shorter file (only the DataFileMeta row count can tell). Nothing
// panics: a panic of the decoding is returned as format.ErrCorrupt.
package avro
