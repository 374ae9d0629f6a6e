// Package merge implements Paimon's merge engines and the k-way merge of
// sorted runs that both merge-on-read (package reader) and LSM compaction use
// (format spec section 11.2).
//
// It mirrors these Java classes of apache/paimon (paimon-core):
//   - mergetree/compact/SortMergeReaderWithMinHeap (and ...WithLoserTree):
//     the k-way merge by key; here a binary min-heap of run cursors.
//   - mergetree/compact/ReducerMergeFunctionWrapper: a key with one record
//     passes through unchanged; the merge function only sees keys with two or
//     more records.
//   - mergetree/DropDeleteReader: Options.DropDeletes.
//   - mergetree/compact/DeduplicateMergeFunction, PartialUpdateMergeFunction,
//     FirstRowMergeFunction, aggregate/AggregateMergeFunction and the
//     aggregate/Field*Agg aggregators.
//   - utils/UserDefinedSeqComparator: "sequence.field" ordering.
//
// # Input: sorted runs in the KeyValue layout
//
// Each Run yields Arrow record batches laid out like a primary-key data file
// (format spec 11.1): the _KEY_<pk> columns (omitted in data-file.thin-mode
// files), _SEQUENCE_NUMBER int64, _VALUE_KIND int8 (0 +I, 1 -U, 2 +U, 3 -D)
// and then the value columns (the table row, possibly projected). Within a
// run, records are sorted by key, then by sequence number. A run may contain
// several records of one key; they are merged like records from different
// runs. Every batch of every run must have the schema given to NewMerger:
// evolve old files to the read schema before merging. Apply deletion vectors
// before handing batches over: this package does not know file positions.
//
// # Ordering
//
// Keys are compared column by column as Java does: integers and temporals
// numerically, strings and binaries by unsigned bytes, decimals numerically,
// floats by Float.compare / Double.compare, false before true, nulls first.
// The records of one key are ordered by the sequence.field values (nulls
// first; descending if sequence.field.sort-order says so, nulls still first),
// then _SEQUENCE_NUMBER, then retractions before additions, then run index.
//
// For speed, every input batch gets, per row, a normalized key: the first 16
// bytes of an order-preserving byte encoding of the whole key (see
// normkey.go), so that most comparisons are one or two integer comparisons.
// Keys that do not fit in 16 bytes, or have a null, are compared column by
// column when their prefixes tie; the order is the one above either way.
// Composite keys of short strings and a timestamp (such as origin,
// destination, date) fit whole.
//
// # Output
//
// Merged records come out in key order, in batches of at most
// Options.BatchSize rows, with the columns Options.Layout selects. While one
// run holds the smallest keys, its records pass through in stretches without
// per-record heap work; such stretches are copied in bulk, or handed out as
// zero-copy slices when an output batch comes from one input batch alone (a
// single run, or runs with disjoint key ranges, cost almost nothing). Merged
// rows reference their input values; only arithmetic results (sum, product,
// listagg, bool_and/bool_or), rbm32 unions and the results of the
// collection aggregates (collect, merge_map, merge_map_with_keytime,
// nested_update, nested_partial_update) are materialised, the latter as
// one-element Arrow arrays in Go memory. The collection aggregates order
// their elements as Java's java.util.HashSet / HashMap iterate (javahash.go:
// Java's hashCode of the element or BinaryRow key, the table's capacity and
// insertion order within a bucket), so that merged and compacted values
// equal Java's element for element; only red-black tree bins (more than 8
// keys in one bucket of a table of 64 or more buckets) are iterated in
// insertion order, where Java's order depends on the tree. Semantics follow upstream Paimon (nested-key null
// strategy, nested sequence fields, nested_update rebuilding even the first
// value); Paimon 1.4.2 returned a key's first nested_update /
// nested_partial_update value unchanged.
//
// The caller may pass all sorted runs of a bucket to one merge, or split
// them into sections of overlapping key ranges first (Java's
// IntervalPartition) and merge each section; the results are the same.
//
// # Not implemented
//
// Every aggregate function Java registers is implemented (rbm64,
// theta_sketch and hll_sketch are our own code in internal/rbm64,
// internal/theta and internal/hll, byte-exact with Java; see
// docs/decisions.md). Changelog producers
// (FullChangelogMergeFunctionWrapper, LookupChangelogMergeFunctionWrapper);
// spilling (Java's MergeSorter spills when there are very many runs; here all
// runs are merged in one pass, holding one batch per run in memory).
//
// # Errors
//
// Configuration problems are reported by NewConfig (ErrInvalidOption,
// ErrUnsupported) and NewMerger (ErrSchema, ErrUnsupported) before any data
// is read. Data problems are reported by the Merge iterator: ErrUnsorted,
// ErrValueKind, ErrSchema (a batch with another schema), and the merge
// engine's own refusals ErrRetract, ErrArithmetic and ErrNull, which mirror
// Java's exceptions.
package merge
