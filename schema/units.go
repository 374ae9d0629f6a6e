package schema

import (
	"fmt"
	"math"
	"strconv"
	"strings"
	"time"
)

// ParseMemorySize parses a memory size the way Java
// org.apache.paimon.options.MemorySize.parseBytes does: optional surrounding
// whitespace, a non-negative decimal integer, optional whitespace, and an
// optional case-insensitive unit: b|bytes (1), k|kb|kibibytes (1024),
// m|mb|mebibytes (1024²), g|gb|gibibytes (1024³), t|tb|tebibytes (1024⁴).
// No unit means bytes. "128 mb", "256kb", "64 KB" and "500 B" are valid.
// Overflow of int64 is an error.
func ParseMemorySize(text string) (int64, error) {
	s := strings.TrimSpace(text)
	if s == "" {
		return 0, fmt.Errorf("empty memory size")
	}
	pos := 0
	for pos < len(s) && s[pos] >= '0' && s[pos] <= '9' {
		pos++
	}
	if pos == 0 {
		return 0, fmt.Errorf("memory size %q does not start with a number", text)
	}
	value, err := strconv.ParseInt(s[:pos], 10, 64)
	if err != nil {
		return 0, fmt.Errorf("memory size %q overflows 64 bits", text)
	}
	unit := strings.ToLower(strings.TrimSpace(s[pos:]))
	var mult int64
	switch unit {
	case "", "b", "bytes":
		mult = 1
	case "k", "kb", "kibibytes":
		mult = 1 << 10
	case "m", "mb", "mebibytes":
		mult = 1 << 20
	case "g", "gb", "gibibytes":
		mult = 1 << 30
	case "t", "tb", "tebibytes":
		mult = 1 << 40
	default:
		return 0, fmt.Errorf("memory size unit %q of %q is not one of b, k, m, g, t (with kb, mb, ... variants)", unit, text)
	}
	if value > math.MaxInt64/mult {
		return 0, fmt.Errorf("memory size %q overflows 64 bits", text)
	}
	return value * mult, nil
}

// durationUnits are Java TimeUtils.TimeUnit labels (singular, plural and
// their "s" forms).
func durationUnit(label string) (time.Duration, bool) {
	switch label {
	case "d", "day", "days":
		return 24 * time.Hour, true
	case "h", "hour", "hours":
		return time.Hour, true
	case "min", "m", "minute", "minutes":
		return time.Minute, true
	case "s", "sec", "secs", "second", "seconds":
		return time.Second, true
	case "ms", "milli", "millis", "millisecond", "milliseconds":
		return time.Millisecond, true
	case "µs", "micro", "micros", "microsecond", "microseconds":
		return time.Microsecond, true
	case "ns", "nano", "nanos", "nanosecond", "nanoseconds":
		return time.Nanosecond, true
	}
	return 0, false
}

// ParseDuration parses a duration the way Java
// org.apache.paimon.utils.TimeUtils.parseDuration does: a non-negative
// decimal integer, optional whitespace and an optional case-insensitive unit
// label (d|day|days, h|hour|hours, min|m|minute|minutes,
// s|sec|secs|second|seconds, ms|milli|millis|millisecond|milliseconds,
// µs|micro|micros|..., ns|nano|nanos|...). No unit means milliseconds.
// "1 h", "30 s", "1h", "10 min" and "500" (ms) are valid. Durations that do
// not fit time.Duration (about 292 years) are an error.
func ParseDuration(text string) (time.Duration, error) {
	s := strings.TrimSpace(text)
	if s == "" {
		return 0, fmt.Errorf("empty duration")
	}
	pos := 0
	for pos < len(s) && s[pos] >= '0' && s[pos] <= '9' {
		pos++
	}
	if pos == 0 {
		return 0, fmt.Errorf("duration %q does not start with a number", text)
	}
	value, err := strconv.ParseInt(s[:pos], 10, 64)
	if err != nil {
		return 0, fmt.Errorf("duration %q overflows 64 bits", text)
	}
	label := strings.ToLower(strings.TrimSpace(s[pos:]))
	unit := time.Millisecond
	if label != "" {
		u, ok := durationUnit(label)
		if !ok {
			return 0, fmt.Errorf("duration unit %q of %q is not a known time unit", label, text)
		}
		unit = u
	}
	if value > int64(math.MaxInt64/unit) {
		return 0, fmt.Errorf("duration %q is too large", text)
	}
	return time.Duration(value) * unit, nil
}
