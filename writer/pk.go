package writer

import (
	"context"
	"fmt"
	"slices"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"

	"github.com/paimon-go/paimon/manifest"
	"github.com/paimon-go/paimon/merge"
	"github.com/paimon-go/paimon/row"
	"github.com/paimon-go/paimon/schema"
	"github.com/paimon-go/paimon/types"
)

// Field ids and names of the system columns of primary-key data files
// (SpecialFields): _KEY_<pk> columns take KeyFieldIDStart + the key field's id.
const (
	KeyFieldPrefix       = "_KEY_"
	KeyFieldIDStart      = 1073741823 // Integer.MAX_VALUE / 2
	SequenceNumberID     = 2147483646 // Integer.MAX_VALUE - 1
	ValueKindID          = 2147483645 // Integer.MAX_VALUE - 2
	SequenceNumberColumn = merge.SequenceNumberColumn
	ValueKindColumn      = merge.ValueKindColumn
)

// pkLayout is the physical layout of a primary-key table's data files
// (KeyValue.createKeyValueFields) and what flushing needs.
type pkLayout struct {
	keyIdx     []int             // table field indexes of the trimmed primary key
	keyFields  []types.DataField // _KEY_<pk> fields
	keyTypes   []types.DataType
	kvFields   []types.DataField // keys, _SEQUENCE_NUMBER, _VALUE_KIND, values
	kvSchema   *arrow.Schema
	keyModes   []schema.StatsMode
	valueModes []schema.StatsMode
	merger     *merge.Merger
}

// KeyValueFields returns the columns of a primary-key data file of ts:
// _KEY_<pk> for the trimmed primary key (ids KeyFieldIDStart + id, the key
// columns' types), _SEQUENCE_NUMBER BIGINT NOT NULL, _VALUE_KIND TINYINT NOT
// NULL and then all table columns (KeyValue.createKeyValueFields, format doc
// 11.1).
func KeyValueFields(ts *schema.TableSchema) []types.DataField {
	var out []types.DataField
	for _, f := range ts.TrimmedPrimaryKeyFields() {
		out = append(out, types.DataField{ID: KeyFieldIDStart + f.ID, Name: KeyFieldPrefix + f.Name, Type: f.Type})
	}
	out = append(out,
		types.DataField{ID: SequenceNumberID, Name: SequenceNumberColumn, Type: types.BigInt().NotNull()},
		types.DataField{ID: ValueKindID, Name: ValueKindColumn, Type: types.TinyInt().NotNull()})
	return append(out, ts.Fields...)
}

func (w *Write) initPK() error {
	ts, o := w.ts, w.ts.Options
	engine, err := o.MergeEngine()
	if err != nil {
		return err
	}
	if engine == schema.MergeFirstRow {
		return fmt.Errorf("%w: merge-engine = first-row (its level-0 files need lookup compaction to be visible)", ErrUnsupported)
	}
	if dv, err := o.DeletionVectorsEnabled(); err != nil {
		return err
	} else if dv {
		return fmt.Errorf("%w: deletion-vectors.enabled = true on a primary-key table (level-0 files need compaction to be visible)", ErrUnsupported)
	}
	if cp, err := o.ChangelogProducer(); err != nil {
		return err
	} else if cp == schema.ChangelogInput {
		return fmt.Errorf("%w: changelog-producer = input", ErrUnsupported)
	}
	p := &pkLayout{keyIdx: ts.FieldIndexes(ts.TrimmedPrimaryKeys())}
	p.kvFields = KeyValueFields(ts)
	nk := len(p.keyIdx)
	p.keyFields = p.kvFields[:nk]
	p.keyTypes = row.FieldTypes(p.keyFields)
	p.kvSchema = types.SchemaToArrow(p.kvFields)
	names := types.FieldNames(p.kvFields)
	system := make([]bool, len(names))
	for i := range nk + 2 {
		system[i] = true
	}
	modes, err := statsModes(o, names, system)
	if err != nil {
		return err
	}
	p.keyModes, p.valueModes = modes[:nk], modes[nk+2:]
	cfg, err := merge.NewConfig(o, ts.Fields, ts.PrimaryKeys)
	if err != nil {
		return err
	}
	keyCols := make([]int, nk)
	for i := range keyCols {
		keyCols[i] = i
	}
	p.merger, err = merge.NewMerger(cfg, p.kvSchema, merge.Options{KeyColumns: keyCols, Layout: merge.LayoutKeyValue, Allocator: w.cfg.mem})
	if err != nil {
		return err
	}
	w.pk = p
	return nil
}

// chunk is one batch in a primary-key sort buffer: rows in arrival order
// with consecutive sequence numbers from seq.
type chunk struct {
	rec   arrow.RecordBatch
	kinds []int8 // nil: all +I
	seq   int64
	bytes int64
}

// bufferPK appends rows to bw's sort buffer, assigning sequence numbers
// (MergeTreeWriter.write), and flushes the largest buffers while the Write's
// buffers exceed write-buffer-size (Java's memory pool preemption).
func (w *Write) bufferPK(ctx context.Context, bw *bucketWriter, rec arrow.RecordBatch, kinds []int8) error {
	n := rec.NumRows()
	if n == 0 {
		return nil
	}
	rec.Retain()
	size := recordSize(rec)
	bw.chunks = append(bw.chunks, chunk{rec: rec, kinds: kinds, seq: bw.seq, bytes: size})
	bw.seq += n
	bw.bufBytes += size
	w.buffered += size
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
		if err := big.flushPK(ctx); err != nil {
			return err
		}
	}
	return nil
}

func (bw *bucketWriter) releaseChunks() {
	for _, c := range bw.chunks {
		c.rec.Release()
	}
	bw.chunks = nil
	bw.w.buffered -= bw.bufBytes
	bw.bufBytes = 0
}

// flushPK writes the sort buffer as level-0 files
// (MergeTreeWriter.flushWriteBuffer): rows sorted by key then sequence
// number, records of one key merged with the merge engine (retractions kept),
// rolling at target-file-size.
func (bw *bucketWriter) flushPK(ctx context.Context) error {
	if len(bw.chunks) == 0 {
		return nil
	}
	defer bw.releaseChunks()
	kv, err := bw.sortedKeyValues(ctx)
	if err != nil {
		return err
	}
	p := bw.w.pk
	nk := len(p.keyIdx)
	cmp, err := keyComparator(kv.Columns()[:nk])
	if err != nil {
		kv.Release()
		return err
	}
	dup := false
	for i := 1; i < int(kv.NumRows()) && !dup; i++ {
		dup = cmp(i-1, i) == 0
	}
	if !dup {
		err = bw.writeRolling(ctx, kv, p.kvFields, bw.closeKVFile, bw.trackKV)
		kv.Release()
	} else {
		for b, merr := range p.merger.Merge(ctx, []merge.Run{merge.RunOf(kv)}) {
			if merr != nil {
				err = fmt.Errorf("writer: merge buffered records of bucket %s: %w", bw.dir, merr)
				break
			}
			out := array.NewRecordBatch(p.kvSchema, b.Columns(), b.NumRows())
			b.Release()
			err = bw.writeRolling(ctx, out, p.kvFields, bw.closeKVFile, bw.trackKV)
			out.Release()
			if err != nil {
				break
			}
		}
	}
	if err != nil {
		return err
	}
	return bw.closeKVFile(ctx)
}

// sortedKeyValues concatenates the buffer and returns it in the KeyValue
// layout, sorted by key and then sequence number.
func (bw *bucketWriter) sortedKeyValues(ctx context.Context) (arrow.RecordBatch, error) {
	w, p := bw.w, bw.w.pk
	mem := w.cfg.mem
	var n int64
	for _, c := range bw.chunks {
		n += c.rec.NumRows()
	}
	// Values, concatenated.
	var vals arrow.RecordBatch
	if len(bw.chunks) == 1 {
		vals = bw.chunks[0].rec
		vals.Retain()
	} else {
		cols := make([]arrow.Array, len(w.ts.Fields))
		parts := make([]arrow.Array, len(bw.chunks))
		for c := range cols {
			for k, ch := range bw.chunks {
				parts[k] = ch.rec.Column(c)
			}
			col, err := array.Concatenate(parts, mem)
			if err != nil {
				for _, done := range cols[:c] {
					done.Release()
				}
				return nil, fmt.Errorf("writer: concatenate buffer: %w", err)
			}
			cols[c] = col
		}
		vals = array.NewRecordBatch(w.tableSchema, cols, n)
		for _, col := range cols {
			col.Release()
		}
	}
	seqs := make([]int64, 0, n)
	kinds := make([]int8, 0, n)
	for _, c := range bw.chunks {
		rows := c.rec.NumRows()
		for i := range rows {
			seqs = append(seqs, c.seq+i)
		}
		if c.kinds != nil {
			kinds = append(kinds, c.kinds...)
		} else {
			kinds = append(kinds, make([]int8, rows)...)
		}
	}
	// Sort: stable by key, so equal keys keep ascending sequence numbers.
	keyCols := make([]arrow.Array, len(p.keyIdx))
	for k, i := range p.keyIdx {
		keyCols[k] = vals.Column(i)
	}
	cmp, err := keyComparator(keyCols)
	if err != nil {
		vals.Release()
		return nil, err
	}
	perm := make([]int32, n)
	sorted := true
	for i := range perm {
		perm[i] = int32(i)
		if i > 0 && sorted && cmp(i-1, i) > 0 {
			sorted = false
		}
	}
	if !sorted {
		slices.SortStableFunc(perm, func(a, b int32) int { return cmp(int(a), int(b)) })
		in := &input{rec: vals}
		taken, _, err := in.take(ctx, mem, perm)
		vals.Release()
		if err != nil {
			return nil, err
		}
		vals = taken
		s2, k2 := make([]int64, n), make([]int8, n)
		for i, j := range perm {
			s2[i], k2[i] = seqs[j], kinds[j]
		}
		seqs, kinds = s2, k2
	}
	defer vals.Release()
	sb := array.NewInt64Builder(mem)
	sb.AppendValues(seqs, nil)
	seqArr := sb.NewArray()
	sb.Release()
	defer seqArr.Release()
	kb := array.NewInt8Builder(mem)
	kb.AppendValues(kinds, nil)
	kindArr := kb.NewArray()
	kb.Release()
	defer kindArr.Release()
	cols := make([]arrow.Array, 0, len(p.kvFields))
	for _, i := range p.keyIdx {
		cols = append(cols, vals.Column(i))
	}
	cols = append(cols, seqArr, kindArr)
	cols = append(cols, vals.Columns()...)
	return array.NewRecordBatch(p.kvSchema, cols, n), nil
}

// trackKV records a slice's sequence range, retractions and keys for the
// file it goes to (KeyValueDataFileWriter.write).
func (bw *bucketWriter) trackKV(f *dataFile, part arrow.RecordBatch) error {
	p := bw.w.pk
	nk := len(p.keyIdx)
	n := int(part.NumRows())
	if n == 0 {
		return nil
	}
	for _, s := range part.Column(nk).(*array.Int64).Int64Values() {
		if f.minSeq < 0 || s < f.minSeq {
			f.minSeq = s
		}
		if s > f.maxSeq {
			f.maxSeq = s
		}
	}
	for _, k := range part.Column(nk + 1).(*array.Int8).Int8Values() {
		if k == merge.KindUpdateBefore || k == merge.KindDelete {
			f.deletes++
		}
	}
	var err error
	if f.minKey == nil {
		if f.minKey, err = bw.keyAt(part, 0); err != nil {
			return err
		}
	}
	f.maxKey, err = bw.keyAt(part, n-1)
	return err
}

func (bw *bucketWriter) keyAt(rec arrow.RecordBatch, i int) ([]any, error) {
	p := bw.w.pk
	out := make([]any, len(p.keyIdx))
	for k := range out {
		v, err := valueAt(rec.Column(k), i, p.keyTypes[k])
		if err != nil {
			return nil, err
		}
		out[k] = v
	}
	return out, nil
}

// closeKVFile finishes the open primary-key file and records its
// DataFileMeta (KeyValueDataFileWriter.result).
func (bw *bucketWriter) closeKVFile(ctx context.Context) error {
	f := bw.cur
	if f == nil {
		return nil
	}
	bw.cur = nil
	res, err := f.finish(ctx)
	if err != nil {
		return err
	}
	w, p := bw.w, bw.w.pk
	nk := len(p.keyIdx)
	ks := make([]fieldStats, nk)
	for i := range ks {
		ks[i] = fieldStats{field: p.keyFields[i], mode: p.keyModes[i], stats: statAt(res, i)}
	}
	keyStats, err := encodeStats(ks, false)
	if err != nil {
		return fmt.Errorf("writer: key stats of %s: %w", f.path, err)
	}
	vs := make([]fieldStats, len(w.ts.Fields))
	for i, fld := range w.ts.Fields {
		vs[i] = fieldStats{field: fld, mode: p.valueModes[i], stats: statAt(res, nk+2+i)}
	}
	valueStats, err := encodeStats(vs, w.denseStats)
	if err != nil {
		return fmt.Errorf("writer: value stats of %s: %w", f.path, err)
	}
	minKey, err := row.Encode(p.keyTypes, f.minKey)
	if err != nil {
		return fmt.Errorf("writer: min key of %s: %w", f.path, err)
	}
	maxKey, err := row.Encode(p.keyTypes, f.maxKey)
	if err != nil {
		return fmt.Errorf("writer: max key of %s: %w", f.path, err)
	}
	deletes := f.deletes
	src := manifest.SourceAppend
	bw.newFiles = append(bw.newFiles, manifest.DataFileMeta{
		FileName: f.name, FileSize: res.FileSize, RowCount: res.RowCount,
		MinKey: row.Serialize(minKey), MaxKey: row.Serialize(maxKey),
		KeyStats:          simpleStats(keyStats),
		ValueStats:        simpleStats(valueStats),
		MinSequenceNumber: f.minSeq, MaxSequenceNumber: f.maxSeq,
		SchemaID:       w.ts.ID,
		Level:          0,
		ExtraFiles:     []string{},
		CreationTime:   w.creationTime(),
		DeleteRowCount: &deletes,
		FileSource:     &src,
		ValueStatsCols: valueStats.Cols,
	})
	return nil
}
