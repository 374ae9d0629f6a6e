package tag_test

import (
	"context"
	"errors"
	"fmt"
	"slices"
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

var fields = []types.DataField{{Name: "k", Type: types.BigInt()}, {Name: "v", Type: types.String()}, {Name: "p", Type: types.String()}}

func newTable(t *testing.T, opts map[string]string) *catalog.Table {
	return tabletest.NewTable(t, "", catalog.Schema{Fields: fields, PartitionKeys: []string{"p"}, Options: opts})
}

func rows(p string, ks ...int64) [][]any {
	out := make([][]any, len(ks))
	for i, k := range ks {
		out[i] = []any{k, fmt.Sprint("v", k), p}
	}
	return out
}

func write(t *testing.T, tbl *catalog.Table, rs [][]any) int64 {
	t.Helper()
	r := tabletest.Batch(t, types.SchemaToArrow(tbl.Schema.Fields), rs...)
	defer r.Release()
	return tabletest.WriteCommit(t, tbl, "u", commit.BatchIdentifier, r)
}

func files(t *testing.T, fio *fileio.FileIO) []string {
	t.Helper()
	infos, err := fio.ListRecursive(context.Background(), "")
	if err != nil {
		t.Fatal(err)
	}
	out := make([]string, len(infos))
	for i, fi := range infos {
		out[i] = fi.Path
	}
	return out
}

func equal[T comparable](t *testing.T, what string, got, want []T) {
	t.Helper()
	if !slices.Equal(got, want) {
		t.Errorf("%s:\n got %v\nwant %v", what, got, want)
	}
}

func read(t *testing.T, tbl *catalog.Table, opts ...reader.Option) []string {
	t.Helper()
	return tabletest.ReadRows(t, tbl.FileIO.URL(), opts...)
}

// TestCreateWritesSnapshotJSON: without a retention time the tag file is the
// snapshot file (Java writes snapshot.toJson()); time travel reads it.
func TestCreateWritesSnapshotJSON(t *testing.T) {
	ctx := context.Background()
	tbl := newTable(t, nil)
	write(t, tbl, rows("a", 1))
	write(t, tbl, rows("a", 2))
	for name, id := range map[string]int64{"first": 1, "latest": 0} {
		tg, err := tag.Create(ctx, tbl.FileIO, tbl.Schema, name, id, tag.CreateOptions{})
		if err != nil {
			t.Fatal(err)
		}
		want := map[string]int64{"first": 1, "latest": 2}[name]
		if tg.ID != want || tg.Name != name || tg.CreateTime != nil || tg.TimeRetained != nil {
			t.Errorf("%s: tag %+v", name, tg)
		}
		got, err := tbl.FileIO.ReadFile(ctx, "tag/tag-"+name)
		if err != nil {
			t.Fatal(err)
		}
		snap, err := tbl.FileIO.ReadFile(ctx, fmt.Sprint("snapshot/snapshot-", want))
		if err != nil {
			t.Fatal(err)
		}
		if string(got) != string(snap) {
			t.Errorf("tag-%s:\n%s\nsnapshot-%d:\n%s", name, got, want, snap)
		}
	}
	equal(t, "tag first", read(t, tbl, reader.WithTag("first")), []string{"1|v1|a"})
	equal(t, "tag latest", read(t, tbl, reader.WithTag("latest")), []string{"1|v1|a", "2|v2|a"})
	tags, err := tag.List(ctx, tbl.FileIO, "")
	if err != nil {
		t.Fatal(err)
	}
	var names []string
	for _, tg := range tags {
		names = append(names, fmt.Sprint(tg.Name, "@", tg.ID))
	}
	equal(t, "list", names, []string{"first@1", "latest@2"})
}

func TestCreateWithRetention(t *testing.T) {
	ctx := context.Background()
	tbl := newTable(t, map[string]string{"tag.default-time-retained": "2 h"})
	write(t, tbl, rows("a", 1))
	now := time.Date(2025, 3, 4, 5, 6, 7, 0, time.UTC)
	for _, c := range []struct {
		name   string
		retain time.Duration
		want   time.Duration
	}{{"explicit", 90 * time.Second, 90 * time.Second}, {"default", 0, 2 * time.Hour}} {
		if _, err := tag.Create(ctx, tbl.FileIO, tbl.Schema, c.name, 1, tag.CreateOptions{TimeRetained: c.retain, Now: now}); err != nil {
			t.Fatal(err)
		}
		data, err := tbl.FileIO.ReadFile(ctx, "tag/tag-"+c.name)
		if err != nil {
			t.Fatal(err)
		}
		tg, err := snapshot.DecodeTag(data)
		if err != nil {
			t.Fatal(err)
		}
		if tg.ID != 1 || tg.CreateTime == nil || !tg.CreateTime.Equal(now) || tg.TimeRetained == nil || *tg.TimeRetained != c.want {
			t.Errorf("%s: tag %d created %v retained %v", c.name, tg.ID, tg.CreateTime, tg.TimeRetained)
		}
	}
}

func TestCreateErrors(t *testing.T) {
	ctx := context.Background()
	tbl := newTable(t, nil)
	if _, err := tag.Create(ctx, tbl.FileIO, tbl.Schema, "t", 0, tag.CreateOptions{}); !errors.Is(err, snapshot.ErrNotFound) {
		t.Errorf("tag of an empty table: %v", err)
	}
	write(t, tbl, rows("a", 1))
	first, err := tag.Create(ctx, tbl.FileIO, tbl.Schema, "t", 1, tag.CreateOptions{})
	if err != nil {
		t.Fatal(err)
	}
	for _, c := range []struct {
		name string
		id   int64
		want error
	}{
		{"t", 1, tag.ErrExist},
		{"", 1, tag.ErrInvalidName},
		{"  ", 1, tag.ErrInvalidName},
		{"a/b", 1, tag.ErrInvalidName},
		{"u", 7, snapshot.ErrNotFound},
		{"u", -1, snapshot.ErrNotFound},
	} {
		if _, err := tag.Create(ctx, tbl.FileIO, tbl.Schema, c.name, c.id, tag.CreateOptions{}); !errors.Is(err, c.want) {
			t.Errorf("create %q of %d: %v, want %v", c.name, c.id, err, c.want)
		}
	}
	again, err := tag.Create(ctx, tbl.FileIO, tbl.Schema, "t", 1, tag.CreateOptions{IgnoreIfExists: true})
	if err != nil || again.ID != first.ID {
		t.Errorf("IgnoreIfExists: %+v, %v", again, err)
	}
	if _, err := tag.Delete(ctx, tbl.FileIO, tbl.Schema, "nope", tag.DeleteOptions{}); !errors.Is(err, snapshot.ErrNotFound) {
		t.Errorf("delete of a missing tag: %v", err)
	}
}

// TestCreateFromTagOfExpiredSnapshot: a snapshot id whose file has expired is
// found through another tag of it (AbstractFileStoreTable.findSnapshot).
func TestCreateFromTagOfExpiredSnapshot(t *testing.T) {
	ctx := context.Background()
	tbl := newTable(t, nil)
	write(t, tbl, rows("a", 1))
	write(t, tbl, rows("a", 2))
	if _, err := tag.Create(ctx, tbl.FileIO, tbl.Schema, "t1", 1, tag.CreateOptions{}); err != nil {
		t.Fatal(err)
	}
	if _, err := expire.Expire(ctx, tbl.FileIO, tbl.Schema, expire.Options{RetainMin: 1, OlderThan: time.Now().Add(time.Second)}); err != nil {
		t.Fatal(err)
	}
	tg, err := tag.Create(ctx, tbl.FileIO, tbl.Schema, "again", 1, tag.CreateOptions{})
	if err != nil || tg.ID != 1 {
		t.Fatalf("tag of expired snapshot 1: %+v, %v", tg, err)
	}
	equal(t, "tag again", read(t, tbl, reader.WithTag("again")), []string{"1|v1|a"})
	// Two tags share snapshot 1: deleting one deletes only its file.
	before := files(t, tbl.FileIO)
	res, err := tag.Delete(ctx, tbl.FileIO, tbl.Schema, "t1", tag.DeleteOptions{})
	if err != nil {
		t.Fatal(err)
	}
	equal(t, "deleted", res.Deleted, nil)
	equal(t, "files", files(t, tbl.FileIO), slices.DeleteFunc(before, func(p string) bool { return p == "tag/tag-t1" }))
	equal(t, "tag again", read(t, tbl, reader.WithTag("again")), []string{"1|v1|a"})
}

// TestDeleteTagOfLiveSnapshot deletes only the tag file.
func TestDeleteTagOfLiveSnapshot(t *testing.T) {
	ctx := context.Background()
	tbl := newTable(t, nil)
	write(t, tbl, rows("a", 1))
	if _, err := tag.Create(ctx, tbl.FileIO, tbl.Schema, "t", 1, tag.CreateOptions{}); err != nil {
		t.Fatal(err)
	}
	before := files(t, tbl.FileIO)
	res, err := tag.Delete(ctx, tbl.FileIO, tbl.Schema, "t", tag.DeleteOptions{})
	if err != nil || res.Tag.ID != 1 || len(res.Deleted) != 0 {
		t.Fatalf("%+v, %v", res, err)
	}
	equal(t, "files", files(t, tbl.FileIO), slices.DeleteFunc(before, func(p string) bool { return p == "tag/tag-t" }))
	if _, err := reader.NewScan(tbl.FileIO, reader.WithTag("t")).Plan(ctx); !errors.Is(err, reader.ErrNoSnapshot) {
		t.Errorf("read of the deleted tag: %v", err)
	}
}

// TestDeleteTagOfExpiredRealtimeSnapshot: the offsets file of an expired
// real-time snapshot, kept by its tag, goes with the tag.
func TestDeleteTagOfExpiredRealtimeSnapshot(t *testing.T) {
	ctx := context.Background()
	tbl := newTable(t, map[string]string{"bucket": "1", "bucket-key": "k", "realtime.enabled": "true"})
	fio := tbl.FileIO
	c, err := commit.New(fio, tbl.Schema, "rt")
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close()
	pb := progress.PartitionBucket{Partition: map[string]string{"p": "a"}, Bucket: 0}
	for i, rg := range []progress.Range{{Begin: 0, End: 3}, {Begin: 3, End: 5}} {
		r := tabletest.Batch(t, types.SchemaToArrow(tbl.Schema.Fields), rows("a", rg.Begin)...)
		msgs := tabletest.Prepare(t, tbl, "rt", r)
		r.Release()
		if _, err := c.CommitWithProgress(ctx, int64(i+1), msgs, []progress.Advance{{PartitionBucket: pb, Range: rg}}, nil); err != nil {
			t.Fatal(err)
		}
	}
	s1, err := snapshot.NewManager(fio).Get(ctx, 1)
	if err != nil {
		t.Fatal(err)
	}
	o1, err := progress.Path(fio, s1.Properties[progress.Property])
	if err != nil {
		t.Fatal(err)
	}
	if _, err := tag.Create(ctx, fio, tbl.Schema, "t1", 1, tag.CreateOptions{}); err != nil {
		t.Fatal(err)
	}
	if _, err := expire.Expire(ctx, fio, tbl.Schema, expire.Options{RetainMin: 1, OlderThan: time.Now().Add(time.Second)}); err != nil {
		t.Fatal(err)
	}
	if ok, _ := fio.Exists(ctx, o1); !ok {
		t.Fatalf("offsets file %s of the tagged snapshot expired with it", o1)
	}
	res, err := tag.Delete(ctx, fio, tbl.Schema, "t1", tag.DeleteOptions{})
	if err != nil {
		t.Fatal(err)
	}
	// Snapshot 1's row file, its manifest lists (its delta manifest is in
	// snapshot 2's base list) and its offsets file.
	var data, other []string
	for _, p := range res.Deleted {
		if len(p) > 2 && p[:2] == "p=" {
			data = append(data, p)
		} else {
			other = append(other, p)
		}
	}
	if len(data) != 0 || len(other) != 3 || other[2] != o1 {
		t.Errorf("deleted with the tag: %v", res.Deleted)
	}
	if end, err := progress.ReadOffset(ctx, fio, "", 0, pb); err != nil || end != 5 {
		t.Errorf("progress %d, %v", end, err)
	}
	equal(t, "rows", read(t, tbl), []string{"0|v0|a", "3|v3|a"})
}
