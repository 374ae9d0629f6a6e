package parquet

import (
	"context"
	"encoding/binary"
	"math/big"
	"os"
	"path/filepath"
	"sort"
	"strconv"
	"strings"
	"testing"

	"github.com/apache/arrow-go/v18/parquet"
	"github.com/apache/arrow-go/v18/parquet/file"

	"github.com/paimon-go/paimon/format"
	"github.com/paimon-go/paimon/types"
)

// System columns of primary-key data files (SpecialFields).
func seqField() types.DataField {
	return types.Field(2147483646, "_SEQUENCE_NUMBER", types.BigInt().NotNull())
}

func kindField() types.DataField {
	return types.Field(2147483645, "_VALUE_KIND", types.TinyInt().NotNull())
}

// latestSchema returns the highest schema id of a fixture table.
func latestSchema(t testing.TB, table string) int {
	t.Helper()
	entries, err := os.ReadDir(filepath.Join(tablesDir, table, "schema"))
	if err != nil {
		t.Fatal(err)
	}
	latest := -1
	for _, e := range entries {
		if n, err := strconv.Atoi(strings.TrimPrefix(e.Name(), "schema-")); err == nil && n > latest {
			latest = n
		}
	}
	return latest
}

// footerRows reads the row count of a Parquet file with arrow-go directly.
func footerRows(t testing.TB, path string) int64 {
	t.Helper()
	pf, err := file.OpenParquetFile(path, false)
	if err != nil {
		t.Fatal(err)
	}
	defer pf.Close()
	return pf.NumRows()
}

// TestFixtureRowCounts reads every Parquet data file of every fixture table
// with the table's latest schema (by field id, or by name for 0.9 files),
// in batches of 2 and of the default size, and checks the row count against
// the footer and the batch positions.
func TestFixtureRowCounts(t *testing.T) {
	entries, err := os.ReadDir(tablesDir)
	if err != nil {
		t.Fatal(err)
	}
	files := 0
	for _, e := range entries {
		if !e.IsDir() || strings.HasSuffix(e.Name(), "_orc") {
			continue
		}
		table := e.Name()
		want := tableSchema(t, table, latestSchema(t, table))
		for _, p := range parquetFiles(t, table) {
			files++
			rows := footerRows(t, p)
			for _, batch := range []int{2, 0} {
				r, err := NewReader(context.Background(), openFile(t, p), filepath.Base(p), want, format.ReadOptions{BatchSize: batch})
				if err != nil {
					t.Fatalf("%s: %v", p, err)
				}
				got, firsts := readAll(t, r)
				r.Close()
				if int64(len(got)) != rows || r.NumRows() != rows {
					t.Errorf("%s batch %d: read %d rows, NumRows %d, footer %d", p, batch, len(got), r.NumRows(), rows)
				}
				step := int64(batch)
				if step == 0 {
					step = format.DefaultBatchSize
				}
				for i, f := range firsts {
					if f != int64(i)*step {
						t.Errorf("%s batch %d: batch %d starts at %d", p, batch, i, f)
					}
				}
			}
		}
	}
	if files != 72 { // find testdata/paimon-tables -name '*.parquet' | wc -l
		t.Errorf("read %d Parquet files, want 72", files)
	}
}

// TestFixtureParquetAppendTable checks the rows asserted upstream
// (parquet_file_batch_reader_test.cpp TestSimple) for the snapshot-1 file,
// matched by field id, and the README rows of the snapshot-2 file.
func TestFixtureParquetAppendTable(t *testing.T) {
	want := tableSchema(t, "parquet_append_table", 0)
	dir := filepath.Join(tablesDir, "parquet_append_table", "bucket-0")
	rows, _ := readFile(t, filepath.Join(dir, "data-9ea62f34-1dca-49c1-bf7a-d37303d8fb76-0.parquet"), want, format.ReadOptions{})
	equalRows(t, "snapshot-1 file", rows, []string{
		"true | 31 | null | 300001 | 3000000001 | 3.1 | 300.000000001 | s31 | a31 | {[5.11, 5.21]: (true, 61)} | 1970-01-01 00:00:00.000071000 | 81 | 0.91",
		"false | 32 | 302 | 300002 | 3000000002 | 3.2 | 300.000000002 | s32 | a32 | {[5.12, 5.22]: (false, 62)} | 1970-01-01 00:00:00.000072000 | 82 | 0.92",
		"true | 33 | 303 | 300003 | 3000000003 | 3.3 | 300.000000003 | s33 | a33 | null | 1970-01-01 00:00:00.000073000 | 83 | 0.93",
		"false | 34 | 304 | 300004 | 3000000004 | 3.4 | 300.000000004 | s34 | a34 | {[5.141, 5.241]: (false, 641), [5.14, 5.24]: (false, 64)} | 1970-01-01 00:00:00.000074000 | 84 | 0.94",
		"true | 35 | 305 | 300005 | 3000000005 | 3.5 | 300.000000005 | s35 | a35 | {[5.15, 5.25]: (true, 65)} | 1970-01-01 00:00:00.000075000 | 85 | 0.95",
		"false | 36 | 306 | 300006 | 3000000006 | 3.6 | 300.000000006 | s36 | a36 | {[5.16, 5.26]: null} | 1970-01-01 00:00:00.000076000 | 86 | 0.96",
	})
	rows, _ = readFile(t, filepath.Join(dir, "data-9ea62f34-1dca-49c1-bf7a-d37303d8fb76-1.parquet"), want, format.ReadOptions{})
	equalRows(t, "snapshot-2 file", rows, []string{
		"true | 37 | 307 | 300007 | 3000000007 | 3.7 | 300.000000007 | s37 | a37 | {[5.17, 5.27, 5.37]: (true, 67)} | 1970-01-01 00:00:00.000077000 | 87 | 0.97",
		"false | 38 | 308 | 300008 | 3000000008 | 3.8 | 300.000000008 | s38 | a38 | {[5.18, 5.28]: (false, 68)} | 1970-01-01 00:00:00.000078000 | 88 | 0.98",
		"true | 39 | 309 | 300009 | 3000000009 | 3.9 | 300.000000009 | s39 | a39 | {[5.19, 5.29]: (true, 69)} | 1970-01-01 00:00:00.000079000 | 89 | 0.99",
	})

	// TestScanWithPredicateAndReadWithUnorderedFieldForParquet: fields f10,
	// f8, f4, f13 in that order.
	pick := func(names ...string) []types.DataField {
		var out []types.DataField
		for _, n := range names {
			_, f, ok := types.FieldByName(want, n)
			if !ok {
				t.Fatal(n)
			}
			out = append(out, f)
		}
		return out
	}
	rows, _ = readFile(t, filepath.Join(dir, "data-9ea62f34-1dca-49c1-bf7a-d37303d8fb76-0.parquet"), pick("f10", "f8", "f4", "f13"), format.ReadOptions{})
	equalRows(t, "projection", rows, []string{
		"{[5.11, 5.21]: (true, 61)} | s31 | 300001 | 0.91",
		"{[5.12, 5.22]: (false, 62)} | s32 | 300002 | 0.92",
		"null | s33 | 300003 | 0.93",
		"{[5.141, 5.241]: (false, 641), [5.14, 5.24]: (false, 64)} | s34 | 300004 | 0.94",
		"{[5.15, 5.25]: (true, 65)} | s35 | 300005 | 0.95",
		"{[5.16, 5.26]: null} | s36 | 300006 | 0.96",
	})
}

// TestFixtureTimestampPrecisions checks TestTimestampType's rows: TIMESTAMP
// and LTZ of precision 0, 3, 6 (INT64) and 9 (INT96), with nulls.
func TestFixtureTimestampPrecisions(t *testing.T) {
	table := "append_with_multiple_ts_precision_and_timezone_parquet"
	files := parquetFiles(t, table)
	if len(files) != 1 {
		t.Fatalf("%d files", len(files))
	}
	rows, sc := readFile(t, files[0], tableSchema(t, table, 0), format.ReadOptions{})
	equalRows(t, "rows", rows, []string{
		"1970-01-01 00:00:01.000 | 1970-01-01 00:00:00.001 | 1970-01-01 00:00:00.000001 | 1970-01-01 00:00:00.000000001 | 1970-01-01 00:00:02.000 | 1970-01-01 00:00:00.002 | 1970-01-01 00:00:00.000002 | 1970-01-01 00:00:00.000000002",
		"1970-01-01 00:00:03.000 | 1970-01-01 00:00:00.003 | null | 1970-01-01 00:00:00.000000003 | 1970-01-01 00:00:04.000 | 1970-01-01 00:00:00.004 | 1970-01-01 00:00:00.000004 | 1970-01-01 00:00:00.000000004",
		"1970-01-01 00:00:05.000 | 1970-01-01 00:00:00.005 | null | null | 1970-01-01 00:00:06.000 | null | 1970-01-01 00:00:00.000006 | null",
	})
	var zones []string
	for _, f := range sc.Fields() {
		zones = append(zones, f.Type.String())
	}
	want := "timestamp[ms] timestamp[ms] timestamp[us] timestamp[ns] timestamp[ms, tz=UTC] timestamp[ms, tz=UTC] timestamp[us, tz=UTC] timestamp[ns, tz=UTC]"
	if got := strings.Join(zones, " "); got != want {
		t.Errorf("types %s, want %s", got, want)
	}
}

// TestFixtureComplexData reads the three snapshot-4 files of
// append_complex_data_parquet (DATE, TIMESTAMP(9) incl. 1899 instants,
// DECIMAL(23,5), BYTES) and compares with the README's eight rows; the
// first snapshot-1 file holds the 1899 instant with the negative
// nanos-of-day Java writes, which arrow-go's own INT96 decoding rejects.
func TestFixtureComplexData(t *testing.T) {
	table := "append_complex_data_parquet"
	want := tableSchema(t, table, 0)
	var rows []string
	for _, name := range []string{
		"f1=10/bucket-0/data-f8754699-0c43-4e53-be00-7e8af1754913-0.parquet",
		"f1=20/bucket-0/data-ac0894ca-fc13-49c8-bb22-4556c8ee416c-0.parquet",
		"f1=20/bucket-1/data-e0a6a424-e3b0-47ba-b259-d033fc01e87c-0.parquet",
	} {
		got, _ := readFile(t, filepath.Join(tablesDir, table, name), want, format.ReadOptions{BatchSize: 4})
		rows = append(rows, got...)
	}
	equalRows(t, "rows (sorted)", sorted(rows), sorted([]string{
		"10 | 1 | 1234 | 2033-05-18 03:33:20.000000000 | 123456789987654321.45678 | add",
		"20 | 1 | -1234 | 1899-01-01 00:59:20.001001001 | -123456789987654321.45678 | bad",
		"10 | 1 | 19909 | 2033-05-18 03:33:20.000001001 | 12.30000 | cat",
		"10 | 1 | 0 | 2008-12-28 00:00:00.000123456 | null | dad",
		"10 | 1 | 100 | 2008-12-28 00:00:00.000123450 | -123.45000 | eat",
		"10 | 1 | null | 1899-01-01 00:59:20.001001001 | 0.00000 | fat",
		"20 | 0 | -100 | null | 0.00000 | get",
		"10 | 1 | 20006 | 2024-10-10 10:10:10.100100100 | 1728551410100.10010 | null",
	}))

	// The raw INT96 of "bad": Julian day 2414657, nanos of day
	// -82839998998999 (Java's truncating division), which arrow-go's
	// Int96.ToTimestamp refuses.
	p := filepath.Join(tablesDir, table, "f1=20/bucket-0/data-ac0894ca-fc13-49c8-bb22-4556c8ee416c-0.parquet")
	pf, err := file.OpenParquetFile(p, false)
	if err != nil {
		t.Fatal(err)
	}
	defer pf.Close()
	cr, err := pf.RowGroup(0).Column(3)
	if err != nil {
		t.Fatal(err)
	}
	vals := make([]parquet.Int96, 1)
	defs := make([]int16, 1)
	if _, n, err := cr.(*file.Int96ColumnChunkReader).ReadBatch(1, vals, defs, nil); err != nil || n != 1 {
		t.Fatalf("raw read: %d %v", n, err)
	}
	nanos, day := int64(binary.LittleEndian.Uint64(vals[0][:8])), int32(binary.LittleEndian.Uint32(vals[0][8:]))
	if day != 2414657 || nanos != -82839998998999 {
		t.Errorf("raw INT96 = day %d nanos %d", day, nanos)
	}
	if vals[0] != javaInt96(-2240521239999, 1001) {
		t.Errorf("raw INT96 differs from Java's encoding of Timestamp(-2240521239999, 1001)")
	}
	if _, err := vals[0].ToTimestamp(); err == nil {
		t.Errorf("arrow-go now accepts negative nanos-of-day; the own INT96 decoding may be unnecessary")
	}
	ms, nano := int96ToMillisNanos(vals[0])
	if ms != -2240521239999 || nano != 1001 {
		t.Errorf("decoded %d ms + %d ns", ms, nano)
	}
}

// TestFixtureSchemaEvolutionByID reads all four files of
// append_table_with_alter_table_parquet with schema-1 (renamed, reordered,
// dropped and added columns): old files must map by id, so old "b" (id 3)
// appears as "c" and the new "d" (id 7) is null. Rows asserted by
// TestAppendReadWithSchemaEvolution.
func TestFixtureSchemaEvolutionByID(t *testing.T) {
	table := "append_table_with_alter_table_parquet"
	want := tableSchema(t, table, 1)
	var rows []string
	for _, p := range parquetFiles(t, table) {
		got, _ := readFile(t, p, want, format.ReadOptions{})
		rows = append(rows, got...)
	}
	equalRows(t, "rows (sorted)", sorted(rows), sorted([]string{
		"0 | 1 | 16 | 13 | null | 15 | null",
		"0 | 1 | 26 | 23 | null | 25 | null",
		"0 | 1 | 36 | 33 | null | 35 | null",
		"0 | 1 | 66 | 63 | 517 | 65 | 618",
		"0 | 1 | 76 | 73 | 527 | 75 | 628",
		"0 | 1 | 86 | 83 | 537 | 85 | 638",
		"1 | 1 | 96 | 93 | 547 | 95 | 648",
		"1 | 1 | 106 | 103 | 557 | 105 | 658",
		"1 | 1 | 46 | 43 | null | 45 | null",
		"1 | 1 | 56 | 53 | null | 55 | null",
	}))
}

// TestFixtureByName reads Java Paimon 0.9 files, which carry no field ids,
// so columns match by name: the append table's distinct rows are the
// eleven README rows; the primary-key table's system columns come back
// with the README's change kinds (-D Tony, -D Lily, +U Alice 21.1).
func TestFixtureByName(t *testing.T) {
	want := tableSchema(t, "append_09_parquet", 0)
	seen := map[string]bool{}
	for _, p := range parquetFiles(t, "append_09_parquet") {
		rows, _ := readFile(t, p, want, format.ReadOptions{})
		for _, r := range rows {
			seen[r] = true
		}
	}
	equalRows(t, "append_09 distinct rows", keys(seen), sorted([]string{
		"Alice | 10 | 1 | 11.1", "Bob | 10 | 0 | 12.1", "Emily | 10 | 0 | 13.1", "Tony | 10 | 0 | 14.1",
		"Emily | 10 | 0 | 15.1", "Alex | 10 | 0 | 16.1", "David | 10 | 0 | 17.1", "Lily | 10 | 0 | 17.1",
		"Lucy | 20 | 1 | 14.1", "Paul | 20 | 1 | null",
	}))

	want = append([]types.DataField{kindField()}, tableSchema(t, "pk_09_parquet", 0)...)
	seen = map[string]bool{}
	for _, p := range parquetFiles(t, "pk_09_parquet") {
		rows, _ := readFile(t, p, want, format.ReadOptions{})
		for _, r := range rows {
			seen[r] = true
		}
	}
	twoRoads := "Two roads diverged in a wood, and I took the one less traveled by, And that has made all the difference."
	whether := "Whether I shall turn out to be the hero of my own life."
	equalRows(t, "pk_09 distinct rows", keys(seen), sorted([]string{
		"0 | " + twoRoads + " | 10 | 1 | 11", "0 | Alice | 10 | 1 | 11.1", "0 | Bob | 10 | 0 | 12.1",
		"0 | Emily | 10 | 0 | 13.1", "0 | Tony | 10 | 0 | 14.1", "0 | Alex | 10 | 0 | 16.1",
		"0 | David | 10 | 0 | 17.1", "0 | Lucy | 20 | 1 | 14.1", "0 | Paul | 20 | 1 | 18.1",
		"0 | " + whether + " | 10 | 1 | 19.1", "0 | Lily | 10 | 1 | 20.1",
		"3 | Tony | 10 | 0 | 14.1", "0 | Alice | 10 | 1 | 19.1", "3 | Lily | 10 | 1 | 20.1",
		"2 | Alice | 10 | 1 | 21.1",
	}))
}

// TestFixtureNestedPrimaryKey reads pk_table_nested_type_parquet with the
// system columns by id: the snapshot-1 files hold the eight +I rows of the
// README pattern, the snapshot-2 files -D 1000, +U 1001, -D 1002, -U 1003.
func TestFixtureNestedPrimaryKey(t *testing.T) {
	table := "pk_table_nested_type_parquet"
	want := append([]types.DataField{kindField()}, tableSchema(t, table, 0)...)
	row := func(kind, n int) string {
		s := strconv.Itoa
		return s(kind) + " | " + s(1000+n) + " | 2025-04-14 | 10 | " + s(10*n) + " | (str-" + s(n) + ", " + s(100*n) + ", [" +
			s(n) + ", null, " + s(n+1) + "]) | {" + s(n) + ": " + s(n) + ", " + s(100+n) + ": " + s(100+n) + "}"
	}
	var first, second []string
	for _, p := range parquetFiles(t, table) {
		rows, _ := readFile(t, p, want, format.ReadOptions{BatchSize: 2})
		if strings.HasSuffix(p, "-0.parquet") {
			first = append(first, rows...)
		} else {
			second = append(second, rows...)
		}
	}
	var want1 []string
	for n := 0; n < 8; n++ {
		want1 = append(want1, row(0, n))
	}
	equalRows(t, "snapshot 1", sorted(first), sorted(want1))
	equalRows(t, "snapshot 2", sorted(second), sorted([]string{row(3, 0), row(2, 1), row(3, 2), row(1, 3)}))
}

// TestFixtureWriterLayoutMatchesJava writes files with the schemas of Java
// written fixture files and compares the Parquet schemas, up to the three
// annotations arrow-go adds (see allTypesParquetSchema).
func TestFixtureWriterLayoutMatchesJava(t *testing.T) {
	nested := append([]types.DataField{
		types.Field(1073741823, "_KEY_shopId", types.Int().NotNull()), seqField(), kindField(),
	}, tableSchema(t, "pk_table_nested_type_parquet", 0)...)
	cases := []struct {
		file   string
		fields []types.DataField
	}{
		{"parquet_append_table/bucket-0/data-9ea62f34-1dca-49c1-bf7a-d37303d8fb76-0.parquet", tableSchema(t, "parquet_append_table", 0)},
		{"append_complex_data_parquet/f1=20/bucket-1/data-e0a6a424-e3b0-47ba-b259-d033fc01e87c-0.parquet", tableSchema(t, "append_complex_data_parquet", 0)},
		{"append_with_multiple_ts_precision_and_timezone_parquet/bucket-0/data-9b8abdde-df4d-4655-bb4c-ffda164ef9d4-0.parquet", tableSchema(t, "append_with_multiple_ts_precision_and_timezone_parquet", 0)},
		{"append_table_with_alter_table_parquet/key0=0/key1=1/bucket-0/data-1aaec161-5365-426f-b33d-3cd99a3908f2-0.parquet", tableSchema(t, "append_table_with_alter_table_parquet", 1)},
		{"pk_table_nested_type_parquet/dt=2025-04-14/hr=10/bucket-0/data-f63238db-a23a-4f18-9211-0835909197cf-0.parquet", nested},
	}
	annotations := strings.NewReplacer(
		" (Int(bitWidth=32, isSigned=true))", "",
		" (Int(bitWidth=64, isSigned=true))", "",
	)
	for _, c := range cases {
		javaBytes, err := os.ReadFile(filepath.Join(tablesDir, c.file))
		if err != nil {
			t.Fatal(err)
		}
		java := strings.ReplaceAll(parquetSchemaText(t, javaBytes), "key_value (Map)", "key_value")
		ours, _ := writeFile(t, c.fields, nil)
		if got := annotations.Replace(parquetSchemaText(t, ours)); got != java {
			t.Errorf("%s:\nours:\n%s\njava:\n%s", c.file, got, java)
		}
	}
}

// TestFixtureRowGroupStats checks the footer statistics Java wrote, as seen
// by the row-group filter: f4 (INT) 300001..300006, f3 (SMALLINT) with one
// null, f8 (STRING), f13 (DECIMAL(2,2)), f11 (TIMESTAMP(9) as INT96: no
// statistics, as Java has no min/max for it), f10 (MAP: unknown).
func TestFixtureRowGroupStats(t *testing.T) {
	want := tableSchema(t, "parquet_append_table", 0)
	p := filepath.Join(tablesDir, "parquet_append_table/bucket-0/data-9ea62f34-1dca-49c1-bf7a-d37303d8fb76-0.parquet")
	var seen []format.RowGroupStats
	r, err := NewReader(context.Background(), openFile(t, p), "f", want, format.ReadOptions{
		RowGroupFilter: func(s format.RowGroupStats) bool { seen = append(seen, s); return false },
	})
	if err != nil {
		t.Fatal(err)
	}
	rows, _ := readAll(t, r)
	if len(rows) != 0 || len(seen) != 1 {
		t.Fatalf("rows %d, row groups seen %d", len(rows), len(seen))
	}
	s := seen[0]
	if s.Index != 0 || s.FirstRow != 0 || s.NumRows != 6 {
		t.Errorf("row group %+v", s)
	}
	col := func(name string) format.ColumnStats {
		i, _, _ := types.FieldByName(want, name)
		return s.Columns[i]
	}
	check := func(name string, min, max any, nulls int64) {
		t.Helper()
		c := col(name)
		if types.Compare(typeOf(want, name), c.Min, min) != 0 || types.Compare(typeOf(want, name), c.Max, max) != 0 ||
			!c.NullCountKnown || c.NullCount != nulls {
			t.Errorf("%s: %+v, want min %v max %v nulls %d", name, c, min, max, nulls)
		}
	}
	check("f1", false, true, 0)
	check("f2", int8(31), int8(36), 0)
	check("f3", int16(302), int16(306), 1)
	check("f4", int32(300001), int32(300006), 0)
	check("f5", int64(3000000001), int64(3000000006), 0)
	check("f6", float32(3.1), float32(3.6), 0)
	check("f8", "s31", "s36", 0)
	check("f9", []byte("a31"), []byte("a36"), 0)
	check("f12", int32(81), int32(86), 0)
	check("f13", dec(91, 2, 2), dec(96, 2, 2), 0)
	// INT96 has no defined sort order, so its statistics are not used at all.
	if c := col("f11"); c.Min != nil || c.Max != nil || c.NullCountKnown {
		t.Errorf("f11 (INT96): %+v", c)
	}
	if c := col("f10"); c.Min != nil || c.NullCountKnown {
		t.Errorf("f10 (MAP): %+v", c)
	}
}

func typeOf(fields []types.DataField, name string) types.DataType {
	_, f, _ := types.FieldByName(fields, name)
	return f.Type
}

func keys(m map[string]bool) []string {
	out := make([]string, 0, len(m))
	for k := range m {
		out = append(out, k)
	}
	sort.Strings(out)
	return out
}

func dec(unscaled int64, p, s int) types.Decimal {
	return types.Decimal{Unscaled: big.NewInt(unscaled), Precision: p, Scale: s}
}
