// Package types defines Paimon's logical data types, their Go value
// representation, their JSON form and their Arrow mapping.
//
// It mirrors org.apache.paimon.types (paimon-api) and
// org.apache.paimon.types.DataTypeJsonParser. A DataType is a small value
// (pass it by value); composite types point at their children.
//
// # Go values
//
// Code that handles single values (BinaryRow, statistics, predicates,
// partition values) uses one Go representation per kind:
//
//	BOOLEAN                      bool
//	TINYINT, SMALLINT            int8, int16
//	INT                          int32
//	BIGINT                       int64
//	FLOAT, DOUBLE                float32, float64
//	CHAR, VARCHAR                string
//	BINARY, VARBINARY            []byte
//	DECIMAL(p, s)                Decimal
//	DATE                         int32 (days since 1970-01-01)
//	TIME(p)                      int32 (milliseconds of the day)
//	TIMESTAMP(p), LTZ            Timestamp
//	ARRAY, MULTISET              []any (MULTISET: Map with int32 counts)
//	MAP                          Map
//	ROW                          []any
//	NULL                         nil
package types

import (
	"math/big"
	"time"
)

// Kind is the root of a Paimon data type (DataTypeRoot in Java).
type Kind int

// The kinds, in Java's DataTypeRoot order where it exists.
const (
	KindInvalid Kind = iota
	KindChar
	KindVarChar
	KindBoolean
	KindBinary
	KindVarBinary
	KindDecimal
	KindTinyInt
	KindSmallInt
	KindInt
	KindBigInt
	KindFloat
	KindDouble
	KindDate
	KindTime
	KindTimestamp
	KindLocalZonedTimestamp
	KindVariant
	KindBlob
	KindArray
	KindMultiset
	KindMap
	KindRow
)

// MaxLength is the length Java uses for STRING (VARCHAR) and BYTES (VARBINARY).
const MaxLength = 2147483647

// DataType is one Paimon logical type.
//
// Fields used per kind:
//   - KindChar, KindVarChar, KindBinary, KindVarBinary: Length (MaxLength means STRING / BYTES).
//   - KindDecimal: Precision (1..38) and Scale.
//   - KindTime, KindTimestamp, KindLocalZonedTimestamp: Precision (0..9).
//   - KindArray, KindMultiset: Elem.
//   - KindMap: Key and Value.
//   - KindRow: Fields.
type DataType struct {
	Kind      Kind
	Nullable  bool
	Length    int
	Precision int
	Scale     int
	Elem      *DataType
	Key       *DataType
	Value     *DataType
	Fields    []DataField
}

// DataField is one named field of a ROW type or of a table schema, with the
// stable field id Paimon uses to match columns across schema versions.
type DataField struct {
	ID           int
	Name         string
	Type         DataType
	Description  string // empty when absent
	DefaultValue string // empty when absent (Paimon 1.2+)
}

// Decimal is a DECIMAL(Precision, Scale) value: Unscaled × 10^-Scale.
type Decimal struct {
	Unscaled  *big.Int
	Precision int
	Scale     int
}

// Timestamp is a TIMESTAMP or TIMESTAMP WITH LOCAL TIME ZONE value, as Java's
// org.apache.paimon.data.Timestamp: milliseconds since the epoch plus the
// nanoseconds within that millisecond (0..999999).
type Timestamp struct {
	Millis      int64
	NanoOfMilli int32
}

// Time returns the instant in UTC.
func (t Timestamp) Time() time.Time {
	return time.UnixMilli(t.Millis).Add(time.Duration(t.NanoOfMilli)).UTC()
}

// Map is a MAP (or MULTISET) value: parallel key and value slices.
type Map struct {
	Keys   []any
	Values []any
}
