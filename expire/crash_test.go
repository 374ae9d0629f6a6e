package expire_test

import (
	"context"
	"errors"
	"fmt"
	"math/rand/v2"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/paimon-go/paimon/catalog"
	"github.com/paimon-go/paimon/commit"
	"github.com/paimon-go/paimon/expire"
	"github.com/paimon-go/paimon/fileio"
	"github.com/paimon-go/paimon/internal/tabletest"
	"github.com/paimon-go/paimon/progress"
	"github.com/paimon-go/paimon/reader"
	"github.com/paimon-go/paimon/snapshot"
	"github.com/paimon-go/paimon/tag"
	"github.com/paimon-go/paimon/types"
)

var kvpFields = []types.DataField{{Name: "k", Type: types.BigInt()}, {Name: "v", Type: types.String()}, {Name: "p", Type: types.String()}}

// rtTable creates a real-time table (k, v, p) partitioned by p with one
// bucket, as in realtime-design.md section 13.1.
func rtTable(t *testing.T) *catalog.Table {
	return tabletest.NewTable(t, "", catalog.Schema{Fields: kvpFields, PartitionKeys: []string{"p"},
		Options: map[string]string{"bucket": "1", "bucket-key": "k", "realtime.enabled": "true"}})
}

func kvp(p string, ks ...int64) [][]any {
	out := make([][]any, len(ks))
	for i, k := range ks {
		out[i] = []any{k, fmt.Sprintf("value-%d", k), p}
	}
	return out
}

// commitProgress commits rows of partition p with the offset range
// [begin, end) of partition-bucket p/0.
func commitProgress(t *testing.T, tbl *catalog.Table, ident, begin, end int64, rows [][]any) int64 {
	t.Helper()
	c, err := commit.New(tbl.FileIO, tbl.Schema, "rt")
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close()
	pb := progress.PartitionBucket{Partition: map[string]string{"p": rows[0][2].(string)}, Bucket: 0}
	id, err := c.CommitWithProgress(context.Background(), ident, prepare(t, tbl, rows),
		[]progress.Advance{{PartitionBucket: pb, Range: progress.Range{Begin: begin, End: end}}}, nil)
	if err != nil {
		t.Fatal(err)
	}
	return id
}

// overwritePartition replaces partition p with rows.
func overwritePartition(t *testing.T, tbl *catalog.Table, p string, rows [][]any) int64 {
	t.Helper()
	c, err := commit.New(tbl.FileIO, tbl.Schema, "u")
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close()
	id, err := c.Overwrite(context.Background(), commit.BatchIdentifier, commit.PartitionSpec{"p": p}, prepare(t, tbl, rows))
	if err != nil {
		t.Fatal(err)
	}
	return id
}

// crashHistory builds snapshots 1-6 and tag t2 of a real-time table and
// returns the rows of every snapshot and tag.
func crashHistory(t *testing.T) (*catalog.Table, map[string][]string) {
	tbl := rtTable(t)
	commitProgress(t, tbl, 1, 0, 2, kvp("a", 1, 2)) // 1: offsets file O1
	write(t, tbl, kvp("b", 3))                      // 2: shares O1
	if _, err := tag.Create(context.Background(), tbl.FileIO, tbl.Schema, "t2", 2, tag.CreateOptions{}); err != nil {
		t.Fatal(err)
	}
	commitProgress(t, tbl, 2, 2, 3, kvp("a", 4)) // 3: O3
	overwritePartition(t, tbl, "a", kvp("a", 5)) // 4: drops p=a progress
	commitProgress(t, tbl, 3, 0, 1, kvp("a", 6)) // 5: O5
	write(t, tbl, kvp("b", 7))                   // 6: shares O5
	return tbl, rowsOf(t, tbl.FileIO)
}

// rowsOf reads every snapshot and tag of the table.
func rowsOf(t *testing.T, fio *fileio.FileIO) map[string][]string {
	t.Helper()
	ctx := context.Background()
	sm := snapshot.NewManager(fio)
	out := map[string][]string{}
	ids, err := sm.IDs(ctx)
	if err != nil {
		t.Fatal(err)
	}
	for _, id := range ids {
		out[fmt.Sprint(id)] = read(t, fio, reader.WithSnapshot(id))
	}
	tags, err := sm.Tags(ctx)
	if err != nil {
		t.Fatal(err)
	}
	for _, tg := range tags {
		out["tag "+tg.Name] = read(t, fio, reader.WithTag(tg.Name))
	}
	return out
}

var errCrash = errors.New("injected crash")

// TestExpireInterrupted interrupts the expiration after every possible number
// of deletions. Each time every snapshot from EARLIEST on and the tag read as
// before, and a rerun ends in exactly the state of an uninterrupted run.
func TestExpireInterrupted(t *testing.T) {
	ctx := context.Background()
	tbl, rows := crashHistory(t)
	dir := localDir(t, tbl.FileIO)
	opts := expire.Options{RetainMin: 2, OlderThan: time.Now().Add(time.Second), Parallelism: 1}

	refFIO, refTS := copyDir(t, dir)
	ref, err := expire.Expire(ctx, refFIO, refTS, opts)
	if err != nil {
		t.Fatal(err)
	}
	equal(t, "expired", ref.Expired, []int64{1, 2, 3, 4})
	// The offsets file of 1 and 2 is the tag's; 3's goes; 5's is kept by 5 and 6.
	s := func(fio *fileio.FileIO, id int64) string {
		p, err := progress.Path(fio, getSnap(t, fio, id).Properties[progress.Property])
		if err != nil {
			t.Fatal(err)
		}
		return p
	}
	orig, _ := open(t, dir)
	if o1, o2 := s(orig, 1), s(orig, 2); o1 != o2 {
		t.Fatalf("snapshots 1 and 2 name %s and %s", o1, o2)
	}
	if _, ok := getSnap(t, orig, 4).Properties[progress.Property]; ok {
		t.Fatalf("snapshot 4 (overwrite of the only partition with progress) has progress")
	}
	offsets := func(paths []string) []string {
		var out []string
		for _, p := range paths {
			if len(p) > 9 && p[:9] == "metadata/" {
				out = append(out, p)
			}
		}
		return out
	}
	equal(t, "offsets files deleted", offsets(ref.Deleted), []string{s(orig, 3)})
	refFiles := files(t, refFIO)
	equal(t, "offsets files left", offsets(refFiles), sorted([]string{s(orig, 1), s(orig, 5)}))
	checkRows(t, refFIO, rows)

	for k := 0; k < len(ref.Deleted); k++ {
		t.Run(fmt.Sprint("after ", k), func(t *testing.T) {
			fio, ts := copyDir(t, dir)
			o := opts
			n := 0
			expire.SetBeforeDelete(&o, func(string) error {
				if n == k {
					return errCrash
				}
				n++
				return nil
			})
			if _, err := expire.Expire(ctx, fio, ts, o); !errors.Is(err, errCrash) {
				t.Fatalf("interrupted run: %v", err)
			}
			if got := hint(t, fio, "EARLIEST"); got != "5" {
				t.Errorf("EARLIEST after the interruption %q, want 5", got)
			}
			checkRows(t, fio, rows)
			var left []int64
			for _, id := range ref.Expired {
				if exists(t, fio, id) {
					left = append(left, id)
				}
			}
			// A rerun at once deletes only the snapshot files below EARLIEST:
			// a commit may have just created one in a gap and will take it
			// back (commit/gap.go), reusing the files it names.
			fyoung, _ := copyDir(t, strings.TrimPrefix(fio.URL(), "file://"))
			yres, err := expire.Expire(ctx, fyoung, ts, opts)
			if err != nil {
				t.Fatal(err)
			}
			var wantDel []string
			for _, id := range left {
				wantDel = append(wantDel, "snapshot/snapshot-"+fmt.Sprint(id))
			}
			equal(t, "expired right after the interruption", yres.Expired, left)
			equal(t, "deleted right after the interruption", yres.Deleted, wantDel)
			checkRows(t, fyoung, rows)
			later := opts
			later.Now = func() time.Time { return time.Now().Add(time.Hour) }
			res, err := expire.Expire(ctx, fio, ts, later)
			if err != nil {
				t.Fatal(err)
			}
			equal(t, "expired by the rerun", res.Expired, left)
			equal(t, "files after the rerun", files(t, fio), refFiles)
			equal(t, "deleted in both runs", sorted(append(slices.Clone(ref.Deleted[:k]), res.Deleted...)), sorted(ref.Deleted))
			checkRows(t, fio, rows)
		})
	}
}

func exists(t *testing.T, fio *fileio.FileIO, id int64) bool {
	ok, err := snapshot.NewManager(fio).Exists(context.Background(), id)
	if err != nil {
		t.Fatal(err)
	}
	return ok
}

// checkRows checks that every snapshot from EARLIEST on, and every tag, reads
// the rows in want, and that the latest progress is readable.
func checkRows(t *testing.T, fio *fileio.FileIO, want map[string][]string) {
	t.Helper()
	ctx := context.Background()
	sm := snapshot.NewManager(fio)
	earliest, err := sm.EarliestID(ctx)
	if err != nil {
		t.Fatal(err)
	}
	ids, err := sm.IDs(ctx)
	if err != nil {
		t.Fatal(err)
	}
	for _, id := range ids {
		if id >= earliest {
			equal(t, fmt.Sprint("snapshot ", id), read(t, fio, reader.WithSnapshot(id)), want[fmt.Sprint(id)])
		}
	}
	tags, err := sm.Tags(ctx)
	if err != nil {
		t.Fatal(err)
	}
	for _, tg := range tags {
		equal(t, "tag "+tg.Name, read(t, fio, reader.WithTag(tg.Name)), want["tag "+tg.Name])
		if _, _, err := progress.OfSnapshot(ctx, fio, "", &tg.Snapshot); err != nil {
			t.Errorf("progress of tag %s: %v", tg.Name, err)
		}
	}
	if _, err := progress.ReadCommitted(ctx, fio, "", 0); err != nil {
		t.Errorf("latest progress: %v", err)
	}
}

// TestExpireNeverListsBrokenSnapshot is case (d) of issue 6 as a model test:
// random appends, partition overwrites, tags and expirations with random
// retention; after every step every listed snapshot and every tag reads
// exactly the rows it read when it was created.
func TestExpireNeverListsBrokenSnapshot(t *testing.T) {
	ctx := context.Background()
	tbl := tabletest.NewTable(t, "", catalog.Schema{Fields: kvpFields, PartitionKeys: []string{"p"}})
	fio := tbl.FileIO
	rng := rand.New(rand.NewPCG(6, 4))
	model := map[string][]string{} // snapshot id or "tag name" -> rows
	next := int64(0)
	expirations := 0
	for step := 0; step < 60; step++ {
		p := []string{"a", "b", "c"}[rng.IntN(3)]
		switch op := rng.IntN(10); {
		case op < 4:
			next++
			id := write(t, tbl, kvp(p, next))
			model[fmt.Sprint(id)] = read(t, fio, reader.WithSnapshot(id))
		case op < 6:
			next++
			id := overwritePartition(t, tbl, p, kvp(p, next))
			model[fmt.Sprint(id)] = read(t, fio, reader.WithSnapshot(id))
		case op < 7:
			ids, err := snapshot.NewManager(fio).IDs(ctx)
			if err != nil || len(ids) == 0 {
				continue
			}
			earliest, err := snapshot.NewManager(fio).EarliestID(ctx)
			if err != nil {
				t.Fatal(err)
			}
			id := earliest + rng.Int64N(ids[len(ids)-1]-earliest+1)
			name := fmt.Sprint("t", step)
			if _, err := tag.Create(ctx, fio, tbl.Schema, name, id, tag.CreateOptions{}); err != nil {
				t.Fatal(err)
			}
			model["tag "+name] = model[fmt.Sprint(id)]
		case op < 8:
			tags, err := tag.List(ctx, fio, "")
			if err != nil || len(tags) == 0 {
				continue
			}
			name := tags[rng.IntN(len(tags))].Name
			if _, err := tag.Delete(ctx, fio, tbl.Schema, name, tag.DeleteOptions{}); err != nil {
				t.Fatal(err)
			}
			delete(model, "tag "+name)
		default:
			minR := 1 + rng.IntN(3)
			if _, err := expire.Expire(ctx, fio, tbl.Schema, expire.Options{RetainMin: minR, RetainMax: minR + rng.IntN(3), OlderThan: time.Now().Add(time.Second)}); err != nil {
				t.Fatal(err)
			}
			expirations++
		}
		// Every listed snapshot is complete.
		snaps, err := snapshot.NewManager(fio).List(ctx)
		if err != nil {
			t.Fatal(err)
		}
		for _, s := range snaps {
			equal(t, fmt.Sprintf("step %d: snapshot %d", step, s.ID), read(t, fio, reader.WithSnapshot(s.ID)), model[fmt.Sprint(s.ID)])
		}
		tags, err := tag.List(ctx, fio, "")
		if err != nil {
			t.Fatal(err)
		}
		for _, tg := range tags {
			equal(t, fmt.Sprintf("step %d: tag %s", step, tg.Name), read(t, fio, reader.WithTag(tg.Name)), model["tag "+tg.Name])
		}
		if t.Failed() {
			t.FailNow()
		}
	}
	if expirations < 5 {
		t.Fatalf("only %d expirations", expirations)
	}
	// The data files left are exactly those of the snapshots and tags left:
	// expiration and tag deletion leave no garbage behind.
	want := map[string]bool{}
	snaps, _ := snapshot.NewManager(fio).List(ctx)
	tags, _ := tag.List(ctx, fio, "")
	if last := snaps[len(snaps)-1].ID; len(snaps) > 6 || last < 20 {
		t.Fatalf("%d snapshots left of %d: expiration did not expire", len(snaps), last)
	}
	for _, s := range snaps {
		for _, f := range dataFiles(t, fio, s.ID) {
			want[f] = true
		}
	}
	for _, tg := range tags {
		pl, err := reader.NewScan(fio, reader.WithTag(tg.Name)).Plan(ctx)
		if err != nil {
			t.Fatal(err)
		}
		for _, sp := range pl.Splits {
			for _, f := range sp.Files {
				want[sp.BucketPath+"/"+f.FileName] = true
			}
		}
	}
	var got []string
	for _, f := range files(t, fio) {
		if len(f) > 2 && f[:2] == "p=" {
			got = append(got, f)
		}
	}
	var wantList []string
	for f := range want {
		wantList = append(wantList, f)
	}
	equal(t, "data files left", got, sorted(wantList))
}

// TestExpireDuringCommits expires while another goroutine commits: every
// snapshot left reads completely, and the latest holds every row.
func TestExpireDuringCommits(t *testing.T) {
	ctx := context.Background()
	tbl := kvTable(t, nil)
	write(t, tbl, kv([]int64{0}, "x"))
	done := make(chan struct{})
	go func() {
		defer close(done)
		for k := int64(1); k < 15; k++ {
			r := tabletest.Batch(t, types.SchemaToArrow(tbl.Schema.Fields), kv([]int64{k}, "x")...)
			_, err := tabletest.Commit(ctx, tbl, "w", commit.BatchIdentifier, r)
			r.Release()
			if err != nil {
				t.Error(err)
				return
			}
		}
	}()
	runs := 0
	for running := true; running; runs++ {
		select {
		case <-done:
			running = false
		default:
		}
		if _, err := expire.Expire(ctx, tbl.FileIO, tbl.Schema, expire.Options{RetainMin: 2, OlderThan: time.Now().Add(time.Second)}); err != nil {
			t.Fatal(err)
		}
	}
	snaps, err := snapshot.NewManager(tbl.FileIO).List(ctx)
	if err != nil {
		t.Fatal(err)
	}
	if len(snaps) != 2 || snaps[1].ID != 15 {
		t.Fatalf("%d snapshots left after %d runs, last %d", len(snaps), runs, snaps[len(snaps)-1].ID)
	}
	var want []string
	for k := 0; k < 15; k++ {
		want = append(want, fmt.Sprintf("%d|x", k))
	}
	slices.Sort(want)
	equal(t, "latest", read(t, tbl.FileIO), want)
	equal(t, "snapshot 14", read(t, tbl.FileIO, reader.WithSnapshot(14)), slices.DeleteFunc(slices.Clone(want), func(s string) bool { return s == "14|x" }))
}
