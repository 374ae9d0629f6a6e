package commit

import (
	"fmt"
	"math/rand/v2"
	"slices"
	"testing"

	"github.com/paimon-go/paimon/manifest"
)

// liveEntry is an entry of file name in partition p, bucket b at level 0.
func liveEntry(kind manifest.FileKind, p string, b int32, name string) manifest.Entry {
	return manifest.Entry{Kind: kind, Partition: []byte(p), Bucket: b, TotalBuckets: 4,
		File: manifest.DataFileMeta{FileName: name, RowCount: 1}}
}

func entryNames(es []manifest.Entry) []string {
	out := make([]string, len(es))
	for i, e := range es {
		out[i] = fmt.Sprintf("%s/%d/%s", e.Partition, e.Bucket, e.File.FileName)
	}
	return out
}

// TestLiveIndexMatchesNet: over 300 random snapshots (files added,
// deleted, and added again under the same identifier, in 3 partitions of
// which the index holds 2), what liveIndex.get returns after each advance
// equals manifest.Net of every entry so far filtered to the partitions
// asked for, in the same order; a base it does not hold, a partition it
// does not hold, a delta deleting a file it does not hold and a delta
// adding a live file again are misses, after which it holds nothing.
func TestLiveIndexMatchesNet(t *testing.T) {
	rng := rand.New(rand.NewPCG(3, 5))
	parts := map[string][]byte{"p0": []byte("p0"), "p1": []byte("p1")}
	var all []manifest.Entry
	var live []manifest.Entry // Net(all)
	var deleted []manifest.Entry
	base := []manifest.FileMeta{{FileName: "m-0"}}
	x := &liveIndex{}
	x.set(base, parts, nil)
	filter := func(es []manifest.Entry, ps map[string][]byte) []manifest.Entry {
		var out []manifest.Entry
		for _, e := range es {
			if _, ok := ps[string(e.Partition)]; ok {
				out = append(out, e)
			}
		}
		return out
	}
	next := 0
	for snap := 1; snap <= 300; snap++ {
		var delta []manifest.Entry
		for range 1 + rng.IntN(6) {
			switch r := rng.IntN(10); {
			case r < 5 || len(live) == 0:
				next++
				delta = append(delta, liveEntry(manifest.Add, fmt.Sprintf("p%d", rng.IntN(3)), int32(rng.IntN(4)), fmt.Sprintf("f%d", next)))
			case r < 9:
				e := live[rng.IntN(len(live))]
				if slices.ContainsFunc(delta, func(d manifest.Entry) bool { return d.Identifier() == e.Identifier() }) {
					continue
				}
				e.Kind = manifest.Delete
				delta = append(delta, e)
				deleted = append(deleted, e)
			case len(deleted) > 0:
				e := deleted[rng.IntN(len(deleted))]
				if slices.ContainsFunc(live, func(l manifest.Entry) bool { return l.Identifier() == e.Identifier() }) ||
					slices.ContainsFunc(delta, func(d manifest.Entry) bool { return d.Identifier() == e.Identifier() }) {
					continue
				}
				e.Kind = manifest.Add
				delta = append(delta, e)
			}
		}
		all = append(all, delta...)
		var err error
		if live, err = manifest.Net(all); err != nil {
			t.Fatalf("snapshot %d: %v", snap, err)
		}
		to := []manifest.FileMeta{{FileName: fmt.Sprintf("m-%d", snap)}}
		x.advance(base, to, delta)
		base = to
		for _, ps := range []map[string][]byte{parts, {"p1": []byte("p1")}} {
			got, ok := x.get(base, ps)
			if want := filter(live, ps); !ok || !slices.Equal(entryNames(got), entryNames(want)) {
				t.Fatalf("snapshot %d, partitions %v: %v (held %v)\nwant %v", snap, ps, entryNames(got), ok, entryNames(want))
			}
		}
	}
	if x.hits != 600 || len(live) == 0 {
		t.Fatalf("%d gets served, %d live files", x.hits, len(live))
	}
	if _, ok := x.get([]manifest.FileMeta{{FileName: "other"}}, parts); ok {
		t.Error("another base was served")
	}
	if _, ok := x.get(base, map[string][]byte{"p2": []byte("p2")}); ok {
		t.Error("a partition not held was served")
	}
	// Inconsistent deltas empty it.
	for name, delta := range map[string][]manifest.Entry{
		"delete of a file not held": {liveEntry(manifest.Delete, "p0", 0, "nope")},
		"add of a live file":        {filter(live, parts)[0]},
	} {
		y := &liveIndex{}
		y.set(base, parts, filter(live, parts))
		y.advance(base, []manifest.FileMeta{{FileName: "m-next"}}, delta)
		if _, ok := y.get([]manifest.FileMeta{{FileName: "m-next"}}, parts); ok || y.key != "" {
			t.Errorf("%s: still holds %q", name, y.key)
		}
	}
	// Advancing from a base it does not hold empties it.
	x.advance([]manifest.FileMeta{{FileName: "other"}}, []manifest.FileMeta{{FileName: "m-x"}}, nil)
	if _, ok := x.get([]manifest.FileMeta{{FileName: "m-x"}}, parts); ok {
		t.Error("advanced from a base it did not hold")
	}
}
