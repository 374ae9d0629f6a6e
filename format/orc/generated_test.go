package orc

import (
	"context"
	"fmt"
	"math/big"
	"reflect"
	"testing"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/memory"
)

// The files testdata/types_*.orc were written by the Apache ORC C++ writer
// (testdata/gen_orc.py) from closed formulas of the row number; genRow
// recomputes those formulas, so these tests compare the decoder with the
// writer's input, not with the decoder's own output.

const genRows = 1000

var genFiles = []struct {
	name        string
	compression uint64
	stripes     int
	rleV1       bool
}{
	{"types_zstd.orc", compressionZstd, 5, false},
	{"types_zlib_v11.orc", compressionZlib, 1, true},
	{"types_snappy.orc", compressionSnappy, 1, false},
	{"types_lz4.orc", compressionLZ4, 1, false},
	{"types_none.orc", compressionNone, 5, false},
}

func ifNull(null bool, v any) any {
	if null {
		return nil
	}
	return v
}

// genRow is gen_orc.py's val(i), with Go values shaped like cell's output.
func genRow(i int) map[string]any {
	i64 := int64(i)
	lcg := int64(uint64(i)*6364136223846793005 + 1442695040888963407)
	patch := i64*13%100 + 0
	if i%97 == 0 {
		patch += 1 << 40
	}
	bin := []byte{byte(i % 256), byte(i * 7 % 256), 0}[:i%4]
	dec38 := new(big.Int).Mul(big.NewInt(i64-1000), new(big.Int).Exp(big.NewInt(10), big.NewInt(30), nil))
	dec38.Add(dec38, big.NewInt(i64))
	lst := []any{}
	for j := 0; j < i%4; j++ {
		lst = append(lst, ifNull((i+j)%5 == 0, int64(i+j)))
	}
	mp := [][2]any{}
	for j := 0; j < i%3; j++ {
		mp = append(mp, [2]any{fmt.Sprintf("k%d", j), float64(j)*1.5 + float64(i)})
	}
	nest := []any{}
	for j := 0; j < i%3; j++ {
		y := []any{}
		for k := 0; k < j; k++ {
			y = append(y, fmt.Sprintf("y%d", i+j+k))
		}
		nest = append(nest, map[string]any{"x": int64(i*10 + j), "y": y})
	}
	return map[string]any{
		"b":     ifNull(i%7 == 0, i%3 == 0),
		"i8":    ifNull(i%11 == 0, int64(i*37%256-128)),
		"i16":   int64(i*1237%65536 - 32768),
		"i32":   ifNull(i%5 == 1, int64(i/20*3-100)),
		"seq":   i64 * 3,
		"neg":   -(i64 * i64),
		"rnd":   lcg,
		"patch": patch,
		"f32":   ifNull(i%13 == 0, float32(float64(i)*0.5-100)),
		"f64":   float64(i)*1.25e-3 - 7,
		"s":     ifNull(i%5 == 0, fmt.Sprintf("s%d", i%50)),
		"su":    fmt.Sprintf("u%05d", i),
		"bin":   bin,
		"dec":   fmt.Sprint(i64*1234 - 500000),
		"dec38": dec38.String(),
		"date":  i64*17 - 20000,
		"ts":    (i64-1500)*86400*37*1_000_000_000 + i64*123456789,
		"tsu":   ifNull(i%4 == 3, 1420070400*1_000_000_000+(i64-1200)*1000003*1_000_000+i64),
		"lst":   ifNull(i%9 == 0, lst),
		"mp":    ifNull(i%10 == 0, mp),
		"st":    ifNull(i%6 == 0, map[string]any{"a": ifNull(i%4 == 0, int64(i*2)), "b": fmt.Sprintf("b%d", i%7)}),
		"nest":  nest,
	}
}

func TestGeneratedFilesAllTypes(t *testing.T) {
	for _, g := range genFiles {
		t.Run(g.name, func(t *testing.T) {
			f := openFile(t, "testdata/"+g.name)
			if f.NumRows() != genRows || f.NumStripes() != g.stripes || f.ps.compression != g.compression {
				t.Fatalf("rows %d stripes %d compression %d; want %d, %d, %d",
					f.NumRows(), f.NumStripes(), f.ps.compression, genRows, g.stripes, g.compression)
			}
			// odd batch size: batches end inside RLE runs and lists
			got := rows(t, f, ReadOptions{BatchRows: 97})
			if len(got) != genRows {
				t.Fatalf("decoded %d rows, want %d", len(got), genRows)
			}
			for i, row := range got {
				want := genRow(i)
				for name, w := range want {
					if !reflect.DeepEqual(row[name], w) {
						t.Fatalf("row %d column %s: got %#v, want %#v", i, name, row[name], w)
					}
				}
				if len(row) != len(want) {
					t.Fatalf("row %d has %d columns, want %d", i, len(row), len(want))
				}
			}
		})
	}
}

func TestGeneratedSchema(t *testing.T) {
	f := openFile(t, "testdata/types_zstd.orc")
	want := []string{
		"b: bool", "i8: int8", "i16: int16", "i32: int32", "seq: int64", "neg: int64", "rnd: int64",
		"patch: int64", "f32: float32", "f64: float64", "s: utf8", "su: utf8", "bin: binary",
		"dec: decimal(10, 3)", "dec38: decimal(38, 6)", "date: date32", "ts: timestamp[ns]",
		"tsu: timestamp[ns, tz=UTC]", "lst: list<element: int32, nullable>",
		"mp: map<utf8, float64, items_nullable>",
		"st: struct<a: int32 nullable, b: utf8 nullable>",
		"nest: list<element: struct<x: int64 nullable, y: list<element: utf8, nullable> nullable>, nullable>",
	}
	s := f.Schema()
	if s.NumFields() != len(want) {
		t.Fatalf("%d fields, want %d", s.NumFields(), len(want))
	}
	for i, w := range want {
		fd := s.Field(i)
		if got := fd.Name + ": " + fd.Type.String(); got != w || !fd.Nullable || fd.HasMetadata() {
			t.Errorf("field %d: %s (nullable %v, metadata %v), want %s, nullable, no metadata", i, got, fd.Nullable, fd.Metadata, w)
		}
	}
}

// TestProjectionAndRequestedTypes selects columns out of order and asks for
// other Arrow types: Timestamp(ms) (floor of the nanoseconds), Time32(ms)
// for an int column, Decimal128(12,1) (HALF_UP) and Float64 for a float.
func TestProjectionAndRequestedTypes(t *testing.T) {
	f := openFile(t, "testdata/types_zlib_v11.orc")
	idx := map[string]int{}
	for i, fd := range f.Schema().Fields() {
		idx[fd.Name] = i
	}
	want := arrow.NewSchema([]arrow.Field{
		{Name: "ts_ms", Type: &arrow.TimestampType{Unit: arrow.Millisecond}, Nullable: true},
		{Name: "tsu_us", Type: &arrow.TimestampType{Unit: arrow.Microsecond, TimeZone: "UTC"}, Nullable: true},
		{Name: "time", Type: arrow.FixedWidthTypes.Time32ms, Nullable: true},
		{Name: "dec", Type: &arrow.Decimal128Type{Precision: 12, Scale: 1}, Nullable: true},
		{Name: "f32", Type: arrow.PrimitiveTypes.Float64, Nullable: true},
		{Name: "su", Type: arrow.BinaryTypes.Binary, Nullable: true},
	}, nil)
	got := rows(t, f, ReadOptions{
		Columns:   []int{idx["ts"], idx["tsu"], idx["i32"], idx["dec"], idx["f32"], idx["su"]},
		Schema:    want,
		BatchRows: 128,
		Allocator: memory.NewGoAllocator(),
	})
	floorDiv := func(a, b int64) int64 {
		q := a / b
		if a%b != 0 && a < 0 {
			q--
		}
		return q
	}
	halfUp := func(v, div int64) int64 {
		q, r := v/div, v%div
		if 2*abs(r) >= div {
			if v < 0 {
				q--
			} else {
				q++
			}
		}
		return q
	}
	for i, row := range got {
		w := genRow(i)
		exp := map[string]any{
			"ts_ms":  floorDiv(w["ts"].(int64), 1_000_000),
			"tsu_us": nil,
			"time":   w["i32"],
			"dec":    fmt.Sprint(halfUp(int64(i)*1234-500000, 100)),
			"f32":    nil,
			"su":     []byte(w["su"].(string)),
		}
		if w["tsu"] != nil {
			exp["tsu_us"] = floorDiv(w["tsu"].(int64), 1000)
		}
		if w["f32"] != nil {
			exp["f32"] = float64(w["f32"].(float32))
		}
		if !reflect.DeepEqual(row, exp) {
			t.Fatalf("row %d: got %v, want %v", i, row, exp)
		}
	}
	if len(got) != genRows {
		t.Fatalf("%d rows", len(got))
	}
	// a type the column cannot be read as
	_, err := f.Read(context.Background(), ReadOptions{Columns: []int{idx["su"]},
		Schema: arrow.NewSchema([]arrow.Field{{Name: "su", Type: arrow.PrimitiveTypes.Int64}}, nil)})
	if err == nil {
		t.Fatal("string column read as int64: no error")
	}
	if _, err := f.Read(context.Background(), ReadOptions{Columns: []int{99}}); err == nil {
		t.Fatal("column 99: no error")
	}
}

func abs(v int64) int64 {
	if v < 0 {
		return -v
	}
	return v
}

func TestRecordsEarlyStopAndEmptyProjection(t *testing.T) {
	f := openFile(t, "testdata/types_none.orc")
	n := 0
	for rec, err := range f.Records(context.Background(), []int{0}, 10) {
		if err != nil {
			t.Fatal(err)
		}
		if rec.NumRows() != 10 || rec.NumCols() != 1 {
			t.Fatalf("record %d: %d rows %d cols", n, rec.NumRows(), rec.NumCols())
		}
		rec.Release()
		if n++; n == 3 {
			break
		}
	}
	total := int64(0)
	for rec, err := range f.Records(context.Background(), []int{}, 0) {
		if err != nil {
			t.Fatal(err)
		}
		total += rec.NumRows()
		rec.Release()
	}
	if total != genRows {
		t.Fatalf("empty projection counted %d rows, want %d", total, genRows)
	}
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	_, err := f.Read(ctx, ReadOptions{})
	if err != context.Canceled {
		t.Fatalf("canceled context: err = %v", err)
	}
}
