package types

import "errors"

// ErrUnknownType is returned (wrapped) when a type string or type JSON cannot be
// parsed, names a type this package does not support (GEOMETRY, GEOGRAPHY,
// VECTOR, INTERVAL, RAW, ...), or carries parameters outside Java's ranges
// (e.g. DECIMAL(40, 2), TIMESTAMP(10), CHAR(0)).
var ErrUnknownType = errors.New("types: unknown or invalid data type")

// Boolean returns nullable BOOLEAN (Java DataTypes.BOOLEAN()).
func Boolean() DataType { return DataType{Kind: KindBoolean, Nullable: true} }

// TinyInt returns nullable TINYINT (Java DataTypes.TINYINT()).
func TinyInt() DataType { return DataType{Kind: KindTinyInt, Nullable: true} }

// SmallInt returns nullable SMALLINT (Java DataTypes.SMALLINT()).
func SmallInt() DataType { return DataType{Kind: KindSmallInt, Nullable: true} }

// Int returns nullable INT (Java DataTypes.INT()).
func Int() DataType { return DataType{Kind: KindInt, Nullable: true} }

// BigInt returns nullable BIGINT (Java DataTypes.BIGINT()).
func BigInt() DataType { return DataType{Kind: KindBigInt, Nullable: true} }

// Float returns nullable FLOAT (Java DataTypes.FLOAT()).
func Float() DataType { return DataType{Kind: KindFloat, Nullable: true} }

// Double returns nullable DOUBLE (Java DataTypes.DOUBLE()).
func Double() DataType { return DataType{Kind: KindDouble, Nullable: true} }

// String returns nullable STRING, i.e. VARCHAR(2147483647) (Java DataTypes.STRING()).
func String() DataType { return DataType{Kind: KindVarChar, Nullable: true, Length: MaxLength} }

// Bytes returns nullable BYTES, i.e. VARBINARY(2147483647) (Java DataTypes.BYTES()).
func Bytes() DataType { return DataType{Kind: KindVarBinary, Nullable: true, Length: MaxLength} }

// CharOf returns nullable CHAR(n); n must be >= 1 for the type to be valid.
func CharOf(n int) DataType { return DataType{Kind: KindChar, Nullable: true, Length: n} }

// VarCharOf returns nullable VARCHAR(n); VarCharOf(MaxLength) is STRING.
func VarCharOf(n int) DataType { return DataType{Kind: KindVarChar, Nullable: true, Length: n} }

// BinaryOf returns nullable BINARY(n).
func BinaryOf(n int) DataType { return DataType{Kind: KindBinary, Nullable: true, Length: n} }

// VarBinaryOf returns nullable VARBINARY(n); VarBinaryOf(MaxLength) is BYTES.
func VarBinaryOf(n int) DataType { return DataType{Kind: KindVarBinary, Nullable: true, Length: n} }

// DecimalOf returns nullable DECIMAL(p, s) (precision 1..38, scale 0..p).
func DecimalOf(p, s int) DataType {
	return DataType{Kind: KindDecimal, Nullable: true, Precision: p, Scale: s}
}

// Date returns nullable DATE.
func Date() DataType { return DataType{Kind: KindDate, Nullable: true} }

// TimeOf returns nullable TIME(p), p = fractional-second digits 0..9.
func TimeOf(p int) DataType { return DataType{Kind: KindTime, Nullable: true, Precision: p} }

// TimestampOf returns nullable TIMESTAMP(p) (without time zone), p 0..9.
func TimestampOf(p int) DataType {
	return DataType{Kind: KindTimestamp, Nullable: true, Precision: p}
}

// LocalZonedTimestampOf returns nullable TIMESTAMP(p) WITH LOCAL TIME ZONE, p 0..9.
func LocalZonedTimestampOf(p int) DataType {
	return DataType{Kind: KindLocalZonedTimestamp, Nullable: true, Precision: p}
}

// Variant returns nullable VARIANT (Paimon 1.1+).
func Variant() DataType { return DataType{Kind: KindVariant, Nullable: true} }

// Blob returns nullable BLOB (Paimon 1.4+).
func Blob() DataType { return DataType{Kind: KindBlob, Nullable: true} }

// ArrayOf returns nullable ARRAY<elem>.
func ArrayOf(elem DataType) DataType {
	return DataType{Kind: KindArray, Nullable: true, Elem: &elem}
}

// MultisetOf returns nullable MULTISET<elem>.
func MultisetOf(elem DataType) DataType {
	return DataType{Kind: KindMultiset, Nullable: true, Elem: &elem}
}

// MapOf returns nullable MAP<key, value>.
func MapOf(key, value DataType) DataType {
	return DataType{Kind: KindMap, Nullable: true, Key: &key, Value: &value}
}

// RowOf returns nullable ROW<fields...>. The fields keep the ids they carry.
func RowOf(fields ...DataField) DataType {
	return DataType{Kind: KindRow, Nullable: true, Fields: fields}
}

// Field builds a DataField with the given id, name and type.
func Field(id int, name string, t DataType) DataField {
	return DataField{ID: id, Name: name, Type: t}
}

// NotNull returns a copy of t that is NOT NULL (Java DataType.notNull()).
func (t DataType) NotNull() DataType { t.Nullable = false; return t }

// AsNullable returns a copy of t that is nullable (Java DataType.nullable()).
func (t DataType) AsNullable() DataType { t.Nullable = true; return t }

// WithNullable returns a copy of t with the given nullability (Java DataType.copy(boolean)).
func (t DataType) WithNullable(nullable bool) DataType { t.Nullable = nullable; return t }

// FieldByName returns the index and field named name among a ROW type's
// direct fields (Java RowType.getFieldIndex); ok is false when absent.
func (t DataType) FieldByName(name string) (int, DataField, bool) {
	return FieldByName(t.Fields, name)
}

// FieldByName returns the index and field named name in fields, or ok=false.
func FieldByName(fields []DataField, name string) (int, DataField, bool) {
	for i, f := range fields {
		if f.Name == name {
			return i, f, true
		}
	}
	return -1, DataField{}, false
}

// FieldByID returns the index and field with the given id among fields
// (top level only), or ok=false.
func FieldByID(fields []DataField, id int) (int, DataField, bool) {
	for i, f := range fields {
		if f.ID == id {
			return i, f, true
		}
	}
	return -1, DataField{}, false
}

// FieldNames returns the names of fields in order.
func FieldNames(fields []DataField) []string {
	names := make([]string, len(fields))
	for i, f := range fields {
		names[i] = f.Name
	}
	return names
}

// SystemFieldIDStart is the first field id reserved for system fields
// (Java SpecialFields.SYSTEM_FIELD_ID_START = Integer.MAX_VALUE / 2).
const SystemFieldIDStart = MaxLength / 2

// HighestFieldID returns the largest non-system field id over fields and all
// fields nested inside their types (ROW fields within ROW, ARRAY, MAP,
// MULTISET), or -1 when there is none. Mirrors Java
// RowType.currentHighestFieldId.
func HighestFieldID(fields []DataField) int {
	highest := -1
	var visitType func(t *DataType)
	visitFields := func(fs []DataField) {
		for i := range fs {
			if fs[i].ID < SystemFieldIDStart && fs[i].ID > highest {
				highest = fs[i].ID
			}
			visitType(&fs[i].Type)
		}
	}
	visitType = func(t *DataType) {
		if t == nil {
			return
		}
		visitType(t.Elem)
		visitType(t.Key)
		visitType(t.Value)
		visitFields(t.Fields)
	}
	visitFields(fields)
	return highest
}

// AssignFieldIDs returns a deep copy of fields with fresh ids taken from a
// counter that starts after last (pass -1 for a new table), and the last id
// used. The order is Java's Schema.Builder.column + ReassignFieldId: a
// top-level column takes its id before the fields nested in its type, while a
// nested ROW field takes its id after the fields nested inside its own type.
func AssignFieldIDs(fields []DataField, last int) ([]DataField, int) {
	counter := last
	var reassign func(t DataType) DataType
	reassign = func(t DataType) DataType {
		switch t.Kind {
		case KindArray, KindMultiset:
			if t.Elem != nil {
				e := reassign(*t.Elem)
				t.Elem = &e
			}
		case KindMap:
			if t.Key != nil {
				k := reassign(*t.Key)
				t.Key = &k
			}
			if t.Value != nil {
				v := reassign(*t.Value)
				t.Value = &v
			}
		case KindRow:
			out := make([]DataField, len(t.Fields))
			for i, f := range t.Fields {
				f.Type = reassign(f.Type)
				counter++
				f.ID = counter
				out[i] = f
			}
			t.Fields = out
		}
		return t
	}
	out := make([]DataField, len(fields))
	for i, f := range fields {
		counter++
		f.ID = counter
		f.Type = reassign(f.Type)
		out[i] = f
	}
	return out, counter
}
