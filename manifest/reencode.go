package manifest

import (
	"bytes"
	"fmt"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"
	"github.com/apache/arrow-go/v18/arrow/memory"
	"github.com/hamba/avro/v2"
	"github.com/hamba/avro/v2/ocf"
)

// openAvro opens the uncompressed Avro container avroData (our manifest
// encoding of some rows) for re-encoding in another manifest.format, with
// its record schema. Errors wrap ErrInvalidArgument for a schema that is
// not a record.
func openAvro(avroData []byte) (*ocf.Decoder, *avro.RecordSchema, error) {
	dec, err := ocf.NewDecoder(bytes.NewReader(avroData))
	if err != nil {
		return nil, nil, err
	}
	rs, ok := dec.Schema().(*avro.RecordSchema)
	if !ok {
		return nil, nil, fmt.Errorf("%w: manifest schema is not a record", ErrInvalidArgument)
	}
	return dec, rs, nil
}

// avroBatch decodes every row of dec into one batch of schema sc, whose
// column i holds field i of rs (appendAvro); the caller releases it. An
// error appending a value names its column.
func avroBatch(dec *ocf.Decoder, rs *avro.RecordSchema, sc *arrow.Schema) (arrow.RecordBatch, error) {
	b := array.NewRecordBuilder(memory.DefaultAllocator, sc)
	defer b.Release()
	for dec.HasNext() {
		var row map[string]any
		if err := dec.Decode(&row); err != nil {
			return nil, err
		}
		for i, f := range rs.Fields() {
			if err := appendAvro(b.Field(i), f.Type(), row[f.Name()]); err != nil {
				return nil, fmt.Errorf("manifest: column %s: %w", f.Name(), err)
			}
		}
	}
	if err := dec.Error(); err != nil {
		return nil, err
	}
	return b.NewRecordBatch(), nil
}
