package memindexer

import (
	"context"
	"reflect"
	"testing"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"
	"github.com/apache/arrow-go/v18/arrow/memory"

	"github.com/paimon-go/paimon/progress"
	"github.com/paimon-go/paimon/realtime"
	"github.com/paimon-go/paimon/types"
)

func rng(b, e int64) progress.Range { return progress.Range{Begin: b, End: e} }

func TestFactoryCreateValidation(t *testing.T) {
	other := func(fields ...arrow.Field) *arrow.Schema { return arrow.NewSchema(fields, nil) }
	off := arrow.Field{Name: realtime.OffsetColumn, Type: arrow.PrimitiveTypes.Int64}
	id := arrow.Field{Name: "id", Type: arrow.PrimitiveTypes.Int64, Nullable: true}
	cases := []struct {
		name     string
		req      realtime.CreateRequest
		schemaEr bool
	}{
		{"nil schema", realtime.CreateRequest{Mode: realtime.AppendOnly}, true},
		{"offset not first", realtime.CreateRequest{Schema: other(id, off)}, true},
		{"offset int32", realtime.CreateRequest{Schema: other(arrow.Field{Name: realtime.OffsetColumn, Type: arrow.PrimitiveTypes.Int32})}, true},
		{"offset repeated", realtime.CreateRequest{Schema: other(off, id, off)}, true},
		{"append with keys", realtime.CreateRequest{Schema: appendSchema(), KeyColumns: []int{1}}, false},
		{"pk on append schema", realtime.CreateRequest{Schema: appendSchema(), Mode: realtime.PrimaryKey, KeyColumns: []int{1}}, true},
		{"pk without keys", realtime.CreateRequest{Schema: pkSchema(), Mode: realtime.PrimaryKey}, false},
		{"pk key on sequence", realtime.CreateRequest{Schema: pkSchema(), Mode: realtime.PrimaryKey, KeyColumns: []int{1}}, false},
		{"pk key out of range", realtime.CreateRequest{Schema: pkSchema(), Mode: realtime.PrimaryKey, KeyColumns: []int{5}}, false},
		{"pk key repeated", realtime.CreateRequest{Schema: pkSchema(), Mode: realtime.PrimaryKey, KeyColumns: []int{3, 3}}, false},
		{"unknown mode", realtime.CreateRequest{Schema: appendSchema(), Mode: 7}, false},
		{"unknown stats", realtime.CreateRequest{Schema: appendSchema(), Stats: 9}, false},
	}
	for _, c := range cases {
		s, err := Factory{}.Create(c.req)
		if s != nil {
			t.Errorf("%s: got a store", c.name)
		}
		mustIs(t, err, ErrInvalidRequest)
		if c.schemaEr {
			mustIs(t, err, realtime.ErrSchemaMismatch)
		}
	}
	for _, req := range []realtime.CreateRequest{
		{Schema: appendSchema(), Mode: realtime.AppendOnly, Stats: realtime.StatsFull},
		{Schema: pkSchema(), Mode: realtime.PrimaryKey, KeyColumns: []int{4, 3}},
	} {
		s, err := Factory{}.Create(req)
		if err != nil {
			t.Fatal(err)
		}
		if u := s.Usage(); u != (realtime.Usage{}) {
			t.Fatalf("new store usage %+v", u)
		}
		s.Close()
	}
}

func TestWriteValidationAppend(t *testing.T) {
	mem := memory.NewCheckedAllocator(memory.NewGoAllocator())
	defer mem.AssertSize(t, 0)
	s := newAppendStore(t, realtime.StatsFull)
	defer s.Close()

	mustIs(t, writeErr(s, appendRec(mem, []int64{-1}, nil, nil), rng(-1, 0)), realtime.ErrOffsetOrder)
	write(t, s, appendRec(mem, []int64{0, 1, 2}, nil, nil), rng(0, 3))
	before := s.Usage()

	nullOffsets := func() arrow.RecordBatch {
		b := array.NewRecordBuilder(mem, appendSchema())
		defer b.Release()
		b.Field(0).(*array.Int64Builder).AppendValues([]int64{3, 0}, []bool{true, false})
		b.Field(1).(*array.Int64Builder).AppendValues([]int64{3, 4}, nil)
		b.Field(2).(*array.StringBuilder).AppendValues([]string{"a", "b"}, nil)
		return b.NewRecordBatch()
	}
	otherSchema := func() arrow.RecordBatch {
		sc := arrow.NewSchema([]arrow.Field{
			{Name: realtime.OffsetColumn, Type: arrow.PrimitiveTypes.Int64},
			{Name: "id", Type: arrow.PrimitiveTypes.Int32, Nullable: true},
			{Name: "payload", Type: arrow.BinaryTypes.String, Nullable: true},
		}, nil)
		b := array.NewRecordBuilder(mem, sc)
		defer b.Release()
		b.Field(0).(*array.Int64Builder).Append(3)
		b.Field(1).(*array.Int32Builder).Append(3)
		b.Field(2).(*array.StringBuilder).Append("x")
		return b.NewRecordBatch()
	}
	cases := []struct {
		name string
		rec  arrow.RecordBatch
		r    progress.Range
		want error
	}{
		{"overlap", appendRec(mem, []int64{2, 3}, nil, nil), rng(2, 4), realtime.ErrOffsetOrder},
		{"empty range", appendRec(mem, []int64{3}, nil, nil), rng(3, 3), realtime.ErrOffsetOrder},
		{"null offset", nullOffsets(), rng(3, 5), realtime.ErrOffsetOrder},
		{"duplicate offset", appendRec(mem, []int64{3, 5, 5}, nil, nil), rng(3, 6), realtime.ErrOffsetOrder},
		{"decreasing offset", appendRec(mem, []int64{4, 3}, nil, nil), rng(3, 5), realtime.ErrOffsetOrder},
		{"offset at range end", appendRec(mem, []int64{3, 4, 5}, nil, nil), rng(3, 5), realtime.ErrOffsetOrder},
		{"offset below range", appendRec(mem, []int64{3, 4}, nil, nil), rng(4, 6), realtime.ErrOffsetOrder},
		{"other schema", otherSchema(), rng(3, 4), realtime.ErrSchemaMismatch},
		{"no rows", appendRec(mem, nil, nil, nil), rng(3, 4), ErrInvalidBatch},
		{"nil record", nil, rng(3, 4), ErrInvalidBatch},
	}
	for _, c := range cases {
		var err error
		if c.rec == nil {
			err = s.Write(bg, realtime.Batch{Range: c.r})
		} else {
			err = writeErr(s, c.rec, c.r)
		}
		if err == nil {
			t.Fatalf("%s: accepted", c.name)
		}
		mustIs(t, err, c.want)
		if u := s.Usage(); u != before {
			t.Fatalf("%s: rejected batch changed usage %+v -> %+v", c.name, before, u)
		}
	}
	// Gaps are legal; the next batch must begin at the previous range end.
	write(t, s, appendRec(mem, []int64{10, 15, 19}, nil, nil), rng(10, 20))
	mustIs(t, writeErr(s, appendRec(mem, []int64{19}, nil, nil), rng(19, 20)), realtime.ErrOffsetOrder)
	write(t, s, appendRec(mem, []int64{20}, nil, nil), rng(20, 21))
	ctx, cancel := context.WithCancel(bg)
	cancel()
	rec := appendRec(mem, []int64{21}, nil, nil)
	mustIs(t, s.Write(ctx, realtime.Batch{Record: rec, Range: rng(21, 22)}), context.Canceled)
	rec.Release()

	if u := s.Usage(); u.BuildingRows != 7 || u.SealedRows != 0 || u.SealedBytes != 0 {
		t.Fatalf("usage %+v", u)
	}
	v, err := s.AcquireReadView(bg)
	if err != nil {
		t.Fatal(err)
	}
	defer v.Release()
	if r, ok := v.Range(); !ok || r != rng(0, 21) {
		t.Fatalf("view range %s %v", r, ok)
	}
	got := drain(t, query(t, s, v, realtime.Query{Columns: []string{realtime.OffsetColumn}, BatchSize: 100}), realtime.OffsetColumn)
	if want := [][]int64{{0, 1, 2}, {10, 15, 19}, {20}}; !reflect.DeepEqual(got, want) {
		t.Fatalf("offsets %v, want %v", got, want)
	}
}

// pkRec builds a pkSchema record.
func pkRec(mem memory.Allocator, kinds []int8, seqs, offs, ids []int64, payloads []string) arrow.RecordBatch {
	b := array.NewRecordBuilder(mem, pkSchema())
	defer b.Release()
	b.Field(0).(*array.Int8Builder).AppendValues(kinds, nil)
	b.Field(1).(*array.Int64Builder).AppendValues(seqs, nil)
	b.Field(2).(*array.Int64Builder).AppendValues(offs, nil)
	b.Field(3).(*array.Int64Builder).AppendValues(ids, nil)
	b.Field(4).(*array.StringBuilder).AppendValues(payloads, nil)
	return b.NewRecordBatch()
}

func TestWriteValidationPrimaryKey(t *testing.T) {
	mem := memory.NewCheckedAllocator(memory.NewGoAllocator())
	defer mem.AssertSize(t, 0)
	s := newPKStore(t, realtime.StatsNone)
	defer s.Close()
	// Sorted by key, so offsets are not monotonic: accepted.
	write(t, s, pkRec(mem, []int8{0, 0, 0}, []int64{10, 11, 12}, []int64{2, 0, 1}, []int64{1, 2, 5}, []string{"a", "b", "c"}), rng(0, 3))
	mustIs(t, writeErr(s, pkRec(mem, []int8{0, 0}, []int64{13, 14}, []int64{4, 2}, []int64{1, 2}, []string{"a", "b"}), rng(2, 5)), realtime.ErrOffsetOrder)
	mustIs(t, writeErr(s, pkRec(mem, []int8{0, 0}, []int64{13, 14}, []int64{4, 5}, []int64{1, 2}, []string{"a", "b"}), rng(3, 5)), realtime.ErrOffsetOrder)
	nullKind := func() arrow.RecordBatch {
		b := array.NewRecordBuilder(mem, pkSchema())
		defer b.Release()
		b.Field(0).(*array.Int8Builder).AppendValues([]int8{0, 0}, []bool{true, false})
		b.Field(1).(*array.Int64Builder).AppendValues([]int64{13, 14}, nil)
		b.Field(2).(*array.Int64Builder).AppendValues([]int64{4, 3}, nil)
		b.Field(3).(*array.Int64Builder).AppendValues([]int64{1, 2}, nil)
		b.Field(4).(*array.StringBuilder).AppendValues([]string{"a", "b"}, nil)
		return b.NewRecordBatch()
	}
	mustIs(t, writeErr(s, nullKind(), rng(3, 5)), ErrInvalidBatch)
	mustIs(t, writeErr(s, appendRec(mem, []int64{3}, nil, nil), rng(3, 4)), realtime.ErrSchemaMismatch)
	if u := s.Usage(); u.BuildingRows != 3 {
		t.Fatalf("usage %+v", u)
	}
}

func TestSealForCommit(t *testing.T) {
	mem := memory.NewCheckedAllocator(memory.NewGoAllocator())
	defer mem.AssertSize(t, 0)
	s := newAppendStore(t, realtime.StatsNone)
	defer s.Close()
	if g, err := s.SealForCommit(bg); err != nil || g != nil {
		t.Fatalf("seal of empty store: %v %v", g, err)
	}
	write(t, s, appendRec(mem, span(0, 3), nil, nil), rng(0, 3))
	write(t, s, appendRec(mem, span(3, 6), nil, nil), rng(3, 6))
	g1, err := s.SealForCommit(bg)
	if err != nil || g1 == nil {
		t.Fatal(g1, err)
	}
	if g1.Range() != rng(0, 6) || g1.RowCount() != 6 {
		t.Fatalf("segment %s rows %d", g1.Range(), g1.RowCount())
	}
	if u := s.Usage(); u.BuildingRows != 0 || u.BuildingBytes != 0 || u.SealedRows != 6 || u.SealedBytes == 0 {
		t.Fatalf("usage after seal %+v", u)
	}
	if g, err := s.SealForCommit(bg); err != nil || g != nil {
		t.Fatalf("second seal: %v %v", g, err)
	}
	write(t, s, appendRec(mem, []int64{6, 8}, nil, nil), rng(6, 9))
	g2, err := s.SealForCommit(bg)
	if err != nil || g2.Range() != rng(6, 9) || g2.RowCount() != 2 {
		t.Fatalf("segment 2: %v %v", g2, err)
	}
	if u := s.Usage(); u.SealedRows != 8 || u.BuildingRows != 0 {
		t.Fatalf("usage %+v", u)
	}
	rs, err := s.CommitReaders(bg, g1)
	if err != nil || len(rs) != 1 {
		t.Fatalf("commit readers %d %v", len(rs), err)
	}
	for range 2 { // a reader may be iterated again
		if got, want := drain(t, rs, realtime.OffsetColumn), [][]int64{{0, 1, 2}, {3, 4, 5}}; !reflect.DeepEqual(got, want) {
			t.Fatalf("commit rows %v, want %v", got, want)
		}
	}
	// Commit readers yield all transport columns.
	for rec, err := range rs[0] {
		if err != nil {
			t.Fatal(err)
		}
		if !rec.Schema().Equal(appendSchema()) {
			t.Fatalf("commit schema %s", rec.Schema())
		}
		rec.Release()
		break
	}
	if got := drain(t, mustCommit(t, s, g2), "id"); !reflect.DeepEqual(got, [][]int64{{6, 8}}) {
		t.Fatalf("segment 2 rows %v", got)
	}
}

func mustCommit(t testing.TB, s realtime.Store, g realtime.Segment) []iter2 {
	t.Helper()
	rs, err := s.CommitReaders(bg, g)
	if err != nil {
		t.Fatal(err)
	}
	return rs
}

func TestCommitReaderPreservesSlicedBatch(t *testing.T) {
	s := newAppendStore(t, realtime.StatsNone)
	defer s.Close()
	full := rawRec(span(10, 16), span(100, 106), []string{"p0", "p1", "p2", "p3", "p4", "p5"})
	write(t, s, full.NewSlice(2, 5), rng(12, 15))
	full.Release()
	// The slice shares its parent's buffers; Usage charges them whole:
	// ids 6*8 + string offsets 7*4 + string data 12 = 88. The offsets
	// 12, 13, 14 are packed into no bytes (base 12, one per row).
	if u, want := s.Usage(), (realtime.Usage{BuildingBytes: 88, BuildingRows: 3}); u != want {
		t.Fatalf("usage %+v, want %+v", u, want)
	}
	g, err := s.SealForCommit(bg)
	if err != nil {
		t.Fatal(err)
	}
	var payloads []string
	var ids [][]int64
	for rec, err := range mustCommit(t, s, g)[0] {
		if err != nil {
			t.Fatal(err)
		}
		ids = append(ids, int64Col(t, rec, "id"), int64Col(t, rec, realtime.OffsetColumn))
		for i := range int(rec.NumRows()) {
			payloads = append(payloads, rec.Column(2).(*array.String).Value(i))
		}
		rec.Release()
	}
	if want := [][]int64{{102, 103, 104}, {12, 13, 14}}; !reflect.DeepEqual(ids, want) {
		t.Fatalf("ids, offsets %v, want %v", ids, want)
	}
	if want := []string{"p2", "p3", "p4"}; !reflect.DeepEqual(payloads, want) {
		t.Fatalf("payloads %v", payloads)
	}
}

// rawRec builds an appendSchema record straight from Go slices (no validity
// buffers), so its buffer lengths are known exactly: 8 bytes per offset and
// id, 4 per string offset (rows + 1) plus the string bytes.
func rawRec(offs, ids []int64, payloads []string) arrow.RecordBatch {
	cols := []arrow.Array{rawInt64s(offs), rawInt64s(ids), rawStrings(payloads)}
	defer func() {
		for _, c := range cols {
			c.Release()
		}
	}()
	return array.NewRecordBatch(appendSchema(), cols, int64(len(offs)))
}

// rawInt64s is an Int64 array on v's memory: one buffer of 8 bytes a value.
func rawInt64s(v []int64) arrow.Array {
	d := array.NewData(arrow.PrimitiveTypes.Int64, len(v),
		[]*memory.Buffer{nil, memory.NewBufferBytes(arrow.Int64Traits.CastToBytes(v))}, nil, 0, 0)
	defer d.Release()
	return array.NewInt64Data(d)
}

// rawStrings is a String array of exactly 4 bytes per offset (values + 1)
// and the values' bytes.
func rawStrings(values []string) arrow.Array {
	so := make([]int32, len(values)+1)
	var data []byte
	for i, p := range values {
		data = append(data, p...)
		so[i+1] = int32(len(data))
	}
	d := array.NewData(arrow.BinaryTypes.String, len(values), []*memory.Buffer{nil,
		memory.NewBufferBytes(arrow.Int32Traits.CastToBytes(so)), memory.NewBufferBytes(data)}, nil, 0, 0)
	defer d.Release()
	return array.NewStringData(d)
}

func TestReclaimUsage(t *testing.T) {
	s := newAppendStore(t, realtime.StatsFull)
	defer s.Close()
	abc := []string{"a", "bb", "ccc"}
	// Each 3-row batch: 24 (ids) + 16 (string offsets) + 6 (string data)
	// = 46 bytes; its consecutive offsets are packed into none.
	write(t, s, rawRec(span(0, 3), span(0, 3), abc), rng(0, 3))
	g1, _ := s.SealForCommit(bg)
	write(t, s, rawRec(span(3, 6), span(3, 6), abc), rng(3, 6))
	if _, err := s.SealForCommit(bg); err != nil {
		t.Fatal(err)
	}
	write(t, s, rawRec(span(6, 9), span(6, 9), abc), rng(6, 9))
	check := func(step string, want realtime.Usage) {
		t.Helper()
		if u := s.Usage(); u != want {
			t.Fatalf("%s: usage %+v, want %+v", step, u, want)
		}
	}
	check("written", realtime.Usage{BuildingBytes: 46, SealedBytes: 92, BuildingRows: 3, SealedRows: 6})
	for _, end := range []int64{0, 2} {
		if err := s.AdvanceCommittedOffset(bg, end); err != nil {
			t.Fatal(err)
		}
		check("advance below first segment end", realtime.Usage{BuildingBytes: 46, SealedBytes: 92, BuildingRows: 3, SealedRows: 6})
	}
	for _, end := range []int64{3, 3, 1} {
		if err := s.AdvanceCommittedOffset(bg, end); err != nil {
			t.Fatal(err)
		}
		check("advance to 3", realtime.Usage{BuildingBytes: 46, SealedBytes: 46, BuildingRows: 3, SealedRows: 3})
	}
	_, err := s.CommitReaders(bg, g1)
	mustIs(t, err, ErrReclaimed)
	if err := s.AdvanceCommittedOffset(bg, 8); err != nil {
		t.Fatal(err)
	}
	check("advance to 8", realtime.Usage{BuildingBytes: 46, SealedBytes: 0, BuildingRows: 3, SealedRows: 0})
	if err := s.AdvanceCommittedOffset(bg, 9); err != nil {
		t.Fatal(err)
	}
	check("advance to 9 drops the covered building batch", realtime.Usage{})
	mustIs(t, writeErr(s, rawRec([]int64{8}, []int64{8}, []string{"x"}), rng(8, 9)), realtime.ErrOffsetOrder)
	write(t, s, rawRec(span(9, 12), span(9, 12), abc), rng(9, 12))
	check("write after reclaim", realtime.Usage{BuildingBytes: 46, BuildingRows: 3})
}

func TestPinnedViewSurvivesReclaimAndClose(t *testing.T) {
	mem := memory.NewCheckedAllocator(memory.NewGoAllocator())
	defer mem.AssertSize(t, 0)
	s := newAppendStore(t, realtime.StatsNone)
	write(t, s, appendRec(mem, span(0, 3), nil, nil), rng(0, 3))
	write(t, s, appendRec(mem, span(3, 6), nil, nil), rng(3, 6))
	g, _ := s.SealForCommit(bg)
	write(t, s, appendRec(mem, span(6, 9), nil, nil), rng(6, 9))
	v, err := s.AcquireReadView(bg)
	if err != nil {
		t.Fatal(err)
	}
	before := query(t, s, v, realtime.Query{Columns: []string{"payload", realtime.OffsetColumn}, BatchSize: 4})
	if err := s.AdvanceCommittedOffset(bg, 9); err != nil {
		t.Fatal(err)
	}
	if u := s.Usage(); u != (realtime.Usage{}) {
		t.Fatalf("usage after reclaim %+v", u)
	}
	if err := s.Close(); err != nil {
		t.Fatal(err)
	}
	if err := s.Close(); err != nil {
		t.Fatal(err)
	}
	_, err = s.CommitReaders(bg, g)
	mustIs(t, err, ErrReclaimed)
	mustIs(t, writeErr(s, appendRec(mem, span(9, 10), nil, nil), rng(9, 10)), realtime.ErrClosed)
	_, err = s.SealForCommit(bg)
	mustIs(t, err, realtime.ErrClosed)
	_, err = s.AcquireReadView(bg)
	mustIs(t, err, realtime.ErrClosed)
	if err := s.AdvanceCommittedOffset(bg, 20); err != nil {
		t.Fatal(err)
	}

	if n := v.RowCount(rng(0, 9)); n != 9 {
		t.Fatalf("row count %d", n)
	}
	after := query(t, s, v, realtime.Query{Columns: []string{realtime.OffsetColumn}, BatchSize: 100})
	var payloads []string
	var offsets [][]int64
	for rec, err := range before[0] {
		if err != nil {
			t.Fatal(err)
		}
		if rec.Schema().Field(0).Name != "payload" || rec.NumCols() != 2 {
			t.Fatalf("projected schema %s", rec.Schema())
		}
		offsets = append(offsets, int64Col(t, rec, realtime.OffsetColumn))
		for i := range int(rec.NumRows()) {
			payloads = append(payloads, rec.Column(0).(*array.String).Value(i))
		}
		rec.Release()
	}
	if want := [][]int64{{0, 1, 2}, {3, 4, 5}, {6, 7, 8}}; !reflect.DeepEqual(offsets, want) {
		t.Fatalf("offsets %v", offsets)
	}
	if want := []string{"value-0", "value-1", "value-2", "value-3", "value-4", "value-5", "value-6", "value-7", "value-8"}; !reflect.DeepEqual(payloads, want) {
		t.Fatalf("payloads %v", payloads)
	}
	// A reader that is running keeps its batches when the view is released.
	n := 0
	for rec, err := range after[0] {
		if err != nil {
			t.Fatal(err)
		}
		if n == 0 {
			v.Release()
			v.Release()
		}
		n += int(rec.NumRows())
		if got := int64Col(t, rec, realtime.OffsetColumn); got[0] != int64(n-3) {
			t.Fatalf("offsets after release %v", got)
		}
		rec.Release()
	}
	if n != 9 {
		t.Fatalf("rows read across release: %d", n)
	}
	if n := v.RowCount(rng(0, 9)); n != 0 {
		t.Fatalf("row count of released view %d", n)
	}
	// A reader started after the release fails.
	for _, err := range before[0] {
		mustIs(t, err, ErrReleased)
	}
	_, err = s.QueryReaders(bg, v, realtime.Query{Columns: []string{realtime.OffsetColumn}, BatchSize: 1})
	mustIs(t, err, ErrReleased)
}

func TestQueryVisibleClipping(t *testing.T) {
	s := newAppendStore(t, realtime.StatsNone)
	defer s.Close()
	mem := memory.NewGoAllocator()
	for b := int64(0); b < 9; b += 3 {
		write(t, s, appendRec(mem, span(b, b+3), nil, nil), rng(b, b+3))
	}
	v, _ := s.AcquireReadView(bg)
	defer v.Release()
	cases := []struct {
		visible   progress.Range
		batchSize int
		want      [][]int64
	}{
		{rng(2, 7), 10, [][]int64{{2}, {3, 4, 5}, {6}}},
		{rng(2, 7), 2, [][]int64{{2}, {3, 4}, {5}, {6}}},
		{rng(3, 6), 10, [][]int64{{3, 4, 5}}},
		{rng(0, 0), 4, [][]int64{{0, 1, 2}, {3, 4, 5}, {6, 7, 8}}},
		{rng(0, 9), 1, [][]int64{{0}, {1}, {2}, {3}, {4}, {5}, {6}, {7}, {8}}},
		{rng(8, 100), 10, [][]int64{{8}}},
		{rng(9, 12), 10, nil},
	}
	for _, c := range cases {
		rs := query(t, s, v, realtime.Query{Columns: []string{"id", realtime.OffsetColumn}, Visible: c.visible, BatchSize: c.batchSize})
		if c.want == nil && len(rs) != 0 {
			t.Fatalf("visible %s: %d readers", c.visible, len(rs))
		}
		if c.want != nil && len(rs) != 1 {
			t.Fatalf("visible %s: %d readers, want 1", c.visible, len(rs))
		}
		if got := drain(t, rs, "id"); !reflect.DeepEqual(got, c.want) {
			t.Fatalf("visible %s batch %d: %v, want %v", c.visible, c.batchSize, got, c.want)
		}
	}
}

func TestQueryErrorsAndForeignHandles(t *testing.T) {
	mem := memory.NewGoAllocator()
	s1 := newAppendStore(t, realtime.StatsNone)
	s2 := newAppendStore(t, realtime.StatsNone)
	write(t, s2, appendRec(mem, span(0, 2), nil, nil), rng(0, 2))
	g2, _ := s2.SealForCommit(bg)
	v2, _ := s2.AcquireReadView(bg)
	defer v2.Release()
	v1, _ := s1.AcquireReadView(bg)
	defer v1.Release()
	if _, ok := v1.Range(); ok {
		t.Fatal("empty view has a range")
	}
	if n := v1.RowCount(rng(0, 100)); n != 0 {
		t.Fatalf("empty view rows %d", n)
	}
	_, err := s1.CommitReaders(bg, g2)
	mustIs(t, err, realtime.ErrForeignHandle)
	_, err = s1.CommitReaders(bg, nil)
	mustIs(t, err, realtime.ErrForeignHandle)
	_, err = s1.QueryReaders(bg, v2, realtime.Query{Columns: []string{"id"}, BatchSize: 1})
	mustIs(t, err, realtime.ErrForeignHandle)
	_, err = s2.QueryReaders(bg, v2, realtime.Query{Columns: []string{"id", "nope"}, BatchSize: 1})
	mustIs(t, err, realtime.ErrSchemaMismatch)
	_, err = s2.QueryReaders(bg, v2, realtime.Query{Columns: []string{"id"}})
	mustIs(t, err, ErrInvalidQuery)
	if rs := query(t, s1, v1, realtime.Query{Columns: []string{"id"}, BatchSize: 1}); len(rs) != 0 {
		t.Fatalf("empty view: %d readers", len(rs))
	}
	// A canceled context stops a reader with the context's error.
	ctx, cancel := context.WithCancel(bg)
	rs, err := s2.QueryReaders(ctx, v2, realtime.Query{Columns: []string{"id"}, BatchSize: 1})
	if err != nil {
		t.Fatal(err)
	}
	cancel()
	for rec, err := range rs[0] {
		if rec != nil {
			rec.Release()
		}
		mustIs(t, err, context.Canceled)
	}
}

func TestRowCountSparse(t *testing.T) {
	mem := memory.NewGoAllocator()
	ap := newAppendStore(t, realtime.StatsNone)
	write(t, ap, appendRec(mem, []int64{0, 4, 9}, nil, nil), rng(0, 10))
	write(t, ap, appendRec(mem, []int64{20, 21, 29}, nil, nil), rng(20, 30))
	pk := newPKStore(t, realtime.StatsNone)
	write(t, pk, pkRec(mem, []int8{0, 0, 0}, []int64{1, 2, 3}, []int64{9, 0, 4}, []int64{1, 2, 3}, []string{"a", "b", "c"}), rng(0, 10))
	write(t, pk, pkRec(mem, []int8{0, 0, 0}, []int64{4, 5, 6}, []int64{29, 21, 20}, []int64{1, 2, 3}, []string{"a", "b", "c"}), rng(20, 30))
	cases := []struct {
		r    progress.Range
		want int64
	}{
		{rng(0, 10), 3}, {rng(4, 21), 3}, {rng(5, 20), 1}, {rng(10, 20), 0}, {rng(0, 100), 6},
		{rng(29, 30), 1}, {rng(30, 40), 0}, {rng(5, 5), 0}, {rng(-5, 1), 1}, {rng(1, 4), 0}, {rng(21, 29), 1},
	}
	for _, s := range []realtime.Store{ap, pk} {
		v, _ := s.AcquireReadView(bg)
		if r, ok := v.Range(); !ok || r != rng(0, 30) {
			t.Fatalf("view range %s", r)
		}
		for _, c := range cases {
			if n := v.RowCount(c.r); n != c.want {
				t.Errorf("RowCount(%s) = %d, want %d", c.r, n, c.want)
			}
		}
		v.Release()
	}
}

func TestPrimaryKeyReaders(t *testing.T) {
	mem := memory.NewCheckedAllocator(memory.NewGoAllocator())
	defer mem.AssertSize(t, 0)
	s := newPKStore(t, realtime.StatsFull)
	defer s.Close()
	write(t, s, pkRec(mem, []int8{0, 0, 0}, []int64{10, 11, 12}, []int64{2, 0, 1}, []int64{1, 2, 5}, []string{"a", "b", "c"}), rng(0, 3))
	write(t, s, pkRec(mem, []int8{2, 3}, []int64{13, 14}, []int64{4, 3}, []int64{1, 3}, []string{"d", "e"}), rng(3, 5))
	g, err := s.SealForCommit(bg)
	if err != nil {
		t.Fatal(err)
	}
	rs := mustCommit(t, s, g)
	if len(rs) != 2 {
		t.Fatalf("%d commit readers, want 2", len(rs))
	}
	if got := drain(t, rs, "id"); !reflect.DeepEqual(got, [][]int64{{1, 2, 5}, {1, 3}}) {
		t.Fatalf("commit ids %v", got)
	}
	if got := drain(t, rs[1:], realtime.SequenceColumn); !reflect.DeepEqual(got, [][]int64{{13, 14}}) {
		t.Fatalf("commit sequences %v", got)
	}
	write(t, s, pkRec(mem, []int8{0}, []int64{15}, []int64{7}, []int64{9}, []string{"f"}), rng(5, 8))
	v, _ := s.AcquireReadView(bg)
	defer v.Release()
	cols := []string{realtime.KindColumn, realtime.SequenceColumn, "id", realtime.OffsetColumn}
	perReader := func(q realtime.Query) [][][]int64 {
		t.Helper()
		q.Columns = cols
		var out [][][]int64
		for _, r := range query(t, s, v, q) {
			out = append(out, drain(t, []iter2{r}, "id"))
		}
		return out
	}
	cases := []struct {
		name string
		q    realtime.Query
		want [][][]int64
	}{
		{"all, batch 2", realtime.Query{BatchSize: 2}, [][][]int64{{{1, 2}, {5}}, {{1, 3}}, {{9}}}},
		// Offsets: ids 1, 2, 5 of the first batch at 2, 0, 1; ids 1, 3 of the
		// second at 4, 3; id 9 at 7.
		{"visible cuts batches to their runs of visible rows", realtime.Query{BatchSize: 10, Visible: rng(1, 4)}, [][][]int64{{{1}, {5}}, {{3}}}},
		{"visible holds whole batches", realtime.Query{BatchSize: 10, Visible: rng(0, 5)}, [][][]int64{{{1, 2, 5}}, {{1, 3}}}},
		{"visible second batch", realtime.Query{BatchSize: 10, Visible: rng(3, 5)}, [][][]int64{{{1, 3}}}},
		{"key id >= 4", realtime.Query{BatchSize: 10, Filter: predicateID(4, ">=")}, [][][]int64{{{1, 2, 5}}, {{9}}}},
		{"key id = 3", realtime.Query{BatchSize: 10, Filter: predicateID(3, "=")}, [][][]int64{{{1, 2, 5}}, {{1, 3}}}},
		{"key id > 9", realtime.Query{BatchSize: 10, Filter: predicateID(9, ">")}, nil},
	}
	for _, c := range cases {
		if got := perReader(c.q); !reflect.DeepEqual(got, c.want) {
			t.Fatalf("%s: %v, want %v", c.name, got, c.want)
		}
	}
	if n := v.RowCount(rng(1, 4)); n != 3 {
		t.Fatalf("row count %d", n)
	}
}

func TestWriteCompactsSlack(t *testing.T) {
	payloads := make([]string, 2000)
	for i := range payloads {
		payloads[i] = "x"
	}
	full := rawRec(span(0, 2000), span(5000, 7000), payloads)
	defer full.Release()
	slice := full.NewSlice(100, 110)
	defer slice.Release()
	compact := newAppendStore(t, realtime.StatsFull)
	if err := compact.Write(bg, realtime.Batch{Record: slice, Range: rng(100, 110)}); err != nil {
		t.Fatal(err)
	}
	retain, err := Factory{CompactRatio: -1}.Create(realtime.CreateRequest{Schema: appendSchema()})
	if err != nil {
		t.Fatal(err)
	}
	defer retain.Close()
	if err := retain.Write(bg, realtime.Batch{Record: slice, Range: rng(100, 110)}); err != nil {
		t.Fatal(err)
	}
	// Copied: 10 ids (80 bytes), 11 string offsets (44) and 10 string
	// bytes. Retained: the parent's 2000 rows, 16000 + 8004 + 2000 bytes.
	// The consecutive offsets are packed into no bytes either way.
	if u, want := compact.Usage(), (realtime.Usage{BuildingBytes: 134, BuildingRows: 10}); u != want {
		t.Fatalf("compacted usage %+v, want %+v", u, want)
	}
	if u, want := retain.Usage(), (realtime.Usage{BuildingBytes: 26004, BuildingRows: 10}); u != want {
		t.Fatalf("retained usage %+v, want %+v", u, want)
	}
	if !keptAsWritten(retain.(*store).building[0], slice) {
		t.Fatal("CompactRatio -1 copied the batch")
	}
	if keptAsWritten(compact.(*store).building[0], slice) {
		t.Fatal("the slack batch was not copied")
	}
	if got := compact.(*store).building[0].stats.max[1]; got != int64(5109) {
		t.Fatalf("max id of the copy %v", got)
	}
	for _, s := range []realtime.Store{compact, retain} {
		g, err := s.SealForCommit(bg)
		if err != nil {
			t.Fatal(err)
		}
		got := drain(t, mustCommit(t, s, g), "id")
		if want := [][]int64{span(5100, 5110)}; !reflect.DeepEqual(got, want) {
			t.Fatalf("ids %v, want %v", got, want)
		}
	}
	// A compact batch is retained as written.
	exact := rawRec(span(0, 3), span(0, 3), []string{"a", "bb", "ccc"})
	defer exact.Release()
	s := newAppendStore(t, realtime.StatsNone)
	if err := s.Write(bg, realtime.Batch{Record: exact, Range: rng(0, 3)}); err != nil {
		t.Fatal(err)
	}
	if !keptAsWritten(s.(*store).building[0], exact) {
		t.Fatal("a compact batch was copied")
	}
}

// keptAsWritten reports whether every column e keeps (the columns not
// packed) is rec's column itself, not a copy.
func keptAsWritten(e *entry, rec arrow.RecordBatch) bool {
	for c, k := range e.cols {
		if k >= 0 && e.rec.Column(k) != rec.Column(c) {
			return false
		}
	}
	return true
}

// TestPrimaryKeyKeysReader checks Query.Keys: one reader yielding the rows
// of the looked-up keys from every stored batch, key by key and within a
// key in write order (so by sequence number), gathered into one batch,
// without rows outside Visible, and malformed keys refused.
func TestPrimaryKeyKeysReader(t *testing.T) {
	mem := memory.NewCheckedAllocator(memory.NewGoAllocator())
	defer mem.AssertSize(t, 0)
	s := newPKStore(t, realtime.StatsFull)
	defer s.Close()
	// ids 1, 1, 2, 5 at offsets 2, 3, 0, 1; ids 1, 3, 5 at 4, 5, 6; id 1 at 7.
	write(t, s, pkRec(mem, []int8{0, 0, 0, 0}, []int64{10, 11, 12, 13}, []int64{2, 3, 0, 1}, []int64{1, 1, 2, 5}, []string{"a", "b", "c", "d"}), rng(0, 4))
	write(t, s, pkRec(mem, []int8{2, 0, 3}, []int64{14, 15, 16}, []int64{4, 5, 6}, []int64{1, 3, 5}, []string{"e", "f", "g"}), rng(4, 7))
	write(t, s, pkRec(mem, []int8{0}, []int64{17}, []int64{7}, []int64{1}, []string{"h"}), rng(7, 8))
	v, _ := s.AcquireReadView(bg)
	defer v.Release()
	keys := func(ids ...int64) *realtime.QueryKeys {
		k := &realtime.QueryKeys{Columns: []int{3}, Types: []types.DataType{types.BigInt()}}
		for _, id := range ids {
			k.Values = append(k.Values, []any{id})
		}
		return k
	}
	cols := []string{realtime.SequenceColumn, "id", "payload", realtime.OffsetColumn}
	cases := []struct {
		name    string
		q       realtime.Query
		seqs    [][]int64
		payload []string
	}{
		{"one key in every batch", realtime.Query{BatchSize: 10, Keys: keys(1)}, [][]int64{{10, 11, 14, 17}}, []string{"a", "b", "e", "h"}},
		{"keys in key order, batch 2", realtime.Query{BatchSize: 2, Keys: keys(1, 5)}, [][]int64{{10, 11}, {14, 17}, {13, 16}}, []string{"a", "b", "e", "h", "d", "g"}},
		{"missing key", realtime.Query{BatchSize: 10, Keys: keys(4)}, nil, nil},
		{"visible cuts", realtime.Query{BatchSize: 10, Keys: keys(1, 5), Visible: rng(3, 7)}, [][]int64{{11, 14, 16}}, []string{"b", "e", "g"}},
	}
	for _, c := range cases {
		c.q.Columns = cols
		rs := query(t, s, v, c.q)
		if len(rs) != 1 {
			t.Fatalf("%s: %d readers, want 1", c.name, len(rs))
		}
		var seqs [][]int64
		var payload []string
		for rec, err := range rs[0] {
			if err != nil {
				t.Fatal(err)
			}
			seqs = append(seqs, int64Col(t, rec, realtime.SequenceColumn))
			p := rec.Column(2).(*array.String)
			for i := range p.Len() {
				payload = append(payload, p.Value(i))
			}
			rec.Release()
		}
		if !reflect.DeepEqual(seqs, c.seqs) || !reflect.DeepEqual(payload, c.payload) {
			t.Fatalf("%s: sequences %v payloads %v, want %v %v", c.name, seqs, payload, c.seqs, c.payload)
		}
	}
	for _, bad := range []*realtime.QueryKeys{
		{Columns: []int{3}, Types: nil, Values: [][]any{{int64(1)}}},
		{Columns: []int{9}, Types: []types.DataType{types.BigInt()}, Values: [][]any{{int64(1)}}},
		{Columns: []int{3}, Types: []types.DataType{types.BigInt()}, Values: [][]any{{int64(1), int64(2)}}},
	} {
		_, err := s.QueryReaders(bg, v, realtime.Query{Columns: cols, BatchSize: 10, Keys: bad})
		mustIs(t, err, ErrInvalidQuery)
	}
}
