package reader

import (
	"context"
	"errors"
	"fmt"
	"io"
	"testing"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"
	"github.com/apache/arrow-go/v18/arrow/memory"

	"github.com/paimon-go/paimon/fileio"
	"github.com/paimon-go/paimon/types"
)

// offerBatch is a batch (a BIGINT, b STRING) of ids allocated by mem.
func offerBatch(mem memory.Allocator, ids ...int64) arrow.RecordBatch {
	sc := types.SchemaToArrow([]types.DataField{types.Field(0, "a", types.BigInt()), types.Field(1, "b", types.String())})
	bld := array.NewRecordBuilder(mem, sc)
	defer bld.Release()
	for _, id := range ids {
		bld.Field(0).(*array.Int64Builder).Append(id)
		bld.Field(1).(*array.StringBuilder).Append("v" + string(rune('0'+id%10)))
	}
	return bld.NewRecordBatch()
}

// TestRowsReader: offered rows read as a format reader would give them:
// the wanted columns by name in the wanted order, batches of at most the
// batch size across the offered batches, file positions counted on; a
// missing column or another type refuses the rows (the file is read).
func TestRowsReader(t *testing.T) {
	ctx := context.Background()
	mem := memory.NewCheckedAllocator(memory.DefaultAllocator)
	defer mem.AssertSize(t, 0)
	rows := []arrow.RecordBatch{offerBatch(mem, 1, 2, 3), offerBatch(mem, 4, 5)}
	want := []types.DataField{types.Field(1, "b", types.String()), types.Field(0, "a", types.BigInt())}
	rd := newRowsReader(rows, want, nil, 2)
	if rd == nil || rd.NumRows() != 5 {
		t.Fatalf("reader %v", rd)
	}
	var got []string
	var firsts []int64
	for {
		b, err := rd.Next(ctx)
		if errors.Is(err, io.EOF) {
			break
		}
		if err != nil {
			t.Fatal(err)
		}
		if !b.Record.Schema().Equal(types.SchemaToArrow(want)) {
			t.Errorf("schema %s", b.Record.Schema())
		}
		firsts = append(firsts, b.FirstRow)
		for i := range int(b.Record.NumRows()) {
			got = append(got, b.Record.Column(0).ValueStr(i)+"/"+b.Record.Column(1).ValueStr(i))
		}
		b.Record.Release()
	}
	if s, f := fmt.Sprint(got), fmt.Sprint(firsts); s != "[v1/1 v2/2 v3/3 v4/4 v5/5]" || f != "[0 2 3]" {
		t.Errorf("rows %s at %s, want v1/1 v2/2 v3/3 v4/4 v5/5 at 0 2 3", s, f)
	}
	for _, r := range rows {
		r.Retain() // the reader's, released by Close
	}
	rd.Close()
	if rd.rows != nil {
		t.Error("Close kept the rows")
	}
	for name, w := range map[string][]types.DataField{
		"missing column": {types.Field(2, "c", types.BigInt())},
		"other type":     {types.Field(0, "a", types.Int())},
	} {
		if rd := newRowsReader(rows, w, nil, 0); rd != nil {
			t.Errorf("%s: got a reader", name)
		}
	}
	for _, r := range rows {
		r.Release()
	}
}

// TestLookupCacheOffer: an offer is taken once (the reader owns it), a
// second offer of the same file is ignored, offers beyond a quarter of the
// bound push the oldest out, one larger than that is refused, shrinking
// the bound drops them, and rows of another type are refused and counted
// as no offer read.
func TestLookupCacheOffer(t *testing.T) {
	fio, err := fileio.Open(context.Background(), "mem:///offer")
	if err != nil {
		t.Fatal(err)
	}
	mem := memory.NewCheckedAllocator(memory.DefaultAllocator)
	defer mem.AssertSize(t, 0)
	a := offerBatch(mem, 1, 2, 3)
	defer a.Release()
	n := recordBytes(a)
	c := NewLookupCache(16 * n) // offers: 4 batches like a
	want := []types.DataField{types.Field(0, "a", types.BigInt())}
	take := func(p string) bool {
		rd := c.offered(fio.URL(), p, want, nil, 0)
		if rd == nil {
			return false
		}
		rd.Close()
		return true
	}
	c.Offer(fio, "f0", []arrow.RecordBatch{a})
	c.Offer(fio, "f0", []arrow.RecordBatch{a, a})
	if c.offerBytes != n || !take("f0") || take("f0") || c.offerBytes != 0 {
		t.Fatalf("one offer taken once: bytes %d", c.offerBytes)
	}
	for _, p := range []string{"f1", "f2", "f3", "f4", "f5"} {
		c.Offer(fio, p, []arrow.RecordBatch{a})
	}
	if c.offerBytes != 4*n || take("f1") || !take("f2") || !take("f5") {
		t.Errorf("5 offers over a bound of 4: bytes %d, want the oldest pushed out", c.offerBytes)
	}
	c.Offer(fio, "big", []arrow.RecordBatch{a, a, a, a, a})
	if take("big") {
		t.Error("an offer above the bound was kept")
	}
	c.SetMaxBytes(4 * n) // offers: 1 batch
	if c.offerBytes != n || take("f3") || !take("f4") {
		t.Errorf("shrunk: bytes %d, want only the newest offer", c.offerBytes)
	}
	c.Offer(fio, "typed", []arrow.RecordBatch{a})
	if c.offered(fio.URL(), "typed", []types.DataField{types.Field(0, "a", types.Int())}, nil, 0) != nil || c.offerBytes != 0 {
		t.Error("rows of another type read, or kept")
	}
	if st := c.Stats(); st.OfferReads != 4 { // f0, f2, f5, f4
		t.Errorf("offer reads %d, want 4", st.OfferReads)
	}
	c.SetMaxBytes(0)
	if c.offerBytes != 0 || len(c.offers) != 0 {
		t.Errorf("bound 0: %d bytes of offers kept", c.offerBytes)
	}
}
