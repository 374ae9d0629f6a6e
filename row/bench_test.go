package row

import (
	"testing"

	"github.com/paimon-go/paimon/types"
)

// benchRow is a typical key/stats row: INT, BIGINT, STRING (inline and long),
// DECIMAL(10,2), DECIMAL(23,5), TIMESTAMP(3), TIMESTAMP(9) and a null.
func benchRow() ([]types.DataType, []any) {
	fields := []types.DataType{
		types.Int(), types.BigInt(), types.String(), types.String(), types.DecimalOf(10, 2),
		types.DecimalOf(23, 5), types.TimestampOf(3), types.TimestampOf(9), types.Double(),
	}
	values := []any{
		int32(42), int64(1) << 40, "Alice", "Two roads diverged in a wood", dec("12345", 10, 2),
		dec("12345678998765432145678", 23, 5), types.Timestamp{Millis: 1700000000123},
		types.Timestamp{Millis: 1700000000123, NanoOfMilli: 456789}, nil,
	}
	return fields, values
}

func BenchmarkEncode(b *testing.B) {
	fields, values := benchRow()
	b.ReportAllocs()
	for b.Loop() {
		if _, err := Encode(fields, values); err != nil {
			b.Fatal(err)
		}
	}
}

func BenchmarkDecode(b *testing.B) {
	fields, values := benchRow()
	r, err := Encode(fields, values)
	if err != nil {
		b.Fatal(err)
	}
	b.SetBytes(int64(r.Size()))
	b.ReportAllocs()
	for b.Loop() {
		if _, err := Decode(fields, r); err != nil {
			b.Fatal(err)
		}
	}
}

func BenchmarkBucket(b *testing.B) {
	// A two-field bucket key (STRING, INT), as in the fixture PK tables.
	r, err := Encode([]types.DataType{types.String(), types.Int()}, []any{"Alice", int32(1)})
	if err != nil {
		b.Fatal(err)
	}
	b.SetBytes(int64(r.Size()))
	b.ReportAllocs()
	for b.Loop() {
		_ = Bucket(r, 16)
	}
}

func BenchmarkEncodeAndBucket(b *testing.B) {
	fields := []types.DataType{types.String(), types.Int()}
	values := []any{"Alice", int32(1)}
	b.ReportAllocs()
	for b.Loop() {
		r, err := Encode(fields, values)
		if err != nil {
			b.Fatal(err)
		}
		_ = Bucket(r, 16)
	}
}
