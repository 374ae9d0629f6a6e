// Package stream follows a table as Java Paimon's streaming read does
// (org.apache.paimon.table.source.DataTableStreamScan with its
// *StartingScanner and *FollowUpScanner classes): it starts where the options
// say, then delivers each new snapshot's changes, polling for new snapshots
// every continuous.discovery-interval, and records its progress in a consumer
// file (package consumer) when a consumer-id is set.
//
// Rows are Arrow batches whose first column is "rowkind" (utf8: "+I", "-U",
// "+U", "-D"), followed by the table's columns.
//
// Which snapshots carry changes (Java's follow-up scanners): with
// changelog-producer none (and for append tables) the APPEND snapshots, whose
// delta is read (COMPACT and OVERWRITE snapshots are skipped, as Java's
// DeltaFollowUpScanner does without streaming-read-overwrite); with another
// changelog-producer the snapshots that have a changelog manifest list, whose
// changelog is read (ChangelogFollowUpScanner).
//
// # Errors
//
// ErrSnapshotExpired (wrapping reader.ErrSnapshotExpired) when the next
// snapshot to read was expired before the follower read it; schema's
// ErrInvalidOption for malformed scan options; the errors of package
// consumer for its progress file.
package stream

import (
	"context"
	"errors"
	"fmt"
	"iter"
	"strconv"
	"time"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"

	"github.com/paimon-go/paimon/consumer"
	"github.com/paimon-go/paimon/fileio"
	"github.com/paimon-go/paimon/reader"
	"github.com/paimon-go/paimon/schema"
	"github.com/paimon-go/paimon/snapshot"
)

// Mode is a scan.mode value (Java CoreOptions.StartupMode).
type Mode string

// The starting modes (Java StartupMode).
const (
	// ModeDefault is from-snapshot when scan.snapshot-id is set,
	// from-timestamp when scan.timestamp-millis is, else latest-full.
	ModeDefault          Mode = "default"
	ModeLatest           Mode = "latest"             // only changes after the latest snapshot
	ModeLatestFull       Mode = "latest-full"        // the latest snapshot whole, then changes
	ModeFromSnapshot     Mode = "from-snapshot"      // changes from snapshot scan.snapshot-id on
	ModeFromSnapshotFull Mode = "from-snapshot-full" // snapshot scan.snapshot-id whole, then changes
	ModeFromTimestamp    Mode = "from-timestamp"     // changes from the first snapshot at or after scan.timestamp-millis
	ModeCompactedFull    Mode = "compacted-full"     // the latest COMPACT snapshot whole, then changes
)

// ConsumerMode is a consumer.mode value (Java CoreOptions.ConsumerMode).
type ConsumerMode string

const (
	// ExactlyOnce writes the consumer only on Checkpoint: the caller
	// checkpoints once its sink holds a snapshot's changes.
	ExactlyOnce ConsumerMode = "exactly-once"
	// AtLeastOnce writes the consumer after each snapshot's changes were
	// handed out, when the next one is asked for.
	AtLeastOnce ConsumerMode = "at-least-once"
)

// Option keys (Java CoreOptions).
const (
	KeyScanMode          = "scan.mode"
	KeySnapshotID        = "scan.snapshot-id"
	KeyTimestampMillis   = "scan.timestamp-millis"
	KeyConsumerID        = "consumer-id"
	KeyIgnoreProgress    = "consumer.ignore-progress"
	KeyConsumerMode      = "consumer.mode"
	KeyDiscoveryInterval = "continuous.discovery-interval"
)

// DefaultInterval is continuous.discovery-interval's default (Java: 10 s).
const DefaultInterval = 10 * time.Second

// ErrSnapshotExpired marks a next snapshot that was expired before the
// follower read it; it wraps reader.ErrSnapshotExpired.
var ErrSnapshotExpired = fmt.Errorf("stream: %w", reader.ErrSnapshotExpired)

// Options decide where a Follower starts and how it records progress.
type Options struct {
	Mode            Mode
	SnapshotID      int64 // scan.snapshot-id; 0 when unset
	TimestampMillis int64 // scan.timestamp-millis (epoch ms); 0 when unset
	ConsumerID      string
	IgnoreProgress  bool // consumer.ignore-progress: start as the mode says, overwrite the consumer
	ConsumerMode    ConsumerMode
	Interval        time.Duration // continuous.discovery-interval
	Branch          string
}

// ParseOptions reads Options from Java's option keys (table options, then
// dynamic options over them). Errors wrap schema.ErrInvalidOption.
func ParseOptions(o schema.Options) (Options, error) {
	out := Options{Mode: Mode(o.String(KeyScanMode, string(ModeDefault))), ConsumerID: o.String(KeyConsumerID, ""),
		ConsumerMode: ConsumerMode(o.String(KeyConsumerMode, string(ExactlyOnce)))}
	var err error
	switch out.Mode {
	case ModeDefault, ModeLatest, ModeLatestFull, ModeFromSnapshot, ModeFromSnapshotFull, ModeFromTimestamp, ModeCompactedFull:
	case "full":
		out.Mode = ModeLatestFull // Java's deprecated alias
	default:
		return out, fmt.Errorf("%w: %s=%q", schema.ErrInvalidOption, KeyScanMode, out.Mode)
	}
	switch out.ConsumerMode {
	case ExactlyOnce, AtLeastOnce:
	default:
		return out, fmt.Errorf("%w: %s=%q", schema.ErrInvalidOption, KeyConsumerMode, out.ConsumerMode)
	}
	if out.SnapshotID, err = o.Int64(KeySnapshotID, 0); err != nil {
		return out, err
	}
	if out.TimestampMillis, err = o.Int64(KeyTimestampMillis, 0); err != nil {
		return out, err
	}
	if out.IgnoreProgress, err = o.Bool(KeyIgnoreProgress, false); err != nil {
		return out, err
	}
	if out.Interval, err = o.Duration(KeyDiscoveryInterval, DefaultInterval); err != nil {
		return out, err
	}
	return out, nil
}

// Source reads a snapshot's rows for the follower, each batch with the
// "rowkind" column first. The follower owns the batches it is given.
type Source interface {
	// Full yields every row of snapshot id as an insert (+I).
	Full(ctx context.Context, id int64) iter.Seq2[arrow.RecordBatch, error]
	// Changes yields the changes snapshot id committed: its changelog files
	// when changelog is true, else its delta files.
	Changes(ctx context.Context, id int64, changelog bool) iter.Seq2[arrow.RecordBatch, error]
	// Schema is the Arrow schema of every batch, "rowkind" first.
	Schema() *arrow.Schema
}

// Snapshot is one delivery: the changes of snapshot ID (or, when Full, all
// its rows), whole.
type Snapshot struct {
	ID      int64
	Full    bool
	Batches []arrow.RecordBatch
	// Next is the snapshot the follower reads after this one; Checkpoint(Next)
	// records that this delivery was consumed.
	Next int64
}

// Release releases the batches.
func (s *Snapshot) Release() {
	for _, b := range s.Batches {
		b.Release()
	}
	s.Batches = nil
}

// Follower follows one branch of a table. It is not safe for concurrent use.
type Follower struct {
	snaps     *snapshot.Manager
	consumers *consumer.Manager
	src       Source
	opts      Options
	changelog bool

	started bool
	full    int64 // snapshot to read whole first; 0 for none
	next    int64 // next snapshot whose changes to read
	pending int64 // at-least-once: progress to write on the next call; 0 for none
}

// New returns a Follower of the table rooted at fio (the table root; branch
// from opts) with schema ts, reading rows through src.
func New(fio *fileio.FileIO, ts *schema.TableSchema, src Source, opts Options) *Follower {
	sm := snapshot.NewManager(fio)
	if opts.Branch != "" && opts.Branch != snapshot.MainBranch {
		sm = sm.Branch(opts.Branch)
	}
	if opts.Interval <= 0 {
		opts.Interval = DefaultInterval
	}
	if opts.ConsumerMode == "" {
		opts.ConsumerMode = ExactlyOnce
	}
	producer := ts.Options.String(schema.KeyChangelogProducer, "none")
	return &Follower{snaps: sm, consumers: consumer.New(fio, opts.Branch), src: src, opts: opts,
		changelog: len(ts.PrimaryKeys) > 0 && producer != "none"}
}

// start resolves the starting position (Java's starting scanners); ok is
// false while the table has no snapshot to start from.
func (f *Follower) start(ctx context.Context) (bool, error) {
	if f.opts.ConsumerID != "" && !f.opts.IgnoreProgress {
		n, ok, err := f.consumers.Read(ctx, f.opts.ConsumerID)
		if err != nil {
			return false, err
		}
		if ok { // ContinuousFromSnapshotStartingScanner at the consumer's progress
			f.next = n
			return true, nil
		}
	}
	mode := f.opts.Mode
	if mode == ModeDefault || mode == "" {
		switch {
		case f.opts.SnapshotID > 0:
			mode = ModeFromSnapshot
		case f.opts.TimestampMillis > 0:
			mode = ModeFromTimestamp
		default:
			mode = ModeLatestFull
		}
	}
	switch mode {
	case ModeFromSnapshot, ModeFromSnapshotFull:
		if f.opts.SnapshotID <= 0 {
			return false, fmt.Errorf("%w: scan.mode %s needs %s", schema.ErrInvalidOption, mode, KeySnapshotID)
		}
		if mode == ModeFromSnapshotFull {
			f.full, f.next = f.opts.SnapshotID, f.opts.SnapshotID+1
		} else {
			f.next = f.opts.SnapshotID
		}
		return true, nil
	}
	latest, err := f.snaps.LatestID(ctx)
	if errors.Is(err, snapshot.ErrNotFound) {
		if mode == ModeFromTimestamp || mode == ModeLatest {
			f.next = 1 // every snapshot is new; Java starts at the first one too
			return true, nil
		}
		return false, nil // wait for a first snapshot to read whole
	}
	if err != nil {
		return false, err
	}
	switch mode {
	case ModeLatest:
		f.next = latest + 1
	case ModeLatestFull:
		f.full, f.next = latest, latest+1
	case ModeFromTimestamp:
		s, err := f.snaps.ByTimestamp(ctx, f.opts.TimestampMillis-1)
		switch {
		case errors.Is(err, snapshot.ErrNotFound):
			earliest, eerr := f.snaps.EarliestID(ctx)
			if eerr != nil {
				return false, eerr
			}
			f.next = earliest
		case err != nil:
			return false, err
		default: // the latest snapshot before the timestamp is consumed
			f.next = s.ID + 1
		}
	case ModeCompactedFull:
		id := latest
		for ; id >= 1; id-- {
			s, err := f.snaps.Get(ctx, id)
			if errors.Is(err, snapshot.ErrNotFound) {
				id = latest
				break
			}
			if err != nil {
				return false, err
			}
			if s.CommitKind == snapshot.KindCompact {
				break
			}
		}
		if id < 1 {
			id = latest
		}
		f.full, f.next = id, id+1
	default:
		return false, fmt.Errorf("%w: %s=%q", schema.ErrInvalidOption, KeyScanMode, mode)
	}
	return true, nil
}

// wait sleeps one discovery interval; it returns ctx's error when cancelled.
func (f *Follower) wait(ctx context.Context) error {
	t := time.NewTimer(f.opts.Interval)
	defer t.Stop()
	select {
	case <-ctx.Done():
		return ctx.Err()
	case <-t.C:
		return nil
	}
}

// Next blocks until the next snapshot with changes is committed (polling
// every discovery interval) and returns its changes whole; snapshots without
// changes for this table (see the package documentation) are passed over.
// Under at-least-once the consumer is first advanced past the previous
// delivery. Errors: ctx's error when cancelled, ErrSnapshotExpired naming the
// snapshot when the next snapshot was expired, and the source's errors.
func (f *Follower) Next(ctx context.Context) (*Snapshot, error) {
	if f.pending > 0 {
		if err := f.Checkpoint(ctx, f.pending); err != nil {
			return nil, err
		}
		f.pending = 0
	}
	for !f.started {
		ok, err := f.start(ctx)
		if err != nil {
			return nil, err
		}
		if ok {
			f.started = true
			break
		}
		if err := f.wait(ctx); err != nil {
			return nil, err
		}
	}
	if f.full > 0 {
		id := f.full
		batches, err := collect(f.src.Full(ctx, id))
		if err != nil {
			return nil, f.expired(ctx, id, err)
		}
		f.full = 0
		return f.deliver(&Snapshot{ID: id, Full: true, Batches: batches, Next: f.next}), nil
	}
	for {
		s, err := f.snaps.Get(ctx, f.next)
		longLived := false
		if errors.Is(err, snapshot.ErrNotFound) && f.changelog {
			// Expired, but its changelog outlives it (Java
			// NextSnapshotFetcher with a decoupled changelog lifecycle).
			if cl, cerr := f.snaps.Changelogs().Get(ctx, f.next); cerr == nil {
				s, err, longLived = cl, nil, true
			} else if !errors.Is(cerr, snapshot.ErrNotFound) {
				return nil, cerr
			}
		}
		if errors.Is(err, snapshot.ErrNotFound) {
			if e := f.expired(ctx, f.next, err); errors.Is(e, ErrSnapshotExpired) {
				return nil, e
			}
			if err := f.wait(ctx); err != nil {
				return nil, err
			}
			continue
		}
		if err != nil {
			return nil, err
		}
		if !f.scans(s) {
			f.next = s.ID + 1
			continue
		}
		batches, err := collect(f.src.Changes(ctx, s.ID, f.changelog))
		if err != nil {
			if longLived {
				// Below the earliest snapshot by design: a read error of
				// a long-lived changelog is not an expiration.
				return nil, fmt.Errorf("stream: changelog %d: %w", s.ID, err)
			}
			return nil, f.expired(ctx, s.ID, err)
		}
		f.next = s.ID + 1
		return f.deliver(&Snapshot{ID: s.ID, Batches: batches, Next: f.next}), nil
	}
}

func (f *Follower) deliver(s *Snapshot) *Snapshot {
	if f.opts.ConsumerID != "" && f.opts.ConsumerMode == AtLeastOnce {
		f.pending = s.Next
	}
	return s
}

// scans reports whether snapshot s carries changes to read (Java
// DeltaFollowUpScanner / ChangelogFollowUpScanner.shouldScanSnapshot).
func (f *Follower) scans(s *snapshot.Snapshot) bool {
	if f.changelog {
		return s.ChangelogManifestList != nil
	}
	return s.CommitKind == snapshot.KindAppend
}

// expired turns err, met reading snapshot id, into ErrSnapshotExpired when id
// is below the branch's earliest snapshot.
func (f *Follower) expired(ctx context.Context, id int64, err error) error {
	if errors.Is(err, reader.ErrSnapshotExpired) {
		return fmt.Errorf("%w: snapshot %d: %w", ErrSnapshotExpired, id, err)
	}
	earliest, eerr := f.snaps.EarliestID(ctx)
	if eerr == nil && earliest > id {
		return fmt.Errorf("%w: snapshot %d is below the earliest snapshot %d: %w", ErrSnapshotExpired, id, earliest, err)
	}
	return err
}

// Checkpoint records that every delivery before snapshot next was consumed:
// the consumer's nextSnapshot becomes next (pass Snapshot.Next of the last
// delivery the sink holds). Without a consumer-id it does nothing. Errors
// are those of consumer.Manager.Write.
func (f *Follower) Checkpoint(ctx context.Context, next int64) error {
	if f.opts.ConsumerID == "" {
		return nil
	}
	return f.consumers.Write(ctx, f.opts.ConsumerID, next)
}

// Records yields every delivery's batches in order, forever, until ctx is
// cancelled (then it stops without an error) or an error (yielded once). The
// caller owns each batch. Progress is written as consumer.mode says; under
// exactly-once Records never checkpoints, so use Next and Checkpoint for an
// exactly-once sink.
func (f *Follower) Records(ctx context.Context) iter.Seq2[arrow.RecordBatch, error] {
	return func(yield func(arrow.RecordBatch, error) bool) {
		for {
			s, err := f.Next(ctx)
			if err != nil {
				if ctx.Err() == nil {
					yield(nil, err)
				}
				return
			}
			for i, b := range s.Batches {
				if !yield(b, nil) {
					for _, r := range s.Batches[i+1:] {
						r.Release()
					}
					return
				}
			}
		}
	}
}

// RecordReader returns Records as an array.RecordReader with the source's
// schema; Release stops the follower's reads.
func (f *Follower) RecordReader(ctx context.Context) array.RecordReader {
	return array.ReaderFromIter(f.src.Schema(), f.Records(ctx))
}

func collect(seq iter.Seq2[arrow.RecordBatch, error]) ([]arrow.RecordBatch, error) {
	var out []arrow.RecordBatch
	for b, err := range seq {
		if err != nil {
			for _, r := range out {
				r.Release()
			}
			return nil, err
		}
		out = append(out, b)
	}
	return out, nil
}

// String describes the follower's position, for logs.
func (f *Follower) String() string {
	return "stream: next snapshot " + strconv.FormatInt(f.next, 10)
}
