// Package cast converts a column of one Paimon type to another, value for
// value as Java Paimon does when it reads a data file written before an
// ALTER TABLE changed the column's type (org.apache.paimon.casting:
// CastExecutors and its *CastRule classes, applied by CastFieldGetter /
// CastedRow in SchemaEvolutionUtil's index-cast mapping).
//
// It is the one implementation of schema-evolution casts: reader.ReadDataFile
// asks every format reader (Parquet, ORC, Avro) for a changed top-level
// column in its file type and calls Array; format/parquet calls Array for
// primitive leaves nested in ROW/ARRAY/MAP. A format reader that needs a cast
// itself should call Array(mem, arr, fileType, tableType) too.
//
// Semantics follow Java exactly, including its lossy behaviour:
//   - narrowing integer casts wrap (BIGINT 2^32+1 as INT is 1), floating to
//     integer truncates and saturates (NaN is 0), DECIMAL to integer
//     truncates toward zero and keeps the low bits;
//   - a DECIMAL result is rounded HALF_UP to the target scale; one that needs
//     more digits than the target precision is an error (ErrInvalid): Java's
//     cast returns null for a slot its row reports non-null, and its readers
//     fail on it; FLOAT/DOUBLE go to DECIMAL through Double.toString;
//   - STRING to a number, BOOLEAN, DECIMAL, DATE, TIME or TIMESTAMP parses as
//     Java does and a string Java cannot parse is an error (ErrInvalid), as
//     is NaN or Infinity to DECIMAL;
//   - to STRING, values are rendered as Java's toString / DateTimeUtils
//     formats (row.CastString), then cut to a CHAR/VARCHAR length (CHAR is
//     padded with spaces); BINARY(n) is zero-padded or cut, VARBINARY(n) cut;
//   - TIMESTAMP WITH LOCAL TIME ZONE conversions use time.Local (Java's
//     TimeZone.getDefault());
//   - ARRAY, MAP and ROW to CHAR/VARCHAR render Java's string form,
//     "[1, null]", "{k -> v}", "{1, a}" (Array/Map/RowToStringCastRule),
//     never cut or padded to the target length.
//
// A value Java fails on is a *ValueError (ErrInvalid). Java casts a field
// only when it is read (CastedRow), so a reader that filters rows should cast
// after the filter: reader.ReadDataFile does.
//
// Arrow compute kernels are not used (docs/decisions.md, "No Arrow compute
// casts").
package cast

import (
	"errors"
	"fmt"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"
	"github.com/apache/arrow-go/v18/arrow/decimal128"
	"github.com/apache/arrow-go/v18/arrow/memory"

	"github.com/paimon-go/paimon/format"
	"github.com/paimon-go/paimon/types"
)

// Sentinel errors of Array.
var (
	// ErrUnsupported reports a pair of types Java has no cast for
	// (CastExecutors.resolve returns null). Errors wrapping it also wrap
	// format.ErrSchemaMismatch.
	ErrUnsupported = errors.New("cast: no cast between these types")
	// ErrInvalid reports a value Java fails to cast (a string that does not
	// parse, NaN to DECIMAL, ...): the read fails in Java too. Errors
	// wrapping it also wrap format.ErrOutOfRange.
	ErrInvalid = errors.New("cast: value cannot be cast")
)

// ValueError is the error of one value Java fails to cast (a string that
// does not parse, a DECIMAL that needs more digits than the target has,
// NaN to DECIMAL, ...). It wraps ErrInvalid and format.ErrOutOfRange; its
// message names the value's row, its types, the value and the reason (a
// string that is no number reads "is not a valid INT", one whose number
// does not fit "is out of range for TINYINT").
type ValueError struct {
	// Index is the 0-based position of the value's row in the array given
	// to Array (for a value nested in an ARRAY or MAP, the row holding it).
	Index int
	// Row is the 1-based row of the value in its data file, in file order
	// with deleted rows counted; 0 when unknown. Array leaves it 0, the
	// reader that knows the file sets it.
	Row int64
	// Path locates a value nested in the column ("element", "value",
	// "field b", joined by "."), empty for the column's own value.
	Path     string
	From, To types.DataType
	// Value is the source value as shown in the message.
	Value string
	// Err is the reason.
	Err error
}

func (e *ValueError) Error() string {
	where := fmt.Sprintf("value %d (0-based) of the batch", e.Index)
	if e.Row > 0 {
		where = fmt.Sprintf("row %d of the file (1-based)", e.Row)
	}
	if e.Path != "" {
		where += ", " + e.Path
	}
	switch {
	case errors.Is(e.Err, errSyntax):
		return fmt.Sprintf("cast: %s: %s %s is not a valid %s", where, e.From, e.Value, e.To)
	case errors.Is(e.Err, errOverflow):
		return fmt.Sprintf("cast: %s: %s %s is out of range for %s", where, e.From, e.Value, e.To)
	}
	return fmt.Sprintf("cast: %s: %s %s to %s: %v", where, e.From, e.Value, e.To, e.Err)
}

// Unwrap returns ErrInvalid, format.ErrOutOfRange and the reason.
func (e *ValueError) Unwrap() []error { return []error{ErrInvalid, format.ErrOutOfRange, e.Err} }

// valueError returns a *ValueError for value index of arr; shown is the
// value as shown in the message.
func valueError(index int, from, to types.DataType, shown string, err error) error {
	if errors.Is(err, ErrUnsupported) {
		return fmt.Errorf("value %d (0-based) of the batch: %w", index, err)
	}
	return &ValueError{Index: index, From: from, To: to, Value: shown, Err: err}
}

// Supported reports whether Java casts values of type from to type to on
// read (CastExecutors.resolve(from, to) != null), or the types are equal
// ignoring nullability. ROW to ROW is supported when every field of to
// found in from by field id is (missing ones read as null), ARRAY to ARRAY
// and MAP to MAP (equal keys) when their elements or values are
// (SchemaEvolutionUtil.createCastExecutor), and ARRAY, MAP and ROW to
// CHAR/VARCHAR; MULTISET and VARIANT only when equal, and no other nested
// type casts to or from an atomic one.
func Supported(from, to types.DataType) bool {
	if Identical(from, to) {
		return true
	}
	if isConstructedToString(from, to) {
		return true
	}
	if isNested(from.Kind) || isNested(to.Kind) {
		return nestedSupported(from, to)
	}
	return resolve(from, to) != nil
}

// Resolves reports whether Java's CastExecutors.resolve(from, to) finds a
// cast rule for the pair, which SchemaManager requires of an ALTER TABLE
// type change besides types.SupportsCast. It is Java's answer, not this
// package's: there is no rule between equal types that have none (DATE to
// DATE, BOOLEAN to BOOLEAN, ROW to ROW, ...); ARRAY, MAP and ROW cast to
// CHAR/VARCHAR (ArrayToStringCastRule, MapToStringCastRule,
// RowToStringCastRule, which Array implements) and CHAR/VARCHAR to them
// (StringTo{Array,Map,Row}CastRule, which Array does not implement and
// Supported is false for: types.SupportsCast refuses that change, so no
// ALTER TABLE makes a table that needs it).
func Resolves(from, to types.DataType) bool {
	switch {
	case isConstructedToString(from, to):
		return true
	case isString(from.Kind) && (to.Kind == types.KindArray || to.Kind == types.KindMap || to.Kind == types.KindRow):
		return true
	case isNested(from.Kind) || isNested(to.Kind):
		return false
	}
	return resolve(from, to) != nil
}

// Identical reports whether from and to are the same type ignoring
// nullability and descriptions (Java equalsIgnoreNullable): no cast is
// applied.
func Identical(from, to types.DataType) bool {
	if from.Kind != to.Kind || from.Length != to.Length || from.Precision != to.Precision || from.Scale != to.Scale {
		return false
	}
	for _, p := range [][2]*types.DataType{{from.Elem, to.Elem}, {from.Key, to.Key}, {from.Value, to.Value}} {
		if (p[0] == nil) != (p[1] == nil) || p[0] != nil && !Identical(*p[0], *p[1]) {
			return false
		}
	}
	if len(from.Fields) != len(to.Fields) {
		return false
	}
	for i := range from.Fields {
		if from.Fields[i].ID != to.Fields[i].ID || from.Fields[i].Name != to.Fields[i].Name ||
			!Identical(from.Fields[i].Type, to.Fields[i].Type) {
			return false
		}
	}
	return true
}

// Array returns arr, an array of Arrow type types.ToArrow(from), cast to
// types.ToArrow(to) value by value as Java's CastExecutors.resolve(from,
// to) does (see the package comment); nulls stay null. ROW, ARRAY and MAP
// are cast recursively (see Supported). The caller releases
// the result. When the types are Identical the result is arr, retained.
//
// Errors: ErrUnsupported (also format.ErrSchemaMismatch) when Java has no
// cast from → to; a *ValueError (ErrInvalid, also format.ErrOutOfRange) for
// a value Java fails on, naming the value and its 0-based index in arr (its
// Row is left 0 for the caller to set); format.ErrOutOfRange for a result the Arrow type of to cannot
// hold (a TIMESTAMP(9) outside 1677..2262). Callers add the file and column.
func Array(mem memory.Allocator, arr arrow.Array, from, to types.DataType) (arrow.Array, error) {
	if Identical(from, to) {
		arr.Retain()
		return arr, nil
	}
	if mem == nil {
		mem = memory.DefaultAllocator
	}
	if isConstructedToString(from, to) {
		return constructedToString(mem, arr, from, to)
	}
	if isNested(from.Kind) || isNested(to.Kind) {
		if !nestedSupported(from, to) {
			return nil, fmt.Errorf("%w: %w: %s to %s", ErrUnsupported, format.ErrSchemaMismatch, from, to)
		}
		return castNested(mem, arr, from, to)
	}
	if out, ok, err := fast(mem, arr, from, to); ok {
		return out, err
	}
	c := resolve(from, to)
	if c == nil {
		return nil, fmt.Errorf("%w: %w: %s to %s", ErrUnsupported, format.ErrSchemaMismatch, from, to)
	}
	b := array.NewBuilder(mem, types.ToArrow(to))
	defer b.Release()
	n := arr.Len()
	b.Reserve(n)
	for i := 0; i < n; i++ {
		if arr.IsNull(i) {
			b.AppendNull()
			continue
		}
		v, err := types.ArrowView(from, arr, i)
		if err != nil {
			return nil, fmt.Errorf("%w: %w: %s to %s: %v", ErrUnsupported, format.ErrSchemaMismatch, from, to, err)
		}
		out, err := c(v)
		if err != nil {
			return nil, valueError(i, from, to, show(v), err)
		}
		if err := appendValue(b, out); err != nil {
			return nil, fmt.Errorf("value %d (0-based) of the batch: %s %s to %s: %w", i, from, show(v), to, err)
		}
	}
	return b.NewArray(), nil
}

// show renders a source value for an error message.
func show(v any) string {
	switch x := v.(type) {
	case string:
		if len(x) > 64 {
			x = x[:64] + "..."
		}
		return fmt.Sprintf("%q", x)
	case []byte:
		return fmt.Sprintf("%d bytes", len(x))
	case types.Decimal:
		return fmt.Sprintf("%s (scale %d)", x.Unscaled, x.Scale)
	}
	return fmt.Sprint(v)
}

// AppendValue appends the Go value v (the types package convention: int32
// for INT, types.Decimal for DECIMAL, ...; nil for null) to b, whose Arrow
// type is types.ToArrow of v's type. Errors wrap ErrUnsupported for a
// builder of a nested type, format.ErrOutOfRange for a timestamp the unit
// cannot hold.
func AppendValue(b array.Builder, v any) error { return appendValue(b, v) }

// appendValue is AppendValue.
func appendValue(b array.Builder, v any) error {
	if v == nil {
		b.AppendNull()
		return nil
	}
	switch b := b.(type) {
	case *array.BooleanBuilder:
		b.Append(v.(bool))
	case *array.Int8Builder:
		b.Append(v.(int8))
	case *array.Int16Builder:
		b.Append(v.(int16))
	case *array.Int32Builder:
		b.Append(v.(int32))
	case *array.Int64Builder:
		b.Append(v.(int64))
	case *array.Float32Builder:
		b.Append(v.(float32))
	case *array.Float64Builder:
		b.Append(v.(float64))
	case *array.StringBuilder:
		b.Append(v.(string))
	case *array.BinaryBuilder:
		b.Append(v.([]byte))
	case *array.Date32Builder:
		b.Append(arrow.Date32(v.(int32)))
	case *array.Time32Builder:
		b.Append(arrow.Time32(v.(int32)))
	case *array.Decimal128Builder:
		b.Append(decimal128.FromBigInt(v.(types.Decimal).Unscaled))
	case *array.TimestampBuilder:
		ts := v.(types.Timestamp)
		x, ok := timestampToArrow(ts, b.Type().(*arrow.TimestampType).Unit)
		if !ok {
			return fmt.Errorf("%w: timestamp %d ms does not fit %s", format.ErrOutOfRange, ts.Millis, b.Type())
		}
		b.Append(arrow.Timestamp(x))
	default:
		return fmt.Errorf("%w: %w: no builder for %s", ErrUnsupported, format.ErrSchemaMismatch, b.Type())
	}
	return nil
}

// timestampToArrow converts ts to an Arrow timestamp value in unit,
// reporting false on int64 overflow.
func timestampToArrow(ts types.Timestamp, unit arrow.TimeUnit) (int64, bool) {
	var mul, div int64
	switch unit {
	case arrow.Second:
		return floorDiv(ts.Millis, 1000), true
	case arrow.Millisecond:
		return ts.Millis, true
	case arrow.Microsecond:
		mul, div = 1000, 1000
	default:
		mul, div = 1_000_000, 1
	}
	if ts.Millis > (1<<63-1)/mul || ts.Millis < -(1<<63)/mul {
		return 0, false
	}
	x := ts.Millis * mul
	add := int64(ts.NanoOfMilli) / div
	if add > 0 && x > 1<<63-1-add {
		return 0, false
	}
	return x + add, true
}

func floorDiv(a, b int64) int64 {
	q := a / b
	if (a%b != 0) && ((a < 0) != (b < 0)) {
		q--
	}
	return q
}
