package types

import (
	"errors"
	"testing"

	"github.com/apache/arrow-go/v18/arrow"
)

func TestToArrow(t *testing.T) {
	cases := []struct {
		t    DataType
		want string // arrow.DataType.String()
	}{
		{Boolean(), "bool"},
		{TinyInt(), "int8"},
		{SmallInt(), "int16"},
		{Int(), "int32"},
		{BigInt(), "int64"},
		{Float(), "float32"},
		{Double(), "float64"},
		{CharOf(3), "utf8"},
		{String(), "utf8"},
		{BinaryOf(4), "binary"},
		{Bytes(), "binary"},
		{DecimalOf(23, 5), "decimal(23, 5)"},
		{Date(), "date32"},
		{TimeOf(0), "time32[ms]"},
		{TimeOf(9), "time32[ms]"},
		{TimestampOf(0), "timestamp[ms]"},
		{TimestampOf(3), "timestamp[ms]"},
		{TimestampOf(4), "timestamp[us]"},
		{TimestampOf(6), "timestamp[us]"},
		{TimestampOf(7), "timestamp[ns]"},
		{TimestampOf(9), "timestamp[ns]"},
		{LocalZonedTimestampOf(0), "timestamp[ms, tz=UTC]"},
		{LocalZonedTimestampOf(6), "timestamp[us, tz=UTC]"},
		{LocalZonedTimestampOf(9), "timestamp[ns, tz=UTC]"},
		{ArrayOf(Int()), "list<element: int32, nullable>"},
		{ArrayOf(Int().NotNull()), "list<element: int32>"},
		{MapOf(Int(), String()), "map<int32, utf8, items_nullable>"},
		{MultisetOf(String()), "map<utf8, int32, items_nullable>"},
	}
	for _, c := range cases {
		got := ToArrow(c.t)
		if got.String() != c.want {
			t.Errorf("ToArrow(%s) = %s, want %s", c.t, got, c.want)
		}
	}
	if ts := ToArrow(LocalZonedTimestampOf(3)).(*arrow.TimestampType); ts.TimeZone != "UTC" || ts.Unit != arrow.Millisecond {
		t.Errorf("LTZ(3) = %#v", ts)
	}
	if ts := ToArrow(TimestampOf(6)).(*arrow.TimestampType); ts.TimeZone != "" {
		t.Errorf("TIMESTAMP(6) has zone %q", ts.TimeZone)
	}
	if d := ToArrow(DecimalOf(2, 2)).(*arrow.Decimal128Type); d.Precision != 2 || d.Scale != 2 {
		t.Errorf("DECIMAL(2, 2) = %#v", d)
	}
	if got := ToArrow(DataType{Kind: KindInvalid}); got != arrow.Null {
		t.Errorf("invalid kind -> %s", got)
	}
}

func TestSchemaToArrowFieldIDs(t *testing.T) {
	fields := []DataField{
		Field(0, "shopId", Int().NotNull()),
		Field(4, "col1", RowOf(Field(5, "f0", String()), Field(7, "f2", ArrayOf(Int())))),
		Field(8, "col2", MapOf(Int(), Int()).NotNull()),
	}
	s := SchemaToArrow(fields)
	if s.NumFields() != 3 {
		t.Fatalf("%d fields", s.NumFields())
	}
	want := []struct {
		name     string
		nullable bool
		id       string
		typ      string
	}{
		{"shopId", false, "0", "int32"},
		{"col1", true, "4", "struct<f0: utf8 nullable, f2: list<element: int32, nullable> nullable>"},
		{"col2", false, "8", "map<int32, int32, items_nullable>"},
	}
	for i, w := range want {
		f := s.Field(i)
		if f.Name != w.name || f.Nullable != w.nullable || f.Type.String() != w.typ {
			t.Errorf("field %d = %s %v %s", i, f.Name, f.Nullable, f.Type)
		}
		if v, ok := f.Metadata.GetValue(FieldIDKey); !ok || v != w.id {
			t.Errorf("field %d id = %q %v, want %s", i, v, ok, w.id)
		}
	}
	st := s.Field(1).Type.(*arrow.StructType)
	for i, id := range []string{"5", "7"} {
		if v, _ := st.Field(i).Metadata.GetValue(FieldIDKey); v != id {
			t.Errorf("nested field %d id = %q, want %s", i, v, id)
		}
		if !st.Field(i).Nullable {
			t.Errorf("nested field %d not nullable", i)
		}
	}
}

func TestFromArrowRoundTrip(t *testing.T) {
	fields := []DataField{
		Field(0, "a", Int().NotNull()),
		Field(1, "b", String()),
		Field(2, "c", DecimalOf(10, 2)),
		Field(3, "d", TimestampOf(3)),
		Field(4, "e", LocalZonedTimestampOf(6).NotNull()),
		Field(5, "f", TimestampOf(9)),
		Field(6, "g", ArrayOf(Double().NotNull())),
		Field(7, "h", RowOf(Field(8, "x", Bytes()), Field(9, "y", Date()))),
		Field(10, "i", MapOf(String().NotNull(), BigInt())),
		Field(11, "j", Boolean()),
		Field(12, "k", TinyInt()),
		Field(13, "l", SmallInt()),
		Field(14, "m", Float()),
		Field(15, "n", TimeOf(3)),
	}
	got, err := SchemaFromArrow(SchemaToArrow(fields))
	if err != nil {
		t.Fatal(err)
	}
	for i := range fields {
		if !got[i].Equal(fields[i]) {
			t.Errorf("field %d: got %s id %d, want %s", i, got[i], got[i].ID, fields[i])
		}
	}

	// Without ids: fresh ids in Java's creation order.
	s := arrow.NewSchema([]arrow.Field{
		{Name: "a", Type: arrow.PrimitiveTypes.Int64},
		{Name: "b", Type: arrow.StructOf(arrow.Field{Name: "x", Type: arrow.BinaryTypes.LargeString, Nullable: true})},
		{Name: "c", Type: &arrow.FixedSizeBinaryType{ByteWidth: 16}, Nullable: true},
		{Name: "d", Type: &arrow.TimestampType{Unit: arrow.Second, TimeZone: "Asia/Shanghai"}, Nullable: true},
		{Name: "e", Type: arrow.FixedWidthTypes.Time64us, Nullable: true},
	}, nil)
	got, err = SchemaFromArrow(s)
	if err != nil {
		t.Fatal(err)
	}
	want := []DataField{
		Field(0, "a", BigInt().NotNull()),
		Field(1, "b", RowOf(Field(2, "x", String())).NotNull()),
		Field(3, "c", BinaryOf(16)),
		Field(4, "d", LocalZonedTimestampOf(0)),
		Field(5, "e", TimeOf(6)),
	}
	for i := range want {
		if !got[i].Equal(want[i]) {
			t.Errorf("field %d: got %s id %d, want %s", i, got[i], got[i].ID, want[i])
		}
	}

	if _, err := FromArrow(arrow.FixedWidthTypes.Duration_s); !errors.Is(err, ErrUnknownType) {
		t.Errorf("duration: %v", err)
	}
	if _, err := FromArrow(&arrow.Decimal256Type{Precision: 60, Scale: 2}); !errors.Is(err, ErrUnknownType) {
		t.Errorf("decimal256(60): %v", err)
	}
}
