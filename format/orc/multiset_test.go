package orc

import (
	"context"
	"io"
	"testing"

	"github.com/paimon-go/paimon/format"
	"github.com/paimon-go/paimon/types"
)

// TestReaderMultiset: Java Paimon 1.4.2 stores MULTISET<T> in ORC as
// map<T, int> (element → count); a MULTISET column reads as Arrow
// map<T, int32> with the counts. testdata/multiset_java.orc is the first
// file of the Java scenario layout_multiset_orc: rows (1, {a:2, b:1}, {7:3}),
// (2, {}, null), (3, null, {1:1, 2:1}). Old code refused the column with
// format.ErrSchemaMismatch.
func TestReaderMultiset(t *testing.T) {
	count := types.Int() // nums holds MULTISET<INT NOT NULL>
	count.Nullable = false
	want := []types.DataField{
		types.Field(0, "id", types.Int()),
		types.Field(1, "tags", types.MultisetOf(types.String())),
		types.Field(2, "nums", types.MultisetOf(count)),
	}
	r, err := NewReader(context.Background(), openFormatFile(t, "testdata/multiset_java.orc"), "multiset_java.orc", want, format.ReadOptions{})
	if err != nil {
		t.Fatal(err)
	}
	defer r.Close()
	b, err := r.Next(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	defer b.Record.Release()
	got, err := b.Record.MarshalJSON()
	if err != nil {
		t.Fatal(err)
	}
	const wantJSON = `[{"id":1,"nums":[{"key":7,"value":3}],"tags":[{"key":"a","value":2},{"key":"b","value":1}]}
,{"id":2,"nums":null,"tags":[]}
,{"id":3,"nums":[{"key":1,"value":1},{"key":2,"value":1}],"tags":null}
]`
	if string(got) != wantJSON {
		t.Fatalf("rows\n%s\nwant\n%s", got, wantJSON)
	}
	if _, err := r.Next(context.Background()); err != io.EOF {
		t.Fatalf("Next after the rows: %v", err)
	}
}
