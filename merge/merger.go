package merge

import (
	"context"
	"errors"
	"fmt"
	"io"
	"iter"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"
	"github.com/apache/arrow-go/v18/arrow/memory"
)

// Names of the system columns of the KeyValue layout (Java SpecialFields).
const (
	SequenceNumberColumn = "_SEQUENCE_NUMBER"
	ValueKindColumn      = "_VALUE_KIND"
)

// DefaultBatchSize is the default maximum number of rows per output batch.
const DefaultBatchSize = 4096

// minZeroCopyRows is the least number of rows of one contiguous input stretch
// that is emitted early, as its own zero-copy batch, instead of being copied
// together with the rows that follow it (the threshold is the larger of this
// and a quarter of the batch size).
const minZeroCopyRows = 16

// Layout selects the columns of the merged output.
type Layout uint8

const (
	// LayoutValues outputs the value columns only (the table row, as a batch
	// read returns it).
	LayoutValues Layout = iota
	// LayoutKindValues outputs _VALUE_KIND (int8 row kind) followed by the
	// value columns, for readers that need the row kind of each result.
	LayoutKindValues
	// LayoutKeyValue outputs every input column, in input order: the merged
	// records are again in the KeyValue layout, with the merged record's
	// sequence number and row kind, ready to be written as a compaction output
	// file.
	LayoutKeyValue
)

// Options configures a Merger.
type Options struct {
	// KeyColumns are the indexes of the (trimmed) primary key columns in the
	// input schema, in primary key order. With the normal layout they are the
	// _KEY_<pk> columns; for data-file.thin-mode files, which carry no _KEY_
	// columns, they point at the primary key value columns. Required.
	KeyColumns []int
	// DropDeletes drops merged records whose kind is -U or -D (Java
	// DropDeleteReader). Batch reads and compactions into the highest level
	// set it; compactions into lower levels must keep deletes.
	DropDeletes bool
	// Layout selects the output columns (default LayoutValues).
	Layout Layout
	// BatchSize is the maximum number of rows per output batch; 0 means
	// DefaultBatchSize.
	BatchSize int
	// Lookup merges each key's record on the lowest level above 0 with its
	// level-0 records only, dropping the records of deeper levels (Java
	// LookupMergeFunction, which wraps the merge function of tables with
	// changelog-producer = lookup, deletion vectors or force-lookup, except
	// first-row). Runs carry their level with AtLevel; see lookup.go.
	Lookup bool
	// Allocator is used only to concatenate nested-type columns (lists, maps,
	// structs); nil means memory.DefaultAllocator. Other columns are built in
	// Go memory.
	Allocator memory.Allocator
}

type outRole uint8

const (
	roleKey   outRole = iota // copied from the merged record's key record
	roleSeq                  // _SEQUENCE_NUMBER of the result
	roleKind                 // _VALUE_KIND of the result
	roleValue                // a value column
)

type outCol struct {
	in   int
	role outRole
	vc   int
}

// Merger merges sorted runs of one bucket with the table's merge engine. It
// is the Go counterpart of Java's SortMergeReader (min-heap / loser tree)
// wrapped in a ReducerMergeFunctionWrapper and, with DropDeletes, a
// DropDeleteReader. Build one per input schema with NewMerger; a Merger is
// immutable and may run many merges, concurrently.
type Merger struct {
	cfg       *Config
	in        *arrow.Schema
	out       *arrow.Schema
	opts      Options
	keyCols   []int
	keyCls    []class
	wideKey   bool // key encodings may be longer than 8 bytes: normalized keys need normKeys.lo
	seqCol    int
	kindCol   int
	vals      []valueCol
	seqOrder  []int // value columns of sequence.field
	seqDesc   bool
	outCols   []outCol
	zeroCopy  int        // minimum rows of a single-range output emitted as a slice of the input
	gathers   []gatherer // per output column
	puGroups  []*seqComparator
	puSeqCmp  []*seqComparator // per value column
	puPartDel []bool
	nullable  []bool
}

// NewMerger prepares merging records of schema in (the KeyValue layout:
// optional _KEY_ columns, _SEQUENCE_NUMBER int64, _VALUE_KIND int8, then the
// value columns — every column after both system columns is a value column
// and must be a field of cfg's row type, matched by name).
//
// Errors wrap ErrSchema (missing or mistyped system columns, unknown value
// columns, key columns of a type that cannot be ordered, a sequence field or
// sequence-group ordering field not among the value columns, a column type
// that does not fit its aggregate function).
func NewMerger(cfg *Config, in *arrow.Schema, opts Options) (*Merger, error) {
	if cfg == nil || in == nil {
		return nil, fmt.Errorf("%w: nil config or schema", ErrSchema)
	}
	if opts.BatchSize <= 0 {
		opts.BatchSize = DefaultBatchSize
	}
	if opts.Allocator == nil {
		opts.Allocator = memory.DefaultAllocator
	}
	m := &Merger{cfg: cfg, in: in, opts: opts, seqCol: -1, kindCol: -1, seqDesc: cfg.seqDescending}
	m.zeroCopy = max(minZeroCopyRows, opts.BatchSize/4)
	for i, f := range in.Fields() {
		switch f.Name {
		case SequenceNumberColumn:
			if f.Type.ID() != arrow.INT64 {
				return nil, fmt.Errorf("%w: column %s has type %s, want int64", ErrSchema, f.Name, f.Type)
			}
			m.seqCol = i
		case ValueKindColumn:
			if f.Type.ID() != arrow.INT8 {
				return nil, fmt.Errorf("%w: column %s has type %s, want int8", ErrSchema, f.Name, f.Type)
			}
			m.kindCol = i
		}
	}
	if m.seqCol < 0 || m.kindCol < 0 {
		return nil, fmt.Errorf("%w: input lacks %s or %s", ErrSchema, SequenceNumberColumn, ValueKindColumn)
	}
	if len(opts.KeyColumns) == 0 {
		return nil, fmt.Errorf("%w: no key columns", ErrSchema)
	}
	for _, k := range opts.KeyColumns {
		if k < 0 || k >= in.NumFields() || k == m.seqCol || k == m.kindCol {
			return nil, fmt.Errorf("%w: key column index %d is not a key column of a %d-column input", ErrSchema, k, in.NumFields())
		}
		cls := classOf(in.Field(k).Type)
		if !cls.comparable() {
			return nil, fmt.Errorf("%w: key column %q has type %s, which cannot be ordered", ErrUnsupported, in.Field(k).Name, in.Field(k).Type)
		}
		m.keyCols = append(m.keyCols, k)
		m.keyCls = append(m.keyCls, cls)
	}
	m.wideKey = wideKey(m.keyCls)

	firstValue := max(m.seqCol, m.kindCol) + 1
	byField := map[int]int{}
	for i := firstValue; i < in.NumFields(); i++ {
		f := in.Field(i)
		fi, ok := cfg.byName[f.Name]
		if !ok {
			return nil, fmt.Errorf("%w: value column %q is not a field of the table", ErrSchema, f.Name)
		}
		if _, dup := byField[fi]; dup {
			return nil, fmt.Errorf("%w: value column %q appears twice", ErrSchema, f.Name)
		}
		vc := valueCol{name: f.Name, field: fi, vc: len(m.vals), in: i, cls: classOf(f.Type), dt: f.Type,
			nullable: cfg.fields[fi].Type.Nullable}
		if d, ok := f.Type.(*arrow.Decimal128Type); ok {
			vc.prec, vc.scale = d.Precision, d.Scale
		}
		byField[fi] = vc.vc
		m.vals = append(m.vals, vc)
		m.nullable = append(m.nullable, vc.nullable)
	}
	for _, fi := range cfg.seqFields {
		vc, ok := byField[fi]
		if !ok {
			return nil, fmt.Errorf("%w: sequence field %q must be among the value columns", ErrSchema, cfg.fields[fi].Name)
		}
		if !m.vals[vc].cls.comparable() {
			return nil, fmt.Errorf("%w: sequence field %q has type %s, which cannot be ordered", ErrUnsupported, m.vals[vc].name, m.vals[vc].dt)
		}
		m.seqOrder = append(m.seqOrder, vc)
	}
	if cfg.engine == PartialUpdate {
		if err := m.projectSequenceGroups(byField); err != nil {
			return nil, err
		}
	}
	// Check aggregate functions against the Arrow types now, not mid-read.
	if _, err := m.newMergeFunc(); err != nil {
		return nil, err
	}

	var fields []arrow.Field
	add := func(i int, role outRole, vc int) {
		m.outCols = append(m.outCols, outCol{in: i, role: role, vc: vc})
		fields = append(fields, in.Field(i))
	}
	switch opts.Layout {
	case LayoutValues, LayoutKindValues:
		if opts.Layout == LayoutKindValues {
			add(m.kindCol, roleKind, -1)
		}
		for _, v := range m.vals {
			add(v.in, roleValue, v.vc)
		}
	case LayoutKeyValue:
		for i := range in.NumFields() {
			switch {
			case i == m.seqCol:
				add(i, roleSeq, -1)
			case i == m.kindCol:
				add(i, roleKind, -1)
			case i >= firstValue:
				add(i, roleValue, byField[cfg.byName[in.Field(i).Name]])
			default:
				add(i, roleKey, -1)
			}
		}
	default:
		return nil, fmt.Errorf("%w: layout %d", ErrUnsupported, opts.Layout)
	}
	md := in.Metadata()
	m.out = arrow.NewSchema(fields, &md)
	for _, oc := range m.outCols {
		m.gathers = append(m.gathers, newGatherer(in.Field(oc.in).Type))
	}
	return m, nil
}

// projectSequenceGroups maps the table's sequence groups onto the value
// columns, as PartialUpdateMergeFunction.Factory.create(readType) does: a
// group matters if any of its fields is read, and then all its ordering
// fields must be read too.
func (m *Merger) projectSequenceGroups(byField map[int]int) error {
	cfg := m.cfg
	m.puSeqCmp = make([]*seqComparator, len(m.vals))
	m.puPartDel = make([]bool, len(m.vals))
	perGroup := make([]*seqComparator, len(cfg.groups))
	for vc, v := range m.vals {
		g := cfg.groupOf[v.field]
		if g < 0 {
			continue
		}
		if perGroup[g] == nil {
			c := &seqComparator{member: make([]bool, len(m.vals))}
			for _, of := range cfg.groups[g].ordering {
				ovc, ok := byField[of]
				if !ok {
					return fmt.Errorf("%w: %s: ordering field %q must be among the value columns when %q is read",
						ErrSchema, cfg.groups[g].key, cfg.fields[of].Name, v.name)
				}
				c.fields = append(c.fields, ovc)
				c.member[ovc] = true
			}
			perGroup[g] = c
			m.puGroups = append(m.puGroups, c)
		}
		m.puSeqCmp[vc] = perGroup[g]
	}
	for _, of := range cfg.puRemoveOnSeqGrp {
		if vc, ok := byField[of]; ok {
			m.puPartDel[vc] = true
		}
	}
	return nil
}

// newMergeFunc builds a fresh merge function (aggregators keep per-key state,
// so every merge gets its own).
func (m *Merger) newMergeFunc() (mergeFunc, error) {
	cfg := m.cfg
	switch cfg.engine {
	case Deduplicate:
		return deduplicate{ignoreDelete: cfg.ignoreDelete}, nil
	case FirstRow:
		return firstRow{ignoreDelete: cfg.ignoreDelete}, nil
	case PartialUpdate:
		f := &partialUpdate{
			cols: m.vals, nullable: m.nullable, seqCmp: m.puSeqCmp, hasSeqCmp: len(m.puGroups) > 0,
			fieldSeqEnabled: cfg.fieldSeqEnabled, ignoreDelete: cfg.ignoreDelete,
			removeOnDelete: cfg.puRemoveOnDelete, partialDelete: m.puPartDel,
			aggs: make([]fieldAgg, len(m.vals)), row: make([]cell, len(m.vals)),
			processed: make([]bool, len(m.vals)), updated: make([]bool, len(m.vals)),
		}
		for vc := range m.vals {
			spec := cfg.aggs[m.vals[vc].field]
			if spec.name == "" {
				continue
			}
			a, err := newFieldAgg(spec, &m.vals[vc])
			if err != nil {
				return nil, err
			}
			f.aggs[vc] = a
		}
		return f, nil
	case Aggregation:
		f := &aggregate{cols: m.vals, nullable: m.nullable, removeOnDelete: cfg.aggRemoveOnDelete,
			aggs: make([]fieldAgg, len(m.vals)), row: make([]cell, len(m.vals))}
		for vc := range m.vals {
			a, err := newFieldAgg(cfg.aggs[m.vals[vc].field], &m.vals[vc])
			if err != nil {
				return nil, err
			}
			f.aggs[vc] = a
		}
		return f, nil
	}
	return nil, fmt.Errorf("%w: merge engine %q", ErrUnsupported, cfg.engine)
}

// Schema returns the schema of the output batches.
func (m *Merger) Schema() *arrow.Schema { return m.out }

// Merge merges the runs and yields the merged records in key order, in
// batches of at most Options.BatchSize rows. Each key's records are ordered
// by the sequence.field values (nulls first; reversed for descending, nulls
// still first), then _SEQUENCE_NUMBER, then retractions before additions,
// then run index, and merged by the table's merge engine. A key with a
// single record passes through unchanged, like Java's
// ReducerMergeFunctionWrapper.
//
// The consumer owns every yielded batch and must Release it. Stopping the
// iteration early is allowed. On error the iterator yields (nil, err) once
// and stops; errors wrap ErrSchema, ErrUnsorted, ErrRetract, ErrArithmetic,
// ErrNull, ErrValueKind, or the error of a Run (annotated with its index).
// All runs are closed before the iterator returns (an iterator that is never
// ranged over leaves them open: call Close on them yourself).
//
// Output batches that consist of one contiguous stretch of one input batch
// are zero-copy slices of it; others are built in fresh Go memory.
func (m *Merger) Merge(ctx context.Context, runs []Run) iter.Seq2[arrow.RecordBatch, error] {
	return func(yield func(arrow.RecordBatch, error) bool) {
		s := &mergeState{m: m, ctx: ctx, yield: yield}
		err := func() (err error) {
			// deferred, so runs are closed even if the consumer panics in yield
			defer func() {
				if cerr := s.close(); err == nil {
					err = cerr
				}
			}()
			return s.run(runs)
		}()
		if err != nil && !errors.Is(err, errStopped) {
			yield(nil, err)
		}
	}
}

// Merge is a convenience for NewMerger followed by Merger.Merge. Errors from
// NewMerger are yielded as the first element (and the runs are closed).
func Merge(ctx context.Context, cfg *Config, in *arrow.Schema, runs []Run, opts Options) iter.Seq2[arrow.RecordBatch, error] {
	m, err := NewMerger(cfg, in, opts)
	if err != nil {
		return func(yield func(arrow.RecordBatch, error) bool) {
			for _, r := range runs {
				_ = r.Close()
			}
			yield(nil, err)
		}
	}
	return m.Merge(ctx, runs)
}

var errStopped = errors.New("merge: consumer stopped")

// batch is one input record batch with its columns unpacked. It is
// reference counted: the cursor reading it holds one reference, and the
// pending output holds one while any output row or merge result points into
// it.
type batch struct {
	rec   arrow.RecordBatch
	n     int
	keys  []colView
	nk    normKeys // normalized key of each row
	seq   []int64
	kind  []int8
	vals  []colView
	raw   []rawCol // every input column, for copying
	refs  int32
	epoch uint64 // output epoch in which the batch was last pinned
}

// cursor reads one sorted run; its keyRef is the run's current record.
type cursor struct {
	keyRef
	run Run
	idx int
}

// keyRef is the key of one record: its batch and row, with the row's
// normalized key copied out for fast comparisons.
type keyRef struct {
	b     *batch
	row   int
	nk    normKey
	whole bool
}

// at points k at row i of b.
func (k *keyRef) at(b *batch, i int) {
	k.b, k.row = b, i
	k.nk, k.whole = b.nk.at(i)
}

type segment struct {
	b     *batch // nil: computed rows [start, start+n) of the computed store
	start int
	n     int
}

type mergeState struct {
	m     *Merger
	ctx   context.Context
	yield func(arrow.RecordBatch, error) bool

	cursors  []*cursor
	levels   []int // per run, with Options.Lookup
	heap     []*cursor
	enc      keyEncoder
	freeKeys [][]uint64 // normalized key space of released batches
	group    []entry
	fn       mergeFunc
	res      result

	segs   []segment
	rows   int
	epoch  uint64
	pinned []*batch // pinned in the current epoch
	held   []*batch // pinned in the previous epoch, released at the next flush
	ckind  []int8
	cseq   []int64
	ckey   []entry
	ccells [][]cell
}

func (s *mergeState) close() error {
	var first error
	for _, c := range s.cursors {
		if c.b != nil {
			s.unref(c.b)
			c.b = nil
		}
		if c.run != nil {
			if err := c.run.Close(); err != nil && first == nil {
				first = fmt.Errorf("merge: closing run %d: %w", c.idx, err)
			}
			c.run = nil
		}
	}
	s.releasePinned()
	s.releasePinned()
	return first
}

func (s *mergeState) unref(b *batch) {
	b.refs--
	if b.refs == 0 {
		b.rec.Release()
		b.rec = nil
		for _, w := range [][]uint64{b.nk.hi, b.nk.lo} {
			if w != nil {
				s.freeKeys = append(s.freeKeys, w)
			}
		}
		b.nk = normKeys{}
	}
}

// keyWords returns n words for normalized keys (not zeroed), reusing those
// of a released batch when they are enough.
func (s *mergeState) keyWords(n int) []uint64 {
	if k := len(s.freeKeys) - 1; k >= 0 {
		w := s.freeKeys[k]
		s.freeKeys[k] = nil
		s.freeKeys = s.freeKeys[:k]
		if cap(w) >= n {
			return w[:n]
		}
	}
	return make([]uint64, n)
}

// pin keeps b alive until the pending output is flushed.
func (s *mergeState) pin(b *batch) {
	if b.epoch != s.epoch {
		b.epoch = s.epoch
		b.refs++
		s.pinned = append(s.pinned, b)
	}
}

// releasePinned starts a new output epoch. Batches pinned in the epoch
// before the one just flushed are released; those of the flushed epoch are
// held one epoch longer, because a merge result being appended when an early
// flush happens may still point into them.
func (s *mergeState) releasePinned() {
	for _, b := range s.held {
		s.unref(b)
	}
	clear(s.held)
	s.held, s.pinned = s.pinned, s.held[:0]
	s.epoch++
}

// newBatch unpacks rec, which must match the merger's input schema.
func (s *mergeState) newBatch(rec arrow.RecordBatch, run int) (*batch, error) {
	m := s.m
	if rec.Schema() != m.in {
		if int(rec.NumCols()) != m.in.NumFields() {
			return nil, fmt.Errorf("%w: run %d: batch has %d columns, want %d", ErrSchema, run, rec.NumCols(), m.in.NumFields())
		}
		for i, f := range m.in.Fields() {
			if !arrow.TypeEqual(rec.Column(i).DataType(), f.Type) {
				return nil, fmt.Errorf("%w: run %d: column %d (%s) has type %s, want %s", ErrSchema, run, i, f.Name, rec.Column(i).DataType(), f.Type)
			}
		}
	}
	n := int(rec.NumRows())
	b := &batch{rec: rec, n: n, refs: 1, epoch: s.epoch - 1}
	for i := range rec.NumCols() {
		if rec.Column(int(i)).Len() != n {
			return nil, fmt.Errorf("%w: run %d: column %d has %d rows, batch has %d", ErrSchema, run, i, rec.Column(int(i)).Len(), n)
		}
	}
	b.raw = make([]rawCol, rec.NumCols())
	for i := range b.raw {
		var err error
		if b.raw[i], err = loadRaw(classOf(m.in.Field(i).Type), rec.Column(i)); err != nil {
			return nil, fmt.Errorf("run %d: column %d (%s): %w", run, i, m.in.Field(i).Name, err)
		}
	}
	b.keys = make([]colView, len(m.keyCols))
	for k, ci := range m.keyCols {
		if err := b.keys[k].load(m.keyCls[k], rec.Column(ci)); err != nil {
			return nil, fmt.Errorf("run %d: key column %d: %w", run, ci, err)
		}
	}
	b.nk.hi = s.keyWords(n)
	if m.wideKey {
		b.nk.lo = s.keyWords(n)
	}
	s.enc.encode(&b.nk, m.keyCls, b.keys)
	seqArr, kindArr := rec.Column(m.seqCol), rec.Column(m.kindCol)
	if seqArr.NullN() > 0 || kindArr.NullN() > 0 {
		return nil, fmt.Errorf("%w: run %d: null %s or %s", ErrSchema, run, SequenceNumberColumn, ValueKindColumn)
	}
	var err error
	if b.seq, err = fixedValues[int64](seqArr.Data(), 8); err != nil {
		return nil, fmt.Errorf("run %d: %s: %w", run, SequenceNumberColumn, err)
	}
	if b.kind, err = fixedValues[int8](kindArr.Data(), 1); err != nil {
		return nil, fmt.Errorf("run %d: %s: %w", run, ValueKindColumn, err)
	}
	for i, k := range b.kind {
		if uint8(k) > 3 {
			return nil, fmt.Errorf("%w: run %d: row %d has %s %d", ErrValueKind, run, i, ValueKindColumn, k)
		}
	}
	b.vals = make([]colView, len(m.vals))
	for vc := range m.vals {
		if err := b.vals[vc].load(m.vals[vc].cls, rec.Column(m.vals[vc].in)); err != nil {
			return nil, fmt.Errorf("run %d: column %q: %w", run, m.vals[vc].name, err)
		}
	}
	return b, nil
}

// advance moves c to its next record, loading the next non-empty batch when
// needed; c.b is nil once the run is exhausted.
func (s *mergeState) advance(c *cursor) error {
	if c.b != nil {
		c.row++
		if c.row < c.b.n {
			c.at(c.b, c.row)
			return nil
		}
		s.unref(c.b)
		c.b = nil
	}
	for {
		if err := s.ctx.Err(); err != nil {
			return err
		}
		rec, err := c.run.Next(s.ctx)
		if errors.Is(err, io.EOF) || (err == nil && rec == nil) {
			if rec != nil {
				rec.Release()
			}
			return nil
		}
		if err != nil {
			return fmt.Errorf("merge: run %d: %w", c.idx, err)
		}
		if rec.NumRows() == 0 {
			rec.Release()
			continue
		}
		b, err := s.newBatch(rec, c.idx)
		if err != nil {
			rec.Release()
			return err
		}
		c.at(b, 0)
		return nil
	}
}

// compare orders the keys at a[i] and b[j] (cmpKeys' order), through their
// normalized keys when these decide it.
func (m *Merger) compare(a *batch, i int, b *batch, j int) int {
	x, xw := a.nk.at(i)
	y, yw := b.nk.at(j)
	if o := x.cmp(y); o != 0 || xw && yw {
		return o
	}
	return m.cmpKeys(a, i, b, j)
}

// cmpRef is compare for two keyRefs.
func (m *Merger) cmpRef(x, y *keyRef) int {
	if o := x.nk.cmp(y.nk); o != 0 || x.whole && y.whole {
		return o
	}
	return m.cmpKeys(x.b, x.row, y.b, y.row)
}

// cmpKeys orders the keys at a[i] and b[j]: column by column, nulls first.
func (m *Merger) cmpKeys(a *batch, i int, b *batch, j int) int {
	for k, cls := range m.keyCls {
		va, vb := &a.keys[k], &b.keys[k]
		var c int
		if va.nulls || vb.nulls {
			c = compareNullable(cls, va, i, vb, j)
		} else {
			c = compareAt(cls, va, i, vb, j)
		}
		if c != 0 {
			return c
		}
	}
	return 0
}

// less orders the heap: by key, then by run index.
func (s *mergeState) less(x, y *cursor) bool {
	a, b := &x.nk, &y.nk
	switch {
	case a.hi != b.hi:
		return a.hi < b.hi
	case a.lo != b.lo:
		return a.lo < b.lo
	case !x.whole || !y.whole:
		if c := s.m.cmpKeys(x.b, x.row, y.b, y.row); c != 0 {
			return c < 0
		}
	}
	return x.idx < y.idx
}

func (s *mergeState) siftDown(i int) {
	h := s.heap
	n := len(h)
	for {
		l := 2*i + 1
		if l >= n {
			return
		}
		c := l
		if r := l + 1; r < n && s.less(h[r], h[l]) {
			c = r
		}
		if !s.less(h[c], h[i]) {
			return
		}
		h[i], h[c] = h[c], h[i]
		i = c
	}
}

func (s *mergeState) popTop() {
	n := len(s.heap) - 1
	s.heap[0] = s.heap[n]
	s.heap[n] = nil
	s.heap = s.heap[:n]
	if n > 0 {
		s.siftDown(0)
	}
}

// collect adds the current record of c and all following records of the
// same run with the same key to the group, then advances c past them and
// restores the heap (c is at the top).
func (s *mergeState) collect(c *cursor, k *keyRef) error {
	for {
		s.pin(c.b)
		s.group = append(s.group, entry{b: c.b, row: int32(c.row), run: int32(c.idx)})
		if err := s.advance(c); err != nil {
			return err
		}
		if c.b == nil {
			s.popTop()
			return nil
		}
		cmp := s.m.cmpRef(&c.keyRef, k)
		switch {
		case cmp == 0:
			continue
		case cmp < 0:
			return fmt.Errorf("%w: run %d: key at row %d sorts before the previous key", ErrUnsorted, c.idx, c.row)
		}
		s.siftDown(0)
		return nil
	}
}

func (s *mergeState) run(runs []Run) error {
	m := s.m
	s.epoch = 1
	s.levels = m.runLevels(runs)
	for i, r := range runs {
		s.cursors = append(s.cursors, &cursor{run: r, idx: i})
	}
	fn, err := m.newMergeFunc()
	if err != nil {
		return err
	}
	s.fn = fn
	s.ccells = make([][]cell, len(m.vals))
	for _, c := range s.cursors {
		if err := s.advance(c); err != nil {
			return err
		}
		if c.b != nil {
			s.heap = append(s.heap, c)
		}
	}
	for i := len(s.heap)/2 - 1; i >= 0; i-- {
		s.siftDown(i)
	}

	var lastTop *cursor
	for len(s.heap) > 0 {
		top := s.heap[0]
		if top == lastTop {
			// The same run leads again: try to pass a whole stretch of it through.
			ok, err := s.stretch(top)
			if err != nil {
				return err
			}
			if ok {
				continue
			}
		}
		lastTop = top
		k := top.keyRef
		s.group = s.group[:0]
		if err := s.collect(top, &k); err != nil {
			return err
		}
		for len(s.heap) > 0 {
			h := s.heap[0]
			if h == top {
				// top still leads with a larger key (collect checked it)
				break
			}
			if m.cmpRef(&h.keyRef, &k) != 0 {
				break
			}
			if err := s.collect(h, &k); err != nil {
				return err
			}
		}
		if err := s.emit(); err != nil {
			return err
		}
	}
	return s.flush()
}

// stretch passes through the longest run of records of the leading cursor c
// (in its current batch) whose keys are each unique within the batch and
// smaller than the current key of every other run: each is a key with one
// record, which passes through unmerged. It reports false when there is no
// such record (the caller then merges the next key normally). The last row
// of a batch is never taken, as the next batch may repeat its key.
func (s *mergeState) stretch(c *cursor) (bool, error) {
	m := s.m
	b, r := c.b, c.row
	var ru *cursor // runner-up: the other run with the smallest key
	switch len(s.heap) {
	case 1:
	case 2:
		ru = s.heap[1]
	default:
		ru = s.heap[1]
		if s.less(s.heap[2], ru) {
			ru = s.heap[2]
		}
	}
	var bound *keyRef
	if ru != nil {
		if m.cmpRef(&c.keyRef, &ru.keyRef) >= 0 {
			return false, nil
		}
		bound = &ru.keyRef
	}
	e, err := m.stretchEnd(b, r, bound, c.idx)
	if err != nil {
		return false, err
	}
	if e == r {
		return false, nil
	}
	if err := s.emitRange(b, r, e-r); err != nil {
		return false, err
	}
	c.at(b, e)
	s.siftDown(0)
	return true, nil
}

// stretchEnd returns the end of the stretch of b that starts at row r: the
// first row e > r, at most b.n-1, such that the key at e-1 is repeated at e
// or the key at e is not below bound (nil: no bound). Row r must be below
// bound. Keys that decrease are ErrUnsorted (in run number run).
func (m *Merger) stretchEnd(b *batch, r int, bound *keyRef, run int) (int, error) {
	e := r
	if hi := b.nk.hi[:b.n]; b.nk.lo == nil && b.nk.partial == nil && (bound == nil || bound.whole) {
		// Whole keys of at most 8 encoded bytes (integer keys): the words
		// are the keys.
		var limit uint64
		if bound != nil {
			limit = bound.nk.hi
		}
		for e+1 < len(hi) {
			if e > r && bound != nil && hi[e] >= limit {
				break
			}
			if hi[e] >= hi[e+1] {
				if hi[e] > hi[e+1] {
					return 0, fmt.Errorf("%w: run %d: key at row %d sorts before the previous key", ErrUnsorted, run, e+1)
				}
				break
			}
			e++
		}
		return e, nil
	}
	var cur, next keyRef
	cur.at(b, e)
	for e+1 < b.n {
		if e > r && bound != nil && m.cmpRef(&cur, bound) >= 0 {
			break
		}
		next.at(b, e+1)
		o := m.cmpRef(&cur, &next)
		if o > 0 {
			return 0, fmt.Errorf("%w: run %d: key at row %d sorts before the previous key", ErrUnsorted, run, e+1)
		}
		if o == 0 {
			break
		}
		cur = next
		e++
	}
	return e, nil
}

// emitRange outputs rows [start, start+n) of b unchanged, without the
// retractions when dropping deletes.
func (s *mergeState) emitRange(b *batch, start, n int) error {
	if !s.m.opts.DropDeletes {
		return s.appendRange(b, start, n)
	}
	end := start + n
	for i := start; i < end; {
		for i < end && IsRetract(b.kind[i]) {
			i++
		}
		j := i
		for j < end && !IsRetract(b.kind[j]) {
			j++
		}
		if j > i {
			if err := s.appendRange(b, i, j-i); err != nil {
				return err
			}
		}
		i = j
	}
	return nil
}

// lessEntry is the merge order of the records of one key.
func (m *Merger) lessEntry(a, b entry) bool {
	for _, vc := range m.seqOrder {
		cls := m.vals[vc].cls
		va, vb := &a.b.vals[vc], &b.b.vals[vc]
		an, bn := va.isNull(int(a.row)), vb.isNull(int(b.row))
		var c int
		switch {
		case an && bn:
		case an:
			c = -1
		case bn:
			c = 1
		default:
			c = compareAt(cls, va, int(a.row), vb, int(b.row))
			if m.seqDesc {
				c = -c
			}
		}
		if c != 0 {
			return c < 0
		}
	}
	if as, bs := a.seq(), b.seq(); as != bs {
		return as < bs
	}
	if ar, br := IsRetract(a.kind()), IsRetract(b.kind()); ar != br {
		return ar
	}
	if a.run != b.run {
		return a.run < b.run
	}
	return a.row < b.row
}

func (s *mergeState) emit() error {
	g := s.group
	m := s.m
	lookup := len(g) > 1 && s.levels != nil
	if lookup {
		// A lone record left by the pick is merged, not passed through:
		// LookupMergeFunction runs the merge function on it.
		g = pickHighLevel(g, s.levels)
	}
	if len(g) == 1 && !lookup {
		e := g[0]
		if m.opts.DropDeletes && IsRetract(e.kind()) {
			return nil
		}
		return s.appendRef(e)
	}
	// insertion sort: groups are small (about one record per run)
	for i := 1; i < len(g); i++ {
		for j := i; j > 0 && m.lessEntry(g[j], g[j-1]); j-- {
			g[j], g[j-1] = g[j-1], g[j]
		}
	}
	res := &s.res
	if err := s.fn.merge(g, res); err != nil {
		return err
	}
	switch res.kind {
	case resRef:
		if m.opts.DropDeletes && IsRetract(res.ref.kind()) {
			return nil
		}
		return s.appendRef(res.ref)
	case resComputed:
		if m.opts.DropDeletes && IsRetract(res.rkind) {
			return nil
		}
		return s.appendComputed(res)
	}
	return nil
}

func (s *mergeState) appendRef(e entry) error { return s.appendRange(e.b, int(e.row), 1) }

// appendRange adds rows [start, start+n) of b to the pending output,
// flushing whenever a batch is full.
func (s *mergeState) appendRange(b *batch, start, n int) error {
	for n > 0 {
		k := len(s.segs) - 1
		if k < 0 || s.segs[k].b != b || s.segs[k].start+s.segs[k].n != start {
			if len(s.segs) == 1 && s.segs[0].b != nil && s.segs[0].n >= s.m.zeroCopy {
				if err := s.flush(); err != nil {
					return err
				}
			}
			s.segs = append(s.segs, segment{b: b, start: start})
			k = len(s.segs) - 1
		}
		take := min(n, s.m.opts.BatchSize-s.rows)
		s.segs[k].n += take
		s.pin(b)
		s.rows += take
		start += take
		n -= take
		if s.rows >= s.m.opts.BatchSize {
			if err := s.flush(); err != nil {
				return err
			}
		}
	}
	return nil
}

func (s *mergeState) appendComputed(res *result) error {
	if len(s.segs) == 1 && s.segs[0].b != nil && s.segs[0].n >= s.m.zeroCopy {
		if err := s.flush(); err != nil {
			return err
		}
	}
	k := len(s.ckind)
	s.ckind = append(s.ckind, res.rkind)
	s.cseq = append(s.cseq, res.seq)
	s.ckey = append(s.ckey, res.ref)
	s.pin(res.ref.b)
	for vc := range s.ccells {
		s.ccells[vc] = append(s.ccells[vc], res.cells[vc])
		if res.cells[vc].st == cRef {
			s.pin(res.cells[vc].b)
		}
	}
	if n := len(s.segs) - 1; n >= 0 && s.segs[n].b == nil && s.segs[n].start+s.segs[n].n == k {
		s.segs[n].n++
	} else {
		s.segs = append(s.segs, segment{start: k, n: 1})
	}
	s.rows++
	if s.rows >= s.m.opts.BatchSize {
		return s.flush()
	}
	return nil
}

// flush builds the pending rows into a batch and yields it.
func (s *mergeState) flush() error {
	if s.rows == 0 {
		return nil
	}
	m := s.m
	var out arrow.RecordBatch
	if len(s.segs) == 1 && s.segs[0].b != nil {
		seg := s.segs[0]
		cols := make([]arrow.Array, len(m.outCols))
		for j, oc := range m.outCols {
			cols[j] = array.NewSlice(seg.b.rec.Column(oc.in), int64(seg.start), int64(seg.start+seg.n))
		}
		out = array.NewRecordBatch(m.out, cols, int64(seg.n))
		for _, c := range cols {
			c.Release()
		}
	} else {
		cols := make([]arrow.Array, len(m.outCols))
		release := func() {
			for _, c := range cols {
				if c != nil {
					c.Release()
				}
			}
		}
		for j, oc := range m.outCols {
			arr, err := m.gathers[j].build(s, oc)
			if err != nil {
				release()
				return err
			}
			cols[j] = arr
		}
		out = array.NewRecordBatch(m.out, cols, int64(s.rows))
		release()
	}
	s.segs = s.segs[:0]
	s.rows = 0
	s.ckind, s.cseq = s.ckind[:0], s.cseq[:0]
	clear(s.ckey)
	s.ckey = s.ckey[:0]
	for vc := range s.ccells {
		clear(s.ccells[vc])
		s.ccells[vc] = s.ccells[vc][:0]
	}
	s.releasePinned()
	if !s.yield(out, nil) {
		return errStopped
	}
	return nil
}
