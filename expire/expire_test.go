package expire_test

import (
	"context"
	"errors"
	"fmt"
	"maps"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/paimon-go/paimon/catalog"
	"github.com/paimon-go/paimon/expire"
	"github.com/paimon-go/paimon/fileio"
	"github.com/paimon-go/paimon/internal/fixture"
	"github.com/paimon-go/paimon/internal/tabletest"
	"github.com/paimon-go/paimon/manifest"
	"github.com/paimon-go/paimon/reader"
	"github.com/paimon-go/paimon/schema"
	"github.com/paimon-go/paimon/snapshot"
	"github.com/paimon-go/paimon/tag"
)

// history writes the table of most tests: snapshot 1 adds (1,a), 2 adds
// (2,b), 3 overwrites everything with (3,c), 4 adds (4,d).
func history(t *testing.T) *catalog.Table {
	tbl := kvTable(t, nil)
	for i, step := range []func() int64{
		func() int64 { return write(t, tbl, kv([]int64{1}, "a")) },
		func() int64 { return write(t, tbl, kv([]int64{2}, "b")) },
		func() int64 { return overwrite(t, tbl, kv([]int64{3}, "c")) },
		func() int64 { return write(t, tbl, kv([]int64{4}, "d")) },
	} {
		if id := step(); id != int64(i+1) {
			t.Fatalf("step %d created snapshot %d", i+1, id)
		}
	}
	return tbl
}

// historyFiles names the files of history's snapshots 1 and 2 and checks the
// layout the expectations below rely on: snapshot 3's base list holds the
// manifests of the deltas of 1 and 2 (no manifest merge), the base list of 1
// names no manifest.
type historyFiles struct {
	f1, f2                   string // data files of (1,a) and (2,b)
	base1, delta1, base2, d2 string // manifest lists
}

func layout(t *testing.T, fio *fileio.FileIO) historyFiles {
	t.Helper()
	s1, s2, s3 := getSnap(t, fio, 1), getSnap(t, fio, 2), getSnap(t, fio, 3)
	var h historyFiles
	d1, d2 := dataFiles(t, fio, 1), dataFiles(t, fio, 2)
	if len(d1) != 1 || len(d2) != 2 || !slices.Contains(d2, d1[0]) {
		t.Fatalf("data files of snapshots 1 and 2: %v, %v", d1, d2)
	}
	h.f1 = d1[0]
	h.f2 = slices.DeleteFunc(slices.Clone(d2), func(p string) bool { return p == h.f1 })[0]
	h.base1, h.delta1 = manifest.Path(s1.BaseManifestList), manifest.Path(s1.DeltaManifestList)
	h.base2, h.d2 = manifest.Path(s2.BaseManifestList), manifest.Path(s2.DeltaManifestList)
	if m := manifests(t, fio, s1.BaseManifestList); len(m) != 0 {
		t.Fatalf("base list of snapshot 1 names %v", m)
	}
	want := append(manifests(t, fio, s1.DeltaManifestList), manifests(t, fio, s2.DeltaManifestList)...)
	equal(t, "manifests of snapshot 3's base list", manifests(t, fio, s3.BaseManifestList), want)
	return h
}

func TestExpireDeletesOnlyUnreferencedFiles(t *testing.T) {
	ctx := context.Background()
	tbl := history(t)
	fio := tbl.FileIO
	h := layout(t, fio)
	before := files(t, fio)

	res, err := expire.Expire(ctx, fio, tbl.Schema, expire.Options{RetainMin: 2, OlderThan: time.Now().Add(time.Second)})
	if err != nil {
		t.Fatal(err)
	}
	equal(t, "expired", res.Expired, []int64{1, 2})
	if res.Earliest != 3 {
		t.Errorf("earliest %d, want 3", res.Earliest)
	}
	// (1,a) and (2,b) were overwritten by snapshot 3; the manifests of 1 and 2
	// stay (snapshot 3's base list names them), their manifest lists go.
	wantDeleted := append(sorted([]string{h.f1, h.f2}), sorted([]string{h.base1, h.delta1, h.base2, h.d2})...)
	wantDeleted = append(wantDeleted, "snapshot/snapshot-1", "snapshot/snapshot-2")
	equal(t, "deleted", res.Deleted, wantDeleted)
	equal(t, "files after", files(t, fio), plus(without(t, before, wantDeleted...), "snapshot/EARLIEST"))
	if got := hint(t, fio, "EARLIEST"); got != "3" {
		t.Errorf("EARLIEST %q, want 3", got)
	}
	equal(t, "snapshot 3", read(t, fio, reader.WithSnapshot(3)), []string{"3|c"})
	equal(t, "latest", read(t, fio), []string{"3|c", "4|d"})

	// Nothing more to do: a second run changes nothing.
	res, err = expire.Expire(ctx, fio, tbl.Schema, expire.Options{RetainMin: 2, OlderThan: time.Now().Add(time.Second)})
	if err != nil || len(res.Expired) != 0 || len(res.Deleted) != 0 || res.Earliest != 3 {
		t.Errorf("second run: %+v, %v", res, err)
	}
}

func TestExpireDryRun(t *testing.T) {
	ctx := context.Background()
	tbl := history(t)
	before := files(t, tbl.FileIO)
	opts := expire.Options{RetainMin: 2, OlderThan: time.Now().Add(time.Second), DryRun: true}
	dry, err := expire.Expire(ctx, tbl.FileIO, tbl.Schema, opts)
	if err != nil {
		t.Fatal(err)
	}
	equal(t, "files after a dry run", files(t, tbl.FileIO), before)
	opts.DryRun = false
	real, err := expire.Expire(ctx, tbl.FileIO, tbl.Schema, opts)
	if err != nil {
		t.Fatal(err)
	}
	equal(t, "dry run deletions", dry.Deleted, real.Deleted)
	equal(t, "dry run expired", dry.Expired, real.Expired)
}

// TestExpireRetention pins which snapshots expire under the retention rules of
// ExpireSnapshotsImpl.expire: six snapshots committed one hour apart.
func TestExpireRetention(t *testing.T) {
	ctx := context.Background()
	tbl := kvTable(t, nil)
	base := time.Date(2025, 1, 1, 0, 0, 0, 0, time.UTC)
	for i := int64(1); i <= 6; i++ {
		write(t, tbl, kv([]int64{i}, "x"))
		setTime(t, tbl.FileIO, i, base.Add(time.Duration(i-1)*time.Hour))
	}
	dir := localDir(t, tbl.FileIO)
	hours := func(h float64) time.Time { return base.Add(time.Duration(h * float64(time.Hour))) }
	for _, c := range []struct {
		name     string
		opts     expire.Options
		consumer string
		expired  []int64
		earliest int64
	}{
		// A snapshot expires when its successor is older than the threshold:
		// 2 (1 h) and 3 (2 h) are, 4 (3 h) is not.
		{"time", expire.Options{RetainMin: 1, OlderThan: hours(2.5)}, "", []int64{1, 2}, 3},
		// A successor exactly at the threshold keeps the snapshot.
		{"time boundary", expire.Options{RetainMin: 1, OlderThan: hours(2)}, "", []int64{1}, 2},
		{"min", expire.Options{RetainMin: 5, OlderThan: hours(100)}, "", []int64{1}, 2},
		{"min keeps latest", expire.Options{RetainMin: 1, OlderThan: hours(100)}, "", []int64{1, 2, 3, 4, 5}, 6},
		// retain max expires regardless of time.
		{"max", expire.Options{RetainMin: 1, RetainMax: 2, OlderThan: hours(-1)}, "", []int64{1, 2, 3, 4}, 5},
		{"max and time", expire.Options{RetainMin: 1, RetainMax: 4, OlderThan: hours(4.5)}, "", []int64{1, 2, 3, 4}, 5},
		{"limit", expire.Options{RetainMin: 1, MaxDeletes: 2, OlderThan: hours(100)}, "", []int64{1, 2}, 3},
		{"consumer", expire.Options{RetainMin: 1, OlderThan: hours(100)}, `{"nextSnapshot":4}`, []int64{1, 2, 3}, 4},
		// Table defaults: min 10 of 6 snapshots, nothing expires.
		{"defaults", expire.Options{OlderThan: hours(100)}, "", nil, 1},
	} {
		t.Run(c.name, func(t *testing.T) {
			fio, ts := copyDir(t, dir)
			if c.consumer != "" {
				if err := fio.WriteFile(ctx, "consumer/consumer-c1", []byte(c.consumer)); err != nil {
					t.Fatal(err)
				}
			}
			res, err := expire.Expire(ctx, fio, ts, c.opts)
			if err != nil {
				t.Fatal(err)
			}
			equal(t, "expired", res.Expired, c.expired)
			if res.Earliest != c.earliest {
				t.Errorf("earliest %d, want %d", res.Earliest, c.earliest)
			}
			ids, err := snapshot.NewManager(fio).IDs(ctx)
			if err != nil {
				t.Fatal(err)
			}
			var want []int64
			for id := c.earliest; id <= 6; id++ {
				want = append(want, id)
			}
			equal(t, "snapshots left", ids, want)
			if got := hint(t, fio, "EARLIEST"); got != fmt.Sprint(c.earliest) {
				t.Errorf("EARLIEST %q, want %d", got, c.earliest)
			}
		})
	}
}

func TestExpireRejectsBadRetention(t *testing.T) {
	ctx := context.Background()
	tbl := kvTable(t, nil)
	write(t, tbl, kv([]int64{1}, "a"))
	// The catalog refuses snapshot.num-retained.min = 0 at create; a table
	// written elsewhere may still have it.
	bad := *tbl.Schema
	bad.Options = maps.Clone(bad.Options)
	bad.Options["snapshot.num-retained.min"] = "0"
	for _, c := range []struct {
		ts   *schema.TableSchema
		opts expire.Options
		want error
	}{
		{&bad, expire.Options{}, expire.ErrInvalidArgument},
		{tbl.Schema, expire.Options{RetainMin: 3, RetainMax: 2}, expire.ErrInvalidArgument},
	} {
		if _, err := expire.Expire(ctx, tbl.FileIO, c.ts, c.opts); !errors.Is(err, c.want) {
			t.Errorf("%+v: err %v, want %v", c.opts, err, c.want)
		}
	}
	if err := tbl.FileIO.WriteFile(ctx, "consumer/consumer-x", []byte(`{"next":1}`)); err != nil {
		t.Fatal(err)
	}
	if _, err := expire.Expire(ctx, tbl.FileIO, tbl.Schema, expire.Options{RetainMin: 1}); !errors.Is(err, expire.ErrCorrupt) {
		t.Errorf("corrupt consumer file: %v", err)
	}
	for opt, want := range map[string]error{
		"snapshot.time-retained=soon":     schema.ErrInvalidOption,
		"changelog.num-retained.max=x":    schema.ErrInvalidOption,
		"changelog.num-retained.min=11":   expire.ErrUnsupported, // changelog-producer = none
		"changelog.time-retained=2 h":     expire.ErrUnsupported,
		"consumer.changelog-only=perhaps": schema.ErrInvalidOption,
	} {
		k, v, _ := strings.Cut(opt, "=")
		// The option goes into a schema copy: the catalog refuses some of
		// these values at create, but a table written elsewhere may hold them.
		bad := kvTable(t, nil)
		write(t, bad, kv([]int64{1}, "a"))
		ts := *bad.Schema
		ts.Options = maps.Clone(ts.Options)
		ts.Options[k] = v
		if _, err := expire.Expire(ctx, bad.FileIO, &ts, expire.Options{}); !errors.Is(err, want) {
			t.Errorf("%s: %v, want %v", opt, err, want)
		}
	}
}

// TestExpireTagProtectsFiles: a tag on snapshot 1 keeps (1,a) and the
// manifest lists of snapshot 1 through the expiration of snapshots 1 and 2;
// deleting the tag afterwards deletes them (TagManager.doClean).
func TestExpireTagProtectsFiles(t *testing.T) {
	ctx := context.Background()
	tbl := history(t)
	fio := tbl.FileIO
	h := layout(t, fio)
	if _, err := tag.Create(ctx, fio, tbl.Schema, "t1", 1, tag.CreateOptions{}); err != nil {
		t.Fatal(err)
	}
	before := files(t, fio)
	res, err := expire.Expire(ctx, fio, tbl.Schema, expire.Options{RetainMin: 2, OlderThan: time.Now().Add(time.Second)})
	if err != nil {
		t.Fatal(err)
	}
	wantDeleted := []string{h.f2}
	wantDeleted = append(wantDeleted, sorted([]string{h.base2, h.d2})...)
	wantDeleted = append(wantDeleted, "snapshot/snapshot-1", "snapshot/snapshot-2")
	equal(t, "deleted", res.Deleted, wantDeleted)
	equal(t, "files after", files(t, fio), plus(without(t, before, wantDeleted...), "snapshot/EARLIEST"))
	equal(t, "tag t1", read(t, fio, reader.WithTag("t1")), []string{"1|a"})

	before = files(t, fio)
	dres, err := tag.Delete(ctx, fio, tbl.Schema, "t1", tag.DeleteOptions{})
	if err != nil {
		t.Fatal(err)
	}
	// The manifest of (1,a) stays: snapshot 3, the earliest, names it.
	wantDeleted = append([]string{h.f1}, sorted([]string{h.base1, h.delta1})...)
	equal(t, "deleted with the tag", dres.Deleted, wantDeleted)
	equal(t, "files after deleting the tag", files(t, fio), without(t, before, append(wantDeleted, "tag/tag-t1")...))
	equal(t, "latest", read(t, fio), []string{"3|c", "4|d"})
}

// TestExpireJavaFixture expires snapshots 1-3 of the Java-written
// deletion-vector table: compaction in snapshot 4 removed the level-0 file
// d18e...-1 and upgraded f19d...-1 (same file, level 4), snapshot 2 upgraded
// every file of snapshot 1. Only d18e...-1 and the manifest lists of 1-3 go.
func TestExpireJavaFixture(t *testing.T) {
	ctx := context.Background()
	fio, ts := open(t, fixture.Copy(t, "pk_table_scan_and_read_dv_parquet"))
	before := files(t, fio)
	res, err := expire.Expire(ctx, fio, ts, expire.Options{RetainMin: 3, OlderThan: time.Now().Add(time.Second)})
	if err != nil {
		t.Fatal(err)
	}
	want := []string{"f1=10/bucket-1/data-d18e5571-abce-4309-ad4a-37f0bc93679f-1.parquet"}
	for i := 0; i <= 5; i++ {
		want = append(want, fmt.Sprintf("manifest/manifest-list-4b28f974-5a59-4b2e-9a6e-eb6a5477557f-%d", i))
	}
	want = append(want, "snapshot/snapshot-1", "snapshot/snapshot-2", "snapshot/snapshot-3")
	equal(t, "expired", res.Expired, []int64{1, 2, 3})
	equal(t, "deleted", res.Deleted, want)
	equal(t, "files after", files(t, fio), without(t, before, want...))
	for _, name := range []string{"latest", "snapshot6_all_levels", "snapshot5_all_levels", "snapshot4_all_levels"} {
		c := fixture.Lookup(t, "pk_table_scan_and_read_dv_parquet", name)
		var opts []reader.Option
		if c.Snapshot != nil {
			opts = append(opts, reader.WithSnapshot(*c.Snapshot))
		}
		if c.AllLevels {
			opts = append(opts, reader.WithAllLevels())
		}
		got, err := tabletest.Cat(ctx, fio.URL(), opts...)
		if err != nil {
			t.Fatalf("%s: %v", name, err)
		}
		fixture.AssertJSONL(t, c, got)
	}
	if _, err := tabletest.Cat(ctx, fio.URL(), reader.WithSnapshot(1)); !errors.Is(err, snapshot.ErrNotFound) {
		t.Errorf("read of expired snapshot 1: %v", err)
	}
}

// TestExpireJavaFixtureWithTag: the ORC twin of the fixture carries tag-1
// (snapshot 1). Expiring 1-5 keeps the tag's manifest lists; deleting the tag
// then removes them, while its data files stay (snapshot 6 holds them, at
// level 5).
func TestExpireJavaFixtureWithTag(t *testing.T) {
	ctx := context.Background()
	const table = "pk_table_scan_and_read_dv_orc"
	fio, ts := open(t, fixture.Copy(t, table))
	before := files(t, fio)
	res, err := expire.Expire(ctx, fio, ts, expire.Options{RetainMin: 1, RetainMax: 1, OlderThan: time.Now().Add(time.Second)})
	if err != nil {
		t.Fatal(err)
	}
	want := []string{"f1=10/bucket-1/data-664dc3ad-9ea5-4ea6-9a2e-c5f0b11495af-1.orc"}
	for _, l := range []string{"189cb493-e8f6-40b8-bd3a-c3627191aa48-0", "189cb493-e8f6-40b8-bd3a-c3627191aa48-1"} {
		want = append(want, "manifest/manifest-list-"+l)
	}
	for i := 2; i <= 7; i++ {
		want = append(want, fmt.Sprintf("manifest/manifest-list-eb19d9aa-f83b-489f-a8b6-624fbd2963d3-%d", i))
	}
	for i := 1; i <= 5; i++ {
		want = append(want, fmt.Sprintf("snapshot/snapshot-%d", i))
	}
	equal(t, "deleted", res.Deleted, want)
	equal(t, "files after", files(t, fio), without(t, before, want...))
	c := fixture.Lookup(t, table, "snapshot1_all_levels")
	got, err := tabletest.Cat(ctx, fio.URL(), reader.WithTag("1"), reader.WithAllLevels())
	if err != nil {
		t.Fatal(err)
	}
	fixture.AssertJSONL(t, c, got)

	before = files(t, fio)
	dres, err := tag.Delete(ctx, fio, ts, "1", tag.DeleteOptions{})
	if err != nil {
		t.Fatal(err)
	}
	want = []string{"manifest/manifest-list-eb19d9aa-f83b-489f-a8b6-624fbd2963d3-0", "manifest/manifest-list-eb19d9aa-f83b-489f-a8b6-624fbd2963d3-1"}
	equal(t, "deleted with the tag", dres.Deleted, want)
	equal(t, "files after deleting the tag", files(t, fio), without(t, before, append(want, "tag/tag-1")...))
	c = fixture.Lookup(t, table, "latest_all_levels")
	if got, err = tabletest.Cat(ctx, fio.URL(), reader.WithAllLevels()); err != nil {
		t.Fatal(err)
	}
	fixture.AssertJSONL(t, c, got)
}

// TestReaderOfExpiredSnapshot: a plan made before expiration fails with
// fileio.ErrNotExist when its files are gone, and a new plan of the expired
// snapshot with snapshot.ErrNotFound; neither returns rows.
func TestReaderOfExpiredSnapshot(t *testing.T) {
	ctx := context.Background()
	tbl := history(t)
	plan, err := reader.NewScan(tbl.FileIO, reader.WithSnapshot(2)).Plan(ctx)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := expire.Expire(ctx, tbl.FileIO, tbl.Schema, expire.Options{RetainMin: 2, OlderThan: time.Now().Add(time.Second)}); err != nil {
		t.Fatal(err)
	}
	rows := 0
	var readErr error
	for rec, err := range plan.Records(ctx) {
		if err != nil {
			readErr = err
			break
		}
		rows += int(rec.NumRows())
		rec.Release()
	}
	if !errors.Is(readErr, fileio.ErrNotExist) || rows != 0 {
		t.Errorf("pinned plan of expired snapshot 2: %d rows, err %v", rows, readErr)
	}
	_, err = reader.NewScan(tbl.FileIO, reader.WithSnapshot(2)).Plan(ctx)
	if !errors.Is(err, snapshot.ErrNotFound) || !errors.Is(err, reader.ErrNoSnapshot) {
		t.Errorf("new plan of expired snapshot 2: %v", err)
	}
}

// TestExpireAbortsOnUnreadableMetadata: a corrupt manifest of the first kept
// snapshot stops the run before anything is deleted or written.
func TestExpireAbortsOnUnreadableMetadata(t *testing.T) {
	ctx := context.Background()
	tbl := history(t)
	fio := tbl.FileIO
	s3 := getSnap(t, fio, 3)
	m := manifests(t, fio, s3.DeltaManifestList)[0]
	if err := fio.WriteFile(ctx, m, []byte("Obj\x01garbage")); err != nil {
		t.Fatal(err)
	}
	before := files(t, fio)
	_, err := expire.Expire(ctx, fio, tbl.Schema, expire.Options{RetainMin: 2, OlderThan: time.Now().Add(time.Second)})
	if !errors.Is(err, manifest.ErrCorrupt) {
		t.Fatalf("err %v, want manifest.ErrCorrupt", err)
	}
	equal(t, "files", files(t, fio), before)
}
