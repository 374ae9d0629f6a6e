package compaction

import (
	"cmp"
	"slices"

	"github.com/paimon-go/paimon/manifest"
	"github.com/paimon-go/paimon/schema"
)

// fullCompactMinFiles is BucketedAppendCompactManager.FULL_COMPACT_MIN_FILE.
const fullCompactMinFiles = 3

// AppendPicker holds the sizing options of append-table compaction (Java
// CoreOptions as read by BucketedAppendCompactManager and
// AppendCompactCoordinator).
type AppendPicker struct {
	// TargetFileSize is target-file-size for append tables (default 256 MiB).
	TargetFileSize int64
	// CompactionFileSize is TargetFileSize · compaction.small-file-ratio
	// (default 0.7): files below it are small.
	CompactionFileSize int64
	// MinFileNum is compaction.min.file-num (default 5).
	MinFileNum int
	// OpenFileCost is source.split.open-file-cost (default 4 MiB), added to
	// each file's size when bins are packed (unaware buckets).
	OpenFileCost int64
	// ForceRewriteAll is compaction.force-rewrite-all-files.
	ForceRewriteAll bool
}

// PickBucketed picks the groups of files of one fixed bucket of an append
// table to compact, as BucketedAppendCompactManager.pickCompactBefore does,
// repeated on the files left until it picks nothing: files are taken in
// order of minimum sequence number into a window; as soon as the window holds
// MinFileNum files it is a group; while it holds at least 2 ·
// TargetFileSize bytes its oldest file is dropped. Java's writer triggers
// the pick again after each compaction; one call here returns all groups it
// would pick from the given files (without re-adding a compaction's small
// output file to the queue). Each group is ordered by minimum sequence
// number, the order its rows are rewritten in.
func (p AppendPicker) PickBucketed(files []manifest.DataFileMeta) [][]manifest.DataFileMeta {
	queue := bySequence(files)
	var out [][]manifest.DataFileMeta
	for len(queue) > 0 {
		start, end, ok := p.window(queue)
		if !ok {
			break
		}
		window := slices.Clone(queue[start:end])
		out = append(out, window)
		queue = slices.Delete(queue, start, end)
	}
	return out
}

// PickBucketedNext is one BucketedAppendCompactManager.pickCompactBefore on
// a writer's queue of files to compact, ordered by minimum sequence number:
// files are polled into a window; as soon as it holds MinFileNum files it is
// the group, and rest are the files not polled; while it holds at least
// 2 · TargetFileSize bytes its oldest file is dropped, and dropped files
// leave the queue for good, as in Java. When no group forms, group is nil
// and rest is the last window (the files Java puts back).
func (p AppendPicker) PickBucketedNext(queue []manifest.DataFileMeta) (group, rest []manifest.DataFileMeta) {
	start, end, ok := p.window(queue)
	if !ok {
		return nil, slices.Clone(queue[start:end])
	}
	return slices.Clone(queue[start:end]), slices.Clone(queue[end:])
}

// window slides the pickCompactBefore window over queue: queue[start:end]
// is the group when ok, else the window left when the queue ran out.
func (p AppendPicker) window(queue []manifest.DataFileMeta) (start, end int, ok bool) {
	var size int64
	for i, f := range queue {
		size += f.FileSize
		if i+1-start >= p.MinFileNum {
			return start, i + 1, true
		} else if size >= 2*p.TargetFileSize {
			size -= queue[start].FileSize
			start++
		}
	}
	return start, len(queue), false
}

// AppendPickerOf reads the sizing options of append-table compaction from
// table options with Java's defaults: target-file-size (append default),
// compaction.small-file-ratio, compaction.min.file-num,
// source.split.open-file-cost and compaction.force-rewrite-all-files.
// Errors wrap schema.ErrInvalidOption and name the key.
func AppendPickerOf(o schema.Options) (AppendPicker, error) {
	var p AppendPicker
	var err error
	if p.TargetFileSize, err = o.TargetFileSize(false); err != nil {
		return p, err
	}
	ratio, err := o.CompactionSmallFileRatio()
	if err != nil {
		return p, err
	}
	p.CompactionFileSize = int64(float64(p.TargetFileSize) * ratio)
	if p.MinFileNum, err = o.Int(KeyMinFileNum, 5); err != nil {
		return p, err
	}
	if p.OpenFileCost, err = o.MemorySize(KeySplitOpenFileCost, 4<<20); err != nil {
		return p, err
	}
	if p.ForceRewriteAll, err = o.Bool(KeyForceRewriteAllFiles, false); err != nil {
		return p, err
	}
	return p, nil
}

// PickBucketedFull is the full compaction of one fixed bucket of an append
// table (BucketedAppendCompactManager.FullCompactTask): the leading files (in
// sequence order) of at least CompactionFileSize bytes are skipped; the rest
// are compacted together when more of them are small than large and they are
// at least 3, or always with ForceRewriteAll. nil means no compaction.
func (p AppendPicker) PickBucketedFull(files []manifest.DataFileMeta) []manifest.DataFileMeta {
	if !p.ForceRewriteAll && len(files) < fullCompactMinFiles {
		return nil
	}
	queue := bySequence(files)
	if !p.ForceRewriteAll {
		for len(queue) > 0 && queue[0].FileSize >= p.CompactionFileSize {
			queue = queue[1:]
		}
	}
	if len(queue) == 0 {
		return nil
	}
	big, small := 0, 0
	for _, f := range queue {
		if f.FileSize >= p.CompactionFileSize {
			big++
		} else {
			small++
		}
	}
	if p.ForceRewriteAll || (small > big && len(queue) >= fullCompactMinFiles) {
		return queue
	}
	return nil
}

func bySequence(files []manifest.DataFileMeta) []manifest.DataFileMeta {
	q := slices.Clone(files)
	slices.SortStableFunc(q, func(a, b manifest.DataFileMeta) int { return cmp.Compare(a.MinSequenceNumber, b.MinSequenceNumber) })
	return q
}

// PickUnaware picks the groups of files of one partition of a bucket-unaware
// append table to compact, as AppendCompactCoordinator does in one batch
// planning round: only files smaller than CompactionFileSize are candidates;
// sorted by size, they are packed into bins, each file counting its size
// plus OpenFileCost; a bin of more than one file reaching 2 · TargetFileSize
// is a group, and the last bin is one when it has at least MinFileNum files.
// With full set, all candidates form one group when there are at least two
// (the coordinator's fallback for files that waited too long). Each group
// keeps the files in their order in files (the order of the snapshot's
// manifests), which is the order their rows are rewritten in; Java rewrites
// them in bin order, an order it does not define.
func (p AppendPicker) PickUnaware(files []manifest.DataFileMeta, full bool) [][]manifest.DataFileMeta {
	var cand []int
	for i := range files {
		if files[i].FileSize < p.CompactionFileSize {
			cand = append(cand, i)
		}
	}
	if full {
		if len(cand) < 2 {
			return nil
		}
		return [][]manifest.DataFileMeta{pickIdx(files, cand)}
	}
	bySize := slices.Clone(cand)
	slices.SortStableFunc(bySize, func(a, b int) int { return cmp.Compare(files[a].FileSize, files[b].FileSize) })
	var out [][]manifest.DataFileMeta
	var bin []int
	var total int64
	for _, i := range bySize {
		bin = append(bin, i)
		total += files[i].FileSize + p.OpenFileCost
		if len(bin) > 1 && total >= 2*p.TargetFileSize {
			out = append(out, pickIdx(files, bin))
			bin, total = nil, 0
		}
	}
	if len(bin) >= p.MinFileNum && len(bin) > 1 {
		out = append(out, pickIdx(files, bin))
	}
	return out
}

// pickIdx returns files[idx...] in the order of files.
func pickIdx(files []manifest.DataFileMeta, idx []int) []manifest.DataFileMeta {
	s := slices.Clone(idx)
	slices.Sort(s)
	out := make([]manifest.DataFileMeta, len(s))
	for k, i := range s {
		out[k] = files[i]
	}
	return out
}
