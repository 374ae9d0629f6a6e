package compaction

import "errors"

// Sentinel errors; test with errors.Is. Errors of the packages compaction
// builds on (commit.ErrConflict for a compaction whose input files a
// concurrent commit removed, merge.ErrRetract, format.ErrCorrupt,
// fileio.ErrNotExist, schema.ErrInvalidOption, ...) are returned wrapped and
// can be tested the same way.
var (
	// ErrUnsupported: the table uses a feature compaction does not handle
	// (changelog producers lookup / full-compaction, force-lookup, first-row
	// with deletion vectors, postpone compaction of deletion-vector or
	// first-row tables, NewPlan of a postpone-bucket table, row tracking or
	// data evolution, a file format other than parquet, avro and orc); the message names
	// the option or file.
	ErrUnsupported = errors.New("compaction: unsupported table feature")
	// ErrInvalidArgument: a partition spec that names a non-partition field
	// or holds a value of the wrong type, a schema older than the files it
	// would rewrite, inconsistent input files (a negative level, a file
	// listed twice in one bucket), a task of a deletion-vector table without
	// its Maintainer, lookup keys asked out of order.
	ErrInvalidArgument = errors.New("compaction: invalid argument")
	// ErrCorrupt: a data file's metadata that does not decode (min/max key
	// rows); the message names the file.
	ErrCorrupt = errors.New("compaction: corrupt file metadata")
	// ErrSchema: a data file whose columns do not have the types of the
	// KeyValue layout (_SEQUENCE_NUMBER BIGINT, _VALUE_KIND TINYINT, key
	// columns of the key types).
	ErrSchema = errors.New("compaction: data file schema mismatch")
)
