package types

import (
	"fmt"
	"strconv"

	"github.com/apache/arrow-go/v18/arrow"
)

// FieldIDKey is the Arrow field metadata key carrying the Paimon field id
// (decimal string), the same key pqarrow uses for Parquet field ids.
const FieldIDKey = "PARQUET:field_id"

// ListElementName is the name of the element field of Arrow lists produced by
// ToArrow (the Parquet LIST convention, which is what pqarrow returns for
// Java-written files). Arrow type equality ignores it.
const ListElementName = "element"

// ToArrow maps a Paimon type to its Arrow type (the project-wide mapping):
//
//	BOOLEAN Boolean; TINYINT Int8; SMALLINT Int16; INT Int32; BIGINT Int64;
//	FLOAT Float32; DOUBLE Float64; CHAR/VARCHAR String; BINARY/VARBINARY Binary;
//	DECIMAL(p,s) Decimal128(p,s); DATE Date32; TIME(p) Time32(ms);
//	TIMESTAMP(p) Timestamp(ms if p<=3, us if p<=6, else ns; no zone);
//	TIMESTAMP(p) WITH LOCAL TIME ZONE: same units, TimeZone "UTC";
//	ARRAY List(element nullable per element type); MAP arrow.MapOf(key, value);
//	MULTISET arrow.MapOf(elem, Int32); ROW Struct (fields via FieldToArrow).
//
// Beyond that mapping: VARIANT is Struct{value Binary NOT NULL, metadata
// Binary NOT NULL} (Paimon's Parquet layout) and BLOB is Binary. An invalid
// kind maps to arrow.Null; call Validate first to reject it.
func ToArrow(t DataType) arrow.DataType {
	switch t.Kind {
	case KindBoolean:
		return arrow.FixedWidthTypes.Boolean
	case KindTinyInt:
		return arrow.PrimitiveTypes.Int8
	case KindSmallInt:
		return arrow.PrimitiveTypes.Int16
	case KindInt:
		return arrow.PrimitiveTypes.Int32
	case KindBigInt:
		return arrow.PrimitiveTypes.Int64
	case KindFloat:
		return arrow.PrimitiveTypes.Float32
	case KindDouble:
		return arrow.PrimitiveTypes.Float64
	case KindChar, KindVarChar:
		return arrow.BinaryTypes.String
	case KindBinary, KindVarBinary, KindBlob:
		return arrow.BinaryTypes.Binary
	case KindDecimal:
		return &arrow.Decimal128Type{Precision: int32(t.Precision), Scale: int32(t.Scale)}
	case KindDate:
		return arrow.FixedWidthTypes.Date32
	case KindTime:
		return arrow.FixedWidthTypes.Time32ms
	case KindTimestamp:
		return &arrow.TimestampType{Unit: TimestampUnit(t.Precision)}
	case KindLocalZonedTimestamp:
		return &arrow.TimestampType{Unit: TimestampUnit(t.Precision), TimeZone: "UTC"}
	case KindVariant:
		return arrow.StructOf(
			arrow.Field{Name: "value", Type: arrow.BinaryTypes.Binary},
			arrow.Field{Name: "metadata", Type: arrow.BinaryTypes.Binary},
		)
	case KindArray:
		if t.Elem == nil {
			return arrow.Null
		}
		return arrow.ListOfField(arrow.Field{Name: ListElementName, Type: ToArrow(*t.Elem), Nullable: t.Elem.Nullable})
	case KindMultiset:
		if t.Elem == nil {
			return arrow.Null
		}
		return arrow.MapOf(ToArrow(*t.Elem), arrow.PrimitiveTypes.Int32)
	case KindMap:
		if t.Key == nil || t.Value == nil {
			return arrow.Null
		}
		return arrow.MapOf(ToArrow(*t.Key), ToArrow(*t.Value))
	case KindRow:
		fs := make([]arrow.Field, len(t.Fields))
		for i, f := range t.Fields {
			fs[i] = FieldToArrow(f)
		}
		return arrow.StructOf(fs...)
	}
	return arrow.Null
}

// TimestampUnit returns the Arrow unit for a TIMESTAMP precision: Millisecond
// for p <= 3, Microsecond for p <= 6, Nanosecond otherwise.
func TimestampUnit(precision int) arrow.TimeUnit {
	switch {
	case precision <= 3:
		return arrow.Millisecond
	case precision <= 6:
		return arrow.Microsecond
	}
	return arrow.Nanosecond
}

// FieldToArrow maps a field: name = Paimon name, type = ToArrow(f.Type),
// nullable = f.Type.Nullable, metadata {"PARQUET:field_id": "<id>"}.
func FieldToArrow(f DataField) arrow.Field {
	return arrow.Field{
		Name:     f.Name,
		Type:     ToArrow(f.Type),
		Nullable: f.Type.Nullable,
		Metadata: arrow.NewMetadata([]string{FieldIDKey}, []string{strconv.Itoa(f.ID)}),
	}
}

// SchemaToArrow maps the fields of a row type to an Arrow schema (no schema
// metadata) with FieldToArrow.
func SchemaToArrow(fields []DataField) *arrow.Schema {
	fs := make([]arrow.Field, len(fields))
	for i, f := range fields {
		fs[i] = FieldToArrow(f)
	}
	return arrow.NewSchema(fs, nil)
}

// FromArrow maps an Arrow type back to a nullable Paimon type, best effort
// (the inverse of ToArrow plus common neighbours): String/LargeString/
// StringView -> STRING; Binary/LargeBinary/BinaryView -> BYTES;
// FixedSizeBinary(n) -> BINARY(n); Decimal128/256(p<=38) -> DECIMAL(p,s);
// Date32/Date64 -> DATE; Time32/Time64 -> TIME(0/3/6/9 by unit); Timestamp ->
// TIMESTAMP(3/6/9 by unit, 0 for seconds), or WITH LOCAL TIME ZONE when a
// time zone is set; List/LargeList/FixedSizeList -> ARRAY; Map -> MAP (a map
// whose value is Int32 stays MAP, never MULTISET); Struct -> ROW. Nested ROW
// fields take their id from "PARQUET:field_id" metadata, else 0 (see
// SchemaFromArrow for assigning ids). Unsupported types return an error
// wrapping ErrUnknownType.
func FromArrow(t arrow.DataType) (DataType, error) {
	switch t := t.(type) {
	case *arrow.BooleanType:
		return Boolean(), nil
	case *arrow.Int8Type:
		return TinyInt(), nil
	case *arrow.Int16Type:
		return SmallInt(), nil
	case *arrow.Int32Type:
		return Int(), nil
	case *arrow.Int64Type:
		return BigInt(), nil
	case *arrow.Float32Type:
		return Float(), nil
	case *arrow.Float64Type:
		return Double(), nil
	case *arrow.StringType, *arrow.LargeStringType, *arrow.StringViewType:
		return String(), nil
	case *arrow.BinaryType, *arrow.LargeBinaryType, *arrow.BinaryViewType:
		return Bytes(), nil
	case *arrow.FixedSizeBinaryType:
		return BinaryOf(t.ByteWidth), nil
	case *arrow.Decimal128Type:
		return checked(DecimalOf(int(t.Precision), int(t.Scale)))
	case *arrow.Decimal256Type:
		return checked(DecimalOf(int(t.Precision), int(t.Scale)))
	case *arrow.Date32Type, *arrow.Date64Type:
		return Date(), nil
	case *arrow.Time32Type:
		return TimeOf(unitPrecision(t.Unit)), nil
	case *arrow.Time64Type:
		return TimeOf(unitPrecision(t.Unit)), nil
	case *arrow.TimestampType:
		if t.TimeZone != "" {
			return LocalZonedTimestampOf(unitPrecision(t.Unit)), nil
		}
		return TimestampOf(unitPrecision(t.Unit)), nil
	case *arrow.MapType:
		k, err := FromArrow(t.KeyType())
		if err != nil {
			return DataType{}, err
		}
		v, err := FromArrow(t.ItemType())
		if err != nil {
			return DataType{}, err
		}
		return MapOf(k.WithNullable(t.KeyField().Nullable), v.WithNullable(t.ItemField().Nullable)), nil
	case arrow.ListLikeType:
		ef := t.ElemField()
		e, err := FromArrow(ef.Type)
		if err != nil {
			return DataType{}, err
		}
		return ArrayOf(e.WithNullable(ef.Nullable)), nil
	case *arrow.StructType:
		fs := make([]DataField, t.NumFields())
		for i, af := range t.Fields() {
			f, err := FieldFromArrow(af)
			if err != nil {
				return DataType{}, err
			}
			fs[i] = f
		}
		return RowOf(fs...), nil
	}
	return DataType{}, fmt.Errorf("%w: no Paimon type for Arrow type %s", ErrUnknownType, t)
}

func checked(t DataType) (DataType, error) {
	if err := t.Validate(); err != nil {
		return DataType{}, err
	}
	return t, nil
}

func unitPrecision(u arrow.TimeUnit) int {
	switch u {
	case arrow.Second:
		return 0
	case arrow.Millisecond:
		return 3
	case arrow.Microsecond:
		return 6
	}
	return 9
}

// FieldFromArrow maps an Arrow field with FromArrow; nullability comes from
// the field and the id from its "PARQUET:field_id" metadata (0 when absent or
// not a decimal integer).
func FieldFromArrow(f arrow.Field) (DataField, error) {
	t, err := FromArrow(f.Type)
	if err != nil {
		return DataField{}, fmt.Errorf("field %q: %w", f.Name, err)
	}
	id, _ := arrowFieldID(f)
	return DataField{ID: id, Name: f.Name, Type: t.WithNullable(f.Nullable)}, nil
}

func arrowFieldID(f arrow.Field) (int, bool) {
	i := f.Metadata.FindKey(FieldIDKey)
	if i < 0 {
		return 0, false
	}
	id, err := strconv.Atoi(f.Metadata.Values()[i])
	if err != nil {
		return 0, false
	}
	return id, true
}

// SchemaFromArrow maps an Arrow schema to Paimon fields for creating a table.
// When every field (top level and nested struct fields) carries a
// "PARQUET:field_id", those ids are kept; otherwise all ids are assigned
// fresh with AssignFieldIDs(fields, -1), the order Java uses when creating a
// table.
func SchemaFromArrow(s *arrow.Schema) ([]DataField, error) {
	fields := make([]DataField, s.NumFields())
	allIDs := true
	var checkType func(t arrow.DataType)
	checkType = func(t arrow.DataType) {
		switch t := t.(type) {
		case *arrow.StructType:
			for _, c := range t.Fields() {
				if _, ok := arrowFieldID(c); !ok {
					allIDs = false
				}
				checkType(c.Type)
			}
		case *arrow.MapType:
			checkType(t.KeyType())
			checkType(t.ItemType())
		case arrow.ListLikeType:
			checkType(t.ElemField().Type)
		}
	}
	for i, af := range s.Fields() {
		if _, ok := arrowFieldID(af); !ok {
			allIDs = false
		}
		checkType(af.Type)
		f, err := FieldFromArrow(af)
		if err != nil {
			return nil, err
		}
		fields[i] = f
	}
	if !allIDs {
		fields, _ = AssignFieldIDs(fields, -1)
	}
	return fields, nil
}
