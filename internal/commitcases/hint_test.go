package commitcases_test

import (
	"context"
	"slices"
	"testing"

	"github.com/paimon-go/paimon/snapshot"
)

// Issue 3, "Bad input and faults": a crash after the snapshot is published
// but before the LATEST hint is updated is repaired by the next reader.
//
// Three commits publish snapshots 1..3, then snapshot/LATEST is damaged as a
// crash (or a lost hint write) leaves it. The next reader must still read
// snapshot 3 (Java HintFileUtils.findLatest trusts LATEST = n only while
// snapshot n+1 is absent, else lists snapshot/), a committer of the same user
// retrying identifier 3 must find it and publish nothing, and the next commit
// must create snapshot 4 and rewrite the hint. Readers never write the hint,
// in Java as here.
func TestLatestHintRepair(t *testing.T) {
	cases := []struct {
		name string
		hint []byte // nil: the hint file is missing
	}{
		{name: "missing", hint: nil},
		{name: "stale", hint: []byte("1")},
		{name: "stale_by_one", hint: []byte("2")},
		{name: "garbage", hint: []byte("not a number")},
		{name: "empty", hint: []byte{}},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			ctx := context.Background()
			tbl := newPartitioned(t, "", nil)
			c := newCommitter(t, tbl)
			msgs := [][]any{{int32(1), "a"}, {int32(2), "b"}, {int32(3), "c"}}
			for i, row := range msgs {
				if id, err := c.Commit(ctx, int64(i+1), prepare(t, tbl, row)); err != nil || id != int64(i+1) {
					t.Fatalf("commit %d: id %d, %v", i+1, id, err)
				}
			}
			if err := c.Close(); err != nil {
				t.Fatal(err)
			}
			if got := readHint(t, tbl); got != "3" {
				t.Fatalf("LATEST hint %q after three commits, want \"3\"", got)
			}
			if tc.hint == nil {
				if err := tbl.FileIO.Delete(ctx, "snapshot/LATEST"); err != nil {
					t.Fatal(err)
				}
			} else if err := tbl.FileIO.WriteFile(ctx, "snapshot/LATEST", tc.hint); err != nil {
				t.Fatal(err)
			}

			want3 := []string{"1|a", "2|b", "3|c"}
			if id, rows := scanRows(t, tbl); id != 3 || !slices.Equal(rows, want3) {
				t.Fatalf("scan read snapshot %d rows %v, want snapshot 3 rows %v", id, rows, want3)
			}
			if id, err := snapshot.NewManager(tbl.FileIO).LatestID(ctx); err != nil || id != 3 {
				t.Fatalf("LatestID: %d, %v; want 3", id, err)
			}

			// A new committer of the same user retrying identifier 3 (e.g.
			// after the crash) sees it landed.
			c2 := newCommitter(t, tbl)
			if id, err := c2.Commit(ctx, 3, prepare(t, tbl, []any{int32(3), "c"})); err != nil || id != 3 {
				t.Fatalf("retry of identifier 3: id %d, %v; want 3 (already committed)", id, err)
			}
			if got := snapshotIDs(t, tbl); !slices.Equal(got, []int64{1, 2, 3}) {
				t.Fatalf("snapshot files %v after the retry, want [1 2 3]", got)
			}
			if id, err := c2.Commit(ctx, 4, prepare(t, tbl, []any{int32(4), "d"})); err != nil || id != 4 {
				t.Fatalf("next commit: id %d, %v; want 4", id, err)
			}
			if err := c2.Close(); err != nil {
				t.Fatal(err)
			}
			if got := readHint(t, tbl); got != "4" {
				t.Fatalf("LATEST hint %q after the next commit, want \"4\"", got)
			}
			if id, rows := scanRows(t, tbl); id != 4 || !slices.Equal(rows, append(want3, "4|d")) {
				t.Fatalf("scan read snapshot %d rows %v, want snapshot 4", id, rows)
			}
		})
	}
}
