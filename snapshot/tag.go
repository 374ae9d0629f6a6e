package snapshot

import (
	"bytes"
	"encoding/json"
	"fmt"
	"math/big"
	"strconv"
	"strings"
	"time"
)

// Tag is the content of tag/tag-<name> (Java org.apache.paimon.tag.Tag): the tagged snapshot
// plus two optional tag fields.
type Tag struct {
	Snapshot
	// Name is the tag name (from the file name; not stored in the JSON).
	Name string
	// CreateTime (tagCreateTime) is a Java LocalDateTime: a wall-clock date-time without zone,
	// represented here in UTC. Jackson writes it as [year, month, day, hour, minute(, second
	// (, nano))]; ISO strings are accepted too. nil when absent.
	CreateTime *time.Time
	// TimeRetained (tagTimeRetained) is a Java Duration, written by Jackson as decimal seconds
	// with nine fraction digits (e.g. 3.000000000); nil when absent.
	TimeRetained *time.Duration
}

const (
	keyTagCreateTime   = "tagCreateTime"
	keyTagTimeRetained = "tagTimeRetained"
)

// DecodeTag parses tag JSON (snapshot JSON plus tagCreateTime and tagTimeRetained). Errors
// wrap ErrCorrupt, or fileio.ErrTooLarge for data over MaxFileSize.
func DecodeTag(data []byte) (*Tag, error) {
	if err := checkSize(data); err != nil {
		return nil, err
	}
	fields, err := readObject(data)
	if err != nil {
		return nil, fmt.Errorf("%w: %w", ErrCorrupt, err)
	}
	t := &Tag{}
	if err := t.Snapshot.apply(fields, map[string]bool{keyTagCreateTime: true, keyTagTimeRetained: true}); err != nil {
		return nil, err
	}
	for _, f := range fields {
		switch f.key {
		case keyTagCreateTime:
			if isNull(f.value) {
				t.CreateTime = nil
				continue
			}
			ct, err := parseLocalDateTime(f.value)
			if err != nil {
				return nil, fmt.Errorf("%w: key %q: %w", ErrCorrupt, f.key, err)
			}
			t.CreateTime = &ct
		case keyTagTimeRetained:
			if isNull(f.value) {
				t.TimeRetained = nil
				continue
			}
			d, err := parseDuration(f.value)
			if err != nil {
				return nil, fmt.Errorf("%w: key %q: %w", ErrCorrupt, f.key, err)
			}
			t.TimeRetained = &d
		}
	}
	return t, nil
}

// Encode renders the tag as Java writes it: the snapshot keys, then tagCreateTime and
// tagTimeRetained when set, then unknown keys.
func (t *Tag) Encode() ([]byte, error) {
	w := &jsonWriter{}
	w.beginObject()
	t.Snapshot.encodeFields(w)
	if t.CreateTime != nil {
		ct := *t.CreateTime
		w.key(keyTagCreateTime)
		w.beginArray()
		parts := []int64{int64(ct.Year()), int64(ct.Month()), int64(ct.Day()), int64(ct.Hour()), int64(ct.Minute())}
		if ct.Second() != 0 || ct.Nanosecond() != 0 {
			parts = append(parts, int64(ct.Second()))
		}
		if ct.Nanosecond() != 0 {
			parts = append(parts, int64(ct.Nanosecond()))
		}
		for _, p := range parts {
			w.elem()
			w.int(p)
		}
		w.endArray()
	}
	if t.TimeRetained != nil {
		w.key(keyTagTimeRetained)
		w.buf.WriteString(formatDuration(*t.TimeRetained))
	}
	if err := t.Snapshot.encodeExtra(w); err != nil {
		return nil, err
	}
	w.endObject()
	return w.buf.Bytes(), nil
}

// parseLocalDateTime accepts Jackson's array form or an ISO-8601 local date-time string.
func parseLocalDateTime(v json.RawMessage) (time.Time, error) {
	v = bytes.TrimSpace(v)
	if len(v) > 0 && v[0] == '"' {
		s, err := parseString(v)
		if err != nil {
			return time.Time{}, err
		}
		for _, layout := range []string{"2006-01-02T15:04:05.999999999", "2006-01-02T15:04"} {
			if t, err := time.ParseInLocation(layout, s, time.UTC); err == nil {
				return t, nil
			}
		}
		return time.Time{}, fmt.Errorf("not an ISO local date-time: %s", truncate(s))
	}
	var parts []json.RawMessage
	if err := json.Unmarshal(v, &parts); err != nil {
		return time.Time{}, fmt.Errorf("not a date-time array: %s", truncate(string(v)))
	}
	if len(parts) < 5 || len(parts) > 7 {
		return time.Time{}, fmt.Errorf("date-time array has %d elements, want 5 to 7", len(parts))
	}
	var n [7]int64
	limits := [7][2]int64{{-999999999, 999999999}, {1, 12}, {1, 31}, {0, 23}, {0, 59}, {0, 59}, {0, 999999999}}
	for i, p := range parts {
		x, err := parseInt64(p)
		if err != nil {
			return time.Time{}, err
		}
		if x < limits[i][0] || x > limits[i][1] {
			return time.Time{}, fmt.Errorf("date-time element %d out of range: %d", i, x)
		}
		n[i] = x
	}
	t := time.Date(int(n[0]), time.Month(n[1]), int(n[2]), int(n[3]), int(n[4]), int(n[5]), int(n[6]), time.UTC)
	if t.Day() != int(n[2]) {
		return time.Time{}, fmt.Errorf("invalid date %d-%d-%d", n[0], n[1], n[2])
	}
	return t, nil
}

// parseDuration accepts Jackson's decimal seconds (3.000000000, 3), or an ISO-8601 duration
// string as Java's Duration.parse reads it (only the PnDTnHnMn.nS subset).
func parseDuration(v json.RawMessage) (time.Duration, error) {
	s := string(bytes.TrimSpace(v))
	if len(s) > 0 && s[0] == '"' {
		str, err := parseString(v)
		if err != nil {
			return 0, err
		}
		return parseISODuration(str)
	}
	r, ok := new(big.Rat).SetString(s)
	if !ok || strings.ContainsAny(s, "eE/") {
		return 0, fmt.Errorf("not a decimal number of seconds: %s", truncate(s))
	}
	r.Mul(r, big.NewRat(int64(time.Second), 1))
	if !r.IsInt() || !r.Num().IsInt64() {
		return 0, fmt.Errorf("duration out of range: %s", truncate(s))
	}
	return time.Duration(r.Num().Int64()), nil
}

func parseISODuration(s string) (time.Duration, error) {
	bad := fmt.Errorf("not an ISO-8601 duration: %s", truncate(s))
	u := strings.ToUpper(s)
	neg := strings.HasPrefix(u, "-")
	u = strings.TrimPrefix(strings.TrimPrefix(u, "-"), "+")
	if !strings.HasPrefix(u, "P") || len(u) < 3 {
		return 0, bad
	}
	u = u[1:]
	var total time.Duration
	inTime := false
	for len(u) > 0 {
		if u[0] == 'T' {
			inTime = true
			u = u[1:]
			continue
		}
		i := strings.IndexAny(u, "DHMS")
		if i <= 0 {
			return 0, bad
		}
		num, unit := u[:i], u[i]
		u = u[i+1:]
		scale := map[byte]time.Duration{'D': 24 * time.Hour, 'H': time.Hour, 'M': time.Minute, 'S': time.Second}[unit]
		if (unit == 'D') == inTime {
			return 0, bad
		}
		r, ok := new(big.Rat).SetString(num)
		if !ok || (unit != 'S' && strings.Contains(num, ".")) {
			return 0, bad
		}
		r.Mul(r, big.NewRat(int64(scale), 1))
		if !r.IsInt() || !r.Num().IsInt64() {
			return 0, bad
		}
		total += time.Duration(r.Num().Int64())
	}
	if neg {
		total = -total
	}
	return total, nil
}

// formatDuration writes a duration as Jackson's DurationSerializer does: Java Duration seconds
// (floored) and nanos (0..999999999) as "<seconds>.<9 digits>", with zero as "0.0".
func formatDuration(d time.Duration) string {
	sec := int64(d / time.Second)
	nanos := int64(d % time.Second)
	if nanos < 0 {
		sec--
		nanos += int64(time.Second)
	}
	if sec == 0 && nanos == 0 {
		return "0.0"
	}
	frac := strconv.FormatInt(nanos, 10)
	return strconv.FormatInt(sec, 10) + "." + strings.Repeat("0", 9-len(frac)) + frac
}
