package compaction

import (
	"container/heap"
	"slices"

	"github.com/paimon-go/paimon/manifest"
)

// IntervalPartition splits files of one bucket into sections whose key ranges
// do not overlap, each section being the fewest sorted runs its files fit in
// (Java org.apache.paimon.mergetree.compact.IntervalPartition). Sections come
// in key order; merging each section on its own gives the same records as
// merging all files at once, with fewer runs open at a time.
//
// Files are ordered by (min key, max key); a file whose min key is above the
// largest max key seen so far starts a new section. Within a section, each
// file goes to the run whose last file has the smallest max key, if that max
// key is below the file's min key, else to a new run. Errors wrap ErrCorrupt
// (a key that does not decode).
func IntervalPartition(files []manifest.DataFileMeta, keys *KeyOrder) ([][]SortedRun, error) {
	fs := slices.Clone(files)
	for i := range fs {
		if _, _, err := keys.Keys(&fs[i]); err != nil {
			return nil, err
		}
	}
	minOf := func(f *manifest.DataFileMeta) []any { k, _, _ := keys.Keys(f); return k }
	maxOf := func(f *manifest.DataFileMeta) []any { _, k, _ := keys.Keys(f); return k }
	slices.SortStableFunc(fs, func(a, b manifest.DataFileMeta) int {
		if c := keys.Compare(minOf(&a), minOf(&b)); c != 0 {
			return c
		}
		return keys.Compare(maxOf(&a), maxOf(&b))
	})
	var out [][]SortedRun
	var section []manifest.DataFileMeta
	var bound []any
	for i := range fs {
		f := &fs[i]
		if len(section) > 0 && keys.Compare(minOf(f), bound) > 0 {
			out = append(out, partitionSection(section, keys))
			section, bound = nil, nil
		}
		section = append(section, *f)
		if bound == nil || keys.Compare(maxOf(f), bound) > 0 {
			bound = maxOf(f)
		}
	}
	if len(section) > 0 {
		out = append(out, partitionSection(section, keys))
	}
	return out, nil
}

// runHeap is a min-heap of runs by the max key of their last file.
type runHeap struct {
	runs []*SortedRun
	keys *KeyOrder
}

func (h *runHeap) Len() int { return len(h.runs) }
func (h *runHeap) Less(i, j int) bool {
	return h.keys.Compare(h.lastMax(i), h.lastMax(j)) < 0
}
func (h *runHeap) lastMax(i int) []any {
	fs := h.runs[i].Files
	_, k, _ := h.keys.Keys(&fs[len(fs)-1])
	return k
}
func (h *runHeap) Swap(i, j int) { h.runs[i], h.runs[j] = h.runs[j], h.runs[i] }
func (h *runHeap) Push(x any)    { h.runs = append(h.runs, x.(*SortedRun)) }
func (h *runHeap) Pop() any {
	n := len(h.runs)
	x := h.runs[n-1]
	h.runs = h.runs[:n-1]
	return x
}

// partitionSection is IntervalPartition.partition(List<DataFileMeta>): files
// are sorted by min key; each joins the run with the smallest last max key if
// it starts after it. Java returns the runs in its heap's order, which does
// not matter for merging; here they are ordered by their first file's min key,
// then max key, for a deterministic result.
func partitionSection(files []manifest.DataFileMeta, keys *KeyOrder) []SortedRun {
	h := &runHeap{keys: keys}
	h.runs = append(h.runs, &SortedRun{Files: []manifest.DataFileMeta{files[0]}})
	for i := 1; i < len(files); i++ {
		f := files[i]
		top := heap.Pop(h).(*SortedRun)
		_, lastMax, _ := keys.Keys(&top.Files[len(top.Files)-1])
		minK, _, _ := keys.Keys(&f)
		if keys.Compare(minK, lastMax) > 0 {
			top.Files = append(top.Files, f)
		} else {
			heap.Push(h, &SortedRun{Files: []manifest.DataFileMeta{f}})
		}
		heap.Push(h, top)
	}
	out := make([]SortedRun, len(h.runs))
	for i, r := range h.runs {
		out[i] = *r
	}
	slices.SortStableFunc(out, func(a, b SortedRun) int {
		amin, amax, _ := keys.Keys(&a.Files[0])
		bmin, bmax, _ := keys.Keys(&b.Files[0])
		if c := keys.Compare(amin, bmin); c != 0 {
			return c
		}
		return keys.Compare(amax, bmax)
	})
	return out
}
