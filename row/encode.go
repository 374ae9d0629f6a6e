package row

import (
	"encoding/binary"
	"fmt"
	"math"
	"math/big"

	"github.com/paimon-go/paimon/types"
)

// Precision limits of the compact encodings (Decimal.MAX_COMPACT_PRECISION,
// Timestamp.isCompact).
const (
	maxCompactDecimalPrecision   = 18
	maxCompactTimestampPrecision = 3
	maxInlineBytes               = 7 // BinarySection.MAX_FIX_PART_DATA_SIZE
	inlineMark                   = uint64(1) << 63
)

// Encode builds a BinaryRow with row kind +I from one Go value per field, as
// Java's BinaryRowWriter / RowHelper do. values[i] must be nil (null) or the Go
// value of fields[i] (see package types). len(values) must equal len(fields).
//
// Nulls zero their slot, except non-compact DECIMAL (precision > 18) and
// non-compact TIMESTAMP (precision > 3), which still reserve 16 resp. 8 zero
// bytes in the variable part and keep the offset in the slot, like Java.
// Timestamps of precision <= 3 store only the milliseconds (the
// nanoseconds are dropped, like Java). Errors wrap ErrValue, ErrSchema or
// ErrUnsupported.
func Encode(fields []types.DataType, values []any) (BinaryRow, error) {
	if len(fields) != len(values) {
		return BinaryRow{}, fmt.Errorf("%w: %d values for %d fields", ErrSchema, len(values), len(fields))
	}
	b, err := encodeRow(fields, values, 0)
	if err != nil {
		return BinaryRow{}, err
	}
	return BinaryRow{arity: len(fields), data: b}, nil
}

// EncodeKind is Encode with the given row kind in the header byte.
func EncodeKind(kind byte, fields []types.DataType, values []any) (BinaryRow, error) {
	r, err := Encode(fields, values)
	if err != nil {
		return BinaryRow{}, err
	}
	r.data[0] = kind
	return r, nil
}

// FieldTypes returns the types of the given fields, as Encode and Decode take them.
func FieldTypes(fields []types.DataField) []types.DataType {
	out := make([]types.DataType, len(fields))
	for i, f := range fields {
		out[i] = f.Type
	}
	return out
}

// roundUp8 rounds n up to a multiple of 8 (roundNumberOfBytesToNearestWord).
func roundUp8(n int) int {
	return (n + 7) &^ 7
}

// section is a BinaryRow or BinaryArray under construction: the fixed part
// followed by the 8-byte aligned variable part (the cursor is len(buf)).
type section struct {
	buf   []byte
	array bool // BinaryArrayWriter semantics (NaN normalisation)
}

// appendVar appends data to the variable part, zero padded to 8 bytes, and
// returns its offset.
func (s *section) appendVar(data []byte) int {
	off := len(s.buf)
	s.buf = append(s.buf, data...)
	for pad := roundUp8(len(data)) - len(data); pad > 0; pad-- {
		s.buf = append(s.buf, 0)
	}
	return off
}

// reserve appends n zero bytes to the variable part and returns their offset.
func (s *section) reserve(n int) int {
	off := len(s.buf)
	s.buf = append(s.buf, make([]byte, n)...)
	return off
}

func (s *section) putSlot(slot int, v uint64) {
	binary.LittleEndian.PutUint64(s.buf[slot:], v)
}

func offsetAndSize(off, size int) uint64 {
	return uint64(off)<<32 | uint64(uint32(size))
}

func encodeRow(fields []types.DataType, values []any, depth int) ([]byte, error) {
	if depth > maxDepth {
		return nil, fmt.Errorf("%w: nesting deeper than %d", ErrUnsupported, maxDepth)
	}
	n := len(fields)
	bits := BitSetBytes(n)
	s := &section{buf: make([]byte, FixedPartSize(n), FixedPartSize(n)+32)}
	for i, t := range fields {
		slot := bits + 8*i
		v := values[i]
		if v == nil {
			bit := i + 8
			s.buf[bit>>3] |= 1 << (bit & 7)
			switch {
			case t.Kind == types.KindDecimal && t.Precision > maxCompactDecimalPrecision:
				s.putSlot(slot, offsetAndSize(s.reserve(16), 0))
			case isTimestamp(t.Kind) && t.Precision > maxCompactTimestampPrecision:
				s.putSlot(slot, offsetAndSize(s.reserve(8), 0))
			}
			continue
		}
		if err := s.writeValue(slot, t, v, depth); err != nil {
			return nil, fmt.Errorf("field %d: %w", i, err)
		}
	}
	return s.buf, nil
}

func isTimestamp(k types.Kind) bool {
	return k == types.KindTimestamp || k == types.KindLocalZonedTimestamp
}

// elemWidth is BinaryArray.calculateFixLengthPartSize.
func elemWidth(t types.DataType) (int, error) {
	switch t.Kind {
	case types.KindBoolean, types.KindTinyInt:
		return 1, nil
	case types.KindSmallInt:
		return 2, nil
	case types.KindInt, types.KindFloat, types.KindDate, types.KindTime:
		return 4, nil
	case types.KindChar, types.KindVarChar, types.KindBinary, types.KindVarBinary, types.KindDecimal,
		types.KindBigInt, types.KindDouble, types.KindTimestamp, types.KindLocalZonedTimestamp,
		types.KindArray, types.KindMultiset, types.KindMap, types.KindRow, types.KindBlob:
		return 8, nil
	}
	return 0, fmt.Errorf("%w: %s in an array", ErrUnsupported, t)
}

// arrayHeader is BinaryArray.calculateHeaderInBytes.
func arrayHeader(n int) int {
	return 4 + ((n+31)/32)*4
}

func encodeArray(elem types.DataType, values []any, depth int) ([]byte, error) {
	if depth > maxDepth {
		return nil, fmt.Errorf("%w: nesting deeper than %d", ErrUnsupported, maxDepth)
	}
	w, err := elemWidth(elem)
	if err != nil {
		return nil, err
	}
	n := len(values)
	hdr := arrayHeader(n)
	s := &section{buf: make([]byte, roundUp8(hdr+w*n)), array: true}
	binary.LittleEndian.PutUint32(s.buf, uint32(n))
	for i, v := range values {
		slot := hdr + w*i
		if v == nil {
			s.buf[4+(i>>3)] |= 1 << (i & 7)
			continue // element bytes are already zero (setNullAt(pos, type))
		}
		if err := s.writeValue(slot, elem, v, depth); err != nil {
			return nil, fmt.Errorf("element %d: %w", i, err)
		}
	}
	return s.buf, nil
}

func encodeMap(kt, vt types.DataType, m types.Map, depth int) ([]byte, error) {
	if len(m.Keys) != len(m.Values) {
		return nil, fmt.Errorf("%w: map with %d keys and %d values", ErrValue, len(m.Keys), len(m.Values))
	}
	kb, err := encodeArray(kt, m.Keys, depth)
	if err != nil {
		return nil, fmt.Errorf("map keys: %w", err)
	}
	vb, err := encodeArray(vt, m.Values, depth)
	if err != nil {
		return nil, fmt.Errorf("map values: %w", err)
	}
	out := make([]byte, 4, 4+len(kb)+len(vb))
	binary.LittleEndian.PutUint32(out, uint32(len(kb)))
	out = append(out, kb...)
	return append(out, vb...), nil
}

func typeErr(t types.DataType, v any) error {
	return fmt.Errorf("%w: Go value of type %T for %s", ErrValue, v, t)
}

// writeValue writes the non-null value v of type t into the slot at offset
// slot (and the variable part when needed).
func (s *section) writeValue(slot int, t types.DataType, v any, depth int) error {
	b := s.buf
	switch t.Kind {
	case types.KindBoolean:
		x, ok := v.(bool)
		if !ok {
			return typeErr(t, v)
		}
		if x {
			b[slot] = 1
		}
	case types.KindTinyInt:
		x, ok := v.(int8)
		if !ok {
			return typeErr(t, v)
		}
		b[slot] = byte(x)
	case types.KindSmallInt:
		x, ok := v.(int16)
		if !ok {
			return typeErr(t, v)
		}
		binary.LittleEndian.PutUint16(b[slot:], uint16(x))
	case types.KindInt, types.KindDate, types.KindTime:
		x, ok := v.(int32)
		if !ok {
			return typeErr(t, v)
		}
		binary.LittleEndian.PutUint32(b[slot:], uint32(x))
	case types.KindBigInt:
		x, ok := v.(int64)
		if !ok {
			return typeErr(t, v)
		}
		binary.LittleEndian.PutUint64(b[slot:], uint64(x))
	case types.KindFloat:
		x, ok := v.(float32)
		if !ok {
			return typeErr(t, v)
		}
		bits := math.Float32bits(x)
		if s.array && x != x {
			bits = 0x7fc00000 // Java Float.NaN, BinaryArrayWriter.writeFloat
		}
		binary.LittleEndian.PutUint32(b[slot:], bits)
	case types.KindDouble:
		x, ok := v.(float64)
		if !ok {
			return typeErr(t, v)
		}
		bits := math.Float64bits(x)
		if s.array && x != x {
			bits = 0x7ff8000000000000 // Java Double.NaN
		}
		binary.LittleEndian.PutUint64(b[slot:], bits)
	case types.KindChar, types.KindVarChar:
		x, ok := v.(string)
		if !ok {
			return typeErr(t, v)
		}
		s.writeBytes(slot, []byte(x))
	case types.KindBinary, types.KindVarBinary, types.KindBlob:
		x, ok := v.([]byte)
		if !ok {
			return typeErr(t, v)
		}
		s.writeBytes(slot, x)
	case types.KindDecimal:
		x, ok := v.(types.Decimal)
		if !ok {
			return typeErr(t, v)
		}
		return s.writeDecimal(slot, t, x)
	case types.KindTimestamp, types.KindLocalZonedTimestamp:
		x, ok := v.(types.Timestamp)
		if !ok {
			return typeErr(t, v)
		}
		if t.Precision <= maxCompactTimestampPrecision {
			s.putSlot(slot, uint64(x.Millis))
			return nil
		}
		if x.NanoOfMilli < 0 || x.NanoOfMilli > 999_999 {
			return fmt.Errorf("%w: nano of millisecond %d outside 0..999999", ErrValue, x.NanoOfMilli)
		}
		off := s.reserve(8)
		binary.LittleEndian.PutUint64(s.buf[off:], uint64(x.Millis))
		s.putSlot(slot, offsetAndSize(off, int(x.NanoOfMilli)))
	case types.KindArray:
		x, ok := v.([]any)
		if !ok || t.Elem == nil {
			return typeErr(t, v)
		}
		data, err := encodeArray(*t.Elem, x, depth+1)
		if err != nil {
			return err
		}
		s.putSlot(slot, offsetAndSize(s.appendVar(data), len(data)))
	case types.KindMap, types.KindMultiset:
		x, ok := v.(types.Map)
		if !ok {
			return typeErr(t, v)
		}
		kt, vt := t.Key, t.Value
		if t.Kind == types.KindMultiset {
			count := types.DataType{Kind: types.KindInt} // MULTISET counts: INT NOT NULL
			kt, vt = t.Elem, &count
		}
		if kt == nil || vt == nil {
			return typeErr(t, v)
		}
		data, err := encodeMap(*kt, *vt, x, depth+1)
		if err != nil {
			return err
		}
		s.putSlot(slot, offsetAndSize(s.appendVar(data), len(data)))
	case types.KindRow:
		x, ok := v.([]any)
		if !ok {
			return typeErr(t, v)
		}
		if len(x) != len(t.Fields) {
			return fmt.Errorf("%w: nested row with %d values for %d fields", ErrValue, len(x), len(t.Fields))
		}
		data, err := encodeRow(FieldTypes(t.Fields), x, depth+1)
		if err != nil {
			return err
		}
		s.putSlot(slot, offsetAndSize(s.appendVar(data), len(data)))
	default:
		return fmt.Errorf("%w: %s", ErrUnsupported, t)
	}
	return nil
}

// writeBytes stores string/binary data inline (<= 7 bytes: data in the slot's
// low bytes, 0x80|len in the top byte) or in the variable part.
func (s *section) writeBytes(slot int, data []byte) {
	if len(data) <= maxInlineBytes {
		var x uint64
		for i, c := range data {
			x |= uint64(c) << (8 * i)
		}
		s.putSlot(slot, x|(uint64(0x80|len(data))<<56))
		return
	}
	s.putSlot(slot, offsetAndSize(s.appendVar(data), len(data)))
}

// checkDecimal verifies d fits DECIMAL(t.Precision, t.Scale) exactly.
func checkDecimal(t types.DataType, d types.Decimal) error {
	if d.Unscaled == nil {
		return fmt.Errorf("%w: decimal without unscaled value", ErrValue)
	}
	if d.Scale != t.Scale {
		return fmt.Errorf("%w: decimal of scale %d for DECIMAL(%d, %d)", ErrValue, d.Scale, t.Precision, t.Scale)
	}
	if t.Precision < 1 || t.Precision > 38 {
		return fmt.Errorf("%w: DECIMAL precision %d", ErrUnsupported, t.Precision)
	}
	if t.Precision <= maxCompactDecimalPrecision && d.Unscaled.IsInt64() {
		limit := int64(1)
		for i := 0; i < t.Precision; i++ {
			limit *= 10
		}
		if v := d.Unscaled.Int64(); v < limit && v > -limit {
			return nil
		}
		return fmt.Errorf("%w: %s×10^-%d exceeds DECIMAL(%d, %d)", ErrValue, d.Unscaled, d.Scale, t.Precision, t.Scale)
	}
	// |x| < 2^BitLen <= 2^(3.321*p) < 10^p: no need to build 10^p.
	if d.Unscaled.BitLen() <= t.Precision*3321/1000 {
		return nil
	}
	limit := new(big.Int).Exp(big.NewInt(10), big.NewInt(int64(t.Precision)), nil)
	if new(big.Int).Abs(d.Unscaled).Cmp(limit) >= 0 {
		return fmt.Errorf("%w: %s×10^-%d exceeds DECIMAL(%d, %d)", ErrValue, d.Unscaled, d.Scale, t.Precision, t.Scale)
	}
	return nil
}

func (s *section) writeDecimal(slot int, t types.DataType, d types.Decimal) error {
	if err := checkDecimal(t, d); err != nil {
		return err
	}
	if t.Precision <= maxCompactDecimalPrecision {
		s.putSlot(slot, uint64(d.Unscaled.Int64()))
		return nil
	}
	data := unscaledBytes(d.Unscaled)
	if len(data) > 16 {
		return fmt.Errorf("%w: decimal needs %d bytes", ErrValue, len(data))
	}
	off := s.reserve(16)
	copy(s.buf[off:], data)
	s.putSlot(slot, offsetAndSize(off, len(data)))
	return nil
}

// unscaledBytes is Java's BigInteger.toByteArray: the minimal big-endian
// two's-complement bytes (at least one byte).
func unscaledBytes(x *big.Int) []byte {
	if x.Sign() >= 0 {
		b := x.Bytes()
		if len(b) == 0 || b[0]&0x80 != 0 {
			b = append([]byte{0}, b...)
		}
		return b
	}
	// -x-1 >= 0; its minimal sign-extended length gives the byte count.
	m := new(big.Int).Neg(x)
	m.Sub(m, big.NewInt(1))
	n := m.BitLen()/8 + 1
	mod := new(big.Int).Lsh(big.NewInt(1), uint(8*n))
	v := mod.Add(mod, x)
	b := v.Bytes()
	for len(b) < n { // cannot happen for n computed above, kept for safety
		b = append([]byte{0}, b...)
	}
	return b
}

// fromUnscaledBytes is Java's new BigInteger(bytes): big-endian two's complement.
func fromUnscaledBytes(b []byte) *big.Int {
	x := new(big.Int).SetBytes(b)
	if len(b) > 0 && b[0]&0x80 != 0 {
		x.Sub(x, new(big.Int).Lsh(big.NewInt(1), uint(8*len(b))))
	}
	return x
}
