package reader_test

import (
	"context"
	"errors"
	"testing"

	"github.com/paimon-go/paimon"
	"github.com/paimon-go/paimon/catalog"
	"github.com/paimon-go/paimon/fileio"
	"github.com/paimon-go/paimon/internal/tabletest"
	"github.com/paimon-go/paimon/reader"
	"github.com/paimon-go/paimon/snapshot"
	"github.com/paimon-go/paimon/tag"
	"github.com/paimon-go/paimon/types"
)

func snapshotTimes(t *testing.T, url string) map[int64]int64 {
	t.Helper()
	ctx := context.Background()
	fio, err := fileio.Open(ctx, url)
	if err != nil {
		t.Fatal(err)
	}
	snaps, err := snapshot.NewManager(fio).List(ctx)
	if err != nil {
		t.Fatal(err)
	}
	out := map[int64]int64{}
	for _, sn := range snaps {
		out[sn.ID] = sn.TimeMillis
	}
	return out
}

func TestIncrementalBetweenPrimaryKey(t *testing.T) {
	url := pkChangesTable(t, nil)
	rk := reader.WithRowKind()
	all := []string{`{"rowkind":"+I","k":1,"v":"a"}`, `{"rowkind":"+I","k":2,"v":"b"}`,
		`{"rowkind":"-D","k":1,"v":"a"}`, `{"rowkind":"+U","k":2,"v":"B"}`, `{"rowkind":"+I","k":3,"v":null}`}
	wantChangeLines(t, "delta 0,2", catLines(t, url, reader.WithIncrementalBetween("0", "2"), reader.WithIncrementalMode(reader.IncrementalDelta), rk), all...)
	// auto is delta without a changelog producer.
	wantChangeLines(t, "auto 0,2", catLines(t, url, reader.WithIncrementalBetween("0", "2"), rk), all...)
	wantChangeLines(t, "delta 1,2", catLines(t, url, reader.WithIncrementalBetween("1", "2"), rk), all[2:]...)
	wantChangeLines(t, "delta 1,1", catLines(t, url, reader.WithIncrementalBetween("1", "1"), rk))
	wantChangeLines(t, "changelog 0,2", catLines(t, url, reader.WithIncrementalBetween("0", "2"), reader.WithIncrementalMode(reader.IncrementalChangelog), rk))
	// The diff: the end row of changed and new keys; with rowkind the
	// deleted key as -D.
	wantChangeLines(t, "diff 1,2 rowkind", catLines(t, url, reader.WithIncrementalBetween("1", "2"), reader.WithIncrementalMode(reader.IncrementalDiff), rk),
		`{"rowkind":"-D","k":1,"v":"a"}`, `{"rowkind":"+U","k":2,"v":"B"}`, `{"rowkind":"+I","k":3,"v":null}`)
	wantChangeLines(t, "diff 1,2", catLines(t, url, reader.WithIncrementalBetween("1", "2"), reader.WithIncrementalMode(reader.IncrementalDiff)),
		`{"k":2,"v":"B"}`, `{"k":3,"v":null}`)
	// Java option keys.
	wantChangeLines(t, "options 1,2 diff", catLines(t, url, rk, reader.WithIncrementalOptions(map[string]string{
		"incremental-between": "1,2", "incremental-between-scan-mode": "diff"})),
		`{"rowkind":"-D","k":1,"v":"a"}`, `{"rowkind":"+U","k":2,"v":"B"}`, `{"rowkind":"+I","k":3,"v":null}`)
	// Timestamps: (t1, t2] is snapshot 2; a start before the first
	// snapshot starts before it.
	times := snapshotTimes(t, url)
	wantChangeLines(t, "timestamps t1,t2", catLines(t, url, reader.WithIncrementalBetweenTimestamp(times[1], times[2]), rk), all[2:]...)
	wantChangeLines(t, "timestamps 0,t2", catLines(t, url, reader.WithIncrementalBetweenTimestamp(0, times[2]), rk), all...)
	wantChangeLines(t, "timestamps t2,t2+1", catLines(t, url, reader.WithIncrementalBetweenTimestamp(times[2]+1, times[2]+5), rk))
	wantChangeLines(t, "timestamps 0,1", catLines(t, url, reader.WithIncrementalBetweenTimestamp(0, 1), rk))
	wantChangeLines(t, "options timestamps", catLines(t, url, rk, reader.WithIncrementalOptions(map[string]string{
		"incremental-between-timestamp": "0," + itoa(times[2])})), all...)

	// Tags: between two tags is the diff of their snapshots, or the range
	// of their ids with incremental-between-tag-to-snapshot.
	ctx := context.Background()
	tbl, err := paimon.OpenTable(ctx, url)
	if err != nil {
		t.Fatal(err)
	}
	defer tbl.Close()
	fio, err := fileio.Open(ctx, url)
	if err != nil {
		t.Fatal(err)
	}
	for name, id := range map[string]int64{"one": 1, "two": 2} {
		if _, err := tag.Create(ctx, fio, tbl.Schema(), name, id, tag.CreateOptions{}); err != nil {
			t.Fatal(err)
		}
	}
	wantChangeLines(t, "tags one,two", catLines(t, url, reader.WithIncrementalBetween("one", "two")),
		`{"k":2,"v":"B"}`, `{"k":3,"v":null}`)
	wantChangeLines(t, "tags one,two to snapshot", catLines(t, url, rk, reader.WithIncrementalOptions(map[string]string{
		"incremental-between": "one,two", "incremental-between-tag-to-snapshot": "true"})), all[2:]...)
}

func itoa(v int64) string {
	b := []byte{}
	if v == 0 {
		return "0"
	}
	for v > 0 {
		b = append([]byte{byte('0' + v%10)}, b...)
		v /= 10
	}
	return string(b)
}

func TestIncrementalBetweenAppendDiff(t *testing.T) {
	tbl := tabletest.NewTable(t, "", catalog.Schema{
		Fields: []types.DataField{{Name: "k", Type: types.Int()}, {Name: "v", Type: types.String()}},
	})
	sc := types.SchemaToArrow(tbl.Schema.Fields)
	for i, rows := range [][][]any{{{int32(1), "a"}}, {{int32(2), "b"}, {int32(3), "c"}}, {{int32(4), "d"}}} {
		rec := tabletest.Batch(t, sc, rows...)
		tabletest.WriteCommit(t, tbl, "u", int64(i+1), rec)
		rec.Release()
	}
	url := tbl.FileIO.URL()
	wantChangeLines(t, "append diff 1,3", catLines(t, url, reader.WithIncrementalBetween("1", "3"), reader.WithIncrementalMode(reader.IncrementalDiff), reader.WithRowKind()),
		`{"rowkind":"+I","k":2,"v":"b"}`, `{"rowkind":"+I","k":3,"v":"c"}`, `{"rowkind":"+I","k":4,"v":"d"}`)
	wantChangeLines(t, "append delta 2,3", catLines(t, url, reader.WithIncrementalBetween("2", "3")), `{"k":4,"v":"d"}`)
}

func TestIncrementalBetweenErrors(t *testing.T) {
	url := pkChangesTable(t, nil)
	ctx := context.Background()
	cases := []struct {
		name string
		opts []reader.Option
		want []error
	}{
		{"end before start", []reader.Option{reader.WithIncrementalBetween("2", "1")}, []error{reader.ErrInvalidScan}},
		{"not ids", []reader.Option{reader.WithIncrementalBetween("a", "b")}, []error{reader.ErrInvalidScan}},
		{"after latest", []reader.Option{reader.WithIncrementalBetween("1", "5")}, []error{reader.ErrNoSnapshot}},
		{"before earliest", []reader.Option{reader.WithIncrementalBetween("-1", "2")}, []error{reader.ErrNoSnapshot, reader.ErrSnapshotExpired}},
		{"diff missing", []reader.Option{reader.WithIncrementalBetween("1", "7"), reader.WithIncrementalMode(reader.IncrementalDiff)}, []error{reader.ErrNoSnapshot}},
		{"bad mode", []reader.Option{reader.WithIncrementalBetween("1", "2"), reader.WithIncrementalMode("full")}, []error{reader.ErrInvalidScan}},
		{"timestamps reversed", []reader.Option{reader.WithIncrementalBetweenTimestamp(5, 4)}, []error{reader.ErrInvalidScan}},
		{"unknown key", []reader.Option{reader.WithIncrementalOptions(map[string]string{"scan.mode": "latest"})}, []error{reader.ErrInvalidScan}},
		{"malformed", []reader.Option{reader.WithIncrementalOptions(map[string]string{"incremental-between": "1"})}, []error{reader.ErrInvalidScan}},
		{"with snapshot", []reader.Option{reader.WithIncrementalBetween("1", "2"), reader.WithSnapshot(1)}, []error{reader.ErrInvalidScan}},
	}
	for _, c := range cases {
		_, err := tabletest.Cat(ctx, url, c.opts...)
		for _, w := range c.want {
			if !errors.Is(err, w) {
				t.Errorf("%s: err = %v, want %v", c.name, err, w)
			}
		}
	}
}
