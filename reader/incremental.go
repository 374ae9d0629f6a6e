package reader

import (
	"context"
	"errors"
	"fmt"
	"strconv"
	"strings"
	"time"

	"github.com/paimon-go/paimon/schema"
	"github.com/paimon-go/paimon/snapshot"
)

// IncrementalMode is how an incremental read (WithIncrementalBetween,
// WithIncrementalBetweenTimestamp) collects the changes between two
// snapshots (Java CoreOptions.IncrementalBetweenScanMode,
// incremental-between-scan-mode).
type IncrementalMode string

// The incremental modes, spelled as Java's option values.
const (
	// IncrementalAuto reads the changelog when the table's
	// changelog-producer is not none, else the delta (the default).
	IncrementalAuto IncrementalMode = "auto"
	// IncrementalDelta reads the files the APPEND snapshots in the range
	// added (COMPACT and OVERWRITE snapshots are skipped).
	IncrementalDelta IncrementalMode = "delta"
	// IncrementalChangelog reads the changelog files of the snapshots in
	// the range (OVERWRITE snapshots are skipped).
	IncrementalChangelog IncrementalMode = "changelog"
	// IncrementalDiff compares the end snapshot with the start snapshot
	// (Java IncrementalDiffSplitRead); see WithIncrementalBetween.
	IncrementalDiff IncrementalMode = "diff"
)

// Java option keys of incremental reads (CoreOptions), accepted by
// WithIncrementalOptions.
const (
	KeyIncrementalBetween              = "incremental-between"
	KeyIncrementalBetweenTimestamp     = "incremental-between-timestamp"
	KeyIncrementalBetweenScanMode      = "incremental-between-scan-mode"
	KeyIncrementalBetweenTagToSnapshot = "incremental-between-tag-to-snapshot"
)

// incrementalSpec is the incremental-read request.
type incrementalSpec struct {
	start, end    string // incremental-between (snapshot ids or tag names)
	timestamps    bool   // incremental-between-timestamp: startMs, endMs
	startMs       int64
	endMs         int64
	mode          IncrementalMode
	tagToSnapshot bool // incremental-between-tag-to-snapshot
	err           error
}

func (c *config) inc() *incrementalSpec {
	if c.incremental == nil {
		c.incremental = &incrementalSpec{}
	}
	return c.incremental
}

// WithIncrementalBetween reads the changes after snapshot start up to and
// including snapshot end (Java incremental-between = "start,end"). start and
// end are snapshot ids, or tag names when both name existing tags.
//
// Between snapshot ids, the mode (WithIncrementalMode) decides what is
// read: the deltas of the APPEND snapshots in (start, end], their changelogs,
// or the diff of the two snapshots. Delta and changelog rows are read as
// change splits (Split.Changes: raw, each row with its own kind); on
// deletion-vector and first-row tables level-0 files are skipped as in
// Java's batch scans (WithAllLevels keeps them). start == end reads nothing;
// a table without snapshots reads nothing.
//
// Between two tags, the diff of the tagged snapshots is read whatever the
// mode, unless incremental-between-tag-to-snapshot is true
// (WithIncrementalOptions), which reads the range of their snapshot ids
// with the mode.
//
// The diff: per partition-bucket, the files of the end snapshot that the
// start snapshot does not have. Append tables read them (with the end
// snapshot's deletion vectors). Primary-key tables merge the start and end
// snapshots' files per key and give the end row of every key whose row
// changed or is new, with its kind; with WithRowKind, keys whose row is
// gone give their start row as -D, and deletes kept by the merge are kept.
//
// Plan errors (all ErrInvalidScan unless said): end < start; ids that are
// neither numbers nor two tags; a delta or changelog range outside
// [earliest-1, latest] (ErrNoSnapshot, with ErrSnapshotExpired below the
// earliest); a missing diff snapshot (ErrNoSnapshot); combined with
// WithSnapshot, WithTag, WithTimestamp or WithChanges.
func WithIncrementalBetween(start, end string) Option {
	return func(c *config) {
		in := c.inc()
		in.start, in.end, in.timestamps = start, end, false
	}
}

// WithIncrementalBetweenTimestamp reads the changes of the snapshots
// committed after startMillis up to and including endMillis (epoch
// milliseconds; Java incremental-between-timestamp): the snapshot range is
// (the latest snapshot at or before startMillis, the latest snapshot at or
// before endMillis], starting before the earliest snapshot when startMillis
// is before it, ending at the latest snapshot when endMillis is before every
// snapshot. Equal times, a start after the latest snapshot or an end before
// the earliest read nothing; endMillis < startMillis fails with
// ErrInvalidScan. The mode applies as for WithIncrementalBetween.
func WithIncrementalBetweenTimestamp(startMillis, endMillis int64) Option {
	return func(c *config) {
		in := c.inc()
		in.start, in.end = "", ""
		in.timestamps, in.startMs, in.endMs = true, startMillis, endMillis
	}
}

// WithIncrementalMode sets the mode of an incremental read (default
// IncrementalAuto). Unknown modes fail Plan with ErrInvalidScan.
func WithIncrementalMode(m IncrementalMode) Option {
	return func(c *config) { c.inc().mode = m }
}

// WithIncrementalOptions applies Java's incremental option keys, as given
// to Java's table.copy(options): incremental-between ("s1,s2"),
// incremental-between-timestamp ("t1,t2" in epoch milliseconds, or
// "yyyy-MM-dd HH:mm:ss[.SSS]" in the local time zone),
// incremental-between-scan-mode (auto, delta, changelog, diff) and
// incremental-between-tag-to-snapshot (true/false). Other keys, malformed
// values, or both incremental-between and incremental-between-timestamp
// fail Plan with ErrInvalidScan.
func WithIncrementalOptions(opts map[string]string) Option {
	return func(c *config) {
		in := c.inc()
		if _, ok := opts[KeyIncrementalBetween]; ok {
			if _, ok := opts[KeyIncrementalBetweenTimestamp]; ok {
				in.err = fmt.Errorf("%w: both %s and %s", ErrInvalidScan, KeyIncrementalBetween, KeyIncrementalBetweenTimestamp)
				return
			}
		}
		for k, v := range opts {
			switch k {
			case KeyIncrementalBetween:
				s, e, ok := strings.Cut(v, ",")
				if !ok || strings.Contains(e, ",") {
					in.err = fmt.Errorf("%w: %s must be start,end (e.g. 5,10), got %q", ErrInvalidScan, k, v)
					return
				}
				in.start, in.end = s, e
			case KeyIncrementalBetweenTimestamp:
				s, e, ok := strings.Cut(v, ",")
				var err1, err2 error
				if ok && !strings.Contains(e, ",") {
					in.startMs, err1 = parseMillis(s)
					in.endMs, err2 = parseMillis(e)
				}
				if !ok || strings.Contains(e, ",") || err1 != nil || err2 != nil {
					in.err = fmt.Errorf("%w: %s must be start,end timestamps, got %q", ErrInvalidScan, k, v)
					return
				}
				in.timestamps = true
			case KeyIncrementalBetweenScanMode:
				in.mode = IncrementalMode(strings.ToLower(v))
			case KeyIncrementalBetweenTagToSnapshot:
				b, err := strconv.ParseBool(v)
				if err != nil {
					in.err = fmt.Errorf("%w: %s = %q", ErrInvalidScan, k, v)
					return
				}
				in.tagToSnapshot = b
			default:
				in.err = fmt.Errorf("%w: option %q is not an incremental read option", ErrInvalidScan, k)
				return
			}
		}
	}
}

// parseMillis parses epoch milliseconds, or a local timestamp as Java's
// DateTimeUtils.parseTimestampData does for the common shapes.
func parseMillis(s string) (int64, error) {
	if v, err := strconv.ParseInt(s, 10, 64); err == nil {
		return v, nil
	}
	for _, layout := range []string{"2006-01-02 15:04:05.999999999", "2006-01-02T15:04:05.999999999", "2006-01-02"} {
		if t, err := time.ParseInLocation(layout, s, time.Local); err == nil {
			return t.UnixMilli(), nil
		}
	}
	return 0, fmt.Errorf("not a timestamp: %q", s)
}

// checkIncremental rejects contradictory incremental-read options.
func (s *Scan) checkIncremental() error {
	in := s.cfg.incremental
	if in == nil {
		return nil
	}
	if in.err != nil {
		return in.err
	}
	if !in.timestamps && in.start == "" && in.end == "" {
		return fmt.Errorf("%w: incremental mode without a range (WithIncrementalBetween or WithIncrementalBetweenTimestamp)", ErrInvalidScan)
	}
	switch in.mode {
	case "":
		in.mode = IncrementalAuto
	case IncrementalAuto, IncrementalDelta, IncrementalChangelog, IncrementalDiff:
	default:
		return fmt.Errorf("%w: %s %q (want auto, delta, changelog or diff)", ErrInvalidScan, KeyIncrementalBetweenScanMode, in.mode)
	}
	if s.timeTravel() || s.cfg.changes != nil {
		return fmt.Errorf("%w: an incremental read together with WithSnapshot, WithTag, WithTimestamp or WithChanges", ErrInvalidScan)
	}
	return nil
}

// incrementalRange is a resolved incremental read: the snapshots (start,
// end] read with mode, or the diff of start and end.
type incrementalRange struct {
	empty      bool
	diff       bool
	start, end int64              // delta / changelog
	before     *snapshot.Snapshot // diff
	after      *snapshot.Snapshot // diff
	changeMode ChangeMode
}

// resolveIncremental turns the request into a snapshot range, with Java's
// AbstractDataTableScan.createIncrementalStartingScanner rules.
func (s *Scan) resolveIncremental(ctx context.Context, snaps *snapshot.Manager, ts *schema.TableSchema) (*incrementalRange, error) {
	in := s.cfg.incremental
	r := &incrementalRange{}
	mode := in.mode
	toChange := func() error {
		switch mode {
		case IncrementalDelta:
			r.changeMode = ChangesDelta
		case IncrementalChangelog:
			r.changeMode = ChangesChangelog
		case IncrementalAuto:
			cp, err := ts.Options.ChangelogProducer()
			if err != nil {
				return err
			}
			r.changeMode = ChangesChangelog
			if cp == schema.ChangelogNone {
				r.changeMode = ChangesDelta
			}
		}
		return nil
	}
	if !in.timestamps {
		startTag, serr := snaps.Tag(ctx, in.start)
		endTag, eerr := snaps.Tag(ctx, in.end)
		if serr == nil && eerr == nil {
			if in.tagToSnapshot {
				if mode == IncrementalDiff {
					return nil, fmt.Errorf("%w: %s with %s = diff", ErrUnsupported, KeyIncrementalBetweenTagToSnapshot, KeyIncrementalBetweenScanMode)
				}
				r.start, r.end = startTag.ID, endTag.ID
				if err := checkRange(ctx, snaps, r.start, r.end); err != nil {
					return nil, err
				}
				return r, toChange()
			}
			if endTag.ID < startTag.ID {
				return nil, fmt.Errorf("%w: tag %q (snapshot %d) is before tag %q (snapshot %d)", ErrInvalidScan, in.end, endTag.ID, in.start, startTag.ID)
			}
			if endTag.ID == startTag.ID {
				r.empty = true
				return r, nil
			}
			b, a := startTag.Snapshot, endTag.Snapshot
			r.diff, r.before, r.after = true, &b, &a
			return r, nil
		}
		for _, err := range []error{serr, eerr} {
			if err != nil && !errors.Is(err, snapshot.ErrNotFound) {
				return nil, err
			}
		}
		start, err1 := strconv.ParseInt(strings.TrimSpace(in.start), 10, 64)
		end, err2 := strconv.ParseInt(strings.TrimSpace(in.end), 10, 64)
		if err1 != nil || err2 != nil {
			return nil, fmt.Errorf("%w: %s %q,%q: not two tags and not two snapshot ids", ErrInvalidScan, KeyIncrementalBetween, in.start, in.end)
		}
		if end < start {
			return nil, fmt.Errorf("%w: %s: end snapshot %d is before start snapshot %d", ErrInvalidScan, KeyIncrementalBetween, end, start)
		}
		if ids, err := snaps.IDs(ctx); err != nil {
			return nil, err
		} else if len(ids) == 0 || start == end {
			r.empty = true
			return r, nil
		}
		if mode == IncrementalDiff {
			var err error
			if r.before, err = snapshotByID(ctx, snaps, start); err != nil {
				return nil, err
			}
			if r.after, err = snapshotByID(ctx, snaps, end); err != nil {
				return nil, err
			}
			r.diff = true
			return r, nil
		}
		if err := checkRange(ctx, snaps, start, end); err != nil {
			return nil, err
		}
		r.start, r.end = start, end
		return r, toChange()
	}
	// incremental-between-timestamp
	if ids, err := snaps.IDs(ctx); err != nil {
		return nil, err
	} else if len(ids) == 0 {
		r.empty = true
		return r, nil
	}
	earliest, err := snaps.Earliest(ctx)
	if err != nil {
		return nil, err
	}
	latest, err := snaps.Latest(ctx)
	if err != nil {
		return nil, err
	}
	if in.endMs < in.startMs {
		return nil, fmt.Errorf("%w: %s: end %d is before start %d", ErrInvalidScan, KeyIncrementalBetweenTimestamp, in.endMs, in.startMs)
	}
	if in.startMs == in.endMs || in.startMs > latest.TimeMillis || in.endMs < earliest.TimeMillis {
		r.empty = true
		return r, nil
	}
	at := func(ms int64) (*snapshot.Snapshot, error) {
		sn, err := snaps.ByTimestamp(ctx, ms)
		if errors.Is(err, snapshot.ErrNotFound) {
			return nil, nil
		}
		return sn, err
	}
	startSn, err := at(in.startMs)
	if err != nil {
		return nil, err
	}
	endSn, err := at(in.endMs)
	if err != nil {
		return nil, err
	}
	if mode == IncrementalDiff {
		if startSn == nil {
			startSn = earliest
		}
		if endSn == nil {
			endSn = latest
		}
		r.diff, r.before, r.after = true, startSn, endSn
		return r, nil
	}
	r.start = earliest.ID - 1
	if startSn != nil && earliest.TimeMillis <= in.startMs {
		r.start = startSn.ID
	}
	r.end = latest.ID
	if endSn != nil {
		r.end = endSn.ID
	}
	return r, toChange()
}

// checkRange is Java's IncrementalDeltaStartingScanner.betweenSnapshotIds
// check: start >= earliest-1 and end <= latest.
func checkRange(ctx context.Context, snaps *snapshot.Manager, start, end int64) error {
	earliest, err := snaps.EarliestID(ctx)
	if err != nil {
		return err
	}
	latest, err := snaps.LatestID(ctx)
	if err != nil {
		return err
	}
	if start < earliest-1 {
		// Long-lived changelogs (a decoupled changelog lifecycle) may
		// still hold the changes of expired snapshots (Java
		// AbstractDataTableScan with the ChangelogManager).
		cl, cerr := snaps.Changelogs().EarliestID(ctx)
		switch {
		case cerr == nil && start >= cl-1:
		case cerr == nil:
			return fmt.Errorf("%w: %w: snapshot range (%d, %d] is outside the available snapshots [%d, %d] and long-lived changelogs from %d", ErrNoSnapshot, ErrSnapshotExpired, start, end, earliest, latest, cl)
		default:
			return fmt.Errorf("%w: %w: snapshot range (%d, %d] is outside the available snapshots [%d, %d]", ErrNoSnapshot, ErrSnapshotExpired, start, end, earliest, latest)
		}
	}
	if end > latest {
		return fmt.Errorf("%w: snapshot range (%d, %d] is outside the available snapshots [%d, %d]", ErrNoSnapshot, start, end, earliest, latest)
	}
	return nil
}

// planIncremental fills plan with the splits of an incremental read.
func (s *Scan) planIncremental(ctx context.Context, t *tableState, plan *Plan, pr *pruner) error {
	snaps := snapshot.NewManager(t.meta)
	r, err := s.resolveIncremental(ctx, snaps, plan.Schema)
	if err != nil {
		return err
	}
	if r.empty {
		return nil
	}
	if r.diff {
		plan.Snapshot = r.after
		return s.planDiff(ctx, t, plan, pr, r.before, r.after)
	}
	var lists []string
	var last *snapshot.Snapshot
	for id := r.start + 1; id <= r.end; id++ {
		get := snapshotByID
		if r.changeMode == ChangesChangelog {
			get = changesSnapshot
		}
		sn, err := get(ctx, snaps, id)
		if err != nil {
			return err
		}
		last = sn
		switch {
		case r.changeMode == ChangesDelta && sn.CommitKind != snapshot.KindAppend:
			continue // COMPACT and OVERWRITE add no new rows
		case r.changeMode == ChangesChangelog && sn.CommitKind == snapshot.KindOverwrite:
			continue
		}
		lists = append(lists, changeLists(sn, r.changeMode)...)
	}
	if last != nil {
		plan.Snapshot = last
	}
	if err := s.planChanges(ctx, t, plan, pr, lists, s.cfg.allLevels); err != nil {
		return expiredErr(ctx, t.meta, last, false, err)
	}
	return nil
}
