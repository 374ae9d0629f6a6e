package rowfmt

import (
	"encoding/base64"
	"fmt"
	"math"
	"strconv"
	"unicode/utf8"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"
	"github.com/apache/arrow-go/v18/arrow/decimal128"
	"github.com/apache/arrow-go/v18/arrow/decimal256"

	"github.com/paimon-go/paimon/types"
	"github.com/paimon-go/paimon/variant"
)

// appendJSON appends the JSON encoding of arr[i] to dst. dt, when not nil,
// is the Paimon type of the column (it supplies TIMESTAMP/TIME precision and
// the local-time-zone flag); it must already have been checked against the
// Arrow type with checkType.
func appendJSON(dst []byte, arr arrow.Array, i int, dt *types.DataType) ([]byte, error) {
	if arr.IsNull(i) {
		return append(dst, "null"...), nil
	}
	if dt != nil && dt.Kind == types.KindVariant {
		js, err := variantJSON(arr, i)
		if err != nil {
			return dst, err
		}
		return appendJSONString(dst, js), nil
	}
	switch a := arr.(type) {
	case *array.String:
		return appendJSONString(dst, a.Value(i)), nil
	case *array.LargeString:
		return appendJSONString(dst, a.Value(i)), nil
	case *array.StringView:
		return appendJSONString(dst, a.Value(i)), nil
	case *array.Struct:
		st := a.DataType().(*arrow.StructType)
		dst = append(dst, '{')
		for j := 0; j < a.NumField(); j++ {
			if j > 0 {
				dst = append(dst, ',')
			}
			dst = appendJSONString(dst, st.Field(j).Name)
			dst = append(dst, ':')
			var err error
			if dst, err = appendJSON(dst, a.Field(j), i, fieldType(dt, j)); err != nil {
				return dst, err
			}
		}
		return append(dst, '}'), nil
	case *array.Map:
		entries, ok := a.ListValues().(*array.Struct)
		if !ok || entries.NumField() != 2 {
			return dst, fmt.Errorf("%w: map entries are %s, want a struct of key and value", ErrUnsupportedType, a.ListValues().DataType())
		}
		keyType, valueType := mapTypes(dt)
		start, end := a.ValueOffsets(i)
		dst = append(dst, '[')
		for k := start; k < end; k++ {
			if k > start {
				dst = append(dst, ',')
			}
			dst = append(dst, '[')
			var err error
			if dst, err = appendJSON(dst, entries.Field(0), int(k), keyType); err != nil {
				return dst, err
			}
			dst = append(dst, ',')
			if dst, err = appendJSON(dst, entries.Field(1), int(k), valueType); err != nil {
				return dst, err
			}
			dst = append(dst, ']')
		}
		return append(dst, ']'), nil
	case array.ListLike:
		values := a.ListValues()
		start, end := a.ValueOffsets(i)
		elem := elemType(dt)
		dst = append(dst, '[')
		for k := start; k < end; k++ {
			if k > start {
				dst = append(dst, ',')
			}
			var err error
			if dst, err = appendJSON(dst, values, int(k), elem); err != nil {
				return dst, err
			}
		}
		return append(dst, ']'), nil
	case *array.Dictionary:
		return appendJSON(dst, a.Dictionary(), a.GetValueIndex(i), dt)
	case array.ExtensionArray:
		return appendJSON(dst, a.Storage(), i, dt)
	}
	if scalarQuoted(arr, i) {
		dst = append(dst, '"')
		var err error
		if dst, err = appendScalar(dst, arr, i, dt); err != nil {
			return dst, err
		}
		return append(dst, '"'), nil
	}
	return appendScalar(dst, arr, i, dt)
}

// appendText appends the plain-text form of arr[i] used by the CSV and table
// formats: strings unquoted (invalid UTF-8 replaced by U+FFFD), scalars as in
// JSONL without quotes, nested values as their JSON text. The caller handles
// nulls.
func appendText(dst []byte, arr arrow.Array, i int, dt *types.DataType) ([]byte, error) {
	if dt != nil && dt.Kind == types.KindVariant {
		js, err := variantJSON(arr, i)
		return append(dst, js...), err
	}
	switch a := arr.(type) {
	case *array.String:
		return appendValidUTF8(dst, a.Value(i)), nil
	case *array.LargeString:
		return appendValidUTF8(dst, a.Value(i)), nil
	case *array.StringView:
		return appendValidUTF8(dst, a.Value(i)), nil
	case *array.Struct, *array.Map, array.ListLike:
		return appendJSON(dst, arr, i, dt)
	case *array.Dictionary:
		return appendText(dst, a.Dictionary(), a.GetValueIndex(i), dt)
	case array.ExtensionArray:
		return appendText(dst, a.Storage(), i, dt)
	}
	return appendScalar(dst, arr, i, dt)
}

// scalarQuoted reports whether the JSON form of the non-null scalar arr[i]
// is a JSON string rather than a number or a boolean.
func scalarQuoted(arr arrow.Array, i int) bool {
	switch a := arr.(type) {
	case *array.Boolean, *array.Int8, *array.Int16, *array.Int32, *array.Int64,
		*array.Uint8, *array.Uint16, *array.Uint32, *array.Uint64, *array.Null:
		return false
	case *array.Float16:
		f := float64(a.Value(i).Float32())
		return math.IsNaN(f) || math.IsInf(f, 0)
	case *array.Float32:
		f := float64(a.Value(i))
		return math.IsNaN(f) || math.IsInf(f, 0)
	case *array.Float64:
		f := a.Value(i)
		return math.IsNaN(f) || math.IsInf(f, 0)
	}
	return true
}

// appendScalar appends the unquoted text of the non-null scalar arr[i].
// Every text that scalarQuoted reports as quoted is plain ASCII without
// characters that JSON would escape.
func appendScalar(dst []byte, arr arrow.Array, i int, dt *types.DataType) ([]byte, error) {
	switch a := arr.(type) {
	case *array.Null:
		return append(dst, "null"...), nil
	case *array.Boolean:
		return strconv.AppendBool(dst, a.Value(i)), nil
	case *array.Int8:
		return strconv.AppendInt(dst, int64(a.Value(i)), 10), nil
	case *array.Int16:
		return strconv.AppendInt(dst, int64(a.Value(i)), 10), nil
	case *array.Int32:
		return strconv.AppendInt(dst, int64(a.Value(i)), 10), nil
	case *array.Int64:
		return strconv.AppendInt(dst, a.Value(i), 10), nil
	case *array.Uint8:
		return strconv.AppendUint(dst, uint64(a.Value(i)), 10), nil
	case *array.Uint16:
		return strconv.AppendUint(dst, uint64(a.Value(i)), 10), nil
	case *array.Uint32:
		return strconv.AppendUint(dst, uint64(a.Value(i)), 10), nil
	case *array.Uint64:
		return strconv.AppendUint(dst, a.Value(i), 10), nil
	case *array.Float16:
		return appendFloat(dst, float64(a.Value(i).Float32()), 32), nil
	case *array.Float32:
		return appendFloat(dst, float64(a.Value(i)), 32), nil
	case *array.Float64:
		return appendFloat(dst, a.Value(i), 64), nil
	case *array.Binary:
		return appendBase64(dst, a.Value(i)), nil
	case *array.LargeBinary:
		return appendBase64(dst, a.Value(i)), nil
	case *array.BinaryView:
		return appendBase64(dst, a.Value(i)), nil
	case *array.FixedSizeBinary:
		return appendBase64(dst, a.Value(i)), nil
	case *array.Decimal128:
		scale := a.DataType().(*arrow.Decimal128Type).Scale
		return appendDecimal128(dst, a.Value(i), scale), nil
	case *array.Decimal256:
		scale := a.DataType().(*arrow.Decimal256Type).Scale
		return appendDecimal256(dst, a.Value(i), scale), nil
	case *array.Date32:
		return appendDate(dst, int64(a.Value(i))), nil
	case *array.Date64:
		return appendDate(dst, floorDiv(int64(a.Value(i)), 86_400_000)), nil
	case *array.Time32:
		unit := a.DataType().(*arrow.Time32Type).Unit
		return appendTime(dst, int64(a.Value(i)), unit, dt), nil
	case *array.Time64:
		unit := a.DataType().(*arrow.Time64Type).Unit
		return appendTime(dst, int64(a.Value(i)), unit, dt), nil
	case *array.Timestamp:
		tt := a.DataType().(*arrow.TimestampType)
		zoned := tt.TimeZone != ""
		if dt != nil {
			zoned = dt.Kind == types.KindLocalZonedTimestamp
		}
		return appendTimestamp(dst, int64(a.Value(i)), tt.Unit, precisionOf(dt, tt.Unit), zoned), nil
	}
	return dst, fmt.Errorf("%w: arrow type %s", ErrUnsupportedType, arr.DataType())
}

// appendFloat appends f the way encoding/json and ECMAScript print numbers:
// the shortest decimal that parses back to the same float of the given bit
// size, in positional notation when 1e-6 <= |f| < 1e21 and in exponent
// notation ("1e-7", "1.5e+21") otherwise. NaN and infinities become
// "NaN", "Infinity" and "-Infinity".
func appendFloat(dst []byte, f float64, bits int) []byte {
	switch {
	case math.IsNaN(f):
		return append(dst, "NaN"...)
	case math.IsInf(f, 1):
		return append(dst, "Infinity"...)
	case math.IsInf(f, -1):
		return append(dst, "-Infinity"...)
	}
	abs := math.Abs(f)
	format := byte('f')
	if abs != 0 {
		if bits == 32 {
			a32 := float32(abs)
			if a32 < 1e-6 || a32 >= 1e21 {
				format = 'e'
			}
		} else if abs < 1e-6 || abs >= 1e21 {
			format = 'e'
		}
	}
	start := len(dst)
	dst = strconv.AppendFloat(dst, f, format, -1, bits)
	if format == 'e' {
		// Drop the leading zero of a two-digit exponent: 1e-07 -> 1e-7.
		n := len(dst) - start
		if n >= 4 && dst[len(dst)-4] == 'e' && dst[len(dst)-3] == '-' && dst[len(dst)-2] == '0' {
			dst[len(dst)-2] = dst[len(dst)-1]
			dst = dst[:len(dst)-1]
		}
	}
	return dst
}

func appendBase64(dst, b []byte) []byte {
	return base64.StdEncoding.AppendEncode(dst, b)
}

// appendDecimal128 appends n × 10^-scale with exactly scale fractional digits.
func appendDecimal128(dst []byte, n decimal128.Num, scale int32) []byte {
	hi, lo := n.HighBits(), n.LowBits()
	if (hi == 0 && lo <= math.MaxInt64) || (hi == -1 && lo > math.MaxInt64) {
		return appendScaled(dst, strconv.AppendInt(nil, int64(lo), 10), scale)
	}
	return appendScaled(dst, n.BigInt().Append(nil, 10), scale)
}

func appendDecimal256(dst []byte, n decimal256.Num, scale int32) []byte {
	return appendScaled(dst, n.BigInt().Append(nil, 10), scale)
}

// appendScaled inserts a decimal point into the decimal text of an unscaled
// integer (optional leading '-') so that exactly scale digits follow it; a
// negative scale appends zeros instead.
func appendScaled(dst, unscaled []byte, scale int32) []byte {
	neg := len(unscaled) > 0 && unscaled[0] == '-'
	digits := unscaled
	if neg {
		digits = unscaled[1:]
		dst = append(dst, '-')
	}
	if scale <= 0 {
		dst = append(dst, digits...)
		if !(len(digits) == 1 && digits[0] == '0') {
			for k := int32(0); k < -scale; k++ {
				dst = append(dst, '0')
			}
		}
		return dst
	}
	s := int(scale)
	if len(digits) <= s {
		dst = append(dst, '0', '.')
		for k := len(digits); k < s; k++ {
			dst = append(dst, '0')
		}
		return append(dst, digits...)
	}
	dst = append(dst, digits[:len(digits)-s]...)
	dst = append(dst, '.')
	return append(dst, digits[len(digits)-s:]...)
}

// floorDiv returns ⌊a/b⌋ for b > 0.
func floorDiv(a, b int64) int64 {
	q := a / b
	if a%b != 0 && a < 0 {
		q--
	}
	return q
}

// floorMod returns a - b×⌊a/b⌋, in [0, b) for b > 0.
func floorMod(a, b int64) int64 {
	return a - floorDiv(a, b)*b
}

// civil converts days since 1970-01-01 to a proleptic Gregorian date (the
// calendar of java.time.LocalDate). It is exact for every int64 day count
// whose year fits in int64 arithmetic below (|days| < 2^62 / 146097).
func civil(days int64) (year int64, month, day int) {
	z := days + 719468 // days since 0000-03-01
	era := floorDiv(z, 146097)
	doe := z - era*146097                                  // [0, 146096]
	yoe := (doe - doe/1460 + doe/36524 - doe/146096) / 365 // [0, 399]
	year = yoe + era*400
	doy := doe - (365*yoe + yoe/4 - yoe/100) // [0, 365], March-based
	mp := (5*doy + 2) / 153                  // [0, 11]
	day = int(doy - (153*mp+2)/5 + 1)
	if mp < 10 {
		month = int(mp + 3)
	} else {
		month = int(mp - 9)
	}
	if month <= 2 {
		year++
	}
	return year, month, day
}

// appendDate appends the ISO-8601 date of a day count, formatted like
// java.time.LocalDate.toString: four-digit years 0000..9999, "+" before
// years above 9999, "-" before negative years.
func appendDate(dst []byte, days int64) []byte {
	y, m, d := civil(days)
	switch {
	case y > 9999:
		dst = append(dst, '+')
		dst = strconv.AppendInt(dst, y, 10)
	case y < 0:
		dst = append(dst, '-')
		dst = appendPadded(dst, -y, 4)
	default:
		dst = appendPadded(dst, y, 4)
	}
	dst = append(dst, '-')
	dst = appendPadded(dst, int64(m), 2)
	dst = append(dst, '-')
	return appendPadded(dst, int64(d), 2)
}

// appendPadded appends v >= 0 in decimal, zero-padded to width digits.
func appendPadded(dst []byte, v int64, width int) []byte {
	var buf [20]byte
	b := strconv.AppendInt(buf[:0], v, 10)
	for k := len(b); k < width; k++ {
		dst = append(dst, '0')
	}
	return append(dst, b...)
}

// unitDigits is the number of fractional second digits of an Arrow unit.
func unitDigits(u arrow.TimeUnit) int {
	switch u {
	case arrow.Millisecond:
		return 3
	case arrow.Microsecond:
		return 6
	case arrow.Nanosecond:
		return 9
	}
	return 0
}

// toNanos splits a count of unit since some origin into whole seconds and
// nanoseconds of the second (floor division, so nanos is in [0, 1e9)).
func toNanos(v int64, u arrow.TimeUnit) (sec, nanos int64) {
	switch u {
	case arrow.Millisecond:
		return floorDiv(v, 1_000), floorMod(v, 1_000) * 1_000_000
	case arrow.Microsecond:
		return floorDiv(v, 1_000_000), floorMod(v, 1_000_000) * 1_000
	case arrow.Nanosecond:
		return floorDiv(v, 1_000_000_000), floorMod(v, 1_000_000_000)
	}
	return v, 0
}

// precisionOf returns the number of fractional digits to print for a
// TIME/TIMESTAMP column: the Paimon precision when dt is known, else the
// digits of the Arrow unit.
func precisionOf(dt *types.DataType, u arrow.TimeUnit) int {
	if dt != nil {
		switch dt.Kind {
		case types.KindTime, types.KindTimestamp, types.KindLocalZonedTimestamp:
			return min(max(dt.Precision, 0), 9)
		}
	}
	return unitDigits(u)
}

// appendFraction appends "." and the fractional digits of nanos (in
// [0, 1e9)). It prints exactly digits digits unless that would drop a
// non-zero digit, in which case it prints the fewest of 3, 6 or 9 digits
// that show the value exactly.
func appendFraction(dst []byte, nanos int64, digits int) []byte {
	for digits < 9 && nanos%pow10[9-digits] != 0 {
		digits = (digits/3 + 1) * 3
	}
	if digits == 0 {
		return dst
	}
	dst = append(dst, '.')
	var buf [9]byte
	v := nanos
	for k := 8; k >= 0; k-- {
		buf[k] = byte('0' + v%10)
		v /= 10
	}
	return append(dst, buf[:digits]...)
}

var pow10 = [10]int64{1, 10, 100, 1_000, 10_000, 100_000, 1_000_000, 10_000_000, 100_000_000, 1_000_000_000}

// appendTimestamp appends "YYYY-MM-DDTHH:MM:SS[.fraction]" for v units since
// the epoch in UTC, with a trailing "Z" when zoned.
func appendTimestamp(dst []byte, v int64, u arrow.TimeUnit, digits int, zoned bool) []byte {
	sec, nanos := toNanos(v, u)
	days, sod := floorDiv(sec, 86_400), floorMod(sec, 86_400)
	dst = appendDate(dst, days)
	dst = append(dst, 'T')
	dst = appendClock(dst, sod)
	dst = appendFraction(dst, nanos, digits)
	if zoned {
		dst = append(dst, 'Z')
	}
	return dst
}

// appendClock appends HH:MM:SS for a second of the day (hours may exceed 23
// when the value lies outside one day).
func appendClock(dst []byte, sod int64) []byte {
	dst = appendPadded(dst, sod/3600, 2)
	dst = append(dst, ':')
	dst = appendPadded(dst, sod/60%60, 2)
	dst = append(dst, ':')
	return appendPadded(dst, sod%60, 2)
}

// appendTime appends "HH:MM:SS[.fraction]" for a time of day of v units.
// Values outside [0, 24h) are not folded into a day: negative values get a
// leading "-" and hours may exceed 23.
func appendTime(dst []byte, v int64, u arrow.TimeUnit, dt *types.DataType) []byte {
	m := uint64(v)
	if v < 0 {
		dst = append(dst, '-')
		m = -m // two's complement magnitude, exact even for math.MinInt64
	}
	per := uint64(pow10[unitDigits(u)])
	sec, frac := m/per, m%per
	nanos := int64(frac) * pow10[9-unitDigits(u)]
	dst = appendPadded(dst, int64(sec/3600), 2)
	dst = append(dst, ':')
	dst = appendPadded(dst, int64(sec/60%60), 2)
	dst = append(dst, ':')
	dst = appendPadded(dst, int64(sec%60), 2)
	return appendFraction(dst, nanos, precisionOf(dt, u))
}

// appendJSONString appends s as a JSON string. Invalid UTF-8 bytes become
// U+FFFD; control characters, '"' and '\\' are escaped, as are U+2028 and
// U+2029; '<', '>' and '&' are not (no HTML escaping).
func appendJSONString(dst []byte, s string) []byte {
	const hex = "0123456789abcdef"
	dst = append(dst, '"')
	start := 0
	for i := 0; i < len(s); {
		b := s[i]
		if b < utf8.RuneSelf {
			if b >= 0x20 && b != '"' && b != '\\' {
				i++
				continue
			}
			dst = append(dst, s[start:i]...)
			switch b {
			case '"', '\\':
				dst = append(dst, '\\', b)
			case '\n':
				dst = append(dst, '\\', 'n')
			case '\r':
				dst = append(dst, '\\', 'r')
			case '\t':
				dst = append(dst, '\\', 't')
			case '\b':
				dst = append(dst, '\\', 'b')
			case '\f':
				dst = append(dst, '\\', 'f')
			default:
				dst = append(dst, '\\', 'u', '0', '0', hex[b>>4], hex[b&0xf])
			}
			i++
			start = i
			continue
		}
		r, size := utf8.DecodeRuneInString(s[i:])
		if r == utf8.RuneError && size == 1 {
			dst = append(dst, s[start:i]...)
			dst = append(dst, "\ufffd"...)
			i += size
			start = i
			continue
		}
		if r == '\u2028' || r == '\u2029' {
			dst = append(dst, s[start:i]...)
			dst = append(dst, '\\', 'u', '2', '0', '2', hex[r&0xf])
			i += size
			start = i
			continue
		}
		i += size
	}
	dst = append(dst, s[start:]...)
	return append(dst, '"')
}

// appendValidUTF8 appends s with each invalid UTF-8 byte replaced by U+FFFD.
func appendValidUTF8(dst []byte, s string) []byte {
	start := 0
	for i := 0; i < len(s); {
		if s[i] < utf8.RuneSelf {
			i++
			continue
		}
		r, size := utf8.DecodeRuneInString(s[i:])
		if r == utf8.RuneError && size == 1 {
			dst = append(dst, s[start:i]...)
			dst = append(dst, "\ufffd"...)
			start = i + 1
		}
		i += size
	}
	return append(dst, s[start:]...)
}

// fieldType returns the Paimon type of the j-th field of a ROW type, or nil.
func fieldType(dt *types.DataType, j int) *types.DataType {
	if dt == nil || dt.Kind != types.KindRow || j >= len(dt.Fields) {
		return nil
	}
	return &dt.Fields[j].Type
}

// elemType returns the element type of an ARRAY type, or nil.
func elemType(dt *types.DataType) *types.DataType {
	if dt == nil || dt.Kind != types.KindArray {
		return nil
	}
	return dt.Elem
}

// mapTypes returns the key and value types of a MAP (or the element type of
// a MULTISET, whose values are INT counts).
func mapTypes(dt *types.DataType) (key, value *types.DataType) {
	if dt == nil {
		return nil, nil
	}
	switch dt.Kind {
	case types.KindMap:
		return dt.Key, dt.Value
	case types.KindMultiset:
		return dt.Elem, nil
	}
	return nil, nil
}

// variantJSON returns the JSON text of the non-null VARIANT arr[i] (a
// struct of binary value and metadata, types.ToArrow) as Java's
// Variant.toJson prints it. Errors wrap variant.ErrMalformed or
// ErrUnsupportedType.
func variantJSON(arr arrow.Array, i int) (string, error) {
	if ext, ok := arr.(array.ExtensionArray); ok {
		arr = ext.Storage()
	}
	st, ok := arr.(*array.Struct)
	if !ok {
		return "", fmt.Errorf("%w: VARIANT stored as %s", ErrUnsupportedType, arr.DataType())
	}
	var value, metadata []byte
	names := st.DataType().(*arrow.StructType)
	for j := 0; j < st.NumField(); j++ {
		b, ok := st.Field(j).(*array.Binary)
		if !ok || st.Field(j).IsNull(i) {
			continue
		}
		switch names.Field(j).Name {
		case "value":
			value = b.Value(i)
		case "metadata":
			metadata = b.Value(i)
		}
	}
	return variant.ToJSON(value, metadata)
}
