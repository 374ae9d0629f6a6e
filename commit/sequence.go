package commit

import (
	"context"
	"errors"
	"fmt"

	"github.com/paimon-go/paimon/datafile"
	"github.com/paimon-go/paimon/fileio"
	"github.com/paimon-go/paimon/manifest"
	"github.com/paimon-go/paimon/resequence"
	"github.com/paimon-go/paimon/schema"
)

// sequenceGuard re-sequences the new files of an APPEND part (see the
// package documentation, Sequence numbers across writers).
type sequenceGuard struct {
	rw *resequence.Rewriter
}

// newSequenceGuard returns the guard of a primary-key table, nil for other
// tables (their rows are not merged).
func newSequenceGuard(fio *fileio.FileIO, ts *schema.TableSchema) (*sequenceGuard, error) {
	if len(ts.PrimaryKeys) == 0 {
		return nil, nil
	}
	rw, err := resequence.New(fio, ts)
	if err != nil {
		return nil, err
	}
	return &sequenceGuard{rw: rw}, nil
}

// bucketKey identifies a partition-bucket.
type bucketKey struct {
	partition string
	bucket    int32
}

// sequenced is what sequenceGuard.apply made of an attempt's entries.
type sequenced struct {
	// entries are the entries to publish: the part's own when moved is
	// empty.
	entries []manifest.Entry
	// key is entriesKey(entries) when entries differ from the part's, else
	// "".
	key string
	// copies are the paths of the files written for this attempt; they must
	// be deleted unless the attempt's snapshot is (or may be) published.
	copies []string
	// moved lists the files replaced, per bucket.
	moved []Resequenced
}

// Resequenced describes the new files of one partition-bucket that a commit
// replaced by copies with higher sequence numbers, because another writer
// committed files to the bucket whose sequence numbers were not below them.
type Resequenced struct {
	// Partition is the serialized partition BinaryRow; Bucket the bucket.
	Partition []byte
	Bucket    int32
	// Shift is the amount added to every sequence number of the files.
	Shift int64
	// Files maps the name of each replaced file to the metadata of its
	// copies (one file, or more when a copy rolled at target-file-size).
	Files map[string][]manifest.DataFileMeta
	// Rebucketed, for a dynamic-bucket table, maps the key hashes whose
	// rows the commit moved out of the bucket to the bucket another writer
	// had assigned them (Shift is 0 and the copies in Files hold the rows
	// that stayed); the writer's assignment must follow.
	Rebucketed map[int32]int32
}

// apply checks the ADD entries of an APPEND part against the live files of
// base (a snapshot's manifest list) and replaces the files of every bucket
// whose lowest new sequence number is not above the bucket's highest live
// one. Files the entries themselves delete, and live files the entries add
// again, are not counted. On error no copy is left behind.
func (g *sequenceGuard) apply(ctx context.Context, c *Committer, base []manifest.FileMeta, entries []manifest.Entry) (sequenced, error) {
	out := sequenced{entries: entries}
	low := map[bucketKey]int64{} // lowest new sequence number per bucket
	parts := map[string][]byte{}
	ours := map[string]bool{} // identifiers this part adds or deletes
	for _, e := range entries {
		ours[e.Identifier()] = true
		if e.Kind != manifest.Add || e.Bucket < 0 {
			continue
		}
		k := bucketKey{string(e.Partition), e.Bucket}
		if l, ok := low[k]; !ok || e.File.MinSequenceNumber < l {
			low[k] = e.File.MinSequenceNumber
		}
		parts[string(e.Partition)] = e.Partition
	}
	if len(low) == 0 {
		return out, nil
	}
	live, err := c.liveFiles(ctx, base, parts)
	if err != nil {
		return out, err
	}
	shift := map[bucketKey]int64{}
	for _, e := range live {
		k := bucketKey{string(e.Partition), e.Bucket}
		l, ok := low[k]
		if !ok || ours[e.Identifier()] {
			continue
		}
		if d := e.File.MaxSequenceNumber + 1 - l; d > shift[k] {
			shift[k] = d
		}
	}
	if len(shift) == 0 {
		return out, nil
	}
	moved := map[bucketKey]*Resequenced{}
	var order []bucketKey
	next := make([]manifest.Entry, 0, len(entries))
	for _, e := range entries {
		k := bucketKey{string(e.Partition), e.Bucket}
		d := shift[k]
		if e.Kind != manifest.Add || d == 0 {
			next = append(next, e)
			continue
		}
		dir, err := g.rw.BucketDir(e.Partition, e.Bucket)
		if err != nil {
			g.discard(ctx, c, out.copies)
			return sequenced{entries: entries}, fmt.Errorf("commit: re-sequence %s: %w", e.File.FileName, err)
		}
		copies, err := g.rw.Shift(ctx, dir, e.File, d)
		if err != nil {
			g.discard(ctx, c, out.copies)
			return sequenced{entries: entries}, fmt.Errorf("commit: re-sequence bucket %d: %w", e.Bucket, err)
		}
		r := moved[k]
		if r == nil {
			r = &Resequenced{Partition: e.Partition, Bucket: e.Bucket, Shift: d, Files: map[string][]manifest.DataFileMeta{}}
			moved[k] = r
			order = append(order, k)
		}
		r.Files[e.File.FileName] = copies
		for _, f := range copies {
			out.copies = append(out.copies, copyPaths(dir, f)...)
			ne := e
			ne.File = f
			next = append(next, ne)
		}
	}
	out.entries = next
	out.key = "sequenced:" + entriesKey(next)
	for _, k := range order {
		out.moved = append(out.moved, *moved[k])
	}
	return out, nil
}

// discard deletes copies written for an attempt that was not published
// (paths relative to the table root, or external locations: copyPaths).
func (g *sequenceGuard) discard(ctx context.Context, c *Committer, paths []string) {
	if g == nil {
		return
	}
	ctx = context.WithoutCancel(ctx)
	for _, p := range paths {
		_ = datafile.DeleteLocation(ctx, c.fio, p)
	}
}

// copyPaths returns the paths of a copy f written into the bucket
// directory dir and of its extra files (its file index), as
// datafile.Locations gives them.
func copyPaths(dir string, f manifest.DataFileMeta) []string {
	data, extra, _ := datafile.Locations(dir, &f)
	return append([]string{data}, extra...)
}

// refusalTakenOver reports whether the writers of msgs take over the
// refusal err of their COMPACT snapshot (Message.OnCompactionRefused): err
// is ErrConflict and every message with compaction changes has the
// callback, which is then called.
func refusalTakenOver(msgs []Message, err error) bool {
	if !errors.Is(err, ErrConflict) {
		return false
	}
	for i := range msgs {
		if !msgs[i].Compact.IsEmpty() && msgs[i].OnCompactionRefused == nil {
			return false
		}
	}
	for i := range msgs {
		if !msgs[i].Compact.IsEmpty() {
			msgs[i].OnCompactionRefused(msgs[i].Partition, msgs[i].Bucket)
		}
	}
	return true
}
