// Package orc is a read-only decoder of Apache ORC files into Arrow records,
// written from the ORC v1 specification (https://orc.apache.org/specification/ORCv1/)
// for the ORC files Java Paimon writes: data files of tables with
// file.format=orc and manifest files of tables with manifest.format=orc.
//
// Supported:
//
//   - File tail: postscript, footer (stripes, type tree with attributes,
//     user metadata), stripe footers with writer time zone. Metadata (stripe
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
// Not supported, reported with an error wrapping ErrUnsupportedFormat: LZO
// compression, uniontype columns, column encryption, unknown type,
// compression or encoding kinds, plain timestamp columns whose writer time
// zone the system's zoneinfo does not know, and timestamps outside the
// range of the requested Arrow unit.
//
// Malformed or truncated input returns an error wrapping ErrCorrupt that
// names the part that failed (postscript, footer, stripe, column, stream);
// the decoder bounds-checks every read and never panics on bad bytes.
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
