// Package variant decodes Paimon VARIANT values (the binary encoding Paimon
// shares with Spark and Parquet: a value buffer and a metadata dictionary of
// object keys) into JSON text exactly as Java Paimon's
// org.apache.paimon.data.variant.GenericVariant.toJson (in UTC) prints
// them, which is how `paimon cat` shows a VARIANT column.
//
// # Errors
//
// Malformed input (a buffer too short for its headers, an unknown type
// id, a key id outside the dictionary, nesting deeper than MaxDepth) wraps
// ErrMalformed; decoding never panics and reads no byte outside its
// buffers.
package variant

import (
	"encoding/base64"
	"encoding/binary"
	"errors"
	"fmt"
	"math"
	"math/big"
	"strconv"
	"strings"
	"time"
	"unicode/utf8"
)

// ErrMalformed: the value or metadata bytes are not a valid variant (Java's
// MALFORMED_VARIANT).
var ErrMalformed = errors.New("variant: malformed variant")

// MaxDepth bounds the nesting of objects and arrays that ToJSON follows.
const MaxDepth = 1000

// Basic types (low two bits of a value's header byte) and primitive type
// ids (Java GenericVariantUtil).
const (
	basicPrimitive = 0
	basicShortStr  = 1
	basicObject    = 2
	basicArray     = 3

	primNull         = 0
	primTrue         = 1
	primFalse        = 2
	primInt1         = 3
	primInt2         = 4
	primInt4         = 5
	primInt8         = 6
	primDouble       = 7
	primDecimal4     = 8
	primDecimal8     = 9
	primDecimal16    = 10
	primDate         = 11
	primTimestamp    = 12
	primTimestampNTZ = 13
	primFloat        = 14
	primBinary       = 15
	primLongStr      = 16
	primUUID         = 20
)

// ToJSON returns the JSON text of the variant (value, metadata), as Java's
// GenericVariant.toJson(UTC): object fields in stored order, strings escaped
// as Jackson does, LONG values as integers, DOUBLE and FLOAT as Java's
// Double/Float.toString ("1.0E10", "0.5"; NaN and infinities quoted),
// DECIMAL as BigDecimal.stripTrailingZeros().toPlainString(), DATE
// "yyyy-MM-dd", TIMESTAMP "yyyy-MM-dd HH:mm:ss[.f]+00:00", TIMESTAMP_NTZ
// without the offset, BINARY as quoted base64, UUID as quoted text.
// Errors wrap ErrMalformed.
func ToJSON(value, metadata []byte) (string, error) {
	d := &decoder{v: value, m: metadata}
	if err := d.readMetadata(); err != nil {
		return "", err
	}
	var sb strings.Builder
	if err := d.toJSON(&sb, 0, 0); err != nil {
		return "", err
	}
	return sb.String(), nil
}

type decoder struct {
	v, m    []byte
	keys    []uint32 // dictionary offsets (len = size + 1), relative to keyData
	keyData []byte
}

func malformed(format string, args ...any) error {
	return fmt.Errorf("%w: "+format, append([]any{ErrMalformed}, args...)...)
}

// readUint reads an n-byte little-endian unsigned integer at b[pos:].
func readUint(b []byte, pos, n int) (uint64, bool) {
	if pos < 0 || n < 1 || n > 8 || pos+n > len(b) {
		return 0, false
	}
	var x uint64
	for i := n - 1; i >= 0; i-- {
		x = x<<8 | uint64(b[pos+i])
	}
	return x, true
}

func (d *decoder) readMetadata() error {
	if len(d.m) < 1 {
		return malformed("empty metadata")
	}
	h := d.m[0]
	if h&0x0F != 1 {
		return malformed("metadata version %d", h&0x0F)
	}
	osz := int(h>>6) + 1
	size, ok := readUint(d.m, 1, osz)
	if !ok || size > uint64(len(d.m)) {
		return malformed("metadata dictionary size")
	}
	offStart := 1 + osz
	dataStart := offStart + (int(size)+1)*osz
	if dataStart > len(d.m) {
		return malformed("metadata offsets beyond %d bytes", len(d.m))
	}
	d.keyData = d.m[dataStart:]
	d.keys = make([]uint32, size+1)
	for i := range d.keys {
		o, _ := readUint(d.m, offStart+i*osz, osz)
		if o > uint64(len(d.keyData)) || (i > 0 && uint32(o) < d.keys[i-1]) {
			return malformed("metadata offset %d", o)
		}
		d.keys[i] = uint32(o)
	}
	return nil
}

func (d *decoder) key(id uint64) (string, error) {
	if id+1 >= uint64(len(d.keys)) {
		return "", malformed("key id %d of %d", id, len(d.keys)-1)
	}
	return string(d.keyData[d.keys[id]:d.keys[id+1]]), nil
}

// container reads the header of an object or array at pos: element count,
// id size (objects), offset size and the starts of ids, offsets and data.
func (d *decoder) container(pos int, object bool) (n, idSize, offSize, idStart, offStart, dataStart int, err error) {
	vh := int(d.v[pos] >> 2)
	offSize = vh&0x3 + 1
	large := (vh >> 2) & 1
	if object {
		idSize = (vh>>2)&0x3 + 1
		large = (vh >> 4) & 1
	}
	countSize := 1
	if large == 1 {
		countSize = 4
	}
	cnt, ok := readUint(d.v, pos+1, countSize)
	if !ok || cnt > uint64(len(d.v)) {
		return 0, 0, 0, 0, 0, 0, malformed("element count at %d", pos)
	}
	n = int(cnt)
	idStart = pos + 1 + countSize
	offStart = idStart + n*idSize
	dataStart = offStart + (n+1)*offSize
	if dataStart > len(d.v) {
		return 0, 0, 0, 0, 0, 0, malformed("container at %d beyond %d bytes", pos, len(d.v))
	}
	return n, idSize, offSize, idStart, offStart, dataStart, nil
}

func (d *decoder) toJSON(sb *strings.Builder, pos, depth int) error {
	if depth > MaxDepth {
		return malformed("nesting deeper than %d", MaxDepth)
	}
	if pos < 0 || pos >= len(d.v) {
		return malformed("value offset %d beyond %d bytes", pos, len(d.v))
	}
	h := d.v[pos]
	switch h & 0x3 {
	case basicShortStr:
		n := int(h >> 2)
		if pos+1+n > len(d.v) {
			return malformed("short string at %d", pos)
		}
		quoteJSON(sb, string(d.v[pos+1:pos+1+n]))
		return nil
	case basicObject, basicArray:
		object := h&0x3 == basicObject
		n, idSize, offSize, idStart, offStart, dataStart, err := d.container(pos, object)
		if err != nil {
			return err
		}
		open, end := byte('['), byte(']')
		if object {
			open, end = '{', '}'
		}
		sb.WriteByte(open)
		for i := range n {
			if i > 0 {
				sb.WriteByte(',')
			}
			if object {
				id, _ := readUint(d.v, idStart+i*idSize, idSize)
				k, err := d.key(id)
				if err != nil {
					return err
				}
				quoteJSON(sb, k)
				sb.WriteByte(':')
			}
			off, _ := readUint(d.v, offStart+i*offSize, offSize)
			if off > uint64(len(d.v)-dataStart) {
				return malformed("element offset %d at %d", off, pos)
			}
			if err := d.toJSON(sb, dataStart+int(off), depth+1); err != nil {
				return err
			}
		}
		sb.WriteByte(end)
		return nil
	}
	return d.primitive(sb, pos, int(h>>2))
}

func (d *decoder) primitive(sb *strings.Builder, pos, id int) error {
	need := func(n int) ([]byte, error) {
		if pos+1+n > len(d.v) {
			return nil, malformed("primitive %d at %d needs %d bytes", id, pos, n)
		}
		return d.v[pos+1 : pos+1+n], nil
	}
	switch id {
	case primNull:
		sb.WriteString("null")
	case primTrue:
		sb.WriteString("true")
	case primFalse:
		sb.WriteString("false")
	case primInt1, primInt2, primInt4, primInt8:
		n := map[int]int{primInt1: 1, primInt2: 2, primInt4: 4, primInt8: 8}[id]
		b, err := need(n)
		if err != nil {
			return err
		}
		sb.WriteString(strconv.FormatInt(signed(b), 10))
	case primDouble:
		b, err := need(8)
		if err != nil {
			return err
		}
		writeJavaFloat(sb, math.Float64frombits(binary.LittleEndian.Uint64(b)), 64)
	case primFloat:
		b, err := need(4)
		if err != nil {
			return err
		}
		writeJavaFloat(sb, float64(math.Float32frombits(binary.LittleEndian.Uint32(b))), 32)
	case primDecimal4, primDecimal8, primDecimal16:
		n := map[int]int{primDecimal4: 4, primDecimal8: 8, primDecimal16: 16}[id]
		b, err := need(1 + n)
		if err != nil {
			return err
		}
		scale := int(b[0])
		if scale > 38 {
			return malformed("decimal scale %d", scale)
		}
		sb.WriteString(plainDecimal(leBigInt(b[1:]), scale))
	case primDate:
		b, err := need(4)
		if err != nil {
			return err
		}
		days := signed(b)
		sb.WriteString(`"` + javaDate(time.Unix(days*86400, 0).UTC()) + `"`)
	case primTimestamp, primTimestampNTZ:
		b, err := need(8)
		if err != nil {
			return err
		}
		us := signed(b)
		t := time.Unix(floorDiv(us, 1e6), (us-floorDiv(us, 1e6)*1e6)*1000).UTC()
		s := javaDate(t) + " " + javaTime(t)
		if id == primTimestamp {
			s += "+00:00"
		}
		sb.WriteString(`"` + s + `"`)
	case primBinary, primLongStr:
		b, err := need(4)
		if err != nil {
			return err
		}
		n := int64(binary.LittleEndian.Uint32(b))
		if int64(pos)+5+n > int64(len(d.v)) {
			return malformed("string of %d bytes at %d", n, pos)
		}
		data := d.v[pos+5 : pos+5+int(n)]
		if id == primBinary {
			sb.WriteString(`"` + base64.StdEncoding.EncodeToString(data) + `"`)
		} else {
			quoteJSON(sb, string(data))
		}
	case primUUID:
		b, err := need(16)
		if err != nil {
			return err
		}
		h := fmt.Sprintf("%x", b)
		sb.WriteString(`"` + h[0:8] + "-" + h[8:12] + "-" + h[12:16] + "-" + h[16:20] + "-" + h[20:] + `"`)
	default:
		return malformed("unknown primitive type %d at %d", id, pos)
	}
	return nil
}

// signed reads a little-endian two's-complement integer of len(b) ≤ 8 bytes.
func signed(b []byte) int64 {
	var x uint64
	for i := len(b) - 1; i >= 0; i-- {
		x = x<<8 | uint64(b[i])
	}
	shift := uint(64 - 8*len(b))
	return int64(x<<shift) >> shift
}

// leBigInt reads a little-endian two's-complement integer of any width.
func leBigInt(b []byte) *big.Int {
	be := make([]byte, len(b))
	for i := range b {
		be[len(b)-1-i] = b[i]
	}
	x := new(big.Int).SetBytes(be)
	if len(b) > 0 && b[len(b)-1]&0x80 != 0 {
		x.Sub(x, new(big.Int).Lsh(big.NewInt(1), uint(8*len(b))))
	}
	return x
}

// plainDecimal is BigDecimal(unscaled, scale).stripTrailingZeros()
// .toPlainString().
func plainDecimal(unscaled *big.Int, scale int) string {
	neg := unscaled.Sign() < 0
	digits := new(big.Int).Abs(unscaled).String()
	if digits == "0" {
		return "0"
	}
	for scale > 0 && strings.HasSuffix(digits, "0") {
		digits, scale = digits[:len(digits)-1], scale-1
	}
	if scale > 0 {
		if len(digits) <= scale {
			digits = "0." + strings.Repeat("0", scale-len(digits)) + digits
		} else {
			digits = digits[:len(digits)-scale] + "." + digits[len(digits)-scale:]
		}
	}
	if neg {
		return "-" + digits
	}
	return digits
}

// writeJavaFloat writes f as Java's Double.toString (bits 64) or
// Float.toString (bits 32) with the shortest round-trip digits; NaN and
// infinities quoted ("NaN", "Infinity", "-Infinity").
func writeJavaFloat(sb *strings.Builder, f float64, bits int) {
	switch {
	case math.IsNaN(f):
		sb.WriteString(`"NaN"`)
		return
	case math.IsInf(f, 1):
		sb.WriteString(`"Infinity"`)
		return
	case math.IsInf(f, -1):
		sb.WriteString(`"-Infinity"`)
		return
	}
	if f == 0 {
		if math.Signbit(f) {
			sb.WriteString("-0.0")
		} else {
			sb.WriteString("0.0")
		}
		return
	}
	e := strconv.FormatFloat(f, 'e', -1, bits) // "-d.ddde±XX"
	mant, expS, _ := strings.Cut(e, "e")
	exp, _ := strconv.Atoi(expS)
	neg := strings.HasPrefix(mant, "-")
	digits := strings.Replace(strings.TrimPrefix(mant, "-"), ".", "", 1)
	if neg {
		sb.WriteByte('-')
	}
	if exp >= -3 && exp < 7 {
		// Plain: at least one digit on each side of the point.
		if exp >= 0 {
			intPart := digits
			frac := ""
			if len(digits) > exp+1 {
				intPart, frac = digits[:exp+1], digits[exp+1:]
			} else {
				intPart += strings.Repeat("0", exp+1-len(digits))
			}
			if frac == "" {
				frac = "0"
			}
			sb.WriteString(intPart + "." + frac)
		} else {
			sb.WriteString("0." + strings.Repeat("0", -exp-1) + digits)
		}
		return
	}
	frac := digits[1:]
	if frac == "" {
		frac = "0"
	}
	sb.WriteString(digits[:1] + "." + frac + "E" + strconv.Itoa(exp))
}

func floorDiv(a, b int64) int64 {
	q := a / b
	if (a%b != 0) && ((a < 0) != (b < 0)) {
		q--
	}
	return q
}

// javaDate is LocalDate.toString: yyyy-MM-dd, years beyond 9999 with "+",
// negative years with "-" and at least four digits.
func javaDate(t time.Time) string {
	y := t.Year()
	var ys string
	switch {
	case y > 9999:
		ys = "+" + strconv.Itoa(y)
	case y < 0:
		ys = fmt.Sprintf("-%04d", -y)
	default:
		ys = fmt.Sprintf("%04d", y)
	}
	return fmt.Sprintf("%s-%02d-%02d", ys, int(t.Month()), t.Day())
}

// javaTime is DateTimeFormatter.ISO_LOCAL_TIME: HH:mm:ss plus the fraction
// of the second without trailing zeros (none when zero).
func javaTime(t time.Time) string {
	s := fmt.Sprintf("%02d:%02d:%02d", t.Hour(), t.Minute(), t.Second())
	if ns := t.Nanosecond(); ns != 0 {
		s += "." + strings.TrimRight(fmt.Sprintf("%09d", ns), "0")
	}
	return s
}

// quoteJSON writes s as a JSON string the way Jackson's JsonGenerator
// .writeString does: '"' and '\\' escaped, control characters as \b \t \n
// \f \r or \u00XX (upper-case hex), everything else (also non-ASCII)
// verbatim. Invalid UTF-8 becomes U+FFFD, as Java's String decoding does.
func quoteJSON(sb *strings.Builder, s string) {
	sb.WriteByte('"')
	for i := 0; i < len(s); {
		r, size := utf8.DecodeRuneInString(s[i:])
		i += size
		switch {
		case r == '"':
			sb.WriteString(`\"`)
		case r == '\\':
			sb.WriteString(`\\`)
		case r == '\b':
			sb.WriteString(`\b`)
		case r == '\t':
			sb.WriteString(`\t`)
		case r == '\n':
			sb.WriteString(`\n`)
		case r == '\f':
			sb.WriteString(`\f`)
		case r == '\r':
			sb.WriteString(`\r`)
		case r < 0x20:
			fmt.Fprintf(sb, `\u%04X`, r)
		default:
			sb.WriteRune(r)
		}
	}
	sb.WriteByte('"')
}
