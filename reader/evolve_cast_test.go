package reader_test

import (
	"context"
	"errors"
	"slices"
	"strings"
	"testing"

	"github.com/paimon-go/paimon/catalog"
	"github.com/paimon-go/paimon/format/cast"
	"github.com/paimon-go/paimon/internal/tabletest"
	"github.com/paimon-go/paimon/reader"
	"github.com/paimon-go/paimon/schema"
	"github.com/paimon-go/paimon/types"
)

// retype commits the next schema of tbl with the named columns' types
// replaced, as Java's ALTER TABLE ... MODIFY COLUMN writes it (our catalog
// only accepts widening changes, Java accepts every cast DataTypeCasts
// allows).
func retype(t *testing.T, tbl *catalog.Table, changes map[string]types.DataType) {
	t.Helper()
	ctx := context.Background()
	sm := schema.NewManager(tbl.FileIO, "")
	old, err := sm.Latest(ctx)
	if err != nil {
		t.Fatal(err)
	}
	ns := *old
	ns.ID = old.ID + 1
	ns.Fields = slices.Clone(old.Fields)
	for i, f := range ns.Fields {
		if nt, ok := changes[f.Name]; ok {
			nt.Nullable = f.Type.Nullable
			ns.Fields[i].Type = nt
		}
	}
	if err := sm.Commit(ctx, &ns); err != nil {
		t.Fatal(err)
	}
}

func cat(t *testing.T, url string, opts ...reader.Option) ([]string, error) {
	t.Helper()
	data, err := tabletest.Cat(context.Background(), url, opts...)
	if err != nil {
		return nil, err
	}
	lines := strings.Split(strings.TrimSuffix(string(data), "\n"), "\n")
	slices.Sort(lines)
	return lines, nil
}

func wantLines(t *testing.T, what string, got []string, err error, want ...string) {
	t.Helper()
	if err != nil {
		t.Errorf("%s: %v", what, err)
		return
	}
	if !slices.Equal(got, want) {
		t.Errorf("%s:\n got %q\nwant %q", what, got, want)
	}
}

// TestEvolvedTypesAppend: an append table whose columns Java's ALTER TABLE
// changed in lossy ways is read with Java's values (BIGINT as INT wraps,
// DOUBLE as FLOAT rounds, DATE as STRING formats, BOOLEAN as INT is 0/1,
// DOUBLE as DECIMAL goes through Double.toString, DECIMAL as INT truncates,
// STRING as INT parses), --where on evolved columns keeps every row Java
// keeps, and a value Java fails on fails the read naming file and column
// only when that column is read.
func TestEvolvedTypesAppend(t *testing.T) {
	tbl := tabletest.NewTable(t, "", catalog.Schema{
		Fields: []types.DataField{
			{Name: "id", Type: types.Int()},
			{Name: "a", Type: types.BigInt()},
			{Name: "d", Type: types.Double()},
			{Name: "dt", Type: types.Date()},
			{Name: "b", Type: types.Boolean()},
			{Name: "m", Type: types.Double()},
			{Name: "x", Type: types.DecimalOf(10, 3)},
			{Name: "s", Type: types.String()},
			{Name: "n", Type: types.DecimalOf(10, 2)},
			{Name: "c", Type: types.Int()},
			{Name: "o", Type: types.DecimalOf(10, 2)},
		},
	})
	sc := types.SchemaToArrow(tbl.Schema.Fields)
	rec := tabletest.Batch(t, sc,
		[]any{int32(1), int64(1<<32 + 1), 0.1, int32(19000), true, 1.005, "-123.999", "12", "12.35", int32(5), "123.45"},
		[]any{int32(2), int64(-1), 1e40, int32(-1), false, 12.5, "7.001", "abc", "-0.05", int32(9), nil},
	)
	defer rec.Release()
	tabletest.WriteCommit(t, tbl, "u", 1, rec)
	retype(t, tbl, map[string]types.DataType{
		"a": types.Int(), "d": types.Float(), "dt": types.String(), "b": types.Int(),
		"m": types.DecimalOf(10, 2), "x": types.Int(), "s": types.Int(), "n": types.DecimalOf(3, 1),
		"c": types.DecimalOf(12, 2), "o": types.DecimalOf(3, 1),
	})
	url := tbl.FileIO.URL()
	cols := reader.WithColumns("id", "a", "d", "dt", "b", "m", "x", "n", "c")
	got, err := cat(t, url, cols)
	wantLines(t, "all but s", got, err,
		`{"id":1,"a":1,"d":0.1,"dt":"2022-01-08","b":1,"m":"1.01","x":-123,"n":"12.4","c":"5.00"}`,
		`{"id":2,"a":-1,"d":"Infinity","dt":"1969-12-31","b":0,"m":"12.50","x":7,"n":"-0.1","c":"9.00"}`,
	)
	// Java keeps every file whose stats are of an older type; rows are
	// filtered on the cast values.
	for _, c := range []struct{ where, want string }{
		{"c > 1", "1,2"},
		{"c > 6", "2"},
		{"a = 1", "1"},
		{"n IS NOT NULL", "1,2"},
		{"m IS NULL", ""},
		{"b = 1", "1"},
	} {
		got, err := cat(t, url, reader.WithColumns("id"), reader.WithWhere(c.where))
		want := []string{""}
		if c.want != "" {
			want = nil
			for _, id := range strings.Split(c.want, ",") {
				want = append(want, `{"id":`+id+`}`)
			}
		}
		wantLines(t, "where "+c.where, got, err, want...)
	}
	// s = "abc" does not parse as INT, o = 123.45 needs more digits than
	// DECIMAL(3, 1): Java fails the read of either column.
	for _, c := range []string{"s", "o"} {
		_, err = cat(t, url, reader.WithColumns("id", c))
		if !errors.Is(err, cast.ErrInvalid) || !strings.Contains(err.Error(), "column "+c) || !strings.Contains(err.Error(), ".parquet") {
			t.Errorf("reading %s: %v, want cast.ErrInvalid naming the file and column %s", c, err, c)
		}
	}
}

// TestEvolvedTypesPrimaryKey: a primary-key table read with --columns that
// leave out a column whose values Java cannot cast reads the other columns,
// as Java does (it pushes the projection into the merge read).
func TestEvolvedTypesPrimaryKey(t *testing.T) {
	tbl := tabletest.NewTable(t, "", catalog.Schema{
		Fields: []types.DataField{
			{Name: "k", Type: types.Int().NotNull()},
			{Name: "a", Type: types.BigInt()},
			{Name: "s", Type: types.String()},
		},
		PrimaryKeys: []string{"k"},
		Options:     map[string]string{"bucket": "1"},
	})
	sc := types.SchemaToArrow(tbl.Schema.Fields)
	rec := tabletest.Batch(t, sc, []any{int32(1), int64(1<<32 + 7), "x"}, []any{int32(2), int64(3), "4"})
	defer rec.Release()
	tabletest.WriteCommit(t, tbl, "u", 1, rec)
	rec2 := tabletest.Batch(t, sc, []any{int32(2), int64(1 << 31), "5"})
	defer rec2.Release()
	tabletest.WriteCommit(t, tbl, "u", 2, rec2)
	retype(t, tbl, map[string]types.DataType{"a": types.Int(), "s": types.Int()})
	url := tbl.FileIO.URL()
	got, err := cat(t, url, reader.WithColumns("k", "a"))
	wantLines(t, "k, a", got, err, `{"k":1,"a":7}`, `{"k":2,"a":-2147483648}`)
	got, err = cat(t, url, reader.WithColumns("a"), reader.WithWhere("k = 2"))
	wantLines(t, "a where k = 2", got, err, `{"a":-2147483648}`)
	if _, err := cat(t, url); !errors.Is(err, cast.ErrInvalid) || !strings.Contains(err.Error(), "column s") {
		t.Errorf("reading s: %v, want cast.ErrInvalid naming column s", err)
	}
}

// TestEvolvedTypesCastOnlyReadRows: as in Java (CastedRow casts a field
// only when it is read; interop scenarios casts2_lazy_*), an old value
// that cannot be cast fails a read only when its row is selected: a
// filter on another column that drops its row, in the same file and batch
// as castable rows, reads the rest; a filter on the failing column itself
// fails, as does a selected failing row, with an error naming the file,
// the column and the row's 1-based position in the file. Both the STRING
// to INT and the DECIMAL overflow case are checked, in every writable
// format.
func TestEvolvedTypesCastOnlyReadRows(t *testing.T) {
	for _, format := range []string{"parquet", "avro"} {
		t.Run(format, func(t *testing.T) {
			tbl := tabletest.NewTable(t, "", catalog.Schema{
				Fields: []types.DataField{
					{Name: "id", Type: types.Int()},
					{Name: "s", Type: types.String()},
					{Name: "n", Type: types.DecimalOf(10, 2)},
				},
				Options: map[string]string{"file.format": format},
			})
			sc := types.SchemaToArrow(tbl.Schema.Fields)
			rec := tabletest.Batch(t, sc,
				[]any{int32(1), "7", "1.00"},
				[]any{int32(2), "abc", "123.45"},
				[]any{int32(3), "12", "1.50"},
			)
			defer rec.Release()
			tabletest.WriteCommit(t, tbl, "u", 1, rec)
			retype(t, tbl, map[string]types.DataType{"s": types.Int(), "n": types.DecimalOf(4, 2)})
			url := tbl.FileIO.URL()
			got, err := cat(t, url, reader.WithWhere("id = 3"))
			wantLines(t, "where id = 3", got, err, `{"id":3,"s":12,"n":"1.50"}`)
			got, err = cat(t, url, reader.WithWhere("id <> 2"))
			wantLines(t, "where id <> 2", got, err, `{"id":1,"s":7,"n":"1.00"}`, `{"id":3,"s":12,"n":"1.50"}`)
			got, err = cat(t, url, reader.WithColumns("id"), reader.WithWhere("id = 2"))
			wantLines(t, "id where id = 2", got, err, `{"id":2}`)
			for _, c := range []struct {
				where, cols, msg string
			}{
				{"id = 2", "id,s", `column s: cast: row 2 of the file (1-based): STRING "abc" is not a valid INT`},
				{"id = 2", "id,n", `column n: cast: row 2 of the file (1-based): DECIMAL(10, 2) 12345 (scale 2) to DECIMAL(4, 2): 12345×10^-2 needs more than 4 digits`},
				{"s = 12", "id", `column s: cast: row 2 of the file (1-based): STRING "abc" is not a valid INT`},
			} {
				_, err := cat(t, url, reader.WithColumns(strings.Split(c.cols, ",")...), reader.WithWhere(c.where))
				var ve *cast.ValueError
				if !errors.As(err, &ve) || !errors.Is(err, cast.ErrInvalid) || !strings.Contains(err.Error(), "."+format+": "+c.msg) {
					t.Errorf("%s where %s: %v\nwant cast.ErrInvalid ending %q", c.cols, c.where, err, c.msg)
				}
			}
		})
	}
}

// TestEvolvedTypesCastOnlyMergedRows: in a primary-key table merged on
// read (deduplicate), an old value that cannot be cast in a row a later
// commit superseded is never cast, as in Java (its merge keeps the winning
// row and casts its fields when they are read; interop scenarios
// casts2_lazy_pk_*); a winning row holding one fails a read that returns
// or filters on that column, naming the file, column and row.
func TestEvolvedTypesCastOnlyMergedRows(t *testing.T) {
	for _, engine := range []string{"deduplicate", "first-row", "partial-update"} {
		t.Run(engine, func(t *testing.T) {
			tbl := tabletest.NewTable(t, "", catalog.Schema{
				Fields: []types.DataField{
					{Name: "k", Type: types.Int().NotNull()},
					{Name: "s", Type: types.String()},
				},
				PrimaryKeys: []string{"k"},
				Options:     map[string]string{"bucket": "1", "merge-engine": engine},
			})
			sc := types.SchemaToArrow(tbl.Schema.Fields)
			first := tabletest.Batch(t, sc, []any{int32(1), "abc"}, []any{int32(2), "12"}, []any{int32(3), "x"})
			defer first.Release()
			tabletest.WriteCommit(t, tbl, "u", 1, first)
			second := tabletest.Batch(t, sc, []any{int32(1), "5"}, []any{int32(2), "y"})
			defer second.Release()
			tabletest.WriteCommit(t, tbl, "u", 2, second)
			retype(t, tbl, map[string]types.DataType{"s": types.Int()})
			url := tbl.FileIO.URL()
			got, err := cat(t, url, reader.WithWhere("k < 3"))
			switch engine {
			case "deduplicate":
				// 1: 'abc' superseded by '5'; 2: '12' superseded by 'y', which fails.
				if !errors.Is(err, cast.ErrInvalid) || !strings.Contains(err.Error(), `column s: cast: row 2 of the file (1-based): STRING "y" is not a valid INT`) {
					t.Fatalf("k < 3: %v %q, want the error of 'y'", err, got)
				}
				got, err = cat(t, url, reader.WithWhere("k = 1"))
				wantLines(t, "k = 1", got, err, `{"k":1,"s":5}`)
				got, err = cat(t, url, reader.WithColumns("k"), reader.WithWhere("k <> 3"))
				wantLines(t, "k where k <> 3", got, err, `{"k":1}`, `{"k":2}`)
			case "first-row":
				// 1: 'abc' is kept and fails; 2: '12' is kept.
				got, err = cat(t, url, reader.WithWhere("k = 2"))
				wantLines(t, "k = 2", got, err, `{"k":2,"s":12}`)
				_, err = cat(t, url, reader.WithWhere("k = 1"))
				if !errors.Is(err, cast.ErrInvalid) || !strings.Contains(err.Error(), `column s: cast: row 1 of the file (1-based): STRING "abc" is not a valid INT`) {
					t.Fatalf("k = 1: %v, want the error of 'abc'", err)
				}
			default:
				// Java's partial-update reads every row's fields: any bad value fails.
				_, err = cat(t, url, reader.WithWhere("k = 3"))
				if !errors.Is(err, cast.ErrInvalid) {
					t.Fatalf("k = 3: %v, want cast.ErrInvalid", err)
				}
			}
			// Filtering on the column reads it in every returned row.
			if _, err := cat(t, url, reader.WithWhere("s = 12")); !errors.Is(err, cast.ErrInvalid) {
				t.Fatalf("s = 12: %v, want cast.ErrInvalid", err)
			}
		})
	}
}
