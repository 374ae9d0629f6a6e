package catalog

import (
	"fmt"
	"slices"
	"strings"

	"github.com/paimon-go/paimon/types"
)

// updateNested is SchemaManager.updateNestedColumn: it finds the column
// named by path (top-level name first, then ROW field names; an ARRAY's
// element and a MAP's value take one path step of any name, as Flink's
// "element" and "value") and replaces it, in fields, by update(field,
// depth), where depth is the index in path of the DataField updated (the
// ROW field, or the column holding the ARRAY/MAP whose element or value
// changes). Types holding it are rebuilt, never modified in place.
//
// Errors: ErrColumnNotExist naming the dotted path prefix not found, and
// those of update.
func updateNested(fields []types.DataField, path []string, update func(types.DataField, int) (types.DataField, error)) error {
	last := func(depth int, fs []types.DataField, name string) error {
		for i, f := range fs {
			if f.Name == name {
				nf, err := update(f, depth)
				if err != nil {
					return err
				}
				fs[i] = nf
				return nil
			}
		}
		return fmt.Errorf("%w: %q", ErrColumnNotExist, strings.Join(path, "."))
	}
	var walk func(fs, prev []types.DataField, depth, prevDepth int) error
	walk = func(fs, prev []types.DataField, depth, prevDepth int) error {
		if depth == len(path)-1 {
			return last(depth, fs, path[depth])
		}
		if depth >= len(path) {
			// ARRAY<INT> -> ARRAY<BIGINT> as [v, element]: the element is not
			// a DataField, so the column holding it is updated.
			return last(prevDepth, prev, path[prevDepth])
		}
		for i, f := range fs {
			if f.Name != path[depth] {
				continue
			}
			nested, steps := rowFields(f.Type)
			nested = slices.Clone(nested)
			if err := walk(nested, fs, depth+steps, depth); err != nil {
				return err
			}
			fs[i].Type = wrapRow(fs[i].Type, nested)
			return nil
		}
		return fmt.Errorf("%w: %q", ErrColumnNotExist, strings.Join(path[:depth+1], "."))
	}
	return walk(fields, fields, 0, 0)
}

// rowFields is NestedColumnModifier.extractRowDataFields: the fields of the
// ROW t holds (through ARRAY elements and MAP values) and the path steps to
// reach them.
func rowFields(t types.DataType) ([]types.DataField, int) {
	switch {
	case t.Kind == types.KindRow:
		return t.Fields, 1
	case t.Kind == types.KindArray && t.Elem != nil:
		fs, n := rowFields(*t.Elem)
		return fs, n + 1
	case t.Kind == types.KindMap && t.Value != nil:
		fs, n := rowFields(*t.Value)
		return fs, n + 1
	}
	return nil, 1
}

// wrapRow is NestedColumnModifier.wrapNewRowType: t with the ROW it holds
// given fields.
func wrapRow(t types.DataType, fields []types.DataField) types.DataType {
	switch {
	case t.Kind == types.KindRow:
		t.Fields = fields
	case t.Kind == types.KindArray && t.Elem != nil:
		e := wrapRow(*t.Elem, fields)
		t.Elem = &e
	case t.Kind == types.KindMap && t.Value != nil:
		v := wrapRow(*t.Value, fields)
		t.Value = &v
	}
	return t
}

// rootType is SchemaManager.getRootType: the type at path step maxDepth-1
// of t, which is at step depth, following ARRAY elements and MAP values.
func rootType(t types.DataType, depth, maxDepth int) types.DataType {
	if depth == maxDepth-1 {
		return t
	}
	switch {
	case t.Kind == types.KindArray && t.Elem != nil:
		return rootType(*t.Elem, depth+1, maxDepth)
	case t.Kind == types.KindMap && t.Value != nil:
		return rootType(*t.Value, depth+1, maxDepth)
	}
	return t
}

// withRootType is SchemaManager.getArrayMapTypeWithTargetTypeRoot: t with
// the type rootType finds replaced by target.
func withRootType(t, target types.DataType, depth, maxDepth int) types.DataType {
	if depth == maxDepth-1 {
		return target
	}
	switch {
	case t.Kind == types.KindArray && t.Elem != nil:
		e := withRootType(*t.Elem, target, depth+1, maxDepth)
		t.Elem = &e
		return t
	case t.Kind == types.KindMap && t.Value != nil:
		v := withRootType(*t.Value, target, depth+1, maxDepth)
		t.Value = &v
		return t
	}
	return target
}
