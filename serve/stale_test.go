package serve_test

import (
	"context"
	"fmt"
	"slices"
	"testing"
	"time"

	"github.com/paimon-go/paimon/compaction"
	"github.com/paimon-go/paimon/expire"
	"github.com/paimon-go/paimon/serve"
)

// TestServeExternalCompactExpire: a full compaction and an expiration run
// by another committer beside the server delete the level-0 files the
// server's flush writer holds in its levels. The server's next commit must
// still publish every acknowledged row: the flush writer is restored from
// the table and the rows it held are flushed again, never dropped (a
// review found 780 of 4,500 acknowledged rows lost: the server recreated
// its context after the stale prepare).
func TestServeExternalCompactExpire(t *testing.T) {
	ctx := context.Background()
	path := newTable(t, true, map[string]string{"bucket": "1", "num-sorted-run.compaction-trigger": "2"})
	srv, c := start(t, path, serve.Config{})
	var want []string
	next := int32(0)
	round := func() {
		t.Helper()
		ks, ns := make([]int32, 5), make([]int64, 5)
		for i := range ks {
			next++
			ks[i], ns[i] = next, int64(next)*10
			want = append(want, rowString(next))
		}
		put(t, c, kn(ks, ns, nil))
	}
	for range 3 {
		round()
		if _, err := srv.Commit(ctx); err != nil {
			t.Fatal(err)
		}
	}
	other := openTable(t, path)
	if _, err := compaction.Compact(ctx, other.FileIO(), other.Schema(), "compactor", compaction.Options{Full: true}); err != nil {
		t.Fatal(err)
	}
	res, err := expire.Expire(ctx, other.FileIO(), other.Schema(), expire.Options{RetainMin: 1, RetainMax: 1, OlderThan: time.Now().Add(time.Hour)})
	if err != nil || len(res.Expired) == 0 {
		t.Fatalf("expire: %+v %v", res, err)
	}
	for i := range 3 {
		round()
		if _, err := srv.Commit(ctx); err != nil {
			t.Fatalf("commit %d after the external compaction and expiration: %v", i, err)
		}
		if got := views(t, c, path, nil); !slices.Equal(got, sorted(want)) {
			t.Fatalf("after commit %d: %v, want %v", i, got, sorted(want))
		}
	}
	if got := committedRows(t, path); !slices.Equal(got, sorted(want)) {
		t.Fatalf("committed: %v, want %v", got, sorted(want))
	}
}

func rowString(k int32) string { return fmt.Sprint(k, " ", int64(k)*10) }

func sorted(rows []string) []string {
	out := slices.Clone(rows)
	slices.Sort(out)
	return out
}

// committedRows reads the latest snapshot of path from a new table handle
// (no server), sorted.
func committedRows(t testing.TB, path string) []string {
	t.Helper()
	tb := openTable(t, path)
	plan, err := tb.NewScan().Plan(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	return rowsOf(t, collect(t, plan.Records(context.Background())), true)
}
