package serve_test

import (
	"context"
	"net/http"
	"slices"
	"strings"
	"testing"

	"github.com/paimon-go/paimon/serve"
	"github.com/paimon-go/paimon/testenv"
)

// TestServeCommitFaultsKeepRows: an object-store failure during the
// server's prepare or commit drops no acknowledged row and aborts no
// producer: the rows stay readable, the next commit publishes them (a
// prepared commit whose outcome was unknown is recognised as landed), and
// a put stream open across the failure goes on. Faults come from
// testenv.FaultProxy in front of MinIO.
func TestServeCommitFaultsKeepRows(t *testing.T) {
	testenv.MinIO(t)
	snap := "snapshot/snapshot-2"
	for _, tc := range []struct {
		name   string
		faults []*testenv.Fault
		// snapshots: the snapshot ids committed, in the end.
		snapshots int64
	}{
		{"data file PUT denied", []*testenv.Fault{{Method: http.MethodPut, Key: "bucket-0/data-", Status: 403, Times: 1}}, 2},
		{"snapshot PUT denied", []*testenv.Fault{{Method: http.MethodPut, Key: snap, Status: 403, Times: 1}}, 2},
		{"manifest PUTs fail on every retry", []*testenv.Fault{{Method: http.MethodPut, Key: "manifest/manifest-", Status: 500}}, 2},
		{"snapshot PUT applied, answers and the check lost", []*testenv.Fault{
			{Method: http.MethodPut, Key: snap, After: true, Status: 500},
			{Method: http.MethodGet, Key: snap, Status: 500},
		}, 2},
	} {
		t.Run(strings.ReplaceAll(tc.name, " ", "_"), func(t *testing.T) {
			ctx := context.Background()
			proxy, wh := testenv.NewFaultProxy(t, testenv.MinIO(t))
			newTableAt(t, wh, true, map[string]string{"bucket": "1"})
			path := strings.Replace(wh, "?", "/db.db/t?", 1)
			srv, c := start(t, path, serve.Config{})
			sample := kn([]int32{0}, []int64{0}, nil)
			ps, err := c.OpenPut(ctx, sample.Schema())
			sample.Release()
			if err != nil {
				t.Fatal(err)
			}
			var want []string
			send := func(from, to int32) {
				t.Helper()
				var ks []int32
				var ns []int64
				for k := from; k < to; k++ {
					ks, ns = append(ks, k), append(ns, int64(k)*10)
					want = append(want, rowString(k))
				}
				rec := kn(ks, ns, nil)
				defer rec.Release()
				if n, err := ps.Write(rec); err != nil || n != int64(len(want)) {
					t.Fatalf("put: %d acknowledged of %d, %v", n, len(want), err)
				}
			}
			send(0, 10)
			if id, err := srv.Commit(ctx); err != nil || id != 1 {
				t.Fatalf("commit 1: %d %v", id, err)
			}
			send(10, 20)
			proxy.Inject(tc.faults...)
			if id, err := srv.Commit(ctx); err == nil {
				t.Fatalf("commit under %s succeeded (snapshot %d)", tc.name, id)
			}
			proxy.Clear()
			if got := views(t, c, path, []int32{5, 15, 25}); !slices.Equal(got, sorted(want)) {
				t.Fatalf("after the failed commit: %v, want %v", got, sorted(want))
			}
			send(20, 30) // the stream goes on
			id, err := srv.Commit(ctx)
			if err != nil {
				t.Fatalf("commit after the fault: %v", err)
			}
			if err := ps.Close(); err != nil {
				t.Fatalf("put stream: %v", err)
			}
			if got := committedRows(t, path); !slices.Equal(got, sorted(want)) {
				t.Fatalf("committed (snapshot %d): %v, want %v", id, got, sorted(want))
			}
			if p := mustProgress(t, c); p.SnapshotID != id || len(p.Offsets) != 1 {
				t.Fatalf("progress %+v, snapshot %d", p, id)
			}
		})
	}
}
