package main

import (
	"errors"
	"strings"
	"testing"

	"github.com/apache/arrow-go/v18/arrow"

	"github.com/paimon-go/paimon/catalog"
	"github.com/paimon-go/paimon/internal/tabletest"
	"github.com/paimon-go/paimon/reader"
	"github.com/paimon-go/paimon/types"
	"github.com/paimon-go/paimon/writer"
)

// TestCatIncremental: paimon cat --incremental FROM,TO with each mode and
// --rowkind prints the exact change rows; bad flags are usage errors and a
// range past the latest snapshot fails with reader.ErrNoSnapshot.
func TestCatIncremental(t *testing.T) {
	tbl := tabletest.NewTable(t, "", catalog.Schema{
		Fields:      []types.DataField{{Name: "k", Type: types.Int().NotNull()}, {Name: "v", Type: types.String()}},
		PrimaryKeys: []string{"k"},
		Options:     map[string]string{"bucket": "1"},
	})
	sc := types.SchemaToArrow(tbl.Schema.Fields)
	first := tabletest.Batch(t, sc, []any{int32(1), "a"}, []any{int32(2), "b"})
	defer first.Release()
	tabletest.WriteCommit(t, tbl, "u", 1, first)
	kinds := arrow.NewSchema(append(sc.Fields(), arrow.Field{Name: writer.DefaultRowKindColumn, Type: arrow.BinaryTypes.String}), nil)
	second := tabletest.Batch(t, kinds, []any{int32(1), "a", "-D"}, []any{int32(2), "B", "+U"}, []any{int32(3), nil, "+I"})
	defer second.Release()
	tabletest.WriteCommit(t, tbl, "u", 2, second)
	url := tbl.FileIO.URL()

	cases := []struct {
		args []string
		want string
	}{
		{[]string{"--incremental", "1,2", "--rowkind"},
			`{"rowkind":"-D","k":1,"v":"a"}` + "\n" + `{"rowkind":"+U","k":2,"v":"B"}` + "\n" + `{"rowkind":"+I","k":3,"v":null}` + "\n"},
		{[]string{"--incremental", "0,1", "--incremental-mode", "delta", "--rowkind"},
			`{"rowkind":"+I","k":1,"v":"a"}` + "\n" + `{"rowkind":"+I","k":2,"v":"b"}` + "\n"},
		{[]string{"--incremental", "1,2", "--incremental-mode", "diff"},
			`{"k":2,"v":"B"}` + "\n" + `{"k":3,"v":null}` + "\n"},
		{[]string{"--incremental", "1,2", "--incremental-mode", "changelog", "--rowkind"}, ""},
		{[]string{"--incremental", "2,2"}, ""},
		{[]string{"--rowkind", "--columns", "v"},
			`{"rowkind":"-D","v":"a"}` + "\n" + `{"rowkind":"+U","v":"B"}` + "\n" + `{"rowkind":"+I","v":null}` + "\n"},
	}
	for _, c := range cases {
		args := append(append([]string{"cat", "--format", "jsonl"}, c.args...), url)
		if got := mustRun(t, args...); got != c.want {
			t.Errorf("paimon %s:\n got %q\nwant %q", strings.Join(c.args, " "), got, c.want)
		}
	}
	for _, bad := range [][]string{
		{"--incremental", "1"},
		{"--incremental", "1,2", "--incremental-mode", "full"},
		{"--incremental", "1,2", "--snapshot", "1"},
		{"--incremental-mode", "delta"},
		{"--incremental", "1,2", "--incremental-timestamp", "1,2"},
	} {
		_, err := run(t, append(append([]string{"cat"}, bad...), url)...)
		var u usageError
		if !errors.As(err, &u) {
			t.Errorf("paimon cat %s: err = %v, want a usage error", strings.Join(bad, " "), err)
		}
	}
	if _, err := run(t, "cat", "--incremental", "1,9", url); !errors.Is(err, reader.ErrNoSnapshot) {
		t.Errorf("range past the latest snapshot: err = %v, want ErrNoSnapshot", err)
	}
}
