package memindexer

import (
	"context"
	"errors"
	"strconv"
	"testing"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"
	"github.com/apache/arrow-go/v18/arrow/memory"

	"github.com/paimon-go/paimon/predicate"
	"github.com/paimon-go/paimon/progress"
	"github.com/paimon-go/paimon/realtime"
	"github.com/paimon-go/paimon/types"
)

var bg = context.Background()

// appendSchema is [_REALTIME_OFFSET, id BIGINT, payload STRING].
func appendSchema() *arrow.Schema {
	return arrow.NewSchema([]arrow.Field{
		{Name: realtime.OffsetColumn, Type: arrow.PrimitiveTypes.Int64},
		{Name: "id", Type: arrow.PrimitiveTypes.Int64, Nullable: true},
		{Name: "payload", Type: arrow.BinaryTypes.String, Nullable: true},
	}, nil)
}

// pkSchema is [_VALUE_KIND, _SEQUENCE_NUMBER, _REALTIME_OFFSET, id BIGINT,
// payload STRING] with key column id (index 3).
func pkSchema() *arrow.Schema {
	return arrow.NewSchema([]arrow.Field{
		{Name: realtime.KindColumn, Type: arrow.PrimitiveTypes.Int8},
		{Name: realtime.SequenceColumn, Type: arrow.PrimitiveTypes.Int64},
		{Name: realtime.OffsetColumn, Type: arrow.PrimitiveTypes.Int64},
		{Name: "id", Type: arrow.PrimitiveTypes.Int64, Nullable: true},
		{Name: "payload", Type: arrow.BinaryTypes.String, Nullable: true},
	}, nil)
}

// fieldsOf is the Paimon view of the table columns of appendSchema at their
// transport indexes (for predicates over transport column indexes).
func appendFields() []types.DataField {
	return []types.DataField{
		types.Field(0, realtime.OffsetColumn, types.BigInt()),
		types.Field(1, "id", types.BigInt()),
		types.Field(2, "payload", types.String()),
	}
}

func newAppendStore(t testing.TB, stats realtime.StatsMode) realtime.Store {
	t.Helper()
	s, err := Factory{}.Create(realtime.CreateRequest{Schema: appendSchema(), Mode: realtime.AppendOnly, Stats: stats})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { s.Close() })
	return s
}

func newPKStore(t testing.TB, stats realtime.StatsMode) realtime.Store {
	t.Helper()
	s, err := Factory{}.Create(realtime.CreateRequest{Schema: pkSchema(), Mode: realtime.PrimaryKey,
		KeyColumns: []int{3}, Stats: stats})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { s.Close() })
	return s
}

// appendRec builds an appendSchema record with builders from mem: offsets,
// ids (nil entries are NULL; nil slice: id = offset) and payloads ("" with
// null=true is NULL; nil slice: "value-<id>").
func appendRec(mem memory.Allocator, offs []int64, ids []*int64, payloads []*string) arrow.RecordBatch {
	b := array.NewRecordBuilder(mem, appendSchema())
	defer b.Release()
	for i, o := range offs {
		b.Field(0).(*array.Int64Builder).Append(o)
		id := &offs[i]
		if ids != nil {
			id = ids[i]
		}
		if id == nil {
			b.Field(1).(*array.Int64Builder).AppendNull()
		} else {
			b.Field(1).(*array.Int64Builder).Append(*id)
		}
		switch {
		case payloads != nil && payloads[i] == nil:
			b.Field(2).(*array.StringBuilder).AppendNull()
		case payloads != nil:
			b.Field(2).(*array.StringBuilder).Append(*payloads[i])
		case id == nil:
			b.Field(2).(*array.StringBuilder).Append("value-null")
		default:
			b.Field(2).(*array.StringBuilder).Append("value-" + strconv.FormatInt(*id, 10))
		}
	}
	return b.NewRecordBatch()
}

func pstr(s string) *string { return &s }

// span returns offsets begin, begin+1, ..., end-1.
func span(begin, end int64) []int64 {
	out := make([]int64, 0, end-begin)
	for o := begin; o < end; o++ {
		out = append(out, o)
	}
	return out
}

// write writes rec with range r and releases the caller's reference.
func write(t testing.TB, s realtime.Store, rec arrow.RecordBatch, r progress.Range) {
	t.Helper()
	defer rec.Release()
	if err := s.Write(bg, realtime.Batch{Record: rec, Range: r}); err != nil {
		t.Fatalf("write %s: %v", r, err)
	}
}

// writeErr writes rec with range r, releases it and returns the error.
func writeErr(s realtime.Store, rec arrow.RecordBatch, r progress.Range) error {
	defer rec.Release()
	return s.Write(bg, realtime.Batch{Record: rec, Range: r})
}

// drain reads every reader in order and returns, per yielded batch, the
// values of column col (Int64) — nil entries for NULL as -1 — and releases
// the batches.
func drain(t testing.TB, rs []iter2, col string) [][]int64 {
	t.Helper()
	var out [][]int64
	for _, r := range rs {
		for rec, err := range r {
			if err != nil {
				t.Fatal(err)
			}
			out = append(out, int64Col(t, rec, col))
			rec.Release()
		}
	}
	return out
}

type iter2 = reader

func int64Col(t testing.TB, rec arrow.RecordBatch, col string) []int64 {
	t.Helper()
	idx := rec.Schema().FieldIndices(col)
	if len(idx) != 1 {
		t.Fatalf("column %s not in %s", col, rec.Schema())
	}
	a := rec.Column(idx[0]).(*array.Int64)
	out := make([]int64, a.Len())
	for i := range out {
		if a.IsNull(i) {
			out[i] = -1
		} else {
			out[i] = a.Value(i)
		}
	}
	return out
}

func query(t testing.TB, s realtime.Store, v realtime.ReadView, q realtime.Query) []iter2 {
	t.Helper()
	rs, err := s.QueryReaders(bg, v, q)
	if err != nil {
		t.Fatal(err)
	}
	return rs
}

func mustIs(t testing.TB, err error, targets ...error) {
	t.Helper()
	if err == nil {
		t.Fatalf("got nil error, want %v", targets)
	}
	for _, target := range targets {
		if !errors.Is(err, target) {
			t.Fatalf("error %q does not wrap %v", err, target)
		}
	}
}

func ref(name string) predicate.Ref {
	r, ok := predicate.RefOf(appendFields(), name)
	if !ok {
		panic("no field " + name)
	}
	return r
}
