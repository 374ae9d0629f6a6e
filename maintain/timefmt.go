package maintain

import (
	"errors"
	"fmt"
	"regexp"
	"strconv"
	"strings"
	"time"
)

// errTimeParse marks a partition value that holds no time under the table's
// pattern and formatter; such partitions never expire by values-time (Java
// PartitionValuesTimeExpireStrategy logs them and keeps them).
var errTimeParse = errors.New("maintain: partition value is not a time")

// timeExtractor reads the time of a partition from its values, as Java's
// PartitionTimeExtractor: partition.timestamp-pattern ("$dt $hour:00:00")
// names the values to substitute (default: the first value), and
// partition.timestamp-formatter (a Java DateTimeFormatter pattern) parses the
// result; without a formatter, yyyy-M-d[ H:m:s[.fraction]] with one- or
// two-digit fields is accepted. The time is a wall-clock time (Java
// LocalDateTime), returned in UTC.
type timeExtractor struct {
	pattern string
	layout  []token // nil: the default formats
}

func newTimeExtractor(pattern, formatter string) (*timeExtractor, error) {
	e := &timeExtractor{pattern: pattern}
	if formatter != "" {
		toks, err := compileLayout(formatter)
		if err != nil {
			return nil, err
		}
		e.layout = toks
	}
	return e, nil
}

// extract returns the time of the partition whose keys and value strings
// (Java's toString of each value) are given; errors wrap errTimeParse.
func (e *timeExtractor) extract(keys, values []string) (time.Time, error) {
	var s string
	if e.pattern == "" {
		if len(values) == 0 {
			return time.Time{}, fmt.Errorf("%w: no partition value", errTimeParse)
		}
		s = values[0]
	} else {
		s = e.pattern
		for i, k := range keys {
			s = strings.ReplaceAll(s, "$"+k, values[i])
		}
	}
	if e.layout == nil {
		return parseDefault(s)
	}
	return parseLayout(e.layout, s)
}

var (
	defaultDateTime = regexp.MustCompile(`^(\d{1,10})-(\d{1,2})-(\d{1,2})(?: (\d{1,2}):(\d{1,2}):(\d{1,2})(?:\.(\d{1,9}))?)?$`)
)

// parseDefault is PartitionTimeExtractor.toLocalDateTimeDefault: Java's
// lenient y-M-d[ H:m:s[.fraction]] (out-of-range fields roll over, as
// ResolverStyle.LENIENT does).
func parseDefault(s string) (time.Time, error) {
	m := defaultDateTime.FindStringSubmatch(s)
	if m == nil {
		return time.Time{}, fmt.Errorf("%w: %q is not yyyy-MM-dd[ HH:mm:ss]", errTimeParse, s)
	}
	n := make([]int, 7)
	for i := 1; i <= 6; i++ {
		if m[i] != "" {
			v, err := strconv.Atoi(m[i])
			if err != nil {
				return time.Time{}, fmt.Errorf("%w: %q", errTimeParse, s)
			}
			n[i-1] = v
		}
	}
	if f := m[7]; f != "" {
		f += strings.Repeat("0", 9-len(f))
		n[6], _ = strconv.Atoi(f)
	}
	return time.Date(n[0], time.Month(n[1]), n[2], n[3], n[4], n[5], n[6], time.UTC), nil
}

// token is one element of a compiled DateTimeFormatter pattern: a literal,
// or a numeric field with its digit widths.
type token struct {
	lit      string
	field    byte // 'y', 'M', 'd', 'H', 'm', 's', 'S' (fraction); 0 for literals
	min, max int  // digits
	reduced  bool // yy: two digits, base 2000
}

// compileLayout compiles the numeric subset of Java's DateTimeFormatter
// patterns: y/u (year), M, d, H, m, s, S (fraction), quoted text and other
// literal characters. Letters outside that subset wrap errUnsupportedLayout.
func compileLayout(p string) ([]token, error) {
	var out []token
	for i := 0; i < len(p); {
		c := p[i]
		switch {
		case c == '\'':
			j := i + 1
			var b strings.Builder
			for ; j < len(p); j++ {
				if p[j] == '\'' {
					if j+1 < len(p) && p[j+1] == '\'' {
						b.WriteByte('\'')
						j++
						continue
					}
					break
				}
				b.WriteByte(p[j])
			}
			if j >= len(p) {
				return nil, fmt.Errorf("%w: unterminated quote in %q", errUnsupportedLayout, p)
			}
			if i+1 == j {
				b.WriteByte('\'') // '' is a quote
			}
			out = append(out, token{lit: b.String()})
			i = j + 1
		case (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z'):
			j := i
			for j < len(p) && p[j] == c {
				j++
			}
			n := j - i
			t, err := fieldToken(c, n)
			if err != nil {
				return nil, fmt.Errorf("%w in %q", err, p)
			}
			out = append(out, t)
			i = j
		default:
			out = append(out, token{lit: string(c)})
			i++
		}
	}
	return out, nil
}

var errUnsupportedLayout = errors.New("unsupported partition.timestamp-formatter")

func fieldToken(c byte, n int) (token, error) {
	switch c {
	case 'y', 'u':
		switch {
		case n == 2:
			return token{field: 'y', min: 2, max: 2, reduced: true}, nil
		case n == 1:
			return token{field: 'y', min: 1, max: 19}, nil
		default:
			return token{field: 'y', min: n, max: 19}, nil
		}
	case 'M', 'd', 'H', 'm', 's':
		switch n {
		case 1:
			return token{field: c, min: 1, max: 19}, nil
		case 2:
			return token{field: c, min: 2, max: 2}, nil
		}
		return token{}, fmt.Errorf("%w: %q repeated %d times", errUnsupportedLayout, c, n)
	case 'S':
		return token{field: 'S', min: n, max: n}, nil
	}
	return token{}, fmt.Errorf("%w: pattern letter %q", errUnsupportedLayout, c)
}

// parseLayout parses s with toks as Java's LocalDateTime.parse, falling back
// to LocalDate.parse at midnight when the pattern has no hour (Java's
// PartitionTimeExtractor.toLocalDateTime). A variable-width field followed
// directly by fixed-width fields leaves them their digits (Java's adjacent
// value parsing, e.g. yyyyMMdd).
func parseLayout(toks []token, s string) (time.Time, error) {
	bad := func() (time.Time, error) {
		return time.Time{}, fmt.Errorf("%w: %q does not match partition.timestamp-formatter", errTimeParse, s)
	}
	vals := map[byte]int{}
	pos := 0
	for i := 0; i < len(toks); i++ {
		t := toks[i]
		if t.field == 0 {
			if !strings.HasPrefix(s[pos:], t.lit) {
				return bad()
			}
			pos += len(t.lit)
			continue
		}
		digits := 0
		for pos+digits < len(s) && s[pos+digits] >= '0' && s[pos+digits] <= '9' {
			digits++
		}
		// Reserve the digits of the fixed-width fields that follow directly.
		reserve := 0
		for j := i + 1; j < len(toks) && toks[j].field != 0 && toks[j].min == toks[j].max; j++ {
			reserve += toks[j].min
		}
		w := min(digits-reserve, t.max)
		if t.min == t.max {
			w = t.min
		}
		if w < t.min || w > digits {
			return bad()
		}
		v, err := strconv.Atoi(s[pos : pos+w])
		if err != nil {
			return bad()
		}
		switch {
		case t.reduced:
			v += 2000
		case t.field == 'S':
			for k := w; k < 9; k++ {
				v *= 10
			}
		}
		if _, dup := vals[t.field]; dup {
			return bad()
		}
		vals[t.field] = v
		pos += w
	}
	if pos != len(s) {
		return bad()
	}
	y, okY := vals['y']
	mo, okM := vals['M']
	d, okD := vals['d']
	if !okY || !okM || !okD {
		return bad()
	}
	h, mi, sec, ns := vals['H'], vals['m'], vals['s'], vals['S']
	if _, ok := vals['H']; !ok {
		h, mi, sec, ns = 0, 0, 0, 0 // LocalDate at midnight
	}
	if mo < 1 || mo > 12 || d < 1 || d > 31 || h > 23 || mi > 59 || sec > 59 {
		return bad()
	}
	out := time.Date(y, time.Month(mo), d, h, mi, sec, ns, time.UTC)
	if out.Day() != d {
		return bad() // February 30th and the like
	}
	return out, nil
}
