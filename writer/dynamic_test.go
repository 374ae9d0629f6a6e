package writer_test

import (
	"context"
	"errors"
	"fmt"
	"slices"
	"strings"
	"testing"

	"github.com/paimon-go/paimon/catalog"
	"github.com/paimon-go/paimon/fileio"
	"github.com/paimon-go/paimon/hashindex"
	"github.com/paimon-go/paimon/manifest"
	"github.com/paimon-go/paimon/row"
	"github.com/paimon-go/paimon/snapshot"
	"github.com/paimon-go/paimon/types"
	"github.com/paimon-go/paimon/writer"
)

// keyHash is Java's BinaryRow.hashCode of the INT key id.
func keyHash(id int32) int32 {
	return row.HashCode(must(row.Encode([]types.DataType{types.Int()}, []any{id})))
}

// hashIndex returns the latest snapshot's HASH index of partition (one
// file per bucket): bucket -> sorted hashes.
func hashIndex(t *testing.T, tbl *catalog.Table, partition []byte) map[int32][]int32 {
	t.Helper()
	ctx := context.Background()
	sn, err := snapshot.NewManager(tbl.FileIO).Latest(ctx)
	if err != nil {
		t.Fatal(err)
	}
	es, err := manifest.ReadIndexManifest(ctx, tbl.FileIO, *sn.IndexManifest)
	if err != nil {
		t.Fatal(err)
	}
	out := map[int32][]int32{}
	for _, e := range hashindex.PartitionFiles(es, partition) {
		if _, dup := out[e.Bucket]; dup {
			t.Fatalf("bucket %d has two HASH files", e.Bucket)
		}
		hs, err := hashindex.Read(ctx, tbl.FileIO, e.IndexFile)
		if err != nil {
			t.Fatal(err)
		}
		slices.Sort(hs)
		out[e.Bucket] = hs
	}
	return out
}

func hashesOf(ids ...int32) []int32 {
	out := make([]int32, len(ids))
	for i, id := range ids {
		out[i] = keyHash(id)
	}
	slices.Sort(out)
	return out
}

// TestDynamicBucketWrite: bucket = -1 on a primary-key table assigns keys
// as Java's PartitionIndex does (new keys fill the first bucket below
// dynamic-bucket.target-row-num, then a new bucket opens), writes one HASH
// index file per bucket holding its keys' hashes, and a new Write restores
// the assignment from the index: updated keys stay in their bucket, new
// keys fill the non-full one.
func TestDynamicBucketWrite(t *testing.T) {
	tbl := newTable(t, "", catalog.Schema{
		Fields:        []types.DataField{{Name: "p", Type: types.Int()}, {Name: "id", Type: types.Int()}, {Name: "v", Type: types.String()}},
		PartitionKeys: []string{"p"},
		PrimaryKeys:   []string{"p", "id"},
		Options:       map[string]string{"bucket": "-1", "dynamic-bucket.target-row-num": "3"},
	})
	fs := arrowFields(tbl.Schema)
	var rows [][]any
	for id := int32(1); id <= 7; id++ {
		rows = append(rows, []any{int32(1), id, fmt.Sprint("a", id)})
	}
	rows = append(rows, []any{int32(2), int32(1), "b1"})
	writeCommit(t, tbl, "u", 1, rec(t, fs, rows...))
	p1 := row.Serialize(must(row.Encode([]types.DataType{types.Int()}, []any{int32(1)})))
	p2 := row.Serialize(must(row.Encode([]types.DataType{types.Int()}, []any{int32(2)})))
	want := map[int32][]int32{0: hashesOf(1, 2, 3), 1: hashesOf(4, 5, 6), 2: hashesOf(7)}
	if got := hashIndex(t, tbl, p1); fmt.Sprint(got) != fmt.Sprint(want) {
		t.Errorf("index of p=1 after commit 1: %v, want %v", got, want)
	}
	if got := hashIndex(t, tbl, p2); fmt.Sprint(got) != fmt.Sprint(map[int32][]int32{0: hashesOf(1)}) {
		t.Errorf("index of p=2 after commit 1: %v", got)
	}
	_, es := deltaEntries(t, tbl.FileIO, 1)
	for _, e := range es {
		if e.TotalBuckets != -1 {
			t.Errorf("entry %s: total buckets %d, want -1", e.File.FileName, e.TotalBuckets)
		}
	}

	// A new Write: 7 and 2 are updated in place, 8 and 9 fill bucket 2, 10
	// opens bucket 3.
	writeCommit(t, tbl, "u", 2, rec(t, fs,
		[]any{int32(1), int32(7), "x7"}, []any{int32(1), int32(8), "x8"}, []any{int32(1), int32(2), "x2"},
		[]any{int32(1), int32(9), "x9"}, []any{int32(1), int32(10), "x10"}))
	want = map[int32][]int32{0: hashesOf(1, 2, 3), 1: hashesOf(4, 5, 6), 2: hashesOf(7, 8, 9), 3: hashesOf(10)}
	if got := hashIndex(t, tbl, p1); fmt.Sprint(got) != fmt.Sprint(want) {
		t.Errorf("index of p=1 after commit 2: %v, want %v", got, want)
	}
	_, es = deltaEntries(t, tbl.FileIO, 2)
	var buckets []int32
	for _, e := range es {
		buckets = append(buckets, e.Bucket)
	}
	if fmt.Sprint(buckets) != "[0 2 3]" {
		t.Errorf("buckets written by commit 2: %v, want [0 2 3]", buckets)
	}
	equalRows(t, "rows", readRows(t, tbl.FileIO.URL()), sorted(
		"1|1|a1", "1|2|x2", "1|3|a3", "1|4|a4", "1|5|a5", "1|6|a6", "1|7|x7", "1|8|x8", "1|9|x9", "1|10|x10", "2|1|b1"))
}

// TestDynamicBucketMaxBuckets: with dynamic-bucket.max-buckets reached,
// new keys go to an existing bucket (Java picks one at random), and every
// key still has exactly one bucket.
func TestDynamicBucketMaxBuckets(t *testing.T) {
	tbl := newTable(t, "", catalog.Schema{
		Fields:      []types.DataField{{Name: "id", Type: types.Int()}, {Name: "v", Type: types.String()}},
		PrimaryKeys: []string{"id"},
		Options:     map[string]string{"bucket": "-1", "dynamic-bucket.target-row-num": "2", "dynamic-bucket.max-buckets": "2"},
	})
	fs := arrowFields(tbl.Schema)
	var rows [][]any
	var wantRows []string
	for id := int32(1); id <= 9; id++ {
		rows = append(rows, []any{id, "a"})
		wantRows = append(wantRows, fmt.Sprintf("%d|a", id))
	}
	writeCommit(t, tbl, "u", 1, rec(t, fs, rows...))
	writeCommit(t, tbl, "u", 2, rec(t, fs, rows...))
	idx := hashIndex(t, tbl, row.Serialize(row.EmptyRow()))
	var all []int32
	for b, hs := range idx {
		if b != 0 && b != 1 {
			t.Errorf("bucket %d beyond max-buckets 2", b)
		}
		all = append(all, hs...)
	}
	slices.Sort(all)
	ids := make([]int32, 9)
	for i := range ids {
		ids[i] = int32(i + 1)
	}
	if fmt.Sprint(all) != fmt.Sprint(hashesOf(ids...)) {
		t.Errorf("hashes over all buckets %v, want each key once: %v", all, hashesOf(ids...))
	}
	equalRows(t, "rows", readRows(t, tbl.FileIO.URL()), sorted(wantRows...))
}

// TestDynamicBucketBadIndex: a HASH index file that is missing or corrupt
// fails the next write into its partition with hashindex.ErrMissing or
// hashindex.ErrCorrupt naming the file, before anything is written.
func TestDynamicBucketBadIndex(t *testing.T) {
	ctx := context.Background()
	for _, tc := range []struct {
		name    string
		damage  func(fio *fileio.FileIO, path string) error
		wantErr error
	}{
		{"missing", func(fio *fileio.FileIO, path string) error { return fio.Delete(ctx, path) }, hashindex.ErrMissing},
		{"truncated", func(fio *fileio.FileIO, path string) error { return fio.WriteFile(ctx, path, []byte{0, 0, 1}) }, hashindex.ErrCorrupt},
		{"overlong", func(fio *fileio.FileIO, path string) error { return fio.WriteFile(ctx, path, make([]byte, 64)) }, hashindex.ErrCorrupt},
	} {
		t.Run(tc.name, func(t *testing.T) {
			tbl := newTable(t, "", catalog.Schema{
				Fields:      []types.DataField{{Name: "id", Type: types.Int()}, {Name: "v", Type: types.String()}},
				PrimaryKeys: []string{"id"},
				Options:     map[string]string{"bucket": "-1"},
			})
			fs := arrowFields(tbl.Schema)
			writeCommit(t, tbl, "u", 1, rec(t, fs, []any{int32(1), "a"}, []any{int32(2), "b"}))
			files, err := tbl.FileIO.List(ctx, "index")
			if err != nil || len(files) != 1 {
				t.Fatalf("index files %v, %v", files, err)
			}
			path := files[0].Path
			if err := tc.damage(tbl.FileIO, path); err != nil {
				t.Fatal(err)
			}
			w, err := writer.New(tbl.FileIO, tbl.Schema, "u")
			if err != nil {
				t.Fatal(err)
			}
			defer w.Close()
			r := rec(t, fs, []any{int32(3), "c"})
			defer r.Release()
			err = w.Write(ctx, r)
			if !errors.Is(err, tc.wantErr) || !strings.Contains(err.Error(), path) {
				t.Fatalf("Write = %v, want %v naming %s", err, tc.wantErr, path)
			}
			if msgs, err := w.PrepareCommit(ctx); err != nil || len(msgs) != 0 {
				t.Errorf("PrepareCommit after the failed write = %v, %v; want nothing", msgs, err)
			}
		})
	}
}
