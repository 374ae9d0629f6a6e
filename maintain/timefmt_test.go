package maintain

import (
	"errors"
	"testing"
	"time"
)

// TestTimeExtractor: Java PartitionTimeExtractor's defaults, patterns and the
// supported DateTimeFormatter letters.
func TestTimeExtractor(t *testing.T) {
	d := func(y int, mo time.Month, day, h, mi, s, ns int) time.Time {
		return time.Date(y, mo, day, h, mi, s, ns, time.UTC)
	}
	for _, tc := range []struct {
		pattern, formatter string
		keys, values       []string
		want               time.Time // zero: not a time
	}{
		{"", "", []string{"dt"}, []string{"2024-01-05"}, d(2024, 1, 5, 0, 0, 0, 0)},
		{"", "", []string{"dt"}, []string{"2024-1-5"}, d(2024, 1, 5, 0, 0, 0, 0)},
		{"", "", []string{"dt"}, []string{"2024-01-05 07:08:09"}, d(2024, 1, 5, 7, 8, 9, 0)},
		{"", "", []string{"dt"}, []string{"2024-01-05 07:08:09.5"}, d(2024, 1, 5, 7, 8, 9, 500_000_000)},
		{"", "", []string{"dt"}, []string{"20240105"}, time.Time{}},
		{"", "", []string{"dt"}, []string{"19723"}, time.Time{}}, // a DATE's day number (Java's toString)
		{"$dt $hr:00:00", "", []string{"dt", "hr"}, []string{"2024-01-05", "7"}, d(2024, 1, 5, 7, 0, 0, 0)},
		{"", "yyyyMMdd", []string{"dt"}, []string{"20240105"}, d(2024, 1, 5, 0, 0, 0, 0)},
		{"", "yyyyMMdd", []string{"dt"}, []string{"2024015"}, time.Time{}},
		{"", "yyyyMMddHH", []string{"dt"}, []string{"2024010523"}, d(2024, 1, 5, 23, 0, 0, 0)},
		{"$y-$m-$d", "yyyy-M-d", []string{"y", "m", "d"}, []string{"2024", "1", "5"}, d(2024, 1, 5, 0, 0, 0, 0)},
		{"", "yyyy/MM/dd HH:mm:ss.SSS", []string{"dt"}, []string{"2024/01/05 01:02:03.004"}, d(2024, 1, 5, 1, 2, 3, 4_000_000)},
		{"", "'day 'yyyy-MM-dd", []string{"dt"}, []string{"day 2024-01-05"}, d(2024, 1, 5, 0, 0, 0, 0)},
		{"", "yy-MM-dd", []string{"dt"}, []string{"24-01-05"}, d(2024, 1, 5, 0, 0, 0, 0)},
		{"", "yyyy-MM-dd", []string{"dt"}, []string{"2024-02-30"}, time.Time{}},
		{"", "yyyy-MM-dd", []string{"dt"}, []string{"2024-01-05x"}, time.Time{}},
	} {
		e, err := newTimeExtractor(tc.pattern, tc.formatter)
		if err != nil {
			t.Fatalf("%q/%q: %v", tc.pattern, tc.formatter, err)
		}
		got, err := e.extract(tc.keys, tc.values)
		switch {
		case tc.want.IsZero() && !errors.Is(err, errTimeParse):
			t.Errorf("%q/%q %v = %v, %v; want errTimeParse", tc.pattern, tc.formatter, tc.values, got, err)
		case !tc.want.IsZero() && (err != nil || !got.Equal(tc.want)):
			t.Errorf("%q/%q %v = %v, %v; want %v", tc.pattern, tc.formatter, tc.values, got, err, tc.want)
		}
	}
	for _, f := range []string{"yyyy-MM-dd EEE", "yyyy-MMM-dd", "'open"} {
		if _, err := newTimeExtractor("", f); !errors.Is(err, errUnsupportedLayout) {
			t.Errorf("formatter %q: %v, want errUnsupportedLayout", f, err)
		}
	}
}
