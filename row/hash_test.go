package row

import (
	"errors"
	"testing"

	"github.com/paimon-go/paimon/types"
)

// TestHashVectors uses the table of docs/paimon-format.md section 7.6
// (computed independently with pypaimon and a Python Murmur3 x86_32).
func TestHashVectors(t *testing.T) {
	cases := []struct {
		name    string
		fields  []types.DataType
		values  []any
		hash    int32
		buckets [4]int // N = 2, 4, 10, 16
	}{
		{"INT 1", []types.DataType{tInt}, []any{int32(1)}, 1465514398, [4]int{0, 2, 8, 14}},
		{"BIGINT 1", []types.DataType{tBigInt}, []any{int64(1)}, 1465514398, [4]int{0, 2, 8, 14}},
		{"INT 0", []types.DataType{tInt}, []any{int32(0)}, -300363099, [4]int{1, 3, 9, 11}},
		{"INT NULL", []types.DataType{tInt}, []any{nil}, -1748325344, [4]int{0, 0, 4, 0}},
		{"STRING a", []types.DataType{tString}, []any{"a"}, 943281246, [4]int{0, 2, 6, 14}},
		{"STRING empty", []types.DataType{tString}, []any{""}, 302122119, [4]int{1, 3, 9, 7}},
		{"STRING hello world!", []types.DataType{tString}, []any{"hello world!"}, 609810467, [4]int{1, 3, 7, 3}},
		{"INT 1, STRING ab, BIGINT NULL", []types.DataType{tInt, tString, tBigInt}, []any{int32(1), "ab", nil}, -1611111716, [4]int{0, 0, 6, 4}},
	}
	for _, c := range cases {
		r, err := Encode(c.fields, c.values)
		if err != nil {
			t.Fatal(err)
		}
		if h := HashCode(r); h != c.hash {
			t.Errorf("%s: hash %d, want %d", c.name, h, c.hash)
		}
		for i, n := range []int{2, 4, 10, 16} {
			if b := Bucket(r, n); b != c.buckets[i] {
				t.Errorf("%s: bucket(%d) = %d, want %d", c.name, n, b, c.buckets[i])
			}
		}
	}
}

func TestBucketFixtureCrossCheck(t *testing.T) {
	// docs 7.6: pk_table_scan_and_read_dv_parquet (bucket=2, bucket-key f2 INT
	// NOT NULL) keeps f2=1 rows in bucket-0 and f2=0 rows in bucket-1.
	for v, want := range map[int32]int{1: 0, 0: 1} {
		r, err := Encode([]types.DataType{types.Int().NotNull()}, []any{v})
		if err != nil {
			t.Fatal(err)
		}
		if b := Bucket(r, 2); b != want {
			t.Errorf("f2=%d: bucket %d, want %d", v, b, want)
		}
	}
	if Bucket(EmptyRow(), 0) != -1 {
		t.Error("Bucket with 0 buckets must be -1")
	}
}

func TestModBucket(t *testing.T) {
	cases := []struct {
		key  any
		n    int
		want int
	}{
		{int32(7), 4, 3}, {int32(-7), 4, 1}, {int64(-1), 10, 9}, {int64(20), 10, 0}, {nil, 3, 0},
	}
	for _, c := range cases {
		got, err := ModBucket(c.key, c.n)
		if err != nil || got != c.want {
			t.Errorf("ModBucket(%v, %d) = %d, %v; want %d", c.key, c.n, got, err, c.want)
		}
	}
	if _, err := ModBucket("x", 2); !errors.Is(err, ErrValue) {
		t.Errorf("string key: %v", err)
	}
	if _, err := ModBucket(int32(1), 0); !errors.Is(err, ErrValue) {
		t.Errorf("0 buckets: %v", err)
	}
}
