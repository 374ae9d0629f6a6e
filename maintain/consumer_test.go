package maintain_test

import (
	"context"
	"os"
	"path/filepath"
	"reflect"
	"slices"
	"testing"
	"time"

	"github.com/paimon-go/paimon/catalog"
	"github.com/paimon-go/paimon/consumer"
)

// TestConsumerExpiration: with consumer.expiration-time, a commit deletes
// the consumers whose file is older than that (Java TableCommitImpl.expire)
// before expiring snapshots, so a stale consumer no longer holds snapshots
// back; a fresh one keeps them.
func TestConsumerExpiration(t *testing.T) {
	ctx := context.Background()
	now := time.Now()
	e := newEnv(t, catalog.Schema{Fields: fields, Options: map[string]string{
		"snapshot.num-retained.min": "1", "snapshot.num-retained.max": "1", "consumer.expiration-time": "1 h",
	}}, now)
	cm := consumer.New(e.tbl.FileIO, "")
	e.commit([]any{int64(1), "a"})
	for id, next := range map[string]int64{"stale": 1, "fresh": 2} {
		if err := cm.Write(ctx, id, next); err != nil {
			t.Fatal(err)
		}
	}
	old := now.Add(-2 * time.Hour)
	dir := filepath.Join(e.tbl.FileIO.URL()[len("file://"):], "consumer")
	if err := os.Chtimes(filepath.Join(dir, "consumer-stale"), old, old); err != nil {
		t.Fatal(err)
	}
	e.commit([]any{int64(2), "a"})
	e.commit([]any{int64(3), "a"})
	all, err := cm.List(ctx)
	if err != nil || !reflect.DeepEqual(all, map[string]int64{"fresh": 2}) {
		t.Fatalf("consumers %v, %v; want only fresh", all, err)
	}
	if got := e.ids(); !slices.Equal(got, []int64{2, 3}) {
		t.Fatalf("snapshots %v, want 2 3 (fresh consumer at 2)", got)
	}
	if st := e.m.Stats(); st.ConsumersExpired != 1 || st.Errors != 0 {
		t.Fatalf("stats %+v, want 1 consumer expired", st)
	}
}
