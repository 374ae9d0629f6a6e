package commit

import (
	"errors"
	"reflect"
	"testing"

	"github.com/paimon-go/paimon/manifest"
)

// ie builds an index manifest entry of partition "p<part>" (raw bytes, the
// combiner only compares them), bucket b, type typ and file name, with
// deletion vectors for dataFiles.
func ie(kind manifest.FileKind, part string, b int32, typ, name string, dataFiles ...string) manifest.IndexManifestEntry {
	e := manifest.IndexManifestEntry{Kind: kind, Partition: []byte(part), Bucket: b,
		IndexFile: manifest.IndexFileMeta{IndexType: typ, FileName: name, FileSize: 1}}
	for _, d := range dataFiles {
		e.IndexFile.DVRanges = append(e.IndexFile.DVRanges, manifest.DeletionVectorMeta{DataFileName: d, Offset: 1, Length: 22})
	}
	return e
}

func indexNames(es []manifest.IndexManifestEntry) []string {
	var out []string
	for _, e := range es {
		out = append(out, e.IndexFile.FileName)
	}
	return out
}

const typeDV, typeHash = manifest.IndexTypeDeletionVectors, manifest.IndexTypeHash

func TestCombineIndex(t *testing.T) {
	add, del := manifest.Add, manifest.Delete
	bucketed := []manifest.IndexManifestEntry{
		ie(add, "p0", 0, typeDV, "index-a", "d1"),
		ie(add, "p0", 1, typeDV, "index-b", "d2"),
		ie(add, "p0", 0, typeHash, "index-h"),
		ie(add, "p1", 0, typeDV, "index-p1"),
	}
	for _, c := range []struct {
		name    string
		prev    []manifest.IndexManifestEntry
		delta   []manifest.IndexManifestEntry
		unaware bool
		want    []string
		err     error
	}{
		{name: "replace with delete", prev: bucketed,
			delta: []manifest.IndexManifestEntry{ie(del, "p0", 0, typeDV, "index-a"), ie(add, "p0", 0, typeDV, "index-c", "d1")},
			want:  []string{"index-b", "index-h", "index-p1", "index-c"}},
		// Java's BucketedCombiner would replace the live file silently and
		// lose its vectors; our writers list it as deleted, so an ADD over a
		// live vector file is a concurrent commit's file: a conflict.
		{name: "add over a live vector file not deleted", prev: bucketed,
			delta: []manifest.IndexManifestEntry{ie(add, "p0", 1, typeDV, "index-d", "d2")},
			err:   ErrConflict},
		{name: "add after deleting the bucket's file", prev: bucketed,
			delta: []manifest.IndexManifestEntry{ie(del, "p0", 1, typeDV, "index-b"), ie(add, "p0", 1, typeDV, "index-d", "d2")},
			want:  []string{"index-a", "index-h", "index-p1", "index-d"}},
		{name: "new bucket", prev: bucketed,
			delta: []manifest.IndexManifestEntry{ie(add, "p1", 3, typeDV, "index-e")},
			want:  []string{"index-a", "index-b", "index-h", "index-p1", "index-e"}},
		{name: "delete only", prev: bucketed,
			delta: []manifest.IndexManifestEntry{ie(del, "p0", 0, typeHash, "index-h"), ie(del, "p1", 0, typeDV, "index-p1")},
			want:  []string{"index-a", "index-b"}},
		{name: "delete a replaced file", prev: bucketed,
			delta: []manifest.IndexManifestEntry{ie(del, "p0", 0, typeDV, "index-old"), ie(add, "p0", 0, typeDV, "index-c")},
			err:   ErrConflict},
		{name: "delete in an empty bucket", prev: bucketed,
			delta: []manifest.IndexManifestEntry{ie(del, "p0", 9, typeDV, "index-a")},
			err:   ErrConflict},
		{name: "no base", delta: []manifest.IndexManifestEntry{ie(add, "p0", 0, typeDV, "index-a")}, want: []string{"index-a"}},

		// Bucket-unaware deletion vectors: by file name.
		{name: "unaware add", unaware: true,
			prev:  []manifest.IndexManifestEntry{ie(add, "p0", 0, typeDV, "i1", "d1")},
			delta: []manifest.IndexManifestEntry{ie(add, "p0", 0, typeDV, "i2", "d2")},
			want:  []string{"i1", "i2"}},
		{name: "unaware replace a data file's vector", unaware: true,
			prev:  []manifest.IndexManifestEntry{ie(add, "p0", 0, typeDV, "i1", "d1", "d2"), ie(add, "p0", 0, typeDV, "i2", "d3")},
			delta: []manifest.IndexManifestEntry{ie(del, "p0", 0, typeDV, "i1", "d1", "d2"), ie(add, "p0", 0, typeDV, "i3", "d1")},
			want:  []string{"i2", "i3"}},
		{name: "unaware second vector", unaware: true,
			prev:  []manifest.IndexManifestEntry{ie(add, "p0", 0, typeDV, "i1", "d1")},
			delta: []manifest.IndexManifestEntry{ie(add, "p0", 0, typeDV, "i2", "d1")},
			err:   ErrConflict},
		{name: "unaware file added twice", unaware: true,
			prev:  []manifest.IndexManifestEntry{ie(add, "p0", 0, typeDV, "i1", "d1")},
			delta: []manifest.IndexManifestEntry{ie(add, "p0", 0, typeDV, "i1", "d9")},
			err:   ErrConflict},
		{name: "unaware delete missing", unaware: true,
			prev:  []manifest.IndexManifestEntry{ie(add, "p0", 0, typeDV, "i1", "d1")},
			delta: []manifest.IndexManifestEntry{ie(del, "p0", 0, typeDV, "i9", "d1")},
			err:   ErrConflict},
		{name: "unaware typeHash is bucketed", unaware: true,
			prev:  []manifest.IndexManifestEntry{ie(add, "p0", 0, typeHash, "h1")},
			delta: []manifest.IndexManifestEntry{ie(add, "p0", 0, typeHash, "h2")},
			want:  []string{"h2"}},

		// Global indexes: by file name, deletions first.
		{name: "global",
			prev: []manifest.IndexManifestEntry{ie(add, "p0", 0, "btree", "g1"), ie(add, "p0", 0, "btree", "g2")},
			delta: []manifest.IndexManifestEntry{ie(add, "p0", 0, "btree", "g3"), ie(del, "p0", 0, "btree", "g1"),
				ie(add, "p0", 0, "bitmap", "g4")},
			want: []string{"g2", "g3", "g4"}},
		{name: "global delete missing",
			prev:  []manifest.IndexManifestEntry{ie(add, "p0", 0, "btree", "g1")},
			delta: []manifest.IndexManifestEntry{ie(del, "p0", 0, "btree", "g9")},
			err:   ErrConflict},
	} {
		got, err := combineIndex(c.prev, c.delta, c.unaware)
		if c.err != nil {
			if !errors.Is(err, c.err) {
				t.Errorf("%s: err = %v, want %v", c.name, err, c.err)
			}
			continue
		}
		if err != nil {
			t.Errorf("%s: %v", c.name, err)
			continue
		}
		if !reflect.DeepEqual(indexNames(got), c.want) {
			t.Errorf("%s: %v, want %v", c.name, indexNames(got), c.want)
		}
		for _, e := range got {
			if e.Kind != manifest.Add {
				t.Errorf("%s: %s is not an ADD entry", c.name, e.IndexFile.FileName)
			}
		}
	}
	// A base index manifest with a DELETE entry is malformed.
	if _, err := combineIndex([]manifest.IndexManifestEntry{ie(del, "p0", 0, typeDV, "x")}, bucketed[:1], false); err == nil {
		t.Error("DELETE entry in the base accepted")
	}
}

func TestCheckIndexConflicts(t *testing.T) {
	live := map[string]manifest.Entry{
		"a": {Kind: manifest.Add, Partition: []byte("p0"), Bucket: 0, File: manifest.DataFileMeta{FileName: "d1", Level: 5}},
		"b": {Kind: manifest.Add, Partition: []byte("p0"), Bucket: 1, File: manifest.DataFileMeta{FileName: "d2", Level: 5}},
	}
	for _, c := range []struct {
		name  string
		index []manifest.IndexManifestEntry
		ok    bool
	}{
		{"live", []manifest.IndexManifestEntry{ie(manifest.Add, "p0", 0, typeDV, "i", "d1")}, true},
		{"other bucket", []manifest.IndexManifestEntry{ie(manifest.Add, "p0", 0, typeDV, "i", "d2")}, false},
		{"other partition", []manifest.IndexManifestEntry{ie(manifest.Add, "p1", 0, typeDV, "i", "d1")}, false},
		{"deleted file", []manifest.IndexManifestEntry{ie(manifest.Add, "p0", 0, typeDV, "i", "d1", "gone")}, false},
		{"DELETE entries are not checked", []manifest.IndexManifestEntry{ie(manifest.Delete, "p0", 0, typeDV, "i", "gone")}, true},
		{"typeHash index", []manifest.IndexManifestEntry{ie(manifest.Add, "p0", 0, typeHash, "h")}, true},
	} {
		err := checkIndexConflicts(live, c.index)
		if c.ok && err != nil || !c.ok && !errors.Is(err, ErrConflict) {
			t.Errorf("%s: err = %v, want ok=%v", c.name, err, c.ok)
		}
	}
}
