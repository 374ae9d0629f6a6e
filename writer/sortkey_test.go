package writer

import (
	"fmt"
	"math"
	"math/rand/v2"
	"slices"
	"strings"
	"testing"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"
	"github.com/apache/arrow-go/v18/arrow/memory"
)

// TestNormalizedKeysByHand checks encodings computed by hand: INT -1 and 1
// with the sign bit flipped, a string padded to the column's longest value
// plus its length, and a BIGINT cut to the bytes left.
func TestNormalizedKeysByHand(t *testing.T) {
	mem := memory.NewGoAllocator()
	ib := array.NewInt32Builder(mem)
	ib.AppendValues([]int32{-1, 1}, nil)
	ints := ib.NewArray()
	defer ints.Release()
	sb := array.NewStringBuilder(mem)
	sb.AppendValues([]string{"AB", "ABC"}, nil)
	strs := sb.NewArray()
	defer strs.Release()
	lb := array.NewInt64Builder(mem)
	lb.AppendValues([]int64{0x0102030405060708, -2}, nil)
	longs := lb.NewArray()
	defer longs.Release()

	keys, exact := normalizedKeys([]arrow.Array{ints, strs, longs}, 2)
	// 4 bytes int, 3+1 bytes string, then 8 bytes of the long: 16, exact.
	want := []normKey{
		{hi: 0x7fffffff_41420002, lo: 0x8102030405060708, idx: 0},
		{hi: 0x80000001_41424303, lo: 0x7ffffffffffffffe, idx: 1},
	}
	if !exact || !slices.Equal(keys, want) {
		t.Errorf("keys %x exact %v, want %x exact", keys, exact, want)
	}
	// A string of 13 bytes after the int does not fit: cut, not exact.
	sb.AppendValues([]string{"0123456789abc", "x"}, nil)
	long := sb.NewArray()
	defer long.Release()
	keys, exact = normalizedKeys([]arrow.Array{ints, long}, 2)
	if exact || keys[0].hi != 0x7fffffff_30313233 || keys[0].lo != 0x3435363738396162 || keys[1].lo != 0 {
		t.Errorf("cut keys %x exact %v", keys, exact)
	}
}

// TestSortPermutationMatchesComparator sorts random keys of many shapes
// (exact and cut normalized keys, ties, nulls, floats, strings with zero
// bytes and common prefixes) and compares with a stable sort by the full
// comparator.
func TestSortPermutationMatchesComparator(t *testing.T) {
	mem := memory.NewGoAllocator()
	rng := rand.New(rand.NewPCG(1, 2))
	strPool := []string{"", "A", "AB", "AB\x00", "AB\x00C", "ABC", "B", "\xff", "\xff\x00", "zz"}
	type gen func(n int) arrow.Array
	ints := func(n int) arrow.Array {
		b := array.NewInt64Builder(mem)
		for range n {
			b.Append(rng.Int64N(7) - 3)
		}
		return b.NewArray()
	}
	bigInts := func(n int) arrow.Array {
		b := array.NewInt64Builder(mem)
		for range n {
			switch rng.IntN(4) {
			case 0:
				b.Append(math.MinInt64)
			case 1:
				b.Append(math.MaxInt64)
			default:
				b.Append(int64(rng.Uint64()))
			}
		}
		return b.NewArray()
	}
	small := func(n int) arrow.Array {
		b := array.NewInt8Builder(mem)
		for range n {
			b.Append(int8(rng.IntN(256) - 128))
		}
		return b.NewArray()
	}
	dates := func(n int) arrow.Array {
		b := array.NewDate32Builder(mem)
		for range n {
			b.Append(arrow.Date32(rng.Int32N(5) - 2))
		}
		return b.NewArray()
	}
	strs := func(n int) arrow.Array {
		b := array.NewStringBuilder(mem)
		for range n {
			b.Append(strPool[rng.IntN(len(strPool))])
		}
		return b.NewArray()
	}
	longStrs := func(n int) arrow.Array {
		b := array.NewStringBuilder(mem)
		for range n {
			b.Append(strings.Repeat("p", 14) + strPool[rng.IntN(len(strPool))])
		}
		return b.NewArray()
	}
	bools := func(n int) arrow.Array {
		b := array.NewBooleanBuilder(mem)
		for range n {
			b.Append(rng.IntN(2) == 1)
		}
		return b.NewArray()
	}
	floats := func(n int) arrow.Array {
		b := array.NewFloat64Builder(mem)
		vals := []float64{-1, 0, math.Copysign(0, -1), 2.5, math.NaN(), math.Inf(1)}
		for range n {
			b.Append(vals[rng.IntN(len(vals))])
		}
		return b.NewArray()
	}
	nullable := func(n int) arrow.Array {
		b := array.NewInt32Builder(mem)
		for range n {
			if rng.IntN(3) == 0 {
				b.AppendNull()
			} else {
				b.Append(rng.Int32N(3))
			}
		}
		return b.NewArray()
	}
	cases := map[string][]gen{
		"int":               {ints},
		"bigint":            {bigInts},
		"tinyint,date,bool": {small, dates, bools},
		"string,string":     {strs, strs},
		"string,bigint":     {strs, bigInts},
		"date,string,int":   {dates, strs, ints},
		"long string,int":   {longStrs, ints},
		"int,float":         {ints, floats},
		"nullable,string":   {nullable, strs},
		"string,nullable":   {strs, nullable},
	}
	for name, gens := range cases {
		for _, n := range []int{1, 2, 100, radixMinRows, 3000} {
			t.Run(fmt.Sprintf("%s/%d", name, n), func(t *testing.T) {
				cols := make([]arrow.Array, len(gens))
				for i, g := range gens {
					cols[i] = g(n)
					defer cols[i].Release()
				}
				full, err := keyComparator(cols)
				if err != nil {
					t.Fatal(err)
				}
				want := make([]int32, n)
				for i := range want {
					want[i] = int32(i)
				}
				slices.SortStableFunc(want, func(a, b int32) int { return full(int(a), int(b)) })
				got, err := sortPermutation(cols, n)
				if err != nil {
					t.Fatal(err)
				}
				if got == nil {
					// Already sorted: the identity.
					got = make([]int32, n)
					for i := range got {
						got[i] = int32(i)
					}
				}
				if !slices.Equal(got, want) {
					t.Errorf("permutation differs from the stable comparator sort")
				}
			})
		}
	}
}
