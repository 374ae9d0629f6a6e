package realtime

import (
	"context"
	"errors"
	"iter"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/memory"

	"github.com/paimon-go/paimon/predicate"
	"github.com/paimon-go/paimon/progress"
	"github.com/paimon-go/paimon/schema"
	"github.com/paimon-go/paimon/types"
)

// Transport columns of the batches a Store holds (paimon-cpp
// RealtimeSchemaLayout). They are never written into data files.
const (
	// OffsetColumn is the non-null Int64 offset of each row within its
	// partition-bucket. Applications may supply it as the first input
	// column (see Write).
	OffsetColumn = "_REALTIME_OFFSET"
	// SequenceColumn is the non-null Int64 sequence number of each row of
	// a primary-key table (Paimon's KeyValue sequence number).
	SequenceColumn = "_SEQUENCE_NUMBER"
	// KindColumn is the non-null Int8 row kind of each row of a
	// primary-key table (0 +I, 1 -U, 2 +U, 3 -D).
	KindColumn = "_VALUE_KIND"
)

// Store errors; test with errors.Is.
var (
	// ErrOffsetOrder: a batch's offsets are null, not strictly increasing,
	// below the store's next expected offset, or not below
	// math.MaxInt64-1 (a committed end must stay below math.MaxInt64).
	ErrOffsetOrder = errors.New("realtime: offsets out of order")
	// ErrSchemaMismatch: a batch whose schema is not the store's transport
	// schema, or a query naming a column the store does not have.
	ErrSchemaMismatch = errors.New("realtime: batch schema does not match the store")
	// ErrForeignHandle: a Segment or ReadView that another store created.
	ErrForeignHandle = errors.New("realtime: segment or view of another store")
	// ErrClosed: an operation on a closed store, writer or context.
	ErrClosed = errors.New("realtime: closed")
)

// Mode is the kind of table a Store serves (paimon-cpp RealtimeStoreMode).
type Mode uint8

const (
	// AppendOnly stores batches of [_REALTIME_OFFSET, table columns...] in
	// write order.
	AppendOnly Mode = iota
	// PrimaryKey stores batches of [_VALUE_KIND, _SEQUENCE_NUMBER,
	// _REALTIME_OFFSET, table columns...], each sorted by the trimmed
	// primary key (CreateRequest.KeyColumns; the partition columns are
	// constant within a partition-bucket) then sequence number by the
	// framework before Write.
	PrimaryKey
)

// StatsMode selects the per-batch statistics a Store keeps (table option
// realtime.store.stats-mode: "none", the default, or "full"; paimon-cpp
// StatisticsMode).
type StatsMode uint8

const (
	// StatsNone keeps no statistics: queries never prune.
	StatsNone StatsMode = iota
	// StatsFull keeps min, max and null count per column and batch, so a
	// query's Filter can skip whole batches.
	StatsFull
)

// CreateRequest is what a Factory gets to create the store of one
// partition-bucket (paimon-cpp RealtimeStoreCreateRequest). The
// partition-bucket itself is deliberately not part of it: its identity
// belongs to the Context.
type CreateRequest struct {
	// Schema is the transport schema of every batch (see Mode).
	Schema *arrow.Schema
	// Mode is AppendOnly or PrimaryKey.
	Mode Mode
	// KeyColumns are the indexes in Schema of the trimmed primary key
	// (PrimaryKey mode; nil otherwise).
	KeyColumns []int
	// Stats is the statistics mode.
	Stats StatsMode
	// Options are the table options (for store-specific settings).
	Options schema.Options
	// Allocator allocates the store's Arrow buffers.
	Allocator memory.Allocator
}

// Factory creates stores (paimon-cpp RealtimeStoreFactory). The default is
// memindexer.Factory.
type Factory interface {
	// Create returns a new, empty store for req. It fails, with an error
	// of the factory's own, for a request it cannot serve (an unknown Mode
	// or StatsMode, key columns outside Schema); the Context then fails the
	// Write that needed the store.
	Create(req CreateRequest) (Store, error)
}

// Batch is one write into a Store (paimon-cpp RealtimeStore::Write
// arguments).
type Batch struct {
	// Record holds the rows in the store's transport schema (see Mode),
	// at least one; the store retains it, the caller keeps its own
	// reference.
	Record arrow.RecordBatch
	// Range is the offset envelope of the rows: [first offset, last
	// offset + 1), offsets strictly increasing within Record.
	Range progress.Range
}

// Query describes a query over a ReadView (paimon-cpp RealtimeQueryContext).
type Query struct {
	// Columns are the names of the transport columns to return, in this
	// order. The framework asks for OffsetColumn unless the store
	// implements ClipsVisible and the rows go to a merge with the disk
	// rows, and for primary keys always for KindColumn, SequenceColumn and
	// the key columns.
	Columns []string
	// Filter, when not nil, is a pruning hint over the transport schema's
	// field indexes: the store may skip whole batches none of whose rows
	// can match (StatsFull). Exact filtering is the framework's job. It is
	// the part of the scan filter that is safe before the merge
	// (realtime-design.md section 8.5): the conjuncts over table columns
	// for AppendOnly, only those over trimmed primary-key columns for
	// PrimaryKey, since a value predicate could skip the batch holding a
	// key's newest version and let an older one win the merge.
	Filter predicate.Predicate
	// Visible, when not empty, is a pruning hint: the store may skip rows
	// and batches whose offsets all lie outside it. The framework filters
	// offsets exactly afterwards.
	Visible progress.Range
	// BatchSize bounds the rows of each returned batch (> 0).
	BatchSize int
	// Keys, when not nil, is the point lookup hint of a PrimaryKey query
	// (Context.Lookup): the store may drop every row whose key is not
	// among Keys.Values, and may yield the rows of all its batches from
	// one reader, sorted by key then sequence number, because the
	// framework writes the rows of a store in ascending sequence numbers
	// (a later batch holds higher ones). The framework selects the keys
	// exactly afterwards.
	Keys *QueryKeys
}

// QueryKeys are the primary keys of a point lookup over the transport
// schema (Query.Keys).
type QueryKeys struct {
	// Columns are the transport column indexes of the trimmed primary key
	// and Types their types.
	Columns []int
	Types   []types.DataType
	// Values are the keys, one value per column as types.ArrowValue gives
	// it, sorted by types.Compare column by column and distinct.
	Values [][]any
}

// ClipsVisible is implemented by a Store whose query readers yield no row
// whose offset lies outside a non-empty Query.Visible (a store that knows
// each stored batch's offset bounds checks whole batches instead of rows).
// When ClipsVisible returns true, the framework does not check the offset
// of every row it reads from the store again: a point lookup then costs no
// pass over the rows of each memory batch it searches.
type ClipsVisible interface {
	ClipsVisible() bool
}

// Usage is one consistent picture of a store's data (paimon-cpp
// RealtimeStore::GetDataUsage).
type Usage struct {
	// BuildingBytes and SealedBytes are the bytes of Arrow buffers held by
	// the building segment and by sealed, not yet reclaimed segments.
	BuildingBytes, SealedBytes int64
	// BuildingRows and SealedRows are the physical rows in them.
	BuildingRows, SealedRows int64
}

// Add returns the sum of u and v.
func (u Usage) Add(v Usage) Usage {
	return Usage{u.BuildingBytes + v.BuildingBytes, u.SealedBytes + v.SealedBytes,
		u.BuildingRows + v.BuildingRows, u.SealedRows + v.SealedRows}
}

// Segment is an immutable sealed segment (paimon-cpp RealtimeSegmentHandle).
type Segment interface {
	// Range is the offset envelope of the segment's rows.
	Range() progress.Range
	// RowCount is the number of rows in the segment.
	RowCount() int64
}

// ReadView is an immutable picture of a store's sealed and building rows
// (paimon-cpp RealtimeReadView). It keeps its data alive until Release.
type ReadView interface {
	// Range is the offset envelope of the view's rows; false for an empty
	// view.
	Range() (progress.Range, bool)
	// RowCount is the exact number of the view's rows whose offset lies in
	// r.
	RowCount(r progress.Range) int64
	// Release drops the view's references. It is idempotent.
	Release()
}

// Store keeps the rows of one partition-bucket that are not yet covered by
// the committed progress (paimon-cpp RealtimeStore, formerly MemIndexer;
// PIP-46). The Context creates one per partition-bucket through a Factory.
//
// Batches yielded by the iterators are owned by the consumer, who must
// Release them. Every method is safe for concurrent use: Write,
// SealForCommit, AcquireReadView, readers and AdvanceCommittedOffset may
// overlap, and the store synchronises its rotation itself.
type Store interface {
	// Write appends b to the building segment; the store retains
	// b.Record. Batches of one store arrive in offset order: a batch whose
	// Range.Begin is below the end of the previous one fails with
	// ErrOffsetOrder, a batch in another schema with ErrSchemaMismatch.
	Write(ctx context.Context, b Batch) error
	// SealForCommit turns the building segment into an immutable sealed
	// segment and opens a new building one at once. It returns nil when the
	// building segment holds no rows.
	SealForCommit(ctx context.Context) (Segment, error)
	// CommitReaders returns readers that together yield every row of seg
	// exactly once, with all transport columns: in write order for
	// AppendOnly, each reader sorted by key then sequence number for
	// PrimaryKey. They may be consumed concurrently. ErrForeignHandle
	// for a segment of another store.
	CommitReaders(ctx context.Context, seg Segment) ([]iter.Seq2[arrow.RecordBatch, error], error)
	// AcquireReadView returns an immutable view of the current sealed and
	// building rows, consistent even while a Write or SealForCommit runs.
	AcquireReadView(ctx context.Context) (ReadView, error)
	// QueryReaders returns readers over view yielding every candidate row
	// of it exactly once (q's hints may drop rows that cannot match),
	// projected to q.Columns, at most q.BatchSize rows per batch; for
	// PrimaryKey each reader is sorted by key then sequence number.
	QueryReaders(ctx context.Context, view ReadView, q Query) ([]iter.Seq2[arrow.RecordBatch, error], error)
	// AdvanceCommittedOffset tells the store that every row with an offset
	// below end is in the table's files, so segments entirely below end
	// may be reclaimed once no view pins them. Monotonic and idempotent: a
	// repeated or lower end changes nothing.
	AdvanceCommittedOffset(ctx context.Context, end int64) error
	// Usage reports bytes and rows held.
	Usage() Usage
	// Close releases the store's data; views acquired before stay valid
	// until released. Later writes fail with ErrClosed.
	Close() error
}
