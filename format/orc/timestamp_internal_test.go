package orc

import (
	"math"
	"testing"

	"github.com/apache/arrow-go/v18/arrow"
)

// TestScaleTimestampBounds: seconds plus nanoseconds convert to every unit
// up to the int64 limits exactly, and one step past them is reported.
func TestScaleTimestampBounds(t *testing.T) {
	for _, c := range []struct {
		s, ns int64
		unit  arrow.TimeUnit
		want  int64
		ok    bool
	}{
		{-9223372037, 145224192, arrow.Nanosecond, math.MinInt64, true},
		{-9223372037, 145224191, arrow.Nanosecond, 0, false},
		{-9223372038, 999999999, arrow.Nanosecond, 0, false},
		{9223372036, 854775807, arrow.Nanosecond, math.MaxInt64, true},
		{9223372036, 854775808, arrow.Nanosecond, 0, false},
		{-9223372036854776, 192000000, arrow.Millisecond, -9223372036854775808, true},
		{-9223372036854776, 191000000, arrow.Millisecond, 0, false},
		{-9223372036855, 224192000, arrow.Microsecond, math.MinInt64, true},
		{-1, 999999999, arrow.Nanosecond, -1, true},
		{-2, 500000000, arrow.Millisecond, -1500, true},
	} {
		got, ok := scaleTimestamp(c.s, c.ns, c.unit)
		if ok != c.ok || (ok && got != c.want) {
			t.Errorf("scaleTimestamp(%d, %d, %s) = %d, %v; want %d, %v", c.s, c.ns, c.unit, got, ok, c.want, c.ok)
		}
	}
}
