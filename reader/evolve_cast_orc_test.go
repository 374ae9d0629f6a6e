package reader_test

import (
	"context"
	"fmt"
	"math"
	"math/big"
	"os"
	"path/filepath"
	"testing"
	"time"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"

	"github.com/paimon-go/paimon/fileio"
	"github.com/paimon-go/paimon/reader"
	"github.com/paimon-go/paimon/schema"
	"github.com/paimon-go/paimon/types"
)

// TestEvolvedTypesORC reads columns of an ORC file (format/orc/testdata,
// written by the ORC C++ writer from closed formulas of the row number i)
// after Java-style type changes, through reader.ReadDataFile: the casts are
// the same as for Parquet (package format/cast), and every value equals the
// formula's value cast as Java casts it.
func TestEvolvedTypesORC(t *testing.T) {
	ctx := context.Background()
	dir := t.TempDir()
	data, err := os.ReadFile("../format/orc/testdata/types_zstd.orc")
	if err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(dir, "f.orc"), data, 0o644); err != nil {
		t.Fatal(err)
	}
	fio, err := fileio.Open(ctx, "file://"+dir)
	if err != nil {
		t.Fatal(err)
	}
	f := types.Field
	// The file's columns (no field ids: matched by name).
	fileSchema := &schema.TableSchema{Fields: []types.DataField{
		f(0, "b", types.Boolean()), f(1, "i32", types.Int()), f(2, "rnd", types.BigInt()),
		f(3, "f64", types.Double()), f(4, "date", types.Date()), f(5, "dec", types.DecimalOf(10, 3)),
		f(6, "s", types.String()), f(7, "ts", types.TimestampOf(9)), f(8, "f32", types.Float()),
		f(9, "i16", types.SmallInt()),
		f(10, "lst", types.ArrayOf(types.Int())), f(11, "mp", types.MapOf(types.String(), types.Double())),
		f(12, "st", types.RowOf(f(20, "a", types.Int()), f(21, "b", types.String()))),
	}}
	target := []types.DataField{
		f(0, "b", types.Int()), f(1, "i32", types.DecimalOf(12, 2)), f(2, "rnd", types.Int()),
		f(3, "f64", types.Float()), f(4, "date", types.String()), f(5, "dec", types.Int()),
		f(6, "s", types.CharOf(2)), f(7, "ts", types.BigInt()), f(8, "f32", types.DecimalOf(10, 2)),
		f(9, "i16", types.TinyInt()),
		f(10, "lst", types.ArrayOf(types.String())), f(11, "mp", types.MapOf(types.String(), types.Float())),
		f(12, "st", types.RowOf(f(21, "b2", types.String()), f(20, "a", types.DecimalOf(10, 1)), f(22, "z", types.Int()))),
	}
	var got []string
	for rec, err := range reader.ReadDataFile(ctx, fio, "f.orc", fileSchema, target, reader.FileReadOptions{}) {
		if err != nil {
			t.Fatal(err)
		}
		for r := 0; r < int(rec.NumRows()); r++ {
			line := ""
			for c, fd := range target {
				if c >= 10 {
					line += renderNested(t, fd.Type, rec.Column(c), r) + "|"
					continue
				}
				v, err := types.ArrowValue(fd.Type, rec.Column(c), r)
				if err != nil {
					t.Fatal(err)
				}
				if d, ok := v.(types.Decimal); ok {
					v = d.Unscaled.String()
				}
				line += fmt.Sprintf("%v|", v)
			}
			got = append(got, line)
		}
		rec.Release()
	}
	if len(got) != 1000 {
		t.Fatalf("%d rows, want 1000", len(got))
	}
	for i := range got {
		if want := orcRowCast(i); got[i] != want {
			t.Fatalf("row %d:\n got %s\nwant %s", i, got[i], want)
		}
	}
}

// orcRowCast is row i of the ORC fixture (gen_orc.py formulas) cast as
// Java casts it, rendered as TestEvolvedTypesORC renders rows.
func orcRowCast(i int) string {
	null := func(isNull bool, v any) any {
		if isNull {
			return nil
		}
		return v
	}
	var b any
	if i%7 != 0 {
		b = int32(0)
		if i%3 == 0 {
			b = int32(1)
		}
	}
	i32 := null(i%5 == 1, big.NewInt(int64((i/20)*3-100)*100).String())
	lcg := new(big.Int).Mul(big.NewInt(int64(i)), new(big.Int).SetUint64(6364136223846793005))
	lcg.Add(lcg, big.NewInt(1442695040888963407))
	rnd := int32(uint32(new(big.Int).And(lcg, new(big.Int).SetUint64(math.MaxUint32)).Uint64())) // (int) of the long wraps
	f64 := float32(float64(i)*1.25e-3 - 7)
	date := time.Unix(int64(i*17-20000)*86400, 0).UTC().Format("2006-01-02")
	dec := int32((i*1234 - 500000) / 1000) // truncated toward zero
	var s any
	if i%5 != 0 {
		s = fmt.Sprintf("s%d", i%50)
		if len(s.(string)) > 2 {
			s = s.(string)[:2]
		} else if len(s.(string)) < 2 {
			s = s.(string) + " "
		}
	}
	nanos := new(big.Int).Mul(big.NewInt(int64(i-1500)), big.NewInt(86400*37*1_000_000_000))
	nanos.Add(nanos, big.NewInt(int64(i)*123456789))
	// Timestamp millis floor the nanos; unixTimestamp truncates millis/1000.
	millis := new(big.Int).Div(nanos, big.NewInt(1_000_000)) // Euclidean: floors for a positive divisor
	secs := millis.Int64() / 1000
	var f32 any
	if i%13 != 0 {
		// Double.toString of float i*0.5-100 is exact with one decimal.
		f32 = big.NewInt(int64(i*50 - 10000)).String()
	}
	i16 := int8(int16((i*1237)%65536 - 32768))
	lst := "<nil>"
	if i%9 != 0 {
		lst = "["
		for j := 0; j < i%4; j++ {
			if (i+j)%5 == 0 {
				lst += "<nil>,"
			} else {
				lst += fmt.Sprintf("%d,", i+j)
			}
		}
		lst += "]"
	}
	mp := "<nil>"
	if i%10 != 0 {
		mp = "{"
		for j := 0; j < i%3; j++ {
			mp += fmt.Sprintf("k%d:%v,", j, float32(float64(j)*1.5+float64(i)))
		}
		mp += "}"
	}
	st := "<nil>"
	if i%6 != 0 {
		a := "<nil>"
		if i%4 != 0 {
			a = fmt.Sprint(i * 2 * 10) // DECIMAL(10, 1) unscaled
		}
		st = fmt.Sprintf("(b%d,%s,<nil>)", i%7, a)
	}
	return fmt.Sprintf("%v|%v|%v|%v|%v|%v|%v|%v|%v|%v|%s|%s|%s|", b, i32, rnd, f64, date, dec, s, secs, f32, i16, lst, mp, st)
}

// renderNested renders row r of a cast ARRAY<STRING>, MAP<STRING, FLOAT> or
// ROW column as orcRowCast does.
func renderNested(t *testing.T, typ types.DataType, arr arrow.Array, r int) string {
	t.Helper()
	if arr.IsNull(r) {
		return "<nil>"
	}
	val := func(typ types.DataType, a arrow.Array, i int) string {
		v, err := types.ArrowValue(typ, a, i)
		if err != nil {
			t.Fatal(err)
		}
		if d, ok := v.(types.Decimal); ok {
			return d.Unscaled.String()
		}
		return fmt.Sprint(v)
	}
	switch a := arr.(type) {
	case *array.Map:
		lo, hi := a.ValueOffsets(r)
		out := "{"
		for k := lo; k < hi; k++ {
			out += val(*typ.Key, a.Keys(), int(k)) + ":" + val(*typ.Value, a.Items(), int(k)) + ","
		}
		return out + "}"
	case *array.List:
		lo, hi := a.ValueOffsets(r)
		out := "["
		for k := lo; k < hi; k++ {
			out += val(*typ.Elem, a.ListValues(), int(k)) + ","
		}
		return out + "]"
	case *array.Struct:
		out := "("
		for k, fd := range typ.Fields {
			if k > 0 {
				out += ","
			}
			out += val(fd.Type, a.Field(k), r)
		}
		return out + ")"
	}
	t.Fatalf("unexpected %T", arr)
	return ""
}
