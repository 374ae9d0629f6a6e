package reader_test

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"testing"

	"github.com/apache/arrow-go/v18/arrow"

	"github.com/paimon-go/paimon/catalog"
	"github.com/paimon-go/paimon/internal/fixture"
	"github.com/paimon-go/paimon/internal/tabletest"
	"github.com/paimon-go/paimon/reader"
	"github.com/paimon-go/paimon/types"
	"github.com/paimon-go/paimon/writer"
)

// catLines reads url with opts and returns the JSONL lines in read order.
func catLines(t *testing.T, url string, opts ...reader.Option) []string {
	t.Helper()
	data, err := tabletest.Cat(context.Background(), url, opts...)
	if err != nil {
		t.Fatal(err)
	}
	s := strings.TrimSpace(string(data))
	if s == "" {
		return nil
	}
	return strings.Split(s, "\n")
}

func wantChangeLines(t *testing.T, what string, got []string, want ...string) {
	t.Helper()
	if strings.Join(got, "\n") != strings.Join(want, "\n") {
		t.Errorf("%s:\n got %q\nwant %q", what, got, want)
	}
}

// pkChangesTable writes a primary-key table (k INT, v STRING; one bucket)
// with snapshot 1 = +I(1,a) +I(2,b) and snapshot 2 = -D(1,a) +U(2,B)
// +I(3,null).
func pkChangesTable(t *testing.T, opts map[string]string) string {
	t.Helper()
	o := map[string]string{"bucket": "1"}
	for k, v := range opts {
		o[k] = v
	}
	tbl := tabletest.NewTable(t, "", catalog.Schema{
		Fields:      []types.DataField{{Name: "k", Type: types.Int().NotNull()}, {Name: "v", Type: types.String()}},
		PrimaryKeys: []string{"k"},
		Options:     o,
	})
	sc := types.SchemaToArrow(tbl.Schema.Fields)
	first := tabletest.Batch(t, sc, []any{int32(1), "a"}, []any{int32(2), "b"})
	defer first.Release()
	tabletest.WriteCommit(t, tbl, "u", 1, first)
	kinds := arrow.NewSchema(append(sc.Fields(), arrow.Field{Name: writer.DefaultRowKindColumn, Type: arrow.BinaryTypes.String}), nil)
	second := tabletest.Batch(t, kinds, []any{int32(1), "a", "-D"}, []any{int32(2), "B", "+U"}, []any{int32(3), nil, "+I"})
	defer second.Release()
	if id := tabletest.WriteCommit(t, tbl, "u", 2, second); id != 2 {
		t.Fatalf("second commit made snapshot %d", id)
	}
	return tbl.FileIO.URL()
}

func TestChangesDeltaPrimaryKey(t *testing.T) {
	url := pkChangesTable(t, nil)
	wantChangeLines(t, "delta of snapshot 2 with rowkind",
		catLines(t, url, reader.WithChanges(2, reader.ChangesDelta), reader.WithRowKind()),
		`{"rowkind":"-D","k":1,"v":"a"}`, `{"rowkind":"+U","k":2,"v":"B"}`, `{"rowkind":"+I","k":3,"v":null}`)
	wantChangeLines(t, "delta of snapshot 1 with rowkind",
		catLines(t, url, reader.WithChanges(1, reader.ChangesDelta), reader.WithRowKind()),
		`{"rowkind":"+I","k":1,"v":"a"}`, `{"rowkind":"+I","k":2,"v":"b"}`)
	// Without WithRowKind the rows come as they are, the deleted one too.
	wantChangeLines(t, "delta of snapshot 2",
		catLines(t, url, reader.WithChanges(2, reader.ChangesDelta)),
		`{"k":1,"v":"a"}`, `{"k":2,"v":"B"}`, `{"k":3,"v":null}`)
	// Projection and filter apply to change rows.
	wantChangeLines(t, "delta of snapshot 2, v where k >= 2",
		catLines(t, url, reader.WithChanges(2, reader.ChangesDelta), reader.WithRowKind(), reader.WithColumns("v"), reader.WithWhere("k >= 2")),
		`{"rowkind":"+U","v":"B"}`, `{"rowkind":"+I","v":null}`)
	// No changelog producer: no changelog files.
	wantChangeLines(t, "changelog of snapshot 2",
		catLines(t, url, reader.WithChanges(2, reader.ChangesChangelog), reader.WithRowKind()))
	// A batch read with rowkind: each key's merged row with its latest kind.
	// A batch read with rowkind keeps deletes, as Java's audit_log does.
	wantChangeLines(t, "batch read with rowkind",
		catLines(t, url, reader.WithRowKind()),
		`{"rowkind":"-D","k":1,"v":"a"}`, `{"rowkind":"+U","k":2,"v":"B"}`, `{"rowkind":"+I","k":3,"v":null}`)
	wantChangeLines(t, "batch read",
		catLines(t, url), `{"k":2,"v":"B"}`, `{"k":3,"v":null}`)
	wantChangeLines(t, "batch read of snapshot 1 with rowkind",
		catLines(t, url, reader.WithRowKind(), reader.WithSnapshot(1)),
		`{"rowkind":"+I","k":1,"v":"a"}`, `{"rowkind":"+I","k":2,"v":"b"}`)
}

func TestChangesAppend(t *testing.T) {
	tbl := tabletest.NewTable(t, "", catalog.Schema{
		Fields: []types.DataField{{Name: "k", Type: types.Int()}, {Name: "v", Type: types.String()}},
	})
	sc := types.SchemaToArrow(tbl.Schema.Fields)
	first := tabletest.Batch(t, sc, []any{int32(1), "a"}, []any{int32(2), "b"})
	defer first.Release()
	tabletest.WriteCommit(t, tbl, "u", 1, first)
	second := tabletest.Batch(t, sc, []any{int32(3), "c"}, []any{int32(1), "a"})
	defer second.Release()
	tabletest.WriteCommit(t, tbl, "u", 2, second)
	url := tbl.FileIO.URL()
	wantChangeLines(t, "append delta of snapshot 2",
		catLines(t, url, reader.WithChanges(2, reader.ChangesDelta), reader.WithRowKind()),
		`{"rowkind":"+I","k":3,"v":"c"}`, `{"rowkind":"+I","k":1,"v":"a"}`)
	wantChangeLines(t, "append delta of snapshot 1",
		catLines(t, url, reader.WithChanges(1, reader.ChangesDelta)),
		`{"k":1,"v":"a"}`, `{"k":2,"v":"b"}`)
	wantChangeLines(t, "append batch with rowkind",
		catLines(t, url, reader.WithRowKind(), reader.WithColumns("k"), reader.WithWhere("k = 1")),
		`{"rowkind":"+I","k":1}`, `{"rowkind":"+I","k":1}`)
}

func TestChangesErrors(t *testing.T) {
	url := pkChangesTable(t, nil)
	ctx := context.Background()
	cases := []struct {
		name string
		opts []reader.Option
		want error
	}{
		{"missing snapshot", []reader.Option{reader.WithChanges(3, reader.ChangesDelta)}, reader.ErrNoSnapshot},
		{"snapshot 0", []reader.Option{reader.WithChanges(0, reader.ChangesDelta)}, reader.ErrInvalidScan},
		{"bad mode", []reader.Option{reader.WithChanges(1, reader.ChangeMode(9))}, reader.ErrInvalidScan},
		{"with time travel", []reader.Option{reader.WithChanges(1, reader.ChangesDelta), reader.WithSnapshot(2)}, reader.ErrInvalidScan},
		{"with tag", []reader.Option{reader.WithChanges(1, reader.ChangesDelta), reader.WithTag("t")}, reader.ErrInvalidScan},
	}
	for _, c := range cases {
		_, err := tabletest.Cat(ctx, url, c.opts...)
		if !errors.Is(err, c.want) {
			t.Errorf("%s: err = %v, want %v", c.name, err, c.want)
		}
	}
	// A table with a column named rowkind cannot add the rowkind column.
	tbl := tabletest.NewTable(t, "", catalog.Schema{Fields: []types.DataField{{Name: "rowkind", Type: types.Int()}}})
	if _, err := tabletest.Cat(ctx, tbl.FileIO.URL(), reader.WithRowKind()); !errors.Is(err, reader.ErrInvalidScan) {
		t.Errorf("rowkind column clash: err = %v, want ErrInvalidScan", err)
	}
}

// TestChangesFixtureDeletionVectors: the deltas of a Java-written
// deletion-vector table are the streaming deltas paimon-cpp asserts
// (fixture EXPECTED.md, section F), level-0 files included, row kinds kept.
func TestChangesFixtureDeletionVectors(t *testing.T) {
	dir := fixture.Dir(t, "pk_table_scan_and_read_dv_parquet")
	want := map[int64][]string{
		3: {`{"rowkind":"+U","f0":"Alice","f1":10,"f2":1,"f3":19.1}`, `{"rowkind":"-D","f0":"Tony","f1":10,"f2":0,"f3":14.1}`},
		5: {`{"rowkind":"+U","f0":"Alex","f1":10,"f2":0,"f3":21.2}`, `{"rowkind":"+I","f0":"Marco","f1":10,"f2":0,"f3":21.1}`, `{"rowkind":"+I","f0":"Skye","f1":10,"f2":0,"f3":21}`},
		6: {`{"rowkind":"-D","f0":"Alex","f1":10,"f2":0,"f3":31.2}`, `{"rowkind":"+I","f0":"Marco2","f1":10,"f2":0,"f3":31.1}`, `{"rowkind":"+I","f0":"Skye2","f1":10,"f2":0,"f3":31}`},
	}
	for id, rows := range want {
		wantChangeLines(t, fmt.Sprintf("delta of snapshot %d", id),
			catLines(t, dir, reader.WithChanges(id, reader.ChangesDelta), reader.WithRowKind()), rows...)
		wantChangeLines(t, fmt.Sprintf("changelog of snapshot %d", id),
			catLines(t, dir, reader.WithChanges(id, reader.ChangesChangelog), reader.WithRowKind()))
	}
}
