package datafile

import (
	"fmt"
	"unicode/utf8"

	"github.com/paimon-go/paimon/format"
	"github.com/paimon-go/paimon/manifest"
	"github.com/paimon-go/paimon/row"
	"github.com/paimon-go/paimon/schema"
	"github.com/paimon-go/paimon/types"
)

// statsModes resolves each written column's stats mode as Java's
// StatsCollectorFactories.createStatsFactories does:
// "fields.<name>.stats-mode" first, truncate(128) for the first `system`
// columns, then def for the first metadata.stats-keep-first-n-columns other
// columns and none for the rest.
func statsModes(o schema.Options, def schema.StatsMode, fields []types.DataField, system int) ([]schema.StatsMode, error) {
	keepFirst, err := o.MetadataStatsKeepFirstNColumns()
	if err != nil {
		return nil, err
	}
	out := make([]schema.StatsMode, len(fields))
	count := 0
	for i, f := range fields {
		if raw, ok := o.Get("fields." + f.Name + ".stats-mode"); ok {
			m, err := schema.ParseStatsMode(raw)
			if err != nil {
				return nil, fmt.Errorf("%w: fields.%s.stats-mode: %w", schema.ErrInvalidOption, f.Name, err)
			}
			out[i] = m
			count++
			continue
		}
		if i < system {
			out[i] = systemTruncate
			continue
		}
		if keepFirst >= 0 && count >= keepFirst {
			out[i] = schema.StatsMode{Kind: schema.StatsNone}
		} else {
			out[i] = def
		}
		count++
	}
	return out, nil
}

// applyStatsMode converts the statistics a format writer collected into what
// the stats mode keeps (SimpleColStatsCollector.convert of the None, Counts,
// Full and Truncate collectors).
func applyStatsMode(m schema.StatsMode, s format.ColumnStats) row.ColStats {
	nulls := int64(-1)
	if s.NullCountKnown {
		nulls = s.NullCount
	}
	switch m.Kind {
	case schema.StatsNone:
		return row.ColStats{NullCount: -1}
	case schema.StatsCounts:
		return row.ColStats{NullCount: nulls}
	case schema.StatsFull:
		return row.ColStats{Min: s.Min, Max: s.Max, NullCount: nulls}
	}
	lo := truncateMin(s.Min, m.TruncateLength)
	hi, ok := truncateMax(s.Max, m.TruncateLength)
	if !ok {
		return row.ColStats{NullCount: nulls}
	}
	return row.ColStats{Min: lo, Max: hi, NullCount: nulls}
}

// truncateMin is TruncateSimpleColStatsCollector.truncateMin: the first n
// code points of a string, the first n bytes of a binary, other values as
// they are.
func truncateMin(v any, n int) any {
	switch x := v.(type) {
	case string:
		return prefixRunes(x, n)
	case []byte:
		if len(x) > n {
			return x[:n]
		}
	}
	return v
}

func prefixRunes(s string, n int) string {
	i := 0
	for k := 0; k < n && i < len(s); k++ {
		_, size := utf8.DecodeRuneInString(s[i:])
		i += size
	}
	return s[:i]
}

// truncateMax is TruncateSimpleColStatsCollector.truncateMax: a value >= v
// of at most n code points (bytes), made by incrementing the last code point
// (byte) that can be incremented after truncation. ok is false when there is
// none (then Java stores no min/max for the column).
func truncateMax(v any, n int) (out any, ok bool) {
	switch x := v.(type) {
	case string:
		t := prefixRunes(x, n)
		if len(t) == len(x) {
			return v, true
		}
		rs := []rune(t)
		for i := len(rs) - 1; i >= 0; i-- {
			next := rs[i] + 1
			if next >= 0xD800 && next <= 0xDFFF {
				// Java would produce a lone surrogate here; the next valid
				// scalar value is a correct (slightly looser) upper bound.
				next = 0xE000
			}
			if next <= utf8.MaxRune {
				rs = append(rs[:i], next)
				return string(rs), true
			}
		}
		return nil, false
	case []byte:
		if len(x) <= n {
			return v, true
		}
		t := append([]byte(nil), x[:n]...)
		for i := n - 1; i >= 0; i-- {
			if t[i] != 0xFF {
				t[i]++
				return t[:i+1], true
			}
		}
		return nil, false
	}
	return v, true
}

// encodeStats is SimpleStatsConverter.toBinary over fields after applying
// their modes to the collected stats (missing entries count as unknown);
// dense is metadata.stats-dense-store.
func encodeStats(fields []types.DataField, modes []schema.StatsMode, stats []format.ColumnStats, dense bool) (row.EncodedStats, error) {
	cs := make([]row.ColStats, len(fields))
	for i := range fields {
		var s format.ColumnStats
		if i < len(stats) {
			s = stats[i]
		}
		cs[i] = applyStatsMode(modes[i], s)
	}
	return row.EncodeStats(fields, cs, dense)
}

// simpleStats converts encoded stats to the manifest form.
func simpleStats(s row.EncodedStats) manifest.SimpleStats {
	return manifest.SimpleStats{MinValues: row.Serialize(s.Min), MaxValues: row.Serialize(s.Max), NullCounts: s.NullCounts}
}
