package memindexer

import (
	"errors"
	"fmt"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/memory"

	"github.com/paimon-go/paimon/realtime"
	"github.com/paimon-go/paimon/types"
)

// Errors of this package; test with errors.Is. Errors about offsets, schemas,
// foreign handles and closed stores also wrap the realtime sentinels
// (realtime.ErrOffsetOrder, realtime.ErrSchemaMismatch,
// realtime.ErrForeignHandle, realtime.ErrClosed).
var (
	// ErrInvalidRequest: a realtime.CreateRequest Factory.Create cannot
	// serve (unknown mode or statistics mode, transport columns missing or
	// of the wrong type, bad key column indexes).
	ErrInvalidRequest = errors.New("memindexer: invalid create request")
	// ErrInvalidBatch: a batch without a record or rows, with columns of
	// different lengths, or with nulls in a non-null transport column
	// other than the offset (which fails with realtime.ErrOffsetOrder).
	ErrInvalidBatch = errors.New("memindexer: invalid batch")
	// ErrInvalidQuery: a realtime.Query with BatchSize <= 0.
	ErrInvalidQuery = errors.New("memindexer: invalid query")
	// ErrReleased: a query over a ReadView that was already released.
	ErrReleased = errors.New("memindexer: read view released")
	// ErrReclaimed: commit readers over a sealed segment whose rows the
	// store already reclaimed (AdvanceCommittedOffset covered it) or
	// dropped (Close).
	ErrReclaimed = errors.New("memindexer: segment reclaimed")
)

// Factory creates the built-in Arrow stores (paimon-cpp
// ArrowRealtimeStoreFactory, formerly ArrowMemIndexerFactory). The zero value
// is ready to use. Spilling sealed segments to disk, which paimon-cpp
// offers, is not implemented.
type Factory struct {
	// CompactRatio bounds the memory a stored column may pin: at Write, a
	// column of a flat type (fixed width, string, binary) whose buffers'
	// capacity exceeds CompactRatio times the raw Arrow size of its rows,
	// and by at least 4 KiB, is copied into exact-size buffers allocated
	// from the request's Allocator; every other column is retained as
	// written. Such slack comes from builders and readers that grow
	// buffers by doubling, and from small slices of large records. 0 means
	// DefaultCompactRatio; a negative value never copies.
	CompactRatio float64
}

var _ realtime.Factory = Factory{}

// Create validates req and returns an empty store for it.
//
// The transport schema must start with the columns of req.Mode
// (realtime.OffsetColumn Int64 for realtime.AppendOnly;
// realtime.KindColumn Int8, realtime.SequenceColumn Int64 and
// realtime.OffsetColumn Int64 at indexes 0, 1, 2 for realtime.PrimaryKey).
// PrimaryKey needs at least one key column; key column indexes must be
// distinct, point at table columns (after the transport columns) and are
// not allowed for AppendOnly. req.Allocator (nil: memory.DefaultAllocator)
// allocates compacted copies (see CompactRatio); req.Options is not used.
//
// Errors wrap ErrInvalidRequest, and also realtime.ErrSchemaMismatch when
// the schema is the problem.
func (f Factory) Create(req realtime.CreateRequest) (realtime.Store, error) {
	if req.Schema == nil {
		return nil, fmt.Errorf("%w: %w: nil transport schema", ErrInvalidRequest, realtime.ErrSchemaMismatch)
	}
	var want []arrow.Field
	switch req.Mode {
	case realtime.AppendOnly:
		want = []arrow.Field{{Name: realtime.OffsetColumn, Type: arrow.PrimitiveTypes.Int64}}
		if len(req.KeyColumns) != 0 {
			return nil, fmt.Errorf("%w: append-only store given key columns %v", ErrInvalidRequest, req.KeyColumns)
		}
	case realtime.PrimaryKey:
		want = []arrow.Field{
			{Name: realtime.KindColumn, Type: arrow.PrimitiveTypes.Int8},
			{Name: realtime.SequenceColumn, Type: arrow.PrimitiveTypes.Int64},
			{Name: realtime.OffsetColumn, Type: arrow.PrimitiveTypes.Int64},
		}
	default:
		return nil, fmt.Errorf("%w: unknown mode %d", ErrInvalidRequest, req.Mode)
	}
	if req.Stats != realtime.StatsNone && req.Stats != realtime.StatsFull {
		return nil, fmt.Errorf("%w: unknown statistics mode %d", ErrInvalidRequest, req.Stats)
	}
	n := req.Schema.NumFields()
	if n < len(want) {
		return nil, fmt.Errorf("%w: %w: transport schema has %d columns, want at least %d (%s)",
			ErrInvalidRequest, realtime.ErrSchemaMismatch, n, len(want), req.Schema)
	}
	for i, w := range want {
		f := req.Schema.Field(i)
		if f.Name != w.Name || !arrow.TypeEqual(f.Type, w.Type) {
			return nil, fmt.Errorf("%w: %w: transport column %d is %s %s, want %s %s",
				ErrInvalidRequest, realtime.ErrSchemaMismatch, i, f.Name, f.Type, w.Name, w.Type)
		}
	}
	for i := len(want); i < n; i++ {
		switch req.Schema.Field(i).Name {
		case realtime.OffsetColumn, realtime.KindColumn, realtime.SequenceColumn:
			return nil, fmt.Errorf("%w: %w: transport column name %s repeated at index %d",
				ErrInvalidRequest, realtime.ErrSchemaMismatch, req.Schema.Field(i).Name, i)
		}
	}
	if req.Mode == realtime.PrimaryKey {
		if len(req.KeyColumns) == 0 {
			return nil, fmt.Errorf("%w: primary-key store without key columns", ErrInvalidRequest)
		}
		seen := make(map[int]bool, len(req.KeyColumns))
		for _, k := range req.KeyColumns {
			if k < len(want) || k >= n || seen[k] {
				return nil, fmt.Errorf("%w: key column index %d invalid or repeated (table columns are %d..%d)",
					ErrInvalidRequest, k, len(want), n-1)
			}
			seen[k] = true
		}
	}
	ratio := f.CompactRatio
	if ratio == 0 {
		ratio = DefaultCompactRatio
	}
	alloc := req.Allocator
	if alloc == nil {
		alloc = memory.DefaultAllocator
	}
	s := &store{
		compact:   ratio,
		alloc:     alloc,
		schema:    req.Schema,
		mode:      req.Mode,
		offsetCol: len(want) - 1,
		fixedCols: len(want),
		keys:      append([]int(nil), req.KeyColumns...),
		statsMode: req.Stats,
		allCols:   make([]int, n),
	}
	for i := range s.allCols {
		s.allCols[i] = i
	}
	if req.Stats == realtime.StatsFull {
		s.colTypes = make([]types.DataType, n)
		s.colStats = make([]bool, n)
		for i := range n {
			t, err := types.FromArrow(req.Schema.Field(i).Type)
			if err == nil && statsSupported(req.Schema.Field(i).Type) {
				s.colTypes[i] = t
				s.colStats[i] = true
			}
		}
	}
	return s, nil
}
