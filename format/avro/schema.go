package avro

import (
	"bytes"
	"encoding/json"
	"fmt"
	"strconv"

	"github.com/paimon-go/paimon/format"
	"github.com/paimon-go/paimon/types"
)

// recordName is the name of the top-level record of every data file, and
// the prefix of the names of nested records (Java AvroSchemaConverter).
const recordName = "org.apache.paimon.avro.generated.record"

// writerSchema returns the Avro schema JSON Java's AvroSchemaConverter
// derives from a nullable ROW of fields: ["null", record], each nullable
// type a ["null", T] union with default null, nested records named
// "<parent>_<field>". Errors wrap format.ErrUnsupportedFormat for types
// Avro files cannot hold as Java writes them (VARIANT, TIMESTAMP with
// precision > 6, TIME with precision > 3).
func writerSchema(fields []types.DataField) ([]byte, error) {
	var b bytes.Buffer
	b.WriteString(`["null",`)
	if err := writeRecord(&b, fields, recordName); err != nil {
		return nil, err
	}
	b.WriteString(`]`)
	return b.Bytes(), nil
}

func quote(b *bytes.Buffer, s string) {
	q, _ := json.Marshal(s)
	b.Write(q)
}

func writeRecord(b *bytes.Buffer, fields []types.DataField, name string) error {
	b.WriteString(`{"type":"record","name":`)
	quote(b, name)
	b.WriteString(`,"fields":[`)
	for i, f := range fields {
		if i > 0 {
			b.WriteByte(',')
		}
		b.WriteString(`{"name":`)
		quote(b, f.Name)
		b.WriteString(`,"type":`)
		if err := writeType(b, f.Type, name+"_"+f.Name); err != nil {
			return fmt.Errorf("column %s: %w", f.Name, err)
		}
		if f.Type.Nullable {
			b.WriteString(`,"default":null`)
		}
		b.WriteByte('}')
	}
	b.WriteString(`]}`)
	return nil
}

// writeType writes the schema of t; name is the record name nested rows
// (and the entries of maps with non-string keys) take.
func writeType(b *bytes.Buffer, t types.DataType, name string) error {
	if t.Nullable {
		b.WriteString(`["null",`)
		defer b.WriteString(`]`)
	}
	switch t.Kind {
	case types.KindBoolean:
		b.WriteString(`"boolean"`)
	case types.KindTinyInt, types.KindSmallInt, types.KindInt:
		b.WriteString(`"int"`)
	case types.KindBigInt:
		b.WriteString(`"long"`)
	case types.KindFloat:
		b.WriteString(`"float"`)
	case types.KindDouble:
		b.WriteString(`"double"`)
	case types.KindChar, types.KindVarChar:
		b.WriteString(`"string"`)
	case types.KindBinary, types.KindVarBinary, types.KindBlob:
		b.WriteString(`"bytes"`)
	case types.KindDecimal:
		b.WriteString(`{"type":"bytes","logicalType":"decimal","precision":` + strconv.Itoa(t.Precision) +
			`,"scale":` + strconv.Itoa(t.Scale) + `}`)
	case types.KindDate:
		b.WriteString(`{"type":"int","logicalType":"date"}`)
	case types.KindTime:
		if t.Precision > 3 {
			return fmt.Errorf("%w: avro: %s (Avro holds TIME up to precision 3)", format.ErrUnsupportedFormat, t)
		}
		b.WriteString(`{"type":"int","logicalType":"time-millis"}`)
	case types.KindTimestamp, types.KindLocalZonedTimestamp:
		lt := "timestamp-"
		if t.Kind == types.KindLocalZonedTimestamp {
			lt = "local-timestamp-"
		}
		switch {
		case t.Precision <= 3:
			lt += "millis"
		case t.Precision <= 6:
			lt += "micros"
		default:
			return fmt.Errorf("%w: avro: %s (Avro holds timestamps up to precision 6)", format.ErrUnsupportedFormat, t)
		}
		b.WriteString(`{"type":"long","logicalType":"` + lt + `"}`)
	case types.KindArray:
		b.WriteString(`{"type":"array","items":`)
		if err := writeType(b, *t.Elem, name); err != nil {
			return err
		}
		b.WriteString(`}`)
	case types.KindMap, types.KindMultiset:
		key, val := mapParts(t)
		if key.Kind == types.KindVarChar || key.Kind == types.KindChar {
			b.WriteString(`{"type":"map","values":`)
			if err := writeType(b, val, name); err != nil {
				return err
			}
			b.WriteString(`}`)
			return nil
		}
		b.WriteString(`{"type":"array","items":`)
		if err := writeRecord(b, []types.DataField{{Name: "key", Type: key}, {Name: "value", Type: val}}, name); err != nil {
			return err
		}
		b.WriteString(`,"logicalType":"map"}`)
	case types.KindRow:
		return writeRecord(b, t.Fields, name)
	default:
		return fmt.Errorf("%w: avro: type %s cannot be stored in Avro", format.ErrUnsupportedFormat, t)
	}
	return nil
}

// mapParts returns the key and value types of a MAP, or of a MULTISET
// (element → nullable INT count, Java extractValueTypeToAvroMap).
func mapParts(t types.DataType) (types.DataType, types.DataType) {
	if t.Kind == types.KindMultiset {
		return *t.Elem, types.Int()
	}
	return *t.Key, *t.Value
}

// Holds reports whether Avro data files can hold a row of fields as Java
// writes them (Java's AvroSchemaConverter.convertToSchema succeeds): false
// for VARIANT, TIMESTAMP with precision > 6, TIME with precision > 3.
func Holds(fields []types.DataField) bool {
	_, err := writerSchema(fields)
	return err == nil
}
