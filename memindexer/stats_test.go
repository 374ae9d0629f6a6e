package memindexer

import (
	"math"
	"math/big"
	"reflect"
	"testing"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"
	"github.com/apache/arrow-go/v18/arrow/decimal128"
	"github.com/apache/arrow-go/v18/arrow/memory"

	"github.com/paimon-go/paimon/predicate"
	"github.com/paimon-go/paimon/realtime"
	"github.com/paimon-go/paimon/types"
)

// predicateID is "id <op> v" over pkSchema (id at transport index 3).
func predicateID(v int64, op string) predicate.Predicate {
	r := predicate.Ref{Index: 3, Name: "id", Type: types.BigInt()}
	switch op {
	case ">=":
		return predicate.GreaterOrEqual(r, v)
	case ">":
		return predicate.GreaterThan(r, v)
	}
	return predicate.Equal(r, v)
}

// idBatches writes one batch per id list, offsets consecutive from 0.
func idBatches(t *testing.T, s realtime.Store, batches ...[]int64) {
	mem := memory.NewGoAllocator()
	var off int64
	for _, ids := range batches {
		ptrs := make([]*int64, len(ids))
		for i := range ids {
			ptrs[i] = &ids[i]
		}
		n := int64(len(ids))
		write(t, s, appendRec(mem, span(off, off+n), ptrs, nil), rng(off, off+n))
		off += n
	}
}

func queryIDs(t *testing.T, s realtime.Store, f predicate.Predicate) [][]int64 {
	t.Helper()
	v, err := s.AcquireReadView(bg)
	if err != nil {
		t.Fatal(err)
	}
	defer v.Release()
	return drain(t, query(t, s, v, realtime.Query{Columns: []string{realtime.OffsetColumn, "id"}, Filter: f, BatchSize: 100}), "id")
}

// Upstream TestMemoryBatchStatisticsPredicatePushdown (scenario 23): three
// memory batches; with stats-mode none every row comes back, with full the
// batches whose id range cannot match are skipped.
func TestStatsPruningScenario23(t *testing.T) {
	gt := func(v int64) predicate.Predicate { return predicate.GreaterThan(ref("id"), v) }
	eq := func(v int64) predicate.Predicate { return predicate.Equal(ref("id"), v) }
	spread := [][]int64{{0, 1, 2}, {10, 11, 12}, {20, 21, 22}}

	none := newAppendStore(t, realtime.StatsNone)
	idBatches(t, none, spread...)
	for _, f := range []predicate.Predicate{gt(100), gt(5), eq(10)} {
		if got := queryIDs(t, none, f); !reflect.DeepEqual(got, spread) {
			t.Fatalf("stats none, %s: %v", f, got)
		}
	}

	full := newAppendStore(t, realtime.StatsFull)
	idBatches(t, full, spread...)
	for _, c := range []struct {
		f    predicate.Predicate
		want [][]int64
	}{
		{gt(100), nil},
		{gt(5), [][]int64{{10, 11, 12}, {20, 21, 22}}},
		{eq(10), [][]int64{{10, 11, 12}}},
		{nil, spread},
		{predicate.LessThan(ref("id"), int64(0)), nil},
		{predicate.Or(eq(1), eq(21)), [][]int64{{0, 1, 2}, {20, 21, 22}}},
		{predicate.And(gt(1), predicate.LessOrEqual(ref("id"), int64(10))), [][]int64{{0, 1, 2}, {10, 11, 12}}},
		// Strings: payloads are value-<id>, ordered byte-wise, so the
		// first batch spans "value-0".."value-2", which includes "value-11".
		{predicate.Equal(ref("payload"), "value-11"), [][]int64{{0, 1, 2}, {10, 11, 12}}},
		{predicate.Equal(ref("payload"), "value-21"), [][]int64{{20, 21, 22}}},
		{predicate.StartsWith(ref("payload"), "value-2"), [][]int64{{0, 1, 2}, {20, 21, 22}}},
	} {
		if got := queryIDs(t, full, c.f); !reflect.DeepEqual(got, c.want) {
			t.Fatalf("stats full, %v: %v, want %v", c.f, got, c.want)
		}
	}

	// The layout of the brief: ids 0-2, 3-5, 10-12. id > 5 and id = 10 keep
	// only the last batch; id > 3 (scenario 24's memory part) skips the first.
	dense := newAppendStore(t, realtime.StatsFull)
	idBatches(t, dense, []int64{0, 1, 2}, []int64{3, 4, 5}, []int64{10, 11, 12})
	for _, c := range []struct {
		f    predicate.Predicate
		want [][]int64
	}{
		{gt(100), nil},
		{gt(5), [][]int64{{10, 11, 12}}},
		{eq(10), [][]int64{{10, 11, 12}}},
		{gt(3), [][]int64{{3, 4, 5}, {10, 11, 12}}},
		{eq(7), nil},
	} {
		if got := queryIDs(t, dense, c.f); !reflect.DeepEqual(got, c.want) {
			t.Fatalf("dense, %v: %v, want %v", c.f, got, c.want)
		}
	}
}

// Upstream TestNullPredicateForMemoryAndDisk (scenario 25): a batch with a
// null payload is kept whole for IS NULL, batches without nulls are skipped.
func TestNullCountPruningScenario25(t *testing.T) {
	mem := memory.NewGoAllocator()
	s := newAppendStore(t, realtime.StatsFull)
	write(t, s, appendRec(mem, []int64{3}, nil, []*string{pstr("value-3")}), rng(3, 4))
	write(t, s, appendRec(mem, []int64{4, 5}, nil, []*string{nil, pstr("value-5")}), rng(4, 6))
	write(t, s, appendRec(mem, []int64{6, 7}, nil, []*string{nil, nil}), rng(6, 8))
	for _, c := range []struct {
		f    predicate.Predicate
		want [][]int64
	}{
		{predicate.IsNull(ref("payload")), [][]int64{{4, 5}, {6, 7}}},
		{predicate.IsNotNull(ref("payload")), [][]int64{{3}, {4, 5}}},
		{predicate.Equal(ref("payload"), "value-5"), [][]int64{{4, 5}}},
		{predicate.IsNull(ref("id")), nil},
	} {
		if got := queryIDs(t, s, c.f); !reflect.DeepEqual(got, c.want) {
			t.Fatalf("%v: %v, want %v", c.f, got, c.want)
		}
	}
}

// TestStatsValues checks the statistics kept per column type against values
// worked out by hand, including NULLs, NaN and signed zeros (ordered like
// Java: -0.0 < +0.0 < NaN).
func TestStatsValues(t *testing.T) {
	sc := arrow.NewSchema([]arrow.Field{
		{Name: realtime.OffsetColumn, Type: arrow.PrimitiveTypes.Int64},
		{Name: "b", Type: arrow.FixedWidthTypes.Boolean, Nullable: true},
		{Name: "i8", Type: arrow.PrimitiveTypes.Int8, Nullable: true},
		{Name: "i16", Type: arrow.PrimitiveTypes.Int16, Nullable: true},
		{Name: "i32", Type: arrow.PrimitiveTypes.Int32, Nullable: true},
		{Name: "f32", Type: arrow.PrimitiveTypes.Float32, Nullable: true},
		{Name: "f64", Type: arrow.PrimitiveTypes.Float64, Nullable: true},
		{Name: "s", Type: arrow.BinaryTypes.String, Nullable: true},
		{Name: "bin", Type: arrow.BinaryTypes.Binary, Nullable: true},
		{Name: "d", Type: arrow.FixedWidthTypes.Date32, Nullable: true},
		{Name: "t", Type: arrow.FixedWidthTypes.Time32ms, Nullable: true},
		{Name: "ts", Type: &arrow.TimestampType{Unit: arrow.Microsecond}, Nullable: true},
		{Name: "dec", Type: &arrow.Decimal128Type{Precision: 10, Scale: 2}, Nullable: true},
		{Name: "l", Type: arrow.ListOf(arrow.PrimitiveTypes.Int32), Nullable: true},
	}, nil)
	mem := memory.NewCheckedAllocator(memory.NewGoAllocator())
	defer mem.AssertSize(t, 0)
	st, err := Factory{}.Create(realtime.CreateRequest{Schema: sc, Stats: realtime.StatsFull})
	if err != nil {
		t.Fatal(err)
	}
	defer st.Close()
	b := array.NewRecordBuilder(mem, sc)
	valid := []bool{true, false, true}
	b.Field(0).(*array.Int64Builder).AppendValues([]int64{0, 1, 2}, nil)
	b.Field(1).(*array.BooleanBuilder).AppendValues([]bool{true, true, false}, valid)
	b.Field(2).(*array.Int8Builder).AppendValues([]int8{5, -3, 7}, nil)
	b.Field(3).(*array.Int16Builder).AppendValues([]int16{1, 2, 3}, []bool{false, false, false})
	b.Field(4).(*array.Int32Builder).AppendValues([]int32{1, 99, 3}, valid)
	b.Field(5).(*array.Float32Builder).AppendValues([]float32{1.5, float32(math.NaN()), -2}, nil)
	b.Field(6).(*array.Float64Builder).AppendValues([]float64{0, math.Copysign(0, -1), 7}, []bool{true, true, false})
	b.Field(7).(*array.StringBuilder).AppendValues([]string{"b", "a", "c"}, nil)
	b.Field(8).(*array.BinaryBuilder).AppendValues([][]byte{{0xff}, {0x00, 0x01}, {}}, nil)
	b.Field(9).(*array.Date32Builder).AppendValues([]arrow.Date32{19723, 0, -1}, nil)
	b.Field(10).(*array.Time32Builder).AppendValues([]arrow.Time32{1000, 500, 0}, valid)
	b.Field(11).(*array.TimestampBuilder).AppendValues([]arrow.Timestamp{1_000_001, -1, 5}, nil)
	b.Field(12).(*array.Decimal128Builder).AppendValues([]decimal128.Num{decimal128.FromI64(1234), decimal128.FromI64(-1), decimal128.FromI64(10000)}, nil)
	lb := b.Field(13).(*array.ListBuilder)
	lb.Append(true)
	lb.ValueBuilder().(*array.Int32Builder).Append(1)
	lb.AppendNull()
	lb.Append(true)
	rec := b.NewRecordBatch()
	b.Release()
	write(t, st, rec, rng(0, 3))

	s := st.(*store)
	got := s.building[0].stats
	dec := func(v int64) types.Decimal { return types.Decimal{Unscaled: big.NewInt(v), Precision: 10, Scale: 2} }
	wantMin := []any{int64(0), false, int8(-3), nil, int32(1), float32(-2), math.Copysign(0, -1), "a", []byte{},
		int32(-1), int32(0), types.Timestamp{Millis: -1, NanoOfMilli: 999000}, dec(-1), nil}
	wantMax := []any{int64(2), true, int8(7), nil, int32(3), float32(math.NaN()), float64(0), "c", []byte{0xff},
		int32(19723), int32(1000), types.Timestamp{Millis: 1000, NanoOfMilli: 1000}, dec(10000), nil}
	wantNulls := []int64{0, 1, 0, 3, 1, 0, 1, 0, 0, 0, 1, 0, 0, 1}
	if !reflect.DeepEqual(got.nulls, wantNulls) {
		t.Fatalf("null counts %v, want %v", got.nulls, wantNulls)
	}
	for i := range wantMin {
		for _, c := range []struct {
			kind      string
			got, want any
		}{{"min", got.min[i], wantMin[i]}, {"max", got.max[i], wantMax[i]}} {
			if !sameStat(c.got, c.want) {
				t.Errorf("%s %s = %#v, want %#v", sc.Field(i).Name, c.kind, c.got, c.want)
			}
		}
	}
	// The values feed predicate.TestStats: typed predicates prune exactly.
	field := func(i int) predicate.Ref {
		dt, _ := types.FromArrow(sc.Field(i).Type)
		return predicate.Ref{Index: i, Name: sc.Field(i).Name, Type: dt}
	}
	v, _ := st.AcquireReadView(bg)
	defer v.Release()
	for _, c := range []struct {
		f    predicate.Predicate
		keep bool
	}{
		{predicate.GreaterThan(field(11), types.Timestamp{Millis: 1000, NanoOfMilli: 1000}), false},
		{predicate.GreaterOrEqual(field(11), types.Timestamp{Millis: 1000, NanoOfMilli: 1000}), true},
		{predicate.LessThan(field(12), dec(-1)), false},
		{predicate.Equal(field(12), types.Decimal{Unscaled: big.NewInt(100), Precision: 10, Scale: 0}), true},
		{predicate.Equal(field(9), int32(20000)), false},
		{predicate.Equal(field(1), true), true},
		{predicate.GreaterThan(field(2), int8(7)), false},
		{predicate.IsNotNull(field(3)), false},
		{predicate.IsNull(field(13)), true},
		{predicate.IsNull(field(7)), false},
	} {
		rs := query(t, st, v, realtime.Query{Columns: []string{realtime.OffsetColumn}, Filter: c.f, BatchSize: 8})
		if (len(rs) == 1) != c.keep {
			t.Errorf("%v: %d readers, keep %v", c.f, len(rs), c.keep)
		}
	}
}

// sameStat compares statistic values, NaN equal to NaN and signed zeros
// distinguished.
func sameStat(got, want any) bool {
	switch w := want.(type) {
	case float32:
		g, ok := got.(float32)
		return ok && (g == w && math.Signbit(float64(g)) == math.Signbit(float64(w)) || g != g && w != w)
	case float64:
		g, ok := got.(float64)
		return ok && (g == w && math.Signbit(g) == math.Signbit(w) || g != g && w != w)
	case types.Decimal:
		g, ok := got.(types.Decimal)
		return ok && g.Precision == w.Precision && g.Scale == w.Scale && g.Unscaled.Cmp(w.Unscaled) == 0
	}
	return reflect.DeepEqual(got, want)
}
