package hashindex_test

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"testing"

	"github.com/paimon-go/paimon/fileio"
	"github.com/paimon-go/paimon/hashindex"
	"github.com/paimon-go/paimon/manifest"
)

func open(t *testing.T) *fileio.FileIO {
	t.Helper()
	fio, err := fileio.Open(context.Background(), "file://"+t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { fio.Close() })
	return fio
}

// TestFileRoundTrip: a HASH index file is the hashes as big-endian 4-byte
// ints (Java IntFileUtils.writeInts).
func TestFileRoundTrip(t *testing.T) {
	ctx := context.Background()
	fio := open(t)
	f, err := hashindex.Write(ctx, fio, hashindex.NewNamer("u").Next(), []int32{1, -2, 0x01020304})
	if err != nil {
		t.Fatal(err)
	}
	want := manifest.IndexFileMeta{IndexType: "HASH", FileName: "index-u-0", FileSize: 12, RowCount: 3}
	if fmt.Sprint(f) != fmt.Sprint(want) {
		t.Errorf("meta %+v, want %+v", f, want)
	}
	b, err := fio.ReadFile(ctx, "index/index-u-0")
	if err != nil {
		t.Fatal(err)
	}
	if fmt.Sprintf("%x", b) != "00000001fffffffe01020304" {
		t.Errorf("bytes %x", b)
	}
	hs, err := hashindex.Read(ctx, fio, f)
	if err != nil || fmt.Sprint(hs) != "[1 -2 16909060]" {
		t.Errorf("Read = %v, %v", hs, err)
	}
}

// TestFileBadInput: a missing, truncated or overlong HASH file is a typed
// error naming the file.
func TestFileBadInput(t *testing.T) {
	ctx := context.Background()
	fio := open(t)
	meta := manifest.IndexFileMeta{IndexType: "HASH", FileName: "index-x-0", FileSize: 8, RowCount: 2}
	_, err := hashindex.Read(ctx, fio, meta)
	if !errors.Is(err, hashindex.ErrMissing) || !errors.Is(err, fileio.ErrNotExist) || !strings.Contains(err.Error(), "index/index-x-0") {
		t.Errorf("missing: %v", err)
	}
	for _, content := range []string{"\x00\x00\x00\x01\x00\x00\x00", "\x00\x00\x00\x01", "\x00\x00\x00\x01\x00\x00\x00\x02\x00\x00\x00\x03"} {
		if err := fio.WriteFile(ctx, "index/index-x-0", []byte(content)); err != nil {
			t.Fatal(err)
		}
		_, err = hashindex.Read(ctx, fio, meta)
		if !errors.Is(err, hashindex.ErrCorrupt) || !strings.Contains(err.Error(), "index/index-x-0") {
			t.Errorf("%d bytes: %v, want ErrCorrupt naming the file", len(content), err)
		}
	}
}

// TestPartitionAssign: Java PartitionIndex.assign: known hashes keep their
// bucket, new ones fill the lowest non-full bucket, then the lowest free id.
func TestPartitionAssign(t *testing.T) {
	p := hashindex.NewPartition(2, -1)
	p.Add(1, 100) // bucket 1 loaded with one hash; bucket 0 free
	var got []int32
	for _, h := range []int32{100, 7, 8, 9, 7, 10, 11} {
		b, err := p.Assign(h)
		if err != nil {
			t.Fatal(err)
		}
		got = append(got, b)
	}
	if fmt.Sprint(got) != "[1 1 0 0 1 2 2]" {
		t.Errorf("buckets %v, want [1 1 0 0 1 2 2]", got)
	}
	if d := p.Dirty(); fmt.Sprint(d) != "map[0:[8 9] 1:[7 100] 2:[10 11]]" {
		t.Errorf("dirty %v", d)
	}
	if d := p.Dirty(); d != nil {
		t.Errorf("dirty again %v", d)
	}
}
