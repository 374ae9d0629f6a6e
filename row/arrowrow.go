package row

import (
	"encoding/binary"
	"math"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"

	"github.com/paimon-go/paimon/types"
)

// ArrowEncoder builds the BinaryRow of row i of some Arrow columns (one per
// field) straight from the arrays, into a buffer it reuses: the bytes Encode
// builds from the columns' Go values (types.ArrowView), without boxing a
// value or allocating a row. Writers hash bucket keys with it (Java's
// FixedBucketRowKeyExtractor serializes the bucket key with a reused
// BinaryRowWriter too). Only scalar fields whose column has the Arrow type
// types.ToArrow gives them are taken: BOOLEAN, TINYINT, SMALLINT, INT,
// BIGINT, FLOAT, DOUBLE, DATE, TIME, CHAR, VARCHAR, BINARY, VARBINARY.
// An ArrowEncoder is not safe for concurrent use.
type ArrowEncoder struct {
	cols  []arrow.Array
	kinds []types.Kind
	bits  int
	fixed int
	s     section
}

// NewArrowEncoder returns an encoder of the rows of cols as BinaryRows of
// the types fields, and false when a field is of another type or its column
// does not have the field's Arrow type (then use Encode).
func NewArrowEncoder(fields []types.DataType, cols []arrow.Array) (*ArrowEncoder, bool) {
	if len(fields) != len(cols) {
		return nil, false
	}
	e := &ArrowEncoder{cols: cols, kinds: make([]types.Kind, len(fields)), bits: BitSetBytes(len(fields)), fixed: FixedPartSize(len(fields))}
	for k, t := range fields {
		ok := false
		switch cols[k].(type) {
		case *array.Boolean:
			ok = t.Kind == types.KindBoolean
		case *array.Int8:
			ok = t.Kind == types.KindTinyInt
		case *array.Int16:
			ok = t.Kind == types.KindSmallInt
		case *array.Int32:
			ok = t.Kind == types.KindInt
		case *array.Int64:
			ok = t.Kind == types.KindBigInt
		case *array.Float32:
			ok = t.Kind == types.KindFloat
		case *array.Float64:
			ok = t.Kind == types.KindDouble
		case *array.Date32:
			ok = t.Kind == types.KindDate
		case *array.Time32:
			ok = t.Kind == types.KindTime
		case *array.String:
			ok = t.Kind == types.KindChar || t.Kind == types.KindVarChar
		case *array.Binary:
			ok = t.Kind == types.KindBinary || t.Kind == types.KindVarBinary
		}
		if !ok {
			return nil, false
		}
		e.kinds[k] = t.Kind
	}
	e.s.buf = make([]byte, e.fixed, e.fixed+64)
	return e, true
}

// Row returns the BinaryRow (row kind +I) of row i. It shares the encoder's
// buffer: it is valid until the next call of Row.
func (e *ArrowEncoder) Row(i int) BinaryRow {
	b := e.s.buf[:e.fixed]
	clear(b)
	e.s.buf = b
	for k, col := range e.cols {
		if col.IsNull(i) {
			bit := k + 8
			b[bit>>3] |= 1 << (bit & 7)
			continue
		}
		slot := e.bits + 8*k
		switch a := col.(type) {
		case *array.Boolean:
			if a.Value(i) {
				b[slot] = 1
			}
		case *array.Int8:
			b[slot] = byte(a.Value(i))
		case *array.Int16:
			binary.LittleEndian.PutUint16(b[slot:], uint16(a.Value(i)))
		case *array.Int32:
			binary.LittleEndian.PutUint32(b[slot:], uint32(a.Value(i)))
		case *array.Int64:
			binary.LittleEndian.PutUint64(b[slot:], uint64(a.Value(i)))
		case *array.Float32:
			binary.LittleEndian.PutUint32(b[slot:], math.Float32bits(a.Value(i)))
		case *array.Float64:
			binary.LittleEndian.PutUint64(b[slot:], math.Float64bits(a.Value(i)))
		case *array.Date32:
			binary.LittleEndian.PutUint32(b[slot:], uint32(a.Value(i)))
		case *array.Time32:
			binary.LittleEndian.PutUint32(b[slot:], uint32(a.Value(i)))
		case *array.String:
			e.s.writeString(slot, a.Value(i))
		case *array.Binary:
			e.s.writeBytes(slot, a.Value(i))
		}
		b = e.s.buf // the variable part may have grown it
	}
	return BinaryRow{arity: len(e.cols), data: e.s.buf}
}

// writeString is writeBytes of a string's bytes, without copying them.
func (s *section) writeString(slot int, x string) {
	if len(x) <= maxInlineBytes {
		var v uint64
		for i := range len(x) {
			v |= uint64(x[i]) << (8 * i)
		}
		s.putSlot(slot, v|(uint64(0x80|len(x))<<56))
		return
	}
	off := len(s.buf)
	s.buf = append(s.buf, x...)
	for pad := roundUp8(len(x)) - len(x); pad > 0; pad-- {
		s.buf = append(s.buf, 0)
	}
	s.putSlot(slot, offsetAndSize(off, len(x)))
}
