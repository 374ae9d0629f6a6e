package realtime_test

import (
	"context"
	"slices"
	"strings"
	"testing"

	"github.com/paimon-go/paimon/datafile"
	"github.com/paimon-go/paimon/manifest"
	"github.com/paimon-go/paimon/reader"
	"github.com/paimon-go/paimon/snapshot"
)

// TestInputChangelog: the real-time layer's commits of a changelog-producer
// = input table carry the changelog of the rows each
// PrepareCommitWithProgress flushed, as the writer writes it (every input
// row with its row kind and sequence number, by key then sequence number),
// in the changelog manifest list of the snapshot CommitWithProgress
// publishes.
func TestInputChangelog(t *testing.T) {
	ctx := context.Background()
	tbl := newFooTable(t, []string{"id"}, nil, map[string]string{"changelog-producer": "input"})
	rc := newContext(t, tbl)
	w := newWrite(t, rc, "u")
	cm := newCommit(t, rc, "u")
	write(t, w, kindRows(t,
		[]any{int64(2), "two", "x", "+I"},
		[]any{int64(1), "one", "x", "+I"},
		[]any{int64(1), "one", "x", "-U"},
		[]any{int64(1), "one-v2", "x", "+U"}))
	id1 := commitProg(t, cm, prepare(t, w, 1), 1)
	write(t, w, kindRows(t,
		[]any{int64(2), "two", "x", "-D"},
		[]any{int64(3), "three", "x", "+I"}))
	id2 := commitProg(t, cm, prepare(t, w, 2), 2)
	for _, tc := range []struct {
		id   int64
		want []string
	}{
		// _KEY_id|_SEQUENCE_NUMBER|_VALUE_KIND|id|payload|pt
		{id1, []string{"1|1|0|1|one|x", "1|2|1|1|one|x", "1|3|2|1|one-v2|x", "2|0|0|2|two|x"}},
		{id2, []string{"2|4|3|2|two|x", "3|5|0|3|three|x"}},
	} {
		s, err := snapshot.NewManager(tbl.FileIO).Get(ctx, tc.id)
		if err != nil {
			t.Fatal(err)
		}
		if s.ChangelogManifestList == nil || s.ChangelogRecordCount == nil || *s.ChangelogRecordCount != int64(len(tc.want)) {
			t.Fatalf("snapshot %d: changelog list %v, record count %v; want %d records", tc.id, s.ChangelogManifestList, s.ChangelogRecordCount, len(tc.want))
		}
		metas, err := manifest.ReadManifestList(ctx, tbl.FileIO, *s.ChangelogManifestList)
		if err != nil {
			t.Fatal(err)
		}
		var got []string
		for _, m := range metas {
			es, err := manifest.ReadManifest(ctx, tbl.FileIO, m.FileName)
			if err != nil {
				t.Fatal(err)
			}
			for _, e := range es {
				if e.Kind != manifest.Add || !strings.HasPrefix(e.File.FileName, "changelog-") {
					t.Errorf("snapshot %d changelog entry %s %s", tc.id, e.Kind, e.File.FileName)
				}
				for b, err := range reader.ReadDataFile(ctx, tbl.FileIO, "bucket-0/"+e.File.FileName, tbl.Schema,
					datafile.KeyValueFields(tbl.Schema), reader.FileReadOptions{}) {
					if err != nil {
						t.Fatal(err)
					}
					for i := range int(b.NumRows()) {
						var cols []string
						for _, c := range b.Columns() {
							cols = append(cols, c.ValueStr(i))
						}
						got = append(got, strings.Join(cols, "|"))
					}
					b.Release()
				}
			}
		}
		if !slices.Equal(got, tc.want) {
			t.Errorf("snapshot %d changelog\n got %q\nwant %q", tc.id, got, tc.want)
		}
	}
	equal(t, "table", diskRows(t, tbl), []string{"1|one-v2|x", "3|three|x"})
}
