package types

import (
	"fmt"
	"strconv"
	"strings"
)

// String returns the SQL form of t exactly as Java DataType.asSQLString
// prints it, e.g. "INT NOT NULL", "DECIMAL(10, 2)", "STRING",
// "TIMESTAMP(6) WITH LOCAL TIME ZONE", "ARRAY<INT>", "MAP<INT, STRING>",
// "ROW<`a` INT, `b` STRING COMMENT 'x'>". Invalid kinds print as
// "INVALID(<kind>)".
func (t DataType) String() string {
	var b strings.Builder
	t.appendSQL(&b)
	return b.String()
}

func (t DataType) appendSQL(b *strings.Builder) {
	t.appendBaseSQL(b)
	if !t.Nullable {
		b.WriteString(" NOT NULL")
	}
}

// appendBaseSQL writes the SQL form without the nullability suffix.
func (t DataType) appendBaseSQL(b *strings.Builder) {
	switch t.Kind {
	case KindBoolean, KindTinyInt, KindSmallInt, KindInt, KindBigInt, KindFloat,
		KindDouble, KindDate, KindVariant, KindBlob:
		b.WriteString(t.Kind.String())
	case KindChar:
		fmt.Fprintf(b, "CHAR(%d)", t.Length)
	case KindVarChar:
		if t.Length == MaxLength {
			b.WriteString("STRING")
		} else {
			fmt.Fprintf(b, "VARCHAR(%d)", t.Length)
		}
	case KindBinary:
		fmt.Fprintf(b, "BINARY(%d)", t.Length)
	case KindVarBinary:
		if t.Length == MaxLength {
			b.WriteString("BYTES")
		} else {
			fmt.Fprintf(b, "VARBINARY(%d)", t.Length)
		}
	case KindDecimal:
		fmt.Fprintf(b, "DECIMAL(%d, %d)", t.Precision, t.Scale)
	case KindTime:
		fmt.Fprintf(b, "TIME(%d)", t.Precision)
	case KindTimestamp:
		fmt.Fprintf(b, "TIMESTAMP(%d)", t.Precision)
	case KindLocalZonedTimestamp:
		fmt.Fprintf(b, "TIMESTAMP(%d) WITH LOCAL TIME ZONE", t.Precision)
	case KindArray, KindMultiset:
		b.WriteString(t.Kind.String())
		b.WriteByte('<')
		if t.Elem != nil {
			t.Elem.appendSQL(b)
		}
		b.WriteByte('>')
	case KindMap:
		b.WriteString("MAP<")
		if t.Key != nil {
			t.Key.appendSQL(b)
		}
		b.WriteString(", ")
		if t.Value != nil {
			t.Value.appendSQL(b)
		}
		b.WriteByte('>')
	case KindRow:
		b.WriteString("ROW<")
		for i, f := range t.Fields {
			if i > 0 {
				b.WriteString(", ")
			}
			f.appendSQL(b)
		}
		b.WriteByte('>')
	default:
		b.WriteString(t.Kind.String())
	}
}

// String returns the SQL form of the field as Java DataField.asSQLString:
// "`name` TYPE[ COMMENT '...'][ DEFAULT value]".
func (f DataField) String() string {
	var b strings.Builder
	f.appendSQL(&b)
	return b.String()
}

func (f DataField) appendSQL(b *strings.Builder) {
	b.WriteByte('`')
	b.WriteString(strings.ReplaceAll(f.Name, "`", "``"))
	b.WriteString("` ")
	f.Type.appendSQL(b)
	if f.Description != "" {
		b.WriteString(" COMMENT '")
		b.WriteString(strings.ReplaceAll(f.Description, "'", "''"))
		b.WriteByte('\'')
	}
	if f.DefaultValue != "" {
		b.WriteString(" DEFAULT ")
		b.WriteString(f.DefaultValue)
	}
}

// String returns the upper-case SQL keyword of the kind ("INT", "VARCHAR",
// "TIMESTAMP_LTZ" for KindLocalZonedTimestamp, "ROW", ...).
func (k Kind) String() string {
	switch k {
	case KindChar:
		return "CHAR"
	case KindVarChar:
		return "VARCHAR"
	case KindBoolean:
		return "BOOLEAN"
	case KindBinary:
		return "BINARY"
	case KindVarBinary:
		return "VARBINARY"
	case KindDecimal:
		return "DECIMAL"
	case KindTinyInt:
		return "TINYINT"
	case KindSmallInt:
		return "SMALLINT"
	case KindInt:
		return "INT"
	case KindBigInt:
		return "BIGINT"
	case KindFloat:
		return "FLOAT"
	case KindDouble:
		return "DOUBLE"
	case KindDate:
		return "DATE"
	case KindTime:
		return "TIME"
	case KindTimestamp:
		return "TIMESTAMP"
	case KindLocalZonedTimestamp:
		return "TIMESTAMP_LTZ"
	case KindVariant:
		return "VARIANT"
	case KindBlob:
		return "BLOB"
	case KindArray:
		return "ARRAY"
	case KindMultiset:
		return "MULTISET"
	case KindMap:
		return "MAP"
	case KindRow:
		return "ROW"
	}
	return "INVALID(" + strconv.Itoa(int(k)) + ")"
}

// Validate checks t recursively against Java's constructor rules: lengths
// 1..MaxLength for CHAR/VARCHAR/BINARY/VARBINARY, DECIMAL precision 1..38 and
// scale 0..precision, TIME/TIMESTAMP precision 0..9, composite children
// present, ROW field names and ids unique within the row. Errors wrap
// ErrUnknownType.
func (t DataType) Validate() error {
	switch t.Kind {
	case KindBoolean, KindTinyInt, KindSmallInt, KindInt, KindBigInt, KindFloat,
		KindDouble, KindDate, KindVariant, KindBlob:
		return nil
	case KindChar, KindVarChar, KindBinary, KindVarBinary:
		if t.Length < 1 {
			return fmt.Errorf("%w: %s length %d must be between 1 and %d", ErrUnknownType, t.Kind, t.Length, MaxLength)
		}
		return nil
	case KindDecimal:
		if t.Precision < 1 || t.Precision > 38 {
			return fmt.Errorf("%w: DECIMAL precision %d must be between 1 and 38", ErrUnknownType, t.Precision)
		}
		if t.Scale < 0 || t.Scale > t.Precision {
			return fmt.Errorf("%w: DECIMAL scale %d must be between 0 and the precision %d", ErrUnknownType, t.Scale, t.Precision)
		}
		return nil
	case KindTime, KindTimestamp, KindLocalZonedTimestamp:
		if t.Precision < 0 || t.Precision > 9 {
			return fmt.Errorf("%w: %s precision %d must be between 0 and 9", ErrUnknownType, t.Kind, t.Precision)
		}
		return nil
	case KindArray, KindMultiset:
		if t.Elem == nil {
			return fmt.Errorf("%w: %s without element type", ErrUnknownType, t.Kind)
		}
		return t.Elem.Validate()
	case KindMap:
		if t.Key == nil || t.Value == nil {
			return fmt.Errorf("%w: MAP without key or value type", ErrUnknownType)
		}
		if err := t.Key.Validate(); err != nil {
			return err
		}
		return t.Value.Validate()
	case KindRow:
		names := make(map[string]bool, len(t.Fields))
		for _, f := range t.Fields {
			if names[f.Name] {
				return fmt.Errorf("%w: ROW field name %q is not unique", ErrUnknownType, f.Name)
			}
			names[f.Name] = true
			if err := f.Type.Validate(); err != nil {
				return fmt.Errorf("field %q: %w", f.Name, err)
			}
		}
		return nil
	}
	return fmt.Errorf("%w: kind %s", ErrUnknownType, t.Kind)
}

// Equal reports whether a and b are the same type, including nullability,
// nested field ids, names, descriptions and default values.
func (t DataType) Equal(o DataType) bool {
	if t.Kind != o.Kind || t.Nullable != o.Nullable || t.Length != o.Length ||
		t.Precision != o.Precision || t.Scale != o.Scale || len(t.Fields) != len(o.Fields) {
		return false
	}
	if !ptrTypeEqual(t.Elem, o.Elem) || !ptrTypeEqual(t.Key, o.Key) || !ptrTypeEqual(t.Value, o.Value) {
		return false
	}
	for i := range t.Fields {
		if !t.Fields[i].Equal(o.Fields[i]) {
			return false
		}
	}
	return true
}

func ptrTypeEqual(a, b *DataType) bool {
	if a == nil || b == nil {
		return a == b
	}
	return a.Equal(*b)
}

// Equal reports whether two fields have the same id, name, type, description
// and default value.
func (f DataField) Equal(o DataField) bool {
	return f.ID == o.ID && f.Name == o.Name && f.Description == o.Description &&
		f.DefaultValue == o.DefaultValue && f.Type.Equal(o.Type)
}

// IsString reports whether t is CHAR or VARCHAR.
func (t DataType) IsString() bool { return t.Kind == KindChar || t.Kind == KindVarChar }

// IsBinary reports whether t is BINARY or VARBINARY.
func (t DataType) IsBinary() bool { return t.Kind == KindBinary || t.Kind == KindVarBinary }

// IsComposite reports whether t is ARRAY, MULTISET, MAP or ROW.
func (t DataType) IsComposite() bool {
	return t.Kind == KindArray || t.Kind == KindMultiset || t.Kind == KindMap || t.Kind == KindRow
}
