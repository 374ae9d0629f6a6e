package realtime_test

import (
	"context"
	"fmt"
	"slices"
	"sync"
	"testing"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"

	"github.com/paimon-go/paimon/memindexer"
	"github.com/paimon-go/paimon/realtime"
)

// writeSpyFactory creates built-in stores that record every batch written
// to them as "pt: id@offset#sequence ... [range]".
type writeSpyFactory struct {
	mu     sync.Mutex
	writes []string
}

func (f *writeSpyFactory) Create(req realtime.CreateRequest) (realtime.Store, error) {
	s, err := memindexer.Factory{}.Create(req)
	if err != nil {
		return nil, err
	}
	return &writeSpyStore{Store: s, f: f}, nil
}

type writeSpyStore struct {
	realtime.Store
	f *writeSpyFactory
}

func (s *writeSpyStore) Write(ctx context.Context, b realtime.Batch) error {
	rec := b.Record
	col := func(name string) arrow.Array { return rec.Column(rec.Schema().FieldIndices(name)[0]) }
	ids, offs := col("id").(*array.Int64), col(realtime.OffsetColumn).(*array.Int64)
	seqs, pts := col(realtime.SequenceColumn).(*array.Int64), col("pt").(*array.String)
	out := pts.Value(0) + ":"
	for i := range int(rec.NumRows()) {
		out += fmt.Sprintf(" %d@%d#%d", ids.Value(i), offs.Value(i), seqs.Value(i))
	}
	out += " " + b.Range.String()
	s.f.mu.Lock()
	s.f.writes = append(s.f.writes, out)
	s.f.mu.Unlock()
	return s.Store.Write(ctx, b)
}

// Application offsets of a primary-key batch over two partitions: each
// stored row keeps the offset of its input row after the key sort, the
// sequence numbers follow the input order, and a row dropped by
// ignore-delete takes no offset. Rows (offset, id, pt, kind):
// (100,3,p0,+I) (101,9,p1,+I) (102,1,p0,-D dropped) (103,2,p0,+I)
// (104,5,p1,+I) (105,1,p0,+I).
func TestPkApplicationOffsetsFollowSortedRows(t *testing.T) {
	tbl := newFooTable(t, []string{"id", "pt"}, []string{"pt"}, map[string]string{"ignore-delete": "true"})
	spy := &writeSpyFactory{}
	rc, err := realtime.NewContext(tbl.FileIO, tbl.Schema, spy)
	if err != nil {
		t.Fatal(err)
	}
	defer rc.Close()
	w := newWrite(t, rc, "u")
	fields := append([]arrow.Field{offsetField}, append(slices.Clone(fooArrow), kindField)...)
	row := func(off, id int64, pt, kind string) []any { return []any{off, id, "v" + itoa(id), pt, kind} }
	write(t, w, batch(t, fields,
		row(100, 3, "p0", "+I"), row(101, 9, "p1", "+I"), row(102, 1, "p0", "-D"),
		row(103, 2, "p0", "+I"), row(104, 5, "p1", "+I"), row(105, 1, "p0", "+I")))
	spy.mu.Lock()
	got := slices.Sorted(slices.Values(spy.writes))
	spy.mu.Unlock()
	equal(t, "stored", got, []string{
		"p0: 1@105#2 2@103#1 3@100#0 [100,106)",
		"p1: 5@104#1 9@101#0 [101,105)",
	})
	equal(t, "rows", sortedScan(t, rc), []string{"1|v1|p0", "2|v2|p0", "3|v3|p0", "5|v5|p1", "9|v9|p1"})
	// An offset below p0's next expected one (106) rejects the batch.
	rec := batch(t, fields, row(200, 7, "p1", "+I"), row(105, 8, "p0", "+I"))
	wantErr(t, w.Write(context.Background(), rec), realtime.ErrOffsetOrder)
	rec.Release()
	if u := rc.Usage(); u.BuildingRows != 5 {
		t.Fatalf("rejected batch changed the stores: %+v", u)
	}
}
