package expire_test

import (
	"context"
	"testing"
	"time"

	"github.com/paimon-go/paimon/expire"
	"github.com/paimon-go/paimon/progress"
)

// TestScenario09SharedOffsetFile is TestCompactionSnapshotRetainsSharedOffsetFile
// (realtime-design.md section 13.1, scenario 9): a commit without progress
// names the same offsets file as the real-time snapshot before it; expiring
// the real-time snapshot keeps the shared file, which still reads 5.
func TestScenario09SharedOffsetFile(t *testing.T) {
	ctx := context.Background()
	tbl := rtTable(t)
	fio := tbl.FileIO
	commitProgress(t, tbl, 1, 0, 5, kvp("a", 0, 1, 2, 3, 4))
	write(t, tbl, kvp("a", 9))
	p1, p2 := getSnap(t, fio, 1).Properties[progress.Property], getSnap(t, fio, 2).Properties[progress.Property]
	if p1 == "" || p1 != p2 {
		t.Fatalf("offsets properties %q and %q", p1, p2)
	}
	shared, err := progress.Path(fio, p1)
	if err != nil {
		t.Fatal(err)
	}
	res, err := expire.Expire(ctx, fio, tbl.Schema, expire.Options{RetainMin: 1, OlderThan: time.Now().Add(time.Second)})
	if err != nil {
		t.Fatal(err)
	}
	equal(t, "expired", res.Expired, []int64{1})
	for _, p := range res.Deleted {
		if p == shared {
			t.Errorf("expiration deleted the shared offsets file %s", p)
		}
	}
	if ok, err := fio.Exists(ctx, shared); err != nil || !ok {
		t.Fatalf("shared offsets file %s: exists %v, %v", shared, ok, err)
	}
	pb := progress.PartitionBucket{Partition: map[string]string{"p": "a"}, Bucket: 0}
	if end, err := progress.ReadOffset(ctx, fio, "", 0, pb); err != nil || end != 5 {
		t.Errorf("progress %d, %v; want 5", end, err)
	}
}
