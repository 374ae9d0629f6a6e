package fileindex

import (
	"math"

	"github.com/paimon-go/paimon/types"
)

// Hash returns the 64-bit hash Java's FastHash gives value v of type t (the
// Go value a row of t decodes to: int8/16/32/int64 for the integer kinds,
// int32 for DATE and TIME, float32, float64, string, []byte,
// types.Timestamp). ok is false for kinds Java's bloom filter does not index
// (BOOLEAN, DECIMAL, composite types) and for values of another Go type or
// NaN; such a value must never be used to skip a file.
func Hash(t types.DataType, v any) (h uint64, ok bool) {
	switch t.Kind {
	case types.KindChar, types.KindVarChar:
		s, ok := v.(string)
		return HashBytes([]byte(s)), ok
	case types.KindBinary, types.KindVarBinary:
		b, ok := v.([]byte)
		return HashBytes(b), ok
	case types.KindTinyInt, types.KindSmallInt, types.KindInt, types.KindDate, types.KindTime, types.KindBigInt:
		var n int64
		switch x := v.(type) {
		case int8:
			n = int64(x)
		case int16:
			n = int64(x)
		case int32:
			n = int64(x)
		case int64:
			n = x
		case int:
			n = int64(x)
		default:
			return 0, false
		}
		return HashLong(n), true
	case types.KindFloat:
		f, ok := v.(float32)
		if !ok || f != f {
			return 0, false
		}
		return HashLong(int64(int32(math.Float32bits(f)))), true
	case types.KindDouble:
		f, ok := v.(float64)
		if !ok || math.IsNaN(f) {
			return 0, false
		}
		return HashLong(int64(math.Float64bits(f))), true
	case types.KindTimestamp, types.KindLocalZonedTimestamp:
		ts, ok := v.(types.Timestamp)
		if !ok {
			return 0, false
		}
		if t.Precision <= 3 {
			return HashLong(ts.Millis), true
		}
		return HashLong(ts.Millis*1000 + int64(ts.NanoOfMilli/1000)), true
	}
	return 0, false
}

// MightContain reports whether the file indexed by x may hold a row whose
// column equals one of values (an Equal or In conjunct), as Java's
// FileIndexPredicate with BloomFilterFileIndex.visitEqual/visitIn: false only
// when the column has a bloom-filter body, every value hashes, and the filter
// rejects them all, or when the body is empty (the column held only nulls)
// and no value is null. A malformed bloom-filter body returns its error
// (wrapping ErrMalformed).
func (x *Index) MightContain(column string, t types.DataType, values []any) (bool, error) {
	b, found := x.Find(column, TypeBloomFilter)
	if !found || len(values) == 0 {
		return true, nil
	}
	var f *Bloom
	if !b.Empty {
		var err error
		if f, err = DecodeBloom(b.Bytes); err != nil {
			return true, err
		}
	}
	for _, v := range values {
		if v == nil {
			return true, nil
		}
		h, ok := Hash(t, v)
		if !ok {
			return true, nil
		}
		if f != nil && f.MightContainHash(h) {
			return true, nil
		}
	}
	return false, nil
}
