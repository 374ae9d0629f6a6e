package memindexer

import (
	"context"
	"fmt"
	"sort"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"
	"github.com/apache/arrow-go/v18/arrow/memory"

	"github.com/paimon-go/paimon/realtime"
	"github.com/paimon-go/paimon/types"
)

// piece is rows [lo, hi) of a stored batch.
type piece struct {
	e      *entry
	lo, hi int
}

// keysReader is the one reader of a PrimaryKey query with realtime.Query.Keys:
// the rows of es whose key is among ks.Values (and whose offsets lie in the
// projection's visible range), gathered key by key and, within a key, batch
// by batch in write order — so sorted by key then sequence number, since the
// framework writes a store's rows in ascending sequence numbers — into one
// projected record, yielded in pieces of at most batchSize rows. Each batch
// is sorted by key then sequence number, so a key's rows are found by binary
// search: a lookup touches O(keys × log rows) rows of each batch and makes
// one record, instead of one record per stored batch.
func (p *projection) keysReader(ctx context.Context, v *view, es []*entry, ks *realtime.QueryKeys, mem memory.Allocator) reader {
	return func(yield func(arrow.RecordBatch, error) bool) {
		if err := v.pin(es); err != nil {
			yield(nil, err)
			return
		}
		defer releaseFrom(es)
		var pieces []piece
		for _, key := range ks.Values {
			for _, e := range es {
				lo, hi := keyRows(e, ks, key)
				if lo >= hi {
					continue
				}
				if p.visible.Empty() || (e.first >= p.visible.Begin && e.last < p.visible.End) {
					pieces = append(pieces, piece{e, lo, hi})
					continue
				}
				for i := lo; i < hi; {
					if !p.visible.Contains(e.offsetAt(i)) {
						i++
						continue
					}
					j := i + 1
					for j < hi && p.visible.Contains(e.offsetAt(j)) {
						j++
					}
					pieces = append(pieces, piece{e, i, j})
					i = j
				}
			}
		}
		if len(pieces) == 0 {
			return
		}
		if err := ctx.Err(); err != nil {
			yield(nil, err)
			return
		}
		out, err := gather(mem, p.schema, p.cols, pieces)
		if err != nil {
			yield(nil, err)
			return
		}
		// out is projected already: cut it into batches.
		n := out.NumRows()
		if n <= p.batchSize {
			yield(out, nil)
			return
		}
		defer out.Release()
		for at := int64(0); at < n; at += p.batchSize {
			if err := ctx.Err(); err != nil {
				yield(nil, err)
				return
			}
			if !yield(out.NewSlice(at, min(n, at+p.batchSize)), nil) {
				return
			}
		}
	}
}

// keyRows returns the rows [lo, hi) of e (sorted by key) whose key
// columns equal key.
func keyRows(e *entry, ks *realtime.QueryKeys, key []any) (int, int) {
	n := int(e.rows)
	cmpRow := func(row int) int {
		for i, c := range ks.Columns {
			if o := types.CompareArrow(ks.Types[i], e.rec.Column(e.cols[c]), row, key[i]); o != 0 {
				return o
			}
		}
		return 0
	}
	lo := sort.Search(n, func(i int) bool { return cmpRow(i) >= 0 })
	hi := lo + sort.Search(n-lo, func(i int) bool { return cmpRow(lo+i) > 0 })
	return lo, hi
}

// gather returns the rows of pieces, in order, as one record of schema sc
// whose column j is column cols[j] of the pieces' batches. Flat columns are
// copied value by value into one builder each (no slice per piece); other
// types are sliced and concatenated.
func gather(mem memory.Allocator, sc *arrow.Schema, cols []int, pieces []piece) (arrow.RecordBatch, error) {
	n := 0
	for _, pc := range pieces {
		n += pc.hi - pc.lo
	}
	arrs := make([]arrow.Array, len(cols))
	defer func() {
		for _, a := range arrs {
			if a != nil {
				a.Release()
			}
		}
	}()
	for j, c := range cols {
		a, err := gatherColumn(mem, sc.Field(j).Type, c, pieces, n)
		if err != nil {
			return nil, fmt.Errorf("memindexer: gather column %q: %w", sc.Field(j).Name, err)
		}
		arrs[j] = a
	}
	return array.NewRecordBatch(sc, arrs, int64(n)), nil
}

// gatherColumn gathers transport column c of pieces (n rows) into one
// array of type dt. The system columns are read value by value, packed or
// not.
func gatherColumn(mem memory.Allocator, dt arrow.DataType, c int, pieces []piece, n int) (arrow.Array, error) {
	if e := pieces[0].e; e.pk && c == kindCol {
		b := array.NewInt8Builder(mem)
		defer b.Release()
		b.Reserve(n)
		for _, pc := range pieces {
			for i := pc.lo; i < pc.hi; i++ {
				b.UnsafeAppend(pc.e.kindAt(i))
			}
		}
		return b.NewArray(), nil
	} else if (e.pk && c == seqCol) || c == e.offCol {
		b := array.NewInt64Builder(mem)
		defer b.Release()
		b.Reserve(n)
		for _, pc := range pieces {
			for i := pc.lo; i < pc.hi; i++ {
				b.UnsafeAppend(pc.e.int64At(c, i))
			}
		}
		return b.NewArray(), nil
	}
	switch a := pieces[0].e.rec.Column(pieces[0].e.cols[c]).(type) {
	case *array.String:
		return gatherValues[string, *array.String](array.NewStringBuilder(mem), c, pieces, n), nil
	case *array.Binary:
		return gatherValues[[]byte, *array.Binary](array.NewBinaryBuilder(mem, a.DataType().(arrow.BinaryDataType)), c, pieces, n), nil
	case *array.Int64:
		return gatherValues[int64, *array.Int64](array.NewInt64Builder(mem), c, pieces, n), nil
	case *array.Int32:
		return gatherValues[int32, *array.Int32](array.NewInt32Builder(mem), c, pieces, n), nil
	case *array.Int8:
		return gatherValues[int8, *array.Int8](array.NewInt8Builder(mem), c, pieces, n), nil
	case *array.Float64:
		return gatherValues[float64, *array.Float64](array.NewFloat64Builder(mem), c, pieces, n), nil
	case *array.Timestamp:
		return gatherValues[arrow.Timestamp, *array.Timestamp](array.NewTimestampBuilder(mem, dt.(*arrow.TimestampType)), c, pieces, n), nil
	}
	parts := make([]arrow.Array, len(pieces))
	for k, pc := range pieces {
		parts[k] = array.NewSlice(pc.e.rec.Column(pc.e.cols[c]), int64(pc.lo), int64(pc.hi))
	}
	defer func() {
		for _, p := range parts {
			p.Release()
		}
	}()
	return array.Concatenate(parts, mem)
}

// valuer is an Arrow array whose values are of type T.
type valuer[T any] interface {
	arrow.Array
	Value(int) T
}

// appender builds an array of values of type T.
type appender[T any] interface {
	array.Builder
	Append(T)
}

// gatherValues gathers column c of pieces (each an array of type A) with b,
// which it releases.
func gatherValues[T any, A valuer[T]](b appender[T], c int, pieces []piece, n int) arrow.Array {
	defer b.Release()
	b.Reserve(n)
	for _, pc := range pieces {
		a := pc.e.rec.Column(pc.e.cols[c]).(A)
		for i := pc.lo; i < pc.hi; i++ {
			if a.IsNull(i) {
				b.AppendNull()
			} else {
				b.Append(a.Value(i))
			}
		}
	}
	return b.NewArray()
}
