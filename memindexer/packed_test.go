package memindexer

import (
	"math"
	"reflect"
	"testing"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"
	"github.com/apache/arrow-go/v18/arrow/memory"

	"github.com/paimon-go/paimon/realtime"
	"github.com/paimon-go/paimon/types"
)

func TestPack(t *testing.T) {
	cases := []struct {
		name string
		v    []int64
		ok   bool
		size int64 // bytes of deltas
		kind string
	}{
		{"empty", nil, true, 0, "step"},
		{"step", []int64{5, 6, 7, 8}, true, 0, "step"},
		{"one", []int64{-3}, true, 0, "step"},
		{"permutation", []int64{7, 5, 8, 6}, true, 8, "u16"},
		{"descending", []int64{3, 2, 1}, true, 6, "u16"},
		{"gaps", []int64{10, 20, 30}, true, 6, "u16"},
		{"span 65535", []int64{0, 65535}, true, 4, "u16"},
		{"span 65536", []int64{65536, 0}, true, 8, "u32"},
		{"negative span 2^32-1", []int64{-1 << 31, 1<<32 - 1 - 1<<31}, true, 8, "u32"},
		{"span 2^32", []int64{0, 1 << 32}, false, 0, ""},
		{"extremes", []int64{math.MinInt64, math.MaxInt64}, false, 0, ""},
		{"extremes reversed", []int64{math.MaxInt64, math.MinInt64}, false, 0, ""},
	}
	for _, c := range cases {
		p, ok := pack(c.v)
		if ok != c.ok {
			t.Fatalf("%s: ok %v, want %v", c.name, ok, c.ok)
		}
		if !ok {
			continue
		}
		kind := "step"
		switch {
		case p.u16 != nil:
			kind = "u16"
		case p.u32 != nil:
			kind = "u32"
		}
		if kind != c.kind || p.size() != c.size {
			t.Errorf("%s: packed as %s in %d bytes, want %s in %d", c.name, kind, p.size(), c.kind, c.size)
		}
		for i, x := range c.v {
			if got := p.at(i); got != x {
				t.Errorf("%s: value %d is %d, want %d", c.name, i, got, x)
			}
		}
	}
}

// pkRaw builds a pkSchema record straight from Go slices (no validity
// buffers), so its buffer lengths are exact: 1 byte per kind, 8 per
// sequence number, offset and id, 4 per string offset (rows + 1) plus the
// string bytes.
func pkRaw(kinds []int8, seqs, offs, ids []int64, payloads []string) arrow.RecordBatch {
	kd := array.NewData(arrow.PrimitiveTypes.Int8, len(kinds),
		[]*memory.Buffer{nil, memory.NewBufferBytes(arrow.Int8Traits.CastToBytes(kinds))}, nil, 0, 0)
	defer kd.Release()
	cols := []arrow.Array{array.NewInt8Data(kd), rawInt64s(seqs), rawInt64s(offs), rawInt64s(ids), rawStrings(payloads)}
	defer func() {
		for _, c := range cols {
			c.Release()
		}
	}()
	return array.NewRecordBatch(pkSchema(), cols, int64(len(offs)))
}

// TestPrimaryKeyPacking writes primary-key batches whose system columns
// pack in each way, checks the bytes Usage charges for each, and that every
// read (commit readers, queries projected and clipped, key lookups, row
// counts) returns the values written, allocating only what the readers'
// consumers release.
func TestPrimaryKeyPacking(t *testing.T) {
	mem := memory.NewCheckedAllocator(memory.NewGoAllocator())
	defer mem.AssertSize(t, 0)
	s, err := Factory{}.Create(realtime.CreateRequest{Schema: pkSchema(), Mode: realtime.PrimaryKey,
		KeyColumns: []int{3}, Allocator: mem})
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	type batch struct {
		name               string
		kinds              []int8
		seqs, offs, ids    []int64
		payloads           []string
		begin, end         int64
		bytes              int64 // Usage charged for the batch
		kindKept, seqDelta bool  // kind column kept; sequence numbers packed apart
	}
	// Every batch: ids 8 per row, string offsets 4 per row + 4, one byte of
	// payload per row.
	batches := []batch{
		// Sorted by id: offsets 0..3 permuted (2 bytes each), sequence
		// numbers = offset + 100 (the same deltas), all INSERT.
		{"all insert", []int8{0, 0, 0, 0}, []int64{102, 100, 103, 101}, []int64{2, 0, 3, 1}, []int64{1, 2, 3, 4},
			[]string{"a", "b", "c", "d"}, 0, 4, 4*8 + 5*4 + 4 + 4*2, false, false},
		// A delete (-D is 3): the kind column is kept, 1 byte per row.
		{"with a delete", []int8{0, 3, 0}, []int64{105, 106, 104}, []int64{5, 6, 4}, []int64{1, 2, 9},
			[]string{"e", "f", "g"}, 4, 7, 3*8 + 4*4 + 3 + 3 + 3*2, true, false},
		// Application offsets with gaps: sequence numbers do not follow
		// them, so both pack apart (2 bytes each per row).
		{"gaps", []int8{0, 0, 0}, []int64{108, 107, 109}, []int64{1000, 10, 70000}, []int64{1, 3, 5},
			[]string{"h", "i", "j"}, 7, 70001, 3*8 + 4*4 + 3 + 3*4 + 3*2, false, true},
		// Offsets spanning 2^32: kept whole (8 bytes per row); sequence
		// numbers consecutive (no bytes).
		{"wide offsets", []int8{0, 0}, []int64{110, 111}, []int64{1 << 40, 80000}, []int64{2, 4},
			[]string{"k", "l"}, 70001, 1<<40 + 1, 2*8 + 3*4 + 2 + 2*8, false, false},
	}
	var total int64
	for _, b := range batches {
		rec := pkRaw(b.kinds, b.seqs, b.offs, b.ids, b.payloads)
		before := s.Usage().BuildingBytes
		if err := s.Write(bg, realtime.Batch{Record: rec, Range: rng(b.begin, b.end)}); err != nil {
			t.Fatal(err)
		}
		rec.Release()
		got := s.Usage().BuildingBytes - before
		if got != b.bytes {
			t.Errorf("%s: usage grew by %d bytes, want %d", b.name, got, b.bytes)
		}
		total += b.bytes
		st := s.(*store)
		e := st.building[len(st.building)-1]
		if (e.cols[kindCol] >= 0) != b.kindKept {
			t.Errorf("%s: kind column kept %v, want %v", b.name, e.cols[kindCol] >= 0, b.kindKept)
		}
		if e.cols[seqCol] >= 0 {
			t.Errorf("%s: sequence numbers not packed", b.name)
		}
		if apart := e.seq.u16 != nil && (e.off.u16 == nil || &e.seq.u16[0] != &e.off.u16[0]); apart != b.seqDelta {
			t.Errorf("%s: sequence numbers packed apart %v, want %v", b.name, apart, b.seqDelta)
		}
	}
	if u := s.Usage(); u.BuildingBytes != total || u.BuildingRows != 12 {
		t.Fatalf("usage %+v, want %d bytes of 12 rows", u, total)
	}

	cols := func(rec arrow.RecordBatch) [][]int64 {
		out := [][]int64{int64Col(t, rec, realtime.SequenceColumn), int64Col(t, rec, realtime.OffsetColumn), int64Col(t, rec, "id")}
		k := rec.Column(rec.Schema().FieldIndices(realtime.KindColumn)[0]).(*array.Int8)
		kinds := make([]int64, k.Len())
		for i := range kinds {
			kinds[i] = int64(k.Value(i))
		}
		return append(out, kinds)
	}
	// readCols reads every reader in order: per batch, its sequence
	// numbers, offsets, ids and kinds (checking the schema of whole
	// transport batches).
	readCols := func(rs []iter2) [][][]int64 {
		t.Helper()
		var got [][][]int64
		for _, r := range rs {
			for rec, err := range r {
				if err != nil {
					t.Fatal(err)
				}
				if rec.NumCols() == int64(pkSchema().NumFields()) && !rec.Schema().Equal(pkSchema()) {
					t.Fatalf("schema %s", rec.Schema())
				}
				got = append(got, cols(rec))
				rec.Release()
			}
		}
		return got
	}
	want := func(bs ...batch) [][]int64 {
		var out [][]int64
		for i := range 4 {
			var v []int64
			for _, b := range bs {
				switch i {
				case 0:
					v = append(v, b.seqs...)
				case 1:
					v = append(v, b.offs...)
				case 2:
					v = append(v, b.ids...)
				default:
					for _, k := range b.kinds {
						v = append(v, int64(k))
					}
				}
			}
			out = append(out, v)
		}
		return out
	}

	// A query projecting the system columns in another order, every batch
	// whole.
	v, err := s.AcquireReadView(bg)
	if err != nil {
		t.Fatal(err)
	}
	q := realtime.Query{Columns: []string{"id", realtime.OffsetColumn, realtime.KindColumn, realtime.SequenceColumn}, BatchSize: 2}
	got := readCols(query(t, s, v, q))
	// In pieces of 2 rows.
	piece := func(b batch, lo, hi int) batch {
		b.kinds, b.seqs, b.offs, b.ids = b.kinds[lo:hi], b.seqs[lo:hi], b.offs[lo:hi], b.ids[lo:hi]
		return b
	}
	wantQ := [][][]int64{
		want(piece(batches[0], 0, 2)), want(piece(batches[0], 2, 4)),
		want(piece(batches[1], 0, 2)), want(piece(batches[1], 2, 3)),
		want(piece(batches[2], 0, 2)), want(piece(batches[2], 2, 3)),
		want(batches[3]),
	}
	if !reflect.DeepEqual(got, wantQ) {
		t.Fatalf("query\n got %v\nwant %v", got, wantQ)
	}
	// Visible [1, 5) clips batch 0 to its rows at offsets 2, 3, 1 (runs
	// [0, 1) and [2, 4)), batch 1 to offset 4, batch 2 to offset 10.
	q.Visible, q.BatchSize = rng(1, 20), 10
	got = readCols(query(t, s, v, q))
	wantQ = [][][]int64{
		want(piece(batches[0], 0, 1)), want(piece(batches[0], 2, 4)),
		want(batches[1]),
		want(piece(batches[2], 1, 2)),
	}
	if !reflect.DeepEqual(got, wantQ) {
		t.Fatalf("clipped query\n got %v\nwant %v", got, wantQ)
	}
	if n := v.RowCount(rng(1, 20)); n != 7 {
		t.Fatalf("row count %d, want 7", n)
	}
	// Keys 1 and 4: batch 0 row 0, batch 1 row 0, batch 2 row 0 (key 1),
	// batch 0 row 3, batch 3 row 1 (key 4).
	q = realtime.Query{Columns: q.Columns, BatchSize: 10, Keys: &realtime.QueryKeys{
		Columns: []int{3}, Types: []types.DataType{types.BigInt()}, Values: [][]any{{int64(1)}, {int64(4)}}}}
	got = readCols(query(t, s, v, q))
	wantQ = [][][]int64{want(piece(batches[0], 0, 1), piece(batches[1], 0, 1), piece(batches[2], 0, 1),
		piece(batches[0], 3, 4), piece(batches[3], 1, 2))}
	if !reflect.DeepEqual(got, wantQ) {
		t.Fatalf("keys\n got %v\nwant %v", got, wantQ)
	}
	v.Release()

	// Commit readers: one per batch, every transport column as written.
	g, err := s.SealForCommit(bg)
	if err != nil {
		t.Fatal(err)
	}
	got = readCols(mustCommit(t, s, g))
	wantQ = [][][]int64{want(batches[0]), want(batches[1]), want(batches[2]), want(batches[3])}
	if !reflect.DeepEqual(got, wantQ) {
		t.Fatalf("commit readers\n got %v\nwant %v", got, wantQ)
	}
}

// TestSharedZeros checks the kind column of INSERT-only batches: batches
// of 3 and then 3000 rows (beyond the first shared buffer of 1024 zeros)
// read back as zeros of their lengths, and the first keeps the buffer it
// was given when the store makes a larger one.
func TestSharedZeros(t *testing.T) {
	s := newPKStore(t, realtime.StatsNone)
	var offs, seqs, ids []int64
	var kinds []int8
	var payloads []string
	for i := range 3003 {
		offs, seqs, ids = append(offs, int64(i)), append(seqs, int64(i)), append(ids, int64(i))
		kinds, payloads = append(kinds, 0), append(payloads, "x")
	}
	write(t, s, pkRaw(kinds[:3], seqs[:3], offs[:3], ids[:3], payloads[:3]), rng(0, 3))
	write(t, s, pkRaw(kinds[3:], seqs[3:], offs[3:], ids[3:], payloads[3:]), rng(3, 3003))
	st := s.(*store)
	if z0, z1 := st.building[0].zeros, st.building[1].zeros; z0.Len() != 1024 || z1.Len() != 3000 {
		t.Fatalf("zeros of %d and %d bytes, want 1024 and 3000", z0.Len(), z1.Len())
	}
	g, err := s.SealForCommit(bg)
	if err != nil {
		t.Fatal(err)
	}
	var lens []int
	for _, r := range mustCommit(t, s, g) {
		for rec, err := range r {
			if err != nil {
				t.Fatal(err)
			}
			k := rec.Column(kindCol).(*array.Int8)
			for i := range k.Len() {
				if k.Value(i) != 0 {
					t.Fatalf("kind %d of row %d", k.Value(i), i)
				}
			}
			lens = append(lens, k.Len())
			rec.Release()
		}
	}
	if !reflect.DeepEqual(lens, []int{3, 3000}) {
		t.Fatalf("batches of %v rows", lens)
	}
}
