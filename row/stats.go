package row

import (
	"fmt"

	"github.com/paimon-go/paimon/types"
)

// Stats are the decoded SimpleStats of a data file's value columns or key
// columns (org.apache.paimon.stats.SimpleStats): one entry per field of the
// field list it was decoded with. docs/paimon-format.md section 8.
type Stats struct {
	// Min and Max hold the Go value of each field's minimum / maximum, or nil
	// when unknown (not collected, dropped by truncation, all values null,
	// or the column is not in the dense stats column list).
	Min []any
	Max []any
	// NullCounts holds each field's null count, or -1 when unknown.
	NullCounts []int64
}

// ColStats is one column's collected statistics (org.apache.paimon.format.SimpleColStats):
// Min/Max nil = not collected; NullCount -1 = not collected. A column with all
// three unknown is "none" and is left out in dense mode.
type ColStats struct {
	Min       any
	Max       any
	NullCount int64
}

// EncodedStats is the stored form of a file's stats: the _VALUE_STATS_COLS
// list and the SimpleStats triple (_MIN_VALUES, _MAX_VALUES, _NULL_COUNTS).
type EncodedStats struct {
	// Cols is nil when every field is stored ("all mode"), otherwise the
	// names of the stored fields in order (possibly empty, never nil).
	Cols []string
	// Min and Max are the min/max rows over the stored fields (field types
	// made nullable); serialize them with Serialize.
	Min BinaryRow
	Max BinaryRow
	// NullCounts has one entry per stored field; -1 means null (unknown).
	NullCounts []int64
}

// DecodeStats decodes a stats triple into per-field values.
//
// fields are the columns the stats describe: for value stats the fields of
// the data file's schema (_SCHEMA_ID), for key stats the trimmed primary key
// fields. statsCols is the file's _VALUE_STATS_COLS: nil means the rows hold
// every field in order; otherwise they hold only the named fields, in that
// order, and the other fields are unknown (SimpleStatsEvolution dense mode).
// nullCounts is _NULL_COUNTS with -1 for a null entry.
//
// A triple of arity-0 rows with no null counts (SimpleStats.EMPTY_STATS)
// decodes to "all unknown" for any field list. Errors: ErrSchema when the
// arities or names do not match fields, ErrCorrupt for bad row bytes.
func DecodeStats(fields []types.DataField, statsCols []string, min, max BinaryRow, nullCounts []int64) (Stats, error) {
	n := len(fields)
	out := Stats{Min: make([]any, n), Max: make([]any, n), NullCounts: make([]int64, n)}
	for i := range out.NullCounts {
		out.NullCounts[i] = -1
	}
	if min.Arity() == 0 && max.Arity() == 0 && len(nullCounts) == 0 {
		return out, nil
	}
	// index[j] = position in fields of the j-th stored column.
	var index []int
	if statsCols == nil {
		index = make([]int, n)
		for i := range index {
			index[i] = i
		}
	} else {
		byName := make(map[string]int, n)
		for i, f := range fields {
			byName[f.Name] = i
		}
		index = make([]int, len(statsCols))
		for j, name := range statsCols {
			i, ok := byName[name]
			if !ok {
				return Stats{}, fmt.Errorf("%w: stats column %q is not a field", ErrSchema, name)
			}
			index[j] = i
		}
	}
	if min.Arity() != len(index) || max.Arity() != len(index) || len(nullCounts) != len(index) {
		return Stats{}, fmt.Errorf("%w: stats of arity %d/%d with %d null counts for %d columns",
			ErrSchema, min.Arity(), max.Arity(), len(nullCounts), len(index))
	}
	ts := make([]types.DataType, len(index))
	for j, i := range index {
		ts[j] = fields[i].Type
		ts[j].Nullable = true
	}
	mins, err := Decode(ts, min)
	if err != nil {
		return Stats{}, fmt.Errorf("min values: %w", err)
	}
	maxs, err := Decode(ts, max)
	if err != nil {
		return Stats{}, fmt.Errorf("max values: %w", err)
	}
	for j, i := range index {
		out.Min[i] = mins[j]
		out.Max[i] = maxs[j]
		if nullCounts[j] >= 0 {
			out.NullCounts[i] = nullCounts[j]
		}
	}
	return out, nil
}

// EncodeStats builds the stored stats of fields from one ColStats per field,
// as SimpleStatsConverter.toBinary does. dense is metadata.stats-dense-store
// (default true): "none" columns (all three unknown) are dropped and Cols
// lists the kept ones, or is nil if every column is kept. Without dense,
// every column is stored and Cols is nil. Errors wrap ErrSchema (length
// mismatch) or the Encode errors of a min/max value.
func EncodeStats(fields []types.DataField, cols []ColStats, dense bool) (EncodedStats, error) {
	if len(cols) != len(fields) {
		return EncodedStats{}, fmt.Errorf("%w: %d column stats for %d fields", ErrSchema, len(cols), len(fields))
	}
	var names []string
	var ts []types.DataType
	var mins, maxs []any
	var counts []int64
	for i, c := range cols {
		if dense && c.Min == nil && c.Max == nil && c.NullCount < 0 {
			continue
		}
		t := fields[i].Type
		t.Nullable = true
		names = append(names, fields[i].Name)
		ts = append(ts, t)
		mins = append(mins, c.Min)
		maxs = append(maxs, c.Max)
		nc := c.NullCount
		if nc < 0 {
			nc = -1
		}
		counts = append(counts, nc)
	}
	minRow, err := Encode(ts, mins)
	if err != nil {
		return EncodedStats{}, fmt.Errorf("min values: %w", err)
	}
	maxRow, err := Encode(ts, maxs)
	if err != nil {
		return EncodedStats{}, fmt.Errorf("max values: %w", err)
	}
	out := EncodedStats{Min: minRow, Max: maxRow, NullCounts: counts}
	if out.NullCounts == nil {
		out.NullCounts = []int64{}
	}
	if len(names) != len(fields) {
		out.Cols = names
		if out.Cols == nil {
			out.Cols = []string{}
		}
	}
	return out, nil
}

// EvolveStats maps stats decoded with the fields of a data file's schema
// (from) onto the fields of another schema (to) by field id, as
// SimpleStatsEvolution does: a field missing in from has unknown min/max and
// null count rowCount (every row is null). A field whose type changed keeps
// its stats only when the change is an integer widening (TINYINT to
// SMALLINT, ... to BIGINT), which maps every value exactly and in order;
// after any other change its min, max and null count are all unknown (-1),
// because Java drops every filter on such a column for files of the older
// schema (SimpleStatsEvolutions.filterUnsafeFilter, via
// CastExecutors.castLiteralsWithEvolution): a cast may wrap, round, reorder
// or turn values into nulls (a DECIMAL that overflows its new precision).
func EvolveStats(from []types.DataField, s Stats, to []types.DataField, rowCount int64) Stats {
	byID := make(map[int]int, len(from))
	for i, f := range from {
		byID[f.ID] = i
	}
	out := Stats{Min: make([]any, len(to)), Max: make([]any, len(to)), NullCounts: make([]int64, len(to))}
	for j, f := range to {
		i, ok := byID[f.ID]
		if !ok || i >= len(s.NullCounts) {
			out.NullCounts[j] = rowCount
			continue
		}
		same := sameType(from[i].Type, f.Type)
		if !same && !integerWidening(from[i].Type.Kind, f.Type.Kind) {
			out.NullCounts[j] = -1
			continue
		}
		out.NullCounts[j] = s.NullCounts[i]
		if i < len(s.Min) && i < len(s.Max) {
			if same {
				out.Min[j], out.Max[j] = s.Min[i], s.Max[i]
			} else {
				out.Min[j], out.Max[j] = widenInteger(s.Min[i], f.Type.Kind), widenInteger(s.Max[i], f.Type.Kind)
			}
		}
	}
	return out
}

// integerRank orders the integer kinds by width; 0 for other kinds.
func integerRank(k types.Kind) int {
	switch k {
	case types.KindTinyInt:
		return 1
	case types.KindSmallInt:
		return 2
	case types.KindInt:
		return 3
	case types.KindBigInt:
		return 4
	}
	return 0
}

// integerWidening reports whether from and to are integer kinds and to is
// at least as wide.
func integerWidening(from, to types.Kind) bool {
	return integerRank(from) > 0 && integerRank(to) >= integerRank(from)
}

// widenInteger converts an integer stats value to the Go type of kind to;
// nil and values of other Go types give nil (unknown).
func widenInteger(v any, to types.Kind) any {
	var x int64
	switch v := v.(type) {
	case int8:
		x = int64(v)
	case int16:
		x = int64(v)
	case int32:
		x = int64(v)
	case int64:
		x = v
	default:
		return nil
	}
	switch to {
	case types.KindTinyInt:
		return int8(x)
	case types.KindSmallInt:
		return int16(x)
	case types.KindInt:
		return int32(x)
	}
	return x
}

// sameType compares two types ignoring nullability and field descriptions.
func sameType(a, b types.DataType) bool {
	if a.Kind != b.Kind || a.Length != b.Length || a.Precision != b.Precision || a.Scale != b.Scale {
		return false
	}
	for _, p := range [][2]*types.DataType{{a.Elem, b.Elem}, {a.Key, b.Key}, {a.Value, b.Value}} {
		if (p[0] == nil) != (p[1] == nil) || p[0] != nil && !sameType(*p[0], *p[1]) {
			return false
		}
	}
	if len(a.Fields) != len(b.Fields) {
		return false
	}
	for i := range a.Fields {
		if a.Fields[i].ID != b.Fields[i].ID || !sameType(a.Fields[i].Type, b.Fields[i].Type) {
			return false
		}
	}
	return true
}
