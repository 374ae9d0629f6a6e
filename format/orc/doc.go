// Package orc decodes Apache ORC files into Arrow records and encodes Arrow
// records as ORC data files, written from the ORC v1 specification
// (https://orc.apache.org/specification/ORCv1/) for the ORC files Java
// Paimon writes: data files of tables with file.format=orc and manifest files
// of tables with manifest.format=orc. The writer (Writer, NewWriter,
// Format.NewWriter) lays files out as Java's OrcWriterFactory does; see
// Writer for the type mapping and encodings. The rest of this comment is
// about reading.
//
// Supported:
//
//   - File tail: postscript, footer (stripes, type tree with attributes),
//     stripe footers with writer time zone. User metadata, Metadata (stripe
//     statistics), row indexes and bloom filters are not read.
//   - Compression: NONE, ZLIB (raw deflate), SNAPPY, LZ4 (block), ZSTD, with
//     the 3-byte chunk headers and "original" chunks.
//   - Encodings: PRESENT streams, byte RLE, boolean RLE, integer RLE v1 and
//     v2 (SHORT_REPEAT, DIRECT, PATCHED_BASE, DELTA), DIRECT/DIRECT_V2 and
//     DICTIONARY/DICTIONARY_V2 strings, DECIMAL_64.
//   - Types and their Arrow types: boolean Boolean, tinyint Int8, smallint
//     Int16, int Int32, bigint Int64, float Float32, double Float64,
//     string/varchar/char String, binary Binary, decimal(p,s) Decimal128(p,s),
//     date Date32, timestamp Timestamp(ns) holding the writer's wall-clock
//     time (Paimon TIMESTAMP), timestamp with local time zone
//     Timestamp(ns, "UTC") (Paimon TIMESTAMP_LTZ), array List, map Map,
//     struct Struct; any number of stripes. ReadOptions.Schema can request
//     other timestamp units, Time32(ms) for int columns (Paimon TIME) and
//     other decimal shapes.
//   - Field ids: the "paimon.id" type attribute Java Paimon writes
//     (OrcTypeUtil) becomes the Arrow field metadata "PARQUET:field_id",
//     the key the whole project uses for Paimon field ids.
//
// Two levels of API: Open returns a File with the ORC schema mapped to Arrow
// (Schema, NumRows, Records/RecordsWith/Read by column index); Format and
// NewReader implement package format's contracts for Paimon data files,
// matching columns to the wanted Paimon fields by field id or name and
// reporting row positions for deletion vectors.
//
// Errors wrap the sentinels of package format (ErrCorrupt and
// ErrUnsupportedFormat here are the same values as format.ErrCorrupt and
// format.ErrUnsupportedFormat):
//
//   - ErrUnsupportedFormat: LZO compression, uniontype columns, column
//     encryption, unknown type, compression or encoding kinds, a plain
//     timestamp column whose writer time zone the system's zoneinfo does
//     not know.
//   - ErrCorrupt: malformed or truncated input, naming the part that failed
//     (postscript, footer, stripe, column, stream). The decoder bounds-checks
//     every read and never panics on bad bytes.
//   - format.ErrSchemaMismatch: a ReadOptions.Schema type a column cannot be
//     read as.
//   - format.ErrOutOfRange: a timestamp the requested Arrow unit cannot hold
//     (e.g. beyond 2262 as nanoseconds).
//
// Semantics follow the Java ORC reader where the specification is silent:
// a timestamp is seconds since 2015-01-01 00:00:00 in the writer's time
// zone plus nanoseconds, with one second subtracted for negative seconds
// with a sub-millisecond part (the writer truncates toward zero); the
// decimal scale stream is signed and values are rescaled HALF_UP to the
// column scale, becoming null when they exceed the precision; CHAR values
// are right-trimmed of spaces and CHAR/VARCHAR truncated to their maximum
// length.
package orc
