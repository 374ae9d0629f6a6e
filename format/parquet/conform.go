package parquet

import (
	"fmt"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"
	"github.com/apache/arrow-go/v18/arrow/memory"
	"github.com/apache/arrow-go/v18/parquet"
	"github.com/apache/arrow-go/v18/parquet/pqarrow"

	"github.com/paimon-go/paimon/format"
	"github.com/paimon-go/paimon/format/cast"
	"github.com/paimon-go/paimon/types"
)

// conformer turns the Arrow data pqarrow decodes for one file node into the
// Arrow type the caller asked for: it renames and reorders ROW children
// (matched by field id or name), fills children missing from the file with
// nulls, renames list/map children, decodes INT96 leaves itself, and casts
// primitives whose type differs (schema evolution: INT -> BIGINT, ...).
//
// All functions work on arrow.ArrayData and keep the offset and length of
// their input, so a sliced parent stays consistent with its children.
type conformer struct {
	mem      memory.Allocator
	fileName string
	// included reports whether a leaf column index was read by pqarrow.
	included map[int]bool
	// int96 holds, per INT96 leaf column index, the slots of the batch
	// being built (see int96Stream.take).
	int96 map[int]int96Slots
}

type int96Slots struct {
	vals  []parquet.Int96
	valid []bool
}

func (c *conformer) mismatch(path string, got arrow.DataType, want types.DataType) error {
	return fmt.Errorf("%w: %s: column %s: file type %s cannot be read as %s",
		format.ErrSchemaMismatch, c.fileName, path, got, want)
}

// hasIncludedLeaf reports whether any leaf under sf was read.
func (c *conformer) hasIncludedLeaf(sf *pqarrow.SchemaField) bool {
	if len(sf.Children) == 0 {
		return c.included[sf.ColIndex]
	}
	for i := range sf.Children {
		if c.hasIncludedLeaf(&sf.Children[i]) {
			return true
		}
	}
	return false
}

// nullData returns all-null data of type t and length n.
func (c *conformer) nullData(t arrow.DataType, n int) arrow.ArrayData {
	arr := array.MakeArrayOfNull(c.mem, t, n)
	d := arr.Data()
	d.Retain()
	arr.Release()
	return d
}

// conform converts data (decoded by pqarrow for the file node sf) to wt, the
// Arrow type of want. The result is owned by the caller.
func (c *conformer) conform(data arrow.ArrayData, sf *pqarrow.SchemaField, want types.DataType, wt arrow.DataType, path string) (arrow.ArrayData, error) {
	switch want.Kind {
	case types.KindRow, types.KindVariant:
		return c.conformStruct(data, sf, want, wt, path)
	case types.KindArray:
		lt, ok := wt.(*arrow.ListType)
		if data.DataType().ID() != arrow.LIST || len(sf.Children) != 1 || len(data.Children()) != 1 || !ok {
			return nil, c.mismatch(path, data.DataType(), want)
		}
		elem, err := c.conform(data.Children()[0], &sf.Children[0], *want.Elem, lt.Elem(), path+".element")
		if err != nil {
			return nil, err
		}
		defer elem.Release()
		return array.NewData(wt, data.Len(), data.Buffers()[:2], []arrow.ArrayData{elem}, data.NullN(), data.Offset()), nil
	case types.KindMap, types.KindMultiset:
		mt, ok := wt.(*arrow.MapType)
		if data.DataType().ID() != arrow.MAP || len(sf.Children) != 1 || len(sf.Children[0].Children) != 2 ||
			len(data.Children()) != 1 || len(data.Children()[0].Children()) != 2 || !ok {
			return nil, c.mismatch(path, data.DataType(), want)
		}
		kt, vt := want.Elem, &types.DataType{Kind: types.KindInt}
		if want.Kind == types.KindMap {
			kt, vt = want.Key, want.Value
		}
		entries, kv := data.Children()[0], &sf.Children[0]
		key, err := c.conform(entries.Children()[0], &kv.Children[0], *kt, mt.KeyType(), path+".key")
		if err != nil {
			return nil, err
		}
		defer key.Release()
		val, err := c.conform(entries.Children()[1], &kv.Children[1], *vt, mt.ItemType(), path+".value")
		if err != nil {
			return nil, err
		}
		defer val.Release()
		ent := array.NewData(mt.Elem(), entries.Len(), entries.Buffers()[:1], []arrow.ArrayData{key, val}, entries.NullN(), entries.Offset())
		defer ent.Release()
		return array.NewData(wt, data.Len(), data.Buffers()[:2], []arrow.ArrayData{ent}, data.NullN(), data.Offset()), nil
	}
	if len(sf.Children) != 0 {
		return nil, c.mismatch(path, data.DataType(), want)
	}
	if slots, ok := c.int96[sf.ColIndex]; ok {
		return c.conformInt96(data, slots, want, wt, path)
	}
	return c.cast(data, want, wt, path)
}

func (c *conformer) conformStruct(data arrow.ArrayData, sf *pqarrow.SchemaField, want types.DataType, wt arrow.DataType, path string) (arrow.ArrayData, error) {
	st, ok := wt.(*arrow.StructType)
	if data.DataType().ID() != arrow.STRUCT || !ok {
		return nil, c.mismatch(path, data.DataType(), want)
	}
	// pqarrow drops children without read leaves; the remaining ones keep
	// the file order.
	var kids []*pqarrow.SchemaField
	for i := range sf.Children {
		if c.hasIncludedLeaf(&sf.Children[i]) {
			kids = append(kids, &sf.Children[i])
		}
	}
	if len(kids) != len(data.Children()) {
		return nil, fmt.Errorf("%w: %s: column %s: %d decoded children for %d read", format.ErrCorrupt, c.fileName, path, len(data.Children()), len(kids))
	}
	wantFields := want.Fields
	if want.Kind == types.KindVariant {
		wantFields = variantFields()
	}
	m := newMatcher(kids)
	children := make([]arrow.ArrayData, len(wantFields))
	defer func() {
		for _, ch := range children {
			if ch != nil {
				ch.Release()
			}
		}
	}()
	for i, wf := range wantFields {
		j := m.find(wf)
		if j < 0 {
			children[i] = c.nullData(st.Field(i).Type, data.Offset()+data.Len())
			continue
		}
		ch, err := c.conform(data.Children()[j], kids[j], wf.Type, st.Field(i).Type, path+"."+wf.Name)
		if err != nil {
			return nil, err
		}
		children[i] = ch
	}
	return array.NewData(wt, data.Len(), data.Buffers()[:1], children, data.NullN(), data.Offset()), nil
}

// variantFields are the children of Paimon's VARIANT group in Parquet
// (ParquetSchemaConverter: value id 0, metadata id 1, both BINARY NOT NULL).
func variantFields() []types.DataField {
	return []types.DataField{
		{ID: 0, Name: "value", Type: types.DataType{Kind: types.KindVarBinary, Length: types.MaxLength}},
		{ID: 1, Name: "metadata", Type: types.DataType{Kind: types.KindVarBinary, Length: types.MaxLength}},
	}
}

func (c *conformer) conformInt96(data arrow.ArrayData, slots int96Slots, want types.DataType, wt arrow.DataType, path string) (arrow.ArrayData, error) {
	tt, ok := wt.(*arrow.TimestampType)
	if !ok {
		return nil, c.mismatch(path, arrow.FixedWidthTypes.Timestamp_ns, want)
	}
	if data.Offset() != 0 || data.Len() != len(slots.vals) {
		return nil, fmt.Errorf("%w: %s: INT96 column %s: %d slots decoded, %d expected", format.ErrCorrupt, c.fileName, path, len(slots.vals), data.Len())
	}
	d, err := buildTimestamps(c.mem, tt, slots.vals, slots.valid, path)
	if err != nil {
		return nil, fmt.Errorf("%s: %w", c.fileName, err)
	}
	return d, nil
}

// cast converts a primitive column to wt: as is when the types are equal,
// by relabelling when only the time zone label or string-ness differ,
// otherwise with cast.Array (Java's schema-evolution casts; top-level
// columns reach here in their file type, see reader.ReadDataFile, so this
// casts leaves nested in ROW/ARRAY/MAP).
func (c *conformer) cast(data arrow.ArrayData, want types.DataType, wt arrow.DataType, path string) (arrow.ArrayData, error) {
	dt := data.DataType()
	if arrow.TypeEqual(dt, wt) || sameLayout(dt, wt) {
		return array.NewData(wt, data.Len(), data.Buffers(), data.Children(), data.NullN(), data.Offset()), nil
	}
	from, ok := paimonType(dt)
	if !ok || !cast.Supported(from, want) {
		return nil, c.mismatch(path, dt, want)
	}
	arr := array.MakeFromData(data)
	defer arr.Release()
	out, err := cast.Array(c.mem, arr, from, want)
	if err != nil {
		return nil, fmt.Errorf("%s: column %s: %w", c.fileName, path, err)
	}
	d := out.Data()
	d.Retain()
	out.Release()
	return d, nil
}

// sameLayout reports whether data of type a can be relabelled as b without
// touching buffers: timestamps of the same unit (time zone label only),
// binary as string and back.
func sameLayout(a, b arrow.DataType) bool {
	switch a := a.(type) {
	case *arrow.TimestampType:
		bt, ok := b.(*arrow.TimestampType)
		return ok && a.Unit == bt.Unit
	case *arrow.BinaryType, *arrow.StringType:
		return b.ID() == arrow.BINARY || b.ID() == arrow.STRING
	}
	return false
}

// matcher finds the file child of a group that corresponds to a wanted
// field: by Parquet field id when the file's children carry ids, else by
// name (files of old writers).
type matcher struct {
	useIDs bool
	byID   map[int]int
	byName map[string]int
}

func newMatcher(kids []*pqarrow.SchemaField) matcher {
	m := matcher{byID: map[int]int{}, byName: map[string]int{}}
	for i, k := range kids {
		if id := fieldID(k.Field); id >= 0 {
			m.useIDs = true
			m.byID[id] = i
		}
		m.byName[k.Field.Name] = i
	}
	return m
}

func (m matcher) find(f types.DataField) int {
	var (
		j  int
		ok bool
	)
	if m.useIDs {
		j, ok = m.byID[f.ID]
	} else {
		j, ok = m.byName[f.Name]
	}
	if !ok {
		return -1
	}
	return j
}
