package reader

import (
	"container/list"
	"context"
	"io"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"

	"github.com/paimon-go/paimon/fileio"
	"github.com/paimon-go/paimon/format"
	"github.com/paimon-go/paimon/types"
)

// MaxOfferBytes caps the bytes of offered rows (LookupCache.Offer) a
// LookupCache holds unread, besides a quarter of its bound: 64 MiB.
const MaxOfferBytes = 64 << 20

// lookupOffer is one data file's rows handed over by its writer.
type lookupOffer struct {
	key   string
	rows  []arrow.RecordBatch
	bytes int64
}

// Offer hands the cache the rows of the data file at filePath (relative to
// fio's root) as the process that wrote it had them: batches in the file's
// columns (for a primary-key table the key-value layout of
// datafile.KeyValueFields, under the file's column names), in file order,
// every batch of the same schema. The first point lookup that reads the
// file through the cache then takes them instead of opening and decoding
// the file, provided they hold every column it reads in the type the file
// format would return (types.SchemaToArrow of the read fields); otherwise
// it reads the file. Offered rows are kept until read, or until newer
// offers push them out: at most a quarter of the cache's bound, and at
// most 64 MiB. Offer retains the batches it keeps; the caller keeps its
// own references. With a bound of 0, or rows of no batches, it does
// nothing.
//
// The writer's batches are what the file holds (data files are never
// rewritten), so there is nothing to invalidate; a deletion vector added
// later is applied to the offered rows as to the file's. It is the
// counterpart of manifest.Cache.Offer for data files. A file's rows are
// kept once; an offer of a file already offered replaces nothing.
func (c *LookupCache) Offer(fio *fileio.FileIO, filePath string, rows []arrow.RecordBatch) {
	if len(rows) == 0 {
		return
	}
	key := offerKey(fio.URL(), filePath)
	var n int64
	for _, r := range rows {
		n += recordBytes(r)
	}
	c.mu.Lock()
	defer c.mu.Unlock()
	bound := min(c.maxBytes/4, MaxOfferBytes)
	if _, dup := c.offers[key]; dup || n > bound {
		return
	}
	for _, r := range rows {
		r.Retain()
	}
	c.offers[key] = c.offerOrder.PushFront(&lookupOffer{key: key, rows: rows, bytes: n})
	c.offerBytes += n
	for c.offerBytes > bound {
		c.dropOffer(c.offerOrder.Back())
	}
}

// offered removes the offered rows of the file at filePath of the store
// named scope (FileIO.URL) and returns a reader of want over them, or nil
// when none were offered or they do not fit want (newRowsReader); the
// reader releases the rows on Close.
func (c *LookupCache) offered(scope, filePath string, want []types.DataField, sc *arrow.Schema, batchSize int) format.Reader {
	c.mu.Lock()
	defer c.mu.Unlock()
	el, ok := c.offers[offerKey(scope, filePath)]
	if !ok {
		return nil
	}
	o := el.Value.(*lookupOffer)
	c.offerOrder.Remove(el)
	delete(c.offers, o.key)
	c.offerBytes -= o.bytes
	rd := newRowsReader(o.rows, want, sc, batchSize)
	if rd == nil {
		releaseAll(o.rows)
		return nil
	}
	c.offerReads++
	return rd
}

// dropOffer releases an offer. c.mu is held.
func (c *LookupCache) dropOffer(el *list.Element) {
	o := el.Value.(*lookupOffer)
	c.offerOrder.Remove(el)
	delete(c.offers, o.key)
	c.offerBytes -= o.bytes
	releaseAll(o.rows)
}

func offerKey(scope, filePath string) string { return scope + "\x00" + filePath }

func releaseAll(recs []arrow.RecordBatch) {
	for _, r := range recs {
		r.Release()
	}
}

// rowsReader is a format.Reader over a file's offered rows: the want
// columns picked by name, batches of at most batchSize rows.
type rowsReader struct {
	sc        *arrow.Schema
	cols      []int // per field of sc, its column in rows
	rows      []arrow.RecordBatch
	batchSize int64
	i         int   // next batch of rows
	off       int64 // next row within rows[i]
	first     int64 // file position of that row
	total     int64
}

// newRowsReader returns a reader of want (whose Arrow schema is sc; nil
// builds it) over rows, or nil when rows lack a column of want or hold it
// in another type than a file read would give. The reader owns rows.
func newRowsReader(rows []arrow.RecordBatch, want []types.DataField, sc *arrow.Schema, batchSize int) *rowsReader {
	if sc == nil {
		sc = types.SchemaToArrow(want)
	}
	in := rows[0].Schema()
	for _, r := range rows[1:] {
		if !r.Schema().Equal(in) {
			return nil
		}
	}
	cols := make([]int, sc.NumFields())
	for i, f := range sc.Fields() {
		idx := in.FieldIndices(f.Name)
		if len(idx) != 1 || !arrow.TypeEqual(in.Field(idx[0]).Type, f.Type) {
			return nil
		}
		cols[i] = idx[0]
	}
	if batchSize <= 0 {
		batchSize = format.DefaultBatchSize
	}
	var total int64
	for _, r := range rows {
		total += r.NumRows()
	}
	return &rowsReader{sc: sc, cols: cols, rows: rows, batchSize: int64(batchSize), total: total}
}

// Next implements format.Reader.
func (r *rowsReader) Next(ctx context.Context) (format.Batch, error) {
	if err := ctx.Err(); err != nil {
		return format.Batch{}, err
	}
	for r.i < len(r.rows) && r.off >= r.rows[r.i].NumRows() {
		r.i, r.off = r.i+1, 0
	}
	if r.i == len(r.rows) {
		return format.Batch{}, io.EOF
	}
	src := r.rows[r.i]
	end := min(src.NumRows(), r.off+r.batchSize)
	cols := make([]arrow.Array, len(r.cols))
	for i, c := range r.cols {
		cols[i] = array.NewSlice(src.Column(c), r.off, end)
	}
	rec := array.NewRecordBatch(r.sc, cols, end-r.off)
	for _, c := range cols {
		c.Release()
	}
	b := format.Batch{Record: rec, FirstRow: r.first}
	r.first += end - r.off
	r.off = end
	return b, nil
}

// NumRows implements format.Reader.
func (r *rowsReader) NumRows() int64 { return r.total }

// Close implements format.Reader: it releases the rows.
func (r *rowsReader) Close() error {
	releaseAll(r.rows)
	r.rows = nil
	return nil
}
