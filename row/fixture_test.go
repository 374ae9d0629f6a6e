package row

import (
	"bytes"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"sort"
	"strconv"
	"strings"
	"testing"

	"github.com/hamba/avro/v2/ocf"

	"github.com/paimon-go/paimon/types"
)

const fixtureRoot = "../testdata/paimon-tables"

// fixtureSchema is the part of a schema file these tests need.
type fixtureSchema struct {
	ID            int64             `json:"id"`
	Fields        []types.DataField `json:"fields"`
	PartitionKeys []string          `json:"partitionKeys"`
	PrimaryKeys   []string          `json:"primaryKeys"`
	Options       map[string]string `json:"options"`
}

func (s fixtureSchema) fieldsNamed(t testing.TB, names []string) []types.DataField {
	t.Helper()
	out := make([]types.DataField, 0, len(names))
	for _, n := range names {
		_, f, ok := types.FieldByName(s.Fields, n)
		if !ok {
			t.Fatalf("schema %d has no field %q", s.ID, n)
		}
		out = append(out, f)
	}
	return out
}

// trimmedPK is TableSchema.trimmedPrimaryKeys: PK minus partition keys.
func (s fixtureSchema) trimmedPK() []string {
	var out []string
	for _, k := range s.PrimaryKeys {
		if !slices.Contains(s.PartitionKeys, k) {
			out = append(out, k)
		}
	}
	return out
}

// bucketKeys is TableSchema.bucketKeys.
func (s fixtureSchema) bucketKeys() []string {
	if bk := s.Options["bucket-key"]; bk != "" {
		return strings.Split(bk, ",")
	}
	return s.trimmedPK()
}

func loadSchemas(t testing.TB, table string) map[int64]fixtureSchema {
	t.Helper()
	files, err := filepath.Glob(filepath.Join(table, "schema", "schema-*"))
	if err != nil || len(files) == 0 {
		t.Fatalf("no schemas in %s: %v", table, err)
	}
	out := map[int64]fixtureSchema{}
	for _, f := range files {
		data, err := os.ReadFile(f)
		if err != nil {
			t.Fatal(err)
		}
		var s fixtureSchema
		if err := json.Unmarshal(data, &s); err != nil {
			t.Fatalf("%s: %v", f, err)
		}
		out[s.ID] = s
	}
	return out
}

// fixtureEntry is the BinaryRow-related content of one manifest entry.
type fixtureEntry struct {
	file         string // manifest file name
	kind         int
	partition    []byte
	bucket       int
	totalBuckets int
	fileName     string
	rowCount     int64
	schemaID     int64
	minKey       []byte
	maxKey       []byte
	keyMin       []byte
	keyMax       []byte
	keyNulls     []int64
	valueMin     []byte
	valueMax     []byte
	valueNulls   []int64
	valueCols    []string // nil when absent / null
}

// unionValue unwraps hamba/avro's generic form of a non-null union value,
// a map from the branch's type name to the value (Paimon's field names all
// start with '_', type names never do). Paimon 0.9 wraps whole records and
// nested records in ["null", record] unions.
func unionValue(v any) any {
	if m, ok := v.(map[string]any); ok && len(m) == 1 {
		for k, x := range m {
			if !strings.HasPrefix(k, "_") {
				return x
			}
		}
	}
	return v
}

func record(t testing.TB, v any) map[string]any {
	t.Helper()
	m, ok := unionValue(v).(map[string]any)
	if !ok {
		t.Fatalf("not a record: %#v", v)
	}
	return m
}

func toInt64(t testing.TB, v any) int64 {
	t.Helper()
	switch x := unionValue(v).(type) {
	case int:
		return int64(x)
	case int32:
		return int64(x)
	case int64:
		return x
	}
	t.Fatalf("not an integer: %#v", v)
	return 0
}

func nullCounts(t testing.TB, v any) []int64 {
	t.Helper()
	arr, _ := unionValue(v).([]any)
	out := make([]int64, len(arr))
	for i, x := range arr {
		if unionValue(x) == nil {
			out[i] = -1
		} else {
			out[i] = toInt64(t, x)
		}
	}
	return out
}

func isAvro(path string) bool {
	f, err := os.Open(path)
	if err != nil {
		return false
	}
	defer f.Close()
	magic := make([]byte, 4)
	n, _ := f.Read(magic)
	return n == 4 && string(magic) == "Obj\x01"
}

// readEntries decodes every Avro data manifest (not manifest lists or index
// manifests) of a fixture table.
func readEntries(t testing.TB, table string) []fixtureEntry {
	t.Helper()
	files, _ := filepath.Glob(filepath.Join(table, "manifest", "manifest-*"))
	var out []fixtureEntry
	for _, path := range files {
		if strings.Contains(filepath.Base(path), "manifest-list-") || !isAvro(path) {
			continue
		}
		f, err := os.Open(path)
		if err != nil {
			t.Fatal(err)
		}
		dec, err := ocf.NewDecoder(f)
		if err != nil {
			t.Fatalf("%s: %v", path, err)
		}
		for dec.HasNext() {
			var raw any
			if err := dec.Decode(&raw); err != nil {
				t.Fatalf("%s: %v", path, err)
			}
			rec := record(t, raw)
			file := record(t, rec["_FILE"])
			ks := record(t, file["_KEY_STATS"])
			vs := record(t, file["_VALUE_STATS"])
			e := fixtureEntry{
				file:       filepath.Base(path),
				kind:       int(toInt64(t, rec["_KIND"])),
				partition:  rec["_PARTITION"].([]byte),
				bucket:     int(toInt64(t, rec["_BUCKET"])),
				fileName:   file["_FILE_NAME"].(string),
				rowCount:   toInt64(t, file["_ROW_COUNT"]),
				schemaID:   toInt64(t, file["_SCHEMA_ID"]),
				minKey:     file["_MIN_KEY"].([]byte),
				maxKey:     file["_MAX_KEY"].([]byte),
				keyMin:     ks["_MIN_VALUES"].([]byte),
				keyMax:     ks["_MAX_VALUES"].([]byte),
				keyNulls:   nullCounts(t, ks["_NULL_COUNTS"]),
				valueMin:   vs["_MIN_VALUES"].([]byte),
				valueMax:   vs["_MAX_VALUES"].([]byte),
				valueNulls: nullCounts(t, vs["_NULL_COUNTS"]),
			}
			if tb, ok := rec["_TOTAL_BUCKETS"]; ok { // absent before Paimon 1.0
				e.totalBuckets = int(toInt64(t, tb))
			}
			if cols, ok := file["_VALUE_STATS_COLS"]; ok && unionValue(cols) != nil {
				e.valueCols = []string{}
				for _, c := range unionValue(cols).([]any) {
					e.valueCols = append(e.valueCols, c.(string))
				}
			}
			out = append(out, e)
		}
		if err := dec.Error(); err != nil {
			t.Fatalf("%s: %v", path, err)
		}
		f.Close()
	}
	return out
}

// manifestBranches maps manifest file names to the branch ("" = main) whose
// snapshots reference them; branches share the table's manifest directory.
func manifestBranches(t testing.TB, table string) map[string]string {
	t.Helper()
	out := map[string]string{}
	dirs := map[string]string{"": filepath.Join(table, "snapshot")}
	branches, _ := filepath.Glob(filepath.Join(table, "branch", "branch-*"))
	for _, b := range branches {
		dirs[strings.TrimPrefix(filepath.Base(b), "branch-")] = filepath.Join(b, "snapshot")
	}
	for branch, dir := range dirs {
		snaps, _ := filepath.Glob(filepath.Join(dir, "snapshot-*"))
		for _, sp := range snaps {
			data, err := os.ReadFile(sp)
			if err != nil {
				t.Fatal(err)
			}
			var snap map[string]any
			if err := json.Unmarshal(data, &snap); err != nil {
				t.Fatalf("%s: %v", sp, err)
			}
			for _, k := range []string{"baseManifestList", "deltaManifestList", "changelogManifestList"} {
				name, _ := snap[k].(string)
				if name == "" {
					continue
				}
				f, err := os.Open(filepath.Join(table, "manifest", name))
				if err != nil {
					t.Fatal(err)
				}
				dec, err := ocf.NewDecoder(f)
				if err != nil {
					f.Close()
					continue // ORC manifest list: those tables have no Avro manifests either
				}
				for dec.HasNext() {
					var raw any
					if err := dec.Decode(&raw); err != nil {
						t.Fatal(err)
					}
					rec := record(t, raw)
					name, ok := rec["_FILE_NAME"].(string)
					if !ok {
						t.Fatalf("%s: manifest list record %v", name, rec)
					}
					out[name] = branch
				}
				f.Close()
			}
		}
	}
	return out
}

// fixtureTables lists the fixture tables that have Avro data manifests.
func fixtureTables(t testing.TB) []string {
	t.Helper()
	dirs, err := os.ReadDir(fixtureRoot)
	if err != nil {
		t.Fatal(err)
	}
	var out []string
	for _, d := range dirs {
		if !d.IsDir() {
			continue
		}
		files, _ := filepath.Glob(filepath.Join(fixtureRoot, d.Name(), "manifest", "manifest-*"))
		for _, f := range files {
			if !strings.Contains(f, "manifest-list-") && isAvro(f) {
				out = append(out, d.Name())
				break
			}
		}
	}
	return out
}

// decodeSerialized deserializes a manifest BinaryRow field, decodes it with
// fields, re-encodes the values and checks the bytes are identical.
func decodeSerialized(t *testing.T, what string, data []byte, fields []types.DataField) []any {
	t.Helper()
	r, err := Deserialize(data)
	if err != nil {
		t.Fatalf("%s: %v", what, err)
	}
	vals, err := Decode(FieldTypes(fields), r)
	if err != nil {
		t.Fatalf("%s: decode %x: %v", what, data, err)
	}
	again, err := Encode(FieldTypes(fields), vals)
	if err != nil {
		t.Fatalf("%s: re-encode %v: %v", what, vals, err)
	}
	if got := Serialize(again); !bytes.Equal(got, data) {
		t.Fatalf("%s: re-encoded\n %x\nwant\n %x", what, got, data)
	}
	return vals
}

// fmtValues renders decoded values compactly for expectations.
func fmtValues(vals []any) string {
	parts := make([]string, len(vals))
	for i, v := range vals {
		switch x := v.(type) {
		case nil:
			parts[i] = "null"
		case types.Decimal:
			parts[i] = plainDecimalString(x.Unscaled, x.Scale)
		case types.Timestamp:
			parts[i] = formatTimestamp(x, 9)
		case []byte:
			parts[i] = fmt.Sprintf("0x%x", x)
		case string:
			parts[i] = strconv.Quote(x)
		default:
			parts[i] = fmt.Sprint(x)
		}
	}
	return "(" + strings.Join(parts, ", ") + ")"
}

// TestFixtureManifests checks, for every entry of every Avro data manifest
// of the Java-written fixture tables:
//   - _PARTITION, _MIN_KEY, _MAX_KEY, _KEY_STATS and _VALUE_STATS decode with
//     the entry's schema and re-encode to identical bytes;
//   - the partition path computed from _PARTITION is an existing directory
//     holding the entry's bucket directory;
//   - the bucket computed from the bucket key (from the min/max keys of PK
//     tables, from min == max value stats of append tables) is _BUCKET.
//
// It also records per table a summary of the decoded values, compared with
// expectations taken from each table's EXPECTED.md.
func TestFixtureManifests(t *testing.T) {
	tables := fixtureTables(t)
	if len(tables) < 8 {
		t.Fatalf("only %d fixture tables with Avro manifests: %v", len(tables), tables)
	}
	for _, name := range tables {
		t.Run(name, func(t *testing.T) {
			table := filepath.Join(fixtureRoot, name)
			branchOf := manifestBranches(t, table)
			schemasOf := map[string]map[int64]fixtureSchema{"": loadSchemas(t, table)}
			entries := readEntries(t, table)
			if len(entries) == 0 {
				t.Fatal("no entries")
			}
			var summary []string
			bucketChecks := 0
			for _, e := range entries {
				branch := branchOf[e.file]
				if schemasOf[branch] == nil {
					schemasOf[branch] = loadSchemas(t, filepath.Join(table, "branch", "branch-"+branch))
				}
				s, ok := schemasOf[branch][e.schemaID]
				if !ok {
					t.Fatalf("%s: no schema %d", e.file, e.schemaID)
				}
				what := e.file + " " + e.fileName
				partFields := s.fieldsNamed(t, s.PartitionKeys)
				part := decodeSerialized(t, what+" _PARTITION", e.partition, partFields)
				path, err := PartitionPath(partFields, part, "", true)
				if err != nil {
					t.Fatalf("%s: %v", what, err)
				}
				if st, err := os.Stat(filepath.Join(table, path, "bucket-"+strconv.Itoa(e.bucket))); err != nil || !st.IsDir() {
					t.Errorf("%s: partition %v -> %q bucket-%d is not a directory: %v", what, part, path, e.bucket, err)
				}
				back, err := PartitionComputer{Fields: partFields, Legacy: true}.Parse(path)
				if err != nil || !sameValue(back, part) {
					t.Errorf("%s: Parse(%q) = %v, %v; want %v", what, path, back, err, part)
				}

				var keyFields []types.DataField
				if len(s.PrimaryKeys) > 0 {
					keyFields = s.fieldsNamed(t, s.trimmedPK())
				}
				minKey := decodeSerialized(t, what+" _MIN_KEY", e.minKey, keyFields)
				maxKey := decodeSerialized(t, what+" _MAX_KEY", e.maxKey, keyFields)
				keyStats := decodeStatsRoundTrip(t, what+" _KEY_STATS", keyFields, nil, e.keyMin, e.keyMax, e.keyNulls)
				valueStats := decodeStatsRoundTrip(t, what+" _VALUE_STATS", s.Fields, e.valueCols, e.valueMin, e.valueMax, e.valueNulls)

				// Bucket of the bucket key.
				if e.totalBuckets == 0 {
					e.totalBuckets, _ = strconv.Atoi(s.Options["bucket"])
				}
				if e.totalBuckets > 0 {
					bkNames := s.bucketKeys()
					bkFields := s.fieldsNamed(t, bkNames)
					var candidates [][]any
					if len(s.PrimaryKeys) > 0 {
						for _, key := range [][]any{minKey, maxKey} {
							var bk []any
							for _, n := range bkNames {
								i := slices.Index(s.trimmedPK(), n)
								bk = append(bk, key[i])
							}
							candidates = append(candidates, bk)
						}
					} else {
						var bk []any
						complete := true
						for _, n := range bkNames {
							i, _, _ := types.FieldByName(s.Fields, n)
							if valueStats.Min[i] == nil || !sameValue(valueStats.Min[i], valueStats.Max[i]) {
								complete = false
							}
							bk = append(bk, valueStats.Min[i])
						}
						if complete {
							candidates = append(candidates, bk)
						}
					}
					for _, bk := range candidates {
						kr, err := Encode(FieldTypes(bkFields), bk)
						if err != nil {
							t.Fatal(err)
						}
						if got := Bucket(kr, e.totalBuckets); got != e.bucket {
							t.Errorf("%s: bucket key %v -> bucket %d, manifest says %d", what, bk, got, e.bucket)
						}
						bucketChecks++
					}
				}
				summary = append(summary, fmt.Sprintf("%d %s b%d rows=%d key=%s..%s keystats=%s..%s/%v values=%s..%s/%v cols=%s",
					e.kind, path, e.bucket, e.rowCount, fmtValues(minKey), fmtValues(maxKey),
					fmtValues(keyStats.Min), fmtValues(keyStats.Max), keyStats.NullCounts,
					fmtValues(valueStats.Min), fmtValues(valueStats.Max), valueStats.NullCounts, colsString(e.valueCols)))
			}
			sort.Strings(summary)
			if testing.Verbose() {
				for _, l := range summary {
					t.Log(l)
				}
			}
			t.Logf("%d entries, %d bucket checks", len(entries), bucketChecks)
			if want, ok := fixtureExpectations[name]; ok {
				for _, w := range want {
					if !slices.Contains(summary, w) {
						t.Errorf("missing expected entry summary:\n  %s\nhave:\n  %s", w, strings.Join(summary, "\n  "))
					}
				}
			}
			if want, ok := fixtureBucketChecks[name]; ok && bucketChecks != want {
				t.Errorf("%d bucket checks, want %d", bucketChecks, want)
			}
		})
	}
}

func colsString(cols []string) string {
	if cols == nil {
		return "null"
	}
	return "[" + strings.Join(cols, ",") + "]"
}

// decodeStatsRoundTrip decodes a stats triple and re-encodes it to the same bytes.
func decodeStatsRoundTrip(t *testing.T, what string, fields []types.DataField, cols []string, minB, maxB []byte, nulls []int64) Stats {
	t.Helper()
	minR, err := Deserialize(minB)
	if err != nil {
		t.Fatalf("%s: %v", what, err)
	}
	maxR, err := Deserialize(maxB)
	if err != nil {
		t.Fatalf("%s: %v", what, err)
	}
	st, err := DecodeStats(fields, cols, minR, maxR, nulls)
	if err != nil {
		t.Fatalf("%s: %v (min %x max %x)", what, err, minB, maxB)
	}
	if minR.Arity() == 0 && len(fields) > 0 {
		return st // EMPTY_STATS
	}
	colStats := make([]ColStats, len(fields))
	for i := range fields {
		colStats[i] = ColStats{Min: st.Min[i], Max: st.Max[i], NullCount: st.NullCounts[i]}
	}
	enc, err := EncodeStats(fields, colStats, cols != nil)
	if err != nil {
		t.Fatalf("%s: %v", what, err)
	}
	if !bytes.Equal(Serialize(enc.Min), minB) || !bytes.Equal(Serialize(enc.Max), maxB) ||
		!slices.Equal(enc.NullCounts, nulls) || !slices.Equal(enc.Cols, cols) || (enc.Cols == nil) != (cols == nil) {
		t.Fatalf("%s: re-encoded stats differ:\n min %x\nwant %x\n max %x\nwant %x\n nulls %v want %v cols %v want %v",
			what, Serialize(enc.Min), minB, Serialize(enc.Max), maxB, enc.NullCounts, nulls, enc.Cols, cols)
	}
	return st
}
