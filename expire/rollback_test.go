package expire_test

import (
	"context"
	"errors"
	"fmt"
	"testing"
	"time"

	"github.com/paimon-go/paimon/expire"
	"github.com/paimon-go/paimon/manifest"
	"github.com/paimon-go/paimon/orphan"
	"github.com/paimon-go/paimon/progress"
	"github.com/paimon-go/paimon/reader"
	"github.com/paimon-go/paimon/snapshot"
	"github.com/paimon-go/paimon/tag"
)

// TestRollbackToSnapshot rolls history back to snapshot 2: snapshots 3 and 4
// and the tag of 3 go with the files only they named; tag t1 stays; the next
// commit is snapshot 3.
func TestRollbackToSnapshot(t *testing.T) {
	ctx := context.Background()
	tbl := history(t)
	fio := tbl.FileIO
	for name, id := range map[string]int64{"t1": 1, "t3": 3} {
		if _, err := tag.Create(ctx, fio, tbl.Schema, name, id, tag.CreateOptions{}); err != nil {
			t.Fatal(err)
		}
	}
	s3, s4 := getSnap(t, fio, 3), getSnap(t, fio, 4)
	d3, d4 := dataFiles(t, fio, 3), dataFiles(t, fio, 4)
	if len(d3) != 1 || len(d4) != 2 {
		t.Fatalf("data files of 3 and 4: %v %v", d3, d4)
	}
	m3, m4 := manifests(t, fio, s3.DeltaManifestList), manifests(t, fio, s4.DeltaManifestList)
	before := files(t, fio)

	res, err := expire.Rollback(ctx, fio, tbl.Schema, expire.Target{Snapshot: 2}, expire.RollbackOptions{DeleteFiles: true})
	if err != nil {
		t.Fatal(err)
	}
	equal(t, "snapshots removed", res.Snapshots, []int64{4, 3})
	equal(t, "tags removed", res.Tags, []string{"t3"})
	want := d4 // (3,c) and (4,d), added by 3 and 4
	want = append(want, sorted(append(m3, m4...))...)
	want = append(want, sorted([]string{manifest.Path(s3.BaseManifestList), manifest.Path(s3.DeltaManifestList),
		manifest.Path(s4.BaseManifestList), manifest.Path(s4.DeltaManifestList)})...)
	equal(t, "deleted", res.Deleted, want)
	equal(t, "files after", files(t, fio), without(t, before, append(want, "snapshot/snapshot-3", "snapshot/snapshot-4", "tag/tag-t3")...))
	if got := hint(t, fio, "LATEST"); got != "2" {
		t.Errorf("LATEST %q, want 2", got)
	}
	equal(t, "latest", read(t, fio), []string{"1|a", "2|b"})
	equal(t, "tag t1", read(t, fio, reader.WithTag("t1")), []string{"1|a"})
	if id := write(t, tbl, kv([]int64{5}, "e")); id != 3 {
		t.Errorf("next commit created snapshot %d, want 3", id)
	}
	equal(t, "after the next commit", read(t, fio), []string{"1|a", "2|b", "5|e"})
}

// TestRollbackKeepsFiles: by default (Java 1.2+) a rollback removes only the
// newer snapshot and tag files; orphan cleaning then deletes exactly the
// files a rollback with DeleteFiles deletes.
func TestRollbackKeepsFiles(t *testing.T) {
	ctx := context.Background()
	tbl := history(t)
	fio := tbl.FileIO
	if _, err := tag.Create(ctx, fio, tbl.Schema, "t3", 3, tag.CreateOptions{}); err != nil {
		t.Fatal(err)
	}
	dir := localDir(t, fio)
	refFIO, refTS := copyDir(t, dir)
	ref, err := expire.Rollback(ctx, refFIO, refTS, expire.Target{Snapshot: 2}, expire.RollbackOptions{DeleteFiles: true})
	if err != nil || len(ref.Deleted) == 0 {
		t.Fatalf("rollback deleting files: %+v, %v", ref, err)
	}
	before := files(t, fio)
	res, err := expire.Rollback(ctx, fio, tbl.Schema, expire.Target{Snapshot: 2}, expire.RollbackOptions{})
	if err != nil {
		t.Fatal(err)
	}
	equal(t, "snapshots removed", res.Snapshots, []int64{4, 3})
	equal(t, "tags removed", res.Tags, []string{"t3"})
	equal(t, "deleted", res.Deleted, nil)
	equal(t, "files after", files(t, fio), without(t, before, "snapshot/snapshot-3", "snapshot/snapshot-4", "tag/tag-t3"))
	equal(t, "latest", read(t, fio), []string{"1|a", "2|b"})
	cleaned, err := orphan.Clean(ctx, fio, 0, orphan.Options{Now: time.Now().Add(time.Hour)})
	if err != nil {
		t.Fatal(err)
	}
	equal(t, "orphans cleaned", sorted(cleaned.Deleted), sorted(ref.Deleted))
	equal(t, "files after cleaning", files(t, fio), files(t, refFIO))
	equal(t, "latest after cleaning", read(t, fio), []string{"1|a", "2|b"})
}

// TestRollbackToExpiredTag: snapshots 1-3 expired, tag t1 kept snapshot 1's
// files. Rolling back to t1 writes snapshot-1 from the tag, deletes 4, sets
// both hints to 1 and deletes what only 4 named.
func TestRollbackToExpiredTag(t *testing.T) {
	ctx := context.Background()
	tbl := history(t)
	fio := tbl.FileIO
	tg, err := tag.Create(ctx, fio, tbl.Schema, "t1", 1, tag.CreateOptions{})
	if err != nil {
		t.Fatal(err)
	}
	if _, err := expire.Expire(ctx, fio, tbl.Schema, expire.Options{RetainMin: 1, OlderThan: time.Now().Add(time.Second)}); err != nil {
		t.Fatal(err)
	}
	s4 := getSnap(t, fio, 4)
	base4 := manifests(t, fio, s4.BaseManifestList) // (1,a), (2,b), overwrite
	if len(base4) != 3 {
		t.Fatalf("base list of 4: %v", base4)
	}
	delta4 := manifests(t, fio, s4.DeltaManifestList)
	d4 := dataFiles(t, fio, 4)
	before := files(t, fio)

	res, err := expire.Rollback(ctx, fio, tbl.Schema, expire.Target{Tag: "t1"}, expire.RollbackOptions{DeleteFiles: true})
	if err != nil {
		t.Fatal(err)
	}
	if !res.Created || res.Snapshot != 1 {
		t.Errorf("result %+v", res)
	}
	equal(t, "snapshots removed", res.Snapshots, []int64{4})
	want := d4
	want = append(want, sorted(append(base4[1:], delta4...))...)
	want = append(want, sorted([]string{manifest.Path(s4.BaseManifestList), manifest.Path(s4.DeltaManifestList)})...)
	equal(t, "deleted", res.Deleted, want)
	equal(t, "files after", files(t, fio), plus(without(t, before, append(want, "snapshot/snapshot-4")...), "snapshot/snapshot-1"))
	for name, wantID := range map[string]string{"LATEST": "1", "EARLIEST": "1"} {
		if got := hint(t, fio, name); got != wantID {
			t.Errorf("%s %q, want %s", name, got, wantID)
		}
	}
	got, err := fio.ReadFile(ctx, "snapshot/snapshot-1")
	if err != nil {
		t.Fatal(err)
	}
	wantJSON, _ := tg.Snapshot.Encode()
	if string(got) != string(wantJSON) {
		t.Errorf("snapshot-1:\n%s\nwant\n%s", got, wantJSON)
	}
	equal(t, "latest", read(t, fio), []string{"1|a"})
	if id := write(t, tbl, kv([]int64{5}, "e")); id != 2 {
		t.Errorf("next commit created snapshot %d, want 2", id)
	}
	equal(t, "after the next commit", read(t, fio), []string{"1|a", "5|e"})
}

// TestRollbackRealtime is scenario 36's disk side
// (TestReopenRealtimeContextAfterRollback): after rolling back to the
// snapshot whose progress ends at 3, the table's progress is 3, the newer
// offsets file is gone, and committing [3,5) again gives snapshot 2 with end 5.
func TestRollbackRealtime(t *testing.T) {
	ctx := context.Background()
	tbl := rtTable(t)
	fio := tbl.FileIO
	commitProgress(t, tbl, 1, 0, 3, kvp("a", 0, 1, 2))
	commitProgress(t, tbl, 2, 3, 5, kvp("a", 3, 4))
	o1, err := progress.Path(fio, getSnap(t, fio, 1).Properties[progress.Property])
	if err != nil {
		t.Fatal(err)
	}
	o2, err := progress.Path(fio, getSnap(t, fio, 2).Properties[progress.Property])
	if err != nil {
		t.Fatal(err)
	}
	res, err := expire.Rollback(ctx, fio, tbl.Schema, expire.Target{Snapshot: 1}, expire.RollbackOptions{DeleteFiles: true})
	if err != nil {
		t.Fatal(err)
	}
	if n := len(res.Deleted); n == 0 || res.Deleted[n-1] != o2 {
		t.Errorf("deleted %v, want the offsets file %s last", res.Deleted, o2)
	}
	pb := progress.PartitionBucket{Partition: map[string]string{"p": "a"}, Bucket: 0}
	end, err := progress.ReadOffset(ctx, fio, "", 0, pb)
	if err != nil || end != 3 {
		t.Fatalf("progress after rollback %d, %v; want 3", end, err)
	}
	if ok, _ := fio.Exists(ctx, o1); !ok {
		t.Errorf("offsets file %s of the target is gone", o1)
	}
	if id := commitProgress(t, tbl, 2, 3, 5, kvp("a", 3, 4)); id != 2 {
		t.Errorf("commit after rollback created snapshot %d, want 2", id)
	}
	if end, err := progress.ReadOffset(ctx, fio, "", 0, pb); err != nil || end != 5 {
		t.Errorf("progress %d, %v; want 5", end, err)
	}
	equal(t, "rows", read(t, fio), []string{"0|value-0|a", "1|value-1|a", "2|value-2|a", "3|value-3|a", "4|value-4|a"})
}

func TestRollbackErrors(t *testing.T) {
	ctx := context.Background()
	tbl := history(t)
	if _, err := expire.Expire(ctx, tbl.FileIO, tbl.Schema, expire.Options{RetainMin: 2, OlderThan: time.Now().Add(time.Second)}); err != nil {
		t.Fatal(err)
	}
	before := files(t, tbl.FileIO)
	for _, c := range []struct {
		to   expire.Target
		want error
	}{
		{expire.Target{}, expire.ErrInvalidArgument},
		{expire.Target{Snapshot: 2, Tag: "x"}, expire.ErrInvalidArgument},
		{expire.Target{Snapshot: -1}, expire.ErrInvalidArgument},
		{expire.Target{Snapshot: 2}, snapshot.ErrNotFound}, // expired, no tag
		{expire.Target{Snapshot: 9}, snapshot.ErrNotFound},
		{expire.Target{Tag: "nope"}, snapshot.ErrNotFound},
	} {
		if _, err := expire.Rollback(ctx, tbl.FileIO, tbl.Schema, c.to, expire.RollbackOptions{DeleteFiles: true}); !errors.Is(err, c.want) {
			t.Errorf("%+v: %v, want %v", c.to, err, c.want)
		}
	}
	equal(t, "files", files(t, tbl.FileIO), before)
}

// TestRollbackInterrupted interrupts a rollback after every number of
// deletions: the rerun finishes it, and orphan cleaning removes what the
// interrupted run could no longer find, ending in the state of an
// uninterrupted rollback.
func TestRollbackInterrupted(t *testing.T) {
	ctx := context.Background()
	tbl, rows := crashHistory(t)
	dir := localDir(t, tbl.FileIO)
	to := expire.Target{Snapshot: 3}
	refFIO, refTS := copyDir(t, dir)
	ref, err := expire.Rollback(ctx, refFIO, refTS, to, expire.RollbackOptions{Parallelism: 1, DeleteFiles: true})
	if err != nil {
		t.Fatal(err)
	}
	total := len(ref.Snapshots) + len(ref.Tags) + len(ref.Deleted)
	if len(ref.Snapshots) != 3 || len(ref.Deleted) < 6 {
		t.Fatalf("reference rollback: %+v", ref)
	}
	refFiles := files(t, refFIO)
	for k := 0; k < total; k++ {
		t.Run(fmt.Sprint("after ", k), func(t *testing.T) {
			fio, ts := copyDir(t, dir)
			o := expire.RollbackOptions{Parallelism: 1, DeleteFiles: true}
			n := 0
			expire.SetRollbackBeforeDelete(&o, func(string) error {
				if n == k {
					return errCrash
				}
				n++
				return nil
			})
			if _, err := expire.Rollback(ctx, fio, ts, to, o); !errors.Is(err, errCrash) {
				t.Fatalf("interrupted rollback: %v", err)
			}
			if _, err := expire.Rollback(ctx, fio, ts, to, expire.RollbackOptions{DeleteFiles: true}); err != nil {
				t.Fatal(err)
			}
			ids, err := snapshot.NewManager(fio).IDs(ctx)
			if err != nil {
				t.Fatal(err)
			}
			equal(t, "snapshots", ids, []int64{1, 2, 3})
			for id := int64(1); id <= 3; id++ {
				equal(t, fmt.Sprint("snapshot ", id), read(t, fio, reader.WithSnapshot(id)), rows[fmt.Sprint(id)])
			}
			if _, err := orphan.Clean(ctx, fio, 0, orphan.Options{Now: time.Now().Add(time.Hour)}); err != nil {
				t.Fatal(err)
			}
			equal(t, "files after rerun and orphan cleaning", files(t, fio), refFiles)
		})
	}
}
