package cast

import (
	"fmt"
	"sort"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"
	"github.com/apache/arrow-go/v18/arrow/bitutil"
	"github.com/apache/arrow-go/v18/arrow/memory"

	"github.com/paimon-go/paimon/format"
	"github.com/paimon-go/paimon/types"
)

// isNested reports whether k is a ROW, ARRAY, MAP or MULTISET.
func isNested(k types.Kind) bool {
	return k == types.KindRow || k == types.KindArray || k == types.KindMap || k == types.KindMultiset
}

// nestedSupported is SchemaEvolutionUtil.createCastExecutor for nested
// types: ROW to ROW field by field id (fields missing from the source are
// null), ARRAY to ARRAY by element, MAP to MAP by value with equal keys;
// MULTISET only when equal.
func nestedSupported(from, to types.DataType) bool {
	switch {
	case from.Kind == types.KindRow && to.Kind == types.KindRow:
		for _, tf := range to.Fields {
			if _, ff, ok := types.FieldByID(from.Fields, tf.ID); ok && !Supported(ff.Type, tf.Type) {
				return false
			}
		}
		return true
	case from.Kind == types.KindArray && to.Kind == types.KindArray:
		return from.Elem != nil && to.Elem != nil && Supported(*from.Elem, *to.Elem)
	case from.Kind == types.KindMap && to.Kind == types.KindMap:
		return from.Key != nil && to.Key != nil && from.Value != nil && to.Value != nil &&
			Identical(*from.Key, *to.Key) && Supported(*from.Value, *to.Value)
	}
	return false
}

// castNested casts a ROW, ARRAY or MAP array (nestedSupported(from, to)).
func castNested(mem memory.Allocator, arr arrow.Array, from, to types.DataType) (arrow.Array, error) {
	n := arr.Len()
	at := types.ToArrow(to)
	if n == 0 {
		return array.MakeArrayOfNull(mem, at, 0), nil
	}
	valid, nulls := validity(mem, arr)
	if valid != nil {
		defer valid.Release()
	}
	switch from.Kind {
	case types.KindRow:
		sa, ok := arr.(*array.Struct)
		if !ok {
			return nil, mismatch(arr, from, to)
		}
		children := make([]arrow.ArrayData, len(to.Fields))
		defer releaseAll(children)
		for j, tf := range to.Fields {
			i, ff, ok := types.FieldByID(from.Fields, tf.ID)
			var c arrow.Array
			if !ok || i >= sa.NumField() {
				c = array.MakeArrayOfNull(mem, types.ToArrow(tf.Type), n)
			} else {
				var err error
				if c, err = Array(mem, sa.Field(i), ff.Type, tf.Type); err != nil {
					return nil, nest(err, "field "+tf.Name, nil)
				}
			}
			children[j] = c.Data()
			children[j].Retain()
			c.Release()
		}
		return fromData(array.NewData(at, n, []*memory.Buffer{valid}, children, nulls, 0)), nil
	case types.KindArray:
		la, ok := arr.(*array.List)
		if !ok {
			return nil, mismatch(arr, from, to)
		}
		offs, lo, hi := rebase(mem, la.Offsets(), la.Data().Offset(), n)
		defer offs.Release()
		vals := array.NewSlice(la.ListValues(), lo, hi)
		defer vals.Release()
		c, err := Array(mem, vals, *from.Elem, *to.Elem)
		if err != nil {
			return nil, nest(err, "element", offs)
		}
		defer c.Release()
		return fromData(array.NewData(at, n, []*memory.Buffer{valid, offs}, []arrow.ArrayData{c.Data()}, nulls, 0)), nil
	case types.KindMap:
		ma, ok := arr.(*array.Map)
		mt, ok2 := at.(*arrow.MapType)
		if !ok || !ok2 {
			return nil, mismatch(arr, from, to)
		}
		offs, lo, hi := rebase(mem, ma.Offsets(), ma.Data().Offset(), n)
		defer offs.Release()
		keys := array.NewSlice(ma.Keys(), lo, hi)
		defer keys.Release()
		items := array.NewSlice(ma.Items(), lo, hi)
		defer items.Release()
		c, err := Array(mem, items, *from.Value, *to.Value)
		if err != nil {
			return nil, nest(err, "value", offs)
		}
		defer c.Release()
		keyData := array.NewData(mt.KeyType(), keys.Len(), keys.Data().Buffers(), keys.Data().Children(), keys.NullN(), keys.Data().Offset())
		defer keyData.Release()
		entries := array.NewData(mt.Elem(), int(hi-lo), []*memory.Buffer{nil}, []arrow.ArrayData{keyData, c.Data()}, 0, 0)
		defer entries.Release()
		return fromData(array.NewData(at, n, []*memory.Buffer{valid, offs}, []arrow.ArrayData{entries}, nulls, 0)), nil
	}
	return nil, mismatch(arr, from, to)
}

// nest returns the error err of casting a child (a ROW field, list
// elements or map values) as the error of its parent: a *ValueError is
// returned itself with step prepended to its Path and, when offs (the
// rebased list offsets) is set, its Index turned from the position of an
// element among the child values into that of the list holding it; other
// errors are wrapped with step.
func nest(err error, step string, offs *memory.Buffer) error {
	ve, ok := err.(*ValueError)
	if !ok {
		return fmt.Errorf("%s: %w", step, err)
	}
	if ve.Path == "" {
		ve.Path = step
	} else {
		ve.Path = step + "." + ve.Path
	}
	if offs != nil {
		o := arrow.Int32Traits.CastFromBytes(offs.Bytes())
		// the list whose range holds the element (empty lists hold none)
		ve.Index = sort.Search(len(o)-1, func(k int) bool { return int(o[k+1]) > ve.Index })
	}
	return ve
}

// fromData makes an array owning d (the caller's reference moves to it).
func fromData(d arrow.ArrayData) arrow.Array {
	a := array.MakeFromData(d)
	d.Release()
	return a
}

func mismatch(arr arrow.Array, from, to types.DataType) error {
	return fmt.Errorf("%w: %w: %s (Arrow %s) to %s", ErrUnsupported, format.ErrSchemaMismatch, from, arr.DataType(), to)
}

func releaseAll(ds []arrow.ArrayData) {
	for _, d := range ds {
		if d != nil {
			d.Release()
		}
	}
}

// validity returns a fresh validity bitmap of arr starting at bit 0 (nil
// when arr has no nulls) and its null count.
func validity(mem memory.Allocator, arr arrow.Array) (*memory.Buffer, int) {
	if arr.NullN() == 0 {
		return nil, 0
	}
	n := arr.Len()
	buf := memory.NewResizableBuffer(mem)
	buf.Resize(int(bitutil.BytesForBits(int64(n))))
	bits := buf.Bytes()
	for i := range bits {
		bits[i] = 0
	}
	for i := 0; i < n; i++ {
		if arr.IsValid(i) {
			bitutil.SetBit(bits, i)
		}
	}
	return buf, arr.NullN()
}

// rebase returns the offsets of the n lists from position off of a list
// array's offsets buffer (all of it), shifted to start at 0, and the range
// [lo, hi) of the child values they cover.
func rebase(mem memory.Allocator, all []int32, off, n int) (*memory.Buffer, int64, int64) {
	offsets := all[off : off+n+1]
	buf := memory.NewResizableBuffer(mem)
	buf.Resize(len(offsets) * arrow.Int32SizeBytes)
	out := arrow.Int32Traits.CastFromBytes(buf.Bytes())
	lo := offsets[0]
	for i, o := range offsets {
		out[i] = o - lo
	}
	return buf, int64(lo), int64(offsets[len(offsets)-1])
}
