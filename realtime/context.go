package realtime

import (
	"cmp"
	"context"
	"encoding/binary"
	"errors"
	"fmt"
	"slices"
	"sync"
	"sync/atomic"
	"time"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/memory"

	"github.com/paimon-go/paimon/commit"
	"github.com/paimon-go/paimon/fileio"
	"github.com/paimon-go/paimon/metrics"
	"github.com/paimon-go/paimon/progress"
	"github.com/paimon-go/paimon/reader"
	"github.com/paimon-go/paimon/row"
	"github.com/paimon-go/paimon/schema"
	"github.com/paimon-go/paimon/snapshot"
)

// Metric names of Context.Metrics (paimon-cpp RealtimeContext::GetMetrics,
// realtime-design.md section 9), gauges summed over every store
// (Store.Usage).
const (
	// MetricBuildingMemoryBytes: bytes of Arrow buffers in building
	// segments (Usage.BuildingBytes).
	MetricBuildingMemoryBytes = "realtimeBuildingMemoryBytes"
	// MetricSealedMemoryBytes: bytes of Arrow buffers in sealed, not yet
	// reclaimed segments (Usage.SealedBytes).
	MetricSealedMemoryBytes = "realtimeSealedMemoryBytes"
	// MetricTotalMemoryBytes: the sum of the two, bytes.
	MetricTotalMemoryBytes = "realtimeTotalMemoryBytes"
	// MetricBuildingRowCount: physical rows in building segments
	// (Usage.BuildingRows).
	MetricBuildingRowCount = "realtimeBuildingRowCount"
	// MetricSealedRowCount: physical rows in sealed, not yet reclaimed
	// segments (Usage.SealedRows).
	MetricSealedRowCount = "realtimeSealedRowCount"
	// MetricTotalRowCount: the sum of the two, rows.
	MetricTotalRowCount = "realtimeTotalRowCount"
)

// ContextOption configures NewContext.
type ContextOption func(*contextConfig)

type contextConfig struct {
	mem                memory.Allocator
	ttl                time.Duration
	cache              *reader.Cache
	reporter           metrics.Reporter
	commitFIO, scanFIO *fileio.FileIO
}

// WithReporter makes the context's committers (NewCommit) hand r a
// *metrics.RealtimeReport per CommitWithProgress, and a
// *metrics.CommitReport as commit.WithReporter does; its scans a
// *metrics.ScanReport per plan. nil reports nothing.
func WithReporter(r metrics.Reporter) ContextOption {
	return func(c *contextConfig) { c.reporter = r }
}

// WithAllocator sets the Arrow allocator of the stores and of the batches
// the context builds; default memory.DefaultAllocator.
func WithAllocator(mem memory.Allocator) ContextOption {
	return func(c *contextConfig) { c.mem = mem }
}

// WithCache sets the cache of decoded manifests the context's scans share
// (reader.WithCache); default a cache of its own of reader.DefaultCacheBytes.
// paimon.Table.NewRealtimeContext passes the table's cache.
func WithCache(c *reader.Cache) ContextOption {
	return func(cfg *contextConfig) { cfg.cache = c }
}

// WithCommitFileIO makes the context's committers (NewCommit, with the
// maintenance they run after each commit) read and write through fio
// instead of the context's FileIO. fio must reach the same files: another
// FileIO of the same table root, e.g. fileio.Open of the context FileIO's
// URL (a mem:// store is private to one FileIO). Its request counters
// (fileio.FileIO.Stats) then count the committers' requests apart from the
// writers' and scans'. The context does not close fio; nil keeps the
// context's FileIO.
func WithCommitFileIO(fio *fileio.FileIO) ContextOption {
	return func(c *contextConfig) { c.commitFIO = fio }
}

// WithScanFileIO makes the context's scans (NewScan, Lookup, and the
// lookup planning that RefreshCommittedSnapshot and
// Commit.CommitWithProgress do for lookups) read through fio instead of the
// context's FileIO; fio must reach the same files, as for
// WithCommitFileIO. Writers, the context's baseline and
// RefreshCommittedSnapshot's progress reads keep the context's FileIO. The
// context does not close fio; nil keeps the context's FileIO.
func WithScanFileIO(fio *fileio.FileIO) ContextOption {
	return func(c *contextConfig) { c.scanFIO = fio }
}

// WithReadViewTTL overrides realtime.read-view-ttl: how long a real-time
// split's ticket stays valid before a read consumes it. d must be > 0.
func WithReadViewTTL(d time.Duration) ContextOption {
	return func(c *contextConfig) { c.ttl = d }
}

// Context is the process-local state shared by the real-time writers,
// committers, scans and reads of one table (paimon-cpp RealtimeContext):
// one Store per partition-bucket, created lazily through a Factory and
// kept across writers, the committed progress the context has adopted, and
// the read views pinned by scans.
//
// A context starts from the progress of the table's latest snapshot, read
// when its first partition-bucket is created, and moves only with
// RefreshCommittedSnapshot. It is safe for concurrent use. Only tables with
// a fixed bucket count on the main branch are served.
type Context struct {
	fio     *fileio.FileIO
	cfio    *fileio.FileIO // committers' (WithCommitFileIO; fio by default)
	sfio    *fileio.FileIO // scans' (WithScanFileIO; fio by default)
	ts      *schema.TableSchema
	factory Factory
	mem     memory.Allocator
	ttl     time.Duration
	cache   *reader.Cache // decoded manifests, shared by the context's scans
	stats   StatsMode
	lay     *layout
	pc      row.PartitionComputer
	buckets int32

	mu        sync.Mutex // guards the fields below
	pbs       map[string]*pbState
	logical   map[string]*pbState // by progress.PartitionBucket.Key
	closed    bool
	loaded    bool // adopted holds the baseline or a refreshed snapshot
	adoptedID int64
	adopted   progress.Offsets

	lookupScan atomic.Pointer[Scan] // Lookup without options (lookups); nil until the first

	prepMu sync.Mutex // one PrepareCommitWithProgress at a time
	// press makes Writes wait for a running prepare when the stores hold
	// more than write-buffer-size bytes.
	press pressure
	// flushHook, when set (tests), runs in every prepare after the seal and
	// before the data files are written.
	flushHook func()
	// lostCompactions counts commits whose data and progress landed but
	// whose compaction changes were refused (commit.ErrCompactionNotCommitted);
	// a Write that has seen fewer restores its flush writer first.
	lostCompactions atomic.Int64
	// prepared times the prepares since the last commit, for reports.
	prepared prepareTally
	reporter metrics.Reporter // WithReporter; nil: none

	tmu     sync.Mutex // guards tickets
	tickets map[uint64]*pin
	nextID  uint64
}

// pbState is the registry entry of one partition-bucket.
type pbState struct {
	key       string
	partition []byte // serialized partition BinaryRow
	values    []any  // partition values in key order
	bucket    int32
	pb        progress.PartitionBucket
	store     Store

	mu       sync.Mutex // orders the writes and seals of this partition-bucket
	next     int64      // next expected offset: envelope end of the last write
	prepared int64      // end of the last prepared range: start of the next one
	pending  []Segment  // sealed but not prepared (after a failed prepare)
	seq      int64      // next sequence number (primary keys), valid if seqSet
	seqSet   bool

	notified atomic.Int64 // highest end AdvanceCommittedOffset accepted
	wrote    atomic.Bool  // a batch of this context was stored
	known    atomic.Int64 // highest end a Commit of this context published
}

// pbKey is the registry key of a partition-bucket: partition bytes, then
// the bucket big-endian.
func pbKey(partition []byte, bucket int32) string {
	return string(binary.BigEndian.AppendUint32(append([]byte(nil), partition...), uint32(bucket)))
}

// comparePB orders partition-buckets as reader plans do: by partition
// bytes, then bucket.
func comparePB(ap []byte, ab int32, bp []byte, bb int32) int {
	if c := cmp.Compare(string(ap), string(bp)); c != 0 {
		return c
	}
	return cmp.Compare(ab, bb)
}

// NewContext returns the real-time context of the table rooted at fio
// whose latest schema is ts, creating stores with f.
//
// Errors: ErrNotEnabled unless ts sets realtime.enabled=true; ErrNilFactory
// for a nil f; ErrUnsupported for a table without a fixed bucket count
// (bucket <= 0); schema.ErrInvalidOption for malformed realtime options.
func NewContext(fio *fileio.FileIO, ts *schema.TableSchema, f Factory, opts ...ContextOption) (*Context, error) {
	if err := checkEnabled(ts); err != nil {
		return nil, err
	}
	if f == nil {
		return nil, ErrNilFactory
	}
	n, err := ts.NumBuckets()
	if err != nil {
		return nil, err
	}
	if n <= 0 {
		return nil, fmt.Errorf("%w: bucket = %d; the real-time layer needs a fixed bucket count (bucket > 0)", ErrUnsupported, n)
	}
	cfg := contextConfig{mem: memory.DefaultAllocator}
	if cfg.ttl, err = ts.Options.RealtimeReadViewTTL(); err != nil {
		return nil, err
	}
	for _, o := range opts {
		o(&cfg)
	}
	if cfg.cache == nil {
		cfg.cache = reader.NewCache(reader.DefaultCacheBytes)
	}
	if cfg.ttl <= 0 {
		return nil, fmt.Errorf("%w: read view TTL %v must be > 0", schema.ErrInvalidOption, cfg.ttl)
	}
	sm, err := ts.Options.RealtimeStoreStatsMode()
	if err != nil {
		return nil, err
	}
	legacy, err := ts.Options.PartitionLegacyName()
	if err != nil {
		return nil, err
	}
	limit, err := ts.Options.WriteBufferSize()
	if err != nil {
		return nil, err
	}
	c := &Context{
		fio: fio, cfio: cmp.Or(cfg.commitFIO, fio), sfio: cmp.Or(cfg.scanFIO, fio),
		ts: ts, factory: f, mem: cfg.mem, ttl: cfg.ttl, cache: cfg.cache, reporter: cfg.reporter,
		lay:     newLayout(ts),
		pc:      row.PartitionComputer{Fields: ts.PartitionFields(), DefaultName: ts.Options.PartitionDefaultName(), Legacy: legacy},
		buckets: int32(n),
		pbs:     map[string]*pbState{},
		logical: map[string]*pbState{},
		tickets: map[uint64]*pin{},
	}
	c.press.limit = limit
	if sm == "full" {
		c.stats = StatsFull
	}
	return c, nil
}

func checkEnabled(ts *schema.TableSchema) error {
	on, err := ts.Options.RealtimeEnabled()
	if err != nil {
		return err
	}
	if !on {
		return ErrNotEnabled
	}
	return nil
}

// Schema returns the table schema the context serves.
func (c *Context) Schema() *schema.TableSchema { return c.ts }

// Mode reports whether the context serves an append or a primary-key table.
func (c *Context) Mode() Mode { return c.lay.mode }

// TransportSchema returns the schema of the batches its stores hold.
func (c *Context) TransportSchema() *arrow.Schema { return c.lay.transport }

// AdoptedSnapshot returns the id of the snapshot whose progress the
// context holds (0 before it read any) and that progress.
func (c *Context) AdoptedSnapshot() (int64, progress.Offsets) {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.adoptedID, c.adopted
}

// baseline reads the latest snapshot's progress once, when the first
// partition-bucket is created, unless a refresh came first.
func (c *Context) baseline(ctx context.Context) error {
	c.mu.Lock()
	done := c.loaded
	c.mu.Unlock()
	if done {
		return nil
	}
	var id int64
	var off progress.Offsets
	sn, err := snapshot.NewManager(c.fio).Latest(ctx)
	switch {
	case errors.Is(err, snapshot.ErrNotFound):
	case err != nil:
		return fmt.Errorf("realtime: read the latest snapshot for the committed offsets: %w", err)
	default:
		id = sn.ID
		if off, _, err = progress.OfSnapshot(ctx, c.fio, "", sn); err != nil {
			return err
		}
	}
	c.mu.Lock()
	if !c.loaded {
		c.loaded, c.adoptedID, c.adopted = true, id, off
	}
	c.mu.Unlock()
	return nil
}

// state returns the registry entry of a partition-bucket, creating its
// store on first use. Its next offset is the committed end the context
// holds for it (0 when none).
func (c *Context) state(ctx context.Context, partition []byte, values []any, bucket int32) (*pbState, error) {
	key := pbKey(partition, bucket)
	c.mu.Lock()
	st, closed := c.pbs[key], c.closed
	c.mu.Unlock()
	if closed {
		return nil, fmt.Errorf("%w: real-time context", ErrClosed)
	}
	if st != nil {
		return st, nil
	}
	if err := c.baseline(ctx); err != nil {
		return nil, err
	}
	part, err := progress.PartitionOf(c.pc, values)
	if err != nil {
		return nil, err
	}
	pb := progress.PartitionBucket{Partition: part, Bucket: bucket}
	store, err := c.factory.Create(CreateRequest{
		Schema: c.lay.transport, Mode: c.lay.mode, KeyColumns: slices.Clone(c.lay.keys),
		Stats: c.stats, Options: c.ts.Options, Allocator: c.mem,
	})
	if err != nil {
		return nil, fmt.Errorf("realtime: create the store of %s: %w", pb, err)
	}
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.closed {
		_ = store.Close()
		return nil, fmt.Errorf("%w: real-time context", ErrClosed)
	}
	if st := c.pbs[key]; st != nil {
		_ = store.Close()
		return st, nil
	}
	end, _ := c.adopted.End(pb)
	st = &pbState{key: key, partition: slices.Clone(partition), values: slices.Clone(values), bucket: bucket,
		pb: pb, store: store, next: end, prepared: end}
	st.notified.Store(end)
	c.pbs[key] = st
	c.logical[pb.Key()] = st
	return st, nil
}

// published records that a Commit of this context published prog: the
// stores keep the rows until a refresh, and scans must not read them again
// over a snapshot that lost them.
func (c *Context) published(prog []Progress) {
	c.mu.Lock()
	defer c.mu.Unlock()
	for _, p := range prog {
		st := c.logical[p.PartitionBucket.Key()]
		if st == nil {
			continue
		}
		for {
			cur := st.known.Load()
			if p.Range.End <= cur || st.known.CompareAndSwap(cur, p.Range.End) {
				break
			}
		}
	}
}

// registered returns the registry entries in partition-bucket order.
func (c *Context) registered() []*pbState {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.sortedLocked()
}

func (c *Context) sortedLocked() []*pbState {
	out := make([]*pbState, 0, len(c.pbs))
	for _, st := range c.pbs {
		out = append(out, st)
	}
	slices.SortFunc(out, func(a, b *pbState) int { return comparePB(a.partition, a.bucket, b.partition, b.bucket) })
	return out
}

// continueAbove raises the sequence counter of the partition-bucket of r
// above the copies a commit published (commit.Message.OnResequenced).
func (c *Context) continueAbove(r commit.Resequenced) {
	c.mu.Lock()
	st := c.pbs[pbKey(r.Partition, r.Bucket)]
	c.mu.Unlock()
	if st == nil {
		return
	}
	var top int64 = -1
	for _, copies := range r.Files {
		for _, f := range copies {
			top = max(top, f.MaxSequenceNumber)
		}
	}
	st.mu.Lock()
	if st.seqSet && st.seq <= top {
		st.seq = top + 1
	}
	st.mu.Unlock()
}

// RefreshCommittedSnapshot adopts the progress of snapshot id after a
// successful commit (paimon-cpp FileStoreWrite::RefreshCommittedSnapshot and
// RealtimeContext::AdvanceCommittedProgress): the offsets are loaded
// (progress.ReadCommitted) and adopted atomically when id is newer than the
// adopted snapshot and, for every partition-bucket this context wrote to,
// the new end is not below the adopted one and does not disappear (a
// partition-bucket the context never wrote may go). Then every store is
// told its committed end (Store.AdvanceCommittedOffset) outside the
// registry lock, so covered segments can be reclaimed. Refreshing the adopted snapshot again only
// re-notifies stores whose notification failed before. id 0, what
// Commit.CommitWithProgress returns when it had nothing to publish, changes
// nothing and returns nil, so a commit loop may refresh unconditionally.
//
// Errors: ErrRecreateContext (progress reset, rolled back or an active
// partition dropped; memory unchanged), ErrSnapshotTooOld for an id below
// the adopted one, snapshot.ErrNotFound for a missing snapshot (or id <
// 0), ErrClosed, and the errors of reading the offsets and of the stores
// (joined).
func (c *Context) RefreshCommittedSnapshot(ctx context.Context, id int64) error {
	if id == 0 {
		return nil
	}
	if id < 0 {
		return fmt.Errorf("realtime: refresh of snapshot %d: %w", id, snapshot.ErrNotFound)
	}
	c.mu.Lock()
	closed, adoptedID, loaded := c.closed, c.adoptedID, c.loaded
	c.mu.Unlock()
	if closed {
		return fmt.Errorf("%w: real-time context", ErrClosed)
	}
	if loaded && id < adoptedID {
		return fmt.Errorf("%w: refresh of snapshot %d, the context holds snapshot %d", ErrSnapshotTooOld, id, adoptedID)
	}
	if !loaded || id > adoptedID {
		off, err := progress.ReadCommitted(ctx, c.fio, "", id)
		if err != nil {
			return err
		}
		if err := c.adopt(id, off); err != nil {
			return err
		}
	}
	if s := c.lookupScan.Load(); s != nil {
		// Plan the new snapshot for lookups here, in the committer's
		// goroutine, so that the next lookup finds it planned. A failure
		// leaves it to that lookup.
		_, _ = s.disk(ctx)
	}
	return c.notify(ctx)
}

func (c *Context) adopt(id int64, off progress.Offsets) error {
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.loaded && id < c.adoptedID {
		return fmt.Errorf("%w: refresh of snapshot %d, the context holds snapshot %d", ErrSnapshotTooOld, id, c.adoptedID)
	}
	if c.loaded && id == c.adoptedID {
		return nil // a concurrent refresh of the same snapshot won
	}
	for _, st := range c.pbs {
		if !st.wrote.Load() {
			continue // dropping a partition-bucket this context never wrote is fine
		}
		old, had := c.adopted.End(st.pb)
		end, has := off.End(st.pb)
		switch {
		case had && !has:
			return fmt.Errorf("%w: snapshot %d has no progress for %s (the context holds %d)", ErrRecreateContext, id, st.pb, old)
		case had && end < old:
			return fmt.Errorf("%w: snapshot %d moves %s back from %d to %d", ErrRecreateContext, id, st.pb, old, end)
		}
	}
	c.loaded, c.adoptedID, c.adopted = true, id, off
	return nil
}

// notify tells every store behind the adopted progress its committed end.
func (c *Context) notify(ctx context.Context) error {
	c.mu.Lock()
	off := c.adopted
	sts := c.sortedLocked()
	c.mu.Unlock()
	var errs []error
	for _, st := range sts {
		end, ok := off.End(st.pb)
		if !ok || end <= st.notified.Load() {
			continue
		}
		if err := st.store.AdvanceCommittedOffset(ctx, end); err != nil {
			errs = append(errs, fmt.Errorf("realtime: advance the committed offset of %s to %d: %w", st.pb, end, err))
			continue
		}
		for {
			cur := st.notified.Load()
			if end <= cur || st.notified.CompareAndSwap(cur, end) {
				break
			}
		}
	}
	return errors.Join(errs...)
}

// Usage returns the data held by every store of the context, summed
// (bytes and rows, see Usage).
func (c *Context) Usage() Usage {
	var u Usage
	for _, st := range c.registered() {
		u = u.Add(st.store.Usage())
	}
	return u
}

// usedBytes is the bytes the stores hold (building and sealed).
func (c *Context) usedBytes() int64 {
	u := c.Usage()
	return u.BuildingBytes + u.SealedBytes
}

// Metrics returns the gauges of realtime-design.md section 9 (the Metric*
// names) summed over every store: bytes and physical rows in building and
// in sealed, not yet reclaimed segments.
func (c *Context) Metrics() map[string]int64 {
	u := c.Usage()
	return map[string]int64{
		MetricBuildingMemoryBytes: u.BuildingBytes,
		MetricSealedMemoryBytes:   u.SealedBytes,
		MetricTotalMemoryBytes:    u.BuildingBytes + u.SealedBytes,
		MetricBuildingRowCount:    u.BuildingRows,
		MetricSealedRowCount:      u.SealedRows,
		MetricTotalRowCount:       u.BuildingRows + u.SealedRows,
	}
}

// Close releases every unconsumed ticket and closes every store; reads
// already started keep their views. Rows not committed are lost. Later
// writes, prepares, scans and refreshes fail with ErrClosed. Close is
// idempotent and returns the stores' errors, joined.
func (c *Context) Close() error {
	c.mu.Lock()
	if c.closed {
		c.mu.Unlock()
		return nil
	}
	c.closed = true
	sts := c.sortedLocked()
	c.mu.Unlock()
	c.tmu.Lock()
	pins := make([]*pin, 0, len(c.tickets))
	for id, p := range c.tickets {
		pins = append(pins, p)
		delete(c.tickets, id)
	}
	c.tmu.Unlock()
	for _, p := range pins {
		p.drop()
	}
	var errs []error
	for _, st := range sts {
		if err := st.store.Close(); err != nil {
			errs = append(errs, fmt.Errorf("realtime: close the store of %s: %w", st.pb, err))
		}
	}
	return errors.Join(errs...)
}

func (c *Context) isClosed() bool {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.closed
}

// ReadCommittedOffsets returns the durable progress recorded by snapshot
// snapshotID of the table rooted at fio (main branch), or by its latest
// snapshot when snapshotID <= 0: per partition-bucket the exclusive end
// offset of the rows in the table's files (Offsets.End reports false for a
// partition-bucket without progress, the -1 of paimon-cpp); empty when the
// table has no snapshot or the snapshot carries no real-time progress
// (paimon-cpp RealtimeSnapshotOffsets::ReadAllOffsets, progress.ReadCommitted).
// An ingest job replays its source from these ends after a failure.
//
// Errors: snapshot.ErrNotFound for a missing snapshotID > 0,
// progress.ErrCorrupt for an unreadable offsets file, and I/O errors
// naming the file.
func ReadCommittedOffsets(ctx context.Context, fio *fileio.FileIO, snapshotID int64) (progress.Offsets, error) {
	return progress.ReadCommitted(ctx, fio, "", snapshotID)
}
