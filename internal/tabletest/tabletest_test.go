package tabletest_test

import (
	"context"
	"errors"
	"math"
	"math/big"
	"slices"
	"strings"
	"testing"

	"github.com/apache/arrow-go/v18/arrow"

	"github.com/paimon-go/paimon/catalog"
	"github.com/paimon-go/paimon/internal/tabletest"
	"github.com/paimon-go/paimon/reader"
	"github.com/paimon-go/paimon/types"
	"github.com/paimon-go/paimon/writer"
)

// allKinds has one column per Arrow builder NewBatch supports.
var allKinds = tabletest.AllKinds(0)

// TestFormatJSONLAllKinds builds one row of every kind in the types
// convention and two rows of the shorthands; the JSONL is spelled by hand
// from the rowfmt spec: 1700000000 s is 2023-11-14T22:13:20Z, epoch day
// 19000 is 2022-01-08, 3723004 ms of the day is 01:02:03.004, "a31" is
// base64 "YTMx".
func TestFormatJSONLAllKinds(t *testing.T) {
	nulls := func(n int) []any { return make([]any, n) }
	ts := types.Timestamp{Millis: 1700000000123, NanoOfMilli: 456789}
	full := []any{true, int8(-128), int16(32767), int32(-1), int64(math.MinInt64), float32(3.1), 0.5, "é", []byte("a31"),
		types.Decimal{Unscaled: big.NewInt(-99999), Precision: 5, Scale: 2}, int32(19000), int32(3723004),
		types.Timestamp{Millis: 1700000000123}, ts, ts, types.Timestamp{Millis: -1},
		[]any{int32(1), nil}, types.Map{Keys: []any{"k", "l"}, Values: []any{int32(2), nil}}, []any{int32(7), "y"}}
	short1 := nulls(len(allKinds))
	short1[9], short1[12], short1[13] = int64(123), int64(-1), int64(1700000000123456)
	short2 := nulls(len(allKinds))
	short2[9], short2[14] = "-0.5", int64(-1)
	got, err := tabletest.FormatJSONL(allKinds, full, short1, short2)
	if err != nil {
		t.Fatal(err)
	}
	want := `{"b":true,"ti":-128,"si":32767,"i":-1,"bi":-9223372036854775808,"f":3.1,"d":0.5,"s":"é","bin":"YTMx",` +
		`"dec":"-999.99","dt":"2022-01-08","tm":"01:02:03.004","ts3":"2023-11-14T22:13:20.123",` +
		`"ts6":"2023-11-14T22:13:20.123456","ts9":"2023-11-14T22:13:20.123456789","ltz":"1969-12-31T23:59:59.999Z",` +
		`"arr":[1,null],"m":[["k",2],["l",null]],"r":{"x":7,"y":"y"}}` + "\n" +
		`{"b":null,"ti":null,"si":null,"i":null,"bi":null,"f":null,"d":null,"s":null,"bin":null,` +
		`"dec":"1.23","dt":null,"tm":null,"ts3":"1969-12-31T23:59:59.999",` +
		`"ts6":"2023-11-14T22:13:20.123456","ts9":null,"ltz":null,"arr":null,"m":null,"r":null}` + "\n" +
		`{"b":null,"ti":null,"si":null,"i":null,"bi":null,"f":null,"d":null,"s":null,"bin":null,` +
		`"dec":"-0.50","dt":null,"tm":null,"ts3":null,` +
		`"ts6":null,"ts9":"1969-12-31T23:59:59.999999999","ltz":null,"arr":null,"m":null,"r":null}` + "\n"
	if string(got) != want {
		t.Errorf("JSONL\n got %s\nwant %s", got, want)
	}
	// JSONL sorts the lines: the rows with "b":null first, "dec":"-0.50"
	// before "dec":"1.23".
	lines := strings.Split(strings.TrimSuffix(want, "\n"), "\n")
	if got := tabletest.JSONL(t, allKinds, full, short1, short2); !slices.Equal(got, []string{lines[2], lines[1], lines[0]}) {
		t.Errorf("sorted lines\n got %q", got)
	}
	if got := tabletest.JSONL(t, allKinds); got != nil {
		t.Errorf("no rows: %q, want nil", got)
	}
}

// TestNewBatchErrors: every misfit is an ErrValue naming row and column.
func TestNewBatchErrors(t *testing.T) {
	sc := types.SchemaToArrow(allKinds)
	row := func(col int, v any) []any {
		r := make([]any, len(allKinds))
		r[col] = v
		return r
	}
	for _, tc := range []struct {
		name string
		sc   *arrow.Schema
		row  []any
		want string
	}{
		{"short row", sc, []any{true}, "row 0 has 1 values for 19 columns"},
		{"int for BIGINT", sc, row(4, 1), `row 0 column "bi"`},
		{"float64 for FLOAT", sc, row(5, 1.5), `row 0 column "f"`},
		{"string for BYTES", sc, row(8, "x"), `row 0 column "bin"`},
		{"decimal of scale 3", sc, row(9, types.Decimal{Unscaled: big.NewInt(1), Precision: 5, Scale: 3}), `row 0 column "dec"`},
		{"decimal without digits", sc, row(9, types.Decimal{Precision: 5, Scale: 2}), `row 0 column "dec"`},
		{"bad decimal string", sc, row(9, "1.2.3"), `row 0 column "dec"`},
		{"int32 for TIMESTAMP", sc, row(12, int32(1)), `row 0 column "ts3"`},
		{"wrong element", sc, row(16, []any{"x"}), `row 0 column "arr"`},
		{"map of 1 key 0 values", sc, row(17, types.Map{Keys: []any{"k"}}), `row 0 column "m"`},
		{"row of 1 field", sc, row(18, []any{int32(1)}), `row 0 column "r"`},
		{"unsupported Arrow type", arrow.NewSchema([]arrow.Field{{Name: "u", Type: arrow.FixedWidthTypes.Duration_s}}, nil),
			[]any{int64(1)}, `row 0 column "u"`},
		{"second timestamps", arrow.NewSchema([]arrow.Field{{Name: "s", Type: arrow.FixedWidthTypes.Timestamp_s}}, nil),
			[]any{types.Timestamp{}}, `row 0 column "s"`},
	} {
		rec, err := tabletest.NewBatch(tc.sc, tc.row)
		if rec != nil {
			rec.Release()
		}
		if !errors.Is(err, tabletest.ErrValue) || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("%s: err = %v, want ErrValue with %q", tc.name, err, tc.want)
		}
	}
}

// TestWriteCommitRead writes two commits into a primary-key table and
// reads the merged rows, the first snapshot and a retried commit back.
func TestWriteCommitRead(t *testing.T) {
	tbl := tabletest.NewTable(t, "", catalog.Schema{
		Fields:      []types.DataField{{Name: "k", Type: types.Int().NotNull()}, {Name: "v", Type: types.String()}},
		PrimaryKeys: []string{"k"},
		Options:     map[string]string{"bucket": "1"},
	})
	if tbl.Identifier.String() != "db.t" || !strings.HasSuffix(tbl.FileIO.URL(), "/db.db/t") {
		t.Fatalf("table %s at %s", tbl.Identifier, tbl.FileIO.URL())
	}
	sc := types.SchemaToArrow(tbl.Schema.Fields)
	first := tabletest.Batch(t, sc, []any{int32(1), "a"}, []any{int32(2), "b"})
	defer first.Release()
	if id := tabletest.WriteCommit(t, tbl, "u", 1, first); id != 1 {
		t.Fatalf("first commit made snapshot %d", id)
	}
	// With the row-kind column: delete 1, update 2, insert 3.
	kinds := arrow.NewSchema(append(sc.Fields(), arrow.Field{Name: writer.DefaultRowKindColumn, Type: arrow.BinaryTypes.String}), nil)
	second := tabletest.Batch(t, kinds, []any{int32(1), "a", "-D"}, []any{int32(2), "B", "+U"}, []any{int32(3), nil, "+I"})
	defer second.Release()
	if id, err := tabletest.Commit(context.Background(), tbl, "u", 2, second); err != nil || id != 2 {
		t.Fatalf("second commit = %d, %v; want snapshot 2", id, err)
	}
	// The same user and identifier again: no new snapshot.
	if id := tabletest.WriteCommit(t, tbl, "u", 2, second); id != 2 {
		t.Fatalf("retried commit made snapshot %d, want 2", id)
	}
	url := tbl.FileIO.URL()
	want := []string{`{"k":2,"v":"B"}`, `{"k":3,"v":null}`}
	if got := tabletest.ReadJSONL(t, url); !slices.Equal(got, want) {
		t.Errorf("latest %q, want %q", got, want)
	}
	if got := tabletest.JSONL(t, tbl.Schema.Fields, []any{int32(3), nil}, []any{int32(2), "B"}); !slices.Equal(got, want) {
		t.Errorf("JSONL %q, want %q", got, want)
	}
	if got, want := tabletest.ReadRows(t, url, reader.WithSnapshot(1)), []string{"1|a", "2|b"}; !slices.Equal(got, want) {
		t.Errorf("snapshot 1 rows %q, want %q", got, want)
	}
	if got, want := tabletest.ReadRows(t, url), []string{"2|B", "3|(null)"}; !slices.Equal(got, want) {
		t.Errorf("latest rows %q, want %q", got, want)
	}
	if data, err := tabletest.Cat(context.Background(), url, reader.WithColumns("v")); err != nil ||
		string(data) != "{\"v\":\"B\"}\n{\"v\":null}\n" {
		t.Errorf("Cat v = %q, %v", data, err)
	}
	if _, err := tabletest.Cat(context.Background(), tbl.FileIO.URL()+"-missing"); err == nil {
		t.Error("Cat of a missing table: no error")
	}
}

// TestPrepare: one message per partition-bucket, nothing committed.
func TestPrepare(t *testing.T) {
	tbl := tabletest.NewTable(t, "", catalog.Schema{
		Fields:        []types.DataField{{Name: "p", Type: types.String()}, {Name: "n", Type: types.BigInt()}},
		PartitionKeys: []string{"p"},
	})
	rec := tabletest.Batch(t, types.SchemaToArrow(tbl.Schema.Fields), []any{"a", int64(1)}, []any{"b", int64(2)}, []any{"a", int64(3)})
	defer rec.Release()
	msgs := tabletest.Prepare(t, tbl, "u", rec)
	var rows []int64
	for _, m := range msgs {
		if len(m.Data.NewFiles) != 1 || m.Bucket != 0 {
			t.Fatalf("message bucket %d with %d files", m.Bucket, len(m.Data.NewFiles))
		}
		rows = append(rows, m.Data.NewFiles[0].RowCount)
	}
	if !slices.Equal(rows, []int64{2, 1}) {
		t.Errorf("row counts per message %v, want [2 1]", rows)
	}
	if got := tabletest.ReadJSONL(t, tbl.FileIO.URL()); got != nil {
		t.Errorf("rows before any commit: %q", got)
	}
}
