package cast

import (
	"errors"
	"math"
	"math/big"
	"strconv"
	"strings"
	"time"
	"unicode"

	"github.com/paimon-go/paimon/types"
)

var (
	errSyntax   = errors.New("invalid syntax")
	errOverflow = errors.New("overflow")
)

// parseBoolean is BinaryStringUtils.toBoolean: t/true/y/yes/1 and
// f/false/n/no/0, case-insensitive, nothing else (no trimming).
func parseBoolean(s string) (any, error) {
	switch strings.ToLower(s) {
	case "t", "true", "y", "yes", "1":
		return true, nil
	case "f", "false", "n", "no", "0":
		return false, nil
	}
	return nil, errSyntax
}

// parseJavaInt is BinaryStringUtils.toInt (bits 32) / toLong (bits 64): an
// optional sign, ASCII digits, and an optional '.' followed by digits that
// are ignored (the integral part is kept). No whitespace is allowed.
func parseJavaInt(s string, bits int) (int64, error) {
	if s == "" {
		return 0, errSyntax
	}
	i := 0
	neg := s[0] == '-'
	if neg || s[0] == '+' {
		i++
		if len(s) == 1 {
			return 0, errSyntax
		}
	}
	lim := int64(math.MinInt64)
	if bits == 32 {
		lim = math.MinInt32
	}
	stop := lim / 10
	var r int64
	for i < len(s) {
		b := s[i]
		i++
		if b == '.' {
			break
		}
		if b < '0' || b > '9' {
			return 0, errSyntax
		}
		if r < stop {
			return 0, errOverflow
		}
		r = r*10 - int64(b-'0')
		if r > 0 || r < lim { // wrapped (64 bits) or below the 32-bit range
			return 0, errOverflow
		}
	}
	for ; i < len(s); i++ {
		if s[i] < '0' || s[i] > '9' {
			return 0, errSyntax
		}
	}
	if !neg {
		if r == lim {
			return 0, errOverflow
		}
		r = -r
	}
	return r, nil
}

// parseNumber is StringToNumericPrimitiveCastRule: toByte/toShort/toInt
// (an overflow of the target fails), toLong, Float.parseFloat,
// Double.parseDouble.
func parseNumber(s string, k types.Kind) (any, error) {
	switch k {
	case types.KindFloat:
		f, err := parseJavaFloat(s, 32)
		return float32(f), err
	case types.KindDouble:
		return parseJavaFloat(s, 64)
	case types.KindBigInt:
		return parseJavaInt(s, 64)
	}
	i, err := parseJavaInt(s, 32)
	if err != nil {
		return nil, err
	}
	switch k {
	case types.KindTinyInt:
		if int64(int8(i)) != i {
			return nil, errOverflow
		}
		return int8(i), nil
	case types.KindSmallInt:
		if int64(int16(i)) != i {
			return nil, errOverflow
		}
		return int16(i), nil
	}
	return int32(i), nil
}

// parseJavaFloat is Double.parseDouble / Float.parseFloat: leading and
// trailing characters <= ' ' are ignored; "NaN", "Infinity" with an
// optional sign; decimal or hexadecimal (0x…p…) floating literals with an
// optional f/F/d/D suffix; correctly rounded to bits.
func parseJavaFloat(s string, bits int) (float64, error) {
	s = strings.TrimFunc(s, func(r rune) bool { return r <= ' ' })
	body := strings.TrimLeft(s, "+-")
	if len(s)-len(body) > 1 {
		return 0, errSyntax
	}
	switch body {
	case "NaN":
		return math.NaN(), nil
	case "Infinity":
		if strings.HasPrefix(s, "-") {
			return math.Inf(-1), nil
		}
		return math.Inf(1), nil
	}
	if n := len(s); n > 0 && strings.ContainsRune("fFdD", rune(s[n-1])) {
		s = s[:n-1]
		body = strings.TrimLeft(s, "+-")
	}
	if body == "" || strings.ContainsAny(body, "_iInN") {
		return 0, errSyntax
	}
	hex := strings.HasPrefix(body, "0x") || strings.HasPrefix(body, "0X")
	if hex && !strings.ContainsAny(body, "pP") {
		return 0, errSyntax // Java requires the binary exponent
	}
	if !hex {
		for _, c := range body {
			if !(c >= '0' && c <= '9' || c == '.' || c == 'e' || c == 'E' || c == '+' || c == '-') {
				return 0, errSyntax
			}
		}
	}
	f, err := strconv.ParseFloat(s, bits)
	if err != nil {
		var ne *strconv.NumError
		if errors.As(err, &ne) && ne.Err == strconv.ErrRange {
			return f, nil // Java rounds to ±Infinity or ±0
		}
		return 0, errSyntax
	}
	return f, nil
}

// parseBigDecimal is new BigDecimal(String): an optional sign, digits with
// an optional '.', an optional exponent e/E with an optional sign; at least
// one digit. It returns the unscaled value and the scale.
func parseBigDecimal(s string) (*big.Int, int, error) {
	i := 0
	if i < len(s) && (s[i] == '+' || s[i] == '-') {
		i++
	}
	var mant strings.Builder
	scale, nd, dot := 0, 0, false
	for ; i < len(s); i++ {
		c := s[i]
		switch {
		case c >= '0' && c <= '9':
			mant.WriteByte(c)
			nd++
			if dot {
				scale++
			}
			continue
		case c == '.' && !dot:
			dot = true
			continue
		}
		break
	}
	if nd == 0 {
		return nil, 0, errSyntax
	}
	if i < len(s) {
		if s[i] != 'e' && s[i] != 'E' || i+1 == len(s) {
			return nil, 0, errSyntax
		}
		exp, err := strconv.ParseInt(s[i+1:], 10, 32)
		if err != nil || strings.HasPrefix(s[i+1:], "+") && len(s) == i+2 {
			return nil, 0, errSyntax
		}
		scale -= int(exp)
		if scale > 1000 || scale < -1000 {
			return nil, 0, errOverflow
		}
	}
	u, _ := new(big.Int).SetString(mant.String(), 10)
	if s[0] == '-' {
		u.Neg(u)
	}
	if scale < 0 {
		u.Mul(u, pow10(-scale))
		scale = 0
	}
	return u, scale, nil
}

// isNumeric is StringUtils.isNumeric: an optional '-' and Unicode digits.
func isNumeric(s string) bool {
	t := strings.TrimPrefix(s, "-")
	if t == "" {
		return false
	}
	for _, r := range t {
		if !unicode.IsDigit(r) {
			return false
		}
	}
	return true
}

// isDigits is DateTimeUtils.isInteger: one or more ASCII digits.
func isDigits(s string) bool {
	if s == "" {
		return false
	}
	for i := 0; i < len(s); i++ {
		if s[i] < '0' || s[i] > '9' {
			return false
		}
	}
	return true
}

// javaTrim is String.trim: strips characters <= ' '.
func javaTrim(s string) string { return strings.TrimFunc(s, func(r rune) bool { return r <= ' ' }) }

// parseIntPart is Integer.parseInt of a DateTimeUtils.isInteger string.
func parseIntPart(s string) (int, bool) {
	s = javaTrim(s)
	if !isDigits(s) {
		return 0, false
	}
	i, err := strconv.ParseInt(s, 10, 32)
	return int(i), err == nil
}

// parseDateValue is BinaryStringUtils.toDate: a numeric string is the day
// number itself, otherwise DateTimeUtils.parseDate (y[-m[-d]], anything
// after the first space ignored, year 0..9999, a valid date).
func parseDateValue(s string) (any, error) {
	if isNumeric(s) {
		i, err := parseJavaInt(s, 32)
		return int32(i), err
	}
	if ws := strings.IndexByte(s, ' '); ws > 0 {
		s = s[:ws]
	}
	y, m, d := 0, 1, 1
	var ok bool
	parts := strings.SplitN(s, "-", 3)
	if y, ok = parseIntPart(parts[0]); !ok {
		return nil, errSyntax
	}
	if len(parts) > 1 {
		if m, ok = parseIntPart(parts[1]); !ok {
			return nil, errSyntax
		}
	}
	if len(parts) > 2 {
		if d, ok = parseIntPart(parts[2]); !ok {
			return nil, errSyntax
		}
	}
	if !legalDate(y, m, d) {
		return nil, errSyntax
	}
	return epochDay(y, m, d), nil
}

// legalDate is DateTimeUtils.isIllegalDate (which returns true for legal
// dates).
func legalDate(y, m, d int) bool {
	if y < 0 || y > 9999 || m < 1 || m > 12 || d < 1 || d > 31 {
		return false
	}
	if m == 2 && d > 28 && !(leap(y) && d == 29) {
		return false
	}
	if d == 31 {
		switch m {
		case 1, 3, 5, 7, 8, 10, 12:
			return true
		}
		return false
	}
	return true
}

func leap(y int) bool { return y%4 == 0 && (y%100 != 0 || y%400 == 0) }

// parseTimeValue is BinaryStringUtils.toTime: a numeric string is the
// milliseconds of the day, otherwise DateTimeUtils.parseTime
// (h[:m[:s[.fff]]][±hh[:mm]]), which applies the zone offset to the hour
// and minute without normalizing.
func parseTimeValue(v string) (any, error) {
	if isNumeric(v) {
		i, err := parseJavaInt(v, 32)
		return int32(i), err
	}
	var tzHour, tzMinute, hour, minute, second, milli int
	var ok bool
	op := -1
	end := len(v)
	tz := strings.IndexByte(v, '-')
	if tz < 0 {
		tz = strings.IndexByte(v, '+')
		op = 1
	}
	if tz >= 0 {
		end = tz
		if c3 := strings.IndexByte(v[tz:], ':'); c3 < 0 {
			if tzHour, ok = parseIntPart(v[tz+1:]); !ok {
				return nil, errSyntax
			}
		} else {
			c3 += tz
			if tzHour, ok = parseIntPart(v[tz+1 : c3]); !ok {
				return nil, errSyntax
			}
			if tzMinute, ok = parseIntPart(v[c3+1:]); !ok {
				return nil, errSyntax
			}
		}
	}
	c1 := strings.IndexByte(v, ':')
	if c1 < 0 || c1 > end {
		if c1 > end {
			return nil, errSyntax // Java's substring would fail
		}
		if hour, ok = parseIntPart(v[:end]); !ok {
			return nil, errSyntax
		}
	} else {
		if hour, ok = parseIntPart(v[:c1]); !ok {
			return nil, errSyntax
		}
		c2 := strings.IndexByte(v[c1+1:], ':')
		if c2 < 0 {
			if c1+1 > end {
				return nil, errSyntax
			}
			if minute, ok = parseIntPart(v[c1+1 : end]); !ok {
				return nil, errSyntax
			}
		} else {
			c2 += c1 + 1
			if c2 > end {
				return nil, errSyntax
			}
			if minute, ok = parseIntPart(v[c1+1 : c2]); !ok {
				return nil, errSyntax
			}
			dot := strings.IndexByte(v[c2:], '.')
			if dot < 0 {
				if second, ok = parseIntPart(v[c2+1 : end]); !ok {
					return nil, errSyntax
				}
			} else {
				dot += c2
				if dot > end {
					return nil, errSyntax
				}
				if second, ok = parseIntPart(v[c2+1 : dot]); !ok {
					return nil, errSyntax
				}
				milli = parseFraction(javaTrim(v[dot+1 : end]))
			}
		}
	}
	hour += op * tzHour
	minute += op * tzMinute
	return int32(hour*3_600_000 + minute*60_000 + second*1000 + milli), nil
}

// parseFraction is DateTimeUtils.parseFraction with multiplier 100: the
// milliseconds of a fraction, rounded on the fourth digit.
func parseFraction(v string) int {
	mul, r := 100, 0
	for i := 0; i < len(v); i++ {
		c := v[i]
		x := 0
		if c >= '0' && c <= '9' {
			x = int(c - '0')
		}
		r += mul * x
		if mul < 10 {
			if i+1 < len(v) && v[i+1] >= '5' {
				r++
			}
			break
		}
		mul /= 10
	}
	return r
}

// parseTimestampValue is StringToTimestampCastRule: for TIMESTAMP a
// numeric string is an epoch count in the unit of the target precision
// (0, 3, 6 or 9 only), otherwise DateTimeUtils.parseTimestampData:
// yyyy-M[M]-d[d][ H[H]:m[m]:s[s][.fraction]], the fraction floored to the
// precision; for LTZ the wall clock is read in the default zone.
func parseTimestampValue(s string, to types.DataType) (any, error) {
	if to.Kind == types.KindTimestamp && isNumeric(s) {
		epoch, err := parseJavaInt(s, 64)
		if err != nil {
			return nil, err
		}
		var millis, nanos int64
		switch to.Precision {
		case 0:
			millis = epoch * 1000
		case 3:
			millis = epoch
		case 6:
			millis, nanos = epoch/1000, epoch%1000*1000
		case 9:
			millis, nanos = epoch/1_000_000, epoch%1_000_000
		default:
			return nil, errors.New("unsupported precision")
		}
		if nanos < 0 {
			nanos += 1_000_000
			millis--
		}
		return types.Timestamp{Millis: millis, NanoOfMilli: int32(nanos)}, nil
	}
	y, mo, d, h, mi, sec, nano, ok := scanTimestamp(s)
	if !ok {
		return nil, errSyntax
	}
	if to.Precision == 0 {
		nano = 0
	} else if to.Precision != 9 {
		m := int(math.Pow10(9 - to.Precision))
		nano = nano / m * m
	}
	t := time.Date(y, time.Month(mo), d, h, mi, sec, nano, time.UTC)
	ts := types.Timestamp{Millis: t.Unix()*1000 + int64(nano/1_000_000), NanoOfMilli: int32(nano % 1_000_000)}
	if to.Kind == types.KindLocalZonedTimestamp {
		ts = atZone(ts, local())
	}
	return ts, nil
}

// scanTimestamp parses the DEFAULT_TIMESTAMP_FORMATTER pattern of
// DateTimeUtils with the SMART resolver (a day past the month's end is
// moved to its last day).
func scanTimestamp(s string) (y, mo, d, h, mi, sec, nano int, ok bool) {
	num := func(min, max int) (int, bool) {
		j := 0
		for j < len(s) && j < max && s[j] >= '0' && s[j] <= '9' {
			j++
		}
		if j < min {
			return 0, false
		}
		v, _ := strconv.Atoi(s[:j])
		s = s[j:]
		return v, true
	}
	lit := func(c byte) bool {
		if s == "" || s[0] != c {
			return false
		}
		s = s[1:]
		return true
	}
	if y, ok = num(4, 9); !ok || !lit('-') {
		return
	}
	if mo, ok = num(1, 2); !ok || !lit('-') {
		return
	}
	if d, ok = num(1, 2); !ok {
		return
	}
	if s != "" {
		ok = false
		if !lit(' ') {
			return
		}
		if h, ok = num(1, 2); !ok || !lit(':') {
			ok = false
			return
		}
		if mi, ok = num(1, 2); !ok || !lit(':') {
			ok = false
			return
		}
		if sec, ok = num(1, 2); !ok {
			return
		}
		if lit('.') {
			digits := 0
			for digits < len(s) && digits < 9 && s[digits] >= '0' && s[digits] <= '9' {
				digits++
			}
			f, _ := strconv.Atoi("0" + s[:digits])
			nano = f * int(math.Pow10(9-digits))
			s = s[digits:]
		}
		ok = s == ""
	}
	if !ok || mo < 1 || mo > 12 || d < 1 || d > 31 || h > 23 || mi > 59 || sec > 59 {
		ok = false
		return
	}
	if last := time.Date(y, time.Month(mo)+1, 0, 0, 0, 0, 0, time.UTC).Day(); d > last {
		d = last
	}
	return
}
