package cast

import (
	"fmt"
	"math"
	"math/big"
	"strings"
	"time"
	"unicode/utf8"

	"github.com/paimon-go/paimon/row"
	"github.com/paimon-go/paimon/types"
)

// conv casts one non-null Go value; nil means null.
type conv func(v any) (any, error)

const millisPerDay = 86_400_000

// local is Java's TimeZone.getDefault() (a variable for tests).
var local = func() *time.Location { return time.Local }

func isInteger(k types.Kind) bool {
	return k == types.KindTinyInt || k == types.KindSmallInt || k == types.KindInt || k == types.KindBigInt
}

func isApprox(k types.Kind) bool { return k == types.KindFloat || k == types.KindDouble }

func isString(k types.Kind) bool { return k == types.KindChar || k == types.KindVarChar }

func isBinary(k types.Kind) bool { return k == types.KindBinary || k == types.KindVarBinary }

func isTimestamp(k types.Kind) bool {
	return k == types.KindTimestamp || k == types.KindLocalZonedTimestamp
}

// isStringType is Java's DataTypes.STRING() (VARCHAR(MAX), nullable): the
// only target of the DATE/TIME/TIMESTAMP to string rules.
func isStringType(t types.DataType) bool {
	return t.Kind == types.KindVarChar && t.Length == types.MaxLength && t.Nullable
}

// resolve is CastExecutors.resolve(from, to): the rule Java picks for the
// pair, or nil when there is none. The rule lookup (target type, then its
// root, then its families; input root, then families) is flattened into
// the switch below; every pair it accepts has exactly one rule.
func resolve(from, to types.DataType) conv {
	fk, tk := from.Kind, to.Kind
	switch {
	// Numeric rules.
	case tk == types.KindDecimal && fk == types.KindDecimal:
		return func(v any) (any, error) { return decimalToDecimal(v.(types.Decimal), to) }
	case tk == types.KindDecimal && isInteger(fk):
		return func(v any) (any, error) { return bigToDecimal(big.NewInt(toLong(v)), 0, to) }
	case tk == types.KindDecimal && isApprox(fk):
		return func(v any) (any, error) { return doubleToDecimal(toDouble(v), to) }
	case fk == types.KindDecimal && (isInteger(tk) || isApprox(tk)):
		return func(v any) (any, error) { return decimalToNumber(v.(types.Decimal), tk), nil }
	case (isInteger(fk) || isApprox(fk)) && (isInteger(tk) || isApprox(tk)):
		return numericPrimitive(fk, tk)
	case isTimestamp(tk) && (fk == types.KindInt || fk == types.KindBigInt):
		zone := tk == types.KindLocalZonedTimestamp
		return func(v any) (any, error) {
			ts := types.Timestamp{Millis: toLong(v) * 1000} // wraps as Java's long product
			if zone {
				ts = wallClock(ts, local())
			}
			return ts, nil
		}
	// BOOLEAN <-> numeric.
	case fk == types.KindBoolean && (isInteger(tk) || isApprox(tk) || tk == types.KindDecimal):
		return func(v any) (any, error) {
			i := int64(0)
			if v.(bool) {
				i = 1
			}
			if tk == types.KindDecimal {
				return bigToDecimal(big.NewInt(i), 0, to)
			}
			return fromLong(i, tk), nil
		}
	case isInteger(fk) && tk == types.KindBoolean:
		return func(v any) (any, error) { return toLong(v) != 0, nil }
	// To string.
	case isString(tk) && (isInteger(fk) || isApprox(fk) || fk == types.KindDecimal || fk == types.KindBoolean || isString(fk)):
		return func(v any) (any, error) {
			s, err := row.CastString(from, v, nil)
			if err != nil {
				return nil, err
			}
			return toCharacterString(s, to), nil
		}
	case isStringType(to) && (isTimestamp(fk) || fk == types.KindTime || fk == types.KindDate):
		return func(v any) (any, error) { return row.CastString(from, v, local()) }
	case isString(tk) && isBinary(fk):
		return func(v any) (any, error) { return string(v.([]byte)), nil }
	// From string.
	case isString(fk) && tk == types.KindBoolean:
		return func(v any) (any, error) { return parseBoolean(v.(string)) }
	case isString(fk) && tk == types.KindDecimal:
		return func(v any) (any, error) {
			u, scale, err := parseBigDecimal(v.(string))
			if err != nil {
				return nil, err
			}
			return bigToDecimal(u, scale, to)
		}
	case isString(fk) && (isInteger(tk) || isApprox(tk)):
		return func(v any) (any, error) { return parseNumber(v.(string), tk) }
	case isString(fk) && tk == types.KindDate:
		return func(v any) (any, error) { return parseDateValue(v.(string)) }
	case isString(fk) && tk == types.KindTime:
		return func(v any) (any, error) { return parseTimeValue(v.(string)) }
	case isString(fk) && isTimestamp(tk):
		return func(v any) (any, error) { return parseTimestampValue(v.(string), to) }
	case isString(fk) && isBinary(tk):
		return func(v any) (any, error) { return toBinaryString([]byte(v.(string)), to), nil }
	// Date/time/timestamp rules.
	case isTimestamp(fk) && isTimestamp(tk):
		return timestampToTimestamp(from, to)
	case isTimestamp(fk) && tk == types.KindDate:
		if fk == types.KindTimestamp {
			return func(v any) (any, error) { return int32(v.(types.Timestamp).Millis / millisPerDay), nil }
		}
		return func(v any) (any, error) {
			t := time.UnixMilli(v.(types.Timestamp).Millis).In(local())
			return epochDay(t.Year(), int(t.Month()), t.Day()), nil
		}
	case isTimestamp(fk) && tk == types.KindTime:
		if fk == types.KindTimestamp {
			return func(v any) (any, error) { return int32(v.(types.Timestamp).Millis % millisPerDay), nil }
		}
		return func(v any) (any, error) {
			t := time.UnixMilli(v.(types.Timestamp).Millis).In(local())
			return int32(((t.Hour()*60+t.Minute())*60+t.Second())*1000 + t.Nanosecond()/1_000_000), nil
		}
	case fk == types.KindDate && isTimestamp(tk):
		zone := tk == types.KindLocalZonedTimestamp
		return func(v any) (any, error) {
			ts := types.Timestamp{Millis: int64(v.(int32)) * millisPerDay}
			if zone {
				ts = atZone(ts, local())
			}
			return ts, nil
		}
	case fk == types.KindTime && isTimestamp(tk):
		zone := tk == types.KindLocalZonedTimestamp
		return func(v any) (any, error) {
			ts := types.Timestamp{Millis: int64(v.(int32))}
			if zone {
				// DateTimeUtils.timeToTimestampWithLocalZone: the wall clock
				// of the instant in the default zone, back to an instant.
				ts = atZone(wallClock(ts, local()), local())
			}
			return ts, nil
		}
	case isTimestamp(fk) && (tk == types.KindBigInt || tk == types.KindInt):
		return func(v any) (any, error) {
			secs := v.(types.Timestamp).Millis / 1000 // DateTimeUtils.unixTimestamp truncates
			if tk == types.KindInt {
				return int32(secs), nil
			}
			return secs, nil
		}
	// To binary.
	case isBinary(fk) && isBinary(tk):
		return func(v any) (any, error) { return toBinaryString(v.([]byte), to), nil }
	}
	return nil
}

// toLong is Number.longValue of an integer value.
func toLong(v any) int64 {
	switch x := v.(type) {
	case int8:
		return int64(x)
	case int16:
		return int64(x)
	case int32:
		return int64(x)
	}
	return v.(int64)
}

// toDouble is Number.doubleValue of a FLOAT or DOUBLE value.
func toDouble(v any) float64 {
	if x, ok := v.(float32); ok {
		return float64(x)
	}
	return v.(float64)
}

// fromLong narrows i to integer kind k as Java's (byte)/(short)/(int)
// casts (two's complement wrap), or converts it to FLOAT/DOUBLE.
func fromLong(i int64, k types.Kind) any {
	switch k {
	case types.KindTinyInt:
		return int8(i)
	case types.KindSmallInt:
		return int16(i)
	case types.KindInt:
		return int32(i)
	case types.KindBigInt:
		return i
	case types.KindFloat:
		return float32(i)
	}
	return float64(i)
}

// d2i is Java's (int) of a double: NaN is 0, out-of-range saturates.
func d2i(d float64) int32 {
	switch {
	case math.IsNaN(d):
		return 0
	case d >= math.MaxInt32:
		return math.MaxInt32
	case d <= math.MinInt32:
		return math.MinInt32
	}
	return int32(d)
}

// d2l is Java's (long) of a double: NaN is 0, out-of-range saturates.
func d2l(d float64) int64 {
	switch {
	case math.IsNaN(d):
		return 0
	case d >= 9.223372036854775807e18:
		return math.MaxInt64
	case d <= -9.223372036854775808e18:
		return math.MinInt64
	}
	return int64(d)
}

// numericPrimitive is NumericPrimitiveCastRule: Number.byteValue() ...
// doubleValue() of the boxed source value.
func numericPrimitive(fk, tk types.Kind) conv {
	if isInteger(fk) {
		return func(v any) (any, error) { return fromLong(toLong(v), tk), nil }
	}
	return func(v any) (any, error) {
		d := toDouble(v)
		switch tk {
		case types.KindTinyInt:
			return int8(d2i(d)), nil // Double.byteValue() is (byte)(int)value
		case types.KindSmallInt:
			return int16(d2i(d)), nil
		case types.KindInt:
			return d2i(d), nil
		case types.KindBigInt:
			return d2l(d), nil
		case types.KindFloat:
			return float32(d), nil
		}
		return d, nil
	}
}

var (
	bigTen   = big.NewInt(10)
	mask64   = new(big.Int).SetUint64(math.MaxUint64)
	pow10Big [80]*big.Int
)

func init() {
	p := big.NewInt(1)
	for i := range pow10Big {
		pow10Big[i] = new(big.Int).Set(p)
		p.Mul(p, bigTen)
	}
}

func pow10(n int) *big.Int {
	if n < len(pow10Big) {
		return pow10Big[n]
	}
	return new(big.Int).Exp(bigTen, big.NewInt(int64(n)), nil)
}

// bigToDecimal is Decimal.fromBigDecimal(unscaled×10^-scale, p, s): the
// value rounded HALF_UP to the target scale. When it then has more digits
// than the target precision Java's cast returns null for a slot that is
// not null (CastedRow.isNullAt asks the file's row), and every consumer of
// the row fails on it (a NullPointerException in Java's own reads): the
// read fails here too, with an error.
func bigToDecimal(unscaled *big.Int, scale int, to types.DataType) (any, error) {
	u := rescale(unscaled, scale, to.Scale)
	if digits(u) > to.Precision {
		return nil, fmt.Errorf("%s×10^-%d needs more than %d digits", u, to.Scale, to.Precision)
	}
	return types.Decimal{Unscaled: u, Precision: to.Precision, Scale: to.Scale}, nil
}

// rescale returns unscaled×10^-from as an unscaled value of scale to,
// rounded HALF_UP (ties away from zero) as BigDecimal.setScale.
func rescale(unscaled *big.Int, from, to int) *big.Int {
	u := new(big.Int).Set(unscaled)
	if to >= from {
		return u.Mul(u, pow10(to-from))
	}
	d := pow10(from - to)
	q, r := new(big.Int).QuoRem(u, d, new(big.Int))
	// |r| * 2 >= d rounds away from zero.
	r.Abs(r).Lsh(r, 1)
	if r.Cmp(d) >= 0 {
		if u.Sign() < 0 {
			q.Sub(q, big.NewInt(1))
		} else {
			q.Add(q, big.NewInt(1))
		}
	}
	return q
}

// digits is BigDecimal.precision of an unscaled value: 1 for zero.
func digits(u *big.Int) int {
	if u.Sign() == 0 {
		return 1
	}
	return len(new(big.Int).Abs(u).String())
}

func decimalToDecimal(d types.Decimal, to types.DataType) (any, error) {
	return bigToDecimal(d.Unscaled, d.Scale, to)
}

// doubleToDecimal is DecimalUtils.castFrom(double, p, s):
// BigDecimal.valueOf(d), i.e. the decimal digits of Double.toString(d);
// NaN and Infinity fail (NumberFormatException in Java).
func doubleToDecimal(d float64, to types.DataType) (any, error) {
	if math.IsNaN(d) || math.IsInf(d, 0) {
		return nil, fmt.Errorf("%v has no decimal value", d)
	}
	u, scale, err := parseBigDecimal(row.JavaDoubleString(d, 64))
	if err != nil {
		return nil, err
	}
	return bigToDecimal(u, scale, to)
}

// decimalToNumber is DecimalToNumericPrimitiveCastRule: integers are
// DecimalUtils.castToIntegral (truncated toward zero, low 64 bits) narrowed
// with Java's wrap; FLOAT is (float) of DecimalUtils.doubleValue.
func decimalToNumber(d types.Decimal, tk types.Kind) any {
	if isInteger(tk) {
		q := new(big.Int).Quo(d.Unscaled, pow10(d.Scale))
		var l int64
		if q.IsInt64() {
			l = q.Int64()
		} else {
			l = int64(new(big.Int).And(q, mask64).Uint64())
		}
		return fromLong(l, tk)
	}
	f := decimalDouble(d)
	if tk == types.KindFloat {
		return float32(f)
	}
	return f
}

// decimalDouble is DecimalUtils.doubleValue: unscaled / 10^scale in double
// arithmetic for compact decimals (precision <= 18), else
// BigDecimal.doubleValue (the same fast path for small unscaled values,
// otherwise the correctly rounded value of its digits).
func decimalDouble(d types.Decimal) float64 {
	if d.Unscaled.IsInt64() {
		u := d.Unscaled.Int64()
		switch {
		case d.Precision <= 18:
			return float64(u) / math.Pow10(d.Scale)
		case d.Scale == 0:
			return float64(u)
		case (u < 1<<52 && u > -(1<<52)) && d.Scale > 0 && d.Scale < 23:
			return float64(u) / math.Pow10(d.Scale)
		}
	}
	f, _, _ := big.ParseFloat(row.PlainDecimalString(d.Unscaled, d.Scale), 10, 53, big.ToNearestEven)
	x, _ := f.Float64()
	return x
}

// toCharacterString is BinaryStringUtils.toCharacterString: cut to the
// target length in code points, CHAR padded with spaces.
func toCharacterString(s string, to types.DataType) string {
	n := utf8.RuneCountInString(s)
	switch {
	case n > to.Length:
		i, k := 0, 0
		for k < to.Length {
			_, w := utf8.DecodeRuneInString(s[i:])
			i += w
			k++
		}
		return s[:i]
	case n < to.Length && to.Kind == types.KindChar:
		return s + strings.Repeat(" ", to.Length-n)
	}
	return s
}

// toBinaryString is BinaryStringUtils.toBinaryString: BINARY(n) is cut or
// zero-padded to n bytes, VARBINARY(n) cut to at most n.
func toBinaryString(b []byte, to types.DataType) []byte {
	switch {
	case len(b) == to.Length:
		return b
	case to.Kind == types.KindBinary:
		out := make([]byte, to.Length)
		copy(out, b)
		return out
	case len(b) > to.Length:
		return b[:to.Length]
	}
	return b
}

// timestampToTimestamp is TimestampToTimestampCastRule: TIMESTAMP <-> LTZ
// through the default zone, then DateTimeUtils.truncate when the precision
// decreases.
func timestampToTimestamp(from, to types.DataType) conv {
	toLTZ := from.Kind == types.KindTimestamp && to.Kind == types.KindLocalZonedTimestamp
	fromLTZ := from.Kind == types.KindLocalZonedTimestamp && to.Kind == types.KindTimestamp
	cut := from.Precision > to.Precision
	p := to.Precision
	return func(v any) (any, error) {
		ts := v.(types.Timestamp)
		switch {
		case toLTZ:
			ts = atZone(ts, local())
		case fromLTZ:
			ts = wallClock(ts, local())
		}
		if cut {
			ts = truncate(ts, p)
		}
		return ts, nil
	}
}

// truncate is DateTimeUtils.truncate: precision <= 3 zeroes the last
// digits of the epoch milliseconds toward zero (and drops the sub-milli
// nanos), higher precisions zero the last digits of the nano-of-milli; a
// value whose nano-of-second has at most precision digits (written without
// leading zeros) is kept as is.
func truncate(ts types.Timestamp, precision int) types.Timestamp {
	nano := int(floorMod(ts.Millis, 1000))*1_000_000 + int(ts.NanoOfMilli)
	if len(fmt.Sprint(nano)) <= precision {
		return ts
	}
	if precision <= 3 {
		m := int64(math.Pow10(3 - precision))
		return types.Timestamp{Millis: ts.Millis / m * m}
	}
	m := int32(math.Pow10(9 - precision))
	return types.Timestamp{Millis: ts.Millis, NanoOfMilli: ts.NanoOfMilli / m * m}
}

func floorMod(a, b int64) int64 {
	m := a % b
	if m < 0 {
		m += b
	}
	return m
}

// wallClock is Timestamp.fromLocalDateTime(LocalDateTime.ofInstant(ts,
// loc)): the wall clock of the instant ts in loc, as a zone-less timestamp.
func wallClock(ts types.Timestamp, loc *time.Location) types.Timestamp {
	if loc == nil || loc == time.UTC {
		return ts
	}
	_, off := time.UnixMilli(ts.Millis).In(loc).Zone()
	return types.Timestamp{Millis: ts.Millis + int64(off)*1000, NanoOfMilli: ts.NanoOfMilli}
}

// atZone is Timestamp.fromInstant(ts.toLocalDateTime().atZone(loc)
// .toInstant()): the zone-less wall clock ts read in loc.
func atZone(ts types.Timestamp, loc *time.Location) types.Timestamp {
	if loc == nil || loc == time.UTC {
		return ts
	}
	u := time.UnixMilli(ts.Millis).UTC()
	t := time.Date(u.Year(), u.Month(), u.Day(), u.Hour(), u.Minute(), u.Second(), u.Nanosecond(), loc)
	return types.Timestamp{Millis: t.UnixMilli(), NanoOfMilli: ts.NanoOfMilli}
}

// epochDay is the days since 1970-01-01 of a proleptic Gregorian date
// (DateTimeUtils.ymdToUnixDate).
func epochDay(y, m, d int) int32 {
	a := (14 - m) / 12
	yy := y + 4800 - a
	mm := m + 12*a - 3
	julian := d + (153*mm+2)/5 + 365*yy + yy/4 - yy/100 + yy/400 - 32045
	return int32(julian - 2440588)
}
