package snapfiles_test

import (
	"context"
	"errors"
	"slices"
	"sync/atomic"
	"testing"

	"github.com/paimon-go/paimon/fileio"
	"github.com/paimon-go/paimon/internal/snapfiles"
	"github.com/paimon-go/paimon/manifest"
	"github.com/paimon-go/paimon/row"
	"github.com/paimon-go/paimon/schema"
	"github.com/paimon-go/paimon/types"
)

func table(t *testing.T, opts map[string]string) *snapfiles.Table {
	t.Helper()
	fields := []types.DataField{{Name: "dt", Type: types.Date()}, {Name: "s", Type: types.String()}, {Name: "v", Type: types.BigInt()}}
	ts, err := schema.New(fields, false, []string{"dt", "s"}, nil, opts, "", 0)
	if err != nil {
		t.Fatal(err)
	}
	fio, err := fileio.Open(context.Background(), "mem://")
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { fio.Close() })
	tb, err := snapfiles.Open(fio, ts, "")
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(tb.Close)
	return tb
}

func partition(t *testing.T, values ...any) []byte {
	t.Helper()
	br, err := row.Encode([]types.DataType{types.Date(), types.String()}, values)
	if err != nil {
		t.Fatal(err)
	}
	return row.Serialize(br)
}

// TestPaths pins the paths of data, extra and index files (Java
// FileStorePathFactory.bucketPath, DataFilePathFactory.toPath/toAlignedPath,
// docs/paimon-format.md sections 1.2 and 1.3): DATE 19723 is 2024-01-01, the
// legacy partition name renders it as the day number; NULL is the default
// partition name; '/' is escaped.
func TestPaths(t *testing.T) {
	for _, c := range []struct {
		opts   map[string]string
		bucket int32
		values []any
		want   []string
		index  string
	}{
		{nil, 3, []any{int32(19723), "a/b"},
			[]string{"dt=19723/s=a%2Fb/bucket-3/data-1.parquet", "dt=19723/s=a%2Fb/bucket-3/data-1.parquet.index"}, "index/index-x-0"},
		{map[string]string{"partition.legacy-name": "false", "data-file.path-directory": "data"}, -2, []any{int32(19723), nil},
			[]string{"data/dt=2024-01-01/s=__DEFAULT_PARTITION__/bucket-postpone/data-1.parquet", "data/dt=2024-01-01/s=__DEFAULT_PARTITION__/bucket-postpone/data-1.parquet.index"}, "index/index-x-0"},
		{map[string]string{"index-file-in-data-file-dir": "true", "partition.default-name": "NULL"}, 0, []any{nil, "x"},
			[]string{"dt=NULL/s=x/bucket-0/data-1.parquet", "dt=NULL/s=x/bucket-0/data-1.parquet.index"}, "dt=NULL/s=x/bucket-0/index-x-0"},
	} {
		tb := table(t, c.opts)
		p := partition(t, c.values...)
		e := manifest.Entry{Partition: p, Bucket: c.bucket, File: manifest.DataFileMeta{FileName: "data-1.parquet", ExtraFiles: []string{"data-1.parquet.index"}}}
		got, ok, err := tb.EntryPaths(&e)
		if err != nil || !ok || !slices.Equal(got, c.want) {
			t.Errorf("%v: paths %v %v %v, want %v", c.opts, got, ok, err, c.want)
		}
		ie := manifest.IndexManifestEntry{Partition: p, Bucket: c.bucket, IndexFile: manifest.IndexFileMeta{IndexType: manifest.IndexTypeDeletionVectors, FileName: "index-x-0"}}
		ip, ok, err := tb.IndexFilePath(&ie)
		if err != nil || !ok || ip != c.index {
			t.Errorf("%v: index path %q %v %v, want %q", c.opts, ip, ok, err, c.index)
		}
	}
	tb := table(t, nil)
	ext := "s3://elsewhere/data-1.parquet"
	e := manifest.Entry{Partition: partition(t, int32(1), "a"), File: manifest.DataFileMeta{FileName: "data-1.parquet", ExternalPath: &ext}}
	if got, ok, err := tb.EntryPaths(&e); ok || got != nil || err != nil {
		t.Errorf("external file: %v %v %v", got, ok, err)
	}
	e = manifest.Entry{Partition: []byte{0, 0}, File: manifest.DataFileMeta{FileName: "data-1.parquet"}}
	if _, _, err := tb.EntryPaths(&e); !errors.Is(err, row.ErrCorrupt) {
		t.Errorf("corrupt partition: %v", err)
	}
	if got := snapfiles.BranchRoot("rt") + snapfiles.BranchRoot("main") + snapfiles.BranchRoot(""); got != "branch/branch-rt/" {
		t.Errorf("branch roots %q", got)
	}
}

// TestDeleterGroups: groups run in order, a missing file is skipped, a hook
// error stops the run after the files already deleted.
func TestDeleterGroups(t *testing.T) {
	ctx := context.Background()
	fio, err := fileio.Open(ctx, "mem://")
	if err != nil {
		t.Fatal(err)
	}
	defer fio.Close()
	for _, p := range []string{"a/1", "a/2", "m/1", "l/1", "o/1"} {
		if err := fio.WriteFile(ctx, p, []byte(p)); err != nil {
			t.Fatal(err)
		}
	}
	plan := &snapfiles.Plan{Data: []string{"a/1", "a/2", "a/missing"}, Manifests: []string{"m/1"}, Lists: []string{"l/1"}, Offsets: []string{"o/1"}}
	stop := errors.New("stop")
	var calls atomic.Int32
	d := &snapfiles.Deleter{FIO: fio, Width: 1, Hook: func(p string) error {
		if calls.Add(1) == 5 {
			return stop
		}
		return nil
	}}
	if err := d.Plan(ctx, plan); !errors.Is(err, stop) {
		t.Fatalf("err %v", err)
	}
	if got := d.Removed(); !slices.Equal(got, []string{"a/1", "a/2", "m/1"}) {
		t.Errorf("removed %v", got)
	}
	infos, _ := fio.ListRecursive(ctx, "")
	var left []string
	for _, fi := range infos {
		left = append(left, fi.Path)
	}
	if !slices.Equal(left, []string{"l/1", "o/1"}) {
		t.Errorf("left %v", left)
	}
}

func TestParallel(t *testing.T) {
	ctx := context.Background()
	var sum atomic.Int64
	if err := snapfiles.Parallel(ctx, 100, 7, func(i int) error { sum.Add(int64(i)); return nil }); err != nil || sum.Load() != 4950 {
		t.Errorf("sum %d, %v", sum.Load(), err)
	}
	boom := errors.New("boom")
	err := snapfiles.Parallel(ctx, 50, 4, func(i int) error {
		if i == 10 {
			return boom
		}
		return nil
	})
	if !errors.Is(err, boom) {
		t.Errorf("err %v", err)
	}
	cctx, cancel := context.WithCancel(ctx)
	cancel()
	if err := snapfiles.Parallel(cctx, 3, 2, func(int) error { return nil }); !errors.Is(err, context.Canceled) {
		t.Errorf("canceled: %v", err)
	}
}
