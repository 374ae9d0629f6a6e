package commit

import (
	"context"
	"errors"
	"fmt"
	"maps"
	"slices"
	"time"

	"github.com/paimon-go/paimon/progress"
	"github.com/paimon-go/paimon/row"
)

// Errors of CommitWithProgress; test with errors.Is. Nothing was published
// when one is returned.
var (
	// ErrRealtimeDisabled: CommitWithProgress on a table without
	// realtime.enabled=true (paimon-cpp "CommitWithProgress requires
	// realtime.enabled=true").
	ErrRealtimeDisabled = errors.New("commit: real-time progress requires realtime.enabled=true")
	// ErrForeignProgress: the committed progress and the commit identifier
	// disagree about a retry: every range is already covered, but not by a
	// commit of this commit user with this (or a later) identifier
	// (paimon-cpp "real-time offset ranges were committed by another commit
	// user or identifier"), or the identifier was committed but the ranges
	// are not ("... committed without the requested offset ranges").
	ErrForeignProgress = errors.New("commit: real-time progress covered by another commit user or identifier")
	// ErrPartialRetry: some ranges are covered by the committed progress
	// and others are not, or a range straddles a committed end (paimon-cpp
	// "only partially covered", "partially overlaps").
	ErrPartialRetry = errors.New("commit: real-time progress partially committed")
)

// progressMode says what a snapshot does with the real-time progress of the
// snapshot it builds on (paimon-cpp RealtimeCommitProperties::Build).
type progressMode uint8

const (
	// progressKeep copies the base's realtime.offsets value verbatim: the
	// new snapshot shares the base's offsets file.
	progressKeep progressMode = iota
	// progressReset records no progress (full-table overwrite, truncate).
	progressReset
	// progressRemove drops the entries of some partitions (partition
	// overwrite, drop partition).
	progressRemove
	// progressAdvance applies offset ranges (CommitWithProgress).
	progressAdvance
)

// progressPlan is what a commit part does with the progress.
type progressPlan struct {
	mode progressMode
	// remove are the partition specs (partition key → logical value string,
	// some or all keys) whose entries progressRemove drops.
	remove []map[string]string
	// adv are the ranges progressAdvance applies, as progress.Validate
	// returns them.
	adv []progress.Advance
}

// attemptProgress is the progress of the snapshot one attempt builds.
type attemptProgress struct {
	prop    string // the realtime.offsets value; "" records none
	offsets *progress.Offsets
	// write, when set, is the new offsets file being written; prop is
	// known once it is done.
	write *offsetsWrite
}

// offsetsWrite is an offsets file written in the background, alongside the
// manifests of an attempt.
type offsetsWrite struct {
	done chan struct{}
	prop string
	err  error
	put  span // when the file was written (traced Committers)
}

// wait waits for the attempt's offsets file, if any, and returns its error.
func (a *attemptProgress) wait() error {
	if a.write == nil {
		return nil
	}
	<-a.write.done
	a.prop = a.write.prop
	return a.write.err
}

// deleteOffsets deletes the offsets file an attempt wrote, best effort
// (paimon-cpp #324 "cleanup of unreferenced offset files"): a leftover is
// an orphan that orphan-file cleaning removes.
func (c *Committer) deleteOffsets(ctx context.Context, a attemptProgress) {
	if a.write == nil {
		return
	}
	<-a.write.done
	if a.write.err != nil {
		return
	}
	if rel, err := progress.Path(c.fio, a.write.prop); err == nil {
		_ = c.fio.Delete(context.WithoutCancel(ctx), rel)
	}
}

// buildProgress decides the progress of the snapshot an attempt builds on
// b, starting the write of a new offsets file when the progress changes.
func (c *Committer) buildProgress(ctx context.Context, b *base, p *part) (attemptProgress, error) {
	var baseProp string
	if b.snap != nil {
		baseProp = b.snap.Properties[progress.Property]
	}
	keep := attemptProgress{prop: baseProp, offsets: b.offsets}
	if baseProp == "" {
		keep.offsets = &progress.Offsets{}
	}
	switch p.prog.mode {
	case progressKeep:
		return keep, nil
	case progressReset:
		return attemptProgress{offsets: &progress.Offsets{}}, nil
	}
	committed, err := c.baseOffsets(ctx, b)
	if err != nil {
		return attemptProgress{}, err
	}
	var next progress.Offsets
	if p.prog.mode == progressRemove {
		next = committed.Without(func(pb progress.PartitionBucket) bool {
			return slices.ContainsFunc(p.prog.remove, func(spec map[string]string) bool { return matchSpec(pb.Partition, spec) })
		})
		switch {
		case next.Len() == committed.Len():
			return keep, nil // nothing removed: share the base's file
		case next.Len() == 0:
			return attemptProgress{offsets: &next}, nil
		}
	} else {
		var baseID int64
		if b.snap != nil {
			baseID = b.snap.ID
		}
		switch all, none := progress.Covered(committed, p.prog.adv); {
		case all:
			return attemptProgress{}, fmt.Errorf("%w: the ranges are covered by the progress of snapshot %d", ErrForeignProgress, baseID)
		case !none:
			return attemptProgress{}, fmt.Errorf("%w: some ranges are covered by the progress of snapshot %d, others not", ErrPartialRetry, baseID)
		}
		if next, err = progress.Apply(committed, p.prog.adv); err != nil {
			return attemptProgress{}, fmt.Errorf("commit: progress of snapshot %d: %w", baseID, err)
		}
	}
	w := &offsetsWrite{done: make(chan struct{})}
	go func() {
		defer close(w.done)
		var start time.Time
		if c.timed() {
			start = c.now()
		}
		w.prop, w.err = progress.Write(ctx, c.fio, "", next)
		if c.timed() {
			w.put = span{start, c.now()}
		}
	}()
	return attemptProgress{offsets: &next, write: w}, nil
}

// baseOffsets returns the progress b records.
func (c *Committer) baseOffsets(ctx context.Context, b *base) (progress.Offsets, error) {
	if b.offsets != nil {
		return *b.offsets, nil
	}
	o, _, err := progress.OfSnapshot(ctx, c.fio, "", b.snap)
	return o, err
}

// matchSpec reports whether a partition holds every value of spec
// (paimon-cpp PartitionUtils::MatchPartitionSpec).
func matchSpec(partition, spec map[string]string) bool {
	for k, v := range spec {
		if pv, ok := partition[k]; !ok || pv != v {
			return false
		}
	}
	return true
}

// snapshotProperties are the properties of a new snapshot: those of
// WithProperties, with realtime.offsets managed by the progress.
func (c *Committer) snapshotProperties(a attemptProgress) map[string]string {
	props := maps.Clone(c.properties)
	delete(props, progress.Property)
	if a.prop != "" {
		if props == nil {
			props = map[string]string{}
		}
		props[progress.Property] = a.prop
	}
	if len(props) == 0 {
		return nil
	}
	return props
}

// partitionComputer renders partition values as the table does.
func (c *Committer) partitionComputer() (row.PartitionComputer, error) {
	legacy, err := c.ts.Options.PartitionLegacyName()
	if err != nil {
		return row.PartitionComputer{}, err
	}
	return row.PartitionComputer{Fields: c.ts.PartitionFields(), DefaultName: c.ts.Options.PartitionDefaultName(), Legacy: legacy}, nil
}

// overwriteProgress is the progress plan of an overwrite of the partitions
// sel selects (paimon-cpp FileStoreCommitImpl::TryOverwrite): a full-table
// replacement resets all progress; otherwise the entries of the selected
// partitions are removed and the others kept.
func (c *Committer) overwriteProgress(sel *selector) (progressPlan, error) {
	if sel.all {
		return progressPlan{mode: progressReset}, nil
	}
	pc, err := c.partitionComputer()
	if err != nil {
		return progressPlan{}, err
	}
	var specs []map[string]string
	for _, r := range sel.specs {
		spec := make(map[string]string, len(r.pos))
		for j, p := range r.pos {
			f := pc.Fields[p]
			s, err := pc.ValueString(f.Type, r.vals[j])
			if err != nil {
				return progressPlan{}, fmt.Errorf("%w: partition value %v of %s: %w", ErrInvalidArgument, r.vals[j], f.Name, err)
			}
			spec[f.Name] = s
		}
		specs = append(specs, spec)
	}
	for _, k := range slices.Sorted(maps.Keys(sel.exact)) {
		br, err := row.Deserialize(sel.exact[k])
		if err != nil {
			return progressPlan{}, fmt.Errorf("commit: partition %x: %w", sel.exact[k], err)
		}
		vals, err := row.Decode(row.FieldTypes(pc.Fields), br)
		if err != nil {
			return progressPlan{}, fmt.Errorf("commit: partition %x: %w", sel.exact[k], err)
		}
		spec, err := progress.PartitionOf(pc, vals)
		if err != nil {
			return progressPlan{}, fmt.Errorf("commit: partition %x: %w", sel.exact[k], err)
		}
		specs = append(specs, spec)
	}
	return progressPlan{mode: progressRemove, remove: specs}, nil
}

// CommitWithProgress publishes msgs like Commit together with the real-time
// progress adv (paimon-cpp FileStoreCommit::CommitWithProgress,
// docs/realtime-design.md section 6.2): the snapshot that adds the
// files (APPEND, or OVERWRITE when msgs delete files) also records, in its
// realtime.offsets property, a new offsets file holding the progress of
// the snapshot it builds on advanced by adv (progress.Apply). Compaction
// changes in msgs follow as a COMPACT snapshot that shares that file. It
// returns the id of the snapshot that records the progress.
//
// The table must set realtime.enabled=true (else ErrRealtimeDisabled). adv
// is validated first (progress.Validate: errors wrap
// progress.ErrInvalidRange or progress.ErrNotContiguous); with no ranges,
// CommitWithProgress is Commit with the given watermark. A commit with
// ranges creates its snapshot even without any file change (whatever
// snapshot.ignore-empty-commit says), so progress alone can be recorded.
// Like Commit it returns the id of the last snapshot it created: the
// COMPACT snapshot of the messages' compaction changes when those landed
// (it carries the progress over), else the APPEND snapshot.
//
// Retries: unless identifier is BatchIdentifier, when a snapshot of this
// commit user with an identifier >= identifier exists (as for Commit) and
// the latest snapshot's progress covers every range (each range ends at or
// below its partition-bucket's committed end), nothing is committed and the
// id of the latest snapshot is returned; it may be newer than the snapshot
// the original commit created. Ranges covered without such a snapshot, or
// such a snapshot without covered ranges, fail with ErrForeignProgress;
// ranges only partly covered fail with ErrPartialRetry.
//
// Every attempt (see Commit for lost races and retries) reads the progress
// of the snapshot it builds on, applies adv and writes a new offsets file
// alongside its manifests; an attempt that is not published deletes it.
// When another committer advanced one of the partition-buckets in between,
// the ranges no longer begin at the committed end and the commit fails with
// progress.ErrNotContiguous, or ErrForeignProgress / ErrPartialRetry when
// the other commit covered them; nothing is published then.
//
// watermark, when not nil, replaces WithWatermark for this commit; the
// snapshot records max(the base's watermark, watermark), so it never moves
// back.
//
// Truncate and DropPartitions commit with BatchIdentifier. In Java that
// makes every identifier of their commit user look committed; this
// Committer does not take BatchIdentifier snapshots as a user's progress,
// but calling them through a Committer of another commit user keeps the
// history unambiguous for Java jobs sharing the table.
func (c *Committer) CommitWithProgress(ctx context.Context, identifier int64, msgs []Message, adv []progress.Advance, watermark *int64) (int64, error) {
	ctx, t := c.startReport(ctx)
	id, err := c.commitWithProgress(ctx, identifier, msgs, adv, watermark)
	c.finishReport(ctx, t, identifier, msgs, err)
	c.afterCommit(ctx, id, identifier, err)
	return id, err
}

// commitWithProgress is CommitWithProgress without the Maintainer.
func (c *Committer) commitWithProgress(ctx context.Context, identifier int64, msgs []Message, adv []progress.Advance, watermark *int64) (int64, error) {
	on, err := c.ts.Options.RealtimeEnabled()
	if err != nil {
		return 0, err
	}
	if !on {
		return 0, fmt.Errorf("%w: CommitWithProgress of table schema %d", ErrRealtimeDisabled, c.ts.ID)
	}
	sorted, err := progress.Validate(adv)
	if err != nil {
		return 0, err
	}
	if watermark == nil {
		watermark = c.watermark
	}
	if len(sorted) == 0 {
		return c.commit(ctx, identifier, msgs, watermark)
	}
	if c.retry.timeout > 0 {
		var cancel context.CancelFunc
		ctx, cancel = context.WithTimeout(ctx, c.retry.timeout)
		defer cancel()
	}
	parts, err := c.parts(msgs)
	if err != nil {
		return 0, err
	}
	if identifier != BatchIdentifier {
		_, done, err := c.committedAlready(ctx, identifier)
		if err != nil {
			return 0, err
		}
		if done {
			return c.retried(ctx, identifier, sorted)
		}
	}
	app, cmp := parts[0], parts[1]
	app.prog = progressPlan{mode: progressAdvance, adv: sorted}
	app.watermark, cmp.watermark = watermark, watermark
	id, err := c.commitPart(ctx, identifier, app)
	if err != nil {
		return 0, err
	}
	if !cmp.empty() {
		cid, err := c.commitPart(ctx, identifier, cmp)
		if err != nil {
			if refusalTakenOver(msgs, err) {
				return id, nil
			}
			return id, fmt.Errorf("%w: snapshot %d holds the new data files and the progress: %w", ErrCompactionNotCommitted, id, err)
		}
		// As Commit: the last snapshot created (it carries the progress
		// over).
		id = cid
	}
	return id, nil
}

// retried answers a CommitWithProgress whose identifier this commit user
// already committed: the id of the latest snapshot if its progress covers
// every range of adv.
func (c *Committer) retried(ctx context.Context, identifier int64, adv []progress.Advance) (int64, error) {
	latest, err := c.snaps.Latest(ctx)
	if err != nil {
		return 0, err
	}
	committed, _, err := progress.OfSnapshot(ctx, c.fio, "", latest)
	if err != nil {
		return 0, err
	}
	switch all, none := progress.Covered(committed, adv); {
	case all:
		return latest.ID, nil
	case none:
		return 0, fmt.Errorf("%w: identifier %d of commit user %s was committed without these ranges (latest snapshot %d)",
			ErrForeignProgress, identifier, c.commitUser, latest.ID)
	default:
		return 0, fmt.Errorf("%w: some ranges are covered by the progress of snapshot %d, others not", ErrPartialRetry, latest.ID)
	}
}
