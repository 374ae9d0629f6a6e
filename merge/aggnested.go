package merge

import (
	"fmt"
	"slices"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"
	"github.com/apache/arrow-go/v18/arrow/memory"

	"github.com/paimon-go/paimon/types"
)

// Aggregates over ARRAY and MAP fields: collect, merge_map,
// merge_map_with_keytime, nested_update and nested_partial_update. Their
// results are cNested cells: one-element Arrow arrays in Go memory, built
// from picks (an element of some input or earlier result), so that a result
// never points into an input batch.

// pick is one element: row i of arr, or null when arr is nil.
type pick struct {
	arr arrow.Array
	i   int
}

// nestedOf returns the array and row holding the non-null nested cell x.
func (c *valueCol) nestedOf(x *cell) (arrow.Array, int) {
	if x.st == cNested {
		return x.arr, 0
	}
	return c.view(x).arr, int(x.row)
}

// elements returns the element array and range [start, end) of the list or
// map value at i of arr (for a map the elements are its key/value structs).
func elements(arr arrow.Array, i int) (arrow.Array, int, int, error) {
	switch a := arr.(type) {
	case *array.Map:
		s, e := a.ValueOffsets(i)
		return a.ListValues(), int(s), int(e), nil
	case *array.List:
		s, e := a.ValueOffsets(i)
		return a.ListValues(), int(s), int(e), nil
	case *array.LargeList:
		s, e := a.ValueOffsets(i)
		return a.ListValues(), int(s), int(e), nil
	}
	return nil, 0, 0, fmt.Errorf("%w: nested aggregate over Arrow type %s", ErrSchema, arr.DataType())
}

// cellElems returns the elements of the non-null cell x as picks.
func (c *valueCol) cellElems(x *cell) ([]pick, error) {
	arr, row := c.nestedOf(x)
	child, s, e, err := elements(arr, row)
	if err != nil {
		return nil, fmt.Errorf("column %q: %w", c.name, err)
	}
	out := make([]pick, 0, e-s)
	for k := s; k < e; k++ {
		if child.IsNull(k) {
			out = append(out, pick{})
		} else {
			out = append(out, pick{child, k})
		}
	}
	return out, nil
}

// concatPicks copies the picked elements, in order, into a new array of
// type dt in Go memory.
func concatPicks(dt arrow.DataType, picks []pick) (arrow.Array, error) {
	mem := memory.DefaultAllocator
	parts := []arrow.Array{array.MakeArrayOfNull(mem, dt, 0)} // forces a copy even for one part
	for k := 0; k < len(picks); {
		j := k + 1
		if picks[k].arr == nil {
			for j < len(picks) && picks[j].arr == nil {
				j++
			}
			parts = append(parts, array.MakeArrayOfNull(mem, dt, j-k))
		} else {
			for j < len(picks) && picks[j].arr == picks[k].arr && picks[j].i == picks[j-1].i+1 {
				j++
			}
			parts = append(parts, array.NewSlice(picks[k].arr, int64(picks[k].i), int64(picks[j-1].i+1)))
		}
		k = j
	}
	defer func() {
		for _, p := range parts {
			p.Release()
		}
	}()
	out, err := array.Concatenate(parts, mem)
	if err != nil {
		return nil, fmt.Errorf("%w: building %s value: %v", ErrSchema, dt, err)
	}
	return out, nil
}

// nestedCell wraps the elements child into a one-element list or map of type dt.
func nestedCell(dt arrow.DataType, child arrow.Array) cell {
	n := child.Len()
	var offs *memory.Buffer
	if dt.ID() == arrow.LARGE_LIST {
		offs = memory.NewBufferBytes(arrow.Int64Traits.CastToBytes([]int64{0, int64(n)}))
	} else {
		offs = memory.NewBufferBytes(arrow.Int32Traits.CastToBytes([]int32{0, int32(n)}))
	}
	d := array.NewData(dt, 1, []*memory.Buffer{nil, offs}, []arrow.ArrayData{child.Data()}, 0, 0)
	defer d.Release()
	return cell{st: cNested, arr: array.MakeFromData(d)}
}

// elemType returns the Arrow type of the elements of a list or map type.
func elemType(dt arrow.DataType) arrow.DataType {
	switch t := dt.(type) {
	case *arrow.MapType:
		return t.Elem()
	case arrow.ListLikeType:
		return t.Elem()
	}
	return nil
}

// setElems makes acc the list or map of the picked elements.
func (c *valueCol) setElems(acc *cell, picks []pick) error {
	child, err := concatPicks(elemType(c.dt), picks)
	if err != nil {
		return fmt.Errorf("column %q: %w", c.name, err)
	}
	*acc = nestedCell(c.dt, child)
	return nil
}

// lazyAcc keeps an aggregator's accumulator as picks while the records of
// one key are merged, so that a key with n records costs one copy instead of
// n. The accumulator cell is then the marker cell{st: cNested} (no array);
// finish, called when the key's merge ends, materialises it while every
// input batch of the key is still alive.
type lazyAcc struct {
	col   *valueCol
	picks []pick
}

func isLazy(x *cell) bool { return x.st == cNested && x.arr == nil }

// elems returns the elements of the non-null cell x (the lazy accumulator
// or an array value).
func (l *lazyAcc) elems(x *cell) ([]pick, error) {
	if isLazy(x) {
		return slices.Clone(l.picks), nil
	}
	return l.col.cellElems(x)
}

// set makes acc the lazy accumulator holding picks.
func (l *lazyAcc) set(acc *cell, picks []pick) error {
	l.picks = picks
	*acc = cell{st: cNested}
	return nil
}

func (l *lazyAcc) reset() { l.picks = nil }

// finish materialises a lazy accumulator.
func (l *lazyAcc) finish(acc *cell) error {
	if !isLazy(acc) {
		return nil
	}
	picks := l.picks
	l.picks = nil
	return l.col.setElems(acc, picks)
}

// isConstructed reports DataTypeFamily.CONSTRUCTED (ARRAY, MAP, MULTISET, ROW).
func isConstructed(t types.DataType) bool {
	switch t.Kind {
	case types.KindArray, types.KindMap, types.KindMultiset, types.KindRow:
		return true
	}
	return false
}

// isBinaryString reports DataTypeFamily.BINARY_STRING (BINARY, VARBINARY).
func isBinaryString(t types.DataType) bool {
	return t.Kind == types.KindBinary || t.Kind == types.KindVarBinary
}

// sameElem compares two non-null picks of one element type by value.
func sameElem(a, b pick) bool {
	return array.SliceEqual(a.arr, int64(a.i), int64(a.i+1), b.arr, int64(b.i), int64(b.i+1))
}

// collectAgg is FieldCollectAgg.
type collectAgg struct {
	lazyAcc
	col       *valueCol
	elem      types.DataType
	distinct  bool
	equaliser bool // distinct over constructed or binary elements: list with value equality
}

func (a *collectAgg) reset() { a.lazyAcc.reset() }

// aggReversedSelf marks aggregators whose aggReversed is agg (Java overrides it).
func (a *collectAgg) aggReversedSelf() {}

func (a *collectAgg) agg(acc, in *cell) error {
	if acc.st == cNull && in.st == cNull {
		return nil
	}
	if (acc.st == cNull || in.st == cNull) && !a.distinct {
		if acc.st == cNull {
			*acc = *in
		}
		return nil
	}
	var out []pick
	if acc.st != cNull {
		var err error
		if out, err = a.elems(acc); err != nil {
			return err
		}
	}
	var inElems []pick
	if in.st != cNull {
		var err error
		if inElems, err = a.elems(in); err != nil {
			return err
		}
	}
	switch {
	case a.equaliser:
		for _, e := range inElems {
			if !a.containsEq(out, e) {
				out = append(out, e)
			}
		}
	case a.distinct:
		set := newJavaHashTable[pick]()
		for _, e := range append(out, inElems...) {
			k, err := a.key(e)
			if err != nil {
				return err
			}
			if _, ok := set.get(k); !ok {
				set.put(k, e)
			}
		}
		out = set.values()
	default:
		out = append(out, inElems...)
	}
	return a.set(acc, out)
}

func (a *collectAgg) key(e pick) (hashKey, error) {
	if e.arr == nil {
		return hashKey{key: "\x00"}, nil
	}
	k, err := atomicKey(a.elem, e.arr, e.i)
	if err != nil {
		return k, fmt.Errorf("column %q: %w", a.col.name, err)
	}
	return k, nil
}

func (a *collectAgg) containsEq(list []pick, e pick) bool {
	for _, o := range list {
		if (o.arr == nil) == (e.arr == nil) && (e.arr == nil || sameElem(o, e)) {
			return true
		}
	}
	return false
}

// equal is FieldCollectAgg.equals: value equality through the equaliser,
// else Object.equals, which for byte[] and for rows read from files is
// identity, so such elements never match.
func (a *collectAgg) equal(x, y pick) (bool, error) {
	switch {
	case x.arr == nil || y.arr == nil:
		return x.arr == nil && y.arr == nil, nil
	case a.equaliser:
		return sameElem(x, y), nil
	case isConstructed(a.elem) || isBinaryString(a.elem):
		return false, nil
	}
	kx, err := a.key(x)
	if err != nil {
		return false, err
	}
	ky, err := a.key(y)
	return kx.key == ky.key, err
}

func (a *collectAgg) retract(acc, in *cell) error {
	if acc.st == cNull || in.st == cNull {
		return nil
	}
	retracted, err := a.elems(in)
	if err != nil || len(retracted) == 0 {
		return err
	}
	accElems, err := a.elems(acc)
	if err != nil {
		return err
	}
	var out []pick
next:
	for _, cand := range accElems {
		for k, r := range retracted {
			eq, err := a.equal(r, cand)
			if err != nil {
				return err
			}
			if eq {
				retracted = append(retracted[:k], retracted[k+1:]...)
				continue next
			}
		}
		out = append(out, cand)
	}
	return a.set(acc, out)
}

// mapEntries returns the key/value entries of the non-null map cell x and
// their keys (Java hash and equality of the boxed key).
func (l *lazyAcc) mapEntries(keyType types.DataType, x *cell) ([]pick, []hashKey, error) {
	c := l.col
	entries, err := l.elems(x)
	if err != nil {
		return nil, nil, err
	}
	keys := make([]hashKey, len(entries))
	for k, e := range entries {
		st, ok := e.arr.(*array.Struct)
		if !ok || st.NumField() < 2 {
			return nil, nil, fmt.Errorf("%w: column %q: map entries are %s", ErrSchema, c.name, e.arr.DataType())
		}
		if keys[k], err = atomicKey(keyType, st.Field(0), e.i); err != nil {
			return nil, nil, fmt.Errorf("column %q: map key: %w", c.name, err)
		}
	}
	return entries, keys, nil
}

// mergeMapAgg is FieldMergeMapAgg.
type mergeMapAgg struct {
	lazyAcc
	col     *valueCol
	keyType types.DataType
}

func (a *mergeMapAgg) reset() { a.lazyAcc.reset() }

func (a *mergeMapAgg) agg(acc, in *cell) error {
	if acc.st == cNull || in.st == cNull {
		if acc.st == cNull {
			*acc = *in
		}
		return nil
	}
	m := newJavaHashTable[pick]()
	for _, x := range []*cell{acc, in} {
		entries, keys, err := a.mapEntries(a.keyType, x)
		if err != nil {
			return err
		}
		for k, e := range entries {
			m.put(keys[k], e)
		}
	}
	return a.set(acc, m.values())
}

func (a *mergeMapAgg) retract(acc, in *cell) error {
	if acc.st == cNull || in.st == cNull {
		return nil
	}
	_, rkeys, err := a.mapEntries(a.keyType, in)
	if err != nil || len(rkeys) == 0 {
		return err
	}
	gone := make(map[string]bool, len(rkeys))
	for _, k := range rkeys {
		gone[k.key] = true
	}
	entries, keys, err := a.mapEntries(a.keyType, acc)
	if err != nil {
		return err
	}
	m := newJavaHashTable[pick]()
	for k, e := range entries {
		if !gone[keys[k].key] {
			m.put(keys[k], e)
		}
	}
	return a.set(acc, m.values())
}

// mergeMapKeyTimeAgg is FieldMergeMapWithKeyTimeAgg: MAP<K, ROW<..., ts
// STRING>>; an input entry replaces the kept one when its timestamp string
// is greater, a null row deletes the key, a null timestamp is skipped.
type mergeMapKeyTimeAgg struct {
	lazyAcc
	col     *valueCol
	keyType types.DataType
	tsField int
}

func (a *mergeMapKeyTimeAgg) reset() { a.lazyAcc.reset() }

// ts returns the timestamp string of entry e's value row, or nil.
func (a *mergeMapKeyTimeAgg) ts(e pick) (value *array.Struct, ts []byte, ok bool) {
	st := e.arr.(*array.Struct)
	v, _ := st.Field(1).(*array.Struct)
	if v == nil || v.IsNull(e.i) {
		return v, nil, false
	}
	f := v.Field(a.tsField)
	if f.IsNull(e.i) {
		return v, nil, true
	}
	switch s := f.(type) {
	case *array.String:
		return v, []byte(s.Value(e.i)), true
	case *array.LargeString:
		return v, []byte(s.Value(e.i)), true
	}
	return v, nil, true
}

func (a *mergeMapKeyTimeAgg) agg(acc, in *cell) error {
	if acc.st == cNull || in.st == cNull {
		if acc.st == cNull {
			*acc = *in
		}
		return nil
	}
	m := newJavaHashTable[pick]()
	entries, keys, err := a.mapEntries(a.keyType, acc)
	if err != nil {
		return err
	}
	for k, e := range entries {
		m.put(keys[k], e)
	}
	if entries, keys, err = a.mapEntries(a.keyType, in); err != nil {
		return err
	}
	for k, e := range entries {
		_, newTs, present := a.ts(e)
		if !present {
			m.remove(keys[k])
			continue
		}
		if newTs == nil {
			continue
		}
		old, ok := m.get(keys[k])
		if !ok {
			m.put(keys[k], e)
			continue
		}
		_, oldTs, oldPresent := a.ts(old)
		if !oldPresent || oldTs == nil || javaCompareUTF8(newTs, oldTs) > 0 {
			m.put(keys[k], e)
		}
	}
	return a.set(acc, m.values())
}

func (a *mergeMapKeyTimeAgg) retract(acc, in *cell) error {
	return retractUnsupported(a.col, aggMergeMapWithKeyTime)
}

// javaCompareUTF8 is String.compareTo (UTF-16 code units) over UTF-8 bytes.
func javaCompareUTF8(x, y []byte) int {
	a, b := utf16Units(x), utf16Units(y)
	for i := 0; i < len(a) && i < len(b); i++ {
		if a[i] != b[i] {
			return int(a[i]) - int(b[i])
		}
	}
	return len(a) - len(b)
}

func utf16Units(s []byte) []uint16 {
	out := make([]uint16, 0, len(s))
	for _, r := range string(s) {
		if r >= 0x10000 {
			r -= 0x10000
			out = append(out, uint16(0xd800+(r>>10)), uint16(0xdc00+(r&0x3ff)))
		} else {
			out = append(out, uint16(r))
		}
	}
	return out
}

// Nested key null strategies (CoreOptions.NestedKeyNullStrategy).
const (
	nestedNullMerge  = "merge"
	nestedNullIgnore = "ignore"
	nestedNullError  = "error"
)

// nestedRows is the state shared by nested_update and nested_partial_update.
type nestedRows struct {
	lazyAcc
	col          *valueCol
	rowType      types.DataType // the element ROW type
	keyIdx       []int          // nested-key fields
	nullStrategy string
}

// rowsOf returns the non-null rows of the non-null array cell x.
func (n *nestedRows) rowsOf(x *cell) ([]pick, error) {
	elems, err := n.elems(x)
	if err != nil {
		return nil, err
	}
	out := make([]pick, 0, len(elems))
	for _, e := range elems {
		if e.arr != nil {
			if _, ok := e.arr.(*array.Struct); !ok {
				return nil, fmt.Errorf("%w: column %q: nested rows are %s", ErrSchema, n.col.name, e.arr.DataType())
			}
			out = append(out, e)
		}
	}
	return out, nil
}

// key returns the nested key of row e and whether the null strategy keeps it.
func (n *nestedRows) key(e pick) (hashKey, bool, error) {
	k, anyNull, err := rowKey(n.rowType, e.arr.(*array.Struct), e.i, n.keyIdx)
	if err != nil {
		return k, false, fmt.Errorf("column %q: %w", n.col.name, err)
	}
	if !anyNull {
		return k, true, nil
	}
	switch n.nullStrategy {
	case nestedNullIgnore:
		return k, false, nil
	case nestedNullError:
		return k, false, fmt.Errorf("%w: column %q: nested key contains null values; primary key fields must not be null", ErrNull, n.col.name)
	}
	return k, true, nil
}

// nestedUpdateAgg is FieldNestedUpdateAgg.
type nestedUpdateAgg struct {
	nestedRows
	seqIdx     []int // nested-sequence-field fields
	countLimit int
}

func (a *nestedUpdateAgg) reset() { a.lazyAcc.reset() }

func (a *nestedUpdateAgg) agg(acc, in *cell) error {
	if in.st == cNull {
		return nil
	}
	input, err := a.rowsOf(in)
	if err != nil {
		return err
	}
	if len(a.keyIdx) == 0 {
		if acc.st == cNull {
			return a.set(acc, input[:min(len(input), a.countLimit)])
		}
		all, err := a.elems(acc)
		if err != nil {
			return err
		}
		if len(all) >= a.countLimit {
			return nil
		}
		remain := a.countLimit - len(all)
		rows, err := a.rowsOf(acc)
		if err != nil {
			return err
		}
		return a.set(acc, append(rows, input[:min(len(input), remain)]...))
	}
	m := newJavaHashTable[pick]()
	if acc.st != cNull {
		rows, err := a.rowsOf(acc)
		if err != nil {
			return err
		}
		if err := a.addRows(m, rows, false); err != nil {
			return err
		}
	}
	if err := a.addRows(m, input, true); err != nil {
		return err
	}
	return a.set(acc, m.values())
}

func (a *nestedUpdateAgg) addRows(m *javaHashTable[pick], rows []pick, limitNewKeys bool) error {
	for _, r := range rows {
		k, keep, err := a.key(r)
		if err != nil {
			return err
		}
		if !keep {
			continue
		}
		if old, ok := m.get(k); ok {
			if len(a.seqIdx) == 0 || a.compareSeq(r, old) >= 0 {
				m.put(k, r)
			}
		} else if !limitNewKeys || m.size < a.countLimit {
			m.put(k, r)
		}
	}
	return nil
}

// compareSeq orders two rows by their nested sequence fields, ascending,
// nulls first.
func (a *nestedUpdateAgg) compareSeq(x, y pick) int {
	sx, sy := x.arr.(*array.Struct), y.arr.(*array.Struct)
	for _, f := range a.seqIdx {
		t := a.rowType.Fields[f].Type
		vx, errX := types.ArrowValue(t, sx.Field(f), x.i)
		vy, errY := types.ArrowValue(t, sy.Field(f), y.i)
		if errX != nil || errY != nil {
			continue
		}
		if c := types.Compare(t, vx, vy); c != 0 {
			return c
		}
	}
	return 0
}

func (a *nestedUpdateAgg) retract(acc, in *cell) error {
	if acc.st == cNull || in.st == cNull {
		return nil
	}
	rows, err := a.rowsOf(acc)
	if err != nil {
		return err
	}
	gone, err := a.rowsOf(in)
	if err != nil {
		return err
	}
	if len(a.keyIdx) == 0 {
		for _, g := range gone {
			kept := rows[:0:0]
			for _, r := range rows {
				if !sameElem(r, g) {
					kept = append(kept, r)
				}
			}
			rows = kept
		}
		return a.set(acc, rows)
	}
	m := newJavaHashTable[pick]()
	for _, r := range rows {
		k, keep, err := a.key(r)
		if err != nil {
			return err
		}
		if keep {
			m.put(k, r)
		}
	}
	for _, g := range gone {
		k, keep, err := a.key(g)
		if err != nil {
			return err
		}
		if keep {
			m.remove(k)
		}
	}
	return a.set(acc, m.values())
}

// nestedPartialUpdateAgg is FieldNestedPartialUpdateAgg: rows with the same
// nested key are merged field by field, later non-null fields winning.
type nestedPartialUpdateAgg struct{ nestedRows }

func (a *nestedPartialUpdateAgg) reset() { a.lazyAcc.reset() }

func (a *nestedPartialUpdateAgg) agg(acc, in *cell) error {
	if in.st == cNull {
		return nil
	}
	var rows []pick
	if acc.st != cNull {
		var err error
		if rows, err = a.rowsOf(acc); err != nil {
			return err
		}
	}
	input, err := a.rowsOf(in)
	if err != nil {
		return err
	}
	rows = append(rows, input...)
	nf := len(a.rowType.Fields)
	m := newJavaHashTable[[]pick]()
	for _, r := range rows {
		k, keep, err := a.key(r)
		if err != nil {
			return err
		}
		if !keep {
			continue
		}
		fields := m.computeIfAbsent(k, func() []pick { return make([]pick, nf) })
		st := r.arr.(*array.Struct)
		for f := range nf {
			if !st.Field(f).IsNull(r.i) {
				fields[f] = pick{st.Field(f), r.i}
			}
		}
	}
	merged := m.values()
	rt, ok := elemType(a.col.dt).(*arrow.StructType)
	if !ok {
		return fmt.Errorf("%w: column %q: nested rows are %s", ErrSchema, a.col.name, elemType(a.col.dt))
	}
	children := make([]arrow.ArrayData, nf)
	for f := range nf {
		col := make([]pick, len(merged))
		for k, fields := range merged {
			col[k] = fields[f]
		}
		arr, err := concatPicks(rt.Field(f).Type, col)
		if err != nil {
			return fmt.Errorf("column %q: %w", a.col.name, err)
		}
		children[f] = arr.Data()
	}
	d := array.NewData(rt, len(merged), []*memory.Buffer{nil}, children, 0, 0)
	defer d.Release()
	st := array.MakeFromData(d)
	*acc = nestedCell(a.col.dt, st)
	return nil
}

func (a *nestedPartialUpdateAgg) retract(acc, in *cell) error {
	return retractUnsupported(a.col, aggNestedPartialUpdate)
}

// newNestedAgg builds the aggregators of this file and rbm32 for a column
// whose Arrow type was checked against spec by NewConfig's type checks.
func newNestedAgg(spec aggSpec, col *valueCol) (fieldAgg, error) {
	bad := func() error {
		return fmt.Errorf("%w: column %q has Arrow type %s, which does not fit aggregate function %s",
			ErrSchema, col.name, col.dt, spec.name)
	}
	switch spec.name {
	case aggRbm32:
		if col.cls != clsBytes && col.cls != clsLBytes {
			return nil, bad()
		}
		return &rbm32Agg{col: col}, nil
	case aggMergeMap, aggMergeMapWithKeyTime:
		if col.dt.ID() != arrow.MAP {
			return nil, bad()
		}
		if spec.name == aggMergeMap {
			return &mergeMapAgg{lazyAcc: lazyAcc{col: col}, col: col, keyType: *spec.typ.Key}, nil
		}
		return &mergeMapKeyTimeAgg{lazyAcc: lazyAcc{col: col}, col: col, keyType: *spec.typ.Key, tsField: spec.tsField}, nil
	}
	if id := col.dt.ID(); id != arrow.LIST && id != arrow.LARGE_LIST {
		return nil, bad()
	}
	elem := *spec.typ.Elem
	switch spec.name {
	case aggCollect:
		return &collectAgg{lazyAcc: lazyAcc{col: col}, col: col, elem: elem, distinct: spec.distinct,
			equaliser: spec.distinct && (isConstructed(elem) || isBinaryString(elem))}, nil
	case aggNestedUpdate:
		return &nestedUpdateAgg{nestedRows: nestedRows{lazyAcc: lazyAcc{col: col}, col: col, rowType: elem, keyIdx: spec.nestedKey, nullStrategy: spec.nullStrategy},
			seqIdx: spec.nestedSeq, countLimit: spec.countLimit}, nil
	}
	if _, ok := elemType(col.dt).(*arrow.StructType); !ok {
		return nil, bad()
	}
	return &nestedPartialUpdateAgg{nestedRows{lazyAcc: lazyAcc{col: col}, col: col, rowType: elem, keyIdx: spec.nestedKey, nullStrategy: spec.nullStrategy}}, nil
}
