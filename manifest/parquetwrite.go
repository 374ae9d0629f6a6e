package manifest

import (
	"bytes"
	"fmt"
	"time"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"
	"github.com/apache/arrow-go/v18/parquet"
	"github.com/apache/arrow-go/v18/parquet/compress"
	"github.com/apache/arrow-go/v18/parquet/pqarrow"
	"github.com/hamba/avro/v2"
)

// Manifest formats of WriteOptions.Format (table option manifest.format).
const (
	FormatAvro    = "avro"
	FormatParquet = "parquet"
)

// encodeParquet re-encodes the uncompressed Avro container avroData (our
// manifest encoding of some rows) as a Parquet file with the same columns:
// names, nesting and nullability of the Avro schema (records → groups,
// ["null", T] → optional T, arrays → lists, timestamp-millis → INT64
// TIMESTAMP(MILLIS)), as Java's ManifestFile writes with manifest.format =
// parquet and reads back by column name. Compression is
// manifest.compression (zstd by default).
func encodeParquet(avroData []byte, opts *WriteOptions) ([]byte, error) {
	dec, rs, err := openAvro(avroData)
	if err != nil {
		return nil, err
	}
	fields := make([]arrow.Field, len(rs.Fields()))
	for i, f := range rs.Fields() {
		if fields[i], err = arrowField(f.Name(), f.Type()); err != nil {
			return nil, err
		}
	}
	sc := arrow.NewSchema(fields, nil)
	rec, err := avroBatch(dec, rs, sc)
	if err != nil {
		return nil, err
	}
	defer rec.Release()
	codec, level, err := parquetCodec(opts)
	if err != nil {
		return nil, err
	}
	props := parquet.NewWriterProperties(parquet.WithCompression(codec), parquet.WithCompressionLevel(level),
		parquet.WithDictionaryDefault(false), parquet.WithCreatedBy("paimon-go"))
	var out bytes.Buffer
	w, err := pqarrow.NewFileWriter(sc, &out, props, pqarrow.NewArrowWriterProperties())
	if err != nil {
		return nil, err
	}
	if err := w.Write(rec); err != nil {
		w.Close()
		return nil, err
	}
	if err := w.Close(); err != nil {
		return nil, err
	}
	return out.Bytes(), nil
}

// parquetCodec maps manifest.compression to a Parquet codec.
func parquetCodec(o *WriteOptions) (compress.Compression, int, error) {
	level := o.ZstdLevel
	if level == 0 {
		level = 1
	}
	switch o.Compression {
	case "", "zstd", "zstandard":
		return compress.Codecs.Zstd, level, nil
	case "snappy":
		return compress.Codecs.Snappy, compress.DefaultCompressionLevel, nil
	case "gzip", "deflate":
		return compress.Codecs.Gzip, compress.DefaultCompressionLevel, nil
	case "null", "none", "uncompressed":
		return compress.Codecs.Uncompressed, compress.DefaultCompressionLevel, nil
	case "lz4":
		return compress.Codecs.Lz4Raw, compress.DefaultCompressionLevel, nil
	}
	return 0, 0, fmt.Errorf("%w: manifest compression %q for Parquet manifests (%w)", ErrInvalidArgument, o.Compression, ErrUnsupportedFormat)
}

// avroNonNull returns the non-null branch of a ["null", T] union, or s itself.
func avroNonNull(s avro.Schema) (avro.Schema, bool) {
	u, ok := s.(*avro.UnionSchema)
	if !ok {
		return s, false
	}
	for _, t := range u.Types() {
		if t.Type() != avro.Null {
			return t, true
		}
	}
	return s, true
}

// arrowField maps an Avro field type to an Arrow field.
func arrowField(name string, s avro.Schema) (arrow.Field, error) {
	t, nullable := avroNonNull(s)
	var dt arrow.DataType
	switch t := t.(type) {
	case *avro.PrimitiveSchema:
		switch t.Type() {
		case avro.Int:
			dt = arrow.PrimitiveTypes.Int32
		case avro.Long:
			dt = arrow.PrimitiveTypes.Int64
			if l := t.Logical(); l != nil && l.Type() == avro.TimestampMillis {
				dt = &arrow.TimestampType{Unit: arrow.Millisecond}
			}
		case avro.String:
			dt = arrow.BinaryTypes.String
		case avro.Bytes:
			dt = arrow.BinaryTypes.Binary
		case avro.Boolean:
			dt = arrow.FixedWidthTypes.Boolean
		}
	case *avro.ArraySchema:
		ef, err := arrowField("element", t.Items())
		if err != nil {
			return arrow.Field{}, err
		}
		dt = arrow.ListOfField(ef)
	case *avro.RecordSchema:
		var kids []arrow.Field
		for _, f := range t.Fields() {
			k, err := arrowField(f.Name(), f.Type())
			if err != nil {
				return arrow.Field{}, err
			}
			kids = append(kids, k)
		}
		dt = arrow.StructOf(kids...)
	}
	if dt == nil {
		return arrow.Field{}, fmt.Errorf("%w: manifest column %s of Avro type %s", ErrUnsupportedFormat, name, s.Type())
	}
	return arrow.Field{Name: name, Type: dt, Nullable: nullable}, nil
}

// avroUnwrap returns the value of a decoded union: hamba/avro decodes a
// non-null union value into any as map[branch name]value.
func avroUnwrap(s avro.Schema, v any) any {
	if _, ok := s.(*avro.UnionSchema); !ok {
		return v
	}
	if m, ok := v.(map[string]any); ok && len(m) == 1 {
		for _, x := range m {
			return x
		}
	}
	return v
}

// appendAvro appends the decoded Avro value v of schema s to b.
func appendAvro(b array.Builder, s avro.Schema, v any) error {
	v = avroUnwrap(s, v)
	if v == nil {
		b.AppendNull()
		return nil
	}
	t, _ := avroNonNull(s)
	bad := func() error { return fmt.Errorf("%w: value %T for %s", ErrInvalidArgument, v, t.Type()) }
	switch b := b.(type) {
	case *array.Int8Builder: // TINYINT columns of ORC manifests
		x, ok := v.(int)
		if !ok {
			return bad()
		}
		b.Append(int8(x))
	case *array.Int32Builder:
		x, ok := v.(int)
		if !ok {
			return bad()
		}
		b.Append(int32(x))
	case *array.Int64Builder:
		x, ok := v.(int64)
		if !ok {
			return bad()
		}
		b.Append(x)
	case *array.TimestampBuilder:
		switch x := v.(type) {
		case time.Time:
			b.Append(arrow.Timestamp(x.UnixMilli()))
		case int64:
			b.Append(arrow.Timestamp(x))
		default:
			return bad()
		}
	case *array.StringBuilder:
		x, ok := v.(string)
		if !ok {
			return bad()
		}
		b.Append(x)
	case *array.BinaryBuilder:
		x, ok := v.([]byte)
		if !ok {
			return bad()
		}
		b.Append(x)
	case *array.BooleanBuilder:
		x, ok := v.(bool)
		if !ok {
			return bad()
		}
		b.Append(x)
	case *array.ListBuilder:
		xs, ok := v.([]any)
		as, ok2 := t.(*avro.ArraySchema)
		if !ok || !ok2 {
			return bad()
		}
		b.Append(true)
		for _, x := range xs {
			if err := appendAvro(b.ValueBuilder(), as.Items(), x); err != nil {
				return err
			}
		}
	case *array.StructBuilder:
		m, ok := v.(map[string]any)
		rs, ok2 := t.(*avro.RecordSchema)
		if !ok || !ok2 {
			return bad()
		}
		b.Append(true)
		for i, f := range rs.Fields() {
			if err := appendAvro(b.FieldBuilder(i), f.Type(), m[f.Name()]); err != nil {
				return err
			}
		}
	default:
		return bad()
	}
	return nil
}
