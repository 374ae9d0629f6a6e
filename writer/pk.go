package writer

import (
	"context"
	"fmt"
	"io"
	"slices"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"
	"github.com/apache/arrow-go/v18/arrow/memory"

	"github.com/paimon-go/paimon/datafile"
	"github.com/paimon-go/paimon/format"
	"github.com/paimon-go/paimon/manifest"
	"github.com/paimon-go/paimon/merge"
	"github.com/paimon-go/paimon/row"
	"github.com/paimon-go/paimon/schema"
	"github.com/paimon-go/paimon/types"
)

// Field ids and names of the system columns of primary-key data files
// (SpecialFields): _KEY_<pk> columns take KeyFieldIDStart + the key field's id.
// They are package datafile's, which writes the files.
const (
	KeyFieldPrefix       = datafile.KeyFieldPrefix
	KeyFieldIDStart      = datafile.KeyFieldIDStart
	SequenceNumberID     = datafile.SequenceNumberID
	ValueKindID          = datafile.ValueKindID
	SequenceNumberColumn = datafile.SequenceNumberColumn
	ValueKindColumn      = datafile.ValueKindColumn
)

// spillSequenceColumn names the key column of spilled runs that carries the
// sequence number, so that sorting merges never see two records of one key
// (Java spills the raw records of its sort buffer, sorted by key and
// sequence number, and merges them only when they are flushed).
const spillSequenceColumn = "_SPILL_SEQUENCE_NUMBER"

// levelZeroRowGroupBytes is the Parquet row group size of level-0 files
// unless the table sets parquet.block.size: a Parquet writer holds its open
// row group in memory, and Java's 128 MiB default would not fit in the
// 64 MiB the writer may use beside write-buffer-size.
const levelZeroRowGroupBytes = 32 << 20

// pkLayout is the physical layout of a primary-key table's data files
// (KeyValue.createKeyValueFields) and what flushing needs.
type pkLayout struct {
	keyIdx   []int // table field indexes of the trimmed primary key
	keyTypes []types.DataType
	kvFields []types.DataField // keys, _SEQUENCE_NUMBER, _VALUE_KIND, values
	kvSchema *arrow.Schema
	// spillSchema is the layout of spilled runs: the _KEY_ columns, the
	// sequence number as one more key column (spillSequenceColumn), a
	// _SEQUENCE_NUMBER of zeros, _VALUE_KIND and the values. sorter merges
	// such runs by (key, sequence number) without ever merging two records.
	spillSchema *arrow.Schema
	sorter      *merge.Merger
	merger      *merge.Merger
}

// KeyValueFields returns the columns of a primary-key data file of ts:
// _KEY_<pk> for the trimmed primary key (ids KeyFieldIDStart + id, the key
// columns' types), _SEQUENCE_NUMBER BIGINT NOT NULL, _VALUE_KIND TINYINT NOT
// NULL and then all table columns (KeyValue.createKeyValueFields, format doc
// 11.1). It is datafile.KeyValueFields.
func KeyValueFields(ts *schema.TableSchema) []types.DataField { return datafile.KeyValueFields(ts) }

func (w *Write) initPK() error {
	ts, o := w.ts, w.ts.Options
	cp, err := checkChangelog(o, w.post != nil && w.post.into)
	if err != nil {
		return err
	}
	if cp == schema.ChangelogInput {
		if err := w.initInputChangelog(); err != nil {
			return err
		}
	}
	p := &pkLayout{keyIdx: ts.FieldIndexes(ts.TrimmedPrimaryKeys())}
	p.kvFields = w.layout.Fields()
	nk := len(p.keyIdx)
	p.keyTypes = row.FieldTypes(p.kvFields[:nk])
	p.kvSchema = types.SchemaToArrow(p.kvFields)
	cfg, err := merge.NewConfig(o, ts.Fields, ts.PrimaryKeys)
	if err != nil {
		return err
	}
	keyCols := make([]int, nk)
	for i := range keyCols {
		keyCols[i] = i
	}
	if w.spill, err = spillOptions(o); err != nil {
		return err
	}
	p.merger, err = merge.NewMerger(cfg, p.kvSchema, merge.Options{KeyColumns: keyCols, Layout: merge.LayoutKeyValue, Allocator: w.cfg.mem})
	if err != nil {
		return err
	}
	sf := slices.Clone(p.kvSchema.Fields())
	sf = slices.Insert(sf, nk, arrow.Field{Name: spillSequenceColumn, Type: arrow.PrimitiveTypes.Int64})
	p.spillSchema = arrow.NewSchema(sf, nil)
	p.sorter, err = merge.NewMerger(cfg, p.spillSchema, merge.Options{KeyColumns: append(keyCols, nk), Layout: merge.LayoutKeyValue, Allocator: w.cfg.mem})
	if err != nil {
		return err
	}
	w.pk = p
	return nil
}

// chunk is an unsorted batch in a primary-key sort buffer: rows in arrival
// order with consecutive sequence numbers from seq, or the given numbers
// seqs (WithSequenceColumn).
type chunk struct {
	rec   arrow.RecordBatch
	kinds []int8  // nil: all +I
	seqs  []int64 // nil: seq, seq+1, ...
	seq   int64
	bytes int64
}

// sortedChunk is an in-memory sorted run of a sort buffer: the rows of one or
// more consecutive chunks, sorted by key and then sequence number, held in
// pieces of pieceRows rows that are freed one by one as a merge consumes
// them.
type sortedChunk struct {
	pieces []arrow.RecordBatch // table columns, sorted
	perm   []int32             // perm[i]: arrival index of sorted row i; nil = identity
	kinds  []int8              // row kinds in sorted order; nil: all +I
	seqs   []int64             // given sequence numbers in sorted order; nil: from seq and perm
	seq    int64               // sequence number of arrival index 0 (seqs == nil)
	bytes  int64
}

// minSortRows is the least number of rows sorted as one in-memory run:
// smaller batches wait and are sorted together, so that a buffer of many
// small batches does not become a merge of very many runs. maxSortRows is the
// most: larger batches are sorted in parts, bounding the sort's temporary
// memory.
const (
	minSortRows = 16384
	maxSortRows = 1 << 18
)

// pieceRows is the number of rows of one piece of a sorted run. With Arrow's
// Go allocator (64 bytes of alignment padding per buffer) 4072 rows make 8-
// and 4-byte columns and string offsets fill Go's 32 KiB and 16 KiB size
// classes exactly; 4096 rows would waste a quarter of every 8-byte column.
const pieceRows = 4072

// bufferPK appends rows to bw's sort buffer, assigning sequence numbers
// unless seqs gives them (MergeTreeWriter.write). While the Write's buffers
// exceed write-buffer-size, the largest buffer is spilled to a local temp
// file as a sorted run or, with spilling disabled or its disk quota used up,
// flushed as level-0 files (Java's memory pool preemption and
// BinaryExternalSortBuffer.flushMemory).
func (w *Write) bufferPK(ctx context.Context, bw *bucketWriter, rec arrow.RecordBatch, kinds []int8, seqs []int64) error {
	n := rec.NumRows()
	if n == 0 {
		return nil
	}
	rec.Retain()
	c := chunk{rec: rec, kinds: kinds, seqs: seqs, seq: bw.seq, bytes: datafile.RecordSize(rec) + int64(len(kinds)) + 8*int64(len(seqs))}
	if seqs == nil {
		bw.seq += n
	} else {
		// The counter continues after the highest number given.
		bw.seq = max(bw.seq, slices.Max(seqs)+1)
	}
	bw.pending = append(bw.pending, c)
	bw.pendingRows += n
	bw.addBytes(c.bytes)
	if bw.pendingRows >= minSortRows {
		if err := bw.sortPending(ctx); err != nil {
			return err
		}
	}
	for w.buffered > w.writeBufferSize {
		var big *bucketWriter
		for _, x := range w.writers {
			if big == nil || x.bufBytes > big.bufBytes {
				big = x
			}
		}
		if big == nil || big.bufBytes == 0 {
			break
		}
		var err error
		if w.spill.enabled && big.spillBytes < w.spill.maxDisk {
			err = big.spillPK(ctx)
		} else {
			w.stats.Flushes++
			err = big.flushCompact(ctx, false, false, false)
		}
		if err != nil {
			return err
		}
	}
	return nil
}

func (bw *bucketWriter) addBytes(n int64) {
	bw.bufBytes += n
	bw.w.buffered += n
}

// bufferEmpty reports whether bw holds no buffered rows, in memory or
// spilled.
func (bw *bucketWriter) bufferEmpty() bool {
	return len(bw.pending) == 0 && len(bw.sorted) == 0 && len(bw.spills) == 0
}

// releaseBuffer drops the in-memory buffer (spill files stay).
func (bw *bucketWriter) releaseBuffer() {
	for _, c := range bw.pending {
		c.rec.Release()
	}
	for _, c := range bw.sorted {
		for _, pc := range c.pieces {
			pc.Release()
		}
	}
	bw.pending, bw.sorted, bw.pendingRows = nil, nil, 0
	bw.addBytes(-bw.bufBytes)
}

// sortPending sorts the pending chunks into in-memory sorted runs.
func (bw *bucketWriter) sortPending(ctx context.Context) error {
	if len(bw.pending) == 0 {
		return nil
	}
	w := bw.w
	pend := bw.pending
	var pendBytes int64
	for _, c := range pend {
		pendBytes += c.bytes
	}
	bw.pending, bw.pendingRows = nil, 0
	defer func() {
		for _, c := range pend {
			c.rec.Release()
		}
		bw.addBytes(-pendBytes)
	}()
	vals, kinds, seqs, err := bw.concat(pend)
	if err != nil {
		return err
	}
	defer vals.Release()
	n := vals.NumRows()
	for off := int64(0); off < n; off += maxSortRows {
		end := min(off+maxSortRows, n)
		part := vals
		if off != 0 || end != n {
			part = vals.NewSlice(off, end)
		}
		var pk []int8
		if kinds != nil {
			pk = kinds[off:end]
		}
		var ps []int64
		if seqs != nil {
			ps = seqs[off:end]
		}
		sc, err := w.sortRun(ctx, part, pk, ps, pend[0].seq+off)
		if part != vals {
			part.Release()
		}
		if err != nil {
			return err
		}
		bw.sorted = append(bw.sorted, sc)
		bw.addBytes(sc.bytes)
	}
	return nil
}

// concat returns the rows of consecutive chunks as one record, their
// kinds (nil: all +I) and their given sequence numbers (nil: consecutive
// from the first chunk's seq; a Write gives numbers for all or none).
func (bw *bucketWriter) concat(cs []chunk) (arrow.RecordBatch, []int8, []int64, error) {
	if len(cs) == 1 {
		cs[0].rec.Retain()
		return cs[0].rec, cs[0].kinds, cs[0].seqs, nil
	}
	w := bw.w
	var n int64
	anyKinds := false
	for _, c := range cs {
		n += c.rec.NumRows()
		anyKinds = anyKinds || c.kinds != nil
	}
	cols := make([]arrow.Array, len(w.ts.Fields))
	parts := make([]arrow.Array, len(cs))
	for i := range cols {
		for k, c := range cs {
			parts[k] = c.rec.Column(i)
		}
		col, err := array.Concatenate(parts, w.cfg.mem)
		if err != nil {
			for _, done := range cols[:i] {
				done.Release()
			}
			return nil, nil, nil, fmt.Errorf("writer: concatenate buffer of bucket %s: %w", bw.dir, err)
		}
		cols[i] = col
	}
	rec := array.NewRecordBatch(w.tableSchema, cols, n)
	for _, col := range cols {
		col.Release()
	}
	var kinds []int8
	if anyKinds {
		kinds = make([]int8, 0, n)
		for _, c := range cs {
			if c.kinds != nil {
				kinds = append(kinds, c.kinds...)
			} else {
				kinds = append(kinds, make([]int8, c.rec.NumRows())...)
			}
		}
	}
	var seqs []int64
	if cs[0].seqs != nil {
		seqs = make([]int64, 0, n)
		for _, c := range cs {
			seqs = append(seqs, c.seqs...)
		}
	}
	return rec, kinds, seqs, nil
}

// sortRun sorts vals (rows with sequence numbers seq, seq+1, ..., or the
// given seqs) by key and sequence number, keeping arrival order among equal
// ones, into a sorted run of its own pieces (vals is not retained).
func (w *Write) sortRun(ctx context.Context, vals arrow.RecordBatch, kinds []int8, seqs []int64, seq int64) (sortedChunk, error) {
	p := w.pk
	n := int(vals.NumRows())
	keyCols := make([]arrow.Array, len(p.keyIdx), len(p.keyIdx)+1)
	for k, i := range p.keyIdx {
		keyCols[k] = vals.Column(i)
	}
	if seqs != nil {
		// Given numbers need not follow arrival order: they are the last
		// sort column.
		sa := int64Array(seqs)
		defer sa.Release()
		keyCols = append(keyCols, sa)
	}
	perm, err := sortPermutation(keyCols, n)
	if err != nil {
		return sortedChunk{}, err
	}
	sc := sortedChunk{seq: seq, perm: perm}
	if seqs != nil {
		if perm == nil {
			sc.seqs = slices.Clone(seqs)
		} else {
			sc.seqs = pick(seqs, perm)
		}
		sc.bytes += 8 * int64(n)
	}
	idx := perm
	if perm == nil {
		idx = make([]int32, n)
		for i := range idx {
			idx[i] = int32(i)
		}
		if kinds != nil {
			sc.kinds = slices.Clone(kinds)
		}
	} else {
		sc.bytes += 4 * int64(n)
		if kinds != nil {
			sc.kinds = make([]int8, n)
			for i, j := range perm {
				sc.kinds[i] = kinds[j]
			}
		}
	}
	sc.bytes += int64(len(sc.kinds))
	// Copy the rows in sorted order into pieces, so that each can be freed
	// when merged.
	for off := 0; off < n; off += pieceRows {
		end := min(off+pieceRows, n)
		piece, err := format.Take(ctx, w.cfg.mem, vals, idx[off:end])
		if err != nil {
			for _, pc := range sc.pieces {
				pc.Release()
			}
			return sortedChunk{}, fmt.Errorf("writer: sort buffered rows: %w", err)
		}
		sc.pieces = append(sc.pieces, piece)
		sc.bytes += datafile.RecordSize(piece)
	}
	return sc, nil
}

// memRuns sorts what is pending and hands the in-memory sorted runs over as
// merge runs in the KeyValue layout, or the spill layout if spill is set. The runs own the sorted values from
// now on; the buffer's byte count stays until releaseBuffer.
func (bw *bucketWriter) memRuns(ctx context.Context, spill bool) ([]merge.Run, error) {
	if err := bw.sortPending(ctx); err != nil {
		return nil, err
	}
	runs := make([]merge.Run, len(bw.sorted))
	for i, c := range bw.sorted {
		runs[i] = &memRun{bw: bw, c: c, spill: spill}
	}
	bw.sorted = nil
	return runs, nil
}

// memRun yields an in-memory sorted run piece by piece in the KeyValue
// layout (_KEY_ columns, _SEQUENCE_NUMBER, _VALUE_KIND, values), building the
// sequence numbers and kinds of each batch as it goes. A piece is freed once
// the merge releases the batch made of it.
type memRun struct {
	bw    *bucketWriter
	c     sortedChunk
	spill bool  // yield the spill layout (pkLayout.spillSchema)
	next  int   // index of the next piece
	off   int64 // sorted row index of the next piece's first row
}

func (r *memRun) Next(ctx context.Context) (arrow.RecordBatch, error) {
	if err := ctx.Err(); err != nil {
		return nil, err
	}
	c := &r.c
	if r.next >= len(c.pieces) {
		return nil, io.EOF
	}
	vals := c.pieces[r.next]
	c.pieces[r.next] = nil
	r.next++
	m := int(vals.NumRows())
	end := r.off + int64(m)
	var seqs []int64
	switch {
	case c.seqs != nil:
		seqs = c.seqs[r.off:end]
	case c.perm != nil:
		seqs = make([]int64, m)
		for i, j := range c.perm[r.off:end] {
			seqs[i] = c.seq + int64(j)
		}
	default:
		seqs = make([]int64, m)
		for i := range seqs {
			seqs[i] = c.seq + r.off + int64(i)
		}
	}
	var kinds []int8
	if c.kinds != nil {
		kinds = c.kinds[r.off:end]
	} else {
		kinds = r.bw.w.zeroKinds(m)
	}
	r.off = end
	seqArr := int64Array(seqs)
	kindArr := array.NewInt8Data(array.NewData(arrow.PrimitiveTypes.Int8, m,
		[]*memory.Buffer{nil, memory.NewBufferBytes(arrow.Int8Traits.CastToBytes(kinds))}, nil, 0, 0))
	p := r.bw.w.pk
	cols := make([]arrow.Array, 0, len(p.kvFields))
	for _, i := range p.keyIdx {
		cols = append(cols, vals.Column(i))
	}
	sc := p.kvSchema
	if r.spill {
		zeros := array.NewInt64Data(array.NewData(arrow.PrimitiveTypes.Int64, m,
			[]*memory.Buffer{nil, memory.NewBufferBytes(arrow.Int64Traits.CastToBytes(r.bw.w.zeroSeqs(m)))}, nil, 0, 0))
		defer zeros.Release()
		cols = append(cols, seqArr, zeros)
		sc = p.spillSchema
	} else {
		cols = append(cols, seqArr)
	}
	cols = append(cols, kindArr)
	cols = append(cols, vals.Columns()...)
	out := array.NewRecordBatch(sc, cols, int64(m))
	vals.Release()
	seqArr.Release()
	kindArr.Release()
	return out, nil
}

func (r *memRun) Close() error {
	for i, pc := range r.c.pieces {
		if pc != nil {
			pc.Release()
			r.c.pieces[i] = nil
		}
	}
	return nil
}

// int64Array wraps vals (not copied) as an Arrow Int64 array without nulls.
func int64Array(vals []int64) *array.Int64 {
	return array.NewInt64Data(array.NewData(arrow.PrimitiveTypes.Int64, len(vals),
		[]*memory.Buffer{nil, memory.NewBufferBytes(arrow.Int64Traits.CastToBytes(vals))}, nil, 0, 0))
}

// zeroKinds returns n +I row kinds from a shared, never written slice.
func (w *Write) zeroKinds(n int) []int8 {
	if len(w.zeros) < n {
		w.zeros = make([]int8, max(n, pieceRows))
	}
	return w.zeros[:n]
}

// zeroSeqs returns n zero sequence numbers from a shared, never written
// slice.
func (w *Write) zeroSeqs(n int) []int64 {
	if len(w.zeros64) < n {
		w.zeros64 = make([]int64, max(n, pieceRows))
	}
	return w.zeros64[:n]
}

// flushPK writes the sort buffer, spilled runs included, as level-0 files
// (MergeTreeWriter.flushWriteBuffer): records sorted by key then sequence
// number, records of one key merged with the merge engine (retractions
// kept), rolling at target-file-size. The buffer and the spill files are
// dropped whether or not the flush succeeds.
func (bw *bucketWriter) flushPK(ctx context.Context) (files []manifest.DataFileMeta, err error) {
	if bw.bufferEmpty() {
		return nil, nil
	}
	defer func() {
		bw.releaseBuffer()
		if rerr := bw.removeSpills(); err == nil {
			err = rerr
		}
	}()
	// With runs on disk, the in-memory buffer is spilled too and the merge
	// reads from disk only (BinaryExternalSortBuffer.spilledIterator), so
	// that the buffer's memory is free while the level-0 files are written.
	if len(bw.spills) > 0 && (len(bw.pending) > 0 || len(bw.sorted) > 0) {
		if err := bw.spillPK(ctx); err != nil {
			return nil, err
		}
	}
	if err := bw.reduceSpills(ctx); err != nil {
		return nil, err
	}
	// A changelog-producer = input table reads the raw runs in the spill
	// layout through one sorted run that writes them as changelog files
	// (inputChangelog).
	input := bw.cl != nil
	runs := make([]merge.Run, 0, len(bw.spills)+len(bw.sorted)+1)
	for _, sf := range bw.spills {
		r, err := bw.openSpill(sf, !input)
		if err != nil {
			for _, o := range runs {
				_ = o.Close()
			}
			return nil, err
		}
		runs = append(runs, r)
	}
	mem, err := bw.memRuns(ctx, input)
	if err != nil {
		for _, o := range runs {
			_ = o.Close()
		}
		return nil, err
	}
	runs = append(runs, mem...)
	if input {
		runs = []merge.Run{bw.inputChangelog(ctx, runs)}
	}
	p := bw.w.pk
	for b, merr := range p.merger.Merge(ctx, runs) {
		if merr != nil {
			err = fmt.Errorf("writer: merge buffered records of bucket %s: %w", bw.dir, merr)
			break
		}
		out := b
		if !out.Schema().Equal(p.kvSchema) {
			out = array.NewRecordBatch(p.kvSchema, b.Columns(), b.NumRows())
			b.Release()
		}
		err = bw.rw.Write(ctx, out)
		out.Release()
		if err != nil {
			break
		}
	}
	if err != nil {
		return nil, err
	}
	if err := bw.finishChangelog(ctx); err != nil {
		return nil, err
	}
	return bw.finishFiles(ctx)
}
