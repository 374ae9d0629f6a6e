package types

import (
	"bytes"
	"cmp"
	"errors"
	"fmt"
	"math"
	"math/big"
	"strings"
)

// ErrValue is returned (wrapped) by CheckValue when a Go value does not have
// the representation documented for its type's kind.
var ErrValue = errors.New("types: value does not match its data type")

// Compare orders two Go values of type t and returns -1, 0 or +1, following
// Java Paimon's ordering (InternalRowUtils.compare / the generated record
// comparators):
//   - nil (SQL NULL) sorts before every non-null value; two nils are equal;
//   - BOOLEAN: false < true;
//   - integers, DATE, TIME: numerically;
//   - FLOAT, DOUBLE: as Java Float.compare/Double.compare: -0.0 < +0.0 and NaN
//     is greater than every other value and equal to itself;
//   - CHAR/VARCHAR: unsigned byte-wise over UTF-8 (BinaryString.compareTo);
//   - BINARY/VARBINARY, BLOB: unsigned lexicographic, shorter prefix first;
//   - DECIMAL: numerically, scales may differ;
//   - TIMESTAMP/LTZ: by Millis, then NanoOfMilli;
//   - ARRAY/MULTISET-as-list and ROW: element-wise with the rules above, then
//     by length; MAP/MULTISET (Map values): entry-wise (key, then value) in
//     stored order, then by size.
//
// Integer kinds accept any Go integer type and floats any Go float type, so
// literals of a neighbouring width compare correctly. A value whose Go type
// does not fit the kind (see CheckValue) sorts after all well-typed values;
// two such values compare equal. Compare never panics.
func Compare(t DataType, a, b any) int {
	if a == nil || b == nil {
		switch {
		case a == nil && b == nil:
			return 0
		case a == nil:
			return -1
		}
		return 1
	}
	c, okA, okB := compareTyped(t, a, b)
	switch {
	case okA && okB:
		return c
	case okA:
		return -1
	case okB:
		return 1
	}
	return 0
}

func boolOrder(a, b bool) int {
	switch {
	case a == b:
		return 0
	case !a:
		return -1
	}
	return 1
}

func compareTyped(t DataType, a, b any) (int, bool, bool) {
	switch t.Kind {
	case KindBoolean:
		x, okA := a.(bool)
		y, okB := b.(bool)
		return boolOrder(x, y), okA, okB
	case KindTinyInt, KindSmallInt, KindInt, KindBigInt, KindDate, KindTime:
		x, okA := AsInt64(a)
		y, okB := AsInt64(b)
		return cmp.Compare(x, y), okA, okB
	case KindFloat, KindDouble:
		x, okA := AsFloat64(a)
		y, okB := AsFloat64(b)
		return CompareFloat(x, y), okA, okB
	case KindChar, KindVarChar:
		x, okA := asStringBytes(a)
		y, okB := asStringBytes(b)
		return strings.Compare(x, y), okA, okB
	case KindBinary, KindVarBinary, KindBlob, KindVariant:
		x, okA := a.([]byte)
		y, okB := b.([]byte)
		return bytes.Compare(x, y), okA, okB
	case KindDecimal:
		x, okA := asDecimal(a)
		y, okB := asDecimal(b)
		if !okA || !okB {
			return 0, okA, okB
		}
		return CompareDecimal(x, y), true, true
	case KindTimestamp, KindLocalZonedTimestamp:
		x, okA := a.(Timestamp)
		y, okB := b.(Timestamp)
		return CompareTimestamp(x, y), okA, okB
	case KindArray, KindMultiset:
		if t.Kind == KindMultiset {
			if x, okA := a.(Map); okA {
				y, okB := b.(Map)
				if !okB {
					return 0, true, false
				}
				if t.Elem == nil {
					return 0, false, false
				}
				return compareMap(*t.Elem, Int(), x, y), true, true
			}
		}
		x, okA := a.([]any)
		y, okB := b.([]any)
		if !okA || !okB || t.Elem == nil {
			return 0, okA && t.Elem != nil, okB && t.Elem != nil
		}
		for i := 0; i < len(x) && i < len(y); i++ {
			if c := Compare(*t.Elem, x[i], y[i]); c != 0 {
				return c, true, true
			}
		}
		return cmp.Compare(len(x), len(y)), true, true
	case KindMap:
		x, okA := a.(Map)
		y, okB := b.(Map)
		if !okA || !okB || t.Key == nil || t.Value == nil {
			return 0, okA && t.Key != nil && t.Value != nil, okB && t.Key != nil && t.Value != nil
		}
		return compareMap(*t.Key, *t.Value, x, y), true, true
	case KindRow:
		x, okA := a.([]any)
		y, okB := b.([]any)
		if !okA || !okB {
			return 0, okA, okB
		}
		for i := 0; i < len(t.Fields) && i < len(x) && i < len(y); i++ {
			if c := Compare(t.Fields[i].Type, x[i], y[i]); c != 0 {
				return c, true, true
			}
		}
		return cmp.Compare(len(x), len(y)), true, true
	}
	return 0, false, false
}

func compareMap(kt, vt DataType, x, y Map) int {
	n := min(len(x.Keys), len(y.Keys), len(x.Values), len(y.Values))
	for i := 0; i < n; i++ {
		if c := Compare(kt, x.Keys[i], y.Keys[i]); c != 0 {
			return c
		}
		if c := Compare(vt, x.Values[i], y.Values[i]); c != 0 {
			return c
		}
	}
	return cmp.Compare(len(x.Keys), len(y.Keys))
}

// CompareFloat orders doubles like Java Double.compare: NaN is the largest
// value and equal to itself, and -0.0 < +0.0.
func CompareFloat(x, y float64) int {
	switch {
	case x < y:
		return -1
	case x > y:
		return 1
	}
	xn, yn := math.IsNaN(x), math.IsNaN(y)
	switch {
	case xn && yn:
		return 0
	case xn:
		return 1
	case yn:
		return -1
	}
	// equal numerically; distinguish the zeros
	return boolOrder(!math.Signbit(x), !math.Signbit(y))
}

// CompareTimestamp orders timestamps by Millis, then NanoOfMilli.
func CompareTimestamp(x, y Timestamp) int {
	if c := cmp.Compare(x.Millis, y.Millis); c != 0 {
		return c
	}
	return cmp.Compare(x.NanoOfMilli, y.NanoOfMilli)
}

// CompareDecimal orders decimals numerically (x.Unscaled·10^-x.Scale against
// y.Unscaled·10^-y.Scale); a nil Unscaled counts as zero. Precision is
// ignored.
func CompareDecimal(x, y Decimal) int {
	xu, yu := x.Unscaled, y.Unscaled
	if xu == nil {
		xu = new(big.Int)
	}
	if yu == nil {
		yu = new(big.Int)
	}
	if x.Scale == y.Scale {
		return xu.Cmp(yu)
	}
	if x.Scale < y.Scale {
		return scaleUp(xu, y.Scale-x.Scale).Cmp(yu)
	}
	return xu.Cmp(scaleUp(yu, x.Scale-y.Scale))
}

func scaleUp(v *big.Int, by int) *big.Int {
	if by <= 0 {
		return v
	}
	m := new(big.Int).Exp(big.NewInt(10), big.NewInt(int64(by)), nil)
	return m.Mul(m, v)
}

func asDecimal(v any) (Decimal, bool) {
	switch d := v.(type) {
	case Decimal:
		return d, true
	case *Decimal:
		if d == nil {
			return Decimal{}, false
		}
		return *d, true
	}
	return Decimal{}, false
}

func asStringBytes(v any) (string, bool) {
	switch s := v.(type) {
	case string:
		return s, true
	case []byte:
		return string(s), true
	}
	return "", false
}

// AsInt64 converts any Go integer value to int64; ok is false for other
// types and for uint64 values above math.MaxInt64.
func AsInt64(v any) (int64, bool) {
	switch x := v.(type) {
	case int8:
		return int64(x), true
	case int16:
		return int64(x), true
	case int32:
		return int64(x), true
	case int64:
		return x, true
	case int:
		return int64(x), true
	case uint8:
		return int64(x), true
	case uint16:
		return int64(x), true
	case uint32:
		return int64(x), true
	case uint:
		if uint64(x) > math.MaxInt64 {
			return 0, false
		}
		return int64(x), true
	case uint64:
		if x > math.MaxInt64 {
			return 0, false
		}
		return int64(x), true
	}
	return 0, false
}

// AsFloat64 converts a float32 or float64 to float64; ok is false otherwise.
func AsFloat64(v any) (float64, bool) {
	switch x := v.(type) {
	case float32:
		return float64(x), true
	case float64:
		return x, true
	}
	return 0, false
}

// CheckValue reports whether v has exactly the Go representation documented
// in the package comment for t (nil is accepted only when t is nullable),
// recursing into ARRAY, MAP, MULTISET and ROW values. Errors wrap ErrValue.
func CheckValue(t DataType, v any) error {
	if v == nil {
		if !t.Nullable {
			return fmt.Errorf("%w: NULL for %s", ErrValue, t)
		}
		return nil
	}
	ok := false
	switch t.Kind {
	case KindBoolean:
		_, ok = v.(bool)
	case KindTinyInt:
		_, ok = v.(int8)
	case KindSmallInt:
		_, ok = v.(int16)
	case KindInt, KindDate, KindTime:
		_, ok = v.(int32)
	case KindBigInt:
		_, ok = v.(int64)
	case KindFloat:
		_, ok = v.(float32)
	case KindDouble:
		_, ok = v.(float64)
	case KindChar, KindVarChar:
		_, ok = v.(string)
	case KindBinary, KindVarBinary, KindBlob, KindVariant:
		_, ok = v.([]byte)
	case KindDecimal:
		var d Decimal
		d, ok = v.(Decimal)
		ok = ok && d.Unscaled != nil
	case KindTimestamp, KindLocalZonedTimestamp:
		var ts Timestamp
		ts, ok = v.(Timestamp)
		ok = ok && ts.NanoOfMilli >= 0 && ts.NanoOfMilli < 1_000_000
	case KindArray:
		var xs []any
		if xs, ok = v.([]any); ok && t.Elem != nil {
			for i, x := range xs {
				if err := CheckValue(*t.Elem, x); err != nil {
					return fmt.Errorf("element %d: %w", i, err)
				}
			}
		}
	case KindMultiset, KindMap:
		var m Map
		if m, ok = v.(Map); ok {
			kt, vt := t.Key, t.Value
			if t.Kind == KindMultiset {
				it := Int().NotNull()
				kt, vt = t.Elem, &it
			}
			if kt == nil || vt == nil || len(m.Keys) != len(m.Values) {
				return fmt.Errorf("%w: malformed %s value", ErrValue, t.Kind)
			}
			for i := range m.Keys {
				if err := CheckValue(*kt, m.Keys[i]); err != nil {
					return fmt.Errorf("key %d: %w", i, err)
				}
				if err := CheckValue(*vt, m.Values[i]); err != nil {
					return fmt.Errorf("value %d: %w", i, err)
				}
			}
		}
	case KindRow:
		var xs []any
		if xs, ok = v.([]any); ok {
			if len(xs) != len(t.Fields) {
				return fmt.Errorf("%w: ROW value has %d fields, type has %d", ErrValue, len(xs), len(t.Fields))
			}
			for i, x := range xs {
				if err := CheckValue(t.Fields[i].Type, x); err != nil {
					return fmt.Errorf("field %q: %w", t.Fields[i].Name, err)
				}
			}
		}
	}
	if !ok {
		return fmt.Errorf("%w: %T for %s", ErrValue, v, t)
	}
	return nil
}
