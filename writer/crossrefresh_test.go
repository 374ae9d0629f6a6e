package writer_test

import (
	"context"
	"errors"
	"fmt"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/paimon-go/paimon/catalog"
	"github.com/paimon-go/paimon/commit"
	"github.com/paimon-go/paimon/format"
	"github.com/paimon-go/paimon/maintain"
	"github.com/paimon-go/paimon/row"
	"github.com/paimon-go/paimon/snapshot"
	"github.com/paimon-go/paimon/types"
	"github.com/paimon-go/paimon/writer"
)

// other0 is the key writer b moves in its second commit of a round.
func other0(round int32) int32 { return (round+2)%4 + 1 }

// longWriter is a long-lived Write and Committer of one commit user whose
// commits expire snapshots as paimon.Table.NewCommit does (package
// maintain), with a clock an hour ahead so every snapshot beyond
// snapshot.num-retained.min is due.
func longWriter(t *testing.T, tbl *catalog.Table, user string) (*writer.Write, *commit.Committer) {
	t.Helper()
	w, err := writer.New(tbl.FileIO, tbl.Schema, user)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { w.Close() })
	m, err := maintain.New(tbl.FileIO, tbl.Schema, user, maintain.Options{
		OnError: func(err error) { t.Errorf("maintenance of %s: %v", user, err) },
		Now:     func() time.Time { return time.Now().Add(time.Hour) },
	})
	if err != nil {
		t.Fatal(err)
	}
	c, err := commit.New(tbl.FileIO, tbl.Schema, user, commit.WithMaintainer(m))
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { c.Close() })
	return w, c
}

// TestCrossPartitionRefresh: two long-lived writers of a deduplicate
// cross-partition table take turns while every commit expires all but
// the last two snapshots. Writer b moves a key to another partition (and
// in even rounds commits again, moving another key and adding key 5, so
// that a's next refresh finds a snapshot of its range expired); writer
// a then writes that key back to p=1 and another key. Each commit of a
// succeeds (its key index is refreshed to the latest snapshot before it
// routes, so no expired snapshot lies in its guard's range), its messages
// carry KeyIndexFrom = the latest snapshot before its write (the guard reads
// no older snapshot), its routing writes the DELETE of the moved key at
// b's placement, and after every round each key is held once with its
// last value.
func TestCrossPartitionRefresh(t *testing.T) {
	ctx := context.Background()
	tbl := crossTable(t, map[string]string{
		"snapshot.num-retained.min": "1",
		"snapshot.num-retained.max": "2",
		"snapshot.time-retained":    "1 min",
	}, types.DataField{Name: "v", Type: types.String()})
	fs := arrowFields(tbl.Schema)
	model := map[int32]string{} // key -> "id|p|v"
	put := func(k, p int32, v string) []any {
		model[k] = fmt.Sprintf("%d|%d|%s", k, p, v)
		return []any{k, p, v}
	}
	writeCommit(t, tbl, "u0", 1, rec(t, fs, put(1, 1, "a"), put(2, 1, "b"), put(3, 1, "c"), put(4, 1, "d")))
	wa, ca := longWriter(t, tbl, "a")
	wb, cb := longWriter(t, tbl, "b")
	snaps := snapshot.NewManager(tbl.FileIO)
	write := func(w *writer.Write, rows ...[]any) {
		t.Helper()
		r := rec(t, fs, rows...)
		defer r.Release()
		if err := w.Write(ctx, r); err != nil {
			t.Fatal(err)
		}
	}
	for round := int32(1); round <= 6; round++ {
		moved, pb := round%4+1, round%3+2
		write(wb, put(moved, pb, fmt.Sprint("b", round)))
		if err := commitWrite(t, wb, cb, 2*int64(round)); err != nil {
			t.Fatalf("round %d: writer b commit = %v", round, err)
		}
		if round%2 == 0 {
			// A second commit of b: a's next refresh finds its own last
			// snapshot expired and bootstraps again from the latest.
			write(wb, put(5, pb, fmt.Sprint("b", round)), put(other0(round), 3, fmt.Sprint("y", round)))
			if err := commitWrite(t, wb, cb, 2*int64(round)+1); err != nil {
				t.Fatalf("round %d: writer b second commit = %v", round, err)
			}
		}
		latest := must(snaps.LatestID(ctx))
		other := (round+1)%4 + 1
		write(wa, put(moved, 1, fmt.Sprint("a", round)), put(other, round%2+1, fmt.Sprint("x", round)))
		msgs, err := wa.PrepareCommit(ctx)
		if err != nil {
			t.Fatal(err)
		}
		deleteAt := false
		for _, m := range msgs {
			if m.KeyIndexFrom != latest {
				t.Errorf("round %d: writer a's message KeyIndexFrom = %d, want %d (the latest snapshot before its write)", round, m.KeyIndexFrom, latest)
			}
			p := must(row.Decode([]types.DataType{types.Int()}, must(row.Deserialize(m.Partition))))[0]
			for _, f := range m.Data.NewFiles {
				if p == pb && f.DeleteRowCount != nil && *f.DeleteRowCount == 1 {
					deleteAt = true
				}
			}
		}
		if !deleteAt {
			t.Errorf("round %d: writer a wrote no DELETE of key %d in p=%d, where writer b put it", round, moved, pb)
		}
		if _, err := ca.Commit(ctx, int64(round), msgs); err != nil {
			t.Fatalf("round %d: writer a commit = %v", round, err)
		}
		want := slices.Collect(func(yield func(string) bool) {
			for _, v := range model {
				if !yield(v) {
					return
				}
			}
		})
		equalRows(t, fmt.Sprint("round ", round), readRows(t, tbl.FileIO.URL()), sorted(want...))
	}
	if ids := must(snaps.IDs(ctx)); len(ids) > 2 {
		t.Errorf("snapshots %v retained, want at most 2 (expiration ran)", ids)
	}
}

// deletesAt returns the DELETE row count of msgs' new files per partition
// (a table partitioned by one INT) and checks their KeyIndexFrom.
func deletesAt(t *testing.T, msgs []commit.Message, from int64) map[any]int64 {
	t.Helper()
	out := map[any]int64{}
	for _, m := range msgs {
		if m.KeyIndexFrom != from {
			t.Errorf("message KeyIndexFrom = %d, want %d (the latest snapshot before the write)", m.KeyIndexFrom, from)
		}
		p := must(row.Decode([]types.DataType{types.Int()}, must(row.Deserialize(m.Partition))))[0]
		for _, f := range m.Data.NewFiles {
			if f.DeleteRowCount != nil && *f.DeleteRowCount > 0 {
				out[p] += *f.DeleteRowCount
			}
		}
	}
	return out
}

// TestCrossPartitionRefreshReplay: the refresh replays the snapshots after
// the key index in order, the Write's own included once another writer's
// precedes them. Writer a moves key 1 to p=2 while b moves it to p=3; a's
// commit retracts b's placement (commit's guard). b's next write, of key 1
// to p=4, deletes it where a's commit left it (p=2, not b's stale p=3);
// a's next write, of key 1 to p=1, deletes it at p=4. Rows are exact after
// every commit.
func TestCrossPartitionRefreshReplay(t *testing.T) {
	ctx := context.Background()
	tbl := crossTable(t, nil, types.DataField{Name: "v", Type: types.String()})
	fs := arrowFields(tbl.Schema)
	writeCommit(t, tbl, "u0", 1, rec(t, fs, []any{int32(1), int32(1), "a"}, []any{int32(2), int32(1), "b"}))
	snaps := snapshot.NewManager(tbl.FileIO)
	wa, ca := openCross(t, tbl, "a", []any{int32(1), int32(2), "a1"})
	wb, cb := openCross(t, tbl, "b", []any{int32(1), int32(3), "b1"})
	if err := commitWrite(t, wb, cb, 1); err != nil {
		t.Fatal(err)
	}
	if err := commitWrite(t, wa, ca, 1); err != nil {
		t.Fatal(err)
	}
	equalRows(t, "after a's first commit", readRows(t, tbl.FileIO.URL()), sorted("1|2|a1", "2|1|b"))

	step := func(w *writer.Write, c *commit.Committer, id int64, p int32, v string, delAt int32) {
		t.Helper()
		latest := must(snaps.LatestID(ctx))
		r := rec(t, fs, []any{int32(1), p, v})
		defer r.Release()
		if err := w.Write(ctx, r); err != nil {
			t.Fatal(err)
		}
		msgs, err := w.PrepareCommit(ctx)
		if err != nil {
			t.Fatal(err)
		}
		if got, want := deletesAt(t, msgs, latest), map[any]int64{delAt: 1}; fmt.Sprint(got) != fmt.Sprint(want) {
			t.Errorf("writing key 1 to p=%d: DELETE rows per partition %v, want %v", p, got, want)
		}
		if _, err := c.Commit(ctx, id, msgs); err != nil {
			t.Fatal(err)
		}
	}
	step(wb, cb, 2, 4, "b2", 2)
	equalRows(t, "after b's second commit", readRows(t, tbl.FileIO.URL()), sorted("1|4|b2", "2|1|b"))
	step(wa, ca, 2, 1, "a2", 4)
	equalRows(t, "after a's second commit", readRows(t, tbl.FileIO.URL()), sorted("1|1|a2", "2|1|b"))
}

// TestCrossPartitionRefreshCorrupt: a truncated data file another writer
// added fails the key index refresh of the next Write with
// format.ErrCorrupt naming the file, and nothing is routed.
func TestCrossPartitionRefreshCorrupt(t *testing.T) {
	ctx := context.Background()
	tbl := crossTable(t, nil, types.DataField{Name: "v", Type: types.String()})
	fs := arrowFields(tbl.Schema)
	wa, ca := openCross(t, tbl, "a", []any{int32(1), int32(1), "a"})
	if err := commitWrite(t, wa, ca, 1); err != nil {
		t.Fatal(err)
	}
	id := writeCommit(t, tbl, "b", 1, rec(t, fs, []any{int32(1), int32(2), "b"}))
	_, es := deltaEntries(t, tbl.FileIO, id)
	var path string
	for _, e := range es {
		if p := must(row.Decode([]types.DataType{types.Int()}, must(row.Deserialize(e.Partition))))[0]; p == int32(2) {
			path = "p=2/bucket-0/" + e.File.FileName
		}
	}
	if path == "" {
		t.Fatalf("snapshot %d added no file in p=2", id)
	}
	data := must(tbl.FileIO.ReadFile(ctx, path))
	if err := tbl.FileIO.Delete(ctx, path); err != nil {
		t.Fatal(err)
	}
	if err := tbl.FileIO.WriteFile(ctx, path, data[:len(data)/2]); err != nil {
		t.Fatal(err)
	}
	r := rec(t, fs, []any{int32(1), int32(3), "c"})
	defer r.Release()
	err := wa.Write(ctx, r)
	if !errors.Is(err, format.ErrCorrupt) || !strings.Contains(err.Error(), path) || !strings.Contains(err.Error(), "key index refresh") {
		t.Fatalf("Write = %v, want format.ErrCorrupt from the key index refresh naming %s", err, path)
	}
	if msgs, err := wa.PrepareCommit(ctx); err != nil || len(msgs) != 0 {
		t.Errorf("PrepareCommit after the failed Write = %d messages, %v; want none", len(msgs), err)
	}
}
