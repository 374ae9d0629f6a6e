package orc

import (
	"encoding/binary"
	"fmt"
	"math"
	"time"
	"unicode/utf8"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"
	"github.com/apache/arrow-go/v18/arrow/decimal128"
)

// colReader decodes one ORC column of one stripe into an Arrow builder.
type colReader interface {
	// next appends n entries to b. parentNull, when non-nil, has length n
	// and marks entries whose ancestor struct is null: those are appended
	// as nulls and consume nothing from the column's streams (ORC stores
	// child values only under non-null parents).
	next(b array.Builder, n int, parentNull []bool) error
}

// nullColumn stands for a column absent from the file: all nulls.
type nullColumn struct{}

func (nullColumn) next(b array.Builder, n int, _ []bool) error {
	b.AppendNulls(n)
	return nil
}

// presence decodes a column's optional PRESENT stream.
type presence struct {
	present *boolRLE // nil: every value under a non-null parent is present
	what    string
}

// validity returns which of the n entries are non-null and how many are.
func (p *presence) validity(n int, parentNull []bool) ([]bool, int, error) {
	valid := make([]bool, n)
	k := 0
	if parentNull == nil {
		if p.present == nil {
			for i := range valid {
				valid[i] = true
			}
			return valid, n, nil
		}
		if err := p.present.next(valid); err != nil {
			return nil, 0, err
		}
	} else {
		m := 0
		for _, pn := range parentNull {
			if !pn {
				m++
			}
		}
		bits := make([]bool, m)
		if p.present == nil {
			for i := range bits {
				bits[i] = true
			}
		} else if err := p.present.next(bits); err != nil {
			return nil, 0, err
		}
		j := 0
		for i, pn := range parentNull {
			if !pn {
				valid[i] = bits[j]
				j++
			}
		}
	}
	for _, v := range valid {
		if v {
			k++
		}
	}
	return valid, k, nil
}

// expand spreads the k non-null values over the n positions of valid.
func expand[T any](vals []T, valid []bool) []T {
	if len(vals) == len(valid) {
		return vals
	}
	out := make([]T, len(valid))
	j := 0
	for i, ok := range valid {
		if ok {
			out[i] = vals[j]
			j++
		}
	}
	return out
}

func builderMismatch(what string, b array.Builder) error {
	return mismatchf("%s: builder of type %s does not match the column", what, b.Type())
}

type boolColumn struct {
	presence
	data *boolRLE
}

func (c *boolColumn) next(b array.Builder, n int, parentNull []bool) error {
	bb, ok := b.(*array.BooleanBuilder)
	if !ok {
		return builderMismatch(c.what, b)
	}
	valid, k, err := c.validity(n, parentNull)
	if err != nil {
		return err
	}
	vals := make([]bool, k)
	if err := c.data.next(vals); err != nil {
		return err
	}
	bb.AppendValues(expand(vals, valid), valid)
	return nil
}

type byteColumn struct {
	presence
	data *byteRLE
}

func (c *byteColumn) next(b array.Builder, n int, parentNull []bool) error {
	valid, k, err := c.validity(n, parentNull)
	if err != nil {
		return err
	}
	raw := make([]byte, k)
	if err := c.data.next(raw); err != nil {
		return err
	}
	switch bb := b.(type) {
	case *array.Int8Builder:
		bb.AppendValues(expand(convert(raw, func(v byte) int8 { return int8(v) }), valid), valid)
	case *array.Int16Builder:
		bb.AppendValues(expand(convert(raw, func(v byte) int16 { return int16(int8(v)) }), valid), valid)
	case *array.Int32Builder:
		bb.AppendValues(expand(convert(raw, func(v byte) int32 { return int32(int8(v)) }), valid), valid)
	case *array.Int64Builder:
		bb.AppendValues(expand(convert(raw, func(v byte) int64 { return int64(int8(v)) }), valid), valid)
	default:
		return builderMismatch(c.what, b)
	}
	return nil
}

// intColumn serves smallint, int, bigint and date columns (signed integer
// RLE in DATA), appending to Int16/Int32/Int64/Date32/Time32 builders.
type intColumn struct {
	presence
	data intDecoder
}

func (c *intColumn) next(b array.Builder, n int, parentNull []bool) error {
	valid, k, err := c.validity(n, parentNull)
	if err != nil {
		return err
	}
	raw := make([]int64, k)
	if err := c.data.next(raw); err != nil {
		return err
	}
	switch bb := b.(type) {
	case *array.Int64Builder:
		bb.AppendValues(expand(raw, valid), valid)
	case *array.Int32Builder:
		bb.AppendValues(expand(convert(raw, func(v int64) int32 { return int32(v) }), valid), valid)
	case *array.Int16Builder:
		bb.AppendValues(expand(convert(raw, func(v int64) int16 { return int16(v) }), valid), valid)
	case *array.Date32Builder:
		bb.AppendValues(expand(convert(raw, func(v int64) arrow.Date32 { return arrow.Date32(v) }), valid), valid)
	case *array.Time32Builder:
		bb.AppendValues(expand(convert(raw, func(v int64) arrow.Time32 { return arrow.Time32(v) }), valid), valid)
	default:
		return builderMismatch(c.what, b)
	}
	return nil
}

func convert[S, T any](in []S, f func(S) T) []T {
	out := make([]T, len(in))
	for i, v := range in {
		out[i] = f(v)
	}
	return out
}

// floatColumn serves float (4-byte) and double (8-byte) IEEE 754
// little-endian DATA streams.
type floatColumn struct {
	presence
	data  []byte
	pos   int
	width int
}

func (c *floatColumn) next(b array.Builder, n int, parentNull []bool) error {
	valid, k, err := c.validity(n, parentNull)
	if err != nil {
		return err
	}
	if k*c.width > len(c.data)-c.pos {
		return corruptf("%s: DATA stream exhausted", c.what)
	}
	raw := c.data[c.pos : c.pos+k*c.width]
	c.pos += k * c.width
	switch bb := b.(type) {
	case *array.Float32Builder:
		if c.width != 4 {
			return builderMismatch(c.what, b)
		}
		vals := make([]float32, k)
		for i := range vals {
			vals[i] = math.Float32frombits(binary.LittleEndian.Uint32(raw[4*i:]))
		}
		bb.AppendValues(expand(vals, valid), valid)
	case *array.Float64Builder:
		vals := make([]float64, k)
		for i := range vals {
			if c.width == 4 {
				vals[i] = float64(math.Float32frombits(binary.LittleEndian.Uint32(raw[4*i:])))
			} else {
				vals[i] = math.Float64frombits(binary.LittleEndian.Uint64(raw[8*i:]))
			}
		}
		bb.AppendValues(expand(vals, valid), valid)
	default:
		return builderMismatch(c.what, b)
	}
	return nil
}

// bytesColumn serves string, varchar, char and binary columns, with direct
// (DATA + LENGTH) or dictionary (DATA indexes + LENGTH + DICTIONARY_DATA)
// encoding. CHAR values are right-trimmed of spaces and CHAR/VARCHAR values
// truncated to their maximum length in characters, as the Java ORC reader
// (CharTreeReader / VarcharTreeReader) does.
type bytesColumn struct {
	presence
	// direct encoding
	data    []byte
	pos     int
	lengths intDecoder
	// dictionary encoding (dict != nil)
	dict    [][]byte
	indexes intDecoder

	trimRight bool
	maxChars  int // 0: no truncation
}

func (c *bytesColumn) next(b array.Builder, n int, parentNull []bool) error {
	var bb *array.BinaryBuilder
	switch x := b.(type) {
	case *array.BinaryBuilder:
		bb = x
	case *array.StringBuilder:
		bb = x.BinaryBuilder
	default:
		return builderMismatch(c.what, b)
	}
	valid, k, err := c.validity(n, parentNull)
	if err != nil {
		return err
	}
	nums := make([]int64, k)
	vals := make([][]byte, k)
	if c.dict != nil {
		if err := c.indexes.next(nums); err != nil {
			return err
		}
		for i, x := range nums {
			if x < 0 || x >= int64(len(c.dict)) {
				return corruptf("%s: dictionary index %d outside the %d entries", c.what, x, len(c.dict))
			}
			vals[i] = c.dict[x]
		}
	} else {
		if err := c.lengths.next(nums); err != nil {
			return err
		}
		for i, l := range nums {
			if l < 0 || l > int64(len(c.data)-c.pos) {
				return corruptf("%s: value length %d exceeds the %d bytes left in DATA", c.what, l, len(c.data)-c.pos)
			}
			vals[i] = c.data[c.pos : c.pos+int(l)]
			c.pos += int(l)
		}
	}
	if c.trimRight || c.maxChars > 0 {
		for i, v := range vals {
			vals[i] = c.adjust(v)
		}
	}
	bb.AppendValues(expand(vals, valid), valid)
	return nil
}

func (c *bytesColumn) adjust(v []byte) []byte {
	if c.maxChars > 0 && len(v) > c.maxChars {
		chars, end := 0, 0
		for end < len(v) && chars < c.maxChars {
			_, size := utf8.DecodeRune(v[end:])
			end += size
			chars++
		}
		v = v[:end]
	}
	if c.trimRight {
		for len(v) > 0 && v[len(v)-1] == ' ' {
			v = v[:len(v)-1]
		}
	}
	return v
}

// timestampColumn decodes DATA (signed seconds since 2015-01-01 00:00:00 in
// the writer's time zone, or UTC for timestamp with local time zone) and
// SECONDARY (nanoseconds with the trailing-zero code in the low 3 bits).
type timestampColumn struct {
	presence
	seconds intDecoder
	nanos   intDecoder
	// loc is the writer time zone of a plain timestamp column; the value is
	// returned as the writer's wall-clock time. nil means UTC.
	loc *time.Location
	// base is 2015-01-01 00:00:00 in the writer time zone, in epoch seconds.
	base int64
}

// orcEpoch is 2015-01-01 00:00:00 UTC in seconds since 1970.
const orcEpoch = 1420070400

// decodeNanos undoes the SECONDARY encoding of timestamps: the low 3 bits z
// say that z+1 trailing decimal zeros were removed (z = 0: none). The value
// is taken as signed, as the C++ reader does: the Arrow C++ writer stores
// negative nanoseconds for timestamps before 1970.
func decodeNanos(v int64) (int64, bool) {
	z := v & 7
	n := v >> 3
	mul := int64(1)
	if z != 0 {
		for range z + 1 {
			mul *= 10
		}
	}
	if n >= 1e9/mul || n <= -1e9/mul {
		return 0, false
	}
	return n * mul, true
}

func (c *timestampColumn) next(b array.Builder, n int, parentNull []bool) error {
	tb, ok := b.(*array.TimestampBuilder)
	if !ok {
		return builderMismatch(c.what, b)
	}
	unit := tb.Type().(*arrow.TimestampType).Unit
	valid, k, err := c.validity(n, parentNull)
	if err != nil {
		return err
	}
	secs := make([]int64, k)
	nanos := make([]int64, k)
	if err := c.seconds.next(secs); err != nil {
		return err
	}
	if err := c.nanos.next(nanos); err != nil {
		return err
	}
	vals := make([]arrow.Timestamp, k)
	for i := range secs {
		ns, ok := decodeNanos(nanos[i])
		if !ok {
			return corruptf("%s: nanosecond value %d out of range", c.what, nanos[i])
		}
		s := secs[i] + c.base
		// The writer truncates milliseconds toward zero, so a negative
		// second with a sub-second part is one second too large.
		if s < 0 && ns > 999999 {
			s--
		}
		if c.loc != nil {
			_, off := time.Unix(s, 0).In(c.loc).Zone()
			s += int64(off)
		}
		if ns < 0 {
			s, ns = s-1, ns+1e9
		}
		v, ok := scaleTimestamp(s, ns, unit)
		if !ok {
			return outOfRangef("%s: timestamp %d s out of range for Arrow unit %s", c.what, s, unit)
		}
		vals[i] = arrow.Timestamp(v)
	}
	tb.AppendValues(expand(vals, valid), valid)
	return nil
}

// scaleTimestamp converts seconds plus nanoseconds to unit, reporting
// overflow of int64.
func scaleTimestamp(s, ns int64, unit arrow.TimeUnit) (int64, bool) {
	var mul, frac int64
	switch unit {
	case arrow.Second:
		return s, true
	case arrow.Millisecond:
		mul, frac = 1e3, ns/1e6
	case arrow.Microsecond:
		mul, frac = 1e6, ns/1e3
	default:
		mul, frac = 1e9, ns
	}
	if s > (math.MaxInt64-frac)/mul {
		return 0, false
	}
	if s < math.MinInt64/mul {
		// s*mul alone may be below the int64 minimum while s*mul+frac is
		// not (the minimum itself is -9223372037 s + 145224192 ns).
		if s < math.MinInt64/mul-1 {
			return 0, false
		}
		base := (s + 1) * mul
		if mul-frac > base-math.MinInt64 {
			return 0, false
		}
		return base - (mul - frac), true
	}
	return s*mul + frac, true
}

// decimalColumn decodes DATA (zigzag varints of unbounded length, at most
// 128 bits here) and SECONDARY (signed per-value scale), rescaling each value
// to the target scale with HALF_UP rounding; values that do not fit the
// target precision become null, as in the Java reader. With the DECIMAL_64
// encoding DATA is signed integer RLE v2 at the column's scale.
type decimalColumn struct {
	presence
	data      []byte
	pos       int
	scales    intDecoder
	dec64     intDecoder // DECIMAL_64 encoding
	fileScale int32
}

func (c *decimalColumn) varint128() (decimal128.Num, error) {
	var lo, hi uint64
	for shift := uint(0); ; shift += 7 {
		if c.pos >= len(c.data) {
			return decimal128.Num{}, corruptf("%s: decimal varint truncated", c.what)
		}
		if shift >= 128 {
			return decimal128.Num{}, corruptf("%s: decimal varint longer than 128 bits", c.what)
		}
		b := uint64(c.data[c.pos] & 0x7f)
		last := c.data[c.pos] < 0x80
		c.pos++
		switch {
		case shift < 64:
			lo |= b << shift
			if shift > 57 {
				hi |= b >> (64 - shift)
			}
		default:
			if shift == 126 && b > 3 {
				return decimal128.Num{}, corruptf("%s: decimal varint longer than 128 bits", c.what)
			}
			hi |= b << (shift - 64)
		}
		if last {
			break
		}
	}
	// zigzag over 128 bits: (u >> 1) ^ -(u & 1)
	neg := lo&1 == 1
	lo = lo>>1 | hi<<63
	hi >>= 1
	if neg {
		lo, hi = ^lo, ^hi
	}
	return decimal128.New(int64(hi), lo), nil
}

func (c *decimalColumn) next(b array.Builder, n int, parentNull []bool) error {
	db, ok := b.(*array.Decimal128Builder)
	if !ok {
		return builderMismatch(c.what, b)
	}
	dt := db.Type().(*arrow.Decimal128Type)
	valid, k, err := c.validity(n, parentNull)
	if err != nil {
		return err
	}
	vals := make([]decimal128.Num, k)
	scales := make([]int64, k)
	if c.dec64 != nil {
		raw := make([]int64, k)
		if err := c.dec64.next(raw); err != nil {
			return err
		}
		for i, v := range raw {
			vals[i] = decimal128.FromI64(v)
			scales[i] = int64(c.fileScale)
		}
	} else {
		for i := range vals {
			if vals[i], err = c.varint128(); err != nil {
				return err
			}
		}
		if err := c.scales.next(scales); err != nil {
			return err
		}
	}
	out := make([]decimal128.Num, n)
	j := 0
	for p, ok := range valid {
		if !ok {
			continue
		}
		v, fits, err := rescale(vals[j], scales[j], dt.Scale, dt.Precision)
		j++
		if err != nil {
			return corruptf("%s: %v", c.what, err)
		}
		if !fits {
			// does not fit the precision: null, like HiveDecimal's
			// enforcePrecisionScale in the Java reader
			valid[p] = false
			continue
		}
		out[p] = v
	}
	db.AppendValues(out, valid)
	return nil
}

// rescale converts v at scale from to scale to, rounding HALF_UP, and reports
// whether the result fits precision. A scale outside ±1000 is an error.
func rescale(v decimal128.Num, from int64, to, precision int32) (decimal128.Num, bool, error) {
	if from < -1000 || from > 1000 {
		return v, false, fmt.Errorf("decimal scale %d out of range", from)
	}
	d := int64(to) - from
	switch {
	case d >= 38:
		return decimal128.Num{}, v.Sign() == 0, nil
	case d > 0:
		if !v.FitsInPrecision(int32(38 - d)) {
			return v, false, nil
		}
		v = v.IncreaseScaleBy(int32(d))
	case d < -38:
		// |v| < 2^127 < 0.5e39: rounds to zero
		v = decimal128.Num{}
	case d < 0:
		v = v.ReduceScaleBy(int32(-d), true)
	}
	return v, v.FitsInPrecision(precision), nil
}

type structColumn struct {
	presence
	children []colReader
}

func (c *structColumn) next(b array.Builder, n int, parentNull []bool) error {
	sb, ok := b.(*array.StructBuilder)
	if !ok || sb.NumField() != len(c.children) {
		return builderMismatch(c.what, b)
	}
	valid, _, err := c.validity(n, parentNull)
	if err != nil {
		return err
	}
	sb.AppendValues(valid)
	childNull := make([]bool, n)
	anyNull := false
	for i, v := range valid {
		childNull[i] = !v
		anyNull = anyNull || !v
	}
	if !anyNull {
		childNull = nil
	}
	for i, ch := range c.children {
		if err := ch.next(sb.FieldBuilder(i), n, childNull); err != nil {
			return err
		}
	}
	return nil
}

// listColumn serves list and map columns: LENGTH holds the element count of
// each non-null entry; the element (or key and value) columns hold the
// elements of all non-null entries back to back.
type listColumn struct {
	presence
	lengths  intDecoder
	children []colReader // element, or key and value
	budget   int64       // bound on elements per call, against corrupt lengths
}

func (c *listColumn) next(b array.Builder, n int, parentNull []bool) error {
	valid, k, err := c.validity(n, parentNull)
	if err != nil {
		return err
	}
	lens := make([]int64, k)
	if err := c.lengths.next(lens); err != nil {
		return err
	}
	var start int
	switch bb := b.(type) {
	case *array.MapBuilder:
		if len(c.children) != 2 {
			return builderMismatch(c.what, b)
		}
		start = bb.KeyBuilder().Len()
	case *array.ListBuilder:
		if len(c.children) != 1 {
			return builderMismatch(c.what, b)
		}
		start = bb.ValueBuilder().Len()
	default:
		return builderMismatch(c.what, b)
	}
	offsets := make([]int32, n)
	total := int64(0)
	j := 0
	for i, v := range valid {
		offsets[i] = int32(int64(start) + total)
		if v {
			l := lens[j]
			j++
			if l < 0 || l > c.budget-total || int64(start)+total+l > math.MaxInt32 {
				return corruptf("%s: element count %d is negative or implausible", c.what, l)
			}
			total += l
		}
	}
	var builders []array.Builder
	switch bb := b.(type) {
	case *array.MapBuilder:
		bb.AppendValues(offsets, valid)
		builders = []array.Builder{bb.KeyBuilder(), bb.ItemBuilder()}
	case *array.ListBuilder:
		bb.AppendValues(offsets, valid)
		builders = []array.Builder{bb.ValueBuilder()}
	}
	// Decode the elements in slices, so that a corrupt length costs memory
	// only for elements the child streams really hold.
	for done := int64(0); done < total; done += elementChunk {
		m := int(min(elementChunk, total-done))
		for i, ch := range c.children {
			if err := ch.next(builders[i], m, nil); err != nil {
				return err
			}
		}
	}
	if mb, ok := b.(*array.MapBuilder); ok && !mb.Type().(*arrow.MapType).ItemField().Nullable && mb.ItemBuilder().NullN() > 0 {
		return mismatchf("%s: null map value for a non-nullable Arrow item field", c.what)
	}
	return nil
}

// elementChunk is the number of list or map elements decoded per call of
// the element readers.
const elementChunk = 1 << 16
