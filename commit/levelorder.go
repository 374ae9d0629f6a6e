package commit

import (
	"fmt"

	"github.com/paimon-go/paimon/manifest"
	"github.com/paimon-go/paimon/schema"
	"github.com/paimon-go/paimon/types"
)

// levelOrder checks the COMPACT part of a primary-key commit against the
// live files of its buckets that the compactions did not read (see the
// package documentation, Sequence numbers across writers). A compaction
// may only be published when merging its inputs without such a file gives
// what merging them with it would have, and when the bucket's levels keep
// Java's order afterwards: on every key, a higher level holds older records
// than a lower one (Levels, the lookup of LookupMergeTreeCompactRewriter,
// and batch reads of deletion-vector tables, which skip level 0, rely on
// it). An unread live file that shares keys with the inputs breaks this
// when
//
//   - its sequence numbers interleave with the inputs': the merge skipped
//     records that belong between the merged ones;
//   - the writer did not see it (it is not in the message's LevelsView) and
//     it is older than every input: the compaction may have dropped the
//     delete records that hide its rows (Java's dropDelete, decided on the
//     writer's levels, which lacked it), or it sits on a lower level than
//     the output, below newer records;
//   - the writer did not see it, it is newer than every input and it sits
//     on a higher level than the output, above older records;
//   - the writer did not see it, it sits on a level above 0 and the table
//     reads each key's record on the lowest level above 0 as the key's
//     whole history (wholeHistory): the output, merged without the file,
//     either hides it (the file is deeper) or is hidden by it (the file is
//     shallower and was written without the inputs' records), and either
//     way records are lost (an aggregation's sum drops a commit).
//
// A message without a LevelsView (nil) is taken to have seen every live
// file: only the first rule applies.
type levelOrder struct {
	keyTypes []types.DataType
	views    map[bucketKey]*LevelsView
	// wholeHistory: reads merge a key's level-0 records with its record on
	// the lowest level above 0 only, dropping deeper ones (merge.Lookup,
	// Java LookupMergeFunction), and that is not simply the newest record.
	wholeHistory bool
}

// wholeHistory reports whether a table with options o reads with the
// lookup merge (schema.Options.LookupMerge) and a merge engine under which
// the lookup merge's record is not simply the newest one (anything but
// deduplicate without sequence.field), as compaction's rewriter decides
// its lookup merge.
func wholeHistory(o schema.Options) (bool, error) {
	lookup, err := o.LookupMerge()
	if err != nil || !lookup {
		return false, err
	}
	engine, err := o.MergeEngine()
	if err != nil {
		return false, err
	}
	return engine != schema.MergeDeduplicate || len(o.SequenceField()) > 0, nil
}

// bucketInputs is what levelOrder knows of one bucket's compaction.
type bucketInputs struct {
	lo, hi         int64 // sequence numbers of the inputs
	minKey, maxKey []any // key range of the inputs
	file           string
	outLevel       int32 // lowest level of the outputs; -1: none
	seen           map[string]bool
	view           *LevelsView
}

// addLevelsView records the LevelsView of m, when it has one and
// compaction changes, in views (created when nil) and returns views. Two
// messages of one bucket saw the union of their files and kept deletes
// only if both did.
func addLevelsView(views map[bucketKey]*LevelsView, m *Message) map[bucketKey]*LevelsView {
	if m.Levels == nil || m.Compact.IsEmpty() {
		return views
	}
	if views == nil {
		views = map[bucketKey]*LevelsView{}
	}
	k := bucketKey{string(m.Partition), m.Bucket}
	v := views[k]
	if v == nil {
		views[k] = &LevelsView{Files: m.Levels.Files, DeletesKept: m.Levels.DeletesKept}
		return views
	}
	v.Files = append(v.Files[:len(v.Files):len(v.Files)], m.Levels.Files...)
	v.DeletesKept = v.DeletesKept && m.Levels.DeletesKept
	return views
}

// check fails with ErrConflict naming the bucket and the file when delta,
// a COMPACT part's entries (DELETE: the inputs, ADD: the outputs), may not
// be published over live, the live files of its partitions in the base.
func (o *levelOrder) check(live, delta []manifest.Entry) error {
	buckets := map[bucketKey]*bucketInputs{}
	deleted := map[string]bool{}
	for _, e := range delta {
		// A postpone compaction's inputs are bucket-postpone files, routed
		// into real buckets in creation order: a postpone file committed
		// meanwhile is routed by the next compaction, after them.
		if e.Kind != manifest.Delete || e.Bucket == postponeBucket {
			continue
		}
		deleted[e.Identifier()] = true
		minK, maxK, err := o.keys(e.File)
		if err != nil {
			return err
		}
		k := bucketKey{string(e.Partition), e.Bucket}
		b := buckets[k]
		if b == nil {
			buckets[k] = &bucketInputs{lo: e.File.MinSequenceNumber, hi: e.File.MaxSequenceNumber,
				minKey: minK, maxKey: maxK, file: e.File.FileName, outLevel: -1, view: o.views[k]}
			continue
		}
		b.lo, b.hi = min(b.lo, e.File.MinSequenceNumber), max(b.hi, e.File.MaxSequenceNumber)
		if compareKeys(o.keyTypes, minK, b.minKey) < 0 {
			b.minKey = minK
		}
		if compareKeys(o.keyTypes, maxK, b.maxKey) > 0 {
			b.maxKey = maxK
		}
	}
	if len(buckets) == 0 {
		return nil
	}
	for _, e := range delta {
		b := buckets[bucketKey{string(e.Partition), e.Bucket}]
		if e.Kind == manifest.Add && b != nil && (b.outLevel < 0 || e.File.Level < b.outLevel) {
			b.outLevel = e.File.Level
		}
	}
	for _, e := range live {
		b := buckets[bucketKey{string(e.Partition), e.Bucket}]
		if b == nil || deleted[e.Identifier()] {
			continue
		}
		f := e.File
		interleaves := f.MaxSequenceNumber >= b.lo && f.MinSequenceNumber <= b.hi
		if !interleaves && (b.view == nil || b.sawFile(f.FileName)) {
			continue
		}
		older := f.MaxSequenceNumber < b.lo
		var why string
		switch {
		case interleaves:
		case older && !b.view.DeletesKept:
			why = "older than its inputs, which may have lost the delete records its rows need"
		case o.wholeHistory && f.Level > 0:
			why = fmt.Sprintf("on a level above 0 of a table whose reads take the record on the lowest such level as a key's whole history (output level %d)", b.outLevel)
		case older && f.Level < b.outLevel:
			why = fmt.Sprintf("older than its inputs, below their output level %d", b.outLevel)
		case !older && b.outLevel >= 0 && f.Level > b.outLevel:
			why = fmt.Sprintf("newer than its inputs, above their output level %d", b.outLevel)
		default:
			continue
		}
		minK, maxK, err := o.keys(f)
		if err != nil {
			return err
		}
		if compareKeys(o.keyTypes, maxK, b.minKey) < 0 || compareKeys(o.keyTypes, minK, b.maxKey) > 0 {
			continue
		}
		if interleaves {
			return fmt.Errorf("%w: compaction of bucket %d (inputs such as %s, sequence numbers %d..%d) did not read %s (level %d, sequence numbers %d..%d), committed concurrently",
				ErrConflict, e.Bucket, b.file, b.lo, b.hi, f.FileName, f.Level, f.MinSequenceNumber, f.MaxSequenceNumber)
		}
		return fmt.Errorf("%w: compaction of bucket %d (inputs such as %s, sequence numbers %d..%d) was planned without %s (level %d, sequence numbers %d..%d), committed concurrently and %s",
			ErrConflict, e.Bucket, b.file, b.lo, b.hi, f.FileName, f.Level, f.MinSequenceNumber, f.MaxSequenceNumber, why)
	}
	return nil
}

// sawFile reports whether the bucket's LevelsView lists name.
func (b *bucketInputs) sawFile(name string) bool {
	if b.seen == nil {
		b.seen = make(map[string]bool, len(b.view.Files))
		for _, n := range b.view.Files {
			b.seen[n] = true
		}
	}
	return b.seen[name]
}

// keys decodes f's key range.
func (o *levelOrder) keys(f manifest.DataFileMeta) (minK, maxK []any, err error) {
	if minK, err = decodeKey(f.MinKey, o.keyTypes); err != nil {
		return nil, nil, fmt.Errorf("commit: min key of %s: %w", f.FileName, err)
	}
	if maxK, err = decodeKey(f.MaxKey, o.keyTypes); err != nil {
		return nil, nil, fmt.Errorf("commit: max key of %s: %w", f.FileName, err)
	}
	return minK, maxK, nil
}

// compareKeys orders two decoded keys of keyTypes.
func compareKeys(keyTypes []types.DataType, a, b []any) int {
	for i, t := range keyTypes {
		if c := types.Compare(t, a[i], b[i]); c != 0 {
			return c
		}
	}
	return 0
}
