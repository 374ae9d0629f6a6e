package progress_test

import (
	"context"
	"errors"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"

	"github.com/paimon-go/paimon/fileio"
	"github.com/paimon-go/paimon/progress"
	"github.com/paimon-go/paimon/snapshot"
)

func open(t *testing.T, url string) *fileio.FileIO {
	t.Helper()
	fio, err := fileio.Open(context.Background(), url)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { fio.Close() })
	return fio
}

func TestDir(t *testing.T) {
	for branch, want := range map[string]string{"": "metadata", "main": "metadata", "dev": "branch/branch-dev/metadata"} {
		if got := progress.Dir(branch); got != want {
			t.Errorf("Dir(%q) = %q, want %q", branch, got, want)
		}
	}
}

func TestLocation(t *testing.T) {
	dir := t.TempDir()
	s3 := open(t, "s3://bucket/wh/db.db/t?region=us-east-1&endpoint=http://127.0.0.1:1&use_path_style=true")
	for _, c := range []struct {
		fio  *fileio.FileIO
		want string
	}{
		{open(t, dir), dir + "/metadata/x.offsets"},
		{open(t, "file://"+dir+"/wh"), dir + "/wh/metadata/x.offsets"},
		{open(t, "file:///"), "/metadata/x.offsets"},
		{s3, "s3://bucket/wh/db.db/t/metadata/x.offsets"},
		{s3.Sub("sub"), "s3://bucket/wh/db.db/t/sub/metadata/x.offsets"},
		{open(t, "mem://"), "mem://metadata/x.offsets"},
	} {
		if got := progress.Location(c.fio, "metadata/x.offsets"); got != c.want {
			t.Errorf("Location under %s = %q, want %q", c.fio.URL(), got, c.want)
		}
	}
}

func TestPath(t *testing.T) {
	fio := open(t, "/tmp/wh/db.db/t")
	for prop, want := range map[string]string{
		// Our own form, and paimon-cpp's (the same for a local table path).
		"/tmp/wh/db.db/t/metadata/a.offsets":                   "metadata/a.offsets",
		"/tmp/wh/db.db/t/branch/branch-dev/metadata/a.offsets": "branch/branch-dev/metadata/a.offsets",
		// Another root (a copied table, Java-style URL, object store).
		"file:/old/place/t/metadata/a.offsets":                    "metadata/a.offsets",
		"/tmp/wh/db.db/t2/metadata/a.offsets":                     "metadata/a.offsets",
		"s3://b/metadata/wh/t/branch/branch-x/metadata/a.offsets": "branch/branch-x/metadata/a.offsets",
		"oss://b/wh/t/metadata/a.offsets":                         "metadata/a.offsets",
		"metadata/test.offsets":                                   "metadata/test.offsets",
	} {
		got, err := progress.Path(fio, prop)
		if err != nil || got != want {
			t.Errorf("Path(%q) = %q, %v; want %q", prop, got, err, want)
		}
	}
	for _, prop := range []string{"/tmp/elsewhere/a.offsets", "metadata", "", "/tmp/wh/db.db/t/"} {
		if got, err := progress.Path(fio, prop); !errors.Is(err, progress.ErrCorrupt) {
			t.Errorf("Path(%q) = %q, %v; want ErrCorrupt", prop, got, err)
		}
	}
}

var offsetsName = regexp.MustCompile(`^metadata/[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}\.offsets$`)

func TestWriteRead(t *testing.T) {
	ctx := context.Background()
	dir := t.TempDir()
	fio := open(t, dir)
	o := targetOffsets()
	prop, err := progress.Write(ctx, fio, "", o)
	if err != nil {
		t.Fatal(err)
	}
	rel, ok := strings.CutPrefix(prop, dir+"/")
	if !ok || !offsetsName.MatchString(rel) {
		t.Fatalf("Write = %q, want %s/metadata/<uuid>.offsets", prop, dir)
	}
	data, err := os.ReadFile(filepath.Join(dir, filepath.FromSlash(rel)))
	if err != nil || string(data) != targetJSON {
		t.Fatalf("file %s holds %q, %v", rel, data, err)
	}
	got, err := progress.Read(ctx, fio, "", prop)
	if err != nil || !got.Equal(o) {
		t.Errorf("Read = %v, %v", got.Entries(), err)
	}
	// A second Write names a new file.
	prop2, err := progress.Write(ctx, fio, "main", o)
	if err != nil || prop2 == prop || !strings.HasPrefix(prop2, dir+"/metadata/") {
		t.Errorf("second Write = %q, %v", prop2, err)
	}
	// The table moved: the recorded path names the old place.
	moved := filepath.Join(t.TempDir(), "t")
	if err := os.Rename(dir, moved); err != nil {
		t.Fatal(err)
	}
	got, err = progress.Read(ctx, open(t, moved), "", prop)
	if err != nil || !got.Equal(o) {
		t.Errorf("Read after moving the table = %v, %v", got.Entries(), err)
	}
	// A branch writes below its own directory.
	bprop, err := progress.Write(ctx, open(t, moved), "dev", o)
	if err != nil || !strings.HasPrefix(bprop, moved+"/branch/branch-dev/metadata/") || !strings.HasSuffix(bprop, ".offsets") {
		t.Errorf("branch Write = %q, %v", bprop, err)
	}
}

func TestReadErrors(t *testing.T) {
	ctx := context.Background()
	fio := open(t, "mem://")
	_, err := progress.Read(ctx, fio, "", "mem://metadata/missing.offsets")
	if !errors.Is(err, fileio.ErrNotExist) || !strings.Contains(err.Error(), "metadata/missing.offsets") {
		t.Errorf("Read of a missing file: %v, want ErrNotExist naming it", err)
	}
	if err := fio.WriteFile(ctx, "metadata/bad.offsets", []byte(`{"version":2,"offsets":[]}`)); err != nil {
		t.Fatal(err)
	}
	_, err = progress.Read(ctx, fio, "", "mem://metadata/bad.offsets")
	if !errors.Is(err, progress.ErrCorrupt) || !strings.Contains(err.Error(), "metadata/bad.offsets") ||
		!strings.Contains(err.Error(), "unsupported offsets version 2") {
		t.Errorf("Read of a bad file: %v", err)
	}
}

// commitSnapshot publishes a minimal snapshot id with the given properties
// on branch.
func commitSnapshot(t *testing.T, fio *fileio.FileIO, branch string, id int64, props map[string]string) *snapshot.Snapshot {
	t.Helper()
	s := &snapshot.Snapshot{Version: snapshot.CurrentVersion, ID: id, BaseManifestList: "base", DeltaManifestList: "delta",
		CommitUser: "u", CommitIdentifier: id, CommitKind: snapshot.KindAppend, Properties: props}
	if err := snapshot.NewManager(fio).Branch(branch).Commit(context.Background(), s); err != nil {
		t.Fatal(err)
	}
	return s
}

func TestOfSnapshot(t *testing.T) {
	ctx := context.Background()
	fio := open(t, "mem://")
	for name, s := range map[string]*snapshot.Snapshot{
		"nil":            nil,
		"no properties":  {ID: 1},
		"other property": {ID: 1, Properties: map[string]string{"other": "value"}},
	} {
		o, ok, err := progress.OfSnapshot(ctx, fio, "", s)
		if err != nil || ok || o.Len() != 0 {
			t.Errorf("%s: OfSnapshot = %v, %v, %v; want empty, false, nil", name, o.Entries(), ok, err)
		}
	}
	prop, err := progress.Write(ctx, fio, "", targetOffsets())
	if err != nil {
		t.Fatal(err)
	}
	o, ok, err := progress.OfSnapshot(ctx, fio, "", &snapshot.Snapshot{ID: 3, Properties: map[string]string{progress.Property: prop}})
	if err != nil || !ok || !o.Equal(targetOffsets()) {
		t.Errorf("OfSnapshot = %v, %v, %v", o.Entries(), ok, err)
	}
	_, ok, err = progress.OfSnapshot(ctx, fio, "", &snapshot.Snapshot{ID: 4, Properties: map[string]string{progress.Property: "mem://metadata/gone.offsets"}})
	if !errors.Is(err, fileio.ErrNotExist) || !strings.Contains(err.Error(), "snapshot 4") || ok {
		t.Errorf("OfSnapshot with a missing file: %v, %v", ok, err)
	}
}

func TestReadCommitted(t *testing.T) {
	ctx := context.Background()
	fio := open(t, "mem://")
	p0 := pb(0, "dt", "2")
	// No snapshot yet: no progress.
	if o, err := progress.ReadCommitted(ctx, fio, "", 0); err != nil || o.Len() != 0 {
		t.Errorf("ReadCommitted of an empty table = %v, %v", o.Entries(), err)
	}
	if end, err := progress.ReadOffset(ctx, fio, "", 0, p0); err != nil || end != -1 {
		t.Errorf("ReadOffset of an empty table = %d, %v; want -1", end, err)
	}
	first := offsets(entry(3, 0, "dt", "2"))
	second := offsets(entry(5, 0, "dt", "2"), entry(2, 1, "dt", "2"))
	prop1, _ := progress.Write(ctx, fio, "", first)
	prop2, _ := progress.Write(ctx, fio, "", second)
	commitSnapshot(t, fio, "", 1, map[string]string{progress.Property: prop1})
	commitSnapshot(t, fio, "", 2, map[string]string{progress.Property: prop2})
	commitSnapshot(t, fio, "", 3, map[string]string{"other": "x"})
	for _, c := range []struct {
		id   int64
		want progress.Offsets
		end  int64
	}{{1, first, 3}, {2, second, 5}, {3, progress.Offsets{}, -1}, {0, progress.Offsets{}, -1}, {-1, progress.Offsets{}, -1}} {
		o, err := progress.ReadCommitted(ctx, fio, "", c.id)
		if err != nil || !o.Equal(c.want) {
			t.Errorf("ReadCommitted(%d) = %v, %v; want %v", c.id, o.Entries(), err, c.want.Entries())
		}
		if end, err := progress.ReadOffset(ctx, fio, "main", c.id, p0); err != nil || end != c.end {
			t.Errorf("ReadOffset(%d) = %d, %v; want %d", c.id, end, err, c.end)
		}
	}
	if end, err := progress.ReadOffset(ctx, fio, "", 2, pb(1, "dt", "2")); err != nil || end != 2 {
		t.Errorf("ReadOffset(2, bucket 1) = %d, %v; want 2", end, err)
	}
	if _, err := progress.ReadCommitted(ctx, fio, "", 9); !errors.Is(err, snapshot.ErrNotFound) {
		t.Errorf("ReadCommitted(9) error %v, want snapshot.ErrNotFound", err)
	}
	// A branch has its own snapshots and offsets directory.
	bprop, err := progress.Write(ctx, fio, "dev", offsets(entry(8, 0, "dt", "2")))
	if err != nil || !strings.HasPrefix(bprop, "mem://branch/branch-dev/metadata/") {
		t.Fatalf("branch Write = %q, %v", bprop, err)
	}
	commitSnapshot(t, fio, "dev", 1, map[string]string{progress.Property: bprop})
	if end, err := progress.ReadOffset(ctx, fio, "dev", 0, p0); err != nil || end != 8 {
		t.Errorf("ReadOffset on branch dev = %d, %v; want 8", end, err)
	}
}

func TestIsFilePath(t *testing.T) {
	for p, want := range map[string]bool{
		"metadata/0b1c.offsets":                true,
		"metadata/a.offsets":                   true,
		"branch/branch-dev/metadata/a.offsets": true,
		"metadata/.offsets":                    false,
		"metadata/a.offsets.tmp":               false,
		"metadata/sub/a.offsets":               false,
		"schema/schema-0":                      false,
		"bucket-0/data-1.parquet":              false,
		"a.offsets":                            false,
		"x/metadata/a.offsets":                 false,
		"branch/branch-/metadata/a.offsets":    false,
		"branch/branch-a/b/metadata/a.offsets": false,
		"branch/dev/metadata/a.offsets":        false,
		"metadata/../schema/schema-0.offsets":  false,
		"":                                     false,
	} {
		if got := progress.IsFilePath(p); got != want {
			t.Errorf("IsFilePath(%q) = %v, want %v", p, got, want)
		}
	}
}
