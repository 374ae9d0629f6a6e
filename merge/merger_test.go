package merge

import (
	"context"
	"errors"
	"fmt"
	"iter"
	"math/rand/v2"
	"slices"
	"sort"
	"testing"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"
	"github.com/apache/arrow-go/v18/arrow/memory"

	"github.com/paimon-go/paimon/types"
)

// kvSchema is _KEY_k int64, _SEQUENCE_NUMBER, _VALUE_KIND, k int64, v int64, s string.
var kvSchema = arrow.NewSchema([]arrow.Field{
	{Name: "_KEY_k", Type: arrow.PrimitiveTypes.Int64},
	{Name: SequenceNumberColumn, Type: arrow.PrimitiveTypes.Int64},
	{Name: ValueKindColumn, Type: arrow.PrimitiveTypes.Int8},
	{Name: "k", Type: arrow.PrimitiveTypes.Int64},
	{Name: "v", Type: arrow.PrimitiveTypes.Int64, Nullable: true},
	{Name: "s", Type: arrow.BinaryTypes.String, Nullable: true},
}, nil)

func kvFields() []types.DataField {
	return []types.DataField{
		{ID: 0, Name: "k", Type: types.DataType{Kind: types.KindBigInt}},
		{ID: 1, Name: "v", Type: types.DataType{Kind: types.KindBigInt, Nullable: true}},
		{ID: 2, Name: "s", Type: types.DataType{Kind: types.KindVarChar, Length: types.MaxLength, Nullable: true}},
	}
}

type kvRow struct {
	key, seq int64
	kind     int8
	v        *int64 // nil = null
	s        string
}

func buildKV(mem memory.Allocator, rows []kvRow) arrow.RecordBatch {
	b := array.NewRecordBuilder(mem, kvSchema)
	defer b.Release()
	for _, r := range rows {
		b.Field(0).(*array.Int64Builder).Append(r.key)
		b.Field(1).(*array.Int64Builder).Append(r.seq)
		b.Field(2).(*array.Int8Builder).Append(r.kind)
		b.Field(3).(*array.Int64Builder).Append(r.key)
		if r.v == nil {
			b.Field(4).AppendNull()
		} else {
			b.Field(4).(*array.Int64Builder).Append(*r.v)
		}
		b.Field(5).(*array.StringBuilder).Append(r.s)
	}
	return b.NewRecordBatch()
}

func mustConfig(t testing.TB, options map[string]string) *Config {
	t.Helper()
	cfg, err := NewConfig(options, kvFields(), []string{"k"})
	if err != nil {
		t.Fatal(err)
	}
	return cfg
}

func TestNewMergerErrors(t *testing.T) {
	cfg := mustConfig(t, nil)
	i64 := arrow.PrimitiveTypes.Int64
	schema := func(fields ...arrow.Field) *arrow.Schema { return arrow.NewSchema(fields, nil) }
	seq := arrow.Field{Name: SequenceNumberColumn, Type: i64}
	kind := arrow.Field{Name: ValueKindColumn, Type: arrow.PrimitiveTypes.Int8}
	key := arrow.Field{Name: "_KEY_k", Type: i64}
	k := arrow.Field{Name: "k", Type: i64}
	cases := []struct {
		name string
		cfg  *Config
		in   *arrow.Schema
		keys []int
		want error
	}{
		{"no sequence column", cfg, schema(key, kind, k), []int{0}, ErrSchema},
		{"sequence column not int64", cfg, schema(key, arrow.Field{Name: SequenceNumberColumn, Type: arrow.PrimitiveTypes.Int32}, kind, k), []int{0}, ErrSchema},
		{"kind column not int8", cfg, schema(key, seq, arrow.Field{Name: ValueKindColumn, Type: i64}, k), []int{0}, ErrSchema},
		{"no key columns", cfg, schema(key, seq, kind, k), nil, ErrSchema},
		{"key index out of range", cfg, schema(key, seq, kind, k), []int{7}, ErrSchema},
		{"key is the sequence column", cfg, schema(key, seq, kind, k), []int{1}, ErrSchema},
		{"key of a nested type", cfg, schema(arrow.Field{Name: "_KEY_k", Type: arrow.ListOf(i64)}, seq, kind, k), []int{0}, ErrUnsupported},
		{"unknown value column", cfg, schema(key, seq, kind, k, arrow.Field{Name: "zz", Type: i64}), []int{0}, ErrSchema},
		{"duplicate value column", cfg, schema(key, seq, kind, k, k), []int{0}, ErrSchema},
		{"sequence field not read", mustConfig(t, map[string]string{"sequence.field": "v"}), schema(key, seq, kind, k), []int{0}, ErrSchema},
		{"sum over a string column", mustConfig(t, map[string]string{"merge-engine": "aggregation", "fields.v.aggregate-function": "sum"}),
			schema(key, seq, kind, k, arrow.Field{Name: "v", Type: arrow.BinaryTypes.String}), []int{0}, ErrSchema},
		{"nil schema", cfg, nil, []int{0}, ErrSchema},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			_, err := NewMerger(c.cfg, c.in, Options{KeyColumns: c.keys})
			if !errors.Is(err, c.want) {
				t.Fatalf("got %v, want %v", err, c.want)
			}
		})
	}
}

func TestOutputSchemas(t *testing.T) {
	cfg := mustConfig(t, nil)
	for layout, want := range map[Layout][]string{
		LayoutValues:     {"k", "v", "s"},
		LayoutKindValues: {ValueKindColumn, "k", "v", "s"},
		LayoutKeyValue:   {"_KEY_k", SequenceNumberColumn, ValueKindColumn, "k", "v", "s"},
	} {
		m, err := NewMerger(cfg, kvSchema, Options{KeyColumns: []int{0}, Layout: layout})
		if err != nil {
			t.Fatal(err)
		}
		var got []string
		for _, f := range m.Schema().Fields() {
			got = append(got, f.Name)
		}
		if !slices.Equal(got, want) {
			t.Errorf("layout %d: %v, want %v", layout, got, want)
		}
	}
}

func i64p(v int64) *int64 { return &v }

// TestZeroCopy checks that an output batch made of one stretch of one input
// batch shares the input's buffers, and that mixed batches do not.
func TestZeroCopy(t *testing.T) {
	mem := memory.NewCheckedAllocator(memory.DefaultAllocator)
	defer mem.AssertSize(t, 0)
	var rows []kvRow
	for i := range 100 {
		rows = append(rows, kvRow{key: int64(i), seq: int64(i), v: i64p(int64(i)), s: fmt.Sprint("s", i)})
	}
	in := buildKV(mem, rows)
	inV := in.Column(4).Data().Buffers()[1].Bytes()
	other := buildKV(mem, []kvRow{{key: 1000, seq: 1000, s: "x"}})
	in.Retain()
	defer in.Release()

	m, err := NewMerger(mustConfig(t, nil), kvSchema, Options{KeyColumns: []int{0}, BatchSize: 64, Layout: LayoutValues})
	if err != nil {
		t.Fatal(err)
	}
	var sizes []int64
	var shared []bool
	for rec, err := range m.Merge(context.Background(), []Run{RunOf(in), RunOf(other)}) {
		if err != nil {
			t.Fatal(err)
		}
		sizes = append(sizes, rec.NumRows())
		v := rec.Column(1).Data()
		b := v.Buffers()[1].Bytes()
		shared = append(shared, &b[0] == &inV[0] || (len(b) > 0 && &b[v.Offset()*8] == &inV[v.Offset()*8]))
		rec.Release()
	}
	// 64 rows from one batch (zero-copy), the 36 left of it (zero-copy, as
	// they are more than the 16-row threshold), then the other run's row.
	if !slices.Equal(sizes, []int64{64, 36, 1}) || !slices.Equal(shared, []bool{true, true, false}) {
		t.Errorf("sizes %v shared %v", sizes, shared)
	}
}

type failingRun struct {
	Run
	failAfter int
	err       error
	closed    *int
}

func (r *failingRun) Next(ctx context.Context) (arrow.RecordBatch, error) {
	if r.failAfter == 0 {
		return nil, r.err
	}
	r.failAfter--
	return r.Run.Next(ctx)
}

func (r *failingRun) Close() error {
	*r.closed++
	return r.Run.Close()
}

func TestRunErrorsAndEarlyStop(t *testing.T) {
	mem := memory.NewCheckedAllocator(memory.DefaultAllocator)
	defer mem.AssertSize(t, 0)
	cfg := mustConfig(t, nil)
	m, err := NewMerger(cfg, kvSchema, Options{KeyColumns: []int{0}, BatchSize: 2})
	if err != nil {
		t.Fatal(err)
	}
	mkRuns := func(failAfter int, closed *int) []Run {
		a := buildKV(mem, []kvRow{{key: 1, seq: 1}, {key: 3, seq: 3}})
		b := buildKV(mem, []kvRow{{key: 5, seq: 5}})
		c := buildKV(mem, []kvRow{{key: 2, seq: 2}, {key: 4, seq: 4}})
		boom := errors.New("boom")
		return []Run{
			&failingRun{Run: RunOf(a, b), failAfter: failAfter, err: boom, closed: closed},
			&failingRun{Run: RunOf(c), failAfter: 100, closed: closed},
		}
	}

	// A run failing on its second batch: rows before it come out, then the error.
	closed := 0
	var got []int64
	var gotErr error
	for rec, err := range m.Merge(context.Background(), mkRuns(1, &closed)) {
		if err != nil {
			gotErr = err
			continue
		}
		got = append(got, rec.Column(0).(*array.Int64).Int64Values()...)
		rec.Release()
	}
	if gotErr == nil || gotErr.Error() != "merge: run 0: boom" || closed != 2 {
		t.Errorf("error %v, closed %d", gotErr, closed)
	}
	if !slices.Equal(got, []int64{1, 2}) {
		t.Errorf("rows before the error: %v", got)
	}

	// Stopping early closes every run and releases every batch.
	closed = 0
	for rec, err := range m.Merge(context.Background(), mkRuns(100, &closed)) {
		if err != nil {
			t.Fatal(err)
		}
		rec.Release()
		break
	}
	if closed != 2 {
		t.Errorf("closed %d runs after early stop", closed)
	}

	// A cancelled context stops the merge with its error.
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	closed = 0
	for _, err := range m.Merge(ctx, mkRuns(100, &closed)) {
		if !errors.Is(err, context.Canceled) {
			t.Errorf("got %v, want context.Canceled", err)
		}
	}
	if closed != 2 {
		t.Errorf("closed %d runs after cancel", closed)
	}
}

func TestRunAdapters(t *testing.T) {
	mem := memory.NewCheckedAllocator(memory.DefaultAllocator)
	defer mem.AssertSize(t, 0)
	a := buildKV(mem, []kvRow{{key: 1, seq: 1, s: "a"}, {key: 3, seq: 3, s: "a"}})
	b := buildKV(mem, []kvRow{{key: 2, seq: 2, s: "b"}, {key: 3, seq: 4, s: "b"}})
	reader, err := array.NewRecordReader(kvSchema, []arrow.RecordBatch{a})
	if err != nil {
		t.Fatal(err)
	}
	a.Release()
	seq := iter.Seq2[arrow.RecordBatch, error](func(yield func(arrow.RecordBatch, error) bool) {
		if !yield(b, nil) {
			b.Release()
		}
	})
	var got []string
	for rec, err := range Merge(context.Background(), mustConfig(t, nil), kvSchema,
		[]Run{RunFromReader(reader), RunFromSeq(seq)}, Options{KeyColumns: []int{0}}) {
		if err != nil {
			t.Fatal(err)
		}
		for i := range int(rec.NumRows()) {
			got = append(got, fmt.Sprintf("%d %s", rec.Column(0).(*array.Int64).Value(i), rec.Column(2).(*array.String).Value(i)))
		}
		rec.Release()
	}
	if !slices.Equal(got, []string{"1 a", "2 b", "3 b"}) {
		t.Errorf("got %v", got)
	}

	// NewMerger errors surface through Merge, and the runs are closed.
	c := buildKV(mem, []kvRow{{key: 1}})
	for _, err := range Merge(context.Background(), mustConfig(t, nil), kvSchema, []Run{RunOf(c)}, Options{}) {
		if !errors.Is(err, ErrSchema) {
			t.Errorf("got %v, want ErrSchema", err)
		}
	}
}

func TestSchemaMismatchMidRun(t *testing.T) {
	mem := memory.NewCheckedAllocator(memory.DefaultAllocator)
	defer mem.AssertSize(t, 0)
	good := buildKV(mem, []kvRow{{key: 1, seq: 1}})
	other := arrow.NewSchema([]arrow.Field{{Name: "x", Type: arrow.PrimitiveTypes.Int32}}, nil)
	bb := array.NewRecordBuilder(mem, other)
	bb.Field(0).(*array.Int32Builder).Append(1)
	bad := bb.NewRecordBatch()
	bb.Release()
	var gotErr error
	for rec, err := range Merge(context.Background(), mustConfig(t, nil), kvSchema, []Run{RunOf(good, bad)}, Options{KeyColumns: []int{0}}) {
		if err != nil {
			gotErr = err
			continue
		}
		rec.Release()
	}
	if !errors.Is(gotErr, ErrSchema) {
		t.Errorf("got %v, want ErrSchema", gotErr)
	}
}

// TestRandomAgainstModel merges random runs (random key overlap, duplicate
// keys inside runs, random batch boundaries, random output batch sizes) and
// compares with a direct model of the engines: group every record by key,
// order by (sequence, retract first), then apply the engine's rule.
func TestRandomAgainstModel(t *testing.T) {
	rng := rand.New(rand.NewPCG(1, 2))
	engines := []map[string]string{
		nil,
		{"ignore-delete": "true"},
		{"merge-engine": "aggregation", "fields.v.aggregate-function": "sum", "fields.s.aggregate-function": "last_value"},
		{"merge-engine": "partial-update", "partial-update.remove-record-on-delete": "true"},
		{"merge-engine": "first-row", "ignore-delete": "true"},
	}
	for iter := range 300 {
		options := engines[iter%len(engines)]
		mem := memory.NewCheckedAllocator(memory.DefaultAllocator)
		nruns := 1 + rng.IntN(6)
		seq := int64(0)
		var all []kvRow
		var runs []Run
		for range nruns {
			var rows []kvRow
			key := int64(rng.IntN(5))
			for range rng.IntN(60) {
				key += int64(rng.IntN(3)) // 0 repeats the key inside the run
				seq++
				r := kvRow{key: key, seq: seq, kind: int8(rng.IntN(4)), s: fmt.Sprint("s", seq)}
				if rng.IntN(4) > 0 {
					r.v = i64p(int64(rng.IntN(100)))
				}
				rows = append(rows, r)
			}
			// sequence numbers of a key inside a run must ascend: they do
			all = append(all, rows...)
			var batches []arrow.RecordBatch
			for len(rows) > 0 {
				n := rng.IntN(len(rows) + 1)
				batches = append(batches, buildKV(mem, rows[:n]))
				rows = rows[n:]
			}
			runs = append(runs, RunOf(batches...))
		}
		// Shuffle global sequence numbers order across runs is already mixed.
		want := model(options, all)
		m, err := NewMerger(mustConfig(t, options), kvSchema, Options{
			KeyColumns: []int{0}, Layout: LayoutKeyValue, BatchSize: 1 + rng.IntN(40), Allocator: mem})
		if err != nil {
			t.Fatal(err)
		}
		var got []string
		for rec, err := range m.Merge(context.Background(), runs) {
			if err != nil {
				t.Fatalf("iteration %d: %v", iter, err)
			}
			for i := range int(rec.NumRows()) {
				got = append(got, kvString(rec, i))
			}
			rec.Release()
		}
		if !slices.Equal(got, want) {
			t.Fatalf("iteration %d (%v):\n got %v\nwant %v", iter, options, got, want)
		}
		mem.AssertSize(t, 0)
	}
}

func kvString(rec arrow.RecordBatch, i int) string {
	v := "null"
	if c := rec.Column(4); !c.IsNull(i) {
		v = fmt.Sprint(c.(*array.Int64).Value(i))
	}
	s := "null"
	if c := rec.Column(5); !c.IsNull(i) {
		s = c.(*array.String).Value(i)
	}
	return fmt.Sprintf("%d %d %s %d %s %s", rec.Column(0).(*array.Int64).Value(i), rec.Column(1).(*array.Int64).Value(i),
		KindString(rec.Column(2).(*array.Int8).Value(i)), rec.Column(3).(*array.Int64).Value(i), v, s)
}

// model is an independent statement of the engines for kvSchema rows.
func model(options map[string]string, all []kvRow) []string {
	return modelMerging(options, all, nil)
}

// modelMerging is model where the keys in mergeOne are merged even when
// they have a single record (a lookup merge's lone pick).
func modelMerging(options map[string]string, all []kvRow, mergeOne map[int64]bool) []string {
	byKey := map[int64][]kvRow{}
	for _, r := range all {
		byKey[r.key] = append(byKey[r.key], r)
	}
	var keys []int64
	for k := range byKey {
		keys = append(keys, k)
	}
	slices.Sort(keys)
	str := func(key, seq int64, kind int8, v *int64, s *string) string {
		vs, ss := "null", "null"
		if v != nil {
			vs = fmt.Sprint(*v)
		}
		if s != nil {
			ss = *s
		}
		return fmt.Sprintf("%d %d %s %d %s %s", key, seq, KindString(kind), key, vs, ss)
	}
	var out []string
	for _, k := range keys {
		g := byKey[k]
		sort.SliceStable(g, func(i, j int) bool { return g[i].seq < g[j].seq })
		if len(g) == 1 && !mergeOne[k] {
			r := g[0]
			out = append(out, str(k, r.seq, r.kind, r.v, &r.s))
			continue
		}
		switch options["merge-engine"] {
		case "first-row":
			// ignore-delete: the first addition wins; only retractions: nothing
			for _, r := range g {
				if !IsRetract(r.kind) {
					out = append(out, str(k, r.seq, r.kind, r.v, &r.s))
					break
				}
			}
		case "aggregation":
			// v: sum (retract subtracts, from null negates); s: last_value (retract -> null)
			var sum *int64
			var s *string
			for _, r := range g {
				retract := IsRetract(r.kind)
				if r.v != nil {
					x := *r.v
					if retract {
						x = -x
					}
					if sum == nil {
						sum = i64p(x)
					} else {
						sum = i64p(*sum + x)
					}
				}
				if retract {
					s = nil
				} else {
					s = &r.s
				}
			}
			last := g[len(g)-1]
			out = append(out, str(k, last.seq, KindInsert, sum, s))
		case "partial-update":
			// remove-record-on-delete: -D resets the row to its values; -U is skipped
			var v *int64
			var s *string
			filled, meetInsert, lastDelete := false, false, false
			var seq int64
			for _, r := range g {
				seq = r.seq
				lastDelete = r.kind == KindDelete
				if IsRetract(r.kind) {
					if !filled || r.kind == KindDelete {
						v, s = r.v, &r.s
						filled = true
					}
					continue
				}
				if r.v != nil {
					v = r.v
				}
				s = &r.s
				meetInsert, filled = true, true
			}
			kind := KindInsert
			if lastDelete || !meetInsert {
				kind = KindDelete
			}
			out = append(out, str(k, seq, kind, v, s))
		default:
			ignore := options["ignore-delete"] == "true"
			var win *kvRow
			for i := range g {
				if ignore && IsRetract(g[i].kind) {
					continue
				}
				win = &g[i]
			}
			if win != nil {
				out = append(out, str(k, win.seq, win.kind, win.v, &win.s))
			}
		}
	}
	return out
}
