package cast

import (
	"testing"

	"github.com/apache/arrow-go/v18/arrow/array"
	"github.com/apache/arrow-go/v18/arrow/memory"

	"github.com/paimon-go/paimon/types"
)

// BenchmarkArray casts 64Ki values per op (an old file's column read after
// ALTER TABLE): INT to BIGINT (widening), BIGINT to INT (wrap), INT to
// DECIMAL(12, 2), INT to STRING.
func BenchmarkArray(b *testing.B) {
	const n = 1 << 16
	ib := array.NewInt32Builder(memory.DefaultAllocator)
	lb := array.NewInt64Builder(memory.DefaultAllocator)
	for i := 0; i < n; i++ {
		ib.Append(int32(i*7 - n))
		lb.Append(int64(i) << 20)
	}
	ints, longs := ib.NewArray(), lb.NewArray()
	defer ints.Release()
	defer longs.Release()
	for _, c := range []struct {
		name     string
		arr      *array.Int32
		from, to types.DataType
	}{
		{"int-bigint", ints.(*array.Int32), types.Int(), types.BigInt()},
		{"int-decimal", ints.(*array.Int32), types.Int(), types.DecimalOf(12, 2)},
		{"int-string", ints.(*array.Int32), types.Int(), types.String()},
	} {
		b.Run(c.name, func(b *testing.B) {
			b.SetBytes(n * 4)
			for i := 0; i < b.N; i++ {
				out, err := Array(nil, c.arr, c.from, c.to)
				if err != nil {
					b.Fatal(err)
				}
				out.Release()
			}
		})
	}
	b.Run("bigint-int", func(b *testing.B) {
		b.SetBytes(n * 8)
		for i := 0; i < b.N; i++ {
			out, err := Array(nil, longs, types.BigInt(), types.Int())
			if err != nil {
				b.Fatal(err)
			}
			out.Release()
		}
	})
}

// BenchmarkArrayToString casts 16Ki ARRAY<INT> values of 4 elements each
// (64Ki elements per op) to STRING (ArrayToStringCastRule).
func BenchmarkArrayToString(b *testing.B) {
	const n = 1 << 14
	lb := array.NewListBuilder(memory.DefaultAllocator, types.ToArrow(types.Int()))
	vb := lb.ValueBuilder().(*array.Int32Builder)
	for i := 0; i < n; i++ {
		lb.Append(true)
		for j := 0; j < 4; j++ {
			vb.Append(int32(i*4 + j))
		}
	}
	arr := lb.NewArray()
	defer arr.Release()
	b.SetBytes(n * 4 * 4)
	for i := 0; i < b.N; i++ {
		out, err := Array(nil, arr, types.ArrayOf(types.Int()), types.String())
		if err != nil {
			b.Fatal(err)
		}
		out.Release()
	}
}
