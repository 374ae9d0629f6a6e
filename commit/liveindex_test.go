package commit_test

import (
	"context"
	"slices"
	"testing"

	"github.com/paimon-go/paimon/catalog"
	"github.com/paimon-go/paimon/commit"
	"github.com/paimon-go/paimon/compaction"
	"github.com/paimon-go/paimon/internal/tabletest"
	"github.com/paimon-go/paimon/types"
)

// TestLiveIndexAcrossWriters: writer a prepares three commits of key 1
// against snapshot 1 (their files share sequence numbers), writer b one
// more; a's Committer commits a1 and a2, then b's commits b1, then a's
// commits a3. Each later commit must be re-sequenced after the ones before
// it (sequenceGuard): a2 on the base a's Committer published itself, whose
// live files come from its liveIndex without reading the base again; a3
// first on that cached base (a lost race, since b committed), then on the
// snapshot b published, read afresh. The row of key 1 is always the one
// committed last, also after a full compaction.
func TestLiveIndexAcrossWriters(t *testing.T) {
	ctx := context.Background()
	tbl := tabletest.NewTable(t, "", catalog.Schema{
		Fields:      []types.DataField{{Name: "k", Type: types.Int().NotNull()}, {Name: "v", Type: types.String()}},
		PrimaryKeys: []string{"k"},
		Options:     map[string]string{"bucket": "1"},
	})
	sc := types.SchemaToArrow(tbl.Schema.Fields)
	rec := func(v string) []commit.Message {
		r := tabletest.Batch(t, sc, []any{int32(1), v}, []any{int32(2), "x" + v})
		defer r.Release()
		return tabletest.Prepare(t, tbl, "w", r)
	}
	base := tabletest.Batch(t, sc, []any{int32(3), "base"})
	defer base.Release()
	tabletest.WriteCommit(t, tbl, "setup", 1, base)
	msgs := map[string][]commit.Message{"a1": rec("a1"), "a2": rec("a2"), "a3": rec("a3"), "b1": rec("b1")}
	ca, err := commit.New(tbl.FileIO, tbl.Schema, "a")
	if err != nil {
		t.Fatal(err)
	}
	defer ca.Close()
	cb, err := commit.New(tbl.FileIO, tbl.Schema, "b")
	if err != nil {
		t.Fatal(err)
	}
	defer cb.Close()
	url := tbl.FileIO.URL()
	hits := []int{}
	for i, step := range []struct {
		c    *commit.Committer
		name string
	}{{ca, "a1"}, {ca, "a2"}, {cb, "b1"}, {ca, "a3"}} {
		if _, err := step.c.Commit(ctx, int64(i+1), msgs[step.name]); err != nil {
			t.Fatalf("%s: %v", step.name, err)
		}
		hits = append(hits, commit.LiveIndexHits(ca))
		want := []string{"1|" + step.name, "2|x" + step.name, "3|base"}
		if got := tabletest.ReadRows(t, url); !slices.Equal(got, want) {
			t.Fatalf("after %s: rows %q, want %q", step.name, got, want)
		}
	}
	// a1 read its base; a2 took it from the index; a3's first attempt too
	// (then it lost the race and read b's snapshot).
	if !slices.Equal(hits, []int{0, 1, 1, 2}) {
		t.Errorf("a's live index served %v gets after each commit, want [0 1 1 2]", hits)
	}
	if _, err := compaction.Compact(ctx, tbl.FileIO, tbl.Schema, "compact", compaction.Options{Full: true}); err != nil {
		t.Fatal(err)
	}
	if got, want := tabletest.ReadRows(t, url), []string{"1|a3", "2|xa3", "3|base"}; !slices.Equal(got, want) {
		t.Fatalf("after a full compaction: rows %q, want %q", got, want)
	}
}
