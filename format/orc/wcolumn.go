package orc

import (
	"encoding/binary"
	"math"
	"strconv"
	"strings"
	"unicode/utf8"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"
	"github.com/apache/arrow-go/v18/arrow/decimal128"

	"github.com/paimon-go/paimon/types"
)

// Column writers of Writer: one per ORC column (pre-order ids, 0 = the root
// struct), each buffering the values of the open stripe and the statistics
// of the whole file.

// rng is a half-open range [lo, hi) of array indices.
type rng struct{ lo, hi int }

// colStats are the statistics of one column over the file so far.
type colStats struct {
	values  int64 // non-null values
	hasNull bool
	has     bool // min/max set
	minI    int64
	maxI    int64
	sumI    int64
	sumOK   bool // sumI did not overflow
	minF    float64
	maxF    float64
	sumF    float64
	nan     bool
	minS    string
	maxS    string
	sumLen  int64
	trues   int64
	minD    decimal128.Num
	maxD    decimal128.Num
}

// colWriter buffers one column of the open stripe.
type colWriter struct {
	id       int
	kind     uint64
	t        types.DataType // Paimon type (the root: a ROW)
	name     string         // path for errors
	children []*colWriter

	present bitSet
	hasNull bool // the stripe has a null: PRESENT is written

	bools   bitSet  // boolean DATA
	bytes   []byte  // tinyint DATA, or raw DATA (float, double, string, binary, decimal varints)
	ints    []int64 // DATA of integer kinds, date, timestamp seconds
	second  []int64 // SECONDARY: timestamp nanos, decimal scales
	lengths []int64 // LENGTH: string/binary byte lengths, list/map entry counts

	unit arrow.TimeUnit // timestamps
	st   colStats
}

// newColWriter builds the writer tree of Paimon type t with column id *next.
func newColWriter(t types.DataType, name string, next *int) (*colWriter, error) {
	c := &colWriter{id: *next, t: t, name: name}
	*next++
	c.st.sumOK = true
	switch t.Kind {
	case types.KindBoolean:
		c.kind = kindBoolean
	case types.KindTinyInt:
		c.kind = kindByte
	case types.KindSmallInt:
		c.kind = kindShort
	case types.KindInt, types.KindTime:
		c.kind = kindInt
	case types.KindBigInt:
		c.kind = kindLong
	case types.KindFloat:
		c.kind = kindFloat
	case types.KindDouble:
		c.kind = kindDouble
	case types.KindChar:
		c.kind = kindChar
	case types.KindVarChar:
		c.kind = kindVarchar
		if t.Length == types.MaxLength {
			c.kind = kindString
		}
	case types.KindBinary, types.KindVarBinary, types.KindBlob:
		c.kind = kindBinary
	case types.KindDecimal:
		c.kind = kindDecimal
	case types.KindDate:
		c.kind = kindDate
	case types.KindTimestamp, types.KindLocalZonedTimestamp:
		c.kind = kindTimestamp
		if t.Kind == types.KindLocalZonedTimestamp {
			c.kind = kindTimestampInstant
		}
		c.unit = types.TimestampUnit(t.Precision)
	case types.KindArray:
		c.kind = kindList
		if t.Elem == nil {
			return nil, unsupportedf("column %s: ARRAY without element type", name)
		}
		ch, err := newColWriter(*t.Elem, name+".element", next)
		if err != nil {
			return nil, err
		}
		c.children = []*colWriter{ch}
	case types.KindMap, types.KindMultiset:
		c.kind = kindMap
		key, val := t.Key, t.Value
		if t.Kind == types.KindMultiset {
			key, val = t.Elem, &types.DataType{Kind: types.KindInt} // MAP<T, INT NOT NULL>, as Java's refineDataType
		}
		if key == nil || val == nil {
			return nil, unsupportedf("column %s: MAP without key or value type", name)
		}
		k, err := newColWriter(*key, name+".key", next)
		if err != nil {
			return nil, err
		}
		v, err := newColWriter(*val, name+".value", next)
		if err != nil {
			return nil, err
		}
		c.children = []*colWriter{k, v}
	case types.KindRow:
		c.kind = kindStruct
		for _, f := range t.Fields {
			ch, err := newColWriter(f.Type, joinName(name, f.Name), next)
			if err != nil {
				return nil, err
			}
			c.children = append(c.children, ch)
		}
	default:
		// VARIANT and others: Java's OrcTypeUtil has no ORC type for them.
		return nil, unsupportedf("column %s: type kind %d cannot be written to ORC", name, t.Kind)
	}
	return c, nil
}

func joinName(parent, name string) string {
	if parent == "" {
		return name
	}
	return parent + "." + name
}

// appendTypes appends the ORC Type messages of the tree rooted at c in
// pre-order, with the paimon.id attribute Java's OrcTypeUtil sets: field
// ids for fields, SpecialFields ids for list elements and map keys/values
// (fieldID is the nearest enclosing field's id, depth the nesting below it).
func (c *colWriter) appendTypes(dst [][]byte, id int, hasID bool, fieldID, depth int) [][]byte {
	var b []byte
	b = pbUint(b, 1, c.kind)
	if len(c.children) > 0 {
		var sub []byte
		for _, ch := range c.children {
			sub = binary.AppendUvarint(sub, uint64(ch.id))
		}
		b = pbBytes(b, 2, sub)
	}
	if c.kind == kindStruct {
		for _, f := range c.t.Fields {
			b = pbBytes(b, 3, []byte(f.Name))
		}
	}
	switch c.kind {
	case kindChar, kindVarchar:
		b = pbUint(b, 4, uint64(c.t.Length))
	case kindDecimal:
		b = pbUint(b, 5, uint64(c.t.Precision))
		b = pbUint(b, 6, uint64(c.t.Scale))
	}
	if hasID {
		var kv []byte
		kv = pbBytes(kv, 1, []byte("paimon.id"))
		kv = pbBytes(kv, 2, []byte(strconv.Itoa(id)))
		b = pbBytes(b, 7, kv)
	}
	dst = append(dst, b)
	switch c.kind {
	case kindList:
		dst = c.children[0].appendTypes(dst, arrayElementID(fieldID, depth+1), true, fieldID, depth+1)
	case kindMap:
		dst = c.children[0].appendTypes(dst, mapKeyID(fieldID, depth+1), true, fieldID, depth+1)
		dst = c.children[1].appendTypes(dst, mapValueID(fieldID, depth+1), true, fieldID, depth+1)
	case kindStruct:
		for i, ch := range c.children {
			f := c.t.Fields[i]
			dst = ch.appendTypes(dst, f.ID, true, f.ID, 0)
		}
	}
	return dst
}

// SpecialFields ids of Java Paimon (getArrayElementFieldId,
// getMapKeyFieldId, getMapValueFieldId).
const (
	structuredFieldIDBase = math.MaxInt32 / 4
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

// write appends the entries of a at the indices in rs (ORC stores child
// values only under non-null parents, so nested columns receive the ranges
// of their present parents). It returns the raw bytes added, for stripe
// sizing.
func (c *colWriter) write(a arrow.Array, rs []rng) int64 {
	var raw int64
	for _, r := range rs {
		for i := r.lo; i < r.hi; i++ {
			ok := a.IsValid(i)
			c.present.add(ok)
			if !ok {
				c.hasNull = true
				c.st.hasNull = true
			}
		}
		raw += int64(r.hi-r.lo+7) / 8
	}
	switch c.kind {
	case kindBoolean:
		v := a.(*array.Boolean)
		n := eachValid(a, rs, func(i int) {
			b := v.Value(i)
			c.bools.add(b)
			if b {
				c.st.trues++
			}
			c.st.values++
			c.st.has = true
		})
		return raw + n/8
	case kindByte:
		v := a.(*array.Int8)
		n := eachValid(a, rs, func(i int) {
			x := v.Value(i)
			c.bytes = append(c.bytes, byte(x))
			c.st.addInt(int64(x))
		})
		return raw + n
	case kindShort:
		v := a.(*array.Int16)
		n := eachValid(a, rs, func(i int) { c.addInt(int64(v.Value(i))) })
		return raw + 2*n
	case kindInt:
		var n int64
		if v, ok := a.(*array.Time32); ok {
			n = eachValid(a, rs, func(i int) { c.addInt(int64(v.Value(i))) })
		} else {
			v := a.(*array.Int32)
			n = eachValid(a, rs, func(i int) { c.addInt(int64(v.Value(i))) })
		}
		return raw + 4*n
	case kindLong:
		v := a.(*array.Int64)
		n := eachValid(a, rs, func(i int) { c.addInt(v.Value(i)) })
		return raw + 8*n
	case kindDate:
		v := a.(*array.Date32)
		n := eachValid(a, rs, func(i int) { c.addInt(int64(v.Value(i))) })
		return raw + 4*n
	case kindFloat:
		v := a.(*array.Float32)
		n := eachValid(a, rs, func(i int) {
			x := v.Value(i)
			c.bytes = binary.LittleEndian.AppendUint32(c.bytes, math.Float32bits(x))
			c.st.addFloat(float64(x))
		})
		return raw + 4*n
	case kindDouble:
		v := a.(*array.Float64)
		n := eachValid(a, rs, func(i int) {
			x := v.Value(i)
			c.bytes = binary.LittleEndian.AppendUint64(c.bytes, math.Float64bits(x))
			c.st.addFloat(x)
		})
		return raw + 8*n
	case kindString, kindVarchar, kindChar:
		v := a.(*array.String)
		before := len(c.bytes)
		n := eachValid(a, rs, func(i int) {
			s := c.fitString(v.Value(i))
			c.bytes = append(c.bytes, s...)
			c.lengths = append(c.lengths, int64(len(s)))
			c.st.addString(s)
		})
		return raw + 4*n + int64(len(c.bytes)-before)
	case kindBinary:
		v := a.(*array.Binary)
		before := len(c.bytes)
		n := eachValid(a, rs, func(i int) {
			b := v.Value(i)
			c.bytes = append(c.bytes, b...)
			c.lengths = append(c.lengths, int64(len(b)))
			c.st.values++
			c.st.sumLen += int64(len(b))
		})
		return raw + 4*n + int64(len(c.bytes)-before)
	case kindDecimal:
		v := a.(*array.Decimal128)
		scale := int64(c.t.Scale)
		n := eachValid(a, rs, func(i int) {
			x := v.Value(i)
			c.bytes = appendVarint128(c.bytes, x.HighBits(), x.LowBits())
			c.second = append(c.second, scale)
			c.st.addDecimal(x)
		})
		return raw + 16*n
	case kindTimestamp, kindTimestampInstant:
		v := a.(*array.Timestamp)
		n := eachValid(a, rs, func(i int) {
			x := int64(v.Value(i))
			secs, nanos := splitTimestamp(x, c.unit)
			// Readers subtract one second from a negative second with more
			// than a millisecond of fraction (Java's writer truncates the
			// milliseconds toward zero); write what they undo.
			if secs < 0 && nanos > 999999 {
				secs++
			}
			c.ints = append(c.ints, secs-orcEpoch)
			c.second = append(c.second, encodeNanos(nanos))
			c.st.values++
			if !c.st.has || x < c.st.minI {
				c.st.minI = x
			}
			if !c.st.has || x > c.st.maxI {
				c.st.maxI = x
			}
			c.st.has = true
		})
		return raw + 12*n
	case kindStruct:
		s := a.(*array.Struct)
		sub := validRanges(a, rs)
		c.st.values += rangesLen(sub)
		for k, ch := range c.children {
			raw += ch.write(s.Field(k), sub)
		}
		return raw
	case kindList:
		l := a.(*array.List)
		sub := c.entryRanges(l, rs)
		return raw + c.children[0].write(l.ListValues(), sub)
	case kindMap:
		m := a.(*array.Map)
		sub := c.entryRanges(m.List, rs)
		raw += c.children[0].write(m.Keys(), sub)
		return raw + c.children[1].write(m.Items(), sub)
	}
	return raw
}

// entryRanges records the LENGTH of every non-null list entry in rs and
// returns the element ranges of those entries, adjacent ones merged.
func (c *colWriter) entryRanges(l *array.List, rs []rng) []rng {
	var out []rng
	eachValid(l, rs, func(i int) {
		lo, hi := l.ValueOffsets(i)
		c.lengths = append(c.lengths, hi-lo)
		c.st.values++
		if hi == lo {
			return
		}
		if n := len(out); n > 0 && out[n-1].hi == int(lo) {
			out[n-1].hi = int(hi)
		} else {
			out = append(out, rng{int(lo), int(hi)})
		}
	})
	return out
}

// eachValid calls fn for every non-null index of a in rs and returns how
// many there were.
func eachValid(a arrow.Array, rs []rng, fn func(i int)) int64 {
	var n int64
	noNulls := a.NullN() == 0
	for _, r := range rs {
		for i := r.lo; i < r.hi; i++ {
			if noNulls || a.IsValid(i) {
				fn(i)
				n++
			}
		}
	}
	return n
}

// validRanges returns the non-null indices of a in rs as ranges.
func validRanges(a arrow.Array, rs []rng) []rng {
	if a.NullN() == 0 {
		return rs
	}
	var out []rng
	for _, r := range rs {
		start := -1
		for i := r.lo; i < r.hi; i++ {
			if a.IsValid(i) {
				if start < 0 {
					start = i
				}
			} else if start >= 0 {
				out = append(out, rng{start, i})
				start = -1
			}
		}
		if start >= 0 {
			out = append(out, rng{start, r.hi})
		}
	}
	return out
}

func rangesLen(rs []rng) int64 {
	var n int64
	for _, r := range rs {
		n += int64(r.hi - r.lo)
	}
	return n
}

func (c *colWriter) addInt(v int64) {
	c.ints = append(c.ints, v)
	c.st.addInt(v)
}

func (s *colStats) addInt(v int64) {
	s.values++
	if !s.has || v < s.minI {
		s.minI = v
	}
	if !s.has || v > s.maxI {
		s.maxI = v
	}
	s.has = true
	if s.sumOK {
		t := s.sumI + v
		if (v > 0 && t < s.sumI) || (v < 0 && t > s.sumI) {
			s.sumOK = false
		}
		s.sumI = t
	}
}

func (s *colStats) addFloat(v float64) {
	s.values++
	if v != v {
		s.nan = true
		return
	}
	if !s.has || v < s.minF {
		s.minF = v
	}
	if !s.has || v > s.maxF {
		s.maxF = v
	}
	s.has = true
	s.sumF += v
}

func (s *colStats) addString(v string) {
	s.values++
	s.sumLen += int64(len(v))
	if !s.has || v < s.minS {
		s.minS = strings.Clone(v)
	}
	if !s.has || v > s.maxS {
		s.maxS = strings.Clone(v)
	}
	s.has = true
}

func (s *colStats) addDecimal(v decimal128.Num) {
	s.values++
	if !s.has || v.Less(s.minD) {
		s.minD = v
	}
	if !s.has || v.Greater(s.maxD) {
		s.maxD = v
	}
	s.has = true
}

// fitString applies the CHAR/VARCHAR length as Java's ORC writer does:
// values are truncated to the maximum length in characters, CHAR values
// padded with spaces to it.
func (c *colWriter) fitString(s string) string {
	if c.kind == kindString {
		return s
	}
	n := c.t.Length
	count := utf8.RuneCountInString(s)
	if count > n {
		i := 0
		for k := 0; k < n; k++ {
			_, size := utf8.DecodeRuneInString(s[i:])
			i += size
		}
		return s[:i]
	}
	if c.kind == kindChar && count < n {
		return s + strings.Repeat(" ", n-count)
	}
	return s
}

// splitTimestamp splits v in unit into seconds since the epoch (floor) and
// nanoseconds 0..999,999,999.
func splitTimestamp(v int64, unit arrow.TimeUnit) (int64, int64) {
	per := int64(1)
	switch unit {
	case arrow.Millisecond:
		per = 1e3
	case arrow.Microsecond:
		per = 1e6
	case arrow.Nanosecond:
		per = 1e9
	}
	s, f := v/per, v%per
	if f < 0 {
		s, f = s-1, f+per
	}
	return s, f * (1e9 / per)
}

// encodeNanos is the SECONDARY encoding of timestamp nanoseconds: with
// z >= 2 trailing decimal zeros removed, (n / 10^z) << 3 | (z - 1), else
// n << 3.
func encodeNanos(n int64) int64 {
	if n == 0 {
		return 0
	}
	z := 0
	for n%10 == 0 && z < 8 {
		n /= 10
		z++
	}
	if z < 2 {
		for ; z > 0; z-- {
			n *= 10
		}
		return n << 3
	}
	return n<<3 | int64(z-1)
}

// stream is one encoded stream of a stripe.
type stream struct {
	kind uint64
	data []byte
}

// streams encodes the buffered stripe data of c (and appends it to dst),
// and resets the buffers.
func (c *colWriter) streams(dst []stream) []stream {
	if c.hasNull {
		dst = append(dst, stream{streamPresent, appendBoolRLE(nil, &c.present)})
	}
	switch c.kind {
	case kindBoolean:
		dst = append(dst, stream{streamData, appendBoolRLE(nil, &c.bools)})
	case kindByte:
		dst = append(dst, stream{streamData, appendByteRLE(nil, c.bytes)})
	case kindShort, kindInt, kindLong, kindDate:
		dst = append(dst, stream{streamData, appendIntRLEv2(nil, c.ints, true)})
	case kindFloat, kindDouble:
		dst = append(dst, stream{streamData, c.bytes})
	case kindString, kindVarchar, kindChar, kindBinary:
		dst = append(dst, stream{streamData, c.bytes},
			stream{streamLength, appendIntRLEv2(nil, c.lengths, false)})
	case kindDecimal:
		dst = append(dst, stream{streamData, c.bytes},
			stream{streamSecondary, appendIntRLEv2(nil, c.second, true)})
	case kindTimestamp, kindTimestampInstant:
		dst = append(dst, stream{streamData, appendIntRLEv2(nil, c.ints, true)},
			stream{streamSecondary, appendIntRLEv2(nil, c.second, false)})
	case kindList, kindMap:
		dst = append(dst, stream{streamLength, appendIntRLEv2(nil, c.lengths, false)})
	}
	return dst
}

// reset empties the stripe buffers (raw DATA bytes are handed to the
// stripe, so they are not reused).
func (c *colWriter) reset() {
	c.present.reset()
	c.bools.reset()
	c.hasNull = false
	c.bytes = nil
	c.ints = c.ints[:0]
	c.second = c.second[:0]
	c.lengths = c.lengths[:0]
}

// encoding is the ColumnEncoding kind of c: DIRECT for boolean, tinyint,
// float, double and struct, DIRECT_V2 for the rest, as Java writes them
// without dictionaries.
func (c *colWriter) encoding() uint64 {
	switch c.kind {
	case kindBoolean, kindByte, kindFloat, kindDouble, kindStruct:
		return encodingDirect
	}
	return encodingDirectV2
}
