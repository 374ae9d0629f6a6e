package parquet

import (
	"fmt"
	"strconv"

	"github.com/apache/arrow-go/v18/arrow"

	"github.com/paimon-go/paimon/format"
	"github.com/paimon-go/paimon/types"
)

// Field ids Java Paimon gives to the nodes of nested types that have no
// DataField of their own (SpecialFields.getArrayElementFieldId,
// getMapKeyFieldId, getMapValueFieldId): fieldID is the id of the nearest
// enclosing DataField, depth counts the nesting below it from 1.
const (
	structuredFieldIDBase = 2147483647 / 4 // Integer.MAX_VALUE / 4
	structuredDepthLimit  = 1 << 10
)

func arrayElementID(fieldID, depth int) int {
	return structuredFieldIDBase + fieldID*structuredDepthLimit + depth
}

func mapKeyID(fieldID, depth int) int {
	return structuredFieldIDBase - fieldID*structuredDepthLimit - depth
}

func mapValueID(fieldID, depth int) int {
	return structuredFieldIDBase + fieldID*structuredDepthLimit + depth
}

func idMeta(id int) arrow.Metadata {
	return arrow.NewMetadata([]string{types.FieldIDKey}, []string{strconv.Itoa(id)})
}

// writeSchema returns the Arrow schema handed to pqarrow for fields: the
// types of types.SchemaToArrow(fields) with the field ids Java's
// ParquetSchemaConverter.convertToParquetType assigns on every node
// (element, key and value nodes included), map keys required, MULTISET
// counts INT NOT NULL and VARIANT's value/metadata with ids 0 and 1.
func writeSchema(fields []types.DataField) (*arrow.Schema, error) {
	out := make([]arrow.Field, len(fields))
	for i, f := range fields {
		af, err := writeField(f.Name, f.Type, f.ID, 0)
		if err != nil {
			return nil, fmt.Errorf("field %q: %w", f.Name, err)
		}
		out[i] = af
	}
	return arrow.NewSchema(out, nil), nil
}

func writeField(name string, t types.DataType, id, depth int) (arrow.Field, error) {
	f := arrow.Field{Name: name, Nullable: t.Nullable, Metadata: idMeta(id)}
	switch t.Kind {
	case types.KindArray:
		if t.Elem == nil {
			return f, fmt.Errorf("%w: ARRAY without element type", format.ErrSchemaMismatch)
		}
		elem, err := writeField(types.ListElementName, *t.Elem, id, depth+1)
		if err != nil {
			return f, err
		}
		elem.Metadata = idMeta(arrayElementID(id, depth+1))
		f.Type = arrow.ListOfField(elem)
	case types.KindMap, types.KindMultiset:
		var kt, vt types.DataType
		if t.Kind == types.KindMap {
			if t.Key == nil || t.Value == nil {
				return f, fmt.Errorf("%w: MAP without key or value type", format.ErrSchemaMismatch)
			}
			kt, vt = *t.Key, *t.Value
		} else {
			if t.Elem == nil {
				return f, fmt.Errorf("%w: MULTISET without element type", format.ErrSchemaMismatch)
			}
			kt, vt = *t.Elem, types.Int().NotNull()
		}
		key, err := writeField("key", kt.NotNull(), id, depth+1)
		if err != nil {
			return f, err
		}
		key.Metadata = idMeta(mapKeyID(id, depth+1))
		val, err := writeField("value", vt, id, depth+1)
		if err != nil {
			return f, err
		}
		val.Metadata = idMeta(mapValueID(id, depth+1))
		f.Type = arrow.MapOfFields(key, val)
	case types.KindRow:
		children := make([]arrow.Field, len(t.Fields))
		for i, c := range t.Fields {
			cf, err := writeField(c.Name, c.Type, c.ID, 0)
			if err != nil {
				return f, err
			}
			children[i] = cf
		}
		f.Type = arrow.StructOf(children...)
	case types.KindVariant:
		f.Type = arrow.StructOf(
			arrow.Field{Name: "value", Type: arrow.BinaryTypes.Binary, Metadata: idMeta(0)},
			arrow.Field{Name: "metadata", Type: arrow.BinaryTypes.Binary, Metadata: idMeta(1)},
		)
	case types.KindBoolean, types.KindTinyInt, types.KindSmallInt, types.KindInt, types.KindBigInt,
		types.KindFloat, types.KindDouble, types.KindChar, types.KindVarChar, types.KindBinary,
		types.KindVarBinary, types.KindBlob, types.KindDecimal, types.KindDate, types.KindTime,
		types.KindTimestamp, types.KindLocalZonedTimestamp:
		if err := t.Validate(); err != nil {
			return f, fmt.Errorf("%w: %v", format.ErrSchemaMismatch, err)
		}
		f.Type = types.ToArrow(t)
	default:
		return f, fmt.Errorf("%w: type %s cannot be stored in Parquet", format.ErrUnsupportedFormat, t)
	}
	return f, nil
}

// fieldID returns the "PARQUET:field_id" of an Arrow field produced by
// pqarrow from a Parquet node, or -1 when the node has none.
func fieldID(f *arrow.Field) int {
	if f == nil {
		return -1
	}
	i := f.Metadata.FindKey(types.FieldIDKey)
	if i < 0 {
		return -1
	}
	id, err := strconv.Atoi(f.Metadata.Values()[i])
	if err != nil || id < 0 {
		return -1
	}
	return id
}
