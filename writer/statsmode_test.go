package writer_test

import (
	"fmt"
	"slices"
	"testing"

	"github.com/paimon-go/paimon/catalog"
	"github.com/paimon-go/paimon/manifest"
	"github.com/paimon-go/paimon/row"
	"github.com/paimon-go/paimon/types"
)

// The expectations below follow Java Paimon:
//   - StatsCollectorFactories.createStatsFactories: "fields.<name>.stats-mode"
//     first, truncate(128) for system fields (_KEY_*, _SEQUENCE_NUMBER,
//     _VALUE_KIND), metadata.stats-mode (default truncate(16)) otherwise.
//   - NoneSimpleColStatsCollector.convert: min, max and null count all null.
//   - CountsSimpleColStatsCollector.convert: only the null count.
//   - TruncateSimpleColStatsCollector.convert: min = first N code points;
//     max = unchanged if it has at most N code points, otherwise the first N
//     code points with the last incrementable code point incremented (and
//     the rest dropped); when no code point can be incremented, min and max
//     are both null and only the null count is kept. Non-strings are kept.
//   - SimpleStatsConverter.toBinary with metadata.stats-dense-store = true
//     (default) drops columns whose stats are all null (isNone) and lists the
//     kept ones in _VALUE_STATS_COLS (null when every column is kept); key
//     stats never use the dense store.

// statsModeSchema is the schema of the stats mode tests: id INT NOT NULL,
// name STRING, v DOUBLE; primary-key tables get bucket = 1.
func statsModeSchema(opts map[string]string, pk ...string) catalog.Schema {
	if len(pk) > 0 {
		opts["bucket"] = "1"
	}
	return catalog.Schema{
		Fields: []types.DataField{
			{Name: "id", Type: types.Int().NotNull()},
			{Name: "name", Type: types.String()},
			{Name: "v", Type: types.Double()},
		},
		PrimaryKeys: pk,
		Options:     opts,
	}
}

// statsModeRows are the rows every stats mode test writes: name has one null
// and its max ("xyzw", 4 code points) is longer than 3; v has one null.
var statsModeRows = [][]any{
	{int32(2), "abcdef", 1.5},
	{int32(1), nil, -2.0},
	{int32(3), "xyzw", nil},
}

// decodeStats decodes a SimpleStats triple of a data file against fields.
func decodeStats(t *testing.T, fields []types.DataField, cols []string, s manifest.SimpleStats) row.Stats {
	t.Helper()
	st, err := row.DecodeStats(fields, cols, must(row.Deserialize(s.MinValues)), must(row.Deserialize(s.MaxValues)), s.NullCounts)
	if err != nil {
		t.Fatal(err)
	}
	return st
}

// onlyFile writes statsModeRows to tbl, commits and returns the one data file
// of the commit.
func onlyFile(t *testing.T, tbl *catalog.Table, rows [][]any) manifest.DataFileMeta {
	t.Helper()
	id := writeCommit(t, tbl, "u", 1, rec(t, arrowFields(tbl.Schema), rows...))
	_, entries := deltaEntries(t, tbl.FileIO, id)
	if len(entries) != 1 {
		t.Fatalf("%d entries, want 1", len(entries))
	}
	return entries[0].File
}

func unknownStats(n int) row.Stats {
	s := row.Stats{Min: make([]any, n), Max: make([]any, n), NullCounts: make([]int64, n)}
	for i := range s.NullCounts {
		s.NullCounts[i] = -1
	}
	return s
}

func checkStats(t *testing.T, what string, got, want row.Stats) {
	t.Helper()
	if fmt.Sprintf("%#v", got) != fmt.Sprintf("%#v", want) {
		t.Errorf("%s = %v, want %v", what, got, want)
	}
}

func checkCols(t *testing.T, got, want []string) {
	t.Helper()
	if (got == nil) != (want == nil) || !slices.Equal(got, want) {
		t.Errorf("ValueStatsCols = %#v, want %#v", got, want)
	}
}

func TestStatsModeAppend(t *testing.T) {
	cases := []struct {
		name string
		opts map[string]string
		rows [][]any // nil: statsModeRows
		cols []string
		want row.Stats
		// arity is the arity of the stored min/max rows.
		arity int
	}{
		{
			name:  "none",
			opts:  map[string]string{"metadata.stats-mode": "none"},
			cols:  []string{},
			want:  unknownStats(3),
			arity: 0,
		},
		{
			// Without the dense store every column is stored, as nulls.
			name:  "none sparse",
			opts:  map[string]string{"metadata.stats-mode": "none", "metadata.stats-dense-store": "false"},
			cols:  nil,
			want:  unknownStats(3),
			arity: 3,
		},
		{
			name:  "counts",
			opts:  map[string]string{"metadata.stats-mode": "counts"},
			cols:  nil,
			want:  row.Stats{Min: []any{nil, nil, nil}, Max: []any{nil, nil, nil}, NullCounts: []int64{0, 1, 1}},
			arity: 3,
		},
		{
			// min "abcdef" -> "abc"; max "xyzw" -> "xy" + ('z'+1) = "xy{".
			name:  "truncate(3)",
			opts:  map[string]string{"metadata.stats-mode": "truncate(3)"},
			cols:  nil,
			want:  row.Stats{Min: []any{int32(1), "abc", -2.0}, Max: []any{int32(3), "xy{", 1.5}, NullCounts: []int64{0, 1, 1}},
			arity: 3,
		},
		{
			// The mode name is case-insensitive (SimpleColStatsCollector.from).
			name:  "TRUNCATE(4)",
			opts:  map[string]string{"metadata.stats-mode": "TRUNCATE(4)"},
			cols:  nil,
			want:  row.Stats{Min: []any{int32(1), "abcd", -2.0}, Max: []any{int32(3), "xyzw", 1.5}, NullCounts: []int64{0, 1, 1}},
			arity: 3,
		},
		{
			// The max "\U0010FFFF\U0010FFFF\U0010FFFFz" truncated to 3 code
			// points has no code point that can be incremented: Java keeps
			// neither min nor max, only the null count.
			name: "truncate(3) max overflow",
			opts: map[string]string{"metadata.stats-mode": "truncate(3)"},
			rows: [][]any{
				{int32(2), "abcdef", 1.5},
				{int32(1), nil, -2.0},
				{int32(3), "\U0010FFFF\U0010FFFF\U0010FFFFz", nil},
			},
			cols:  nil,
			want:  row.Stats{Min: []any{int32(1), nil, -2.0}, Max: []any{int32(3), nil, 1.5}, NullCounts: []int64{0, 1, 1}},
			arity: 3,
		},
		{
			// Incrementing carries over a last code point of U+10FFFF: the
			// max becomes "x" + ('y'+1) = "xz".
			name: "truncate(3) max carry",
			opts: map[string]string{"metadata.stats-mode": "truncate(3)"},
			rows: [][]any{
				{int32(2), "abcdef", 1.5},
				{int32(1), nil, -2.0},
				{int32(3), "xy\U0010FFFFq", nil},
			},
			cols:  nil,
			want:  row.Stats{Min: []any{int32(1), "abc", -2.0}, Max: []any{int32(3), "xz", 1.5}, NullCounts: []int64{0, 1, 1}},
			arity: 3,
		},
		{
			// Truncation counts code points, not bytes: "ééééé" (10 bytes)
			// is cut to "éé" for the min and "éê" for the max.
			name: "truncate(2) multibyte",
			opts: map[string]string{"metadata.stats-mode": "truncate(2)"},
			rows: [][]any{
				{int32(2), "ééééé", 1.5},
				{int32(1), nil, -2.0},
			},
			cols:  nil,
			want:  row.Stats{Min: []any{int32(1), "éé", -2.0}, Max: []any{int32(2), "éê", 1.5}, NullCounts: []int64{0, 1, 0}},
			arity: 3,
		},
		{
			name:  "full",
			opts:  map[string]string{"metadata.stats-mode": "full"},
			cols:  nil,
			want:  row.Stats{Min: []any{int32(1), "abcdef", -2.0}, Max: []any{int32(3), "xyzw", 1.5}, NullCounts: []int64{0, 1, 1}},
			arity: 3,
		},
		{
			// Per-field modes win over metadata.stats-mode; the dense store
			// keeps only the columns that are not "none".
			name: "per-field override",
			opts: map[string]string{
				"metadata.stats-mode":    "none",
				"fields.name.stats-mode": "full",
				"fields.id.stats-mode":   "counts",
			},
			cols:  []string{"id", "name"},
			want:  row.Stats{Min: []any{nil, "abcdef", nil}, Max: []any{nil, "xyzw", nil}, NullCounts: []int64{0, 1, -1}},
			arity: 2,
		},
		{
			// A per-field truncate on top of the default truncate(16).
			name:  "per-field truncate",
			opts:  map[string]string{"fields.name.stats-mode": "truncate(1)"},
			cols:  nil,
			want:  row.Stats{Min: []any{int32(1), "a", -2.0}, Max: []any{int32(3), "y", 1.5}, NullCounts: []int64{0, 1, 1}},
			arity: 3,
		},
		{
			// metadata.stats-keep-first-n-columns = 1: only id keeps the
			// table mode, the other columns get none.
			name:  "keep first column",
			opts:  map[string]string{"metadata.stats-mode": "full", "metadata.stats-keep-first-n-columns": "1"},
			cols:  []string{"id"},
			want:  row.Stats{Min: []any{int32(1), nil, nil}, Max: []any{int32(3), nil, nil}, NullCounts: []int64{0, -1, -1}},
			arity: 1,
		},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			tbl := newTable(t, "", statsModeSchema(c.opts))
			rows := c.rows
			if rows == nil {
				rows = statsModeRows
			}
			f := onlyFile(t, tbl, rows)
			checkCols(t, f.ValueStatsCols, c.cols)
			minRow := must(row.Deserialize(f.ValueStats.MinValues))
			maxRow := must(row.Deserialize(f.ValueStats.MaxValues))
			if minRow.Arity() != c.arity || maxRow.Arity() != c.arity || len(f.ValueStats.NullCounts) != c.arity {
				t.Errorf("stored stats arity %d/%d with %d null counts, want %d", minRow.Arity(), maxRow.Arity(), len(f.ValueStats.NullCounts), c.arity)
			}
			checkStats(t, "value stats", decodeStats(t, tbl.Schema.Fields, f.ValueStatsCols, f.ValueStats), c.want)
			// Append tables have no key stats (SimpleStats.EMPTY_STATS).
			if k := must(row.Deserialize(f.KeyStats.MinValues)); k.Arity() != 0 || len(f.KeyStats.NullCounts) != 0 {
				t.Errorf("key stats of an append table: arity %d, %d null counts", k.Arity(), len(f.KeyStats.NullCounts))
			}
		})
	}
}

func TestStatsModePrimaryKey(t *testing.T) {
	keyFields := []types.DataField{{Name: "id", Type: types.Int().NotNull()}}
	// Key stats use truncate(128) whatever metadata.stats-mode says (the
	// key columns are the system fields _KEY_<name>).
	fullKey := row.Stats{Min: []any{int32(1)}, Max: []any{int32(3)}, NullCounts: []int64{0}}
	cases := []struct {
		name      string
		opts      map[string]string
		cols      []string
		wantValue row.Stats
		wantKey   row.Stats
	}{
		{
			name:      "none",
			opts:      map[string]string{"metadata.stats-mode": "none"},
			cols:      []string{},
			wantValue: unknownStats(3),
			wantKey:   fullKey,
		},
		{
			name:      "counts",
			opts:      map[string]string{"metadata.stats-mode": "counts"},
			cols:      nil,
			wantValue: row.Stats{Min: []any{nil, nil, nil}, Max: []any{nil, nil, nil}, NullCounts: []int64{0, 1, 1}},
			wantKey:   fullKey,
		},
		{
			name:      "truncate(3)",
			opts:      map[string]string{"metadata.stats-mode": "truncate(3)"},
			cols:      nil,
			wantValue: row.Stats{Min: []any{int32(1), "abc", -2.0}, Max: []any{int32(3), "xy{", 1.5}, NullCounts: []int64{0, 1, 1}},
			wantKey:   fullKey,
		},
		{
			name:      "full",
			opts:      map[string]string{"metadata.stats-mode": "full"},
			cols:      nil,
			wantValue: row.Stats{Min: []any{int32(1), "abcdef", -2.0}, Max: []any{int32(3), "xyzw", 1.5}, NullCounts: []int64{0, 1, 1}},
			wantKey:   fullKey,
		},
		{
			// fields.<name>.stats-mode applies to the value columns only:
			// the key column is the system field _KEY_id, which keeps
			// truncate(128). (Java's SchemaValidation.validateFieldsPrefix
			// rejects fields._KEY_id.* since _KEY_id is no table field.)
			name: "per-field override",
			opts: map[string]string{
				"metadata.stats-mode":    "none",
				"fields.name.stats-mode": "truncate(2)",
				"fields.id.stats-mode":   "counts",
			},
			cols:      []string{"id", "name"},
			wantValue: row.Stats{Min: []any{nil, "ab", nil}, Max: []any{nil, "xz", nil}, NullCounts: []int64{0, 1, -1}},
			wantKey:   fullKey,
		},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			tbl := newTable(t, "", statsModeSchema(c.opts, "id"))
			f := onlyFile(t, tbl, statsModeRows)
			checkCols(t, f.ValueStatsCols, c.cols)
			checkStats(t, "value stats", decodeStats(t, tbl.Schema.Fields, f.ValueStatsCols, f.ValueStats), c.wantValue)
			if k := must(row.Deserialize(f.KeyStats.MinValues)); k.Arity() != 1 || len(f.KeyStats.NullCounts) != 1 {
				t.Errorf("key stats arity %d with %d null counts, want 1", k.Arity(), len(f.KeyStats.NullCounts))
			}
			checkStats(t, "key stats", decodeStats(t, keyFields, nil, f.KeyStats), c.wantKey)
		})
	}
}
