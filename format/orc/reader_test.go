package orc

import (
	"bytes"
	"context"
	"errors"
	"io"
	"os"
	"strings"
	"testing"

	"github.com/paimon-go/paimon/format"
	"github.com/paimon-go/paimon/types"
)

func openFormatFile(t *testing.T, path string) *bytes.Reader {
	t.Helper()
	data, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	return bytes.NewReader(data)
}

// readerRows drains r into rows of Go values plus each row's file position.
func readerRows(t *testing.T, r format.Reader) ([]map[string]any, []int64) {
	t.Helper()
	var out []map[string]any
	var pos []int64
	for {
		b, err := r.Next(context.Background())
		if err == io.EOF {
			break
		}
		if err != nil {
			t.Fatal(err)
		}
		for i := 0; i < int(b.Record.NumRows()); i++ {
			m := map[string]any{}
			for c, col := range b.Record.Columns() {
				m[b.Record.ColumnName(c)] = cell(col, i)
			}
			out = append(out, m)
			pos = append(pos, b.FirstRow+int64(i))
		}
		b.Record.Release()
	}
	if _, err := r.Next(context.Background()); err != io.EOF {
		t.Fatalf("Next after the end: %v", err)
	}
	return out, pos
}

func TestReaderMatchesByFieldID(t *testing.T) {
	// Written by Java Paimon with paimon.id attributes; per EXPECTED.md
	// (table E) bucket 0 of f1=10 holds the two f2=1 keys of snapshot 1,
	// sorted by primary key: Alice (11.1), then TWO_ROADS (11.0).
	path := tablesDir + "/pk_table_scan_and_read_dv_orc/f1=10/bucket-0/data-fa75c075-d54d-4062-aab9-23c76fe00f96-0.orc"
	want := []types.DataField{
		types.Field(3, "f3", types.Double()),
		types.Field(0, "renamed_f0", types.String().NotNull()),
		types.Field(9, "added", types.Int()),
		types.Field(2, "f2", types.BigInt()), // INT in the file, widened
		types.Field(2147483645, "_VALUE_KIND", types.TinyInt()),
	}
	r, err := Format{}.NewReader(context.Background(), openFormatFile(t, path), "data-fa75.orc", want, format.ReadOptions{})
	if err != nil {
		t.Fatal(err)
	}
	defer r.Close()
	got, pos := readerRows(t, r)
	twoRoads := "Two roads diverged in a wood, and I took the one less traveled by, And that has made all the difference."
	exp := []map[string]any{
		{"f3": 11.1, "renamed_f0": "Alice", "added": nil, "f2": int64(1), "_VALUE_KIND": int64(0)},
		{"f3": 11.0, "renamed_f0": twoRoads, "added": nil, "f2": int64(1), "_VALUE_KIND": int64(0)},
	}
	if len(got) != 2 || !equalRows(got, exp) || pos[0] != 0 || pos[1] != 1 {
		t.Fatalf("got %v at %v\nwant %v", got, pos, exp)
	}
	if r.NumRows() != 2 || !r.(*Reader).Schema().Equal(types.SchemaToArrow(want)) {
		t.Fatalf("NumRows %d, schema %v", r.NumRows(), r.(*Reader).Schema())
	}
}

func equalRows(a, b []map[string]any) bool {
	if len(a) != len(b) {
		return false
	}
	for i := range a {
		if len(a[i]) != len(b[i]) {
			return false
		}
		for k, v := range b[i] {
			if a[i][k] != v {
				return false
			}
		}
	}
	return true
}

func TestReaderMatchesByName(t *testing.T) {
	// Java Paimon 0.9 wrote no field ids: columns match by name. f1=20
	// bucket 0 holds Lucy (snapshot 1) and, in data-b913a160, Paul
	// (snapshot 2, see TestFixtureManifestEntry), so this file is Lucy's
	// (Lucy, 20, 1, 14.1) per EXPECTED.md.
	path := tablesDir + "/append_09_orc/f1=20/bucket-0/data-db2b44c0-0d73-449d-82a0-4075bd2cb6e3-0.orc"
	want := []types.DataField{
		types.Field(0, "f0", types.String()),
		types.Field(7, "f7", types.Date()),
		types.Field(1, "f1", types.Int()),
	}
	r, err := NewReader(context.Background(), openFormatFile(t, path), "x.orc", want, format.ReadOptions{})
	if err != nil {
		t.Fatal(err)
	}
	got, _ := readerRows(t, r)
	if len(got) != 1 || !equalRows(got, []map[string]any{{"f0": "Lucy", "f7": nil, "f1": int64(20)}}) {
		t.Fatalf("got %v", got)
	}
}

func TestReaderRowGroupFilterAndPositions(t *testing.T) {
	path := "testdata/types_zstd.orc" // 5 stripes, seq = 3 * row number
	want := []types.DataField{types.Field(0, "seq", types.BigInt()), types.Field(1, "gone", types.String())}
	var seen []format.RowGroupStats
	r, err := NewReader(context.Background(), openFormatFile(t, path), "types_zstd.orc", want, format.ReadOptions{
		BatchSize: 64,
		RowGroupFilter: func(st format.RowGroupStats) bool {
			seen = append(seen, st)
			return st.Index != 1
		},
	})
	if err != nil {
		t.Fatal(err)
	}
	got, pos := readerRows(t, r)
	if len(seen) != 5 || seen[1].Columns[1] != (format.ColumnStats{NullCount: seen[1].NumRows, NullCountKnown: true}) ||
		seen[1].Columns[0].NullCountKnown {
		t.Fatalf("row group stats %+v", seen)
	}
	var first int64
	for i, st := range seen {
		if st.FirstRow != first {
			t.Fatalf("stripe %d FirstRow %d, want %d", i, st.FirstRow, first)
		}
		first += st.NumRows
	}
	if first != genRows || int64(len(got)) != genRows-seen[1].NumRows {
		t.Fatalf("%d rows read, stripes sum to %d, stripe 1 has %d", len(got), first, seen[1].NumRows)
	}
	for i, row := range got {
		if row["seq"] != 3*pos[i] || row["gone"] != nil {
			t.Fatalf("row at position %d: %v", pos[i], row)
		}
		if pos[i] >= seen[1].FirstRow && pos[i] < seen[2].FirstRow {
			t.Fatalf("row %d of the skipped stripe returned", pos[i])
		}
	}
}

func TestReaderErrors(t *testing.T) {
	path := tablesDir + "/append_09_orc/f1=20/bucket-0/data-db2b44c0-0d73-449d-82a0-4075bd2cb6e3-0.orc"
	_, err := NewReader(context.Background(), openFormatFile(t, path), "bad.orc",
		[]types.DataField{types.Field(0, "f0", types.Int())}, format.ReadOptions{})
	if !errors.Is(err, format.ErrSchemaMismatch) || !strings.Contains(err.Error(), "bad.orc") {
		t.Fatalf("STRING read as INT: err = %v", err)
	}
	_, err = NewReader(context.Background(), bytes.NewReader([]byte("ORC but not really")), "junk.orc", nil, format.ReadOptions{})
	if !errors.Is(err, format.ErrCorrupt) || !strings.Contains(err.Error(), "junk.orc") {
		t.Fatalf("junk: err = %v", err)
	}
	if _, err := (Format{}).NewWriter(context.Background(), io.Discard, "w.orc",
		[]types.DataField{types.Field(0, "v", types.Variant())}, format.WriteOptions{}); !errors.Is(err, format.ErrUnsupportedFormat) {
		t.Fatalf("NewWriter: err = %v", err)
	}
	if (Format{}).Name() != "orc" {
		t.Fatal("name")
	}
	r, err := NewReader(context.Background(), openFormatFile(t, path), "x.orc",
		[]types.DataField{types.Field(0, "f0", types.String())}, format.ReadOptions{})
	if err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	if _, err := r.Next(ctx); !errors.Is(err, context.Canceled) {
		t.Fatalf("canceled Next: err = %v", err)
	}
	if err := r.Close(); err != nil {
		t.Fatal(err)
	}
	if _, err := r.Next(context.Background()); err != io.EOF {
		t.Fatalf("Next after Close: %v", err)
	}
}
