package writer_test

import (
	"context"
	"fmt"
	"slices"
	"testing"

	"github.com/apache/arrow-go/v18/arrow/array"

	"github.com/paimon-go/paimon/catalog"
	"github.com/paimon-go/paimon/commit"
	"github.com/paimon-go/paimon/datafile"
	"github.com/paimon-go/paimon/reader"
	"github.com/paimon-go/paimon/row"
	"github.com/paimon-go/paimon/writer"
)

// changelogRows reads the changelog files of msgs (data and compaction
// parts) as "<kind> k v seq=<n>", in file order.
func messageChangelogRows(t *testing.T, tbl *catalog.Table, msgs []commit.Message) []string {
	t.Helper()
	var out []string
	for _, m := range msgs {
		files := append(slices.Clone(m.Data.ChangelogFiles), m.Compact.ChangelogFiles...)
		for _, f := range files {
			if f.FileName[:10] != "changelog-" {
				t.Errorf("changelog file name %s", f.FileName)
			}
			for rec, err := range reader.ReadDataFile(context.Background(), tbl.FileIO, "bucket-0/"+f.FileName, tbl.Schema, datafile.KeyValueFields(tbl.Schema), reader.FileReadOptions{}) {
				if err != nil {
					t.Fatal(err)
				}
				for i := range int(rec.NumRows()) {
					v := "null"
					if c := rec.Column(4); c.IsValid(i) {
						v = c.ValueStr(i)
					}
					out = append(out, fmt.Sprintf("%s %d %s seq=%d", row.RowKindString(byte(rec.Column(2).(*array.Int8).Value(i))),
						rec.Column(0).(*array.Int32).Value(i), v, rec.Column(1).(*array.Int64).Value(i)))
				}
				rec.Release()
			}
		}
	}
	return out
}

// TestWriterChangelogProducer: a writer of a changelog-producer = lookup
// table brings level 0 up at every PrepareCommit and hands out the
// changelog of each commit in its compaction increment (Java
// LookupSinkWrite); full-compaction fully compacts at every commit by
// default (GlobalFullCompactionSinkWrite with delta commits 1). Both give
// the same changelog for this input; each commit is committed with it.
func TestWriterChangelogProducer(t *testing.T) {
	cl := func(kind string, k int32, ver int, seq int) string {
		return fmt.Sprintf("%s %d %s seq=%d", kind, k, val(k, ver), seq)
	}
	steps := []struct {
		ops  []lsmOp
		want []string
	}{
		// seq 0-3, then 1 again at 4.
		{append(insRange(0, 3, 1), lsmOp{"+I", 1, 2}), []string{cl("+I", 0, 1, 0), cl("+I", 1, 2, 4), cl("+I", 2, 1, 2), cl("+I", 3, 1, 3)}},
		// seq 5-8; the retraction of the unknown key 7 gives nothing.
		{[]lsmOp{{"+U", 1, 3}, {"-D", 2, 0}, {"-D", 7, 0}, {"+I", 5, 1}}, []string{cl("-U", 1, 2, 4), cl("+U", 1, 3, 5), cl("-D", 2, 1, 2), cl("+I", 5, 1, 8)}},
		// An update to an equal value: -U/+U (no row-deduplicate).
		{[]lsmOp{{"+U", 0, 1}}, []string{cl("-U", 0, 1, 0), cl("+U", 0, 1, 9)}},
		// A deleted key comes back: +I.
		{[]lsmOp{{"+I", 2, 4}}, []string{cl("+I", 2, 4, 10)}},
	}
	for _, cp := range []string{"lookup", "full-compaction"} {
		t.Run(cp, func(t *testing.T) {
			tbl := compactTable(t, map[string]string{"changelog-producer": cp})
			w := must(writer.New(tbl.FileIO, tbl.Schema, "u"))
			defer w.Close()
			c := must(commit.New(tbl.FileIO, tbl.Schema, "u"))
			defer c.Close()
			for i, st := range steps {
				msgs := writePrepare(t, w, st.ops)
				if got := messageChangelogRows(t, tbl, msgs); !slices.Equal(got, st.want) {
					t.Fatalf("commit %d: changelog\n got %q\nwant %q", i+1, got, st.want)
				}
				if _, err := c.Commit(context.Background(), int64(i), msgs); err != nil {
					t.Fatal(err)
				}
			}
			if got := levels(t, tbl); len(got) != 1 {
				t.Errorf("files %v, want one file on the top level", got)
			}
		})
	}
}
