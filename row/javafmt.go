package row

// Java's string forms of Paimon's internal values, as used for partition
// directory names (InternalRowPartitionComputer) and by CAST(... AS STRING)
// (org.apache.paimon.casting.*ToStringCastRule, DateTimeUtils).

import (
	"math"
	"math/big"
	"strconv"
	"strings"
	"time"

	"github.com/paimon-go/paimon/types"
)

const (
	millisPerDay = 86_400_000
	epochJulian  = 2440588 // DateTimeUtils.EPOCH_JULIAN
)

// javaFloatString is Java's Float.toString / Double.toString (JDK 19+, the
// shortest-decimal algorithm): "NaN", "Infinity", "-0.0", plain notation with
// at least one fractional digit for 1e-3 <= |x| < 1e7, otherwise
// "d.dddE[-]n". bitSize is 32 or 64.
func javaFloatString(x float64, bitSize int) string {
	switch {
	case math.IsNaN(x):
		return "NaN"
	case math.IsInf(x, 1):
		return "Infinity"
	case math.IsInf(x, -1):
		return "-Infinity"
	case x == 0:
		if math.Signbit(x) {
			return "-0.0"
		}
		return "0.0"
	}
	s := strconv.FormatFloat(x, 'e', -1, bitSize)
	digits, exp := splitSci(s)
	if len(digits) == 1 {
		// Java considers decimals of length 2 when the shortest has length 1
		// and picks the closest one (e.g. Double.MIN_VALUE is "4.9E-324").
		digits, exp = splitSci(strconv.FormatFloat(x, 'e', 1, bitSize))
		digits = strings.TrimRight(digits, "0")
		if digits == "" {
			digits = "0"
		}
	}
	neg := x < 0
	var b strings.Builder
	if neg {
		b.WriteByte('-')
	}
	ax := math.Abs(x)
	if ax >= 1e-3 && ax < 1e7 {
		if exp >= 0 {
			if len(digits) <= exp+1 {
				b.WriteString(digits)
				b.WriteString(strings.Repeat("0", exp+1-len(digits)))
				b.WriteString(".0")
			} else {
				b.WriteString(digits[:exp+1])
				b.WriteByte('.')
				b.WriteString(digits[exp+1:])
			}
		} else {
			b.WriteString("0.")
			b.WriteString(strings.Repeat("0", -exp-1))
			b.WriteString(digits)
		}
		return b.String()
	}
	b.WriteByte(digits[0])
	b.WriteByte('.')
	if len(digits) > 1 {
		b.WriteString(digits[1:])
	} else {
		b.WriteByte('0')
	}
	b.WriteByte('E')
	b.WriteString(strconv.Itoa(exp))
	return b.String()
}

// splitSci splits Go's "-d.ddde±XX" into the digit string (no sign, no point)
// and the decimal exponent of the first digit.
func splitSci(s string) (string, int) {
	s = strings.TrimPrefix(s, "-")
	e := strings.IndexByte(s, 'e')
	mant, expStr := s[:e], s[e+1:]
	exp, _ := strconv.Atoi(expStr)
	return strings.Replace(mant, ".", "", 1), exp
}

// plainDecimalString is Java's BigDecimal.toPlainString for unscaled×10^-scale.
func plainDecimalString(unscaled *big.Int, scale int) string {
	if unscaled == nil {
		unscaled = new(big.Int)
	}
	s := new(big.Int).Abs(unscaled).String()
	neg := unscaled.Sign() < 0
	switch {
	case scale <= 0:
		if unscaled.Sign() != 0 {
			s += strings.Repeat("0", -scale)
		}
	case len(s) <= scale:
		s = "0." + strings.Repeat("0", scale-len(s)) + s
	default:
		s = s[:len(s)-scale] + "." + s[len(s)-scale:]
	}
	if neg {
		s = "-" + s
	}
	return s
}

// timestampFields splits a Paimon timestamp into its UTC wall-clock fields
// (Timestamp.toLocalDateTime).
func timestampFields(ts types.Timestamp) (year, month, day, hour, minute, sec, nano int) {
	t := time.UnixMilli(ts.Millis).UTC()
	y, mo, d := t.Date()
	return y, int(mo), d, t.Hour(), t.Minute(), t.Second(), t.Nanosecond() + int(ts.NanoOfMilli)
}

// javaLocalDateTimeString is java.time.LocalDateTime.toString of a Paimon
// timestamp (Timestamp.toString): uuuu-MM-ddTHH:mm[:ss[.SSS|.SSSSSS|.SSSSSSSSS]].
func javaLocalDateTimeString(ts types.Timestamp) string {
	y, mo, d, h, mi, s, n := timestampFields(ts)
	var b strings.Builder
	b.WriteString(javaLocalDateString(y, mo, d))
	b.WriteByte('T')
	b.WriteString(pad2(h))
	b.WriteByte(':')
	b.WriteString(pad2(mi))
	if s > 0 || n > 0 {
		b.WriteByte(':')
		b.WriteString(pad2(s))
		if n > 0 {
			b.WriteByte('.')
			switch {
			case n%1_000_000 == 0:
				b.WriteString(strconv.Itoa(n/1_000_000 + 1000)[1:])
			case n%1000 == 0:
				b.WriteString(strconv.Itoa(n/1000 + 1_000_000)[1:])
			default:
				b.WriteString(strconv.Itoa(n + 1_000_000_000)[1:])
			}
		}
	}
	return b.String()
}

// javaLocalDateString is java.time.LocalDate.toString.
func javaLocalDateString(y, mo, d int) string {
	var b strings.Builder
	ay := y
	if ay < 0 {
		ay = -ay
	}
	switch {
	case ay < 1000 && y < 0:
		s := strconv.Itoa(y - 10000) // "-1xxxx" -> drop the '1'
		b.WriteString(s[:1] + s[2:])
	case ay < 1000:
		b.WriteString(strconv.Itoa(y + 10000)[1:])
	default:
		if y > 9999 {
			b.WriteByte('+')
		}
		b.WriteString(strconv.Itoa(y))
	}
	b.WriteByte('-')
	b.WriteString(pad2(mo))
	b.WriteByte('-')
	b.WriteString(pad2(d))
	return b.String()
}

func pad2(i int) string {
	if i < 10 && i >= 0 {
		return "0" + strconv.Itoa(i)
	}
	return strconv.Itoa(i)
}

// int4/int2 are DateTimeUtils.int4/int2: fixed-width digits computed with
// Java int arithmetic (no sign handling, like Java).
func int4(b *strings.Builder, i int) {
	b.WriteRune(rune('0' + (i/1000)%10))
	b.WriteRune(rune('0' + (i/100)%10))
	b.WriteRune(rune('0' + (i/10)%10))
	b.WriteRune(rune('0' + i%10))
}

func int2(b *strings.Builder, i int) {
	b.WriteRune(rune('0' + (i/10)%10))
	b.WriteRune(rune('0' + i%10))
}

// formatDate is DateTimeUtils.formatDate (CAST(DATE AS STRING)): yyyy-MM-dd
// via the Julian-day algorithm.
func formatDate(days int32) string {
	j := int(days) + epochJulian + 32044
	g := j / 146097
	dg := j % 146097
	c := (dg/36524 + 1) * 3 / 4
	dc := dg - c*36524
	bb := dc / 1461
	db := dc % 1461
	a := (db/365 + 1) * 3 / 4
	da := db - a*365
	y := g*400 + c*100 + bb*4 + a
	m := (da*5+308)/153 - 2
	d := da - (m+4)*153/5 + 122
	year := y - 4800 + (m+2)/12
	month := (m+2)%12 + 1
	day := d + 1
	var b strings.Builder
	int4(&b, year)
	b.WriteByte('-')
	int2(&b, month)
	b.WriteByte('-')
	int2(&b, day)
	return b.String()
}

// formatTimeMillis is DateTimeUtils.formatTimestampMillis (CAST(TIME AS
// STRING)): HH:mm:ss[.f...] with at most precision fractional digits,
// trailing zeros dropped.
func formatTimeMillis(t int32, precision int) string {
	time := int(t)
	for time < 0 {
		time += millisPerDay
	}
	h := time / 3600000
	t2 := time % 3600000
	m := t2 / 60000
	t3 := t2 % 60000
	s := t3 / 1000
	ms := t3 % 1000
	var b strings.Builder
	int2(&b, h)
	b.WriteByte(':')
	int2(&b, m)
	b.WriteByte(':')
	int2(&b, s)
	if precision > 0 {
		b.WriteByte('.')
		for precision > 0 {
			b.WriteByte(byte('0' + ms/100))
			ms = ms % 100 * 10
			if ms == 0 {
				break
			}
			precision--
		}
	}
	return b.String()
}

// formatTimestamp is DateTimeUtils.formatTimestamp(ts, precision) (CAST(TIMESTAMP
// AS STRING)): yyyy-MM-dd HH:mm:ss[.fraction], where the 9-digit nano
// fraction loses trailing zeros down to precision digits.
func formatTimestamp(ts types.Timestamp, precision int) string {
	y, mo, d, h, mi, s, n := timestampFields(ts)
	fraction := strconv.Itoa(n)
	fraction = strings.Repeat("0", 9-len(fraction)) + fraction
	for len(fraction) > precision && strings.HasSuffix(fraction, "0") {
		fraction = fraction[:len(fraction)-1]
	}
	var b strings.Builder
	int4(&b, y)
	b.WriteByte('-')
	int2(&b, mo)
	b.WriteByte('-')
	int2(&b, d)
	b.WriteByte(' ')
	int2(&b, h)
	b.WriteByte(':')
	int2(&b, mi)
	b.WriteByte(':')
	int2(&b, s)
	if fraction != "" {
		b.WriteByte('.')
		b.WriteString(fraction)
	}
	return b.String()
}

// toZone is DateTimeUtils.timestampWithLocalZoneToTimestamp: the wall clock
// of the instant ts in loc, as a timestamp without time zone.
func toZone(ts types.Timestamp, loc *time.Location) types.Timestamp {
	if loc == nil || loc == time.UTC {
		return ts
	}
	t := time.UnixMilli(ts.Millis).In(loc)
	_, off := t.Zone()
	return types.Timestamp{Millis: ts.Millis + int64(off)*1000, NanoOfMilli: ts.NanoOfMilli}
}

// javaIsWhitespace is Character.isWhitespace for one UTF-16 unit / rune.
func javaIsWhitespace(r rune) bool {
	switch r {
	case '\t', '\n', '\v', '\f', '\r', 0x1c, 0x1d, 0x1e, 0x1f:
		return true
	case 0x00a0, 0x2007, 0x202f: // no-break spaces are excluded
		return false
	}
	switch {
	case r == ' ', r == 0x1680, r >= 0x2000 && r <= 0x2006, r >= 0x2008 && r <= 0x200a,
		r == 0x205f, r == 0x3000: // SPACE_SEPARATOR
		return true
	case r == 0x2028: // LINE_SEPARATOR
		return true
	case r == 0x2029: // PARAGRAPH_SEPARATOR
		return true
	}
	return false
}

// isNullOrWhitespaceOnly is StringUtils.isNullOrWhitespaceOnly.
func isNullOrWhitespaceOnly(s string) bool {
	for _, r := range s {
		if !javaIsWhitespace(r) {
			return false
		}
	}
	return true
}
