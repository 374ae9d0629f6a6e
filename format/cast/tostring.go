package cast

import (
	"fmt"
	"strings"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"
	"github.com/apache/arrow-go/v18/arrow/memory"

	"github.com/paimon-go/paimon/format"
	"github.com/paimon-go/paimon/types"
)

// isConstructedToString reports whether from → to is one of Java's
// ArrayToStringCastRule, MapToStringCastRule or RowToStringCastRule (an
// ARRAY, MAP or ROW to any CHAR/VARCHAR).
func isConstructedToString(from, to types.DataType) bool {
	return isString(to.Kind) && (from.Kind == types.KindArray || from.Kind == types.KindMap || from.Kind == types.KindRow)
}

// constructedToString casts an ARRAY, MAP or ROW array to strings as
// Java's ArrayToStringCastRule ("[1, null, 3]"), MapToStringCastRule
// ("{k1 -> v1, k2 -> null}") and RowToStringCastRule ("{1, a, null}") do:
// elements, keys, values and fields are rendered by Java's cast of their own
// type to STRING (nested ones recursively, strings unquoted, BINARY as its
// UTF-8 text, TIMESTAMP WITH LOCAL TIME ZONE in the default zone), a null
// one as "null", separated by ", ". The result is neither cut to a VARCHAR
// length nor padded to a CHAR length: Java's rules ignore the target's
// length.
func constructedToString(mem memory.Allocator, arr arrow.Array, from, to types.DataType) (arrow.Array, error) {
	b := array.NewStringBuilder(mem)
	defer b.Release()
	n := arr.Len()
	b.Reserve(n)
	var sb strings.Builder
	for i := 0; i < n; i++ {
		if arr.IsNull(i) {
			b.AppendNull()
			continue
		}
		sb.Reset()
		if err := render(&sb, from, arr, i); err != nil {
			return nil, valueError(i, from, to, "", err)
		}
		b.Append(sb.String())
	}
	return b.NewArray(), nil
}

// render appends Java's string form of the non-null value i of a (Paimon
// type t) to sb.
func render(sb *strings.Builder, t types.DataType, a arrow.Array, i int) error {
	elem := func(t types.DataType, a arrow.Array, j int) error {
		if a.IsNull(j) {
			sb.WriteString("null")
			return nil
		}
		return render(sb, t, a, j)
	}
	switch t.Kind {
	case types.KindArray:
		la, ok := a.(*array.List)
		if !ok || t.Elem == nil {
			return mismatch(a, t, types.String())
		}
		lo, hi := la.ValueOffsets(i)
		sb.WriteByte('[')
		for j := lo; j < hi; j++ {
			if j > lo {
				sb.WriteString(", ")
			}
			if err := elem(*t.Elem, la.ListValues(), int(j)); err != nil {
				return err
			}
		}
		sb.WriteByte(']')
		return nil
	case types.KindMap:
		ma, ok := a.(*array.Map)
		if !ok || t.Key == nil || t.Value == nil {
			return mismatch(a, t, types.String())
		}
		lo, hi := ma.ValueOffsets(i)
		sb.WriteByte('{')
		for j := lo; j < hi; j++ {
			if j > lo {
				sb.WriteString(", ")
			}
			if err := elem(*t.Key, ma.Keys(), int(j)); err != nil {
				return err
			}
			sb.WriteString(" -> ")
			if err := elem(*t.Value, ma.Items(), int(j)); err != nil {
				return err
			}
		}
		sb.WriteByte('}')
		return nil
	case types.KindRow:
		sa, ok := a.(*array.Struct)
		if !ok || sa.NumField() != len(t.Fields) {
			return mismatch(a, t, types.String())
		}
		sb.WriteByte('{')
		for k, f := range t.Fields {
			if k > 0 {
				sb.WriteString(", ")
			}
			if err := elem(f.Type, sa.Field(k), i); err != nil {
				return err
			}
		}
		sb.WriteByte('}')
		return nil
	}
	// An atomic value: Java's CastExecutors.resolve(t, STRING). A type
	// without that rule (VARIANT, BLOB, MULTISET) fails in Java too (a
	// NullPointerException on the missing executor).
	c := resolve(t, types.String())
	if c == nil {
		return fmt.Errorf("%w: %w: %s has no cast to STRING", ErrUnsupported, format.ErrSchemaMismatch, t)
	}
	v, err := types.ArrowView(t, a, i)
	if err != nil {
		return fmt.Errorf("%w: %w: %v", ErrUnsupported, format.ErrSchemaMismatch, err)
	}
	s, err := c(v)
	if err != nil {
		return err
	}
	sb.WriteString(s.(string))
	return nil
}
