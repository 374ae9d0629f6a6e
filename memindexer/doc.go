// Package memindexer is the default, in-process implementation of
// realtime.Store: it keeps the rows of one partition-bucket as retained Arrow
// record batches (paimon-cpp ArrowRealtimeStore, formerly ArrowMemIndexer;
// PIP-46 MemIndexer). Create stores with Factory.
//
// # Layout
//
// A store holds one building segment, which Write appends to, and a list of
// sealed segments, which SealForCommit produces. Each segment is a list of
// the batches written into it, kept as written: Write retains the record
// without copying, except that columns whose buffers pin far more capacity
// than their rows need (builders and readers grow buffers by doubling; a
// small slice pins its parent) are copied to exact size, which bounds the
// memory per row (Factory.CompactRatio, default 1.5x the raw Arrow size).
// The system columns are held packed: the offset column (and a primary-key
// batch's sequence number column) as a base plus a 2- or 4-byte delta per
// row, or no bytes at all when the values are consecutive (an append
// batch's offsets), a primary-key batch's sequence numbers sharing the
// offsets' deltas when they follow them (as the real-time writer assigns
// both), and a kind column of INSERT rows only as nothing. Columns whose
// values span 2^32 or more, and kind columns with other row kinds, are kept
// as written. Readers write packed columns out into new arrays for the
// rows they yield. With realtime.StatsFull every batch also keeps
// per-column min, max and null count, computed once at Write, so queries can
// skip whole batches a filter cannot match.
//
// # Concurrency
//
// Every method is safe for concurrent use. A single mutex guards the segment
// lists, the counters and the next expected offset; it is held only for work
// proportional to the number of batches (never the number of rows): schema
// and offset validation, compaction, statistics and byte counting happen
// before it is taken, and record releases after it is dropped.
//
// # Lifetimes
//
// Records are shared through Arrow reference counts. The store holds one
// reference per batch until the batch is reclaimed (AdvanceCommittedOffset)
// or the store is closed; each ReadView holds one until Release; each reader
// pins what it reads for the duration of one iteration; each yielded batch is
// a new record (slice and/or projection) that the consumer owns and must
// Release. So a view pinned before a reclaim or Close keeps its rows readable.
//
// # Usage accounting
//
// Usage counts, per retained batch, the Len of every distinct Arrow buffer
// reachable from its kept columns (validity, offsets, values, children,
// dictionaries) plus the bytes of its packed deltas (a slice shared by the
// offsets and the sequence numbers once). Buffers shared by two batches (for example two slices of one
// larger record) are counted once per batch, so a batch kept as a slice of a
// bigger record (not compacted: slack under 4 KiB, or CompactRatio < 0) is
// charged the full length of the shared buffers.
//
// See docs/realtime-design.md sections 2.2, 3, 4, 8.2, 8.5 and 9.
package memindexer
