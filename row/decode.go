package row

import (
	"encoding/binary"
	"fmt"
	"math"
	"math/big"

	"github.com/paimon-go/paimon/types"
)

// maxDepth bounds the nesting of ARRAY / MAP / ROW types handled here.
const maxDepth = 64

// Decode returns one Go value per field of b (nil for null), following the
// Go value convention of package types. len(fields) must equal b.Arity()
// (ErrSchema otherwise). Corrupt or truncated bytes give an error wrapping
// ErrCorrupt (this includes a DECIMAL whose unscaled value has more digits
// than its precision, which Java reads as null); Decode never panics.
// Decoded strings and byte slices are copies.
//
// Decoding work is bounded by the row size: a row whose offsets make values
// overlap so that decoding would produce more than about twice as many
// values and bytes as the row holds is rejected as corrupt (Java writers
// never share variable-length regions).
func Decode(fields []types.DataType, b BinaryRow) ([]any, error) {
	if len(fields) != b.arity {
		return nil, fmt.Errorf("%w: %d field types for a row of arity %d", ErrSchema, len(fields), b.arity)
	}
	if b.arity == 0 && len(b.data) == 0 {
		return []any{}, nil
	}
	d := newDecoder(len(b.data))
	return d.row(b.data, fields, 0)
}

// DecodeField returns the value of field pos of b, decoded as type t (nil for
// null). Errors: ErrSchema when pos is outside the row's arity, ErrCorrupt
// for bad bytes.
func DecodeField(t types.DataType, b BinaryRow, pos int) (any, error) {
	if pos < 0 || pos >= b.arity {
		return nil, fmt.Errorf("%w: field %d of a row of arity %d", ErrSchema, pos, b.arity)
	}
	if len(b.data) < FixedPartSize(b.arity) {
		return nil, fmt.Errorf("%w: row of %d bytes shorter than its fixed part (%d)", ErrCorrupt, len(b.data), FixedPartSize(b.arity))
	}
	if b.IsNullAt(pos) {
		return nil, nil
	}
	d := newDecoder(len(b.data))
	return d.value(b.data, BitSetBytes(b.arity)+8*pos, t, 0)
}

type decoder struct {
	budget int // values and bytes still allowed to be produced
}

func newDecoder(size int) *decoder {
	return &decoder{budget: 2*size + 64}
}

func (d *decoder) spend(n int) error {
	d.budget -= n
	if d.budget < 0 {
		return fmt.Errorf("%w: overlapping variable-length data", ErrCorrupt)
	}
	return nil
}

func corruptf(format string, args ...any) error {
	return fmt.Errorf("%w: "+format, append([]any{ErrCorrupt}, args...)...)
}

func (d *decoder) row(data []byte, fields []types.DataType, depth int) ([]any, error) {
	if depth > maxDepth {
		return nil, fmt.Errorf("%w: nesting deeper than %d", ErrUnsupported, maxDepth)
	}
	n := len(fields)
	if len(data) < FixedPartSize(n) {
		return nil, corruptf("row of %d bytes shorter than its fixed part (%d bytes for %d fields)", len(data), FixedPartSize(n), n)
	}
	if err := d.spend(n); err != nil {
		return nil, err
	}
	bits := BitSetBytes(n)
	out := make([]any, n)
	for i, t := range fields {
		bit := i + 8
		if data[bit>>3]&(1<<(bit&7)) != 0 {
			continue
		}
		v, err := d.value(data, bits+8*i, t, depth)
		if err != nil {
			return nil, fmt.Errorf("field %d: %w", i, err)
		}
		out[i] = v
	}
	return out, nil
}

func (d *decoder) array(data []byte, elem types.DataType, depth int) ([]any, error) {
	if depth > maxDepth {
		return nil, fmt.Errorf("%w: nesting deeper than %d", ErrUnsupported, maxDepth)
	}
	if len(data) < 4 {
		return nil, corruptf("array of %d bytes", len(data))
	}
	n := int(int32(binary.LittleEndian.Uint32(data)))
	if n < 0 {
		return nil, corruptf("array with %d elements", n)
	}
	w, err := elemWidth(elem)
	if err != nil {
		return nil, err
	}
	if n > len(data) { // every element takes at least one byte; also guards overflow below
		return nil, corruptf("array of %d elements in %d bytes", n, len(data))
	}
	hdr := arrayHeader(n)
	if hdr+w*n > len(data) {
		return nil, corruptf("array of %d elements of width %d in %d bytes", n, w, len(data))
	}
	if err := d.spend(n); err != nil {
		return nil, err
	}
	out := make([]any, n)
	for i := range out {
		if data[4+(i>>3)]&(1<<(i&7)) != 0 {
			continue
		}
		v, err := d.value(data, hdr+w*i, elem, depth)
		if err != nil {
			return nil, fmt.Errorf("element %d: %w", i, err)
		}
		out[i] = v
	}
	return out, nil
}

func (d *decoder) mapValue(data []byte, kt, vt types.DataType, depth int) (types.Map, error) {
	if len(data) < 4 {
		return types.Map{}, corruptf("map of %d bytes", len(data))
	}
	k := int(int32(binary.LittleEndian.Uint32(data)))
	if k < 0 || k > len(data)-4 {
		return types.Map{}, corruptf("map key array of %d bytes in %d bytes", k, len(data))
	}
	keys, err := d.array(data[4:4+k], kt, depth)
	if err != nil {
		return types.Map{}, fmt.Errorf("map keys: %w", err)
	}
	vals, err := d.array(data[4+k:], vt, depth)
	if err != nil {
		return types.Map{}, fmt.Errorf("map values: %w", err)
	}
	if len(keys) != len(vals) {
		return types.Map{}, corruptf("map with %d keys and %d values", len(keys), len(vals))
	}
	return types.Map{Keys: keys, Values: vals}, nil
}

// varPart resolves an offset-and-size slot value against the section sec.
func varPart(sec []byte, x uint64) ([]byte, error) {
	off := int(int32(int64(x) >> 32))
	size := int(int32(uint32(x)))
	if off < 0 || size < 0 || off > len(sec) || size > len(sec)-off {
		return nil, corruptf("variable-length part at offset %d size %d outside %d bytes", off, size, len(sec))
	}
	return sec[off : off+size], nil
}

// bytesAt reads string/binary data: inline in the slot or in the variable part.
func (d *decoder) bytesAt(sec []byte, slot int) ([]byte, error) {
	x := binary.LittleEndian.Uint64(sec[slot:])
	var src []byte
	if x&inlineMark != 0 {
		n := int((x >> 56) & 0x7f)
		if n > maxInlineBytes {
			return nil, corruptf("inline length %d", n)
		}
		src = sec[slot : slot+n]
	} else {
		var err error
		if src, err = varPart(sec, x); err != nil {
			return nil, err
		}
	}
	if err := d.spend(len(src)); err != nil {
		return nil, err
	}
	out := make([]byte, len(src))
	copy(out, src)
	return out, nil
}

// value decodes the non-null value of type t whose slot starts at sec[slot].
// The caller guarantees that the slot (of the type's width) lies inside sec.
func (d *decoder) value(sec []byte, slot int, t types.DataType, depth int) (any, error) {
	switch t.Kind {
	case types.KindBoolean:
		return sec[slot] != 0, nil
	case types.KindTinyInt:
		return int8(sec[slot]), nil
	case types.KindSmallInt:
		return int16(binary.LittleEndian.Uint16(sec[slot:])), nil
	case types.KindInt, types.KindDate, types.KindTime:
		return int32(binary.LittleEndian.Uint32(sec[slot:])), nil
	case types.KindBigInt:
		return int64(binary.LittleEndian.Uint64(sec[slot:])), nil
	case types.KindFloat:
		return math.Float32frombits(binary.LittleEndian.Uint32(sec[slot:])), nil
	case types.KindDouble:
		return math.Float64frombits(binary.LittleEndian.Uint64(sec[slot:])), nil
	case types.KindChar, types.KindVarChar:
		b, err := d.bytesAt(sec, slot)
		if err != nil {
			return nil, err
		}
		return string(b), nil
	case types.KindBinary, types.KindVarBinary, types.KindBlob:
		return d.bytesAt(sec, slot)
	case types.KindDecimal:
		x := binary.LittleEndian.Uint64(sec[slot:])
		if t.Precision <= maxCompactDecimalPrecision {
			dec := types.Decimal{Unscaled: big.NewInt(int64(x)), Precision: t.Precision, Scale: t.Scale}
			if err := checkDecimal(t, dec); err != nil {
				return nil, fmt.Errorf("%w: %v", ErrCorrupt, err)
			}
			return dec, nil
		}
		b, err := varPart(sec, x)
		if err != nil {
			return nil, err
		}
		if len(b) == 0 {
			return nil, corruptf("decimal with zero-length unscaled value")
		}
		if err := d.spend(len(b)); err != nil {
			return nil, err
		}
		dec := types.Decimal{Unscaled: fromUnscaledBytes(b), Precision: t.Precision, Scale: t.Scale}
		if err := checkDecimal(t, dec); err != nil {
			return nil, fmt.Errorf("%w: %v", ErrCorrupt, err)
		}
		return dec, nil
	case types.KindTimestamp, types.KindLocalZonedTimestamp:
		x := binary.LittleEndian.Uint64(sec[slot:])
		if t.Precision <= maxCompactTimestampPrecision {
			return types.Timestamp{Millis: int64(x)}, nil
		}
		nanos := int32(uint32(x))
		if nanos < 0 || nanos > 999_999 {
			return nil, corruptf("timestamp nano of millisecond %d", nanos)
		}
		off := int(int32(int64(x) >> 32))
		if off < 0 || off > len(sec)-8 {
			return nil, corruptf("timestamp millis at offset %d outside %d bytes", off, len(sec))
		}
		return types.Timestamp{Millis: int64(binary.LittleEndian.Uint64(sec[off:])), NanoOfMilli: nanos}, nil
	case types.KindArray:
		if t.Elem == nil {
			return nil, fmt.Errorf("%w: ARRAY without element type", ErrUnsupported)
		}
		b, err := varPart(sec, binary.LittleEndian.Uint64(sec[slot:]))
		if err != nil {
			return nil, err
		}
		return d.array(b, *t.Elem, depth+1)
	case types.KindMap, types.KindMultiset:
		kt, vt := t.Key, t.Value
		if t.Kind == types.KindMultiset {
			count := types.DataType{Kind: types.KindInt}
			kt, vt = t.Elem, &count
		}
		if kt == nil || vt == nil {
			return nil, fmt.Errorf("%w: MAP without key or value type", ErrUnsupported)
		}
		b, err := varPart(sec, binary.LittleEndian.Uint64(sec[slot:]))
		if err != nil {
			return nil, err
		}
		return d.mapValue(b, *kt, *vt, depth+1)
	case types.KindRow:
		b, err := varPart(sec, binary.LittleEndian.Uint64(sec[slot:]))
		if err != nil {
			return nil, err
		}
		return d.row(b, FieldTypes(t.Fields), depth+1)
	}
	return nil, fmt.Errorf("%w: %s", ErrUnsupported, t)
}
