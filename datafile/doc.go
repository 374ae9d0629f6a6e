// Package datafile writes the data files of a Paimon table: rolling Parquet,
// ORC or Avro files of a bucket (file.format), each described by the manifest.DataFileMeta Java
// records for it (format spec sections 6.2 and 11.1). It is the one
// implementation of data-file writing that package writer (level-0 files of
// the write path) and package compaction (compaction outputs) share.
//
// It mirrors these Java classes of apache/paimon (paimon-core):
//   - io.DataFilePathFactory.newPath: Namer, file names
//     "<data-file.prefix><uuid>-<n>.<format>";
//   - io.RollingFileWriter with io.RowDataFileWriter (append tables) or
//     io.KeyValueDataFileWriter (primary-key tables): RollingWriter, which
//     rolls to a new file once the format writer's estimated size reaches
//     target-file-size;
//   - KeyValue.createKeyValueFields and SpecialFields: KeyValueFields and the
//     system column constants;
//   - statistics.StatsCollectorFactories.createStatsFactories and the
//     SimpleColStatsCollector implementations (none, counts, full,
//     truncate(N)) with SimpleStatsConverter.toBinary: the key and value
//     statistics of each file;
//   - io.KeyValueFileWriterFactory's per-level options
//     (file.format.per.level, file.compression.per.level,
//     metadata.stats-mode.per.level), applied to key-value files.
//
// # Layout
//
// A Layout fixes what the files of one table at one level look like: the
// written columns (the table row for append tables, the KeyValue layout
// _KEY_<pk>, _SEQUENCE_NUMBER, _VALUE_KIND, table row for primary-key tables),
// the stats mode of every column, the options given to the Parquet writer,
// target-file-size, the file source and level recorded in the metadata, and
// the clock of creation times.
//
// # Metadata
//
// Every finished file gets a DataFileMeta: file name, size, row count, schema
// id, level, file source, creation time (the local wall clock stored as if
// UTC, as Java's LocalDateTime), empty extra files, and
//   - append files: empty min/max key and key stats, value stats of the
//     table columns, sequence numbers counted on from the writer's counter
//     (one per row), delete row count 0;
//   - key-value files: the first and last key written (the input is sorted by
//     key), key stats of the _KEY_ columns (never dense), value stats of the
//     table columns, the minimum and maximum _SEQUENCE_NUMBER and the number
//     of -U/-D rows as delete row count.
//
// # Errors
//
// ErrUnsupported (a per-level file format other than parquet), ErrSchema (a
// batch whose system columns do not have the layout's types), and the
// wrapped errors of fileio, format and row, naming the file involved.
package datafile
