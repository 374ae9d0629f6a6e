package manifest

import (
	"bytes"
	"context"
	"fmt"
	"strconv"

	"github.com/hamba/avro/v2"

	"github.com/paimon-go/paimon/format"
	"github.com/paimon-go/paimon/format/orc"
	"github.com/paimon-go/paimon/types"
)

// FormatORC is the manifest.format value of ORC manifests.
const FormatORC = "orc"

// tinyIntFields are the manifest columns Java declares TINYINT (ManifestEntry
// and IndexManifestEntry _KIND, DataFileMeta _FILE_SOURCE); Avro stores them
// as int, ORC as tinyint.
var tinyIntFields = map[string]bool{"_KIND": true, "_FILE_SOURCE": true}

// encodeORC re-encodes the uncompressed Avro container avroData (our
// manifest encoding of some rows) as an ORC file with package format/orc's
// writer, as Java's ManifestFile / ManifestList write with manifest.format =
// orc: the columns of Java's row type (ManifestEntry.SCHEMA and the others
// behind VersionedObjectSerializer.versionType, _VERSION first with id -1,
// other fields numbered from 0 in each row), which Java and our reader
// match by name. Compression is manifest.compression (zstd by default) at
// file.compression.zstd-level, as Java passes the manifest compression to
// its ORC writer.
func encodeORC(avroData []byte, opts *WriteOptions) ([]byte, error) {
	dec, rs, err := openAvro(avroData)
	if err != nil {
		return nil, err
	}
	fields, err := paimonFields(rs)
	if err != nil {
		return nil, err
	}
	codec, err := orcCodec(opts.Compression)
	if err != nil {
		return nil, err
	}
	level := opts.ZstdLevel
	if level == 0 {
		level = 1
	}
	var out bytes.Buffer
	w, err := orc.NewWriter(context.Background(), &out, "manifest", fields, format.WriteOptions{Options: map[string]string{
		orc.OptionFileCompression: codec, orc.OptionZstdLevel: strconv.Itoa(level),
	}})
	if err != nil {
		return nil, err
	}
	rec, err := avroBatch(dec, rs, types.SchemaToArrow(fields))
	if err != nil {
		return nil, err
	}
	defer rec.Release()
	if err := w.Write(context.Background(), rec); err != nil {
		return nil, err
	}
	if _, err := w.Close(context.Background()); err != nil {
		return nil, err
	}
	return out.Bytes(), nil
}

// orcCodec maps manifest.compression to an ORC compression kind.
func orcCodec(c string) (string, error) {
	switch c {
	case "", "zstd", "zstandard":
		return "zstd", nil
	case "null", "none", "uncompressed":
		return "none", nil
	case "snappy", "lz4", "zlib":
		return c, nil
	case "deflate", "gzip":
		return "zlib", nil
	}
	return "", fmt.Errorf("%w: manifest compression %q for ORC manifests (%w)", ErrInvalidArgument, c, ErrUnsupportedFormat)
}

// paimonFields returns the Paimon fields of a manifest record schema:
// _VERSION gets id -1, the other fields their position after it.
func paimonFields(rs *avro.RecordSchema) ([]types.DataField, error) {
	out := make([]types.DataField, 0, len(rs.Fields()))
	id := 0
	for _, f := range rs.Fields() {
		t, err := paimonType(f.Name(), f.Type())
		if err != nil {
			return nil, err
		}
		fid := id
		if f.Name() == "_VERSION" {
			fid = -1
		} else {
			id++
		}
		out = append(out, types.DataField{ID: fid, Name: f.Name(), Type: t})
	}
	return out, nil
}

// paimonType maps the Avro type of manifest column name to Java's Paimon
// type of it.
func paimonType(name string, s avro.Schema) (types.DataType, error) {
	t, nullable := avroNonNull(s)
	var dt types.DataType
	switch t := t.(type) {
	case *avro.PrimitiveSchema:
		switch t.Type() {
		case avro.Int:
			dt = types.Int()
			if tinyIntFields[name] {
				dt = types.TinyInt()
			}
		case avro.Long:
			dt = types.BigInt()
			if l := t.Logical(); l != nil && l.Type() == avro.TimestampMillis {
				dt = types.TimestampOf(3)
			}
		case avro.String:
			dt = types.String()
		case avro.Bytes:
			dt = types.Bytes()
		case avro.Boolean:
			dt = types.Boolean()
		default:
			return dt, fmt.Errorf("%w: manifest column %s of Avro type %s", ErrUnsupportedFormat, name, s.Type())
		}
	case *avro.ArraySchema:
		e, err := paimonType("element", t.Items())
		if err != nil {
			return dt, err
		}
		dt = types.ArrayOf(e)
	case *avro.RecordSchema:
		fs, err := paimonFields(t)
		if err != nil {
			return dt, err
		}
		dt = types.RowOf(fs...)
	default:
		return dt, fmt.Errorf("%w: manifest column %s of Avro type %s", ErrUnsupportedFormat, name, s.Type())
	}
	dt.Nullable = nullable
	return dt, nil
}
