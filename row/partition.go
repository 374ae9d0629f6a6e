package row

import (
	"fmt"
	"math/big"
	"strconv"
	"strings"
	"time"

	"github.com/paimon-go/paimon/types"
)

// DefaultPartitionName is the default of the table option
// partition.default-name: the directory value used for null, empty and
// whitespace-only partition values.
const DefaultPartitionName = "__DEFAULT_PARTITION__"

// PartitionKV is one key=value component of a partition path (unescaped).
type PartitionKV struct {
	Key   string
	Value string
}

// PartitionComputer turns partition values into the strings and directory
// names Java uses (org.apache.paimon.utils.InternalRowPartitionComputer and
// PartitionPathUtils; docs/paimon-format.md section 1.3).
type PartitionComputer struct {
	// Fields are the partition fields in partition-key order.
	Fields []types.DataField
	// DefaultName is partition.default-name; "" means DefaultPartitionName.
	DefaultName string
	// Legacy is partition.legacy-name (true is Paimon's default): values are
	// rendered with Java's toString of the internal value (DATE as the day
	// number, TIMESTAMP as LocalDateTime.toString). False renders them as
	// CAST(... AS STRING) (DATE yyyy-MM-dd, TIMESTAMP yyyy-MM-dd HH:mm:ss[.f]).
	Legacy bool
	// Zone is the JVM default time zone used by non-legacy rendering of
	// TIMESTAMP WITH LOCAL TIME ZONE values; nil means UTC.
	Zone *time.Location
}

func (c PartitionComputer) defaultName() string {
	if c.DefaultName == "" {
		return DefaultPartitionName
	}
	return c.DefaultName
}

// PartitionPath returns the relative partition directory of values, e.g.
// "dt=2024-01-01/hr=5/" (with trailing slash; "" when there are no
// partition fields), as Java's PartitionPathUtils.generatePartitionPath
// of InternalRowPartitionComputer.generatePartValues. values[i] is the Go
// value of fields[i] (nil = null). defaultName "" means
// DefaultPartitionName; legacy is the table option partition.legacy-name.
// Errors wrap ErrValue (value of the wrong Go type or with no path form,
// e.g. BINARY in legacy mode) or ErrUnsupported (nested types).
func PartitionPath(fields []types.DataField, values []any, defaultName string, legacy bool) (string, error) {
	return PartitionComputer{Fields: fields, DefaultName: defaultName, Legacy: legacy}.Path(values)
}

// Spec returns the unescaped key/value strings of a partition
// (InternalRowPartitionComputer.generatePartValues).
func (c PartitionComputer) Spec(values []any) ([]PartitionKV, error) {
	if len(values) != len(c.Fields) {
		return nil, fmt.Errorf("%w: %d partition values for %d partition fields", ErrSchema, len(values), len(c.Fields))
	}
	out := make([]PartitionKV, len(values))
	for i, f := range c.Fields {
		s, err := c.ValueString(f.Type, values[i])
		if err != nil {
			return nil, fmt.Errorf("partition field %q: %w", f.Name, err)
		}
		out[i] = PartitionKV{Key: f.Name, Value: s}
	}
	return out, nil
}

// Path returns the partition directory of values ("k=v/k2=v2/", "" for no
// fields); see PartitionPath.
func (c PartitionComputer) Path(values []any) (string, error) {
	spec, err := c.Spec(values)
	if err != nil {
		return "", err
	}
	return SpecPath(spec)
}

// PathOf is Path of a partition BinaryRow (as stored in _PARTITION).
func (c PartitionComputer) PathOf(partition BinaryRow) (string, error) {
	values, err := Decode(FieldTypes(c.Fields), partition)
	if err != nil {
		return "", fmt.Errorf("partition row: %w", err)
	}
	return c.Path(values)
}

// NameOf returns the display name of a partition BinaryRow, e.g.
// "dt=2024-01-01/hr=5" ("" for an unpartitioned table): PathOf without the
// trailing '/' (PartitionPathUtils.generatePartitionName).
func (c PartitionComputer) NameOf(partition BinaryRow) (string, error) {
	p, err := c.PathOf(partition)
	if err != nil {
		return "", err
	}
	return strings.TrimSuffix(p, "/"), nil
}

// PartitionString is the display name of a partition row with Paimon's
// default options (partition.legacy-name = true, default name
// __DEFAULT_PARTITION__), e.g. "dt=2024-01-01/hr=5"; see NameOf.
func PartitionString(fields []types.DataField, partition BinaryRow) (string, error) {
	return PartitionComputer{Fields: fields, Legacy: true}.NameOf(partition)
}

// SpecPath joins escaped key=value components with '/', with a trailing '/'
// ("" for an empty spec) (PartitionPathUtils.generatePartitionPath). Empty
// keys or values are rejected with ErrValue, like Java.
func SpecPath(spec []PartitionKV) (string, error) {
	var b strings.Builder
	for _, kv := range spec {
		if kv.Key == "" || kv.Value == "" {
			return "", fmt.Errorf("%w: empty partition key or value in %q=%q", ErrValue, kv.Key, kv.Value)
		}
		b.WriteString(EscapePathName(kv.Key))
		b.WriteByte('=')
		b.WriteString(EscapePathName(kv.Value))
		b.WriteByte('/')
	}
	return b.String(), nil
}

// PartitionName is SpecPath without the trailing '/', e.g. "dt=2024/hr=5"
// (PartitionPathUtils.generatePartitionName), convenient for display.
func PartitionName(spec []PartitionKV) (string, error) {
	p, err := SpecPath(spec)
	if err != nil {
		return "", err
	}
	return strings.TrimSuffix(p, "/"), nil
}

// ValueString renders one partition value as its unescaped directory value:
// the default name for nil, empty or whitespace-only strings, else Java's
// toString (legacy) or CAST AS STRING (non-legacy) of the internal value.
func (c PartitionComputer) ValueString(t types.DataType, v any) (string, error) {
	if v == nil {
		return c.defaultName(), nil
	}
	var s string
	var err error
	if c.Legacy {
		s, err = legacyString(t, v)
	} else {
		s, err = castString(t, v, c.Zone)
	}
	if err != nil {
		return "", err
	}
	if isNullOrWhitespaceOnly(s) {
		return c.defaultName(), nil
	}
	return s, nil
}

// legacyString is Object.toString of Paimon's internal value.
func legacyString(t types.DataType, v any) (string, error) {
	switch t.Kind {
	case types.KindBinary, types.KindVarBinary, types.KindBlob:
		return "", fmt.Errorf("%w: binary partition values have no legacy name (Java prints an object identity)", ErrValue)
	case types.KindDate, types.KindTime:
		x, ok := v.(int32)
		if !ok {
			return "", typeErr(t, v)
		}
		return strconv.FormatInt(int64(x), 10), nil
	case types.KindTimestamp, types.KindLocalZonedTimestamp:
		x, ok := v.(types.Timestamp)
		if !ok {
			return "", typeErr(t, v)
		}
		return javaLocalDateTimeString(x), nil
	}
	return commonString(t, v)
}

// castString is CastExecutors.resolve(type, STRING).cast(value).toString().
func castString(t types.DataType, v any, zone *time.Location) (string, error) {
	switch t.Kind {
	case types.KindBinary, types.KindVarBinary:
		x, ok := v.([]byte)
		if !ok {
			return "", typeErr(t, v)
		}
		return strings.ToValidUTF8(string(x), "\uFFFD"), nil
	case types.KindDate:
		x, ok := v.(int32)
		if !ok {
			return "", typeErr(t, v)
		}
		return formatDate(x), nil
	case types.KindTime:
		x, ok := v.(int32)
		if !ok {
			return "", typeErr(t, v)
		}
		return formatTimeMillis(x, t.Precision), nil
	case types.KindTimestamp:
		x, ok := v.(types.Timestamp)
		if !ok {
			return "", typeErr(t, v)
		}
		return formatTimestamp(x, t.Precision), nil
	case types.KindLocalZonedTimestamp:
		x, ok := v.(types.Timestamp)
		if !ok {
			return "", typeErr(t, v)
		}
		return formatTimestamp(toZone(x, zone), t.Precision), nil
	}
	return commonString(t, v)
}

// commonString covers the kinds whose legacy and cast renderings agree.
func commonString(t types.DataType, v any) (string, error) {
	switch t.Kind {
	case types.KindChar, types.KindVarChar:
		if x, ok := v.(string); ok {
			return x, nil
		}
	case types.KindBoolean:
		if x, ok := v.(bool); ok {
			return strconv.FormatBool(x), nil
		}
	case types.KindTinyInt:
		if x, ok := v.(int8); ok {
			return strconv.FormatInt(int64(x), 10), nil
		}
	case types.KindSmallInt:
		if x, ok := v.(int16); ok {
			return strconv.FormatInt(int64(x), 10), nil
		}
	case types.KindInt:
		if x, ok := v.(int32); ok {
			return strconv.FormatInt(int64(x), 10), nil
		}
	case types.KindBigInt:
		if x, ok := v.(int64); ok {
			return strconv.FormatInt(x, 10), nil
		}
	case types.KindFloat:
		if x, ok := v.(float32); ok {
			return javaFloatString(float64(x), 32), nil
		}
	case types.KindDouble:
		if x, ok := v.(float64); ok {
			return javaFloatString(x, 64), nil
		}
	case types.KindDecimal:
		if x, ok := v.(types.Decimal); ok {
			return plainDecimalString(x.Unscaled, x.Scale), nil
		}
	default:
		return "", fmt.Errorf("%w: %s as a partition value", ErrUnsupported, t)
	}
	return "", typeErr(t, v)
}

// partitionEscape reports whether an ASCII byte is escaped in path names
// (PartitionPathUtils.CHAR_TO_ESCAPE).
func partitionEscape(c byte) bool {
	if c < 0x20 || c == 0x7f {
		return true
	}
	switch c {
	case '"', '#', '%', '\'', '*', '/', ':', '=', '?', '\\', '{', '}', '[', ']', '^':
		return true
	}
	return false
}

// EscapePathName is PartitionPathUtils.escapePathName: every character in
// the escape set (0x00-0x1F, 0x7F and "#%'*/:=?\{}[]^) becomes %XX with two
// upper-case hex digits; everything else (including space and non-ASCII)
// is kept.
func EscapePathName(s string) string {
	var b strings.Builder
	escaped := false
	for i := 0; i < len(s); i++ {
		c := s[i]
		if partitionEscape(c) {
			if !escaped {
				escaped = true
				b.Grow(len(s) + 4)
				b.WriteString(s[:i])
			}
			fmt.Fprintf(&b, "%%%02X", c)
		} else if escaped {
			b.WriteByte(c)
		}
	}
	if !escaped {
		return s
	}
	return b.String()
}

// UnescapePathName is PartitionPathUtils.unescapePathName: "%" followed by
// two hexadecimal characters becomes that character (code point 0-255);
// anything else is kept as is.
func UnescapePathName(s string) string {
	if !strings.Contains(s, "%") {
		return s
	}
	var b strings.Builder
	for i := 0; i < len(s); i++ {
		c := s[i]
		if c == '%' && i+2 < len(s) {
			// Integer.parseInt(s, 16) also accepts a leading '+'.
			if code, err := strconv.ParseUint(strings.TrimPrefix(s[i+1:i+3], "+"), 16, 8); err == nil && s[i+1] != '-' {
				b.WriteRune(rune(code))
				i += 2
				continue
			}
		}
		b.WriteByte(c)
	}
	return b.String()
}

// ParsePartitionPath splits a partition path such as "dt=2024-01-01/hr=5/"
// into its unescaped key/value components, in order. As Java's
// extractPartitionSpecFromPath, components that are not of the form k=v
// (e.g. "bucket-0", a file name, a table root) are skipped; the key ends at
// the last '='. The result is empty (not nil) for a path without partitions.
func ParsePartitionPath(path string) []PartitionKV {
	out := []PartitionKV{}
	for _, comp := range strings.Split(path, "/") {
		eq := strings.LastIndexByte(comp, '=')
		if eq <= 0 || eq == len(comp)-1 {
			continue
		}
		out = append(out, PartitionKV{Key: UnescapePathName(comp[:eq]), Value: UnescapePathName(comp[eq+1:])})
	}
	return out
}

// Parse is the inverse of Path: it reads the partition components of path
// (see ParsePartitionPath) and converts them back to Go values with
// ParseValue. It fails with ErrSchema when the path's keys are not exactly
// c.Fields' names in order, and with ErrValue for unparsable values.
func (c PartitionComputer) Parse(path string) ([]any, error) {
	spec := ParsePartitionPath(path)
	if len(spec) != len(c.Fields) {
		return nil, fmt.Errorf("%w: path %q has %d partition components, want %d", ErrSchema, path, len(spec), len(c.Fields))
	}
	out := make([]any, len(spec))
	for i, f := range c.Fields {
		if spec[i].Key != f.Name {
			return nil, fmt.Errorf("%w: path %q component %d is %q, want %q", ErrSchema, path, i, spec[i].Key, f.Name)
		}
		v, err := c.ParseValue(f.Type, spec[i].Value)
		if err != nil {
			return nil, fmt.Errorf("path %q field %q: %w", path, f.Name, err)
		}
		out[i] = v
	}
	return out, nil
}

// ParseValue converts an unescaped partition value string back into the Go
// value of t, inverting ValueString: the default name gives nil; DATE/TIME
// are day/millisecond numbers in legacy mode and yyyy-MM-dd / HH:mm:ss[.fff]
// otherwise; TIMESTAMP is LocalDateTime.toString in legacy mode and
// "yyyy-MM-dd HH:mm:ss[.f]" otherwise. Errors wrap ErrValue.
func (c PartitionComputer) ParseValue(t types.DataType, s string) (any, error) {
	if s == c.defaultName() {
		return nil, nil
	}
	bad := func(err error) error {
		if err != nil {
			return fmt.Errorf("%w: %q as %s: %v", ErrValue, s, t, err)
		}
		return fmt.Errorf("%w: %q as %s", ErrValue, s, t)
	}
	switch t.Kind {
	case types.KindChar, types.KindVarChar:
		return s, nil
	case types.KindBinary, types.KindVarBinary:
		if c.Legacy {
			return nil, bad(nil)
		}
		return []byte(s), nil
	case types.KindBoolean:
		switch strings.ToLower(s) {
		case "true":
			return true, nil
		case "false":
			return false, nil
		}
		return nil, bad(nil)
	case types.KindTinyInt:
		x, err := strconv.ParseInt(s, 10, 8)
		if err != nil {
			return nil, bad(err)
		}
		return int8(x), nil
	case types.KindSmallInt:
		x, err := strconv.ParseInt(s, 10, 16)
		if err != nil {
			return nil, bad(err)
		}
		return int16(x), nil
	case types.KindInt:
		x, err := strconv.ParseInt(s, 10, 32)
		if err != nil {
			return nil, bad(err)
		}
		return int32(x), nil
	case types.KindBigInt:
		x, err := strconv.ParseInt(s, 10, 64)
		if err != nil {
			return nil, bad(err)
		}
		return x, nil
	case types.KindFloat:
		x, err := strconv.ParseFloat(s, 32)
		if err != nil {
			return nil, bad(err)
		}
		return float32(x), nil
	case types.KindDouble:
		x, err := strconv.ParseFloat(s, 64)
		if err != nil {
			return nil, bad(err)
		}
		return x, nil
	case types.KindDecimal:
		d, err := parseDecimal(s, t)
		if err != nil {
			return nil, bad(err)
		}
		return d, nil
	case types.KindDate:
		if c.Legacy {
			x, err := strconv.ParseInt(s, 10, 32)
			if err != nil {
				return nil, bad(err)
			}
			return int32(x), nil
		}
		d, err := time.Parse("2006-01-02", s)
		if err != nil {
			return nil, bad(err)
		}
		return int32(d.Unix() / 86400), nil
	case types.KindTime:
		if c.Legacy {
			x, err := strconv.ParseInt(s, 10, 32)
			if err != nil {
				return nil, bad(err)
			}
			return int32(x), nil
		}
		d, err := time.Parse("15:04:05.999999999", s)
		if err != nil {
			return nil, bad(err)
		}
		ms := d.Hour()*3600000 + d.Minute()*60000 + d.Second()*1000 + d.Nanosecond()/1_000_000
		return int32(ms), nil
	case types.KindTimestamp, types.KindLocalZonedTimestamp:
		layout := "2006-01-02 15:04:05.999999999"
		if c.Legacy {
			layout = "2006-01-02T15:04:05.999999999"
			if strings.Count(s, ":") == 1 { // seconds omitted when zero
				layout = "2006-01-02T15:04"
			}
		}
		loc := time.UTC
		if !c.Legacy && t.Kind == types.KindLocalZonedTimestamp && c.Zone != nil {
			loc = c.Zone
		}
		d, err := time.ParseInLocation(layout, s, loc)
		if err != nil {
			return nil, bad(err)
		}
		ns := d.Nanosecond()
		return types.Timestamp{Millis: d.Unix()*1000 + int64(ns/1_000_000), NanoOfMilli: int32(ns % 1_000_000)}, nil
	}
	return nil, fmt.Errorf("%w: %s as a partition value", ErrUnsupported, t)
}

// parseDecimal parses a plain decimal string into DECIMAL(t.Precision, t.Scale)
// (the scale must not be exceeded; shorter fractions are zero-extended).
func parseDecimal(s string, t types.DataType) (types.Decimal, error) {
	neg := strings.HasPrefix(s, "-")
	body := strings.TrimPrefix(strings.TrimPrefix(s, "-"), "+")
	intPart, frac, _ := strings.Cut(body, ".")
	if intPart == "" && frac == "" || len(frac) > t.Scale {
		return types.Decimal{}, fmt.Errorf("not a DECIMAL(%d, %d)", t.Precision, t.Scale)
	}
	digits := intPart + frac + strings.Repeat("0", t.Scale-len(frac))
	for _, r := range digits {
		if r < '0' || r > '9' {
			return types.Decimal{}, fmt.Errorf("not a decimal number")
		}
	}
	u, ok := new(big.Int).SetString(digits, 10)
	if !ok {
		return types.Decimal{}, fmt.Errorf("not a decimal number")
	}
	if neg {
		u.Neg(u)
	}
	d := types.Decimal{Unscaled: u, Precision: t.Precision, Scale: t.Scale}
	if err := checkDecimal(t, d); err != nil {
		return types.Decimal{}, err
	}
	return d, nil
}
