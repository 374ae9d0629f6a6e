package tabletest

import (
	"fmt"
	"testing"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"
	"github.com/apache/arrow-go/v18/arrow/decimal128"
	"github.com/apache/arrow-go/v18/arrow/memory"

	"github.com/paimon-go/paimon/types"
)

// NewBatch builds a record batch of schema sc from rows of Go values: one
// value per field of sc, in order, nil for NULL. Each column's Arrow type
// (types.ToArrow of its Paimon type) decides the Go type it takes, in the
// convention of package types: BOOLEAN bool, TINYINT int8, SMALLINT int16,
// INT int32, BIGINT int64, FLOAT float32, DOUBLE float64, CHAR/VARCHAR
// string, BINARY/VARBINARY []byte, DECIMAL types.Decimal (of the column's
// scale), DATE int32 epoch days, TIME int32 milliseconds of the day,
// TIMESTAMP and TIMESTAMP WITH LOCAL TIME ZONE types.Timestamp, ARRAY []any,
// MAP and MULTISET types.Map, ROW []any (one value per nested field).
// Two shorthands keep test literals short:
//   - DECIMAL also takes an int64 unscaled value (int64(123) at scale 2 is
//     1.23) or a decimal string such as "-999.99", parsed at the column's
//     precision and scale;
//   - TIMESTAMP also takes an int64 count of the column's Arrow unit
//     (milliseconds for precision <= 3, microseconds for <= 6, else
//     nanoseconds).
//
// Extra input columns, such as writer.DefaultRowKindColumn, are ordinary
// fields of sc (a string "+I" or an int8 kind byte).
//
// The batch is allocated with memory.DefaultAllocator; the caller releases
// it. Errors wrap ErrValue, naming the row and column.
func NewBatch(sc *arrow.Schema, rows ...[]any) (arrow.RecordBatch, error) {
	b := array.NewRecordBuilder(memory.DefaultAllocator, sc)
	defer b.Release()
	for r, row := range rows {
		if len(row) != sc.NumFields() {
			return nil, fmt.Errorf("%w: row %d has %d values for %d columns", ErrValue, r, len(row), sc.NumFields())
		}
		for i, v := range row {
			if err := appendValue(b.Field(i), v); err != nil {
				return nil, fmt.Errorf("row %d column %q: %w", r, sc.Field(i).Name, err)
			}
		}
	}
	return b.NewRecordBatch(), nil
}

// Batch is NewBatch that stops the test on an error.
func Batch(t testing.TB, sc *arrow.Schema, rows ...[]any) arrow.RecordBatch {
	t.Helper()
	rec, err := NewBatch(sc, rows...)
	if err != nil {
		t.Fatal(err)
	}
	return rec
}

// appendValue appends the Go value v (see NewBatch) to builder b.
func appendValue(b array.Builder, v any) error {
	if v == nil {
		b.AppendNull()
		return nil
	}
	ok := true
	switch bb := b.(type) {
	case *array.BooleanBuilder:
		ok = appendAs(v, bb.Append)
	case *array.Int8Builder:
		ok = appendAs(v, bb.Append)
	case *array.Int16Builder:
		ok = appendAs(v, bb.Append)
	case *array.Int32Builder:
		ok = appendAs(v, bb.Append)
	case *array.Int64Builder:
		ok = appendAs(v, bb.Append)
	case *array.Float32Builder:
		ok = appendAs(v, bb.Append)
	case *array.Float64Builder:
		ok = appendAs(v, bb.Append)
	case *array.StringBuilder:
		ok = appendAs(v, bb.Append)
	case *array.BinaryBuilder:
		ok = appendAs(v, bb.Append)
	case *array.Date32Builder:
		ok = appendAs(v, func(days int32) { bb.Append(arrow.Date32(days)) })
	case *array.Time32Builder:
		ok = appendAs(v, func(millis int32) { bb.Append(arrow.Time32(millis)) })
	case *array.Decimal128Builder:
		n, err := decimalValue(bb.Type().(*arrow.Decimal128Type), v)
		if err != nil {
			return err
		}
		bb.Append(n)
	case *array.TimestampBuilder:
		switch x := v.(type) {
		case int64:
			bb.Append(arrow.Timestamp(x))
		case types.Timestamp:
			n, err := timestampValue(x, bb.Type().(*arrow.TimestampType))
			if err != nil {
				return err
			}
			bb.Append(n)
		default:
			ok = false
		}
	case *array.ListBuilder:
		var x []any
		if x, ok = v.([]any); ok {
			bb.Append(true)
			for _, e := range x {
				if err := appendValue(bb.ValueBuilder(), e); err != nil {
					return err
				}
			}
		}
	case *array.MapBuilder:
		var x types.Map
		if x, ok = v.(types.Map); ok {
			if len(x.Keys) != len(x.Values) {
				return fmt.Errorf("%w: map of %d keys and %d values", ErrValue, len(x.Keys), len(x.Values))
			}
			bb.Append(true)
			for i := range x.Keys {
				if err := appendValue(bb.KeyBuilder(), x.Keys[i]); err != nil {
					return err
				}
				if err := appendValue(bb.ItemBuilder(), x.Values[i]); err != nil {
					return err
				}
			}
		}
	case *array.StructBuilder:
		var x []any
		if x, ok = v.([]any); ok {
			if len(x) != bb.NumField() {
				return fmt.Errorf("%w: row value of %d fields for %d", ErrValue, len(x), bb.NumField())
			}
			bb.Append(true)
			for i, e := range x {
				if err := appendValue(bb.FieldBuilder(i), e); err != nil {
					return err
				}
			}
		}
	default:
		return fmt.Errorf("%w: no Go value convention for Arrow type %s", ErrValue, b.Type())
	}
	if !ok {
		return fmt.Errorf("%w: %T %v for Arrow type %s", ErrValue, v, v, b.Type())
	}
	return nil
}

// appendAs appends v with app when v is a T and reports whether it was.
func appendAs[T any](v any, app func(T)) bool {
	x, ok := v.(T)
	if ok {
		app(x)
	}
	return ok
}

// decimalValue converts a types.Decimal of dt's scale, an int64 unscaled
// value or a decimal string to dt's 128-bit unscaled value.
func decimalValue(dt *arrow.Decimal128Type, v any) (decimal128.Num, error) {
	switch x := v.(type) {
	case types.Decimal:
		if x.Unscaled == nil || int32(x.Scale) != dt.Scale {
			return decimal128.Num{}, fmt.Errorf("%w: decimal %v of scale %d for Arrow type %s", ErrValue, x.Unscaled, x.Scale, dt)
		}
		return decimal128.FromBigInt(x.Unscaled), nil
	case int64:
		return decimal128.FromI64(x), nil
	case string:
		n, err := decimal128.FromString(x, dt.Precision, dt.Scale)
		if err != nil {
			return decimal128.Num{}, fmt.Errorf("%w: decimal %q for Arrow type %s: %w", ErrValue, x, dt, err)
		}
		return n, nil
	}
	return decimal128.Num{}, fmt.Errorf("%w: %T %v for Arrow type %s", ErrValue, v, v, dt)
}

// timestampValue converts ts to a count of dt's unit (ms, us or ns, the units
// types.ToArrow gives; nanoseconds below the unit are dropped).
func timestampValue(ts types.Timestamp, dt *arrow.TimestampType) (arrow.Timestamp, error) {
	switch dt.Unit {
	case arrow.Millisecond:
		return arrow.Timestamp(ts.Millis), nil
	case arrow.Microsecond:
		return arrow.Timestamp(ts.Millis*1000 + int64(ts.NanoOfMilli)/1000), nil
	case arrow.Nanosecond:
		return arrow.Timestamp(ts.Millis*1_000_000 + int64(ts.NanoOfMilli)), nil
	}
	return 0, fmt.Errorf("%w: timestamp for Arrow type %s", ErrValue, dt)
}

// AllKinds returns one column of each kind NewBatch takes (BOOLEAN, the
// integers, FLOAT, DOUBLE, STRING, BYTES, DECIMAL(5, 2), DATE, TIME(3),
// TIMESTAMP(3), (6) and (9), TIMESTAMP(3) WITH LOCAL TIME ZONE, ARRAY<INT>,
// MAP<STRING NOT NULL, INT>, ROW<x INT, y STRING>), all nullable, with
// field ids from firstID on (21 ids: the ROW's two nested fields too).
func AllKinds(firstID int) []types.DataField {
	id := func(n int) int { return firstID + n }
	return []types.DataField{
		types.Field(id(0), "b", types.Boolean()),
		types.Field(id(1), "ti", types.TinyInt()),
		types.Field(id(2), "si", types.SmallInt()),
		types.Field(id(3), "i", types.Int()),
		types.Field(id(4), "bi", types.BigInt()),
		types.Field(id(5), "f", types.Float()),
		types.Field(id(6), "d", types.Double()),
		types.Field(id(7), "s", types.String()),
		types.Field(id(8), "bin", types.Bytes()),
		types.Field(id(9), "dec", types.DecimalOf(5, 2)),
		types.Field(id(10), "dt", types.Date()),
		types.Field(id(11), "tm", types.TimeOf(3)),
		types.Field(id(12), "ts3", types.TimestampOf(3)),
		types.Field(id(13), "ts6", types.TimestampOf(6)),
		types.Field(id(14), "ts9", types.TimestampOf(9)),
		types.Field(id(15), "ltz", types.LocalZonedTimestampOf(3)),
		types.Field(id(16), "arr", types.ArrayOf(types.Int())),
		types.Field(id(17), "m", types.MapOf(types.String().NotNull(), types.Int())),
		types.Field(id(18), "r", types.RowOf(types.Field(id(19), "x", types.Int()), types.Field(id(20), "y", types.String()))),
	}
}
