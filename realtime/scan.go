package realtime

import (
	"cmp"
	"context"
	"errors"
	"fmt"
	"iter"
	"maps"
	"slices"
	"sync"
	"time"

	"github.com/apache/arrow-go/v18/arrow"

	"github.com/paimon-go/paimon/fileio"
	"github.com/paimon-go/paimon/manifest"
	"github.com/paimon-go/paimon/predicate"
	"github.com/paimon-go/paimon/progress"
	"github.com/paimon-go/paimon/reader"
	"github.com/paimon-go/paimon/schema"
	"github.com/paimon-go/paimon/snapshot"
	"github.com/paimon-go/paimon/types"
)

// Scan plans a real-time read of the context's table: the committed files
// of a snapshot united with the rows the context's stores hold above that
// snapshot's committed offsets (paimon-cpp TableScan with a
// RealtimeContext).
//
// A Scan may be planned any number of times, also concurrently; each Plan
// sees the rows accepted before it. Planning the disk snapshot (manifest
// lists and manifests) is the expensive part of a small query, so a Scan
// keeps the disk plan of its last Plan call and reuses it while the
// table's latest snapshot id (snapshot.Manager.LatestID: the LATEST hint
// and one existence check) is the id that plan read; the reused plan is
// the one a new planning would produce. Keep one Scan per repeated query
// to benefit. Tables with scan.fallback-branch are always planned afresh.
type Scan struct {
	c    *Context
	opts []reader.Option

	mu      sync.Mutex
	last    *diskPlan  // the disk plan of the last Plan call
	checked time.Time  // when last was planned or found to be the latest
	planMu  sync.Mutex // held while a new disk plan is made
	// recheck, when positive, lets a Plan call use last without asking
	// the store while it was checked within recheck and is not older than
	// the snapshot the context adopted (the context's lookups).
	recheck time.Duration
}

// diskPlan is a planned disk snapshot and the progress it records.
type diskPlan struct {
	rp  *reader.Plan
	off progress.Offsets
}

// NewScan returns a real-time scan with the options of package reader
// (snapshot, columns, filter, batch size, ...). Tag, timestamp and snapshot
// options pick the disk snapshot as for reader.Scan; branch options are
// not supported (the context's progress is that of the main branch).
func (c *Context) NewScan(opts ...reader.Option) *Scan {
	return &Scan{c: c, opts: slices.Clone(opts)}
}

// Plan is a planned real-time scan: the disk plan and the splits to read,
// some of which pin in-memory rows. Unread real-time splits keep their read
// views until read, Release or the context's read-view TTL.
type Plan struct {
	// Disk is the plan of the committed snapshot (its Snapshot, Schema and
	// output Fields describe the real-time plan too). It may be shared with
	// other plans of the same Scan: treat it as read-only.
	Disk *reader.Plan
	// SnapshotID is the id of the planned snapshot; 0 when the table had
	// none.
	SnapshotID int64
	// Splits are the units of reading in read order: disk splits of
	// partition-buckets without memory rows, real-time splits of those with
	// them (at the place of the partition-bucket's disk split), then the
	// real-time splits of partition-buckets without files.
	Splits []*Split

	c         *Context
	batchSize int
	// filter is the scan filter over Disk.Schema.Fields when package reader
	// exposes it (known), nil for none; hint is its part usable as a
	// pruning hint over the transport schema (storeHint: every column for
	// append tables, trimmed primary-key columns for primary-key tables).
	filter predicate.Predicate
	known  bool
	hint   predicate.Predicate
	// keys is the point lookup hint of the stores' queries (Query.Keys),
	// nil unless the plan is a lookup's of a primary-key table.
	keys *QueryKeys
}

// Split is one unit of reading (paimon-cpp RealtimeSplit, metadata version
// 1, when it pins memory rows; otherwise a plain disk split).
type Split struct {
	// Disk are the disk splits read by this split: one for a plain split;
	// for a real-time split of an append table the partition-bucket's last
	// disk split (earlier ones are plain splits of their own), of a
	// primary-key table every disk split of the partition-bucket (merged
	// together with the memory rows); none for a partition-bucket without
	// files.
	Disk []*reader.Split
	// PartitionBucket is the logical partition-bucket.
	PartitionBucket progress.PartitionBucket
	// SnapshotID is the planned snapshot (0 when the table had none).
	SnapshotID int64
	// CommittedEnd is the committed end of the partition-bucket recorded by
	// the planned snapshot (0 without one), never the context's newer
	// progress; MemoryEnd is the end of the pinned view. The memory rows
	// read are exactly those with CommittedEnd <= offset < MemoryEnd. Both
	// are CommittedEnd for a plain split.
	CommittedEnd, MemoryEnd int64

	c      *Context
	st     *pbState
	ticket uint64
	base   *reader.Split // what ReadSplitWith reads with the memory rows
}

// Realtime reports whether the split pins memory rows.
func (s *Split) Realtime() bool { return s.ticket != 0 }

// memPB is a partition-bucket whose view holds rows to read.
type memPB struct {
	st   *pbState
	view ReadView
	r    progress.Range
	used bool
}

// Plan pins one read view per partition-bucket of the context, then plans
// the disk snapshot (the latest unless the options choose another) and
// builds the splits. Acquiring the views first guarantees that the rows
// above the planned snapshot's committed offsets are still in them.
// Deletion-vector and first-row tables are planned with
// reader.WithAllLevels, so committed level-0 files stay visible (plain
// reads skip them until a compaction moves their rows up, and the context
// no longer holds them in memory once it adopted their snapshot). The disk plan of the Scan's
// previous Plan call is reused while it is still the latest (see Scan).
//
// The scan filter prunes files as in reader.Scan and, as a pruning hint
// (Query.Filter), the stores' memory batches (realtime-design.md section
// 8.5): every conjunct over table columns for append tables; for
// primary-key tables only the conjuncts over trimmed primary-key columns,
// which treat all versions of a key alike, never a value-column conjunct,
// which could hide a key's newest version and resurrect an older one. Rows
// are filtered exactly after the merge either way.
//
// Errors: ErrClosed, ErrSnapshotTooOld when the planned snapshot is older
// than the snapshot the context adopted (its rows may be reclaimed),
// ErrRecreateContext when the planned snapshot's progress of a
// partition-bucket is below what the context adopted or committed itself
// (truncate, overwrite, rollback, dropped partition) while memory still
// holds rows in between, which would reappear over the snapshot (rows the
// context never committed are read on top of it), and the errors of
// reader.Scan.Plan and of reading the snapshot's offsets.
func (s *Scan) Plan(ctx context.Context) (*Plan, error) {
	return s.plan(ctx, nil)
}

// plan is Plan; with keys, the disk plan (kept across calls as Plan keeps
// it) is narrowed to the keys' partition-buckets and files
// (reader.Plan.Narrow), as a WithKeys scan would plan it.
func (s *Scan) plan(ctx context.Context, keys arrow.RecordBatch) (*Plan, error) {
	c := s.c
	views, err := c.acquireViews(ctx)
	if err != nil {
		return nil, err
	}
	held := views
	defer func() {
		for _, pv := range held {
			pv.view.Release()
		}
	}()
	c.mu.Lock()
	adoptedID, adopted := c.adoptedID, c.adopted
	c.mu.Unlock()
	known := make(map[string]int64, len(views))
	for _, pv := range views {
		known[pv.st.key] = pv.st.known.Load()
	}

	dp, err := s.disk(ctx)
	if err != nil {
		return nil, err
	}
	rp, off := dp.rp, dp.off
	if keys != nil {
		if rp, err = rp.Narrow(ctx, keys); err != nil {
			return nil, err
		}
	}
	var snapID int64
	if rp.Snapshot != nil {
		snapID = rp.Snapshot.ID
	}
	if snapID < adoptedID {
		return nil, fmt.Errorf("%w: planned snapshot %d, the context holds snapshot %d", ErrSnapshotTooOld, snapID, adoptedID)
	}
	batch, err := c.ts.Options.ReadBatchSize()
	if err != nil || batch <= 0 {
		batch = 4096
	}
	p := &Plan{Disk: rp, SnapshotID: snapID, c: c, batchSize: batch}
	p.filter, p.known = planFilter(rp)
	if p.filter != nil {
		p.hint = c.storeHint(p.filter, rp)
	}
	if keys != nil && c.lay.mode == PrimaryKey {
		p.keys = c.queryKeys(keys)
	}

	mems := map[string]*memPB{}
	for _, pv := range views {
		committed, _ := off.End(pv.st.pb)
		if bound := max(known[pv.st.key], adoptedEnd(adopted, pv.st.pb)); committed < bound &&
			pv.view.RowCount(progress.Range{Begin: committed, End: bound}) > 0 {
			return nil, fmt.Errorf("%w: snapshot %d records %s at %d, below the %d the context committed, and memory still holds rows in between",
				ErrRecreateContext, snapID, pv.st.pb, committed, bound)
		}
		if !rp.SelectsBucket(pv.st.partition, pv.st.bucket) {
			continue // the filter excludes the partition-bucket: its view is released below
		}
		vr, ok := pv.view.Range()
		r := progress.Range{Begin: committed, End: vr.End}
		if !ok || r.Empty() || pv.view.RowCount(r) == 0 {
			continue
		}
		mems[pv.st.key] = &memPB{st: pv.st, view: pv.view, r: r}
	}
	// From here the views of mems are owned by pins or released below.
	held = nil
	for _, pv := range views {
		if mems[pv.st.key] == nil {
			pv.view.Release()
		}
	}
	pin := func(m *memPB, disk []*reader.Split, base *reader.Split) *Split {
		m.used = true
		return &Split{
			Disk: disk, PartitionBucket: m.st.pb, SnapshotID: snapID,
			CommittedEnd: m.r.Begin, MemoryEnd: m.r.End,
			c: c, st: m.st, ticket: c.pinView(m.st, m.view, m.r), base: base,
		}
	}
	fail := func(err error) (*Plan, error) {
		p.Release()
		for _, m := range mems {
			if !m.used {
				m.view.Release()
			}
		}
		return nil, err
	}

	last := map[string]int{}
	for i, ds := range rp.Splits {
		last[pbKey(ds.Partition, ds.Bucket)] = i
	}
	for i, ds := range rp.Splits {
		key := pbKey(ds.Partition, ds.Bucket)
		m := mems[key]
		switch {
		case m == nil || (c.lay.mode == AppendOnly && i != last[key]):
			part, err := progress.PartitionOf(c.pc, ds.PartitionValues)
			if err != nil {
				return fail(err)
			}
			pb := progress.PartitionBucket{Partition: part, Bucket: ds.Bucket}
			end, _ := off.End(pb)
			p.Splits = append(p.Splits, &Split{Disk: []*reader.Split{ds}, PartitionBucket: pb, SnapshotID: snapID,
				CommittedEnd: end, MemoryEnd: end, c: c})
		case c.lay.mode == AppendOnly:
			p.Splits = append(p.Splits, pin(m, []*reader.Split{ds}, ds))
		case m.used:
			// folded into the partition-bucket's real-time split already
		default:
			var disk []*reader.Split
			for _, o := range rp.Splits {
				if pbKey(o.Partition, o.Bucket) == key {
					disk = append(disk, o)
				}
			}
			p.Splits = append(p.Splits, pin(m, disk, foldSplits(disk)))
		}
	}
	rest := make([]*memPB, 0, len(mems))
	for _, m := range mems {
		if !m.used {
			rest = append(rest, m)
		}
	}
	slices.SortFunc(rest, func(a, b *memPB) int {
		return comparePB(a.st.partition, a.st.bucket, b.st.partition, b.st.bucket)
	})
	for _, m := range rest {
		empty, err := rp.EmptySplit(m.st.partition, m.st.bucket)
		if err != nil {
			return fail(err)
		}
		p.Splits = append(p.Splits, pin(m, nil, empty))
	}
	return p, nil
}

// disk returns the disk plan of the scan: the last one while the table's
// latest snapshot is the one it read, otherwise a new one (which becomes
// the last one).
func (s *Scan) disk(ctx context.Context) (*diskPlan, error) { return s.diskPlan(ctx, false) }

// diskPlan is disk; fresh skips the recheck interval, so the store's latest
// snapshot is always asked for.
func (s *Scan) diskPlan(ctx context.Context, fresh bool) (*diskPlan, error) {
	c := s.c
	s.mu.Lock()
	last, checked := s.last, s.checked
	s.mu.Unlock()
	if !fresh && s.recheck > 0 && last != nil && last.rp.Snapshot != nil && time.Since(checked) < s.recheck {
		c.mu.Lock()
		adopted, loaded := c.adoptedID, c.loaded
		covers := true
		for _, st := range c.pbs {
			// A commit of the context that is not adopted yet: the kept
			// plan is below it (Plan would refuse it).
			if end, _ := last.off.End(st.pb); end < st.known.Load() {
				covers = false
				break
			}
		}
		c.mu.Unlock()
		if loaded && covers && last.rp.Snapshot.ID >= adopted {
			return last, nil
		}
	}
	current := func(last *diskPlan) (bool, error) {
		if last == nil {
			return false, nil
		}
		id, err := snapshot.NewManager(c.sfio).LatestID(ctx)
		ok := (err == nil && last.rp.Snapshot != nil && id == last.rp.Snapshot.ID) ||
			(errors.Is(err, snapshot.ErrNotFound) && last.rp.Snapshot == nil)
		if ok {
			s.mu.Lock()
			if s.last == last {
				s.checked = time.Now()
			}
			s.mu.Unlock()
		}
		return ok, nil
	}
	if ok, _ := current(last); ok {
		return last, nil
	}
	// One new plan at a time: a concurrent Plan call (or the context's
	// refresh planning for its lookups) that planned the latest snapshot
	// meanwhile serves this one too.
	s.planMu.Lock()
	defer s.planMu.Unlock()
	s.mu.Lock()
	newer := s.last
	s.mu.Unlock()
	if newer != last {
		if ok, _ := current(newer); ok {
			return newer, nil
		}
	}
	return s.planLocked(ctx)
}

// diskPlanAt plans snapshot id, one the context has just committed, for
// the scan and keeps the plan, unless the kept plan is of id or later. It
// does not look for the latest snapshot first (a LIST and HEADs on object
// stores): the kept plan is checked against the latest at the next
// recheck anyway (see diskPlan). For scans that pick no snapshot of their
// own (the lookups' scan).
func (s *Scan) diskPlanAt(ctx context.Context, id int64) (*diskPlan, error) {
	s.planMu.Lock()
	defer s.planMu.Unlock()
	s.mu.Lock()
	last := s.last
	s.mu.Unlock()
	if last != nil && last.rp.Snapshot != nil && last.rp.Snapshot.ID >= id {
		return last, nil
	}
	return s.planLocked(ctx, reader.WithSnapshot(id))
}

// planLocked plans the scan's snapshot with the extra options and keeps
// the plan. s.planMu is held.
func (s *Scan) planLocked(ctx context.Context, extra ...reader.Option) (*diskPlan, error) {
	c := s.c
	opts := append(slices.Clone(s.opts), extra...)
	dv, err := c.ts.Options.DeletionVectorsEnabled()
	if err != nil {
		return nil, err
	}
	engine, err := c.ts.Options.MergeEngine()
	if err != nil {
		return nil, err
	}
	if dv || engine == schema.MergeFirstRow {
		// Plain reads of these tables skip level 0 (Java); the context's
		// committed rows may sit there, no longer in memory.
		opts = append(opts, reader.WithAllLevels())
	}
	pre := []reader.Option{reader.WithCache(c.cache)}
	if c.reporter != nil {
		pre = append(pre, reader.WithReporter(c.reporter))
	}
	rp, err := planDisk(ctx, reader.NewScan(c.sfio, append(pre, opts...)...))
	if err != nil {
		return nil, err
	}
	off, _, err := progress.OfSnapshot(ctx, c.sfio, "", rp.Snapshot)
	if err != nil {
		return nil, err
	}
	dp := &diskPlan{rp: rp, off: off}
	if rp.Schema == nil || rp.Schema.Options.ScanFallbackBranch() == "" {
		s.mu.Lock()
		s.last, s.checked = dp, time.Now()
		s.mu.Unlock()
	}
	return dp, nil
}

// planDisk plans the disk snapshot. reader.Scan.Plan reports a table
// whose first snapshot is committed while it looks for the latest one as
// damaged ("latest snapshot (snapshot files 1..1 exist): ... not found"):
// its listing found no snapshot, its second listing found one. A real-time
// scan races with its own commits all the time, so a not-found error is
// retried twice before it is returned.
func planDisk(ctx context.Context, s *reader.Scan) (*reader.Plan, error) {
	var err error
	for range 3 {
		var rp *reader.Plan
		if rp, err = s.Plan(ctx); err == nil || !errors.Is(err, snapshot.ErrNotFound) {
			return rp, err
		}
	}
	return nil, err
}

func adoptedEnd(o progress.Offsets, pb progress.PartitionBucket) int64 {
	end, _ := o.End(pb)
	return end
}

// planFilter returns the scan filter of rp (field indexes of
// rp.Schema.Fields, nil for none) and true: the filter is always known.
func planFilter(rp *reader.Plan) (predicate.Predicate, bool) {
	return rp.Filter(), true
}

// storeHint rewrites the scan filter f (field indexes of rp.Schema.Fields)
// to a pruning hint over the transport schema (Query.Filter), or nil when
// no part of f is safe to push (realtime-design.md section 8.5). Fields are
// matched by name and type, and conjuncts naming fields that may not be
// pushed are dropped (predicate.Pick), so the hint is never stronger than
// the filter.
//
// Append stores may use every table column. Primary-key stores get only
// the conjuncts over trimmed primary-key columns (paimon-cpp since #324):
// such a predicate treats every version of a key alike, so pruning a batch
// by it drops either all versions of a key that cannot match or none. A
// conjunct over a value column could skip the batch holding a key's newest
// version (or its -D) while disk still holds an older version that
// matches, and the merge would resurrect that older version.
func (c *Context) storeHint(f predicate.Predicate, rp *reader.Plan) predicate.Predicate {
	if rp.Schema == nil {
		return nil
	}
	hint, ok := f.Pick(func(i int) (int, bool) {
		if i < 0 || i >= len(rp.Schema.Fields) {
			return 0, false
		}
		want := rp.Schema.Fields[i]
		for k, tf := range c.ts.Fields {
			if tf.Name != want.Name || tf.Type.Kind != want.Type.Kind {
				continue
			}
			if c.lay.mode == PrimaryKey && !slices.Contains(c.lay.keys, c.lay.first+k) {
				return 0, false
			}
			return c.lay.first + k, true
		}
		return 0, false
	})
	if !ok {
		return nil
	}
	return hint
}

// queryKeys returns the primary keys of keys (a batch of Lookup) as the
// stores' point lookup hint, or nil when a key column is missing, a key is
// null or a key type is not one types.SortedKeys orders as the sort of
// stored batches does (the reader's exact selection then works alone).
func (c *Context) queryKeys(keys arrow.RecordBatch) *QueryKeys {
	fields := c.ts.TrimmedPrimaryKeyFields()
	if len(fields) != len(c.lay.keys) {
		return nil
	}
	qk := &QueryKeys{Columns: c.lay.keys, Types: make([]types.DataType, len(fields))}
	src := make([]arrow.Array, len(fields))
	for i, f := range fields {
		idx := keys.Schema().FieldIndices(f.Name)
		if len(idx) != 1 {
			return nil
		}
		src[i], qk.Types[i] = keys.Column(idx[0]), f.Type
	}
	var ok bool
	if qk.Values, ok = types.SortedKeys(qk.Types, src, int(keys.NumRows())); !ok {
		return nil
	}
	return qk
}

// foldSplits returns one split holding the files of every disk split of a
// primary-key partition-bucket, so that the merge sees every sorted run.
func foldSplits(disk []*reader.Split) *reader.Split {
	if len(disk) == 1 {
		return disk[0]
	}
	m := *disk[0]
	m.Files = nil
	m.DeletionFiles = map[string]reader.DeletionFile{}
	for _, d := range disk {
		m.Files = append(m.Files, d.Files...)
		maps.Copy(m.DeletionFiles, d.DeletionFiles)
	}
	slices.SortStableFunc(m.Files, func(a, b manifest.DataFileMeta) int {
		if c := cmp.Compare(a.Level, b.Level); c != 0 {
			return c
		}
		return cmp.Compare(a.MinSequenceNumber, b.MinSequenceNumber)
	})
	m.RawConvertible = false
	return &m
}

// Release releases the read views of the plan's unread real-time splits.
// It is idempotent; reads already started keep their views.
func (p *Plan) Release() {
	for _, sp := range p.Splits {
		if sp.ticket != 0 {
			p.c.releaseTicket(sp.ticket)
		}
	}
}

// ArrowSchema returns the schema of the batches the plan yields.
func (p *Plan) ArrowSchema() *arrow.Schema { return p.Disk.ArrowSchema() }

// Records reads every split in order (see ReadSplit). The consumer owns
// each batch and must Release it; on error the iterator yields (nil, err)
// once and stops.
func (p *Plan) Records(ctx context.Context) iter.Seq2[arrow.RecordBatch, error] {
	return func(yield func(arrow.RecordBatch, error) bool) {
		for _, sp := range p.Splits {
			for rec, err := range p.ReadSplit(ctx, sp) {
				if !yield(rec, err) || err != nil {
					return
				}
			}
		}
	}
}

// ReadSplit reads one split. A plain split reads its disk split. A
// real-time split consumes its ticket, reads exactly the memory rows with
// CommittedEnd <= offset < MemoryEnd from the pinned view and reads them
// with its disk files through reader.Plan.ReadSplitWith: append tables
// yield the files' rows, then the memory rows in offset order; primary-key
// tables merge the memory rows, as the newest sorted runs, with every file
// (merge engine, sequence numbers, deletes), then filter and project. The
// view stays pinned until the read ends.
//
// The ticket is consumed once the memory readers are created; if that
// fails, the ticket stays valid and the split can be read again. Errors:
// ErrTicketExpired (consumed, expired, released, or a split of another
// context), ErrClosed, the stores' and the reader's errors.
func (p *Plan) ReadSplit(ctx context.Context, sp *Split) iter.Seq2[arrow.RecordBatch, error] {
	return func(yield func(arrow.RecordBatch, error) bool) {
		if err := p.owns(sp); err != nil {
			yield(nil, err)
			return
		}
		if !sp.Realtime() {
			for _, ds := range sp.Disk {
				for rec, err := range p.Disk.ReadSplit(ctx, ds) {
					if !yield(rec, err) || err != nil {
						return
					}
				}
			}
			return
		}
		pn, mem, err := p.openMemory(ctx, sp, false)
		if err != nil {
			yield(nil, err)
			return
		}
		defer pn.view.Release()
		for rec, err := range p.Disk.ReadSplitWith(ctx, sp.base, mem) {
			if !yield(rec, err) || err != nil {
				return
			}
		}
	}
}

// owns reports ErrTicketExpired for a split this plan did not make.
func (p *Plan) owns(sp *Split) error {
	if sp == nil || sp.c != p.c {
		return fmt.Errorf("%w: the split was not planned by this context", ErrTicketExpired)
	}
	return nil
}

// openMemory takes the ticket of sp and creates the clipped memory
// readers; on failure the ticket is put back. The readers yield every
// transport column, but OffsetColumn only when offsets is set or the store
// does not clip to the visible range itself (the merge with the disk rows
// does not read offsets, and a store may hold them packed).
func (p *Plan) openMemory(ctx context.Context, sp *Split, offsets bool) (*pin, []iter.Seq2[arrow.RecordBatch, error], error) {
	c := p.c
	if c.isClosed() {
		return nil, nil, fmt.Errorf("%w: real-time context", ErrClosed)
	}
	r := progress.Range{Begin: sp.CommittedEnd, End: sp.MemoryEnd}
	pn, err := c.takeTicket(sp.ticket, sp.st, r)
	if err != nil {
		return nil, nil, err
	}
	cv, ok := sp.st.store.(ClipsVisible)
	clips := ok && cv.ClipsVisible()
	cols := c.lay.names()
	if clips && !offsets {
		cols = slices.Delete(cols, c.lay.offset, c.lay.offset+1)
	}
	q := Query{Columns: cols, Filter: p.hint, Visible: r, BatchSize: p.batchSize, Keys: p.keys}
	readers, err := sp.st.store.QueryReaders(ctx, pn.view, q)
	if err != nil {
		c.restoreTicket(pn)
		return nil, nil, fmt.Errorf("realtime: query readers of %s: %w", sp.st.pb, err)
	}
	if clips {
		return pn, readers, nil
	}
	mem := make([]iter.Seq2[arrow.RecordBatch, error], len(readers))
	for i, rd := range readers {
		mem[i] = c.clipped(rd, r)
	}
	return pn, mem, nil
}

// clipped yields the rows of rd whose offset lies in r.
func (c *Context) clipped(rd iter.Seq2[arrow.RecordBatch, error], r progress.Range) iter.Seq2[arrow.RecordBatch, error] {
	return func(yield func(arrow.RecordBatch, error) bool) {
		for b, err := range rd {
			if err != nil {
				yield(nil, err)
				return
			}
			out, ok, err := clip(c.mem, b, r)
			if err != nil {
				yield(nil, err)
				return
			}
			if ok && !yield(out, nil) {
				return
			}
		}
	}
}

// Count returns the number of rows the plan yields (paimon-cpp count
// readers over real-time splits). For an append table read without a
// filter it reads no row: files count their rows minus deleted ones, and
// memory counts exactly the view's rows with CommittedEnd <= offset <
// MemoryEnd (ReadView.RowCount, offsets may be sparse). Otherwise (filters,
// primary keys, whose rows merge) it reads every split. Like reading, it
// consumes the tickets of the real-time splits.
func (p *Plan) Count(ctx context.Context) (int64, error) {
	var n int64
	fast := p.c.lay.mode == AppendOnly && p.known && p.filter == nil
	for _, sp := range p.Splits {
		if !fast {
			k, err := p.countRead(ctx, sp)
			if err != nil {
				return 0, err
			}
			n += k
			continue
		}
		for _, ds := range sp.Disk {
			k, ok := fileCount(ds)
			if !ok {
				k2, err := p.countRead(ctx, &Split{Disk: []*reader.Split{ds}, c: p.c})
				if err != nil {
					return 0, err
				}
				k = k2
			}
			n += k
		}
		if sp.Realtime() {
			if p.c.isClosed() {
				return 0, fmt.Errorf("%w: real-time context", ErrClosed)
			}
			r := progress.Range{Begin: sp.CommittedEnd, End: sp.MemoryEnd}
			pn, err := p.c.takeTicket(sp.ticket, sp.st, r)
			if err != nil {
				return 0, err
			}
			n += pn.view.RowCount(r)
			pn.view.Release()
		}
	}
	return n, nil
}

// fileCount returns the rows of an append disk split from its metadata:
// the files' row counts minus their deletion vectors' cardinalities; false
// when a cardinality is unknown.
func fileCount(ds *reader.Split) (int64, bool) {
	n := ds.RowCount()
	for _, f := range ds.Files {
		if dv, ok := ds.DeletionFiles[f.FileName]; ok {
			if dv.Cardinality < 0 {
				return 0, false
			}
			n -= dv.Cardinality
		}
	}
	return n, true
}

func (p *Plan) countRead(ctx context.Context, sp *Split) (int64, error) {
	var n int64
	for rec, err := range p.ReadSplit(ctx, sp) {
		if err != nil {
			return 0, err
		}
		n += rec.NumRows()
		rec.Release()
	}
	return n, nil
}

// forget drops the kept disk plan, so that the next Plan call plans the
// latest snapshot.
func (s *Scan) forget() {
	s.mu.Lock()
	s.last = nil
	s.mu.Unlock()
}

// lookupRecheck is how long Context.Lookup uses its kept disk plan without
// asking the store for the latest snapshot (while the plan is not older
// than the snapshot the context adopted): other writers' commits are
// seen within it, the context's own at once. A lookup then does no I/O
// but for data files not in the lookup cache.
const lookupRecheck = time.Second

// lookupBatchSize is the read batch size of Context.Lookup.
const lookupBatchSize = 1 << 20

// lookups returns the scan Lookup plans with when given no options: it
// keeps its disk plan across lookups (see Scan), and
// RefreshCommittedSnapshot plans each snapshot the context commits for it.
func (c *Context) lookups() *Scan {
	if s := c.lookupScan.Load(); s != nil {
		return s
	}
	s := c.NewScan(reader.WithBatchSize(lookupBatchSize))
	s.recheck = lookupRecheck
	c.lookupScan.CompareAndSwap(nil, s)
	return c.lookupScan.Load()
}

// Lookup returns the current rows of the primary keys in keys, from the
// committed files and the rows in memory merged by the table's merge engine
// (reader.WithKeys, reader.KeyFilter): one row per key found, none for a
// missing key, with the output columns of opts (reader.WithColumns; every
// column by default). A row is visible to Lookup once its Write returned.
// Lookups without options share one scan of the context that keeps its disk
// plan and narrows it to each lookup's keys (reader.Plan.Narrow): the plan
// is used without asking the store for a second (lookupRecheck) while it
// is not older than the snapshot the context adopted, so rows other
// writers commit are seen within a second or at the context's next commit,
// and a lookup reads nothing but data files missing from the lookup
// cache. With options each lookup plans afresh.
// The caller releases the batch. Errors: reader.ErrInvalidScan for keys
// that do not fit the table, and those of Plan and reading.
func (c *Context) Lookup(ctx context.Context, keys arrow.RecordBatch, opts ...reader.Option) (arrow.RecordBatch, error) {
	if keys == nil {
		return nil, fmt.Errorf("%w: lookup: no key batch", reader.ErrInvalidScan)
	}
	// Whole memory batches and files per run: the pre-merge selection
	// finds the keys by binary search in each, so cutting them into read
	// batches first only adds work.
	if len(opts) == 0 {
		// The context's lookup scan keeps its disk plan (see lookupRecheck);
		// each lookup narrows it to its keys. A data file of a kept plan
		// that expiration deleted meanwhile makes the lookup plan the
		// latest snapshot and try once more.
		s := c.lookups()
		for attempt := 0; ; attempt++ {
			p, err := s.plan(ctx, keys)
			if err != nil {
				if errors.Is(err, reader.ErrInvalidScan) {
					break
				}
				return nil, err
			}
			p.batchSize = lookupBatchSize
			rec, err := reader.Concat(p.Records(ctx), types.SchemaToArrow(p.Disk.Fields), nil)
			p.Release()
			if err != nil && attempt == 0 && errors.Is(err, fileio.ErrNotExist) {
				s.forget()
				continue
			}
			return rec, err
		}
	}
	// Options of the caller's, or a plan Narrow does not take (postpone
	// merge-on-read): plan the lookup afresh (bad keys fail here again,
	// with the same error).
	p, err := c.NewScan(append([]reader.Option{reader.WithBatchSize(lookupBatchSize)}, append(slices.Clone(opts), reader.WithKeys(keys))...)...).Plan(ctx)
	if err != nil {
		return nil, err
	}
	defer p.Release()
	p.batchSize = lookupBatchSize
	return reader.Concat(p.Records(ctx), types.SchemaToArrow(p.Disk.Fields), nil)
}
